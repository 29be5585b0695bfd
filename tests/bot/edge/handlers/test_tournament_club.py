"""Tournaments and leagues a club can trust (issue 36, points 4 and 6-10),
through the real handlers and the local Bot API server: who may end and
erase a league season, withdraw asks once more, ``/tournament cancel`` names
and picks its tournament, ``/standings`` after the end, tables that read
without a manual, and links and buttons that lead somewhere."""

from __future__ import annotations

from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.records import Status
from tests.bot.conftest import World
from tests.bot.edge.handlers.test_tournament import (
    Club,
    _all,
    club,
    current,
    league_rows,
    play_round,
    resign_game,
    tournament,
    withdrawn,
)
from tests.botapi.model import Message


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
    # issue 36, point 9: the columns are explained under the table
    assert "Pts: points · G: games played (a forfeit is none) · H2H: head-to-head" \
        in (table.caption or "")


async def test_withdraw_asks_once_more_and_an_eliminated_player_has_none(world: World) -> None:
    """Issue 36, point 6: 🏳 Withdraw was one unconfirmed tap on a message the
    whole group shares, and a knockout player already out "withdrew" and was
    told their game "is lost by forfeit"."""
    c = club(world, 4)
    record = await tournament(world, c, "ko long")
    first = record.rounds[-1].pairings[0]
    assert first.game_id is not None
    winner = await resign_game(world, c, first.game_id)
    loser = c.user(next(p for p in first.players if p != winner))
    sent = await world.send(c.chat, loser, "/standings")
    standings = await world.reply(c.chat, sent, "Tournament")
    answer = await world.tap(c.chat, loser, standings, text="🏳 Withdraw")
    assert answer.show_alert and "nothing to withdraw from" in (answer.text or "")
    sent = await world.send(c.chat, loser, "/withdraw")
    assert "nothing to withdraw from" in ((await world.reply(c.chat, sent)).text or "")
    # a player still in is asked once more, told what it costs
    other = record.rounds[-1].pairings[1]
    player, opponent = c.user(other.first), c.user(other.second or 0)
    answer = await world.tap(c.chat, player, standings, text="🏳 Withdraw")
    assert not answer.show_alert, answer
    prompt = await world.reply(c.chat, standings, "from the tournament?")
    said = prompt.text or ""
    assert f"Withdraw {player.first_name} from the tournament?" in said
    assert f"game against {opponent.first_name} this round is lost by forfeit" in said
    assert "out of the tournament" in said
    assert not (await current(world, c)).entrants[0].withdrawn   # nothing yet
    answer = await world.tap(c.chat, opponent, prompt, text="🏳 Withdraw for good")
    assert answer.show_alert and "Only the player or a chat admin" in (answer.text or "")
    assert all(e.withdrawn is None for e in (await current(world, c)).entrants)
    answer = await world.tap(c.chat, player, prompt, text="🏳 Withdraw for good")
    assert not answer.show_alert, answer
    after = await current(world, c)
    assert [e.user_id for e in after.entrants if e.withdrawn is not None] == [player.id]
    assert "withdrew" in (world.server.message(c.chat.id, prompt.message_id).text or "")
    assert not world.buttons(world.server.message(c.chat.id, prompt.message_id))


async def started_from(world: World, c: Club, lobby: Message) -> None:
    """Everybody of ``c`` joins the lobby, its first player starts it (one of
    several tournaments in the chat)."""
    for player in c.players:
        answer = await world.tap(c.chat, player, lobby, text="✋ Join")
        assert not answer.show_alert, answer
    answer = await world.tap(c.chat, c.players[0], lobby, text="▶ Start")
    assert not answer.show_alert, answer


async def test_cancel_names_its_tournament_and_lets_an_admin_pick(world: World) -> None:
    """Issue 36, point 7: with a knockout the only admin is entered in (and
    out of) still running, ``/tournament cancel`` meant that one, refused,
    without saying which; the admin could not cancel another they do not
    play in.  Cancelling a running tournament edited its lobby twice with the
    same text (the Bot API answers 400 "message is not modified")."""
    admin = world.server.add_user("Admin")
    players = [world.server.add_user(f"P{n}") for n in range(1, 8)]
    chat = world.server.add_group("Cup", members=players, admins=[admin])
    ko = Club(chat, [admin, *players[:3]])
    sent = await world.send(chat, admin, "/tournament ko long")
    await started_from(world, ko, await world.reply(chat, sent, "Tournament"))
    sent = await world.send(chat, admin, "/withdraw")
    assert "withdrew" in await withdrawn(world, chat, sent, admin)   # entered, and out
    rr = Club(chat, players[3:6])
    sent = await world.send(chat, players[3], "/tournament rr long")
    rr_lobby = await world.reply(chat, sent, "Tournament")
    await started_from(world, rr, rr_lobby)
    sent = await world.send(chat, players[6], "/tournament cancel")   # a member
    said = (await world.reply(chat, sent)).text or ""
    assert "Only an admin who does not play" in said and "Round robin" in said, said
    sent = await world.send(chat, admin, "/tournament cancel")
    prompt = await world.reply(chat, sent, "Cancel this tournament")
    assert "Round robin" in (prompt.text or "")   # the one the admin may cancel
    # a lobby too: the admin picks among the two
    sent = await world.send(chat, players[6], "/tournament swiss")
    await world.reply(chat, sent, "Tournament")
    sent = await world.send(chat, admin, "/tournament cancel")
    choice = await world.reply(chat, sent, "Which tournament")
    labels = [text for text, _ in world.buttons(choice)]
    assert len(labels) == 2 and any("Round robin" in t and "3 players" in t for t in labels) \
        and any("Swiss" in t and "lobby" in t for t in labels), labels
    rr_label = next(t for t in labels if "Round robin" in t)
    answer = await world.tap(chat, admin, choice, text=rr_label)
    assert not answer.show_alert, answer
    records = {t.format.value: t for t in await _all(world.store, chat.id)}
    assert records["round_robin"].status is Status.CANCELLED and records["round_robin"].closed
    assert records["knockout"].status is Status.ACTIVE
    assert records["swiss"].status is Status.LOBBY
    assert "cancelled" in (world.server.message(chat.id, rr_lobby.message_id).text or "")
    assert "was cancelled" in (world.server.message(chat.id, choice.message_id).text or "")


async def test_standings_refresh_in_place_and_only_when_changed(world: World) -> None:
    """Issue 36, point 10: 🔄 Standings posted a new message on every tap (20
    taps, 16 messages)."""
    c = club(world, 4)
    record = await tournament(world, c, "rr long")
    sent = await world.send(c.chat, c.players[1], "/standings")
    table = await world.reply(c.chat, sent, "Tournament")
    count = len(world.server.messages(c.chat))

    def edits() -> int:
        return sum(r.params.get("message_id") == table.message_id
                   for r in world.server.requests("editMessageMedia"))

    for _ in range(5):   # nothing changed: nothing sent
        answer = await world.tap(c.chat, c.players[2], table, text="🔄 Standings")
        assert not answer.show_alert, answer
    assert len(world.server.messages(c.chat)) == count
    assert edits() == 0
    game = record.rounds[-1].pairings[0].game_id
    assert game is not None
    await resign_game(world, c, game)
    count = len(world.server.messages(c.chat))
    answer = await world.tap(c.chat, c.players[2], table, text="🔄 Standings")
    assert not answer.show_alert, answer
    assert len(world.server.messages(c.chat)) == count   # the same message ...
    assert edits() == 1   # ... redrawn
    assert world.server.message(c.chat.id, table.message_id).photo != table.photo


async def test_a_tournament_games_end_offers_its_standings(world: World) -> None:
    """Issue 36, point 10: a tournament game's end offered Rematch / New game,
    which start ordinary staked games outside the tournament."""
    c = club(world, 4)
    record = await tournament(world, c, "rr long")
    game = record.rounds[-1].pairings[0].game_id
    assert game is not None
    await resign_game(world, c, game)
    finished = await world.store.games.load_game(c.chat.id, game)
    assert finished is not None and finished.board_message_id is not None
    board = world.server.message(c.chat.id, finished.board_message_id)
    labels = [text for text, _ in world.buttons(board)]
    assert "📋 Standings" in labels and "Rematch" not in labels and "New game" not in labels
    for action in (ButtonAction.REMATCH, ButtonAction.NEW):   # an old board's, or forged
        data = Callback.game(game, finished.version, action).format()
        answer = await world.tap(c.chat, c.players[0], board, data, strict=False)
        assert answer.show_alert and "followed by the tournament's next round" in (
            answer.text or ""), answer
    count = len(world.server.messages(c.chat))
    answer = await world.tap(c.chat, c.players[0], board, text="📋 Standings")
    assert not answer.show_alert, answer
    table = world.server.messages(c.chat)[-1]
    assert len(world.server.messages(c.chat)) == count + 1 and table.photo is not None
    assert "Round robin" in (table.caption or "")   # the standings, the board left as it was
    assert world.server.message(c.chat.id, board.message_id).photo == board.photo


async def test_the_private_link_follows_the_board_posted_anew(world: World) -> None:
    """Issue 36, point 10: a player's private notice linked "Open the game" to
    the game's lobby message, deleted when ▶ Start posts the picture board."""
    players = [world.server.add_user(f"P{n}") for n in range(1, 5)]
    c = Club(world.server.add_group("Club", members=players, supergroup=True), players)
    for fan in players:   # the bot may write to them
        mine = world.server.private_chat(fan)
        await world.reply(mine, await world.send(mine, fan, "/start"))
    record = await tournament(world, c, "rr long")
    pairing = record.rounds[-1].pairings[0]
    assert pairing.game_id is not None
    lobby = await world.store.games.load_game(c.chat.id, pairing.game_id)
    assert lobby is not None and lobby.board_message_id is not None

    def links() -> list[str]:
        out = []
        for player in pairing.players:
            for message in world.server.messages(world.server.private_chat(c.user(player))):
                for row in (message.reply_markup or {}).get("inline_keyboard", []):
                    out += [b["url"] for b in row if b.get("text") == "Open the game"]
        return out

    suffix = f"/{str(c.chat.id)[4:]}/"
    assert links() == [f"https://t.me/c{suffix}{lobby.board_message_id}"] * 2
    start = next(data for _, data in world.buttons(
        world.server.message(c.chat.id, lobby.board_message_id)) if data and data.endswith(":S"))
    answer = await world.tap(c.chat, c.user(pairing.first), lobby.board_message_id, start)
    assert not answer.show_alert, answer
    game = await world.store.games.load_game(c.chat.id, pairing.game_id)
    assert game is not None and game.board_message_id != lobby.board_message_id
    assert world.server.message(c.chat.id, lobby.board_message_id).deleted
    # the notices and the turn's ping, every link in private to the board now
    assert set(links()) == {f"https://t.me/c{suffix}{game.board_message_id}"}
    assert len(links()) == 3
