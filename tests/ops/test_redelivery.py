"""A redelivered update finishes what its failed attempt left undone and repeats
nothing it did: the Bot API fails a board redraw with 502 after the tap's step
was saved and answered, the webhook answers 500, the sender delivers it again;
the board ends at the game's version, the tap is answered once (the local
server refuses a second answer, as Telegram does) and the turn ping is sent
once.  A board left behind for good is redrawn by the next tap on it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from telegram import Update
from telegram.ext import TypeHandler

from bot.edge.handlers import board as board_handlers
from bot.rules import taps
from bot.rules.seats import waiting_user
from bot.vocab.records import ChatSettings, GameRecord, settings_key
from tests.bot.driver import pick
from tests.botapi import BotApiServer
from tests.botapi.model import Chat, Message, User
from tests.conftest import chat_game
from tests.ops.conftest import PATH, SECRET, Worker

Start = Callable[..., Awaitable[Worker]]
EDIT = {"png": "editMessageMedia", "text": "editMessageText"}


async def _game(api: BotApiServer, worker: Worker, style: str
                ) -> tuple[Chat, dict[int, User]]:
    """A group where Alice and Bob play long nardy on a ``style`` board, by webhook."""
    alice, bob = api.add_user("Alice"), api.add_user("Bob")
    chat = api.add_group("G", members=[alice, bob])
    await worker.store.games.update(settings_key(chat.id), lambda s: (
        s or ChatSettings(chat_id=chat.id)).model_copy(update={"board_style": style}))
    await worker.app.bot.set_webhook(worker.url + PATH, secret_token=SECRET)
    sent = api.user_sends(chat, alice, "/new long")
    lobby = await api.wait_message_async(chat, "New game", since=sent, timeout=10)
    for user in (alice, bob):
        tap = api.user_taps(chat, user, lobby, text="✋ Join")
        await tap.wait_answer_async(10)
        await _settled(api)
    return chat, {alice.id: alice, bob.id: bob}


async def _settled(api: BotApiServer) -> None:
    await api.wait_for_async(lambda: api.pending_updates() == 0, 15)


async def _record(worker: Worker, chat: Chat) -> GameRecord:
    record = await chat_game(worker.store, chat.id)
    assert record is not None
    return record


def _board(api: BotApiServer, record: GameRecord) -> Message:
    assert record.board_message_id is not None
    return api.message(record.chat_id, record.board_message_id)


def _versions(board: Message) -> set[int]:
    """The record versions the board's game buttons were drawn for."""
    return {int(d.split(":")[2]) for row in board.buttons for _, d in row if d.startswith("g:")}


def _answers(api: BotApiServer, query_id: str) -> list[Any]:
    return [r for r in api.requests("answerCallbackQuery")
            if str(r.params.get("callback_query_id")) == query_id]


def _pings(api: BotApiServer, chat: Chat) -> int:
    return len([m for m in api.messages(chat, include_deleted=True)
                if m.from_bot and "your turn" in (m.text or "")])


@pytest.mark.parametrize("style", ["png", "text"])
async def test_a_redraw_that_failed_is_finished_by_the_redelivery(
        api: BotApiServer, workers: Start, style: str) -> None:
    worker = await workers()
    chat, users = await _game(api, worker, style)
    for _ in range(6):  # rolls, steps and confirms: some pass the turn, some do not
        record = await _record(worker, chat)
        board = _board(api, record)
        data = pick(board)
        assert data is not None, api.transcript(chat)
        mover = users[waiting_user(record) or 0]
        pings = _pings(api, chat)
        api.fail(502, methods=[EDIT[style]])  # the board's redraw after the step
        tap = api.user_taps(chat, mover, board, data)
        answer = await tap.wait_answer_async(10)
        await _settled(api)
        statuses = [d.status for d in api.webhook_deliveries if d.update_id == tap.update_id]
        assert statuses == [500, 200], statuses
        after = await _record(worker, chat)
        assert after.version == record.version + 1
        # the board shows the step (not the position before it), and its buttons work
        assert _versions(_board(api, after)) == {after.version}, api.transcript(chat)
        # answered once, plainly: the retry did not answer again (nor say "out of date")
        assert not answer.show_alert and answer.text is None
        assert [r.status for r in _answers(api, tap.query_id)] == [200]
        passed = waiting_user(after) not in (None, waiting_user(record))
        assert _pings(api, chat) == pings + passed


async def test_a_retry_after_everything_was_sent_repeats_nothing(
        api: BotApiServer, workers: Start) -> None:
    """The handler did all (answer, redraw, ping) and then the update failed."""
    worker = await workers()
    failed: list[int] = []

    async def flaky(update: Update, _context: Any) -> None:
        if update.callback_query is not None and update.update_id not in failed:
            failed.append(update.update_id)
            raise ConnectionError("redis went away")  # after the tap handler's group

    worker.app.add_handler(TypeHandler(Update, flaky), group=5)
    chat, users = await _game(api, worker, "text")
    for _ in range(6):
        record = await _record(worker, chat)
        board = _board(api, record)
        data = pick(board)
        assert data is not None
        before = {m: api.request_count(m) for m in
                  ("sendMessage", "editMessageText", "deleteMessage", "answerCallbackQuery")}
        pings = _pings(api, chat)
        tap = api.user_taps(chat, users[waiting_user(record) or 0], board, data)
        await tap.wait_answer_async(10)
        await _settled(api)
        assert [d.status for d in api.webhook_deliveries
                if d.update_id == tap.update_id] == [500, 200]
        after = await _record(worker, chat)
        assert _versions(_board(api, after)) == {after.version}
        passed = waiting_user(after) not in (None, waiting_user(record))
        made = {m: api.request_count(m) - n for m, n in before.items()}
        # one answer, one redraw, a ping (and the old ping's deletion) only if the turn passed
        assert (made["answerCallbackQuery"], made["editMessageText"]) == (1, 1), made
        assert made["sendMessage"] == passed and made["deleteMessage"] <= 1, made
        assert _pings(api, chat) == pings + passed
        live = [m for m in api.messages(chat) if m.from_bot and "your turn" in (m.text or "")]
        assert len(live) <= 1  # the retry did not delete the ping it sent, nor send another


async def _left_behind(api: BotApiServer, worker: Worker, chat: Chat, users: dict[int, User]
                       ) -> tuple[GameRecord, GameRecord, Message, str]:
    """A tap whose step was saved but whose redraw failed, never delivered
    again: the record before and after it, the board (showing the one
    before) and the tap's data."""
    await worker.app.bot.delete_webhook()  # the test posts the updates itself
    record = await _record(worker, chat)
    board = _board(api, record)
    data = pick(board)
    assert data is not None
    api.fail(502, methods=["editMessageMedia"])
    api.user_taps(chat, users[waiting_user(record) or 0], board, data)
    assert (await worker.post(api.updates()[-1])).status_code == 500  # never delivered again
    after = await _record(worker, chat)
    assert _versions(_board(api, after)) == {record.version}  # behind the game
    return record, after, board, data


async def test_a_board_left_behind_is_redrawn_by_the_next_tap(
        api: BotApiServer, workers: Start, monkeypatch: pytest.MonkeyPatch) -> None:
    """The redraw failed and the update was not retried (given up, or polling):
    the next tap on the old board is refused and redraws it."""
    worker = await workers()
    chat, users = await _game(api, worker, "png")
    record, after, board, data = await _left_behind(api, worker, chat, users)
    monkeypatch.setattr(taps, "REPAIR_GRACE", 0.0)  # the step is not on its way any more
    stale = api.user_taps(chat, users[waiting_user(record) or 0], board, data, strict=False)
    assert (await worker.post(api.updates()[-1])).status_code == 200
    answer = await stale.wait_answer_async(5)
    assert answer.show_alert  # out of date, and now it is not any more:
    assert _versions(_board(api, after)) == {after.version}
    media = api.request_count("editMessageMedia")
    again = api.user_taps(chat, users[waiting_user(record) or 0], board, data, strict=False)
    assert (await worker.post(api.updates()[-1])).status_code == 200
    assert (await again.wait_answer_async(5)).show_alert
    assert api.request_count("editMessageMedia") == media  # a board up to date is not redrawn


async def test_a_board_left_behind_is_redrawn_when_the_bot_starts(
        api: BotApiServer, workers: Start, monkeypatch: pytest.MonkeyPatch) -> None:
    """The redraw failed and the bot was restarted before anyone tapped: the
    new process redraws the board by itself, once, and leaves boards that
    are up to date alone."""
    worker = await workers()
    chat, users = await _game(api, worker, "png")
    other, _ = await _game(api, worker, "png")  # a game whose board is up to date
    _, after, _, _ = await _left_behind(api, worker, chat, users)
    assert [r.game_id for r in await worker.store.board.behind(10)] == [after.game_id]
    edits = api.request_count("editMessageMedia")
    monkeypatch.setattr(board_handlers, "STARTUP_GRACE", 0.0)  # the failed update is over
    await workers()  # the bot (re)started: another process on the same Redis
    for _ in range(150):  # the new process's start-up job redraws it within seconds
        if _versions(_board(api, after)) == {after.version}:
            break
        await asyncio.sleep(0.1)
    assert _versions(_board(api, after)) == {after.version}, api.transcript(chat)
    await asyncio.sleep(0.5)
    assert api.request_count("editMessageMedia") == edits + 1  # that board only, once
    assert _versions(_board(api, await _record(worker, other))) == {
        (await _record(worker, other)).version}
