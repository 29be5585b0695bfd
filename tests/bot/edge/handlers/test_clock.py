"""Correspondence clocks through the real handlers and the local Bot API server,
with the clock moved by a test offset (NARDY_TEST_CLOCK) instead of waiting:
reminders, the timeout offer and its answers, pause and resume, mute, and two
schedulers on one Redis acting once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from telegram.ext import CallbackContext

from bot.edge.handlers.clock import JOB_NAME, tick_job
from bot.rules.clock import claim_timeout
from bot.rules.seats import waiting_user
from bot.store import Store
from bot.vocab import clock
from bot.vocab.clock import DAY, HOUR
from bot.vocab.records import Status
from bot.vocab.refusals import NOT_PLAYING, Refusal
from tests.bot.conftest import World, other_worker
from tests.bot.driver import pick
from tests.bot.edge.handlers.test_handlers import Table, _record, _setup, _start
from tests.botapi.model import Message, User
from tests.conftest import chat_game

LIMIT = 12 * HOUR


@dataclass
class Clock:
    path: Path
    offset: float = 0.0

    def advance(self, seconds: float) -> None:
        self.offset += seconds
        clock.set_test_offset(self.path, self.offset)


@pytest.fixture
async def timed(world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                ) -> AsyncIterator[Clock]:
    """A test clock for the in-process bot; its repeating clock job is off, so
    the tests tick by hand (what the job does every few seconds)."""
    fake = Clock(tmp_path / "offset")
    monkeypatch.setenv(clock.TEST_CLOCK_ENV, str(fake.path))
    fake.advance(0)
    for job in world.app.job_queue.get_jobs_by_name(JOB_NAME):
        job.enabled = False
    yield fake


async def tick(world: World, app: object = None) -> None:
    await tick_job(CallbackContext(app or world.app))  # type: ignore[arg-type]
    await world.idle()


async def start(world: World, t: Table, args: str = "long time=12h") -> Message:
    """A game of the test table with a clock (12 hours a move by default)."""
    return await _start(world, t, args)


def users(t: Table) -> dict[int, User]:
    return {t.alice.id: t.alice, t.bob.id: t.bob}


async def waiting(world: World, t: Table) -> User:
    user_id = waiting_user(await _record(world, t))
    assert user_id is not None
    return users(t)[user_id]


async def play_turn(world: World, t: Table) -> None:
    """The player the game waits for plays until it waits for the other one."""
    mover = await waiting(world, t)
    while await waiting(world, t) is mover:
        board = world.board(t.chat)
        data = pick(board)
        assert data is not None, world.server.transcript(t.chat)
        answer = await world.tap(t.chat, mover, board, data)
        assert not answer.show_alert, answer


def bot_texts(world: World, chat: object, marker: str) -> list[Message]:
    return [m for m in world.server.messages(chat) if m.from_bot and marker in m.content]  # type: ignore[arg-type]


def clock_button(world: World, message: Message, action: str) -> str:
    return world.find(message, lambda _t, d: d.startswith("k:") and d.endswith(":" + action))[1]


# ---------------------------------------------------------------- time controls


async def test_new_with_a_time_control_shows_it_and_the_deadline(world: World,
                                                                 timed: Clock) -> None:
    t = _setup(world)
    board = await start(world, t)
    record = await _record(world, t)
    assert record.options.time_control == LIMIT
    assert record.deadline is not None and abs(record.deadline - clock.now() - LIMIT) < 30
    assert "12 hours per move" in board.content and "Move by" in board.content
    sent = await world.send(t.chat, t.alice, "/new long time=30m")
    # the game is on: /new shows it; a bad value is refused before that
    reply = await world.reply(t.chat, sent)
    assert "1h to 14d" in reply.text


async def test_a_bad_time_control_is_refused_and_nothing_starts(world: World) -> None:
    t = _setup(world)
    sent = await world.send(t.chat, t.alice, "/new long time=15d")
    reply = await world.reply(t.chat, sent)
    assert "time=12h" in reply.text
    assert await chat_game(world.store, t.chat.id) is None


async def test_chat_default_from_clock_command(world: World, timed: Clock) -> None:
    t = _setup(world)
    world.server.set_admins(t.chat, t.alice)
    sent = await world.send(t.chat, t.bob, "/clock 3d")
    assert "Only chat admins" in (await world.reply(t.chat, sent)).text
    sent = await world.send(t.chat, t.alice, "/clock 3d")
    assert "3 days per move" in (await world.reply(t.chat, sent)).text
    await start(world, t, "long")
    assert (await _record(world, t)).options.time_control == 3 * DAY


async def test_a_game_without_clock_has_no_deadline_and_nothing_to_pause(world: World) -> None:
    t = _setup(world)
    await start(world, t, "long")
    assert (await _record(world, t)).deadline is None
    sent = await world.send(t.chat, t.alice, "/pause")
    assert "no game with a clock" in (await world.reply(t.chat, sent)).text


# ---------------------------------------------------------------- reminders


async def test_reminders_at_half_time_and_before_the_deadline_then_stop_after_the_move(
        world: World, timed: Clock) -> None:
    t = _setup(world)
    await start(world, t)
    late = await waiting(world, t)
    await tick(world)
    assert bot_texts(world, t.chat, "move is waiting") == []  # nothing due yet
    timed.advance(6 * HOUR + 60)
    await tick(world)
    await tick(world)  # a second look acts on nothing new
    [first] = bot_texts(world, t.chat, "your move is waiting")
    assert late.first_name in first.content and "5 hours" in first.content
    timed.advance(3 * HOUR)
    await tick(world)
    assert len(bot_texts(world, t.chat, "your move is waiting")) == 2
    # the move resets the clock: a fresh period for the other player, no more reminders for `late`
    await play_turn(world, t)
    record = await _record(world, t)
    assert record.deadline is not None and abs(record.deadline - clock.now() - LIMIT) < 30
    timed.advance(3 * HOUR)
    await tick(world)
    assert len(bot_texts(world, t.chat, "your move is waiting")) == 2


async def test_a_late_scheduler_sends_only_the_last_call(world: World, timed: Clock) -> None:
    t = _setup(world)
    await start(world, t)
    timed.advance(10 * HOUR)
    await tick(world)
    [only] = bot_texts(world, t.chat, "your move is waiting")
    assert "2 hours" in only.content or "1 hour" in only.content


async def test_reminder_goes_privately_to_a_player_who_started_the_bot(world: World,
                                                                       timed: Clock) -> None:
    t = _setup(world)
    await start(world, t)
    late = await waiting(world, t)
    dm = world.server.private_chat(late)
    await world.reply(dm, await world.send(dm, late, "/help"))  # started the bot in private
    timed.advance(6 * HOUR + 60)
    await tick(world)
    assert bot_texts(world, t.chat, "move is waiting") == []
    [private] = bot_texts(world, dm, "Your move against")
    assert "Long nardy" in private.content


async def test_mute_and_unmute(world: World, timed: Clock) -> None:
    t = _setup(world)
    await start(world, t)
    late = await waiting(world, t)
    timed.advance(6 * HOUR + 60)
    await tick(world)
    [reminder] = bot_texts(world, t.chat, "your move is waiting")
    answer = await world.tap(t.chat, late, reminder, clock_button(world, reminder, "M"))
    assert answer.show_alert and "/unmute" in (answer.text or "")
    timed.advance(3 * HOUR)
    await tick(world)
    assert len(bot_texts(world, t.chat, "your move is waiting")) == 1  # muted: no last call
    sent = await world.send(t.chat, late, "/unmute")
    assert "on again" in (await world.reply(t.chat, sent)).text
    await play_turn(world, t)
    await play_turn(world, t)  # `late` to move again, with a fresh period
    timed.advance(6 * HOUR + 60)
    await tick(world)
    assert len(bot_texts(world, t.chat, "your move is waiting")) == 2
    sent = await world.send(t.chat, late, "/mute")
    assert "/unmute" in (await world.reply(t.chat, sent)).text


# ---------------------------------------------------------------- the timeout


async def _time_out(world: World, t: Table, timed: Clock) -> tuple[User, User, Message]:
    await start(world, t, "long time=12h stake=5")
    late = await waiting(world, t)
    winner = t.bob if late is t.alice else t.alice
    timed.advance(LIMIT + 60)
    await tick(world)
    [offer] = bot_texts(world, t.chat, "ran out of time")
    assert bot_texts(world, t.chat, "your move is waiting") == []  # past the deadline: only this
    assert "Time ran out" in world.board(t.chat).content
    return late, winner, offer


async def test_timeout_offer_claim_win_is_booked_once(world: World, timed: Clock) -> None:
    t = _setup(world)
    late, winner, offer = await _time_out(world, t, timed)
    claim = clock_button(world, offer, "W")
    answer = await world.tap(t.chat, late, offer, claim)
    assert answer.show_alert and "opponent" in (answer.text or "")
    answer = await world.tap(t.chat, t.eve, offer, claim)
    assert answer.show_alert
    await tick(world)
    assert len(bot_texts(world, t.chat, "ran out of time")) == 1  # offered once
    answer = await world.tap(t.chat, winner, offer, claim)
    assert not answer.show_alert, answer
    record = await _record(world, t)
    assert record.status is Status.FINISHED and record.deadline is None
    assert "wins on time" in world.board(t.chat).content
    assert "claimed the win on time" in world.server.message(t.chat.id, offer.message_id).content
    [entry] = await world.store.ledger.history(t.chat.id)
    assert (entry.reason, entry.points, entry.stake) == ("timeout", 1, 5)
    assert await world.store.ledger.balance(t.chat.id, winner.id, late.id) == 5
    again = await world.tap(t.chat, winner, offer, claim, strict=False)
    assert again.show_alert
    assert await world.store.ledger.balance(t.chat.id, winner.id, late.id) == 5
    assert len(await world.store.ledger.history(t.chat.id)) == 1


async def test_every_clock_button_refuses_who_may_not_press_it(world: World,
                                                              timed: Clock) -> None:
    """The clock's buttons in a table: each tapped by everyone who may not press
    it changes nothing; after the end every one of them is refused."""
    t = _setup(world)
    late, winner, offer = await _time_out(world, t, timed)
    sent = await world.send(t.chat, winner, "/pause")
    proposal = await world.answer(t.chat, sent, "proposes to pause")
    table = [(offer, clock_button(world, offer, action), refused)
             for action, refused in (("W", (late, t.eve)), ("T", (late, t.eve)))] + [
        (proposal, clock_button(world, proposal, action), refused)
        for action, refused in (("Z", (winner, t.eve)), ("z", (t.eve,)))]
    before = await _record(world, t)
    for message, action, refused in table:
        for user in refused:
            answer = await world.tap(t.chat, user, message, action)
            assert answer.show_alert and answer.text, (action, user.first_name, answer)
            assert await _record(world, t) == before, (action, user.first_name)
    await world.tap(t.chat, winner, offer, table[0][1])
    finished = await _record(world, t)
    assert finished.status is Status.FINISHED
    for message, action, _refused in table:
        for user in (late, winner):
            answer = await world.tap(t.chat, user, message, action, strict=False)
            assert answer.show_alert, (action, user.first_name, answer)
    assert await _record(world, t) == finished
    assert len(await world.store.ledger.history(t.chat.id)) == 1


async def test_a_pending_resignation_does_not_let_its_offerer_claim_on_time(
        world: World, timed: Clock) -> None:
    t = _setup(world)
    board = await start(world, t, "long time=12h stake=5")
    resigner = await waiting(world, t)
    await world.tap(t.chat, resigner, board, text="⋯ More")
    await world.tap(t.chat, resigner, board, text="Resign: oin")
    await world.tap(t.chat, resigner, board, world.find(  # staked: ✔ Yes, resign
        board, lambda _text, data: data.split(":")[3] == "G")[1])
    late = await waiting(world, t)
    assert late is not resigner  # the opponent's time runs for the answer
    timed.advance(LIMIT + 60)
    await tick(world)
    [offer] = bot_texts(world, t.chat, "ran out of time")
    before = await _record(world, t)
    answer = await world.tap(t.chat, resigner, offer, clock_button(world, offer, "W"))
    assert answer.show_alert and "You offered to resign" in (answer.text or "")
    assert await _record(world, t) == before
    assert await world.store.ledger.history(t.chat.id) == []
    # more time is still theirs to give
    answer = await world.tap(t.chat, resigner, offer, clock_button(world, offer, "T"))
    assert not answer.show_alert, answer
    record = await _record(world, t)
    assert record.status is Status.ACTIVE and record.deadline is not None
    assert record.deadline > clock.now()


async def test_give_more_time_then_the_late_move_counts(world: World, timed: Clock) -> None:
    t = _setup(world)
    _late, winner, offer = await _time_out(world, t, timed)
    claim = clock_button(world, offer, "W")
    answer = await world.tap(t.chat, winner, offer, clock_button(world, offer, "T"))
    assert not answer.show_alert
    record = await _record(world, t)
    assert record.status is Status.ACTIVE and record.deadline is not None
    assert abs(record.deadline - clock.now() - LIMIT) < 30
    assert "gave 12 hours more" in world.server.message(t.chat.id, offer.message_id).content
    assert "Move by" in world.board(t.chat).content
    answer = await world.tap(t.chat, winner, offer, claim, strict=False)
    # the offer's buttons are gone: a Claim still tapped there is not the message's own
    assert answer.show_alert and "does not work any more" in (answer.text or "")
    record = await _record(world, t)
    assert record.status is Status.ACTIVE
    with pytest.raises(Refusal, match="not up"):  # and the rule refuses it anyway
        claim_timeout(record, winner.id, clock.now())
    # the new period has its reminders again, then its own timeout offer
    timed.advance(6 * HOUR + 60)
    await tick(world)
    assert len(bot_texts(world, t.chat, "your move is waiting")) == 1
    await play_turn(world, t)
    assert await waiting(world, t) is winner


# ---------------------------------------------------------------- pause and resume


async def test_pause_by_agreement_stops_the_clock_and_resume_restarts_it(
        world: World, timed: Clock) -> None:
    t = _setup(world)
    await start(world, t)
    mover = await waiting(world, t)
    other = t.bob if mover is t.alice else t.alice
    sent = await world.send(t.chat, mover, "/pause")
    proposal = await world.answer(t.chat, sent, "proposes to pause")
    assert (await _record(world, t)).paused_at is None
    answer = await world.tap(t.chat, mover, proposal, clock_button(world, proposal, "Z"))
    assert answer.show_alert  # the proposer cannot agree with themselves
    answer = await world.tap(t.chat, t.eve, proposal, clock_button(world, proposal, "Z"))
    assert answer.show_alert and answer.text == NOT_PLAYING  # not "over" (issue 37)
    await world.tap(t.chat, other, proposal, clock_button(world, proposal, "Z"))
    record = await _record(world, t)
    assert record.paused_at is not None and record.deadline is None
    assert "paused" in world.board(t.chat).content
    timed.advance(30 * DAY)
    await tick(world)
    assert bot_texts(world, t.chat, "move is waiting") == []
    assert bot_texts(world, t.chat, "ran out") == []
    # the player who is not to move proposes to resume; the player to move agrees
    sent = await world.send(t.chat, other, "/resume")
    proposal = await world.answer(t.chat, sent, "proposes to resume")
    assert (await _record(world, t)).paused_at is not None
    await world.tap(t.chat, mover, proposal, clock_button(world, proposal, "Y"))
    record = await _record(world, t)
    assert record.paused_at is None and record.deadline is not None
    assert abs(record.deadline - clock.now() - LIMIT) < 30
    # the player to move may also resume alone; a proposal may be refused
    sent = await world.send(t.chat, other, "/pause")
    proposal = await world.answer(t.chat, sent, "proposes to pause")
    await world.tap(t.chat, mover, proposal, clock_button(world, proposal, "z"))
    assert "said no" in world.server.message(t.chat.id, proposal.message_id).content
    assert (await _record(world, t)).pause_by is None


async def test_player_to_move_resumes_alone(world: World, timed: Clock) -> None:
    t = _setup(world)
    await start(world, t)
    mover = await waiting(world, t)
    other = t.bob if mover is t.alice else t.alice
    await world.reply(t.chat, await world.send(t.chat, other, "/pause"), "proposes")
    await world.reply(t.chat, await world.send(t.chat, mover, "/pause"), "paused")
    assert (await _record(world, t)).paused_at is not None
    await world.reply(t.chat, await world.send(t.chat, mover, "/resume"), "runs again")
    assert (await _record(world, t)).deadline is not None


# ---------------------------------------------------------------- several processes


@pytest.fixture
async def second_app(world: World, timed: Clock) -> AsyncIterator[object]:
    """Another bot process's application on the same Redis (not polling: only its clock)."""
    async with other_worker(world, 3, Store(world.store.redis)) as app:
        yield app


async def test_two_schedulers_act_on_a_due_game_once(world: World, timed: Clock,
                                                     second_app: object) -> None:
    t = _setup(world)
    await start(world, t)
    timed.advance(6 * HOUR + 60)
    await asyncio.gather(*(tick_job(CallbackContext(app))  # type: ignore[arg-type]
                           for app in (world.app, second_app, world.app, second_app)))
    await world.idle()
    assert len(bot_texts(world, t.chat, "your move is waiting")) == 1
    timed.advance(6 * HOUR)
    await asyncio.gather(*(tick_job(CallbackContext(app))  # type: ignore[arg-type]
                           for app in (second_app, world.app, second_app, world.app)))
    await world.idle()
    assert len(bot_texts(world, t.chat, "ran out of time")) == 1
    assert len(bot_texts(world, t.chat, "your move is waiting")) == 1


async def test_a_scheduler_that_died_mid_claim_leaves_it_to_another(world: World, timed: Clock,
                                                                    second_app: object) -> None:
    t = _setup(world)
    await start(world, t)
    timed.advance(6 * HOUR + 60)
    # a process claims the due game and dies before handling it
    [claim] = await world.store.clock.claim_due(now=clock.now(), lease=60)
    await tick(world, second_app)
    assert bot_texts(world, t.chat, "move is waiting") == []  # still leased to the dead one
    timed.advance(61)
    await tick(world, second_app)
    [reminder] = bot_texts(world, t.chat, "your move is waiting")
    assert claim.ref == (await _record(world, t)).ref and reminder


async def test_every_change_of_a_game_is_stamped_by_the_bots_clock(world: World,
                                                                   timed: Clock) -> None:
    # A record's updated_at is compared with the clock (a tap refused moments
    # after a change leaves the redraw to that change: bot.rules.taps.settling;
    # the idle and abandoned games' sweeps): a change stamped by the system
    # time while the clock is a day ahead read as a day old, and the tap's
    # redraw posted a board beside the one on its way (the tournament e2e test).
    timed.advance(DAY)
    t = _setup(world)
    sent = await world.send(t.chat, t.alice, "/new long")
    lobby = await world.reply(t.chat, sent, "New game")
    stamps = []
    for user in (t.alice, t.bob):   # each join is a change; the second starts the game
        await world.tap(t.chat, user, lobby, text="✋ Join")
        stamps.append((await _record(world, t)).updated_at)
    await play_turn(world, t)
    record = await _record(world, t)
    assert record.status is Status.ACTIVE and record.version > 2
    for stamp in (*stamps, record.created_at, record.updated_at):
        assert abs(stamp - clock.now()) < 60, (stamp, clock.now())
