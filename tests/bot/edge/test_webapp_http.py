"""The Mini App's HTTP side as a client meets it: bad static paths are refused with
a plain 404 (never a 500 and its stack trace), and answers are compressed for a
client that accepts gzip.  In process: the app's routes on a tornado server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import fakeredis
import httpx
import pytest
import tornado.httpserver
import tornado.netutil
import tornado.web

from bot.edge import webapp as webapp_module
from bot.edge.webapp import APP_REDIS, Webapp, routes
from bot.present.webstate import game_state
from bot.rules.seats import waiting_user
from bot.store import Store
from tests.bot.conftest import World, running_world
from tests.bot.driver import pick
from tests.bot.edge.handlers.test_webapp_budget import _at_a_roll, _init
from tests.bot.trees import walk


@pytest.fixture
async def static_url() -> AsyncIterator[str]:
    server = tornado.httpserver.HTTPServer(tornado.web.Application(
        routes(Webapp(object(), "1:x"))))
    sockets = tornado.netutil.bind_sockets(0, "127.0.0.1")
    server.add_sockets(sockets)
    try:
        yield f"http://127.0.0.1:{sockets[0].getsockname()[1]}/app"
    finally:
        server.stop()


BAD = ["%00", "app.js%00", "%00.js", "..%2Fwebapp.py", "..%2F..%2F__init__.py", "%2e%2e/x",
       "nothing.js", "", "%ff%fe", "a/../../edge/webapp.py", "app.js/", "%C0%AE%C0%AE/x"]


@pytest.mark.parametrize("path", BAD)
async def test_a_bad_static_path_is_refused_plainly(static_url: str, path: str) -> None:
    async with httpx.AsyncClient() as client:
        answer = await client.get(f"{static_url}/static/{path}")
    assert answer.status_code in (400, 404), (path, answer.status_code)
    assert "Traceback" not in answer.text and "Error" not in answer.text.replace(
        "Not Found", "").replace("Bad Request", "")


async def test_the_page_and_its_modules_are_served(static_url: str) -> None:
    async with httpx.AsyncClient() as client:
        for name in ("app.js", "board.js", "style.css"):
            answer: Any = await client.get(f"{static_url}/static/{name}")
            assert answer.status_code == 200, name
        assert (await client.get(f"{static_url}/")).status_code == 200


def test_every_static_file_has_a_name_the_route_serves() -> None:
    import re

    from bot.edge.webapp import STATIC, STATIC_NAME
    names = [p.name for p in STATIC.iterdir()]
    assert names and all(re.fullmatch(STATIC_NAME, name) for name in names), names


POOL = 36
assert POOL > APP_REDIS + 8
"""The Redis pool of the bot under test: bounded like a real one (redis-py's is 100),
small enough that the open apps alone would exhaust it without the app's gate."""


@pytest.fixture
async def app_world() -> AsyncIterator[tuple[World, Webapp, str]]:
    client = fakeredis.FakeAsyncRedis(server=fakeredis.FakeServer(), max_connections=POOL)
    async with running_world(Store(client)) as world:
        webapp = Webapp(world.app, world.server.token or "")
        sockets = tornado.netutil.bind_sockets(0, "127.0.0.1")
        server = tornado.httpserver.HTTPServer(tornado.web.Application(routes(webapp)))
        server.add_sockets(sockets)
        try:
            yield world, webapp, f"http://127.0.0.1:{sockets[0].getsockname()[1]}/app/api"
        finally:
            server.stop()
            await webapp.live.stop()


OPEN_APPS = 250


async def test_many_open_apps_read_nothing_while_waiting_and_a_tap_is_applied_and_seen_by_all(
        app_world: tuple[World, Webapp, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Hundreds of long polls open on one worker: while nothing changes they read
    nothing from Redis (issue 34: each read its game every 0.25 s, and 900 of them
    starved the taps); a tap in the chat is answered and applied, and every poll is
    answered (none with a 5xx) with the new version."""
    world, webapp, url = app_world
    chat, mover, game = await _at_a_roll(world)
    [record] = await world.store.games.chat_games(chat.id)
    version = record.version
    load = world.store.games.load_game
    reads, inflight, most = [0], [0], [0]

    async def slow(*args: Any) -> Any:  # counted, and slowed so that reads would overlap
        reads[0] += 1
        inflight[0] += 1
        most[0] = max(most[0], inflight[0])
        try:
            await asyncio.sleep(0.005)
            return await load(*args)
        finally:
            inflight[0] -= 1

    monkeypatch.setattr(world.store.games, "load_game", slow)
    users = [world.server.add_user(f"Fan{n}") for n in range(OPEN_APPS)]
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        polls = [asyncio.create_task(client.post(f"{url}/state", json={
            "initData": _init(world, user), "game": game, "after": version}))
            for user in users]
        for _ in range(1000):
            if webapp.live.waiting() == OPEN_APPS and webapp.live.subscribed:
                break
            await asyncio.sleep(0.01)
        assert webapp.live.waiting() == OPEN_APPS
        # the apps opened at once: their reads queue for the app's share of the pool
        assert most[0] <= POOL - 8, most
        reads[0] = 0
        await asyncio.sleep(0.6)  # the old polls read their game every 0.25 s each
        assert reads[0] == 0 and not any(p.done() for p in polls)
        made = [0]

        def counted_state(*args: Any, **kwargs: Any) -> Any:
            made[0] += 1
            return game_state(*args, **kwargs)

        monkeypatch.setattr(webapp_module, "game_state", counted_state)
        board = world.board(chat)
        data = pick(board)
        assert data is not None
        answer = await world.tap(chat, mover, board, data)
        assert not answer.show_alert, answer
        [applied] = await world.store.games.chat_games(chat.id)
        assert applied.version > version and waiting_user(applied) is not None
        answers = await asyncio.wait_for(asyncio.gather(*polls), 30)
    assert sorted({a.status_code for a in answers}) == [200]
    # the wake: one read of the game for all the polls it woke (the tap's own aside),
    # and the spectators' state of the new version made once
    assert reads[0] <= 10, reads
    assert made[0] == 1
    assert {a.json()["version"] for a in answers} == {applied.version}
    assert webapp.live.subscriptions == 1


async def test_a_big_answer_is_gzipped_for_a_client_that_accepts_it(
        app_world: tuple[World, Webapp, str]) -> None:
    world, _webapp, url = app_world
    _chat, mover, game = await _at_a_roll(world)
    body = {"initData": _init(world, mover), "game": game}
    async with httpx.AsyncClient(timeout=30) as client:
        plain = await client.post(f"{url}/state", json=body,
                                  headers={"Accept-Encoding": "identity"})
        packed = await client.post(f"{url}/state", json=body,
                                   headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in plain.headers
    assert packed.headers["Content-Encoding"] == "gzip"
    assert packed.json() == plain.json()  # httpx unpacks it
    assert int(packed.headers["Content-Length"]) < len(plain.content) * 0.7


async def test_a_board_repost_keeps_the_movers_unsent_steps(
        app_world: tuple[World, Webapp, str]) -> None:
    """``/board`` typed by anyone saves the record (its board moved), but not the game:
    the app's state keeps its ``play``, so the app keeps the mover's steps, and the
    turn sent on the version before the repost is taken (issue 34: it was refused
    as "the game changed", and the app had wiped the steps already)."""
    world, _webapp, url = app_world
    chat, mover, game = await _at_a_roll(world)
    board = world.board(chat)
    roll = next(d for row in board.buttons for t, d in row if "Roll" in t and d)
    answer = await world.tap(chat, mover, board, roll)
    assert not answer.show_alert, answer
    await world.idle()
    carol = world.server.add_user("Carol")
    async with httpx.AsyncClient(timeout=30) as client:
        async def call(name: str, **body: Any) -> httpx.Response:
            return await client.post(f"{url}/{name}", json={
                "initData": _init(world, mover), "game": game, **body})

        before = (await call("state")).json()
        assert before["tree"] is not None, before
        await world.send(chat, carol, "/board")
        await world.idle()
        after = (await call("state")).json()
        assert after["version"] > before["version"]  # the record was saved...
        assert after["play"] == before["play"]  # ...the game was not
        steps = [edge["step"] for edge in walk(before["tree"])]
        forged = await call("turn", version=before["version"], play="0" * 16, steps=steps)
        assert forged.status_code == 409  # another game than the app's: refused
        sent = await call("turn", version=before["version"], play=before["play"], steps=steps)
        assert sent.status_code == 200, sent.text
        assert sent.json()["play"] != before["play"]  # the turn was played
        again = await call("turn", version=before["version"], play=before["play"], steps=steps)
        assert again.status_code == 409  # and only once
