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


class Updates:
    """Update markers and effects (a part of :class:`bot.store.Store`)."""

    def __init__(self, redis: RedisClient, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys
        self.markers = Markers(redis, keys)  # how markers are stored: bot/store/markers.py

    async def claim_update(self, update: int | str, lease: int = UPDATE_LEASE) -> tuple[str, int]:
        """Take an update for handling across workers: ``("new", attempt)`` if the
        caller should handle it (attempt 1, or n after n-1 failures), ``("done", 0)``
        if it was handled before, ``("in_flight", 0)`` while another worker handles it
        (its claim expires after ``lease`` seconds, should that worker die).  Settle
        it with :meth:`settle_update`."""
        return await self.markers.claim(update, lease, UPDATE_TTL)

    async def settle_update(self, update: int | str, attempt: int, *, ok: bool,
                            ttl: int = UPDATE_TTL) -> None:
        """Mark a claimed update done, or failed (its retry is handled again)."""
        value = "d" if ok else f"f:{attempt}"
        await self.markers.settle(update, value, ttl)


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
