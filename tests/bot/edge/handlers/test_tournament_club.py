"""Tournaments and leagues a club can trust (issue 36, points 4 and 6-10),
through the real handlers and the local Bot API server: who may end and
erase a league season, withdraw asks once more, ``/tournament cancel`` names
and picks its tournament, ``/standings`` after the end, tables that read
without a manual, and links and buttons that lead somewhere."""

from __future__ import annotations

from bot.vocab.records import Status
from tests.bot.conftest import World
from tests.bot.edge.handlers.test_tournament import (
    club,
    current,
    league_rows,
    play_round,
    tournament,
)


async def test_a_member_cannot_end_anothers_season_nor_flush_the_kept_ones(
        world: World) -> None:
    """Issue 36, point 4: a member's 13 junk seasons in a row erased the named
    season "Winter cup", and ``/league end`` ended anybody's season."""
    c = club(world, 3)
    starter, member = c.players[1], c.players[2]
    sent = await world.send(c.chat, starter, "/league start Winter cup")
    await world.reply(c.chat, sent, "started")
    await tournament(world, c, "rr long")
    await play_round(world, c)   # one rated game counts in the season
    sent = await world.send(c.chat, member, "/league end")
    said = (await world.reply(c.chat, sent)).text or ""
    assert "Only whoever started the season Winter cup" in said
    sent = await world.send(c.chat, starter, "/league end")
    final = (await world.reply(c.chat, sent, "final table")).text or ""
    assert len(league_rows(final)) == 2
    for n in range(13):
        sent = await world.send(c.chat, member, f"/league start Junk {n}")
        await world.reply(c.chat, sent, "started")
        sent = await world.send(c.chat, member, "/league end")
        await world.reply(c.chat, sent, "League")
    sent = await world.send(c.chat, member, "/league Winter cup")
    kept = (await world.reply(c.chat, sent, "League")).text or ""
    assert "final table" in kept and league_rows(kept) == league_rows(final)
    sent = await world.send(c.chat, member, "/league erase Winter cup")
    assert "Only chat admins erase" in ((await world.reply(c.chat, sent)).text or "")
    _, seasons, _ = await world.store.tournament.league.seasons(c.chat.id)
    assert [s.name for s in seasons] == ["Winter cup"]   # the empty ones are not kept


async def test_standings_after_the_end_show_the_final_table(world: World) -> None:
    """Issue 36, point 8: once it ended (or was cancelled), ``/standings``
    said "There is no tournament in this chat yet"."""
    c = club(world, 3)
    await tournament(world, c, "rr long")
    for _ in range(3):
        await play_round(world, c)
    assert (await current(world, c)).status is Status.FINISHED
    sent = await world.send(c.chat, c.players[2], "/standings")
    table = await world.reply(c.chat, sent)
    assert table.photo is not None and "The tournament is over." in (table.caption or ""), \
        world.server.transcript(c.chat)
    assert not world.buttons(table)
