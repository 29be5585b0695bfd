"""What every part of the store shares: the client type and reading its replies."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

RedisClient: TypeAlias = aioredis.Redis | RedisCluster
"""One Redis server or a Redis Cluster (bot/store/connection.py, REDIS_CLUSTER)."""


def as_text(value: Any) -> str:
    """A Redis reply (bytes, or str from a client that decodes) as text."""
    return value.decode() if isinstance(value, bytes) else str(value)


async def no_upkeep() -> None:
    """The upkeep of a save that has none (see `Store.save_first`)."""


# KEYS: a hash.  ARGV: seconds to expire, then field, value pairs.
_HSET_EXPIRE = """
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[1]))
"""

# KEYS: a sorted set.  ARGV: member, score, members kept, seconds to expire.
_ZADD_CAPPED = """
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -tonumber(ARGV[3]) - 1)
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
"""


async def hset_expiring(redis: RedisClient, key: str, mapping: Mapping[str, Any],
                        ttl: int) -> None:
    """HSET ``mapping`` into ``key`` and (re)set its expiry, in one step.

    A Lua script on the key's one slot, not a MULTI/EXEC pipeline: redis-py's
    async cluster client runs a transaction pipeline through ``asyncio.run``
    in a thread it joins on the caller's loop, which deadlocked a worker for
    good in a master failover (issue 22; tests/store/test_failover.py)."""
    if not mapping:
        return
    pairs = [part for name, value in mapping.items() for part in (name, value)]
    await redis.register_script(_HSET_EXPIRE)(keys=[key], args=[ttl, *pairs])


async def zadd_capped(redis: RedisClient, key: str, member: str, score: float, cap: int,
                      ttl: int) -> None:
    """ZADD ``member`` at ``score``, keep the ``cap`` highest, (re)set the expiry:
    one script (see :func:`hset_expiring` for why not a transaction)."""
    await redis.register_script(_ZADD_CAPPED)(keys=[key], args=[member, score, cap, ttl])
