"""The per-user input limit (issue 21 §2, bot/edge/handlers/pace.py): a
member's flood of commands gets one "slow down" and is otherwise ignored; a
flood of taps is answered (an unanswered tap spins) but not processed; other
members go on.  The buckets' clock is stopped: order and outcome only."""

from __future__ import annotations

import fakeredis
import pytest

from bot.edge.handlers import pace
from bot.store import Store
from bot.store.flood import FloodBuckets
from tests.bot.conftest import running_world

SLOW = "Slow down"


@pytest.fixture(autouse=True)
def stopped_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pace, "clock", lambda: 1_000_000.0)


async def test_a_flood_of_commands_gets_one_slow_down(store: Store) -> None:
    async with running_world(store, input_limit=True) as world:
        s = world.server
        mallory, alice = s.add_user("Mallory"), s.add_user("Alice")
        chat = s.add_group("Club", members=[mallory, alice])
        for _ in range(pace.COMMAND_BURST + 5):
            s.user_sends(chat, mallory, "/rules")
        asked = s.user_sends(chat, alice, "/rules")  # someone else is not held back
        await world.reply(chat, asked, match=lambda m: m.reply_to == asked.message_id)
        await world.idle()
        replies = [m for m in s.messages(chat) if m.by_bot]
        slow = [m for m in replies if SLOW in (m.text or "")]
        assert len(slow) == 1
        assert len(replies) == pace.COMMAND_BURST + 1 + 1  # Mallory's burst, the warning, Alice's


async def test_a_flood_of_taps_is_answered_but_not_processed(store: Store) -> None:
    async with running_world(store, input_limit=True) as world:
        s = world.server
        mallory = s.add_user("Mallory")
        chat = s.add_group("Club", members=[mallory])
        asked = s.user_sends(chat, mallory, "/new long")
        lobby = await world.reply(chat, asked, "New game")
        answers = [await world.tap(chat, mallory, lobby, "zz:nothing", strict=False)
                   for _ in range(pace.TAP_BURST + 3)]
        processed = answers[:pace.TAP_BURST]
        assert all(SLOW not in (a.text or "") for a in processed)
        assert all(a.text for a in processed)  # "this button does not work" from its handler
        warned, *quiet = answers[pace.TAP_BURST:]
        assert warned.show_alert and SLOW in (warned.text or "")
        assert quiet and all(a.text is None for a in quiet)  # answered, nothing else


async def test_workers_share_a_users_bucket() -> None:
    server = fakeredis.FakeServer()
    one, two = (FloodBuckets(fakeredis.FakeAsyncRedis(server=server)) for _ in range(2))
    key, now = "nardy:{user:1}:pace:cmd", 1_000_000.0
    verdicts = [await (one if n % 2 else two).admit(key, 0.1, 3, now, 30) for n in range(6)]
    assert verdicts == ["ok", "ok", "ok", "warn", "quiet", "quiet"]
    assert await one.admit(key, 0.1, 3, now + 10, 30) == "ok"  # a token refilled
    assert await two.admit(key, 0.1, 3, now + 10, 30) == "quiet"  # warned 10 s ago
    assert await one.admit(key, 0.1, 3, now + 40, 30) == "ok"
    assert await two.admit(key, 0.1, 3, now + 40, 30) == "ok"  # three tokens after 30 s
