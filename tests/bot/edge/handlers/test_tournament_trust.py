"""Tournaments a club can trust (issue 36): limits that hold under commands and
taps sent at once, a forfeit that closes its game, fair dice in every round
and one chat's tournament work that never waits for another's; through the
real handlers and the local Bot API server."""

from __future__ import annotations

from bot.rules import tournament as rules
from bot.vocab.records import Status
from tests.bot.conftest import World
from tests.bot.edge.handlers import test_tournament as base
from tests.bot.edge.handlers.test_tournament import Clock, club

clock = base.clock   # the test clock fixture, the tournament job off


async def _open_ones(world: World, chat_id: int) -> list[object]:
    return [t for t in await base._all(world.store, chat_id) if t.status.is_open]


async def test_one_member_sending_tournament_at_once_makes_one_lobby(world: World,
                                                                    clock: Clock) -> None:
    c = club(world, 2)
    for _ in range(8):
        world.server.user_sends(c.chat, c.players[0], "/tournament rr")
    await world.idle()
    assert len(await _open_ones(world, c.chat.id)) == 1
    refused = [m for m in world.server.messages(c.chat) if m.by_bot
               and "lobby open already" in (m.text or "")]
    assert len(refused) == 7, world.server.transcript(c.chat)


async def test_members_sending_tournament_at_once_keep_the_chats_limit(world: World,
                                                                      clock: Clock) -> None:
    c = club(world, 14)
    for player in c.players:
        world.server.user_sends(c.chat, player, "/tournament swiss")
    await world.idle()
    assert len(await _open_ones(world, c.chat.id)) == rules.actions.MAX_OPEN
    full = [m for m in world.server.messages(c.chat) if m.by_bot
            and "tournaments open already" in (m.text or "")]
    assert len(full) == 14 - rules.actions.MAX_OPEN, world.server.transcript(c.chat)


async def test_a_lobby_admits_every_join_up_to_its_cap_however_many_at_once(
        world: World, clock: Clock) -> None:
    c = club(world, 66)
    sent = await world.send(c.chat, c.players[0], "/tournament swiss")
    lobby = await world.reply(c.chat, sent, "Tournament")
    taps = [world.server.user_taps(c.chat, player, lobby, text="✋ Join") for player in c.players]
    answers = [await tap.wait_answer_async(60) for tap in taps]
    await world.idle()
    record = await base.current(world, c)
    assert record.status is Status.LOBBY and len(record.entrants) == 64
    alerts = [a.text for a in answers if a.show_alert]
    assert len(alerts) == 2 and all("full" in (text or "") for text in alerts), alerts
