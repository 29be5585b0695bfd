"""Handler tests: the real Application, in this process, polling the local Bot
API server (tests/botapi), with the store on fakeredis (the real Redis when
REDIS_URL is set) and seeded dice.  Tests act as users through the server and
read what the bot sent; nothing of the bot is mocked."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import pytest

from bot.edge import ops
from bot.edge.app import build_application
from bot.edge.limits import SharedRateLimiter
from bot.rules.dice import Dealer
from bot.store import Store
from tests.botapi import BotApiServer
from tests.botapi.model import Answer, Chat, Message, User


@dataclass
class World:
    """The server, the store, and helpers to act and wait from async tests."""

    server: BotApiServer
    store: Store
    app: Any = None
    """The running Application: idle() also waits for the updates it is handling."""

    async def send(self, chat: Chat | int, user: User, text: str, **kw: object) -> Message:
        sent = self.server.user_sends(chat, user, text, **kw)  # type: ignore[arg-type]
        return sent

    async def tap(self, chat: Chat | int, user: User, message: Message | int,
                  data: str | None = None, *, text: str | None = None,
                  strict: bool = True) -> Answer:
        tap = self.server.user_taps(chat, user, message, data, text=text, strict=strict)
        answer = await tap.wait_answer_async()
        await self.idle()
        return answer

    async def start_computer(self, chat: Chat | int, user: User, command: str) -> Answer:
        """Send ``/new … bot`` and tap ▶ Start on the game it posts (the tap is the
        dice's entropy, bot/rules/computer.py)."""
        from tests.bot.driver import game_board, start_button

        sent = await self.send(chat, user, command)
        await self.reply(chat, sent, None)
        board = game_board(self.server, chat)
        data = None if board is None else start_button(board)
        assert board is not None and data is not None, self.server.transcript(chat)
        return await self.tap(chat, user, board, data)

    async def reply(self, chat: Chat | int, since: object, contains: str | None = None,
                    **kw: object) -> Message:
        message = await self.server.wait_message_async(chat, contains, since=since, **kw)
        await self.idle()
        return message

    async def answer(self, chat: Chat | int, sent: Message, contains: str | None = None
                     ) -> Message:
        """The bot's reply to the command ``sent`` (a message quoting it).  Not
        :meth:`reply`'s "the first message sent or edited since": a board that
        says the same words (a proposal's line) may be edited first on a loaded
        machine, and was then taken for the reply (issue 37)."""
        message = await self.server.wait_message_async(
            chat, contains, since=sent, match=lambda m: m.reply_to == sent.message_id)
        await self.idle()
        return message

    async def idle(self) -> None:
        """Let the bot finish what an update started (edits after the answer)."""
        last = -1
        while last != self.server.revision or self._busy():
            last = self.server.revision
            await asyncio.sleep(0.05)

    def _busy(self) -> bool:
        """Whether an update sent is not handled yet: still at the server (not
        fetched, or fetched but not confirmed by the next poll, which the bot
        sends once it queued them), queued or being handled in the
        application (PTB marks a queued update done when its handler ends), or
        handled off its update slot (an analysis, :func:`bot.edge.ops.parked`).
        Not a time: on a loaded machine the bot may take any time to fetch."""
        if self.app is None:
            return False
        queue = self.app.update_queue
        return (self.server.pending_updates() > 0 or getattr(queue, "_unfinished_tasks", 0) > 0
                or ops.parked() > 0)

    def board(self, chat: Chat | int) -> Message:
        """The newest message of the bot (or via it) with game or lobby buttons."""
        for message in reversed(self.server.messages(chat)):
            if message.by_bot and message.buttons and any(
                    d.startswith(("g:", "l:")) for row in message.buttons for _, d in row):
                return message
        raise AssertionError(self.server.transcript(chat))

    def buttons(self, message: Message) -> list[tuple[str, str]]:
        fresh = self.server.message(message.chat.id, message.message_id)
        return [b for row in fresh.buttons for b in row]

    def find(self, message: Message, predicate: Callable[[str, str], bool]) -> tuple[str, str]:
        for text, data in self.buttons(message):
            if predicate(text, data):
                return text, data
        raise AssertionError(f"no such button among {self.buttons(message)}")


@pytest.fixture
async def world(store: Store) -> AsyncIterator[World]:
    async with running_world(store) as running:
        yield running


@contextlib.asynccontextmanager
async def other_worker(world: World, seed: int, store: Store | None = None
                       ) -> AsyncIterator[Any]:
    """Another bot process's application on the same Redis and server (its
    own ``store`` client, else the world's), not polling: the test runs its
    jobs by hand."""
    app = build_application(world.server.token or "", store or world.store,
                            dealer=Dealer.for_tests(seed), base_url=world.server.base_url,
                            base_file_url=world.server.base_file_url)
    await app.initialize()
    try:
        yield app
    finally:
        await app.shutdown()


def keeps_time(limiter: object) -> bool:
    """The bot's flood limiter counts real time: Telegram's limits apply to it."""
    return isinstance(limiter, SharedRateLimiter) and limiter.clock is time.time


@contextlib.asynccontextmanager
async def running_world(store: Store, *, server: BotApiServer | None = None,
                        keep_server: bool = False, **app_options: Any) -> AsyncIterator[World]:
    """The bot polling a local Bot API server (``server``, else a new one);
    ``app_options`` go to ``build_application`` (e.g. ``media_chat``).
    ``keep_server``: the server goes on serving when the bot stops (a
    restart: another bot process polls it next)."""
    # a bot with its flood limiter on real time is held to Telegram's limits
    # (the server answers 429 above them); without it, or on a test's clock, not
    server = server or BotApiServer()
    server.telegram_limits = keeps_time(app_options.get("limiter"))
    server.start()
    # no flood limiter on purpose: these tests check what the bot sends, and
    # Telegram's group budget (20 a minute) would make a game last a quarter
    # of an hour; the budget is tested in tests/ops (docs/architecture.md#tests);
    # nor the per-user input limit: the tests' players tap faster than people
    # (tested in tests/ops/test_pace.py)
    app = build_application(server.token or "", store, base_url=server.base_url,
                            base_file_url=server.base_file_url,
                            **({"limiter": None, "input_limit": False,
                                "dealer": Dealer.for_tests(7)} | app_options))
    await app.initialize()
    if app.post_init is not None:  # what run_polling does after initialize()
        await app.post_init(app)
    await app.start()
    assert app.updater is not None
    await app.updater.start_polling(poll_interval=0, timeout=1)
    try:
        yield World(server, store, app)
    finally:
        await app.updater.stop()
        await app.stop()
        await app.shutdown()
        if not keep_server:
            server.stop()
