"""Attacks on tournaments (issue 27) by hostile or careless group members,
through the real handlers and the local Bot API server: each test is an
attack that once worked, and shows that it no longer changes anything."""

from __future__ import annotations

import pytest

from bot.edge.handlers import tournament as handler
from bot.rules import tournament as rules
from bot.service import tournament as service
from bot.store.tournament import LOOKED_AT
from bot.vocab.callbacks import ButtonAction, Callback, Kind
from bot.vocab.records import Status
from tests.bot.conftest import World
from tests.bot.edge.handlers import test_tournament as base
from tests.bot.edge.handlers.test_tournament import (
    Clock,
    board_of,
    club,
    current,
    resign_game,
    tick,
    tournament,
)

clock = base.clock   # the test clock fixture, the tournament job off


async def test_a_player_cannot_close_a_tournament_game_to_sink_the_opponent(
        world: World, clock: Clock) -> None:
    """A game nobody started by the deadline is lost by both: a player who
    closed its board (Close, /cancel) made the opponent lose too, and two
    such no-shows withdraw the opponent.  Only ▶ Start is offered; the rest
    is refused and changes nothing."""
    c = club(world, 4)
    record = await tournament(world, c, "rr long")
    one, two = record.rounds[0].pairings
    assert one.game_id is not None and two.game_id is not None
    board = board_of(world, c, one.game_id)
    assert [text for text, _ in world.buttons(board)] == ["▶ Start"]
    game = await world.store.games.load_game(c.chat.id, one.game_id)
    assert game is not None
    drop = Callback(Kind.LOBBY, one.game_id, game.version, ButtonAction.DROP).format()
    answer = await world.tap(c.chat, c.user(one.first), board, drop, strict=False)
    assert answer.show_alert, answer
    sent = await world.send(c.chat, c.user(two.second or 0), "/cancel",
                            reply_to=board_of(world, c, two.game_id))
    assert "tournament" in (await world.reply(c.chat, sent)).text
    for pairing in (one, two):
        assert pairing.game_id is not None
        game = await world.store.games.load_game(c.chat.id, pairing.game_id)
        assert game is not None and game.status is Status.LOBBY
    # the victims can still play their games
    await resign_game(world, c, one.game_id)
    await resign_game(world, c, two.game_id)
    await tick(world)
    record = await current(world, c)
    assert len(record.rounds) == 2 and all(e.no_shows == 0 for e in record.entrants)


async def test_a_flood_of_lobbies_does_not_hide_the_running_tournament(
        world: World, clock: Clock) -> None:
    """The chat's index is looked at for its newest tournaments only: 20
    lobbies made and cancelled after a tournament started hid it from
    /standings and /withdraw.  Closed ones no longer crowd out open ones,
    and a member may have one lobby open at a time."""
    c = club(world, 4)
    await tournament(world, c, "rr long")
    troll = world.server.add_user("Troll")
    world.server.set_member_status(c.chat, troll, "member")
    for _ in range(LOOKED_AT + 1):
        sent = await world.send(c.chat, troll, "/tournament ko")
        lobby = await world.reply(c.chat, sent, "Tournament")
        answer = await world.tap(c.chat, troll, lobby, text="✖ Cancel")
        assert not answer.show_alert, answer
    sent = await world.send(c.chat, c.players[1], "/standings")
    standings = await world.reply(c.chat, sent)
    assert "Round robin" in (standings.caption or standings.text or ""), standings
    sent = await world.send(c.chat, c.players[2], "/withdraw")
    assert "P3 withdrew" in await base.withdrawn(world, c.chat, sent, c.players[2])
    # one open lobby per member
    sent = await world.send(c.chat, troll, "/tournament ko")
    await world.reply(c.chat, sent, "Tournament")
    sent = await world.send(c.chat, troll, "/tournament swiss")
    assert "open already" in (await world.reply(c.chat, sent)).text


async def test_an_admin_who_plays_cannot_cancel_the_running_tournament(world: World) -> None:
    """Cancelled, a tournament books nothing: an admin losing it would erase
    the entry stake they owe.  Only an admin who does not play may (as for a
    game: bot/rules/cancelling.py)."""
    admin = world.server.add_user("Boss")
    c = club(world, 3)
    chat = world.server.add_group("Cup", members=c.players, admins=[admin])
    cup = base.Club(chat, [admin, *c.players[:2]])
    record = await tournament(world, cup, "rr long entry=50")
    assert record.status is Status.ACTIVE and record.message_id is not None
    drop = Callback.tournament(record.tournament_id, 1, ButtonAction.DROP).format()
    answer = await world.tap(chat, admin, record.message_id, drop, strict=False)  # stale
    assert answer.show_alert, answer
    assert (await current(world, cup)).status is Status.ACTIVE


async def test_a_tournament_button_counts_only_on_its_own_lobby(world: World) -> None:
    """A tap is checked against the message it is on: another tournament's
    Join (or a lobby's Start) on this lobby, or on the standings, is refused."""
    c = club(world, 3)
    lobbies = []
    for creator in c.players[:2]:
        sent = await world.send(c.chat, creator, "/tournament rr")
        lobbies.append(await world.reply(c.chat, sent, "Tournament"))
    first, second = (await base._all(world.store, c.chat.id))
    assert first.message_id == lobbies[0].message_id
    join_second = Callback.tournament(second.tournament_id, second.version,
                                      ButtonAction.JOIN).format()
    answer = await world.tap(c.chat, c.players[2], lobbies[0], join_second, strict=False)
    assert answer.show_alert, answer
    assert [e.user_id for e in (await world.store.tournament.load(
        c.chat.id, second.tournament_id) or second).entrants] == []
    await world.tap(c.chat, c.players[2], lobbies[1], join_second)   # on its own lobby: joins
    assert [e.user_id for e in (await world.store.tournament.load(
        c.chat.id, second.tournament_id) or second).entrants] == [c.players[2].id]


async def test_withdraw_in_a_forum_topic_means_the_sender(world: World) -> None:
    """Every message of a forum topic is a reply to the topic's start, so
    /withdraw there meant whoever opened the topic: a player was refused
    ("Only the player or a chat admin ..."), and an admin's /withdraw
    withdrew the topic's creator."""
    admin = world.server.add_user("Admin")
    players = [world.server.add_user(f"F{n}") for n in range(1, 4)]
    forum = world.server.add_group("Forum", members=players, admins=[admin], forum=True)
    topic = world.server.create_topic(forum, "Cup", by=players[0])
    sent = await world.send(forum, players[0], "/tournament swiss", thread_id=topic)
    lobby = await world.reply(forum, sent, "Tournament")
    for player in players:
        await world.tap(forum, player, lobby, text="✋ Join")
    await world.tap(forum, players[0], lobby, text="▶ Start")
    sent = await world.send(forum, admin, "/withdraw", thread_id=topic)
    assert "not joined" in (await world.reply(forum, sent)).text   # not the topic's creator
    sent = await world.send(forum, players[2], "/withdraw", thread_id=topic)
    assert "F3 withdrew" in await base.withdrawn(world, forum, sent, players[2])
    [record] = await base._all(world.store, forum.id)
    assert [e.user_id for e in record.entrants if e.withdrawn] == [players[2].id]


async def test_standings_and_withdraw_find_the_askers_tournament(world: World) -> None:
    """Two tournaments running in a forum, one per topic: /standings and
    /withdraw took the chat's newest, so a player of the other one saw
    somebody else's standings (in the other topic) and could not withdraw."""
    players = [world.server.add_user(f"F{n}") for n in range(1, 7)]
    forum = world.server.add_group("Forum", members=players, forum=True)
    topics = [world.server.create_topic(forum, name) for name in ("One", "Two")]
    for topic, group in zip(topics, (players[:3], players[3:]), strict=True):
        sent = await world.send(forum, group[0], "/tournament rr", thread_id=topic)
        lobby = await world.reply(forum, sent, "Tournament")
        for player in group:
            await world.tap(forum, player, lobby, text="✋ Join")
        await world.tap(forum, group[0], lobby, text="▶ Start")
    sent = await world.send(forum, players[1], "/standings", thread_id=topics[0])
    shown = await world.reply(forum, sent, "Tournament")
    assert shown.thread_id == topics[0]
    assert [text for text, _ in world.buttons(shown)] == ["🔄 Standings", "🏳 Withdraw"]
    older = min(await base._all(world.store, forum.id), key=lambda t: t.created_at)
    assert Callback.parse(world.buttons(shown)[0][1]).id == older.tournament_id
    sent = await world.send(forum, players[2], "/withdraw", thread_id=topics[0])
    assert "F3 withdrew" in await base.withdrawn(world, forum, sent, players[2])


async def test_two_taps_at_once_join_once_and_start_once(world: World, clock: Clock) -> None:
    """Holds: a double Join, and ▶ Start tapped twice at once, make one
    entrant each and one round (one compare-and-set each)."""
    c = club(world, 3)
    sent = await world.send(c.chat, c.players[0], "/tournament rr")
    lobby = await world.reply(c.chat, sent, "Tournament")
    for player in c.players:
        taps = [world.server.user_taps(c.chat, player, lobby, text="✋ Join") for _ in range(2)]
        answers = [await tap.wait_answer_async() for tap in taps]
        await world.idle()
        assert sum(a.show_alert for a in answers) <= 1, answers
    taps = [world.server.user_taps(c.chat, c.players[0], lobby, text="▶ Start") for _ in range(2)]
    for tap in taps:
        await tap.wait_answer_async()
    await world.idle()
    record = await current(world, c)
    assert sorted(e.user_id for e in record.entrants) == sorted(p.id for p in c.players)
    assert len(record.rounds) == 1
    assert len(base.texts(world, c, "Round 1")) == 1


async def test_a_forged_cancel_button_edits_no_other_message(world: World, clock: Clock) -> None:
    """The ✖ Cancel the tournament button redraws the message it is on; its
    data sent on another message (a game's lobby, the tournament's own) was
    refused and yet turned that message into "was cancelled"."""
    c = club(world, 3)
    sent = await world.send(c.chat, c.players[0], "/tournament swiss")
    lobby = await world.reply(c.chat, sent, "Tournament")
    sent = await world.send(c.chat, c.players[1], "/new long")
    game_lobby = await world.reply(c.chat, sent, "New game")
    record = await current(world, c)
    forged = Callback.tournament(record.tournament_id, record.version, ButtonAction.END).format()
    for message in (game_lobby, lobby):
        before = world.server.message(c.chat.id, message.message_id)
        answer = await world.tap(c.chat, c.players[0], message, forged, strict=False)
        assert answer.show_alert, answer
        after = world.server.message(c.chat.id, message.message_id)
        assert (after.text, after.buttons) == (before.text, before.buttons)
    assert (await current(world, c)).status is Status.LOBBY


async def test_a_board_posted_while_its_tournament_is_cancelled_is_closed(
        world: World, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    """An admin cancels while the first round's boards are being posted: the
    games made for it are closed, none is left with a live ▶ Start, and the
    end is posted (naming the game in the cancelled tournament raised)."""
    c = club(world, 4)
    sent = await world.send(c.chat, c.players[0], "/tournament rr long")
    lobby = await world.reply(c.chat, sent, "Tournament")
    for player in c.players:
        await world.tap(c.chat, player, lobby, text="✋ Join")
    told = handler._tell_privately

    async def cancelled_meanwhile(*args: object) -> None:
        record = await current(world, c)
        await service.commit_tournament(
            world.store, c.chat.id, record.tournament_id,
            lambda r, now: r.model_copy(update={"status": Status.CANCELLED}))
        await told(*args)   # type: ignore[arg-type]

    monkeypatch.setattr(handler, "_tell_privately", cancelled_meanwhile)
    answer = await world.tap(c.chat, c.players[0], lobby, text="▶ Start")
    assert not answer.show_alert, answer
    await world.idle()
    record = await current(world, c)
    assert record.status is Status.CANCELLED and record.closed
    made = [await world.store.games.load_game(c.chat.id, service.game_id_of(record, 1, p.board))
            for p in record.rounds[0].pairings]
    assert any(made) and all(g is None or g.status is Status.CANCELLED for g in made), made


async def test_the_lobby_keeps_the_chat_language_whoever_taps(world: World) -> None:
    """A Russian-speaking member's Join redrew an English lobby in Russian
    (and the next tournament job drew it back)."""
    c = club(world, 2)
    guest = world.server.add_user("Гость", language_code="ru")
    chat = world.server.add_group("Club", members=[*c.players, guest])
    sent = await world.send(chat, c.players[0], "/tournament swiss")
    lobby = await world.reply(chat, sent, "Tournament")
    assert not (await world.tap(chat, guest, lobby, text="✋ Join")).show_alert
    redrawn = world.server.message(chat.id, lobby.message_id)
    assert "Гость" in redrawn.text and "Players" in redrawn.text, redrawn.text


async def test_a_join_while_the_lobby_is_posted_keeps_its_message(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Join between the lobby's post and the save of its message id made
    that save lose its compare-and-set, and the id was never saved: the
    lobby was not redrawn again and its buttons were not checked against it."""
    c = club(world, 2)
    commit = service.commit_tournament
    joined: list[bool] = []

    async def raced(store: object, chat_id: int, tournament_id: str, change: object,
                    **options: object) -> object:
        if not joined:
            joined.append(True)
            await commit(store, chat_id, tournament_id,  # type: ignore[arg-type]
                         lambda r, now: rules.join(r, c.players[1].id, "P2", now))
        return await commit(store, chat_id, tournament_id, change, **options)  # type: ignore

    monkeypatch.setattr(service, "commit_tournament", raced)
    sent = await world.send(c.chat, c.players[0], "/tournament swiss")
    lobby = await world.reply(c.chat, sent, "Tournament")
    await world.idle()
    record = await current(world, c)
    assert joined and record.message_id == lobby.message_id
    assert "P2" in world.server.message(c.chat.id, lobby.message_id).text


async def test_standings_tapped_in_another_topic_come_in_that_topic(world: World) -> None:
    """🔄 Standings on a table asked for in another forum topic posted the new
    table in the tournament's topic, away from whoever tapped."""
    players = [world.server.add_user(f"F{n}") for n in range(1, 4)]
    forum = world.server.add_group("Forum", members=players, forum=True)
    cup, chatter = (world.server.create_topic(forum, name, by=players[0])
                    for name in ("Cup", "Chatter"))
    sent = await world.send(forum, players[0], "/tournament swiss", thread_id=cup)
    lobby = await world.reply(forum, sent, "Tournament")
    for player in players:
        await world.tap(forum, player, lobby, text="✋ Join")
    await world.tap(forum, players[0], lobby, text="▶ Start")
    sent = await world.send(forum, players[1], "/standings", thread_id=chatter)
    table = await world.reply(forum, sent, "Tournament")
    assert table.thread_id == chatter
    answer = await world.tap(forum, players[1], table, text="🔄 Standings")
    assert not answer.show_alert, answer
    await world.idle()
    newest = [m for m in world.server.messages(forum) if m.by_bot and m.photo is not None]
    # updated in place (issue 36): still the one table, in the topic it was asked in
    assert newest[-1].message_id == table.message_id and newest[-1].thread_id == chatter


async def test_a_round_is_dealt_in_a_chat_at_its_limit_of_games(world: World) -> None:
    """A chat's limit of live games holds back /new, never a tournament's
    round: its games are the tournament's, owed to its players."""
    c = club(world, 4)
    world.store.max_live = 1
    record = await tournament(world, c, "rr long")
    games = [await world.store.games.load_game(c.chat.id, p.game_id or "")
             for p in record.rounds[0].pairings]
    assert len(games) == 2 and all(g is not None and g.status is Status.LOBBY for g in games)
    assert await world.store.games.live_count(c.chat.id, None) == 2
    sent = await world.send(c.chat, c.players[0], "/new")   # the limit still holds for /new
    assert "at once" in (await world.reply(c.chat, sent)).text
