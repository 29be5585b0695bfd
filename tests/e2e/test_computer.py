"""End to end: the real ``python -m bot`` process, its thinking worker
started by spawn from it, plays a few turns of the strong bot."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.driver import Driver, game_board
from tests.botapi import BotApiServer
from tests.e2e.test_games import _bot, server  # noqa: F401 - the fixture

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]


def test_the_real_process_plays_the_bot(server: BotApiServer, tmp_path: Path) -> None:  # noqa: F811
    alice = server.add_user("Alice")
    club = server.add_group("Club", members=[alice])
    bot = _bot(server, tmp_path).start()
    try:
        server.watch(bot)
        bot.wait_for_log("Application started", timeout=30)
        sent = server.user_sends(club, alice, "/new backgammon bot level=strong")
        server.wait_for(lambda: game_board(server, club), 30, description="the board")
        assert sent is not None
        board = Driver(server, club, (alice, alice), timeout=30).play(12, stop_early=True)
        assert "🤖 Nardy bot (strong)" in board.content, board.content
    finally:
        bot.stop()
