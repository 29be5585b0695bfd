"""Playing the computer through the buttons, in process (bot/rules/computer.py,
bot/edge/handlers/computer.py)."""

from __future__ import annotations

import asyncio

import pytest

from bot.rules import actions, computer
from bot.store.records import COMPUTER_USER_IDS, Status
from tests.bot.conftest import World
from tests.bot.driver import Driver, game_board


async def _start(world: World, chat: object, user: object, command: str) -> None:
    sent = await world.send(chat, user, command)  # type: ignore[arg-type]
    await world.reply(chat, sent, None)  # type: ignore[arg-type]


@pytest.mark.parametrize("variant", ["long", "backgammon"])
async def test_whole_game_against_the_easy_bot(world: World, variant: str) -> None:
    s = world.server
    alice, eve = s.add_user("Alice"), s.add_user("Eve")
    club = s.add_group("Club", members=[alice, eve])
    await _start(world, club, alice, f"/new {variant} bot level=easy")
    record = await world.store.load_game(club.id, None)
    assert record is not None and record.status is Status.ACTIVE
    assert [p.user_id for p in record.players] == [alice.id, COMPUTER_USER_IDS["easy"]]
    assert record.options.stake_per_point == 0 and record.options.time_control is None
    driver = Driver(s, club, (alice, alice), intruder=eve)
    final = await asyncio.to_thread(driver.play)
    assert "wins" in final.content, final.content
    done = await world.store.load_game(club.id, None)
    assert done is not None and done.status is Status.FINISHED
