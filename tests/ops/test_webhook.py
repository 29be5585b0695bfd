"""Webhook mode: the secret is required, updates are answered only once handled,
failures are retried by the sender, several workers handle each update once,
and stopping finishes what is being handled."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from telegram import Update
from telegram.ext import TypeHandler

from bot.rules.seats import waiting_user
from bot.store.client import as_text
from bot.store.markers import locate
from bot.vocab.refusals import CATCHING_UP, NOT_PLAYING
from tests.bot.driver import pick
from tests.botapi import BotApiServer
from tests.conftest import chat_game
from tests.ops.conftest import PATH, SECRET, Worker

Start = Callable[..., Awaitable[Worker]]


def pending_update(api: BotApiServer) -> dict[str, Any]:
    """The last update the server made (not delivered: no webhook is set)."""
    return api.updates()[-1]


def lobbies(api: BotApiServer, chat: Any) -> list[Any]:
    return [m for m in api.messages(chat) if m.from_bot and "New game" in (m.text or "")]


async def test_requests_without_the_secret_are_refused_and_change_nothing(
        api: BotApiServer, workers: Start) -> None:
    worker = await workers()
    alice = api.add_user("Alice")
    chat = api.add_group("G", members=[alice])
    api.user_sends(chat, alice, "/new")
    update = pending_update(api)
    for secret in (None, "wrong", SECRET + "x"):
        response = await worker.post(update, secret=secret)
        assert response.status_code == 403
    bucket, field = locate(worker.store.keys, update["update_id"])
    assert await worker.store.redis.hkeys(bucket) == []
    assert api.request_count("sendMessage") == 0
    response = await worker.post(update)
    assert (response.status_code, response.json()) == (200, {"outcome": "done"})
    [marked] = await worker.store.redis.hkeys(bucket)
    assert as_text(marked).startswith(field + ":")  # <id>:<digest>
    assert len(lobbies(api, chat)) == 1
    again = await worker.post(update)  # a redelivery: answered, not handled again
    assert (again.status_code, again.json()) == (200, {"outcome": "duplicate"})
    assert len(lobbies(api, chat)) == 1
    assert (await worker.post({"update_id": "x"})).status_code == 400


async def test_a_failed_update_is_answered_500_and_its_retry_is_handled(
        api: BotApiServer, workers: Start) -> None:
    worker = await workers()
    failed: list[int] = []

    async def flaky(update: Update, _context: Any) -> None:
        # a transient fault (think: Redis restarting) on the first delivery only
        if update.update_id not in failed:
            failed.append(update.update_id)
            raise ConnectionError("redis went away")

    worker.app.add_handler(TypeHandler(Update, flaky), group=-5)
    await worker.app.bot.set_webhook(worker.url + PATH, secret_token=SECRET)
    alice = api.add_user("Alice")
    chat = api.add_group("G", members=[alice])
    sent = api.user_sends(chat, alice, "/new")
    await api.wait_message_async(chat, "New game", since=sent, timeout=10)
    await api.wait_for_async(lambda: api.pending_updates() == 0, 5)
    statuses = [d.status for d in api.webhook_deliveries if d.update_id == failed[0]]
    assert statuses == [500, 200]
    assert len(lobbies(api, chat)) == 1


async def test_two_workers_handle_each_update_once(api: BotApiServer, workers: Start) -> None:
    first, second = await workers(), await workers()
    api.webhook_targets = [first.url, second.url]
    await first.app.bot.set_webhook(first.url + PATH, secret_token=SECRET)
    alice, bob = api.add_user("Alice"), api.add_user("Bob")
    chat = api.add_group("G", members=[alice, bob])
    sent = api.user_sends(chat, alice, "/new")
    lobby = await api.wait_message_async(chat, "New game", since=sent, timeout=10)
    update_id = api.updates()[-1]["update_id"]
    for _ in range(4):  # Telegram redelivers; the balancer alternates workers
        api.redeliver(update_id)
    await api.wait_for_async(lambda: api.pending_updates() == 0, 10)
    statuses = [d.status for d in api.webhook_deliveries if d.update_id == update_id]
    # each delivery acknowledged once (503 = "another worker is on it, try later")
    assert statuses.count(200) == 5 and set(statuses) <= {200, 503}, statuses
    assert len(lobbies(api, chat)) == 1
    # the same tap posted to both workers at the same moment: one handles it
    await first.app.bot.delete_webhook()
    join = next(d for row in lobby.buttons for _, d in row if d and d.endswith(":j"))
    api.user_taps(chat, alice, lobby, join)
    tap = api.updates()[-1]
    answers = await asyncio.gather(first.post(tap), second.post(tap))
    outcomes = sorted(r.json()["outcome"] for r in answers)
    assert outcomes in (["done", "duplicate"], ["done", "in_flight"]), outcomes
    in_flight = [r for r in answers if r.json()["outcome"] == "in_flight"]
    assert all(r.status_code == 503 for r in in_flight)  # Telegram will try again
    assert api.request_count("answerCallbackQuery") == 1
    assert len([m for m in api.messages(chat) if "Joined: Alice" in (m.text or "")]) == 1


async def test_stopping_finishes_the_update_being_handled(
        api: BotApiServer, workers: Start) -> None:
    worker = await workers()
    started = asyncio.Event()

    async def slow(_update: Update, _context: Any) -> None:
        started.set()
        await asyncio.sleep(0.5)

    worker.app.add_handler(TypeHandler(Update, slow), group=-5)
    alice = api.add_user("Alice")
    chat = api.add_group("G", members=[alice])
    api.user_sends(chat, alice, "/new")
    posting = asyncio.create_task(worker.post(pending_update(api)))
    await started.wait()
    draining = asyncio.create_task(worker.web.drain(5))
    await asyncio.sleep(0.05)
    try:  # a new request while stopping is not taken
        late = await worker.post(pending_update(api))
        assert late.status_code == 503
    except httpx.TransportError:
        pass
    response = await posting
    assert (response.status_code, response.json()) == (200, {"outcome": "done"})
    assert await draining is True
    assert len(lobbies(api, chat)) == 1


async def _raw(worker: Worker, head: str, body: bytes = b"") -> tuple[
        asyncio.StreamReader, asyncio.StreamWriter]:
    """Open a connection, send request headers (and the start of a body), no more."""
    reader, writer = await asyncio.open_connection("127.0.0.1", worker.web.port)
    writer.write(head.encode() + b"\r\n" + body)
    await writer.drain()
    return reader, writer


def _head(secret: str | None, length: int | None) -> str:
    lines = [f"POST {PATH} HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json"]
    if secret is not None:
        lines.append(f"X-Telegram-Bot-Api-Secret-Token: {secret}")
    lines.append(f"Content-Length: {length}" if length is not None
                 else "Transfer-Encoding: chunked")
    return "\r\n".join(lines) + "\r\n"


async def _status(reader: asyncio.StreamReader) -> int:
    line = await asyncio.wait_for(reader.readline(), 5)  # not: after a body never sent
    return int(line.split()[1])


async def test_a_request_without_the_secret_is_refused_before_its_body_is_read(
        api: BotApiServer, workers: Start) -> None:
    worker = await workers()
    for secret in (None, "wrong"):
        # 90 MB announced, none of it sent yet: the answer does not wait for it
        reader, writer = await _raw(worker, _head(secret, 90 * 2**20))
        assert await _status(reader) == 403
        # and the connection is closed: the body would never be read
        await asyncio.wait_for(reader.read(), 5)
        assert reader.at_eof()
        writer.close()
    assert worker.web.admitted == 0


async def test_a_body_over_one_megabyte_is_refused_with_413(
        api: BotApiServer, workers: Start) -> None:
    worker = await workers()
    reader, writer = await _raw(worker, _head(SECRET, 2 * 2**20))  # announced: not read
    assert await _status(reader) == 413
    writer.close()
    # chunked, no length announced: refused once more than 1 MB has arrived
    reader, writer = await _raw(worker, _head(SECRET, None))
    chunk = b"x" * 65536
    for _ in range(16):  # 1 MB: still fine
        writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
    writer.write(b"1\r\nx")  # one byte more (and nothing after it left unread)
    await writer.drain()
    assert await _status(reader) == 413
    writer.close()
    await asyncio.sleep(0.05)
    assert worker.web.admitted == 0
    # a body just under the limit is read (and refused as a malformed update)
    big = {"update_id": "x", "pad": "y" * (2**20 - 100)}
    response = await worker.post(big)
    assert response.status_code == 400


async def test_concurrent_webhook_requests_are_bounded(
        api: BotApiServer, workers: Start) -> None:
    worker = await workers(max_updates=2)
    release = asyncio.Event()
    entered: list[int] = []

    async def slow(update: Update, _context: Any) -> None:
        entered.append(update.update_id)
        await release.wait()

    worker.app.add_handler(TypeHandler(Update, slow), group=-5)
    alice = api.add_user("Alice")
    chat = api.add_group("G", members=[alice])
    updates = []
    for _ in range(3):
        api.user_sends(chat, alice, "/help")
        updates.append(pending_update(api))
    held = [asyncio.create_task(worker.post(u)) for u in updates[:2]]
    await api.wait_for_async(lambda: len(entered) == 2, 5)
    busy = await worker.post(updates[2])  # a third at once: "later, please"
    assert (busy.status_code, busy.json()) == (503, {"error": "busy"})
    assert (await worker.post(updates[2], secret="wrong")).status_code == 403
    assert worker.web.admitted == 2
    release.set()
    assert [r.status_code for r in await asyncio.gather(*held)] == [200, 200]
    assert (await worker.post(updates[2])).status_code == 200  # the redelivery is taken
    assert worker.web.admitted == 0


async def test_another_update_with_a_used_id_is_handled_as_itself(
        api: BotApiServer, workers: Start) -> None:
    """Update ids can repeat (Telegram picks them afresh after a week without
    updates): a failed attempt's marker and journal belong to that update only.
    A player's tap saves its step and fails on the redraw; an intruder's tap
    arriving with the same id is refused as usual, not finished as that tap's
    retry, and the tap's own redelivery still finishes its work."""
    worker = await workers()
    alice, bob, eve = api.add_user("Alice"), api.add_user("Bob"), api.add_user("Eve")
    chat = api.add_group("G", members=[alice, bob, eve])

    async def deliver() -> dict[str, Any]:
        update = pending_update(api)
        response = await worker.post(update)
        assert response.status_code == 200, response.text
        return update

    api.user_sends(chat, alice, "/new long")
    await deliver()
    for user in (alice, bob):
        [lobby] = lobbies(api, chat)
        tap = api.user_taps(chat, user, lobby, text="✋ Join")
        await deliver()
        assert (await tap.wait_answer_async(5)).text is None
    record = await chat_game(worker.store, chat.id)
    assert record is not None and record.board_message_id is not None
    board = api.message(chat.id, record.board_message_id)
    data = pick(board)
    assert data is not None
    mover = {alice.id: alice, bob.id: bob}[waiting_user(record) or 0]
    api.fail(502, methods=["editMessageMedia", "editMessageText"])
    tap = api.user_taps(chat, mover, board, data)
    first = pending_update(api)
    assert (await worker.post(first)).status_code == 500  # saved, answered, not redrawn
    assert (await tap.wait_answer_async(5)).text is None
    intruder = api.user_taps(chat, eve, board, data)
    forged = {**pending_update(api), "update_id": first["update_id"]}
    assert (await worker.post(forged)).json() == {"outcome": "done"}
    answer = await intruder.wait_answer_async(5)
    # refused (the board is behind its game: the tap's redraw failed), not finished
    assert answer.show_alert and answer.text in (NOT_PLAYING, CATCHING_UP), answer
    assert (await worker.post(first)).json() == {"outcome": "done"}  # the tap's retry
    after = await chat_game(worker.store, chat.id)
    assert after is not None and after.version == record.version + 1
    shown = api.message(chat.id, after.board_message_id or 0)
    assert {int(d.split(":")[2]) for row in shown.buttons for _, d in row
            if d.startswith("g:")} == {after.version}
