"""End to end: the real bot process's clock job, moved forward through the
NARDY_TEST_CLOCK offset file: a game with one hour per move gets its last
call, then the timeout offer, and the claimed win ends it."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.vocab.clock import HOUR, TEST_CLOCK_ENV, set_test_offset
from tests.bot.driver import game_board
from tests.botapi import BotApiServer, BotProcess
from tests.e2e.test_games import REDIS_URL, server  # noqa: F401 - the fixture

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


def test_timeout_offer_and_claim_in_the_real_process(server: BotApiServer,  # noqa: F811
                                                     tmp_path: Path) -> None:
    offset = tmp_path / "clock"
    set_test_offset(offset, 0)
    env = {"NARDY_TEST_SEED": "5", "NARDY_RATE_LIMIT": "0", TEST_CLOCK_ENV: str(offset),
           "NARDY_CLOCK_INTERVAL": "0.2"}
    where = {"redis_url": REDIS_URL} if REDIS_URL else {"data_dir": tmp_path}
    alice, bob = server.add_user("Alice"), server.add_user("Bob")
    chat = server.add_group("Clocks", members=[alice, bob])
    with BotProcess.for_server(server, log_level="INFO", env=env, **where) as bot:  # type: ignore[arg-type]
        server.watch(bot)
        bot.wait_for_log("Application started", timeout=30)
        sent = server.user_sends(chat, alice, "/new long time=1h")
        lobby = server.wait_message(chat, "New game", since=sent, timeout=10)
        for user in (alice, bob):
            tap = server.user_taps(chat, user, lobby, text="✋ Join")
            assert tap.wait_answer(10).text is None
            # the lobby redrawn, then the board (not the dice's commitment posted
            # beside the lobby, the one message without buttons)
            lobby = server.wait_message(chat, since=tap, timeout=10,
                                        match=lambda m: bool(m.buttons))
        board = server.wait_message(chat, "Move by", since=sent, timeout=10,
                                    match=lambda m: bool(m.buttons))
        set_test_offset(offset, 50 * 60)  # 10 minutes left: the last call
        reminder = server.wait_message(chat, "your move is waiting", since=board, timeout=10)
        set_test_offset(offset, HOUR + 60)
        offer = server.wait_message(chat, "ran out of time", since=reminder, timeout=10)
        late = alice if offer.content.startswith("⌛ Alice") else bob
        winner = bob if late is alice else alice
        claim = next(d for row in offer.buttons for _, d in row if d.endswith(":W"))
        tap = server.user_taps(chat, winner, offer, claim)
        assert tap.wait_answer(10).text is None
        final = server.wait_message(chat, "wins on time", since=tap, timeout=10)
        assert game_board(server, chat) is None or "🏁" in final.content
        # one offer, now saying how it ended
        offers = [m for m in server.messages(chat) if "ran out of time" in m.content
                  or "claimed the win on time" in m.content]
        assert [m.message_id for m in offers] == [offer.message_id]
