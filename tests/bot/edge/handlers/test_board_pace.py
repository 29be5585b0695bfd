"""The group board while both players play in the Mini App (issue 34): their moves
edit it at most once per pace (the newest state only), a cube decision is drawn at
once, and a player who plays in the chat gets every move drawn as before.  In
process: the app's routes beside the polling bot; the pace's sleep is injected and
its clock stands still, so the tests assert order and outcome, not time."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import tornado.httpserver
import tornado.netutil
import tornado.web

from bot.edge.boardpace import BoardPace
from bot.edge.webapp import Webapp, routes
from bot.rules.seats import waiting_user
from bot.store import Store
from bot.vocab.records import Status
from tests.bot.conftest import World, running_world
from tests.bot.driver import game_board, pick
from tests.bot.edge.handlers.test_webapp_budget import (
    Hold,
    _at_a_roll,
    _call,
    _drawn_version,
    _init,
)


@pytest.fixture
async def paced(store: Store) -> AsyncIterator[tuple[World, Hold, BoardPace, str]]:
    hold, hold_roll = Hold(), Hold()
    pace = BoardPace(clock=lambda: 1000.0, sleep=hold)
    async with running_world(store) as world:
        webapp = Webapp(world.app, world.server.token or "", sleep=hold_roll, pace=pace)
        sockets = tornado.netutil.bind_sockets(0, "127.0.0.1")
        server = tornado.httpserver.HTTPServer(tornado.web.Application(routes(webapp)))
        server.add_sockets(sockets)
        try:
            yield world, hold, pace, f"http://127.0.0.1:{sockets[0].getsockname()[1]}/app/api"
        finally:
            server.stop()
            hold.released.set()
            hold_roll.released.set()
            await webapp.live.stop()
            await asyncio.sleep(0)


LIVE = "📱 Played live in the board app: tap 📱 Open the board app to watch."
"""The group board's line while both players play in the app (the board is English)."""


def _text(world: World, chat: Any, message_id: int) -> str:
    message = world.server.message(chat, message_id)
    return message.text or message.caption or ""


async def _whole_turn(client: httpx.AsyncClient, url: str, base: dict[str, Any],
                      state: Any) -> Any:
    if state["tree"] is None:
        state = await _call(client, url, "action", **base, version=state["version"],
                            action="roll")
    tree, node, steps = state["tree"], 0, []
    while tree is not None and not tree[node]["complete"]:
        steps.append(tree[node]["steps"][0]["step"])
        node = tree[node]["steps"][0]["next"]
    if tree is None:
        return state
    return await _call(client, url, "turn", **base, version=state["version"], steps=steps)


async def _settled(world: World) -> None:
    await world.idle()
    for _ in range(20):
        await asyncio.sleep(0.01)


async def _both_in_the_app(world: World, client: httpx.AsyncClient, url: str
                           ) -> tuple[Any, Any, Any, Any, Any, dict[int, dict[str, Any]]]:
    """A backgammon game at its first player's roll, both players' apps open: its
    chat, group board, record, first and second player, and each one's request base."""
    chat, first, game = await _at_a_roll(world)
    [record] = await world.store.games.chat_games(chat.id)
    second = next(world.server._users[p.user_id] for p in record.players
                  if p.user_id != first.id)
    board = game_board(world.server, chat)
    assert board is not None
    bases = {u.id: {"initData": _init(world, u), "game": game} for u in (first, second)}
    for base in bases.values():  # both open the app
        await _call(client, url, "state", **base)
    return chat, board, record, first, second, bases


async def test_both_in_the_app_the_group_board_follows_at_the_pace_newest_only(
        paced: tuple[World, Hold, BoardPace, str]) -> None:
    world, hold, pace, url = paced
    async with httpx.AsyncClient(timeout=30) as client:
        chat, board, record, first, second, bases = await _both_in_the_app(world, client, url)
        edits = world.server.message(chat, board.message_id).edits
        # the roll waits for its turn, and the moves after them for the pace:
        # one draw waits for them all
        state = await _call(client, url, "action", **bases[first.id],
                            version=record.version, action="roll")
        await _settled(world)
        assert world.server.message(chat, board.message_id).edits == edits
        state = await _whole_turn(client, url, bases[first.id], state)
        for _ in range(2):
            mover = first if state["to_act"] == state["you"] else second
            state = await _call(client, url, "state", **bases[mover.id])
            if "double" in state["actions"] or state["tree"] is not None or \
                    "roll" in state["actions"]:
                state = await _whole_turn(client, url, bases[mover.id], state)
        await _settled(world)
        assert world.server.message(chat, board.message_id).edits == edits
        assert hold.asked and pace.waiting(record.ref)
        assert "changed" not in await _drawn_version(world, chat, world.board(chat))
        # the pace ends: the newest state, drawn once
        hold.released.set()
        await _settled(world)
        assert world.server.message(chat, board.message_id).edits == edits + 1
        assert await _drawn_version(world, chat, world.board(chat)) == "current"
        assert pace.skipped >= 3 and pace.drawn == 1
        # and it says where the game is played, the link to watch beside it
        assert LIVE in _text(world, chat, board.message_id)
        # a player who plays in the chat again: the board drawn for it no longer says so
        [now] = await world.store.games.chat_games(chat.id)
        tapper = first if waiting_user(now) == first.id else second
        data = pick(world.board(chat))
        assert data is not None
        await world.tap(chat, tapper, world.board(chat), data)
        await _settled(world)
        assert world.server.message(chat, board.message_id).edits == edits + 2
        assert LIVE not in _text(world, chat, board.message_id)


async def test_a_double_from_the_app_is_drawn_at_once(
        paced: tuple[World, Hold, BoardPace, str]) -> None:
    world, hold, _pace, url = paced
    async with httpx.AsyncClient(timeout=30) as client:
        chat, board, record, first, second, bases = await _both_in_the_app(world, client, url)
        state = await _call(client, url, "action", **bases[first.id],
                            version=record.version, action="roll")
        state = await _whole_turn(client, url, bases[first.id], state)  # waits for the pace
        await _settled(world)
        edits = world.server.message(chat, board.message_id).edits
        state = await _call(client, url, "state", **bases[second.id])
        assert "double" in state["actions"], state["actions"]
        await _call(client, url, "action", **bases[second.id], version=state["version"],
                    action="double")
        await _settled(world)
        assert not hold.released.is_set()
        assert world.server.message(chat, board.message_id).edits == edits + 1
        assert await _drawn_version(world, chat, world.board(chat)) == "current"
        assert LIVE in _text(world, chat, board.message_id)  # both are still in the app
        # the pass ends the game, drawn at once: the final board does not say it
        state = await _call(client, url, "state", **bases[first.id])
        assert "pass" in state["actions"], state["actions"]
        await _call(client, url, "action", **bases[first.id], version=state["version"],
                    action="pass")
        await _settled(world)
        [over] = await world.store.games.chat_games(chat.id)
        assert over.status is Status.FINISHED
        assert world.server.message(chat, board.message_id).edits == edits + 2
        assert LIVE not in _text(world, chat, board.message_id)
        assert "🏁" in _text(world, chat, board.message_id)


def test_with_many_games_in_the_app_each_ones_pace_lengthens_to_keep_the_bots_share() -> None:
    """1,000 games played in the app at once would ask 100 draws a second at one per
    10 s each, three times what Telegram allows a bot in all chats: the pace
    lengthens so that all of them together stay within the share."""
    from bot.vocab.records import GameRef
    now = [0.0]
    pace = BoardPace(every=10, share=20, clock=lambda: now[0])
    assert pace.interval() == 10
    for n in range(1000):  # each drawn once, over the last 10 s
        now[0] = n / 100
        pace._last[GameRef(-n, None, "g")] = now[0]
    now[0] += 1.0
    assert pace.interval() > 40  # counted over the last 10 s: 900 of them
    now[0] += 1.0
    assert pace.interval() == 1000 / 20  # then over the new interval: 20 draws a second
    now[0] += 200.0  # they all left the app
    assert pace.interval() == 10


def test_what_is_drawn_at_once() -> None:
    """A game's end, a cube decision and a resignation are never paced: every
    group board ends showing the final position."""
    from bot.edge.boardpace import at_once
    from bot.rules.dice import Dealer
    from bot.rules.lobby import start_game
    from bot.rules.matchstate import table_of
    from bot.rules.play import apply_game, apply_turn
    from bot.vocab.callbacks import ButtonAction, Callback
    from bot.vocab.records import GameRecord, Player, Status, TableOptions
    from engine.game import Phase
    from engine.position import Side, Variant
    from engine.turns import legal_turns

    ann, bob = 101, 202
    record = start_game(GameRecord(
        chat_id=-5, variant=Variant.BACKGAMMON, options=TableOptions(koks=False),
        players=(Player(user_id=ann, name="Ann", side=Side.WHITE),
                 Player(user_id=bob, name="Bob", side=Side.BLACK))), Dealer.for_tests(4))

    def tap(current: GameRecord, action: ButtonAction, *args: int) -> GameRecord:
        game = table_of(current).game
        user = ann if game.to_act is Side.WHITE else bob
        return apply_game(current, user, Callback.game(current.game_id, current.version,
                                                       action, *args))

    game = table_of(record).game  # the opening roll's turn: played, as the app sends it
    assert game.phase is Phase.MOVE and game.turn is not None
    mover = ann if game.to_act is Side.WHITE else bob
    played = apply_turn(record, mover, list(legal_turns(game.position, game.dice)[0].steps))
    assert not at_once(record, played)  # a move: paced
    assert table_of(played).game.phase is Phase.ROLL
    rolled = tap(played, ButtonAction.ROLL)
    assert not at_once(played, rolled)  # a roll: paced
    doubled = tap(played, ButtonAction.DOUBLE)
    assert at_once(played, doubled)  # the offer
    assert at_once(doubled, tap(doubled, ButtonAction.TAKE))  # the answer
    passed = tap(doubled, ButtonAction.PASS_SURE)
    assert passed.status is Status.FINISHED and at_once(doubled, passed)  # the end
    assert at_once(played, tap(played, ButtonAction.RESIGN, 1))  # a resignation offered
