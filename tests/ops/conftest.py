"""Workers for the ops tests: the real Application behind our webhook server
(:class:`bot.edge.web.WebServer`), in this process, fed by the local Bot API server's
webhook delivery; several workers share one Redis (fakeredis, or REDIS_URL's)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import fakeredis
import httpx
import pytest
import redis.asyncio as aioredis

from bot.edge.app import build_application
from bot.edge.web import WebServer
from bot.rules.dice import Dealer
from bot.store import Store
from tests.botapi import BotApiServer
from tests.conftest import REDIS_URL

SECRET = "s3cret-token_1"
PATH = "/hook"


@dataclass
class Worker:
    app: Any
    web: WebServer
    store: Store

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.web.port}"

    async def post(self, payload: dict[str, Any], secret: str | None = SECRET) -> httpx.Response:
        headers = {"X-Telegram-Bot-Api-Secret-Token": secret} if secret is not None else {}
        async with httpx.AsyncClient() as client:
            return await client.post(self.url + PATH, json=payload, headers=headers, timeout=10)

    async def get(self, path: str) -> httpx.Response:
        async with httpx.AsyncClient() as client:
            return await client.get(self.url + path, timeout=10)


@pytest.fixture
async def clients() -> AsyncIterator[Callable[[], aioredis.Redis]]:
    """Make clients of one Redis (so several workers share it); flushed at the end."""
    made: list[aioredis.Redis] = []
    server = fakeredis.FakeServer()

    def client() -> aioredis.Redis:
        made.append(aioredis.Redis.from_url(REDIS_URL) if REDIS_URL
                    else fakeredis.FakeAsyncRedis(server=server))
        return made[-1]

    first = client()
    await first.flushdb()
    yield client
    await first.flushdb()
    for one in made:
        await one.aclose()


@pytest.fixture
async def api() -> AsyncIterator[BotApiServer]:
    server = BotApiServer(telegram_limits=False)  # its workers run without a flood limiter
    server.start()
    yield server
    server.stop()


@pytest.fixture
async def workers(api: BotApiServer, clients: Callable[[], aioredis.Redis]
                  ) -> AsyncIterator[Callable[..., Awaitable[Worker]]]:
    """``await workers()`` starts a worker on its own Redis client (same server)."""
    started: list[Worker] = []

    async def start(limiter: Any = None, max_updates: int = 40) -> Worker:
        store = Store(clients())
        app = build_application(api.token or "", store, dealer=Dealer.for_tests(7),
                                base_url=api.base_url, base_file_url=api.base_file_url,
                                limiter=limiter, ping_delay=0)  # pings at once: retries tested
        await app.initialize()
        await app.start()
        web = WebServer(app, secret=SECRET, webhook_path=PATH, max_updates=max_updates)
        web.listen(0)
        started.append(Worker(app, web, store))
        return started[-1]

    yield start
    for worker in started:
        if not worker.web.draining:
            await worker.web.drain(5)
        await worker.app.stop()
        await worker.app.shutdown()
