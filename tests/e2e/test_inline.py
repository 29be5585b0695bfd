"""End to end: the real ``python -m bot`` process plays an inline game.

Two friends in their private chat (the bot is not in it) type ``@bot
backgammon``, pick the result, join, and play the whole game on the one
message sent via the bot; inline feedback is on (the lobby is stored when it
is chosen) and a media chat is configured (``MEDIA_CHAT_ID``), so the boards
are pictures uploaded there and shown by their file id.  Storage as in
tests/e2e/test_games.py.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from tests.bot.driver import Driver
from tests.botapi import BotApiServer, BotProcess

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

REDIS_URL = os.environ.get("REDIS_URL") or None


@pytest.fixture
def server() -> Iterator[BotApiServer]:
    if REDIS_URL:
        redis.Redis.from_url(REDIS_URL).flushdb()
    with BotApiServer() as server:
        server.set_inline(True)
        server.set_inline_feedback(True)
        yield server


def test_a_whole_inline_game_with_pictures(server: BotApiServer, tmp_path: Path) -> None:
    alice, bob = server.add_user("Alice"), server.add_user("Bob", language_code="lt")
    chat = server.user_chat(alice, bob)
    media = server.add_group("Boards", supergroup=True, bot_status="administrator")
    env = {"NARDY_TEST_SEED": "5", "NARDY_RATE_LIMIT": "0", "MEDIA_CHAT_ID": str(media.id)}
    storage = {"redis_url": REDIS_URL} if REDIS_URL else {"data_dir": tmp_path}
    bot = BotProcess.for_server(server, log_level="INFO", env=env, **storage).start()
    try:
        server.watch(bot)
        bot.wait_for_log("Application started", timeout=30)
        query = server.user_inline_query(chat, alice, "backgammon")
        assert query.wait_answer(10).titles == ["Backgammon"]
        lobby = server.user_chooses_inline_result(query, "Backgammon")
        # feedback: the lobby is stored at once, its dice committed on the message
        stored = server.wait_message(chat, "Dice committed", since=lobby, timeout=10)
        for user in (alice, bob):
            tap = server.user_taps(chat, user, stored, text="✋ Join")
            assert tap.wait_answer(10).text is None
            stored = server.wait_message(chat, since=tap, timeout=10)
        # both seated: the game waits for ▶ Start, whose id is the dice's entropy
        tap = server.user_taps(chat, bob, stored, text="▶ Start")
        assert tap.wait_answer(10).text is None
        stored = server.wait_message(chat, since=tap, timeout=10)
        assert stored.photo is not None  # the game's board is a picture
        final = Driver(server, chat, (alice, bob)).play()
        assert final.message_id == lobby.message_id and final.photo is not None
        assert "🏁" in final.content, final.content
        pictures = [m for m in server.messages(media) if m.photo is not None]
        assert final.photo_bytes == pictures[-1].photo_bytes
        assert all(not r.files for r in server.requests("editMessageMedia"))
        assert " ERROR " not in bot.log, bot.log_tail()
    finally:
        bot.stop()
