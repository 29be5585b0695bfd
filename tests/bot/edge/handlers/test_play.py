"""Complete games through the buttons, in process."""

from __future__ import annotations

import asyncio

import pytest

from tests.bot.conftest import World
from tests.bot.driver import Driver


@pytest.mark.parametrize("variant", ["long", "backgammon"])
async def test_complete_game(world: World, variant: str) -> None:
    s = world.server
    alice, bob, eve = s.add_user("Alice"), s.add_user("Bob"), s.add_user("Eve")
    club = s.add_group("Club", members=[alice, bob, eve])
    sent = await world.send(club, alice, f"/new {variant}")
    lobby = await world.reply(club, sent, "New game")
    await world.tap(club, alice, lobby, text="✋ Join")
    await world.tap(club, bob, lobby, text="✋ Join")
    driver = Driver(s, club, (alice, bob), intruder=eve)
    final = await asyncio.to_thread(driver.play)
    assert "wins" in final.content, final.content
    print(driver.taps, driver.refused)
