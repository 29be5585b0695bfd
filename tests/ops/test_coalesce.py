"""Edits of one board coalesce under flood waits: the local Bot API server
answers 429 with retry_after, the board's newer states queue up meanwhile,
and only the newest one is sent (bot/edge/coalesce.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from telegram.ext import ExtBot

from bot.edge.limits import SharedRateLimiter
from tests.botapi import BotApiServer

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


@pytest.fixture
async def server() -> AsyncIterator[BotApiServer]:
    server = BotApiServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


async def test_a_flooded_board_catches_up_in_one_edit(server: BotApiServer) -> None:
    chat = server.add_group("Club", members=[server.add_user("Alice")])
    limiter = SharedRateLimiter(overall=None)  # only 429s hold it back here
    async with ExtBot(server.token or "", base_url=server.base_url,
                      rate_limiter=limiter) as bot:
        sent = await bot.send_message(chat.id, "state 0")
        other = await bot.send_message(chat.id, "other 0")
        server.flood(retry_after=1, times=1, methods=["editMessageText"], chat=chat)
        edits = []
        for n in range(1, 6):  # five taps' redraws while the first waits out the 429
            edits.append(asyncio.create_task(bot.edit_message_text(
                f"state {n}", chat_id=chat.id, message_id=sent.message_id)))
            await asyncio.sleep(0.05)
        # another board of the chat is not held up behind this one's queue
        await asyncio.wait_for(bot.edit_message_text("other 1", chat_id=chat.id,
                                                     message_id=other.message_id), 0.9)
        results = await asyncio.wait_for(asyncio.gather(*edits), 5)
    board = server.message(chat.id, sent.message_id)
    assert board.text == "state 5"
    assert board.edits == 1  # the stale states 1-4 were never sent
    assert limiter.boards.dropped == 4
    assert all(results)  # every caller is answered


async def test_a_new_picture_is_not_replaced_by_a_caption(server: BotApiServer) -> None:
    """A caption-only redraw (a keyboard tap) must not drop a pending new
    picture: it does not include it."""
    from bot.edge.coalesce import CHANGES, _newest, _Wanted

    loop = asyncio.get_running_loop()

    def wanted(endpoint: str) -> _Wanted:
        return _Wanted(CHANGES[endpoint], lambda: asyncio.sleep(0), loop.create_future())

    media, caption = wanted("editMessageMedia"), wanted("editMessageCaption")
    assert _newest([media, caption]) == 0  # the picture goes first
    assert _newest([caption, media]) == 1  # a new picture includes the caption
    assert _newest([caption, caption, caption]) == 2
    assert _newest([wanted("editMessageText"), caption]) == 0
