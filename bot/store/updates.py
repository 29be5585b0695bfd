"""Each update once over all workers: claim and settle update markers, and
the journal of side effects a failed attempt leaves for its retry.

Markers and journals are keyed by the update's *identity*: its id and a
fingerprint of its content (:func:`bot.edge.ops.identity`).  An update id
alone can name two updates (Telegram picks ids afresh after a week without
updates; every test server starts at the same id): a marker or journal of
another update with the same id must neither skip this one as a duplicate
nor replay that update's steps on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.store.client import RedisClient, as_text
from bot.store.keys import Keys
from bot.store.markers import Markers

UPDATE_TTL = 24 * 3600  # Telegram keeps undelivered updates for 24 hours


UPDATE_LEASE = 120  # seconds an update stays claimed by a worker that may have died


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


def old_marker_id(update: int | str) -> str | None:
    """The update id of an identity ``<id>:<digest>`` (bot/edge/ops.py
    ``identity``), whose marker the release before schema 2 keyed by the id
    alone; None for a bare id (the two markers would be one key).

    >>> old_marker_id("7:0123abcd"), old_marker_id(7)
    ('7', None)
    """
    if not isinstance(update, str) or ":" not in update:
        return None
    return update.partition(":")[0]


class Updates:
    """Update markers and effects (a part of :class:`bot.store.Store`)."""

    def __init__(self, redis: RedisClient, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys
        self.markers = Markers(redis, keys)  # how markers are stored: bot/store/markers.py
        self._claim_old = redis.register_script(_CLAIM_OLD_MARKER)

    async def claim_update(self, update: int | str, lease: int = UPDATE_LEASE) -> tuple[str, int]:
        """Take an update for handling across workers: ``("new", attempt)`` if the
        caller should handle it (attempt 1, or n after n-1 failures), ``("done", 0)``
        if it was handled before, ``("in_flight", 0)`` while another worker handles it
        (its claim expires after ``lease`` seconds, should that worker die).  Settle
        it with :meth:`settle_update`."""
        old = await self._old_marker(update)
        if old is not None:  # a worker of the release before may have it
            seen = as_text(await self._claim_old(
                keys=[self.keys.update(old)], args=[lease, str(update).partition(":")[2]]))
            if seen != "ours":
                return seen, 0
        state, attempt = await self.markers.claim(update, lease, UPDATE_TTL)
        if old is not None and state == "done":
            await self.redis.set(self.keys.update(old), "1", ex=UPDATE_TTL)
        return state, attempt

    async def settle_update(self, update: int | str, attempt: int, *, ok: bool,
                            ttl: int = UPDATE_TTL) -> None:
        """Mark a claimed update done, or failed (its retry is handled again)."""
        value = "d" if ok else f"f:{attempt}"
        await self.markers.settle(update, value, ttl)
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
        """The side effects earlier attempts of an update noted (bot/edge/effects.py)."""
        raw = await self.redis.hgetall(self.keys.effects(update))
        return {as_text(name): as_text(value) for name, value in raw.items()}

    async def save_effects(self, update: int | str, effects: Mapping[str, str],
                           ttl: int = UPDATE_TTL) -> None:
        """Keep a failed attempt's side effects for the update's retry."""
        if not effects:
            return
        key = self.keys.effects(update)
        pipe = self.redis.pipeline(transaction=True)
        mapping: dict[Any, Any] = dict(effects)
        pipe.hset(key, mapping=mapping)
        pipe.expire(key, ttl)
        await pipe.execute()
