"""A worker that dies mid-update (kill -9: nothing settled, nothing cleaned up)
hands the update to a redelivery within seconds, and the retry repeats nothing
the first attempt did (issue 22 items 2 and 3).

The death is the handling task cancelled while it hangs at a chosen point
(what a kill leaves in Redis: the claim and the journal written so far); the
lease runs on an injected clock (``Store.updates.clock``), so nothing here waits
for it; the retry is the same update posted to a second worker on the same
Redis."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from telegram import Update

from bot.edge.handlers import buttons, commands, invite, tournament
from bot.edge.incoming import identity_of
from bot.edge.ops import UpdateOutcome, handle_once
from bot.rules.dice import seed_of
from bot.rules.seats import waiting_user
from bot.store import invite as invites
from bot.store.markers import locate
from bot.store.updates import UPDATE_LEASE
from bot.vocab.records import GameRecord, Status
from tests.bot.driver import pick
from tests.botapi import BotApiServer
from tests.botapi.model import Chat, Message, Tap, User
from tests.conftest import chat_game
from tests.ops.conftest import PATH, SECRET, Worker

Start = Callable[..., Awaitable[Worker]]
NOW = 1_800_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


async def _two_workers(workers: Start) -> tuple[Worker, Worker, Clock]:
    clock = Clock()
    first, second = await workers(), await workers()
    for worker in (first, second):
        worker.store.updates.clock = clock
    return first, second, clock


def _hang_once(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> asyncio.Event:
    """Make ``module.name`` hang on its first call (the worker "dies" there);
    the event is set when it got there."""
    real, reached = getattr(module, name), asyncio.Event()

    async def hanging(*args: Any, **kwargs: Any) -> Any:
        if not reached.is_set():
            reached.set()
            await asyncio.Event().wait()
        return await real(*args, **kwargs)

    monkeypatch.setattr(module, name, hanging)
    return reached


def _die_before_settling(worker: Worker) -> asyncio.Event:
    """Make ``worker`` hang when it settles its next update (all its effects are
    out, the update is not marked done); the event is set when it got there."""
    reached, real = asyncio.Event(), worker.store.updates.settle_update

    async def settle(*args: Any, **kwargs: Any) -> None:
        reached.set()
        await asyncio.Event().wait()
        await real(*args, **kwargs)

    worker.store.updates.settle_update = settle  # type: ignore[method-assign]
    return reached


async def _die_at(worker: Worker, payload: dict[str, Any], reached: asyncio.Event) -> None:
    """Handle the update on ``worker`` until it reaches the hanging point, then kill it."""
    task = asyncio.create_task(handle_once(worker.app, Update.de_json(payload, worker.app.bot)))
    await asyncio.wait_for(reached.wait(), 20)
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def _retry(worker: Worker, clock: Clock, payload: dict[str, Any]) -> None:
    """Telegram delivers the update again: refused while the dead worker's claim
    holds, handled once its lease ran out."""
    assert await handle_once(worker.app, Update.de_json(payload, worker.app.bot)) \
        is UpdateOutcome.IN_FLIGHT
    clock.now += UPDATE_LEASE + 1
    assert await handle_once(worker.app, Update.de_json(payload, worker.app.bot)) \
        is UpdateOutcome.DONE


async def _lobby(api: BotApiServer, worker: Worker) -> tuple[Chat, User, User]:
    alice, bob = api.add_user("Alice"), api.add_user("Bob")
    chat = api.add_group("G", members=[alice, bob])
    await worker.app.bot.set_webhook(worker.url + PATH, secret_token=SECRET)
    sent = api.user_sends(chat, alice, "/new long")
    lobby = await api.wait_message_async(chat, "New game", since=sent, timeout=10)
    for user in (alice, bob):
        await api.user_taps(chat, user, lobby, text="✋ Join").wait_answer_async(10)
        await api.wait_for_async(lambda: api.pending_updates() == 0, 15)
    await worker.app.bot.delete_webhook()  # from here the test delivers the updates itself
    return chat, alice, bob


async def _first_step(api: BotApiServer, worker: Worker
                      ) -> tuple[Chat, User, User, GameRecord, Message, str]:
    """A started game (:func:`_lobby`): its chat, players, record, board and the
    button the driver taps first."""
    chat, alice, bob = await _lobby(api, worker)
    record = await chat_game(worker.store, chat.id)
    assert record is not None and record.board_message_id is not None
    board = api.message(chat.id, record.board_message_id)
    data = pick(board)
    assert data is not None
    return chat, alice, bob, record, board, data


def _answers(api: BotApiServer, query_id: str) -> list[Any]:
    """The answers the API took for one callback query."""
    return [r for r in api.requests("answerCallbackQuery")
            if str(r.params.get("callback_query_id")) == query_id]


def _drawn_for(api: BotApiServer, record: GameRecord) -> set[int]:
    """The versions the game buttons on the record's board are drawn for."""
    board = api.message(record.chat_id, record.board_message_id or 0)
    return {int(d.split(":")[2]) for row in board.buttons for _, d in row if d.startswith("g:")}


async def test_a_tap_whose_worker_died_after_answering_is_finished_once(
        api: BotApiServer, workers: Start, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second, clock = await _two_workers(workers)
    chat, alice, bob, record, board, data = await _first_step(api, first)
    reached = _hang_once(monkeypatch, buttons, "show")  # answered, step saved, not redrawn
    mover = {alice.id: alice, bob.id: bob}[waiting_user(record) or 0]
    tap = api.user_taps(chat, mover, board, data)
    payload = api.updates()[-1]
    await _die_at(first, payload, reached)
    assert len(api.requests("answerCallbackQuery")) - 2 == 1  # (the two joins)
    await _retry(second, clock, payload)
    after = await chat_game(second.store, chat.id)
    assert after is not None and after.version == record.version + 1
    answers = _answers(api, tap.query_id)
    assert not answers[0].params.get("show_alert")  # not "out of date"
    # the retry gives the same answer (the first attempt's, kept before it went out:
    # refused, as a query has one), never another text (issue 37)
    assert all(a.params == answers[0].params for a in answers), answers
    assert _drawn_for(api, after) == {after.version}


async def test_a_tap_whose_worker_died_right_after_its_save_is_answered_as_applied(
        api: BotApiServer, workers: Start, monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker dies between the compare-and-set and the journal's note of it
    (written with the answer): the retry finds the step saved by somebody, and
    must not call the player's own step "catching up" or "out of date" (issue 22
    item 4): the record's write token is this update's."""
    first, second, clock = await _two_workers(workers)
    chat, alice, bob, record, board, data = await _first_step(api, first)
    reached, real = asyncio.Event(), buttons.save_first

    async def save_then_die(*args: Any, **kwargs: Any) -> Any:
        saved = await real(*args, **kwargs)
        reached.set()
        await asyncio.Event().wait()
        return saved

    monkeypatch.setattr(buttons, "save_first", save_then_die)
    mover = {alice.id: alice, bob.id: bob}[waiting_user(record) or 0]
    tap = api.user_taps(chat, mover, board, data)
    payload = api.updates()[-1]
    await _die_at(first, payload, reached)
    assert _answers(api, tap.query_id) == []
    monkeypatch.setattr(buttons, "save_first", real)
    await _retry(second, clock, payload)
    after = await chat_game(second.store, chat.id)
    assert after is not None and after.version == record.version + 1  # applied once
    [answer] = _answers(api, tap.query_id)
    assert not answer.params.get("show_alert"), answer.params  # not "catching up"
    assert _drawn_for(api, after) == {after.version}


async def test_a_tap_refused_on_a_board_somebody_else_moved_is_still_refused(
        api: BotApiServer, workers: Start) -> None:
    """The other side of it: a record written by another update is not taken for
    this tap's own step."""
    first, _second, _clock = await _two_workers(workers)
    chat, alice, bob, record, board, data = await _first_step(api, first)
    waiting = {alice.id: bob, bob.id: alice}[waiting_user(record) or 0]  # not the mover
    api.user_taps(chat, waiting, board, data)
    assert await handle_once(first.app, Update.de_json(api.updates()[-1], first.app.bot)) \
        is UpdateOutcome.DONE
    [answer] = api.requests("answerCallbackQuery")[-1:]
    assert answer.params.get("show_alert")
    after = await chat_game(first.store, chat.id)
    assert after is not None and after.version == record.version


@pytest.mark.parametrize("dies", ["before posting the lobby", "after posting the lobby"])
async def test_a_new_whose_worker_died_before_settling_makes_one_lobby(
        api: BotApiServer, workers: Start, monkeypatch: pytest.MonkeyPatch, dies: str) -> None:
    first, second, clock = await _two_workers(workers)
    alice, bob = api.add_user("Alice"), api.add_user("Bob")
    chat = api.add_group("G", members=[alice, bob])
    if dies == "before posting the lobby":
        reached = _hang_once(monkeypatch, commands, "repost")
    else:  # the lobby is out; the worker dies before it settles the update
        reached = _die_before_settling(first)
    api.user_sends(chat, alice, "/new long")
    payload = api.updates()[-1]
    await _die_at(first, payload, reached)
    posted = [m for m in api.messages(chat) if m.from_bot and "New game" in (m.text or "")]
    for user in (alice, bob) if posted else ():  # they join it before the retry comes
        api.user_taps(chat, user, posted[0], text="✋ Join")
        join = Update.de_json(api.updates()[-1], second.app.bot)
        assert await handle_once(second.app, join) is UpdateOutcome.DONE
    await _retry(second, clock, payload)
    games = await second.store.games.chat_games(chat.id)
    assert len(games) == 1, [(g.game_id, g.status) for g in games]
    lobbies = [m for m in api.messages(chat, include_deleted=True)
               if m.from_bot and "New game" in (m.text or "")]
    assert len(lobbies) == 1
    assert games[0].status is (Status.ACTIVE if posted else Status.LOBBY)


async def test_a_tournament_whose_worker_died_before_posting_its_lobby_posts_one(
        api: BotApiServer, workers: Start, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first try saved the tournament and died before its lobby was out:
    the retry found its own tournament as the member's open lobby and
    refused ("start it or cancel it first"), so no lobby was ever posted."""
    first, second, clock = await _two_workers(workers)
    alice = api.add_user("Alice")
    chat = api.add_group("G", members=[alice, api.add_user("Bob")])
    reached = _hang_once(monkeypatch, tournament, "_post_lobby")
    api.user_sends(chat, alice, "/tournament swiss")
    payload = api.updates()[-1]
    await _die_at(first, payload, reached)
    await _retry(second, clock, payload)
    [record] = await second.store.tournament.open_ones(chat.id)
    lobbies = [m for m in api.messages(chat, include_deleted=True)
               if m.from_bot and "Tournament" in (m.text or "")]
    assert len(lobbies) == 1 and record.message_id == lobbies[0].message_id, lobbies


@pytest.mark.parametrize("dies", ["before answering", "after answering"])
async def test_an_invite_whose_worker_died_hands_out_one_link(
        api: BotApiServer, workers: Start, monkeypatch: pytest.MonkeyPatch, dies: str) -> None:
    """Every command's effect is idempotent under redelivery, not only taps: the
    retry of an /invite gives the same link and commitment, never a second
    invitation (which would also leave the first message's commitment unkept)."""
    first, second, clock = await _two_workers(workers)
    alice = api.add_user("Alice")
    chat = api.private_chat(alice)
    api.user_sends(chat, alice, "/start")
    assert await handle_once(first.app, Update.de_json(api.updates()[-1], first.app.bot)) \
        is UpdateOutcome.DONE
    if dies == "before answering":
        reached = _hang_once(monkeypatch, invite, "reply")
    else:
        reached = _die_before_settling(first)
    api.user_sends(chat, alice, "/invite long")
    payload = api.updates()[-1]
    await _die_at(first, payload, reached)
    await _retry(second, clock, payload)
    links = {word for m in api.messages(chat) if m.from_bot
             for word in (m.text or "").split() if "?start=i" in word}
    assert len(links) == 1, links
    answers = [m for m in api.messages(chat) if m.from_bot and "?start=i" in (m.text or "")]
    assert len(answers) == 1
    token = invites.token_of(links.pop().rpartition("?start=")[2])
    assert token is not None
    offered = await second.store.invite.load(token)
    assert offered is not None and offered.dice is not None
    assert seed_of(offered.dice).commitment.digest in (answers[0].text or "")  # the one shown


def test_an_update_failing_while_redis_is_away_is_never_given_up() -> None:
    # Telegram redelivers faster than a master fails over: five failures in a
    # failover used to give a /new up for good (a chat left without its lobby)
    from redis.exceptions import ClusterDownError

    from bot.edge.ops import MAX_ATTEMPTS, _outcome
    from bot.store.client import Unavailable

    try:
        try:
            raise ClusterDownError("CLUSTERDOWN The cluster is down")
        except ClusterDownError as cause:
            raise RuntimeError("the handler failed") from cause
    except RuntimeError as wrapped:
        caused = wrapped
    for error in (Unavailable("down"), caused):
        assert _outcome(error, MAX_ATTEMPTS + 3) is UpdateOutcome.FAILED
    assert _outcome(RuntimeError("a bug"), MAX_ATTEMPTS) is UpdateOutcome.GIVEN_UP


async def test_a_tap_delivered_again_after_its_marker_was_lost_is_not_applied_again(
        api: BotApiServer, workers: Start) -> None:
    """A master that fails over before it replicated an update's marker forgets
    that the update was handled (Redis replicates asynchronously), and the
    redelivery comes as a first attempt.  The game's write token says this
    very update wrote it last: the tap is answered as applied (not "catching
    up") and not re-aimed and played a second time (issue 22's fault mode: a
    game one save ahead of its taps)."""
    first, second, _clock = await _two_workers(workers)
    chat, alice, bob, record, board, data = await _first_step(api, first)
    mover = {alice.id: alice, bob.id: bob}[waiting_user(record) or 0]
    tap = api.user_taps(chat, mover, board, data)
    applied, again = await _delivered_again_without_its_marker(api, first, second, tap)
    assert applied.version == record.version + 1
    assert _drawn_for(api, again) == {again.version}


async def _delivered_again_without_its_marker(api: BotApiServer, first: Worker, second: Worker,
                                              tap: Tap) -> tuple[GameRecord, GameRecord]:
    """``tap`` (the last update) handled by ``first``, its marker lost, and
    delivered again to ``second``: the game after each, checked to be the same
    (the tap applied once) and the tap never answered with an alert."""
    payload = api.updates()[-1]
    chat_id = tap.chat_id
    assert chat_id is not None
    assert await handle_once(first.app, Update.de_json(payload, first.app.bot)) \
        is UpdateOutcome.DONE
    applied = await chat_game(first.store, chat_id)
    assert applied is not None
    bucket, _field = locate(first.store.keys, identity_of(payload))
    await first.store.redis.delete(bucket)  # the marker, lost with its master
    assert await handle_once(second.app, Update.de_json(payload, second.app.bot)) \
        is UpdateOutcome.DONE
    again = await chat_game(second.store, chat_id)
    assert again is not None and again.version == applied.version  # applied once
    answers = _answers(api, tap.query_id)  # the second was refused: a query has one
    assert answers and not any(a.params.get("show_alert") for a in answers), answers
    return applied, again


async def test_a_private_tap_delivered_again_after_its_marker_was_lost_is_not_applied_again(
        api: BotApiServer, workers: Start) -> None:
    """The same where the tap's first read does not bring the write token (a
    private chat's board, a view, an inline game's message): the game read for
    a button drawn for an older version is asked whose write it is."""
    first, second, _clock = await _two_workers(workers)
    alice = api.add_user("Alice")
    chat = api.private_chat(alice)
    await first.app.bot.set_webhook(first.url + PATH, secret_token=SECRET)
    sent = api.user_sends(chat, alice, "/new long bot")
    lobby = await api.wait_message_async(chat, "Start", since=sent, timeout=10)
    start = pick(lobby)
    assert start is not None
    await api.user_taps(chat, alice, lobby, start).wait_answer_async(10)
    await api.wait_for_async(lambda: api.pending_updates() == 0, 15)
    await first.app.bot.delete_webhook()  # from here the test delivers the updates itself
    record = await chat_game(first.store, chat.id)
    assert record is not None and record.board_message_id is not None
    assert waiting_user(record) == alice.id
    board = api.message(chat.id, record.board_message_id)
    data = pick(board)
    assert data is not None and data.startswith("g:")
    tap = api.user_taps(chat, alice, board, data)
    applied, _again = await _delivered_again_without_its_marker(api, first, second, tap)
    assert applied.version > record.version


async def test_a_game_the_computer_ended_as_its_worker_died_still_moves_level_auto(
        api: BotApiServer, workers: Start, monkeypatch: pytest.MonkeyPatch) -> None:
    """The person resigns at level=auto, the computer's acceptance ends the game
    (booked), and the worker dies before what follows a game's end
    (``after_end``): the retry finds the game moved on past the tap's own save
    and must still run it, so the standing moves, once (issue 38)."""
    from bot.rules import computer
    from bot.service import ending
    from bot.vocab.callbacks import ButtonAction, Callback
    from engine.position import Variant
    from tests.bot.driver import game_board, start_button

    first, second, clock = await _two_workers(workers)
    alice = api.add_user("Alice")
    chat = api.add_group("G", members=[alice])
    await first.app.bot.set_webhook(first.url + PATH, secret_token=SECRET)
    api.user_sends(chat, alice, "/new long bot auto")
    await api.wait_for_async(lambda: game_board(api, chat) is not None, 15)
    board = game_board(api, chat)
    start = None if board is None else start_button(board)
    assert board is not None and start is not None
    await api.user_taps(chat, alice, board, start).wait_answer_async(10)
    await api.wait_for_async(lambda: api.pending_updates() == 0, 15)
    record = await chat_game(first.store, chat.id)
    assert record is not None and waiting_user(record) == alice.id
    menu = Callback.game(record.game_id, record.version, ButtonAction.MENU).format()
    await api.user_taps(chat, alice, record.board_message_id or 0, menu,
                        strict=False).wait_answer_async(10)
    await api.wait_for_async(lambda: api.pending_updates() == 0, 15)
    await first.app.bot.delete_webhook()  # from here the test delivers the updates itself
    resign = Callback.game(record.game_id, record.version, ButtonAction.RESIGN, 2).format()
    api.user_taps(chat, alice, record.board_message_id or 0, resign, strict=False)
    payload = api.updates()[-1]
    reached = _hang_once(monkeypatch, ending, "after_end")  # booked; what follows: not yet
    await _die_at(first, payload, reached)
    ended = await chat_game(first.store, chat.id)
    assert ended is not None and ended.status is Status.FINISHED
    assert await first.store.computer.standing(alice.id, Variant.LONG) is None
    await _retry(second, clock, payload)
    standing = await second.store.computer.standing(alice.id, Variant.LONG)
    assert standing is not None and (standing.games, standing.wins) == (1, 0)
    assert standing.rung == computer.AUTO_START - computer.AUTO_STEP
