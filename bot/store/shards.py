"""Moving the index entries of before the sharding into their shards.

Every save writes its game's ref to the open games and the deadline queue.
Each was one key (``nardy:{stats}:open``, ``nardy:{deadlines}:due`` and
``:processing``), so in a Redis Cluster one node took a write of every save;
they are now :data:`bot.store.keys.SHARDS` keys each, by the chat's shard.
A deployment that ran the code before still has the old keys: their readers
(the metric, the start-up's redraws, the deadline claimer) first move what
is in them into the shards, so nothing is lost and the old keys empty
themselves (also what an old worker still writes during a rolling deploy).

Each move adds the entries to their shards before it removes them from the
old key, so a crash in between leaves an entry in both, which the next move
repeats harmlessly.  A deadline already in its shard keeps its time there
(``ZADD NX``: a save since then wrote the newer one).
"""

from __future__ import annotations

from typing import Any

from bot.store.client import RedisClient, as_text
from bot.store.keys import Keys

BATCH = 500


async def drain_open(redis: RedisClient, keys: Keys) -> int:
    """Move the old open-games set into its shards; returns how many moved."""
    moved = 0
    while members := [as_text(m) for m in await _some(redis, keys.open_games)]:
        pipe = redis.pipeline(transaction=False)
        for ref in members:
            pipe.sadd(keys.open_shard(ref), ref)
        await pipe.execute()
        await redis.srem(keys.open_games, *members)
        moved += len(members)
    return moved


async def drain_deadlines(redis: RedisClient, keys: Keys) -> int:
    """Move the old deadline queue (due and processing) into its shards, each entry
    with its time; returns how many moved."""
    moved = 0
    for index, old in enumerate(keys.deadlines):
        while entries := await _scored(redis, old):
            pipe = redis.pipeline(transaction=False)
            refs: list[Any] = []
            for member, score in entries:
                ref = as_text(member)
                pipe.zadd(keys.deadline_shard(ref)[index], {ref: score}, nx=True)
                refs.append(ref)
            await pipe.execute()
            await redis.zrem(old, *refs)
            moved += len(refs)
    return moved


async def _some(redis: RedisClient, key: str) -> list[Any]:
    """Up to :data:`BATCH` members of a set."""
    return list(await redis.srandmember(key, BATCH) or [])


async def _scored(redis: RedisClient, key: str) -> list[tuple[Any, float]]:
    """Up to :data:`BATCH` members of a sorted set, with their scores."""
    entries: list[Any] = await redis.zrange(key, 0, BATCH - 1, withscores=True)
    return [(member, float(score)) for member, score in entries]
