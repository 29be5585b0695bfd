"""Health and metrics endpoints, and log lines tagged with the update's ids."""

from __future__ import annotations

import io
import json
import logging
import socket
from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis

from bot.edge import logs
from bot.edge.limits import SharedRateLimiter
from bot.edge.metrics import REGISTRY
from bot.store import Store
from tests.botapi import BotApiServer
from tests.ops.conftest import PATH, SECRET, Worker

Start = Callable[..., Awaitable[Worker]]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_health_is_503_while_redis_is_unreachable(workers: Start) -> None:
    worker = await workers()
    ok = await worker.get("/healthz")
    assert (ok.status_code, ok.json()["redis"]) == (200, True)
    good = worker.app.bot_data["store"]
    down = aioredis.Redis(port=closed_port(), socket_connect_timeout=0.2)
    worker.app.bot_data["store"] = Store(down)
    try:
        bad = await worker.get("/healthz")
        assert (bad.status_code, bad.json()) == (503, {"status": "unhealthy", "redis": False,
                                                      "in_flight": 0})
        assert (await worker.get("/livez")).status_code == 200  # alive, just not ready
    finally:
        worker.app.bot_data["store"] = good
        await down.aclose()
    assert (await worker.get("/healthz")).status_code == 200


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def test_metrics_count_updates_taps_and_open_games(api: BotApiServer,
                                                         workers: Start) -> None:
    limiter = SharedRateLimiter(overall=None)  # measures taps; no throttling here
    worker = await workers(limiter)
    limiter.attach(worker.store.flood)
    await worker.app.bot.set_webhook(worker.url + PATH, secret_token=SECRET)
    done = sample("nardy_updates_total", kind="message", outcome="done")
    taps = sample("nardy_tap_answer_seconds_count")
    alice, bob = api.add_user("Alice"), api.add_user("Bob")
    chat = api.add_group("G", members=[alice, bob])
    sent = api.user_sends(chat, alice, "/new")
    lobby = await api.wait_message_async(chat, "New game", since=sent, timeout=10)
    join = next(d for row in lobby.buttons for _, d in row if d and d.endswith(":j"))
    tap = api.user_taps(chat, alice, lobby, join)
    await tap.wait_answer_async(5)
    await api.wait_for_async(lambda: api.pending_updates() == 0, 5)
    page = await worker.get("/metrics")
    assert page.status_code == 200
    text = page.text
    assert sample("nardy_updates_total", kind="message", outcome="done") == done + 1
    assert sample("nardy_tap_answer_seconds_count") == taps + 1
    assert 'nardy_updates_total{kind="callback_query",outcome="done"}' in text
    assert "nardy_open_games 1.0" in text  # the lobby
    assert "nardy_update_seconds_bucket" in text


async def test_log_lines_carry_the_update_chat_and_game_ids(api: BotApiServer,
                                                            workers: Start) -> None:
    stream = io.StringIO()
    logger = logs.configure("INFO", "json", stream=stream, logger_name="bot")
    try:
        worker = await workers()
        alice = api.add_user("Alice")
        chat = api.add_group("G", members=[alice])
        api.user_sends(chat, alice, "/new")
        update = api.updates()[-1]
        assert (await worker.post(update)).status_code == 200
        assert (await worker.post(update)).json() == {"outcome": "duplicate"}
    finally:
        logger.handlers.clear()
        logger.propagate = True
        logger.setLevel(logging.NOTSET)
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    skipped = next(line for line in lines if "skipped" in line["msg"])
    assert skipped["update_id"] == update["update_id"]
    assert skipped["chat_id"] == chat.id and skipped["user_id"] == alice.id


def test_third_party_chatter_stays_below_info() -> None:
    # APScheduler says "Adding job tentatively" for every job added before the
    # application starts, and httpx logs each request: at INFO they drowned a
    # start-up's own lines
    stream = io.StringIO()
    logs.configure("INFO", "text", stream=stream)
    try:
        logging.getLogger("apscheduler.scheduler").info("Adding job tentatively")
        logging.getLogger("httpx").info("HTTP Request: POST")
        logging.getLogger("bot.edge.app").info("started")
    finally:
        logging.getLogger().handlers.clear()
        logging.getLogger().setLevel(logging.WARNING)
    text = stream.getvalue()
    assert "started" in text
    assert "tentatively" not in text and "HTTP Request" not in text
