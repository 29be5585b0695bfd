"""End to end: the real ``python -m bot`` process against the local Bot API
server, two friends playing complete games of both variants by tapping the
buttons it sends, an intruder tapping too, and a restart in the middle.

Storage: the Redis at REDIS_URL when set (its database is flushed first),
else the embedded Redis under a temporary DATA_DIR.  Dice are seeded with
NARDY_TEST_SEED; NARDY_RATE_LIMIT=0 lets the bot talk to the local server
at full speed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from tests.bot.driver import Driver, game_board
from tests.botapi import BotApiServer, BotProcess

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

REDIS_URL = os.environ.get("REDIS_URL") or None


def _bot(server: BotApiServer, data_dir: Path) -> BotProcess:
    env = {"NARDY_TEST_SEED": "11", "NARDY_RATE_LIMIT": "0"}
    if REDIS_URL:
        return BotProcess.for_server(server, redis_url=REDIS_URL, log_level="INFO", env=env)
    return BotProcess.for_server(server, data_dir=data_dir, log_level="INFO", env=env)


@pytest.fixture
def server() -> Iterator[BotApiServer]:
    if REDIS_URL:
        redis.Redis.from_url(REDIS_URL).flushdb()
    with BotApiServer() as server:
        yield server


def test_both_variants_to_the_end_with_a_restart(server: BotApiServer, tmp_path: Path) -> None:
    alice, bob = server.add_user("Alice"), server.add_user("Bob", language_code="ru")
    eve = server.add_user("Eve", language_code="lt")
    long_chat = server.add_group("Long", members=[alice, bob, eve])
    short_chat = server.add_group("Short", members=[alice, bob, eve])
    bot = _bot(server, tmp_path).start()
    try:
        server.watch(bot)
        bot.wait_for_log("Application started", timeout=30)
        for chat, variant in ((long_chat, "long"), (short_chat, "backgammon")):
            sent = server.user_sends(chat, alice, f"/new {variant} stake=3")
            lobby = server.wait_message(chat, "New game", since=sent, timeout=10)
            join = next(d for row in lobby.buttons for _, d in row if d.endswith(":j"))
            tap = server.user_taps(chat, alice, lobby, join)
            assert tap.wait_answer(10).text is None
            lobby = server.wait_message(chat, "Alice", since=tap, timeout=10)
            join = next(d for row in lobby.buttons for _, d in row if d.endswith(":j"))
            tap = server.user_taps(chat, bob, lobby, join)
            assert tap.wait_answer(10).text is None
            server.wait_message(chat, since=tap, match=lambda m: bool(m.buttons), timeout=10)
        # play part of the long game, restart the bot, and go on from the stored record
        long_driver = Driver(server, long_chat, (alice, bob), intruder=eve)
        long_driver.play(max_taps=60, stop_early=True)
        bot.stop()
        server._watched.clear()
        bot = _bot(server, tmp_path).start()
        server.watch(bot)
        bot.wait_for_log("Application started", timeout=30)
        final = long_driver.play()
        assert "🏁" in final.content, final.content
        short_driver = Driver(server, short_chat, (alice, bob), intruder=eve)
        final = short_driver.play()
        assert "🏁" in final.content, final.content
        assert long_driver.refused > 0 and short_driver.refused > 0
        for chat in (long_chat, short_chat):
            sent = server.user_sends(chat, alice, "/export")
            document = server.wait_message(chat, since=sent, timeout=10,
                                           match=lambda m: m.document is not None)
            assert "point match" in (document.document_bytes or b"").decode()
        board = game_board(server, long_chat)
        assert board is not None
        assert " ERROR " not in bot.log, bot.log_tail()
    finally:
        bot.stop()
