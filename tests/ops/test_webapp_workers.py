"""The Mini App in webhook mode, over two workers on one Redis: the app's routes share
the webhook's server, and an app open on one worker follows a tap that another worker
handled (its long poll reads the version from Redis, not from process memory)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from bot.edge.app import build_application
from bot.edge.initdata import sign
from bot.edge.web import WebServer
from bot.edge.webapp import Webapp, routes
from bot.present.webapp import payload
from bot.rules.dice import Dealer
from bot.store import Store
from tests.bot.driver import game_board, game_id_of, pick
from tests.botapi import BotApiServer
from tests.ops.conftest import PATH, SECRET


@pytest.fixture
async def app_workers(api: BotApiServer, clients: Callable[[], aioredis.Redis]
                      ) -> AsyncIterator[list[tuple[Any, WebServer]]]:
    started: list[tuple[Any, WebServer]] = []
    for _ in range(2):
        app = build_application(api.token or "", Store(clients()), dealer=Dealer.for_tests(3),
                                base_url=api.base_url, base_file_url=api.base_file_url)
        await app.initialize()
        await app.start()
        web = WebServer(app, secret=SECRET, webhook_path=PATH,
                        extra_routes=routes(Webapp(app, api.token or "")))
        web.listen(0)
        started.append((app, web))
    yield started
    for app, web in started:
        await web.drain(5)
        await app.stop()
        await app.shutdown()


async def test_an_app_on_one_worker_follows_a_tap_on_the_other(
        api: BotApiServer, app_workers: list[tuple[Any, WebServer]]) -> None:
    (first, hook), (_second, other) = app_workers
    await first.bot.set_webhook(f"http://127.0.0.1:{hook.port}{PATH}", secret_token=SECRET)
    alice, bob = api.add_user("Alice"), api.add_user("Bob")
    chat = api.add_group("G", members=[alice, bob])
    sent = api.user_sends(chat, alice, "/new long")
    lobby = await api.wait_message_async(chat, "New game", since=sent, timeout=10)
    for user in (alice, bob):
        join = next(d for row in lobby.buttons for _, d in row if d and d.endswith(":j"))
        tap = api.user_taps(chat, user, lobby, join)
        await asyncio.to_thread(tap.wait_answer, 10)
        lobby = await api.wait_message_async(chat, since=tap, timeout=10,
                                             match=lambda m: bool(m.buttons))
    board = game_board(api, chat)
    assert board is not None
    game = payload(chat.id, game_id_of(board))
    base = f"http://127.0.0.1:{other.port}/app"

    def init(user: Any) -> str:
        return sign(api.token or "", {"user": json.dumps({"id": user.id, "first_name": "x"}),
                                      "auth_date": str(int(time.time()))})

    async with httpx.AsyncClient(timeout=40) as client:
        page = await client.get(f"{base}/")
        assert page.status_code == 200 and "app.js" in page.text
        assert (await client.get(f"{base}/static/app.js")).status_code == 200
        state = (await client.post(f"{base}/api/state",
                                   json={"initData": init(alice), "game": game})).json()
        mover = alice if state["to_act"] == state["you"] else bob
        watcher = bob if mover is alice else alice
        # the watcher's app waits on the second worker; the mover taps (the first worker)
        poll = asyncio.create_task(client.post(f"{base}/api/state", json={
            "initData": init(watcher), "game": game, "after": state["version"]}))
        await asyncio.sleep(0.5)
        assert not poll.done()
        data = pick(board)
        assert data is not None
        tap = api.user_taps(chat, mover, board, data)
        answer = await asyncio.to_thread(tap.wait_answer, 10)
        assert not answer.show_alert, answer
        followed = (await asyncio.wait_for(poll, 30)).json()
        assert followed["version"] > state["version"]
        unsigned = await client.post(f"{base}/api/state", json={"initData": "user=1",
                                                                 "game": game})
        assert unsigned.status_code == 401
