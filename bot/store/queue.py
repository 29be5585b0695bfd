"""The deadline queue: when each game with a running clock wakes up next,
claimed by one process at a time (bot/store/wakeups.py drives it).

The queue is :data:`bot.store.keys.SHARDS` pairs of sorted sets (due,
processing), a pair by chat in one hash slot, so the claiming script stays
on one slot and saves spread over a cluster's nodes; a claim goes round the
shards (the old unsharded pair is first moved in: bot/store/shards.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from bot.store.client import RedisClient, as_text
from bot.store.keys import SHARDS, Keys
from bot.store.shards import drain_deadlines
from bot.vocab.records import (
    GameRef,
)

# KEYS: due, processing.  ARGV: now, lease end, limit.  Expired leases go back
# to `due` first (a claimer died), then up to `limit` due items move to
# `processing` until the lease end.  Returns member, due, member, due, ...
_CLAIM = """
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])) do
  redis.call('ZREM', KEYS[2], m)
  redis.call('ZADD', KEYS[1], 'NX', ARGV[1], m)
end
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0,
                       tonumber(ARGV[3]))
for i = 1, #due, 2 do
  redis.call('ZREM', KEYS[1], due[i])
  redis.call('ZADD', KEYS[2], ARGV[2], due[i])
end
return due
"""


@dataclass(frozen=True)
class Claim:
    """A deadline handed to one scheduler until `lease_until`; `ack` it when handled."""

    ref: GameRef
    due: float
    lease_until: float


class DeadlineQueue:
    """Schedule and claim games' wake-ups (a part of :class:`bot.store.Store`)."""

    def __init__(self, redis: RedisClient, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys
        self._claim = redis.register_script(_CLAIM)
        self._next_shard = 0
        self._next_ping = 0

    async def schedule(self, ref: GameRef, due: float, *, lower_only: bool = False) -> None:
        """Set (or move) the next wake-up of a game.  `save` does this from
        `deadline`; `lower_only` never moves an entry later (ZADD LT), so a
        scheduler cannot push back a wake-up a concurrent save just set."""
        await self.redis.zadd(self.keys.deadline_shard(ref)[0], {str(ref): due}, lt=lower_only)

    async def unschedule(self, ref: GameRef) -> None:
        await self.redis.zrem(self.keys.deadline_shard(ref)[0], str(ref))

    async def claim_due(
        self, now: float | None = None, lease: float = 60.0, limit: int = 100
    ) -> list[Claim]:
        """Atomically take due deadlines, each leased to this caller for `lease` seconds.

        An item whose lease ran out without `ack` (the claimer died) is handed
        out again.  Delivery is at-least-once: handlers re-check the game record
        and change it by CAS, so a second delivery cannot act twice.
        """
        now = time.time() if now is None else now
        await drain_deadlines(self.redis, self.keys)
        start, self._next_shard = self._next_shard, (self._next_shard + 1) % SHARDS
        claims: list[Claim] = []
        for n in range(SHARDS):  # from a different shard first each time: none starves
            shard = self.keys.deadline_shards[(start + n) % SHARDS]
            flat = await self._claim(keys=shard, args=[now, now + lease, limit - len(claims)])
            claims += [Claim(GameRef.parse(flat[i]), float(flat[i + 1]), now + lease)
                       for i in range(0, len(flat), 2)]
            if len(claims) >= limit:
                break
        return claims

    async def ack(self, ref: GameRef) -> None:
        """Done with a claimed deadline: drop its lease (a new due time stays)."""
        await self.redis.zrem(self.keys.deadline_shard(ref)[1], str(ref))

    async def ping_later(self, ref: GameRef, version: int, due: float) -> None:
        """A "your turn" ping for ``ref``'s game at ``version``, due at ``due``
        (:func:`bot.store.wakeups.ping_tick` sends it only if the game is still
        at that version: nobody acted meanwhile)."""
        await self.redis.zadd(self.keys.ping_shard(ref)[0], {f"{version}@{ref}": due})

    async def claim_pings(self, now: float, lease: float, limit: int = 100
                          ) -> list[tuple[GameRef, int]]:
        """Atomically take the due pings, each leased to this caller (the claim
        of :meth:`claim_due`, shard by shard, from a different one first each
        time, then the unsharded pair an older worker may still fill): (game,
        version) pairs; :meth:`ack_ping` each."""
        start, self._next_ping = self._next_ping, (self._next_ping + 1) % SHARDS
        pairs = [self.keys.ping_shards[(start + n) % SHARDS] for n in range(SHARDS)]
        pings: list[tuple[GameRef, int]] = []
        for pair in [*pairs, self.keys.pings]:
            flat = await self._claim(keys=pair, args=[now, now + lease, limit - len(pings)])
            for member in flat[::2]:
                version, _, ref = as_text(member).partition("@")
                pings.append((GameRef.parse(ref), int(version)))
            if len(pings) >= limit:
                break
        return pings

    async def ack_ping(self, ref: GameRef, version: int) -> None:
        """Done with a claimed ping (from its shard, or from the unsharded pair)."""
        member = f"{version}@{ref}"
        if not await self.redis.zrem(self.keys.ping_shard(ref)[1], member):
            await self.redis.zrem(self.keys.pings[1], member)

    async def rename(self, old: str, new: str) -> None:
        """Move a game's entries (due and claimed) to its new ref, keeping their
        times; idempotent (a chat's migration: the new chat may be in another
        shard, so the entry is added there before it is removed here)."""
        await drain_deadlines(self.redis, self.keys)  # an old entry is renamed too
        for source, target in zip(self.keys.deadline_shard(old), self.keys.deadline_shard(new),
                                  strict=True):
            score = await self.redis.zscore(source, old)
            if score is not None:
                await self.redis.zadd(target, {new: score})
                await self.redis.zrem(source, old)
