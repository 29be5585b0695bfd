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

import dataclasses
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

from bot.store.client import RETRY_BUDGET, RedisClient, as_text, hset_expiring, idempotent
from bot.store.keys import Keys

UPDATE_TTL = 24 * 3600  # Telegram keeps undelivered updates for 24 hours


UPDATE_LEASE = 15
"""Seconds an update stays claimed without a heartbeat: how soon a worker that
died (kill -9, a lost machine) hands its updates to a redelivery.  The live
worker renews its claim every :data:`HEARTBEAT` seconds while it handles the
update (bot/edge/ops.py), so a slow update is not taken from it; the lease
must outlast the longest stall of a worker's event loop (10 s was taken over
twice in a load test on an overloaded machine, a worker starting up)."""
HEARTBEAT = 3.0
"""Seconds between two renewals of a claim (well inside :data:`UPDATE_LEASE`)."""


# KEYS: marker.  ARGV: now (ms), lease (ms), owner, marker expiry (s).
# Returns {'done'|'in_flight', 0} or {'new', attempt}.  An in-flight claim is
# "p:<attempt>:<until ms>:<owner>"; one whose time ran out (its worker died or
# hangs) is taken over as the next attempt, so the retry reads the journal the
# first attempt kept.  "p:<n>" (no time: an older worker's claim) lives by its
# key's expiry as before.
_CLAIM_UPDATE = """
local v = redis.call('GET', KEYS[1])
if v == 'd' or v == '1' then return {'done', 0} end
local n = 1
if v and string.sub(v, 1, 2) == 'p:' then
  local attempt, untl, owner = string.match(v, '^p:(%d+):(%d+):(.*)$')
  if owner == ARGV[3] then return {'new', tonumber(attempt)} end  -- this claim, run again
  if not untl or tonumber(untl) > tonumber(ARGV[1]) then return {'in_flight', 0} end
  n = tonumber(attempt) + 1
elseif v and string.sub(v, 1, 2) == 'f:' then
  n = tonumber(string.sub(v, 3)) + 1
end
redis.call('SET', KEYS[1], 'p:' .. n .. ':' .. (tonumber(ARGV[1]) + tonumber(ARGV[2])) ..
           ':' .. ARGV[3], 'EX', tonumber(ARGV[4]))
return {'new', n}
"""

# KEYS: marker.  ARGV: attempt, owner, now (ms), lease (ms).  Returns 1 if the claim
# is still this owner's (renewed), else 0 (settled, or taken over after it ran out).
_RENEW_UPDATE = """
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local attempt, owner = string.match(v, '^p:(%d+):%d+:(.*)$')
if attempt ~= ARGV[1] or owner ~= ARGV[2] then return 0 end
redis.call('SET', KEYS[1], 'p:' .. attempt .. ':' .. (tonumber(ARGV[3]) + tonumber(ARGV[4])) ..
           ':' .. owner, 'KEEPTTL')
return 1
"""


@dataclasses.dataclass(frozen=True)
class Claim:
    """An update taken for handling: which attempt, by whom (renew it with
    :meth:`Updates.renew_update`)."""

    update: int | str
    attempt: int
    owner: str


class Updates:
    """Update markers and effects (a part of :class:`bot.store.Store`).

    ``clock``: seconds since the epoch (the leases' time; tests inject one)."""

    def __init__(self, redis: RedisClient, keys: Keys,
                 clock: Callable[[], float] = time.time) -> None:
        self.redis = redis
        self.keys = keys
        self.clock = clock
        self._claim_update = redis.register_script(_CLAIM_UPDATE)
        self._renew_update = redis.register_script(_RENEW_UPDATE)

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
        keys = [self.keys.update(update)]
        args: list[Any] = [self._now_ms(), int(lease * 1000), owner or new_owner(), UPDATE_TTL]
        state, attempt = await idempotent(lambda: self._claim_update(keys=keys, args=args))
        return as_text(state), int(attempt)

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
        renewed = await self._renew_update(
            keys=[self.keys.update(claim.update)],
            args=[claim.attempt, claim.owner, self._now_ms(), int(lease * 1000)])
        return bool(renewed)

    async def settle_update(self, update: int | str, attempt: int, *, ok: bool,
                            ttl: int = UPDATE_TTL) -> None:
        """Mark a claimed update done, or failed (its retry is handled again)."""
        value = "d" if ok else f"f:{attempt}"
        await idempotent(lambda: self.redis.set(self.keys.update(update), value, ex=ttl))

    async def load_effects(self, update: int | str) -> dict[str, str]:
        """The side effects earlier attempts of an update noted (bot/edge/effects.py)."""
        raw = await self.redis.hgetall(self.keys.effects(update))
        return {as_text(name): as_text(value) for name, value in raw.items()}

    async def save_effects(self, update: int | str, effects: Mapping[str, str],
                           ttl: int = UPDATE_TTL, budget: float = RETRY_BUDGET) -> None:
        """Keep side effects of an attempt for the update's retry (as they happen:
        a worker that dies mid-update leaves them to the attempt that takes over);
        tried again for ``budget`` seconds should Redis not answer."""
        await idempotent(lambda: hset_expiring(self.redis, self.keys.effects(update), effects,
                                               ttl), budget)

    async def drop_effects(self, update: int | str) -> None:
        """Forget an update's journal (it is done: no retry will read it)."""
        await self.redis.delete(self.keys.effects(update))


def new_owner() -> str:
    """A claimer's name: unique enough that two claims never share one."""
    return secrets.token_hex(6)
