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

from bot.store.client import RedisClient, as_text, hset_expiring
from bot.store.keys import Keys

UPDATE_TTL = 24 * 3600  # Telegram keeps undelivered updates for 24 hours


UPDATE_LEASE = 120  # seconds an update stays claimed by a worker that may have died


# KEYS: marker.  ARGV: lease seconds.  Returns {'done'|'in_flight', 0} or {'new', attempt}.
_CLAIM_UPDATE = """
local v = redis.call('GET', KEYS[1])
if v == 'd' or v == '1' then return {'done', 0} end
if v and string.sub(v, 1, 2) == 'p:' then return {'in_flight', 0} end
local n = 1
if v and string.sub(v, 1, 2) == 'f:' then n = tonumber(string.sub(v, 3)) + 1 end
redis.call('SET', KEYS[1], 'p:' .. n, 'EX', tonumber(ARGV[1]))
return {'new', n}
"""


class Updates:
    """Update markers and effects (a part of :class:`bot.store.Store`)."""

    def __init__(self, redis: RedisClient, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys
        self._claim_update = redis.register_script(_CLAIM_UPDATE)

    async def claim_update(self, update: int | str, lease: int = UPDATE_LEASE) -> tuple[str, int]:
        """Take an update for handling across workers: ``("new", attempt)`` if the
        caller should handle it (attempt 1, or n after n-1 failures), ``("done", 0)``
        if it was handled before, ``("in_flight", 0)`` while another worker handles it
        (its claim expires after ``lease`` seconds, should that worker die).  Settle
        it with :meth:`settle_update`."""
        state, attempt = await self._claim_update(
            keys=[self.keys.update(update)], args=[lease])
        return as_text(state), int(attempt)

    async def settle_update(self, update: int | str, attempt: int, *, ok: bool,
                            ttl: int = UPDATE_TTL) -> None:
        """Mark a claimed update done, or failed (its retry is handled again)."""
        value = "d" if ok else f"f:{attempt}"
        await self.redis.set(self.keys.update(update), value, ex=ttl)


    async def load_effects(self, update: int | str) -> dict[str, str]:
        """The side effects earlier attempts of an update noted (bot/edge/effects.py)."""
        raw = await self.redis.hgetall(self.keys.effects(update))
        return {as_text(name): as_text(value) for name, value in raw.items()}

    async def save_effects(self, update: int | str, effects: Mapping[str, str],
                           ttl: int = UPDATE_TTL) -> None:
        """Keep a failed attempt's side effects for the update's retry."""
        if not effects:
            return
        await hset_expiring(self.redis, self.keys.effects(update), effects, ttl)
