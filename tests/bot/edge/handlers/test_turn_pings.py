"""The "your turn" ping within a group's message budget (issue 24 §2): a
group ping only after ``TURN_PING_DELAY`` without an action (queued in the
store, sent by the clock job if the game is still at the version it was
queued for, also after a restart), at once in the private chat of a player
who started the bot, and at once in the group with a delay of 0.

The clock is the test offset (NARDY_TEST_CLOCK), ticked by hand."""

from __future__ import annotations

import pytest

from bot.edge.handlers.board import DEFAULT_PING_DELAY, PING_DELAY
from bot.edge.handlers.clock import JOB_NAME
from bot.rules.seats import waiting_user
from bot.store import Store
from bot.vocab.records import GameRecord
from tests.bot.conftest import World, running_world
from tests.bot.edge.handlers import test_clock
from tests.bot.edge.handlers.test_clock import Clock, tick
from tests.bot.edge.handlers.test_handlers import Table, _record, _setup, _start
from tests.botapi import BotApiServer
from tests.botapi.model import Message, User

timed = test_clock.timed  # the fixture: a test clock, the clock job off


def _pings(world: World, chat_id: int) -> list[Message]:
    return [m for m in world.server.messages(chat_id)
            if m.from_bot and "your turn" in (m.text or "")]


def _waiting(t: Table, record: GameRecord) -> User:
    return t.alice if waiting_user(record) == t.alice.id else t.bob


async def _act(world: World, t: Table) -> GameRecord:
    """The player the game waits for taps a step or a point (an action that keeps the turn)."""
    record = await _record(world, t)
    board = world.board(t.chat)
    data = next(d for _, d in world.buttons(board) if d.split(":")[3] in ("m", "s"))
    answer = await world.tap(t.chat, _waiting(t, record), board, data)
    assert not answer.show_alert, answer
    return await _record(world, t)


async def test_the_group_is_pinged_only_after_the_delay(world: World, timed: Clock) -> None:
    t = _setup(world)
    await _start(world, t)
    record = await _record(world, t)
    assert _pings(world, t.chat.id) == []  # a live game costs the group no ping
    timed.advance(DEFAULT_PING_DELAY - 5)
    await tick(world)
    assert _pings(world, t.chat.id) == []
    timed.advance(10)
    await tick(world)
    [ping] = _pings(world, t.chat.id)
    assert _waiting(t, record).first_name in ping.text
    assert any(e["type"] == "text_mention" for e in ping.entities)
    await tick(world)  # sent once
    assert len(_pings(world, t.chat.id)) == 1


async def test_no_delayed_ping_once_the_player_acted(world: World, timed: Clock) -> None:
    t = _setup(world)
    await _start(world, t)
    before = await _record(world, t)
    after = await _act(world, t)
    assert after.version > before.version and waiting_user(after) == waiting_user(before)
    timed.advance(DEFAULT_PING_DELAY + 5)
    await tick(world)
    assert _pings(world, t.chat.id) == []  # the ping was for a version that is gone


def _no_clock_job(world: World) -> None:
    assert world.app.job_queue is not None
    for job in world.app.job_queue.get_jobs_by_name(JOB_NAME):
        job.enabled = False


async def test_a_queued_ping_survives_a_restart(store: Store, timed: Clock,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    server = BotApiServer()
    monkeypatch.setattr(server, "stop", lambda: None)  # the server outlives the first bot
    async with running_world(store, server=server) as first:
        _no_clock_job(first)
        t = _setup(first)
        await _start(first, t)
    try:
        async with running_world(store, server=server) as second:  # a new process, same Redis
            _no_clock_job(second)
            assert _pings(second, t.chat.id) == []
            timed.advance(DEFAULT_PING_DELAY + 5)
            await tick(second)
            assert len(_pings(second, t.chat.id)) == 1
    finally:
        BotApiServer.stop(server)


async def test_a_started_player_is_pinged_privately_at_once(world: World, timed: Clock
                                                            ) -> None:
    t = _setup(world)
    for user in (t.alice, t.bob):
        world.server.private_chat(user)
        await world.store.prefs.note_started(user.id)
    await _start(world, t)
    record = await _record(world, t)
    player = _waiting(t, record)
    [ping] = _pings(world, player.id)
    assert _pings(world, t.chat.id) == []
    timed.advance(DEFAULT_PING_DELAY + 5)
    await tick(world)
    assert _pings(world, t.chat.id) == []  # nothing queued for the group
    await _act(world, t)  # the private ping goes once its player acted
    assert world.server.message(player.id, ping.message_id).deleted


async def test_a_delay_of_zero_pings_the_group_at_once(world: World) -> None:
    world.app.bot_data[PING_DELAY] = 0
    t = _setup(world)
    await _start(world, t)
    assert len(_pings(world, t.chat.id)) == 1
