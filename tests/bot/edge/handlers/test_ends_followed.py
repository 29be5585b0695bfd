"""What follows a game's end is done even when its worker dies right after the
booking on a path no retried update runs it again: a game ended through the
Mini App's API, by the computer's sweep (an idle game), by a claimed timeout,
a tournament game.  The death is ``after_end`` doing nothing (the worker was
killed between the booking and it); the clock's job then finds the end left
pending past its grace (bot/store/clock.py ``Clock.ends_tick``) and runs it,
once.  A tournament's round deadline, too, records a result whose report was
lost, by itself (bot/service/tournament.py ``verdicts``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from telegram.ext import CallbackContext

from bot.edge.handlers import clock as clock_job
from bot.edge.handlers import computer as computer_turns
from bot.edge.handlers import tournament as tournament_job
from bot.rules import computer
from bot.service import ending
from bot.store import Store
from bot.store.clock import ENDS_GRACE
from bot.vocab import clock
from bot.vocab.callbacks import ButtonAction
from bot.vocab.records import GameRecord, GameRef, Status
from bot.vocab.tournament import Decision
from tests.bot.conftest import World
from tests.bot.edge.handlers.test_clock import Clock, _time_out, clock_button
from tests.bot.edge.handlers.test_handlers import _record, _setup
from tests.bot.edge.handlers.test_tournament import club, current, resign_game, tournament
from tests.bot.edge.handlers.test_webapp_budget import (
    Hold,
    _call,
    _init,
    served,  # noqa: F401 (the fixture)
)
from tests.bot.edge.test_webapp_actions import _data, _newer, _play_until, _seated, _tap
from tests.conftest import chat_game


@dataclass
class Deaths:
    """``after_end`` replaced by the worker's death right after the booking
    (nothing of what follows runs); ``revive`` puts the real one back, for the
    workers that live on.  ``follows`` counts the runs of what follows, per game
    (one more hook at the end of ``AFTER_END``)."""

    monkeypatch: pytest.MonkeyPatch
    died: list[GameRef] = field(default_factory=list)
    follows: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        real = ending.after_end

        async def dead(_store: Store, record: GameRecord) -> None:
            self.died.append(record.ref)

        async def counted(_store: Store, record: GameRecord) -> None:
            self.follows[str(record.ref)] += 1

        self._real = real
        self.monkeypatch.setattr(ending, "after_end", dead)
        self.monkeypatch.setattr(ending, "AFTER_END", (*ending.AFTER_END, counted))

    def revive(self) -> None:
        self.monkeypatch.setattr(ending, "after_end", self._real)


def _test_clock(world: World, path: Path, monkeypatch: pytest.MonkeyPatch) -> Clock:
    """A test clock; the repeating jobs that could act on it meanwhile are off
    (the tests run them by hand)."""
    fake = Clock(path)
    monkeypatch.setenv(clock.TEST_CLOCK_ENV, str(fake.path))
    fake.advance(0)
    for name in (clock_job.JOB_NAME, tournament_job.JOB_NAME, computer_turns.SWEEP_JOB):
        for job in world.app.job_queue.get_jobs_by_name(name):
            job.enabled = False
    return fake


@pytest.fixture
async def timed(world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                ) -> AsyncIterator[Clock]:
    yield _test_clock(world, tmp_path / "offset", monkeypatch)


async def _sweep(world: World, timed: Clock) -> None:
    """The clock's job once the grace of an end whose worker died is past."""
    timed.advance(ENDS_GRACE + 1)
    await clock_job.tick_job(CallbackContext(world.app))
    await world.idle()


async def _followed_once(world: World, timed: Clock, deaths: Deaths, ended: GameRecord
                         ) -> None:
    """``ended``'s worker died before what follows: it is pending and not done;
    the clock's job does it, once (run again: nothing more)."""
    assert deaths.died[-1] == ended.ref
    assert ended.ref in await world.store.clock.pending_ends()
    assert deaths.follows[str(ended.ref)] == 0
    deaths.revive()  # the other workers live
    await _sweep(world, timed)
    assert deaths.follows[str(ended.ref)] == 1
    assert ended.ref not in await world.store.clock.pending_ends()
    await _sweep(world, timed)
    assert deaths.follows[str(ended.ref)] == 1


async def _kept_for(world: World, ended: GameRecord, *users: Any) -> None:
    """📊 finds ``ended`` as each of ``users``' last game: the analysis was kept."""
    for user in users:
        kept = await world.store.analysis.last_of_user(user.id)
        assert kept is not None and kept.game_id == ended.game_id


async def test_a_game_ended_in_the_mini_app_is_kept_for_analysis_by_the_sweep(
        served: tuple[World, Hold, str], tmp_path: Path,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The chat player resigns, the app player accepts through the app's API,
    and the worker dies after the booking (its ``upkeep``)."""
    world, hold, url = served
    hold.released.set()
    timed = _test_clock(world, tmp_path / "offset", monkeypatch)
    chat, chat_user, app_user, game = await _seated(world)
    deaths = Deaths(monkeypatch)
    async with httpx.AsyncClient(timeout=30) as client:
        base = {"initData": _init(world, app_user), "game": game}
        state = await _play_until(world, chat, chat_user, client, url, base, lambda st: (
            st["to_act"] != st["you"] and _data(world, chat, ButtonAction.MENU) is not None))
        await _tap(world, chat, chat_user, ButtonAction.MENU)
        await _tap(world, chat, chat_user, ButtonAction.RESIGN, ButtonAction.RESIGN_SURE)
        state = await _newer(client, url, base, state["version"])
        state = await _call(client, url, "action", **base, version=state["version"],
                            action="accept")
    assert state["status"] == "finished", state
    [ended] = await world.store.games.chat_games(chat.id)
    assert ended.status is Status.FINISHED
    assert await world.store.analysis.last_of_user(app_user.id) is None  # not kept: it died
    await _followed_once(world, timed, deaths, ended)
    await _kept_for(world, ended, app_user, chat_user)


async def test_a_game_the_computer_ended_idle_is_followed_up_by_the_sweep(
        world: World, timed: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    s = world.server
    alice = s.add_user("Alice")
    room = s.add_group("Room", members=[alice])
    answer = await world.start_computer(room, alice, "/new long bot level=easy")
    assert not answer.show_alert, answer
    deaths = Deaths(monkeypatch)
    timed.advance(computer.IDLE_DEFAULT + 60)
    await computer_turns.sweep_job(CallbackContext(world.app))
    await world.idle()
    ended = await chat_game(world.store, room.id)
    assert ended is not None and ended.status is Status.CANCELLED
    await _followed_once(world, timed, deaths, ended)


async def test_a_claimed_timeout_is_kept_for_analysis_by_the_sweep(
        world: World, timed: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    t = _setup(world)
    late, winner, offer = await _time_out(world, t, timed)
    deaths = Deaths(monkeypatch)
    answer = await world.tap(t.chat, winner, offer, clock_button(world, offer, "W"))
    assert not answer.show_alert, answer
    ended = await _record(world, t)
    assert ended.status is Status.FINISHED
    assert await world.store.analysis.last_of_user(winner.id) is None
    await _followed_once(world, timed, deaths, ended)
    await _kept_for(world, ended, winner, late)


async def test_a_tournament_games_result_lost_with_its_worker_is_reported_by_the_sweep(
        world: World, timed: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    c = club(world, 4)
    record = await tournament(world, c, "rr long")
    first, second = record.rounds[-1].pairings
    assert first.game_id is not None and second.game_id is not None
    deaths = Deaths(monkeypatch)
    winner = await resign_game(world, c, first.game_id)
    assert _result(await current(world, c), first.board) is None  # never reported
    ended = await world.store.games.load_game(c.chat.id, first.game_id)
    assert ended is not None
    await _followed_once(world, timed, deaths, ended)
    result = _result(await current(world, c), first.board)
    assert result is not None and (result.decision, result.winner) == (Decision.PLAYED, winner)
    # an end whose worker lives leaves nothing pending
    await resign_game(world, c, second.game_id)
    other = await world.store.games.load_game(c.chat.id, second.game_id)
    assert other is not None and deaths.follows[str(other.ref)] == 1
    assert await world.store.clock.pending_ends() == []


async def test_a_lost_tournament_result_is_taken_at_the_rounds_deadline_by_itself(
        world: World, timed: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the sweep (an end booked by a release before it), the round's
    deadline reads the finished game and records what it was, not a forfeit."""
    c = club(world, 4)
    record = await tournament(world, c, "rr long")
    first = record.rounds[-1].pairings[0]
    assert first.game_id is not None
    deaths = Deaths(monkeypatch)
    winner = await resign_game(world, c, first.game_id)
    ended = await world.store.games.load_game(c.chat.id, first.game_id)
    assert ended is not None
    await world.store.clock.followed(ended.ref)  # nothing pending: no sweep will run it
    deaths.revive()
    round_ = (await current(world, c)).rounds[-1]
    assert round_.deadline is not None and _result(await current(world, c), first.board) is None
    timed.advance(round_.deadline - clock.now() + 60)
    await tournament_job.tick_job(CallbackContext(world.app))
    await world.idle()
    after = await current(world, c)
    result = next(p.result for r in after.rounds if r.number == round_.number
                  for p in r.pairings if p.board == first.board)
    assert result is not None and (result.decision, result.winner) == (Decision.PLAYED, winner)


def _result(record: Any, board: int) -> Any:
    return next(p.result for p in record.rounds[-1].pairings if p.board == board)
