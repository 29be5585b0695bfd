"""What every part of the store shares: the client type and reading its replies."""

from __future__ import annotations

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
