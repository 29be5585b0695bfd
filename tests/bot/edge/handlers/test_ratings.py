"""/stats and /top through the real handlers: a player's games, streak and
rating (provisional at first), someone else's by reply, the chat's table."""

from __future__ import annotations

import re

from tests.bot.conftest import World
from tests.bot.edge.handlers.club import book, club_of_three, command


async def test_stats_and_top(world: World) -> None:
    club, ann, bob, eve = club_of_three(world)
    assert "no finished games" in await command(world, club, ann, "/stats")
    await book(world, club, ann, bob, 1)
    await book(world, club, ann, bob, 1)
    mine = await command(world, club, ann, "/stats")
    assert "Games: 2, won 2" in mine and "Streak: 2 wins" in mine and "Mars won / lost" in mine
    rating = re.search(r"Rating: (\S+) \(rated points played: 2\)", mine)
    # a whole number, explained; a newcomer's is provisional (bot/rules/ratings.py)
    assert rating is not None and re.fullmatch(r"[0-9]+\?", rating[1]), mine
    assert "provisional" in mine
    said = await world.send(club, bob, "hello")
    theirs = await command(world, club, ann, "/stats", reply_to=said)
    assert "Bob" in theirs and "won 0" in theirs and "Streak: 2 losses" in theirs
    top = await command(world, club, eve, "/top")
    assert top.index("Ann") < top.index("Bob") and "Long nardy" in top
    assert "Nobody has a rating" in await command(world, club, eve, "/top backgammon")
    assert "Use /top" in await command(world, club, eve, "/top chess")
