"""A Mini App turn costs the group one message (issue 24): the roll the mover makes in
the app is not drawn on its own; the turn sent after it redraws the group board once
for both, and a roll left without a turn is drawn when the hold ends.  In process:
the app's routes (bot/edge/webapp.py) on a tornado server beside the polling bot;
the hold's sleep is injected, so the tests assert order and outcome, not time."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import tornado.httpserver
import tornado.netutil
import tornado.web

from bot.edge.initdata import sign
from bot.edge.webapp import Webapp, routes
from bot.present.webapp import payload
from bot.rules.seats import waiting_user
from bot.store import Store
from bot.vocab.callbacks import Callback
from bot.vocab.records import ChatSettings, settings_key
from tests.bot.conftest import World, running_world
from tests.bot.driver import game_board, game_id_of, pick
from tests.bot.trees import walk
from tests.botapi.model import Chat, Message, User


class Hold:
    """The hold's sleep: it returns only when the test releases it."""

    def __init__(self) -> None:
        self.released = asyncio.Event()
        self.asked: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.asked.append(seconds)
        await self.released.wait()


@pytest.fixture
async def served(store: Store) -> AsyncIterator[tuple[World, Hold, str]]:
    hold = Hold()
    async with running_world(store) as world:
        webapp = Webapp(world.app, world.server.token or "", sleep=hold)
        sockets = tornado.netutil.bind_sockets(0, "127.0.0.1")
        server = tornado.httpserver.HTTPServer(tornado.web.Application(routes(webapp)))
        server.add_sockets(sockets)
        port = sockets[0].getsockname()[1]
        try:
            yield world, hold, f"http://127.0.0.1:{port}/app/api"
        finally:
            server.stop()
            hold.released.set()
            await asyncio.sleep(0)


def _init(world: World, user: User) -> str:
    return sign(world.server.token or "", {"user": json.dumps({"id": user.id,
                                                               "first_name": user.first_name}),
                                           "auth_date": str(int(time.time()))})


async def _at_a_roll(world: World, options: str = "") -> tuple[Chat, User, str]:
    """A backgammon game (the cube on: every roll is a choice, so a tap; ``options``
    as /new takes them) played in the chat until a player must roll; that player and
    the game's app payload."""
    s = world.server
    alice, bob = s.add_user("Alice"), s.add_user("Bob")
    chat = s.add_group("Table", members=[alice, bob])
    await world.store.games.update(settings_key(chat.id), lambda _s: ChatSettings(
        chat_id=chat.id, board_style="text"))
    sent = await world.send(chat, alice, f"/new backgammon {options}".strip())
    lobby = await world.reply(chat, sent, "New game")
    await world.tap(chat, alice, lobby, text="✋ Join")
    await world.tap(chat, bob, lobby, text="✋ Join")
    users = {alice.id: alice, bob.id: bob}
    for _ in range(20):
        [record] = await world.store.games.chat_games(chat.id)
        board = world.board(chat)
        if any("Roll" in text for row in board.buttons for text, _ in row):
            return chat, users[waiting_user(record) or 0], payload(chat.id, game_id_of(board))
        data = pick(board)
        assert data is not None, s.transcript(chat)
        await world.tap(chat, users[waiting_user(record) or 0], board, data)
        await world.idle()
    raise AssertionError(s.transcript(chat))


async def _held(hold: Hold) -> None:
    for _ in range(200):  # a few seconds at most: the hold is asked right after the answer
        if hold.asked:
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the roll's redraw was not held")


async def _drawn_version(world: World, chat: Chat, board: Any) -> str:
    """Whether ``board``'s buttons were drawn for the stored version of its game."""
    [record] = await world.store.games.chat_games(chat.id)
    versions = {Callback.parse(d).version for row in board.buttons for _, d in row
                if d and d.startswith("g:")}
    return "current" if versions == {record.version} else f"{versions} != {record.version}"


async def _call(client: httpx.AsyncClient, url: str, name: str, **body: Any) -> Any:
    response = await client.post(f"{url}/{name}", json=body)
    assert response.status_code == 200, response.text
    return response.json()


async def _rolled_in_the_app(world: World, url: str
                             ) -> tuple[Chat, Message, int, dict[str, Any], Any]:
    """A game at the mover's roll, rolled from the app: its chat, its group board and
    that board's edits before the roll, the app's request base and the roll's answer."""
    chat, mover, game = await _at_a_roll(world)
    board = game_board(world.server, chat)
    assert board is not None
    edits = board.edits
    async with httpx.AsyncClient(timeout=30) as client:
        base = {"initData": _init(world, mover), "game": game}
        state = await _call(client, url, "state", **base)
        rolled = await _call(client, url, "action", **base, version=state["version"],
                             action="roll")
    return chat, board, edits, base, rolled


async def test_a_roll_and_the_turn_after_it_edit_the_group_board_once(
        served: tuple[World, Hold, str]) -> None:
    world, hold, url = served
    chat, board, edits, base, rolled = await _rolled_in_the_app(world, url)
    assert rolled["tree"] is not None  # the app shows the dice at once
    async with httpx.AsyncClient(timeout=30) as client:
        await world.idle()
        await _held(hold)  # the roll's redraw waits for the hold
        assert world.server.message(chat, board.message_id).edits == edits
        steps = [edge["step"] for edge in walk(rolled["tree"])]
        played = await _call(client, url, "turn", **base, version=rolled["version"],
                             steps=steps)
        assert played["version"] > rolled["version"]
        await world.server.wait_for_async(
            lambda: world.server.message(chat, board.message_id).edits > edits)
        hold.released.set()  # the held redraw finds the game moved on: nothing more
        await asyncio.sleep(0.1)
        await world.idle()
    shown = world.server.message(chat, board.message_id)
    assert shown.edits == edits + 1, world.server.transcript(chat)
    assert await _drawn_version(world, chat, shown) == "current"


async def test_a_roll_left_without_a_turn_is_drawn_when_the_hold_ends(
        served: tuple[World, Hold, str]) -> None:
    world, hold, url = served
    chat, board, edits, _base, _rolled = await _rolled_in_the_app(world, url)
    await _held(hold)
    assert world.server.message(chat, board.message_id).edits == edits
    hold.released.set()
    await world.server.wait_for_async(
        lambda: world.server.message(chat, board.message_id).edits > edits)
    await world.idle()
    shown = world.server.message(chat, board.message_id)
    assert shown.edits == edits + 1
    assert await _drawn_version(world, chat, shown) == "current"  # the roll shown
