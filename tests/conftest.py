"""Shared fixtures: an async Redis client and a Store on it.

`redis` is an in-process fakeredis (with Lua) by default and the real server
when REDIS_URL is set (CI: redis://127.0.0.1:6379/15); tests/bot/store/ adds a
local Redis Cluster.  Either way it starts empty and is flushed after the test.
Never point REDIS_URL at a database that holds anything you want to keep.
"""

from __future__ import annotations

import os

# before numpy loads (ai/__init__.py sets the same for the bot's processes):
# threaded OpenBLAS gave a long nardy batch evaluation 0.04 off on this
# machine (issue 38), so a position's value depended on its batch
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from collections.abc import AsyncIterator

import fakeredis
import pytest
import redis.asyncio as aioredis

from bot.store import RedisClient, Store
from bot.vocab.records import GameRecord

REDIS_URL = os.environ.get("REDIS_URL") or None


async def open_test_redis(backend: str) -> aioredis.Redis:
    """A flushed client on `backend`: "fake" (fakeredis) or "real" (REDIS_URL)."""
    if backend == "fake":
        return fakeredis.FakeAsyncRedis(server=fakeredis.FakeServer())
    if REDIS_URL is None:
        pytest.skip("REDIS_URL is not set")
    client = aioredis.Redis.from_url(REDIS_URL)
    await client.flushdb()
    return client


@pytest.fixture
def redis_backend() -> str:
    """Which Redis the `redis` fixture uses; tests/bot/store/ parametrises it."""
    return "real" if REDIS_URL else "fake"


@pytest.fixture
async def redis(redis_backend: str, request: pytest.FixtureRequest) -> AsyncIterator[RedisClient]:
    client: RedisClient
    if redis_backend == "cluster":  # a session-wide local cluster: tests/bot/store/conftest.py
        client = await request.getfixturevalue("redis_cluster").client()
    else:
        client = await open_test_redis(redis_backend)
    try:
        yield client
    finally:
        await client.flushdb()
        await client.aclose()


@pytest.fixture
def store(redis: RedisClient) -> Store:
    return Store(redis)


async def chat_game(store: Store, chat_id: int, thread_id: int | None = None
                    ) -> GameRecord | None:
    """The game of a chat (or forum topic) that plays one game at a time: its
    live game, else its newest ended one (a chat may have several: then the
    oldest live one)."""
    games = await store.games.chat_games(chat_id, thread_id)
    return games[0] if games else None
