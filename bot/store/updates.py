"""Each update once over all workers: claim and settle update markers, and
the journal of side effects a failed attempt leaves for its retry.

Markers and journals are keyed by the update's *identity*: its id and a
fingerprint of its content (:func:`bot.edge.incoming.identity_of`).  An update id
alone can name two updates (Telegram picks ids afresh after a week without
updates; every test server starts at the same id): a marker or journal of
another update with the same id must neither skip this one as a duplicate
nor replay that update's steps on it.
"""

from __future__ import annotations

import dataclasses
import secrets
import time
from collections.abc import Callable, Mapping

from bot.store.client import RETRY_BUDGET, RedisClient, as_text, hset_expiring, idempotent
from bot.store.keys import Keys
from bot.store.markers import Markers, journal_of

UPDATE_TTL = 24 * 3600  # Telegram keeps undelivered updates for 24 hours
DONE_TTL = 10 * 60
"""Seconds the markers of updates that are all done are kept after the last of
them (:data:`UPDATE_TTL` while one of their bucket is claimed or failed: it may
be delivered again for a day).  A done update was acknowledged (the webhook's
200, the next poll's offset), so Telegram delivers it again only if that
reply was lost, within a minute or so; a day of every tap's marker took most
of an active game's memory at scale (issue 37; docs/storage.md "Update
markers").  A redelivery later than this is handled as new: a tap's
compare-and-set and a command's ids from the update still keep it from
acting twice."""


UPDATE_LEASE = 15
"""Seconds an update stays claimed without a heartbeat: how soon a worker that
died (kill -9, a lost machine) hands its updates to a redelivery.  The live
worker renews its claim every :data:`HEARTBEAT` seconds while it handles the
update (bot/edge/ops.py), so a slow update is not taken from it; the lease
must outlast the longest stall of a worker's event loop (10 s was taken over
twice in a load test on an overloaded machine, a worker starting up)."""
HEARTBEAT = 3.0
"""Seconds between two renewals of a claim (well inside :data:`UPDATE_LEASE`)."""


# The marker of the release before schema 2 is keyed by the update id alone
# (``nardy:update:<id>``): 'p:<n>' claimed, 'f:<n>' failed, 'd' or '1' done.
# This release keeps it beside its own, so workers of both releases handle an
# update once (docs/operations.md, "Mixed deploys"): it takes it as
# 'p:<n>:<digest>' (in flight to the old code, which reads the prefix only)
# and settles it '1' (done to both; 'd' only the old code writes).
# KEYS: the old marker.  ARGV: lease seconds (a fraction, or 0, is fine), digest.
# Returns 'done' / 'in_flight' (a worker of the old release), or 'ours'.
_CLAIM_OLD_MARKER = """
local v = redis.call('GET', KEYS[1])
if v == 'd' then return 'done' end
if v and string.match(v, '^p:%d+$') then return 'in_flight' end
if v == '1' or (v and string.sub(v, 1, 2) == 'p:') then return 'ours' end
local px = math.max(1, math.floor(tonumber(ARGV[1]) * 1000))
redis.call('SET', KEYS[1], 'p:1:' .. ARGV[2], 'PX', px)
return 'ours'
"""


@dataclasses.dataclass(frozen=True)
class Claim:
    """An update taken for handling: which attempt, by whom (renew it with
    :meth:`Updates.renew_update`)."""

    update: int | str
    attempt: int
    owner: str


def old_marker_id(update: int | str) -> str | None:
    """The update id of an identity ``<id>:<digest>`` (bot/edge/incoming.py
    ``identity_of``), whose marker the release before schema 2 keyed by the id
    alone; None for a bare id (the two markers would be one key).

    >>> old_marker_id("7:0123abcd"), old_marker_id(7)
    ('7', None)
    """
    if not isinstance(update, str) or ":" not in update:
        return None
    return update.partition(":")[0]


class Updates:
    """Update markers and effects (a part of :class:`bot.store.Store`).

    ``clock``: seconds since the epoch (the leases' time; tests inject one)."""

    def __init__(self, redis: RedisClient, keys: Keys,
                 clock: Callable[[], float] = time.time) -> None:
        self.redis = redis
        self.keys = keys
        self.clock = clock
        self.markers = Markers(redis, keys)  # how markers are stored: bot/store/markers.py
        self._claim_old = redis.register_script(_CLAIM_OLD_MARKER)

    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    async def claim_update(self, update: int | str, lease: float = UPDATE_LEASE,
                           owner: str = "") -> tuple[str, int]:
        """Take an update for handling across workers: ``("new", attempt)`` if the
        caller should handle it (attempt 1, or n after n-1 failed or abandoned
        attempts), ``("done", 0)`` if it was handled before, ``("in_flight", 0)``
        while another worker handles it (its claim runs out ``lease`` seconds after
        it was taken or last renewed, should that worker die).  ``owner`` names
        the claimer for :meth:`renew_update`.  Settle it with :meth:`settle_update`."""
        old = await self._old_marker(update)
        if old is not None:  # a worker of the release before may have it
            seen = as_text(await idempotent(lambda: self._claim_old(
                keys=[self.keys.update(old)], args=[lease, str(update).partition(":")[2]])))
            if seen != "ours":
                return seen, 0
        who = owner or new_owner()
        state, attempt = await idempotent(lambda: self.markers.claim(
            update, self._now_ms(), int(lease * 1000), who, UPDATE_TTL))
        if old is not None and state == "done":
            await self.redis.set(self.keys.update(old), "1", ex=UPDATE_TTL)
        return state, attempt

    async def claim(self, update: int | str, lease: float = UPDATE_LEASE
                    ) -> tuple[str, Claim | None]:
        """:meth:`claim_update` with an owner of its own: the state and, when it is
        ``"new"``, the :class:`Claim` to renew and settle."""
        owner = new_owner()
        state, attempt = await self.claim_update(update, lease, owner)
        return state, Claim(update, attempt, owner) if state == "new" else None

    async def renew_update(self, claim: Claim, lease: float = UPDATE_LEASE) -> bool:
        """Extend a claim by ``lease`` seconds from now (the heartbeat); False if it
        is no longer the claimer's (it ran out and another worker took it)."""
        return await self.markers.renew(claim.update, claim.attempt, claim.owner,
                                        self._now_ms(), int(lease * 1000))

    async def settle_update(self, update: int | str, attempt: int, *, ok: bool,
                            ttl: int = UPDATE_TTL, done_ttl: int = DONE_TTL) -> None:
        """Mark a claimed update done (its journal deleted in the same step), or
        failed (its retry is handled again, with the journal); ``done_ttl``: see
        :data:`DONE_TTL`."""
        value = "d" if ok else f"f:{attempt}"
        await idempotent(lambda: self.markers.settle(update, value, ttl, done_ttl))
        old = await self._old_marker(update)
        if old is not None:  # done (or failed) to workers of the release before too
            await self.redis.set(self.keys.update(old), "1" if ok else f"f:{attempt}", ex=ttl)

    async def _old_marker(self, update: int | str) -> str | None:
        """The id the release before schema 2 keys the update's marker by, while
        its workers may still run beside ours (a key a tap costs memory: after
        the upgrade's first day only this release's compact markers are kept)."""
        old = old_marker_id(update)
        return old if old is not None and await self.markers.legacy_window() else None

    async def load_effects(self, update: int | str) -> dict[str, str]:
        """The side effects earlier attempts of an update noted (bot/edge/effects.py):
        its entries in the journals' hash beside its marker (:func:`journal_of`)."""
        key, prefix = journal_of(self.keys, update)
        raw = await self.redis.hgetall(key)
        named = ((as_text(name), as_text(value)) for name, value in raw.items())
        return {name.removeprefix(prefix): value for name, value in named
                if name.startswith(prefix)}

    async def save_effects(self, update: int | str, effects: Mapping[str, str],
                           ttl: int = UPDATE_TTL, budget: float = RETRY_BUDGET) -> None:
        """Keep side effects of an attempt for the update's retry (as they happen:
        a worker that dies mid-update leaves them to the attempt that takes over);
        tried again for ``budget`` seconds should Redis not answer.  Settling
        the update done deletes them (:meth:`settle_update`)."""
        key, prefix = journal_of(self.keys, update)
        entries = {prefix + name: value for name, value in effects.items()}
        await idempotent(lambda: hset_expiring(self.redis, key, entries, ttl), budget)


def new_owner() -> str:
    """A claimer's name: unique enough that two claims never share one."""
    return secrets.token_hex(6)
