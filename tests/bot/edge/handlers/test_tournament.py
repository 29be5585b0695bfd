"""Tournaments end to end through the real handlers and the local Bot API
server: created with /tournament, joined and started with its buttons, every
game on its own board started with ▶ Start and played (to a resignation)
by the players' taps, rounds posted by the tournament job, deadlines decided
by it with the test clock moved, the final standings posted and the prizes
booked in the ledger.  A 4-player round robin, a 6-player Swiss with a bye,
an 8-player knockout with one no-show, a restart mid-round, and two workers
on one Redis."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from telegram.ext import CallbackContext

from bot.edge.handlers import tournament as handler
from bot.rules import tournament as rules
from bot.rules.dice import Dealer
from bot.rules.matchstate import table_of
from bot.rules.tournament import prizes
from bot.service import tournament as service
from bot.store import Store
from bot.vocab import clock as clocks
from bot.vocab.callbacks import ButtonAction, Callback, CallbackDataError
from bot.vocab.records import Status
from bot.vocab.tournament import Decision, TournamentRecord
from tests.bot.conftest import World, other_worker, running_world
from tests.bot.driver import pick
from tests.bot.edge.handlers.test_clock import Clock
from tests.botapi import BotApiServer
from tests.botapi.model import Chat, Message, User

DAY = 86400.0


@dataclass
class Club:
    chat: Chat
    players: list[User]

    def user(self, user_id: int) -> User:
        return next(u for u in self.players if u.id == user_id)


@pytest.fixture
async def clock(world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                ) -> AsyncIterator[Clock]:
    """A test clock; the tournament job is off, the tests run it by hand."""
    fake = Clock(tmp_path / "offset")
    monkeypatch.setenv(clocks.TEST_CLOCK_ENV, str(fake.path))
    fake.advance(0)
    for job in world.app.job_queue.get_jobs_by_name(handler.JOB_NAME):
        job.enabled = False
    yield fake


def club(world: World, count: int) -> Club:
    players = [world.server.add_user(f"P{n}") for n in range(1, count + 1)]
    return Club(world.server.add_group("Club", members=players), players)


async def tick(world: World, app: Any = None) -> None:
    await handler.tick_job(CallbackContext(app or world.app))
    await world.idle()


async def tournament(world: World, c: Club, args: str) -> TournamentRecord:
    """``/tournament args`` by the first player, everybody joins, he starts it."""
    sent = await world.send(c.chat, c.players[0], f"/tournament {args}")
    return await tournament_from(world, c, await world.reply(c.chat, sent, "Tournament"))


async def tournament_from(world: World, c: Club, lobby: Message) -> TournamentRecord:
    """Everybody joins the lobby, the first player starts it."""
    for player in c.players:
        answer = await world.tap(c.chat, player, lobby, text="✋ Join")
        assert not answer.show_alert, answer
    answer = await world.tap(c.chat, c.players[0], lobby, text="▶ Start")
    assert not answer.show_alert, answer
    return await current(world, c)


async def current(world: World, c: Club) -> TournamentRecord:
    [record] = [t for t in await _all(world.store, c.chat.id)]
    return record


async def _all(store: Store, chat_id: int) -> list[TournamentRecord]:
    ids = await store.redis.zrange(store.keys.chat(chat_id, "tournaments"), 0, -1)
    found = [await store.tournament.load(chat_id, i.decode() if isinstance(i, bytes) else i)
             for i in ids]
    return [t for t in found if t is not None]


def board_of(world: World, c: Club, game_id: str) -> Message:
    for message in reversed(world.server.messages(c.chat)):
        for row in message.buttons or []:
            for _, data in row:
                with contextlib.suppress(CallbackDataError):
                    if data and Callback.parse(data).id == game_id:
                        return message
    raise AssertionError(f"no board of {game_id}\n{world.server.transcript(c.chat)}")


def button(world: World, message: Message, action: ButtonAction, arg: int | None = None
           ) -> str | None:
    for _, data in world.buttons(message):
        with contextlib.suppress(CallbackDataError):
            parsed = Callback.parse(data) if data else None
            if parsed and parsed.action is action and arg in (None, *parsed.args[:1]):
                return data
    return None


async def resign_game(world: World, c: Club, game_id: str, level: int = 1) -> int:
    """Start the game and let the player to act resign it (``level`` 3: a
    backgammon or koks, 3 points); returns the winner."""
    record = await world.store.games.load_game(c.chat.id, game_id)
    assert record is not None and record.status is Status.LOBBY
    first = c.user(record.players[0].user_id)
    start = button(world, board_of(world, c, game_id), ButtonAction.START)
    assert start is not None
    await world.tap(c.chat, first, board_of(world, c, game_id), start)
    record = await world.store.games.load_game(c.chat.id, game_id)
    assert record is not None and record.status is Status.ACTIVE
    side = table_of(record).game.to_act
    loser = c.user(next(p.user_id for p in record.players if p.side is side))
    winner = c.user(next(p.user_id for p in record.players if p.side is not side))
    for action, who in ((ButtonAction.MENU, loser), (ButtonAction.RESIGN, loser),
                        (ButtonAction.ACCEPT, winner)):
        data = button(world, board_of(world, c, game_id), action,
                      level if action is ButtonAction.RESIGN else None)
        assert data is not None, (action, world.server.transcript(c.chat))
        answer = await world.tap(c.chat, who, board_of(world, c, game_id), data)
        assert not answer.show_alert, answer
    record = await world.store.games.load_game(c.chat.id, game_id)
    assert record is not None and record.status is Status.FINISHED
    return winner.id


async def play_round(world: World, c: Club, skip: frozenset[str] = frozenset()) -> None:
    """Every game of the current round resigned by whoever is to act."""
    record = await current(world, c)
    for pairing in record.rounds[-1].pairings:
        if pairing.result is None and pairing.game_id not in skip:
            assert pairing.game_id is not None, record
            await resign_game(world, c, pairing.game_id)
    await tick(world)


async def ledger_nets(world: World, c: Club) -> dict[int, int]:
    """Each player's net in the chat's ledger."""
    nets = {p.id: 0 for p in c.players}
    for (low, high), balance in (await world.store.ledger.ledger(c.chat.id)).items():
        nets[low] += balance
        nets[high] -= balance
    return nets


async def withdrawn(world: World, chat: Chat, sent: Message, who: User) -> str:
    """The prompt a /withdraw (``sent``) or a 🏳 Withdraw tap posted,
    confirmed by ``who``: what it says then."""
    prompt = await world.reply(chat, sent, "from the tournament?")
    answer = await world.tap(chat, who, prompt, text="🏳 Withdraw for good")
    assert not answer.show_alert, answer
    return world.server.message(chat.id, prompt.message_id).text or ""


def texts(world: World, c: Club, part: str) -> list[str]:
    return [m.text or "" for m in world.server.messages(c.chat)
            if m.by_bot and part in (m.text or "")]


async def test_a_four_player_round_robin_played_to_the_end(world: World, clock: Clock) -> None:
    c = club(world, 4)
    record = await tournament(world, c, "rr long entry=10")
    assert record.status is Status.ACTIVE and len(record.rounds) == 1
    assert len(texts(world, c, "Round 1")) == 1
    for number in range(1, 4):
        record = await current(world, c)
        assert record.rounds[-1].number == number
        assert all(p.game_id for p in record.rounds[-1].pairings)
        await play_round(world, c)
    record = await current(world, c)
    assert record.status is Status.FINISHED and record.closed
    assert record.message_id is not None
    assert "The tournament is over." in world.server.message(c.chat.id, record.message_id).text
    [final] = texts(world, c, "Final standings")
    assert "Winner" in final and "Booked in the ledger" in final
    assert await ledger_nets(world, c) == prizes.nets(record)
    assert sorted(prizes.nets(record).values()) == [-10, -10, 2, 18]   # 70/30 of 40
    games = [p for r in record.rounds for p in r.pairings]
    assert len(games) == 6 and all(p.result and p.result.decision is Decision.PLAYED
                                   for p in games)
    # the month's league: the six rated games, each player's three, rating changes kept
    history = await world.store.ledger.history(c.chat.id)
    assert len(history) == 6 and all(h.rating_changes for h in history)
    moved = {p.id: 0.0 for p in c.players}
    for entry in history:
        assert entry.rating_changes is not None
        for player, change in zip(entry.players, entry.rating_changes, strict=True):
            moved[player.user_id] += change
    sent = await world.send(c.chat, c.players[2], "/league")
    league = (await world.reply(c.chat, sent, "League")).text or ""
    rows = [line.split() for line in league.splitlines() if line[:2].strip().isdigit()]
    assert len(rows) == 4 and all(int(row[3]) == 3 for row in rows), league
    by_name = {row[1]: int(row[-1]) for row in rows}
    assert by_name == {p.first_name: round(moved[p.id]) for p in c.players}, league


async def test_a_six_player_swiss_with_a_withdrawal_and_a_bye(world: World, clock: Clock) -> None:
    c = club(world, 6)
    record = await tournament(world, c, "swiss rounds=3 backgammon")
    assert record.rounds_planned == 3 and len(record.rounds[-1].pairings) == 3
    # the sixth player withdraws during round 1 from the standings' button
    sent = await world.send(c.chat, c.players[5], "/standings")
    standings = await world.reply(c.chat, sent, "Tournament")
    assert standings.photo is not None   # a picture, as the chat's boards are
    data = button(world, standings, ButtonAction.QUIT)
    assert data is not None
    answer = await world.tap(c.chat, c.players[5], standings, data)
    assert not answer.show_alert, answer
    assert "P6 withdrew" in await withdrawn(world, c.chat, standings, c.players[5])
    assert len(texts(world, c, "P6 withdrew from the tournament")) == 1   # the chat is told
    record = await current(world, c)
    gone = next(p for p in record.rounds[0].pairings if c.players[5].id in p.players)
    assert gone.result is not None and gone.result.decision is Decision.FORFEIT
    assert gone.game_id is not None
    closed = await world.store.games.load_game(c.chat.id, gone.game_id)
    assert closed is not None and closed.status is Status.CANCELLED   # its board closed
    for _ in range(3):
        await play_round(world, c)
    record = await current(world, c)
    assert record.status is Status.FINISHED and len(record.rounds) == 3
    byes = [p.first for r in record.rounds for p in r.pairings if p.second is None]
    assert len(byes) == 2 and len(set(byes)) == 2 and c.players[5].id not in byes
    met = [frozenset(p.players) for r in record.rounds for p in r.pairings if p.second]
    assert len(met) == len(set(met))
    assert [p.user_id for p in record.final][-1] == c.players[5].id  # 0 points, last
    [final] = texts(world, c, "Final standings")
    assert "×" in final   # marked as withdrawn


async def test_an_eight_player_knockout_with_a_no_show(world: World, clock: Clock) -> None:
    c = club(world, 8)
    record = await tournament(world, c, "ko long round=1d")
    first = record.rounds[0].pairings
    assert [p.players for p in first] == [
        tuple(record.entrants[s - 1].user_id for s in seeds)
        for seeds in ((1, 8), (4, 5), (2, 7), (3, 6))]
    # seed 5 never shows: seed 4 starts and moves, the bot plays seed 5's forced
    # reply (that is no showing up), and the game waits for seed 5
    absent = first[1]
    assert absent.game_id is not None
    await play_round(world, c, skip=frozenset({absent.game_id}))
    present_player = c.user(absent.first)
    no_show = absent.second
    await start_and_wait_for(world, c, absent.game_id, present_player, no_show)
    clock.advance(DAY + 60)
    await tick(world)
    record = await current(world, c)
    decided = next(p for p in record.rounds[0].pairings if p.board == absent.board)
    assert decided.result is not None
    assert (decided.result.decision, decided.result.winner) == (Decision.FORFEIT, absent.first)
    assert next(e for e in record.entrants if e.user_id == no_show).no_shows == 1
    assert len(record.rounds) == 2 and len(record.rounds[1].pairings) == 2
    await play_round(world, c)
    await play_round(world, c)
    record = await current(world, c)
    assert record.status is Status.FINISHED
    [champion] = [p for p in record.final if p.rank == 1]
    final = record.rounds[-1].pairings[0]
    assert final.result is not None and final.result.winner == champion.user_id
    assert texts(world, c, "Final standings")


async def test_a_knockout_whose_final_is_a_longer_match(world: World, clock: Clock) -> None:
    c = club(world, 4)
    sent = await world.send(c.chat, c.players[0], "/tournament ko long final=2")
    lobby = await world.reply(c.chat, sent, "Tournament")
    assert "The final: a match to 2." in (lobby.text or "")
    record = await tournament_from(world, c, lobby)
    assert {p.match_length for p in record.rounds[0].pairings} == {1}
    await play_round(world, c)
    record = await current(world, c)
    [final] = record.rounds[1].pairings
    assert final.match_length == 2 and final.game_id is not None
    game = await world.store.games.load_game(c.chat.id, final.game_id)
    assert game is not None and game.options.match_length == 2   # the final's board
    [told] = texts(world, c, "Round 2")
    assert "match to 2" in told
    sent = await world.send(c.chat, c.players[1], "/standings")
    await world.reply(c.chat, sent, "Tournament")   # the picture, drawn with it
    winner = await resign_game(world, c, final.game_id, level=2)   # a mars, 2 points: the match
    await tick(world)
    record = await current(world, c)
    assert record.status is Status.FINISHED
    [decided] = record.rounds[1].pairings
    assert decided.result is not None
    assert (decided.result.winner, decided.result.points) == (winner, 2)
    assert [p.user_id for p in record.final if p.rank == 1] == [winner]


async def start_and_wait_for(world: World, c: Club, game_id: str, player: User,
                             waiting_for: int | None) -> None:
    """``player`` starts the game and plays until it waits for ``waiting_for``."""
    start = button(world, board_of(world, c, game_id), ButtonAction.START)
    assert start is not None
    await world.tap(c.chat, player, board_of(world, c, game_id), start)
    for _ in range(40):
        record = await world.store.games.load_game(c.chat.id, game_id)
        assert record is not None and record.status is Status.ACTIVE
        side = table_of(record).game.to_act
        if next(p.user_id for p in record.players if p.side is side) == waiting_for:
            return
        data = pick(board_of(world, c, game_id))
        assert data is not None
        await world.tap(c.chat, player, board_of(world, c, game_id), data)
    raise AssertionError("the game never waited for the no-show")


async def test_two_workers_post_a_round_once(world: World, clock: Clock,
                                             second_app: Any) -> None:
    c = club(world, 4)
    await tournament(world, c, "rr long")
    record = await current(world, c)
    for pairing in record.rounds[-1].pairings:
        assert pairing.game_id is not None
        await resign_game(world, c, pairing.game_id)
    await asyncio.gather(*(handler.tick_job(CallbackContext(app))
                           for app in (world.app, second_app, world.app, second_app)))
    await world.idle()
    record = await current(world, c)
    assert record.announced == 2 and all(p.game_id for p in record.rounds[-1].pairings)
    assert len(texts(world, c, "Round 2")) == 1
    boards = {m.message_id for p in record.rounds[-1].pairings
              for m in world.server.messages(c.chat)
              if m.by_bot and any(p.game_id in (d or "") for row in m.buttons or []
                                  for _, d in row)}
    assert len(boards) == 2   # one board per game, none posted twice


async def test_two_workers_processing_at_once_post_each_thing_once(
        world: World, clock: Clock, second_app: Any) -> None:
    """A button's ``process`` and the wake-up's at the same moment (no lease
    between them): the round's pairings, each board and the end once, and no
    copy posted and then retired."""
    c = club(world, 4)
    record = await tournament(world, c, "rr long")
    # three rounds, then a play-off when the points tie: who wins each game
    # follows from its dice, and either worker may deal a game
    while record.status is Status.ACTIVE:
        number = record.rounds[-1].number
        assert number <= 6, record
        for pairing in record.rounds[-1].pairings:
            if pairing.second is not None:
                assert pairing.game_id is not None
                await resign_game(world, c, pairing.game_id)
        deleted = world.server.request_count("deleteMessage")
        await asyncio.gather(*(handler.process(CallbackContext(app), c.chat.id,
                                               record.tournament_id)
                               for app in (world.app, second_app, second_app, world.app)))
        await world.idle()
        record = await current(world, c)
        if record.status is Status.ACTIVE:
            assert len(texts(world, c, f"round {number + 1}")
                       + texts(world, c, f"Round {number + 1}")) == 1
            assert all(p.game_id for p in record.rounds[-1].pairings if p.second is not None)
            assert world.server.request_count("deleteMessage") == deleted
            for pairing in record.rounds[-1].pairings:
                if pairing.second is None:
                    continue
                assert sum(f":{pairing.game_id}:" in str(r.params)
                           for r in world.server.requests()
                           if r.method in ("sendMessage", "sendPhoto")) == 1
    assert record.status is Status.FINISHED and record.closed
    assert len(texts(world, c, "Final standings")) == 1


@pytest.fixture
async def second_app(world: World) -> AsyncIterator[Any]:
    """Another bot process on the same Redis and server, not polling (its
    tournament job run by hand)."""
    async with other_worker(world, 5) as app:
        yield app


@contextlib.asynccontextmanager
async def bot_process(server: BotApiServer, store: Store, seed: int) -> AsyncIterator[World]:
    """The bot polling ``server`` until the block ends (a process that stops;
    the server and Redis stay), its tournament job off (the test runs it)."""
    async with running_world(store, server=server, keep_server=True,
                             dealer=Dealer.for_tests(seed)) as bot:
        for job in bot.app.job_queue.get_jobs_by_name(handler.JOB_NAME):
            job.enabled = False
        yield bot


async def test_a_restart_mid_round_loses_nothing(store: Store, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(clocks.TEST_CLOCK_ENV, str(tmp_path / "offset"))
    server = BotApiServer().start()
    try:
        async with bot_process(server, store, 1) as first:
            c = club(first, 4)
            record = await tournament(first, c, "rr long entry=5")
            game = record.rounds[0].pairings[0].game_id
            assert game is not None
            await resign_game(first, c, game)
        async with bot_process(server, store, 2) as second:   # the bot was restarted
            record = await current(second, c)
            assert len(record.rounds) == 1 and record.rounds[0].pairings[0].result is not None
            await play_round(second, c)
            for _ in range(2):
                await play_round(second, c)
            record = await current(second, c)
            assert record.status is Status.FINISHED
            assert await ledger_nets(second, c) == prizes.nets(record)
            assert len(texts(second, c, "Round 2")) == len(texts(second, c, "Round 3")) == 1
    finally:
        server.stop()


async def test_a_chat_may_leave_tournaments_and_seasons_to_its_admins(world: World) -> None:
    admin, member = world.server.add_user("Admin"), world.server.add_user("Member")
    chat = world.server.add_group("Club", members=[admin, member], admins=[admin])
    sent = await world.send(chat, admin, "/settings")
    settings = await world.reply(chat, sent, "Settings")
    await world.tap(chat, admin, settings, text="Tournaments: admins")
    sent = await world.send(chat, member, "/tournament")
    assert "Only chat admins" in (await world.reply(chat, sent)).text
    sent = await world.send(chat, admin, "/tournament swiss")
    assert "Tournament" in (await world.reply(chat, sent, "Tournament")).text
    sent = await world.send(chat, member, "/withdraw")   # a lobby: Leave, not /withdraw
    assert "not being played" in (await world.reply(chat, sent)).text
    sent = await world.send(chat, member, "/tournament ko swiss")
    assert "Only chat admins" in (await world.reply(chat, sent, "admins")).text
    mine = world.server.private_chat(admin)
    private = await world.send(mine, admin, "/tournament")
    assert "groups" in (await world.reply(mine, private)).text
    for command in ("/standings", "/withdraw", "/league", "/league start Cup"):
        private = await world.send(mine, admin, command)
        assert "kept in groups" in (await world.reply(mine, private)).text, command
    sent = await world.send(chat, member, "/league start Cup")
    assert "Only chat admins start and end" in (await world.reply(chat, sent, "seasons")).text
    sent = await world.send(chat, admin, "/league start Cup")
    assert "has started" in (await world.reply(chat, sent, "started")).text
    sent = await world.send(chat, member, "/league end")
    assert "Only chat admins start and end" in (await world.reply(chat, sent, "seasons")).text
    sent = await world.send(chat, member, "/league")   # anyone may look
    assert "League: Cup" in (await world.reply(chat, sent, "League")).text


async def test_a_bad_tournament_word_is_answered_and_changes_nothing(world: World) -> None:
    c = club(world, 2)
    for words, says in [("swiss ko", "Pick one format"), ("rounds=3", "Swiss"),
                        ("split=10/90", "split"), ("long bot", "between people"),
                        ("long jacoby=on", "backgammon cube rules")]:
        sent = await world.send(c.chat, c.players[0], f"/tournament {words}")
        assert says in (await world.reply(c.chat, sent)).text, words
    assert await _all(world.store, c.chat.id) == []


async def test_a_start_time_starts_it_and_players_hear_in_private(world: World,
                                                                  clock: Clock) -> None:
    c = club(world, 3)
    for fan in c.players:   # the bot may write to them
        mine = world.server.private_chat(fan)
        await world.reply(mine, await world.send(mine, fan, "/start"))
    sent = await world.send(c.chat, c.players[0], "/tournament swiss start=1h")
    lobby = await world.reply(c.chat, sent, "Tournament")
    assert "starts by itself" in lobby.text
    for player in c.players:
        await world.tap(c.chat, player, lobby, text="✋ Join")
    await tick(world)
    assert (await current(world, c)).status is Status.LOBBY   # not yet
    clock.advance(3600 + 60)
    await tick(world)
    record = await current(world, c)
    assert record.status is Status.ACTIVE and record.announced == 1
    assert "It has started" in world.server.message(c.chat.id, lobby.message_id).text
    told = [[m.text or "" for m in world.server.messages(world.server.private_chat(fan))
             if m.by_bot and "Round 1" in (m.text or "")] for fan in c.players]
    assert sorted(len(each) for each in told) == [1, 1, 1], told   # each once
    assert sorted("bye" in each[0] for each in told) == [False, False, True], told


async def test_a_start_time_with_too_few_players_cancels_it(world: World, clock: Clock) -> None:
    c = club(world, 3)
    sent = await world.send(c.chat, c.players[0], "/tournament rr start=2h entry=50")
    lobby = await world.reply(c.chat, sent, "Tournament")
    await world.tap(c.chat, c.players[1], lobby, text="✋ Join")
    clock.advance(2 * 3600 + 60)
    await tick(world)
    record = await current(world, c)
    assert record.status is Status.CANCELLED and record.closed
    assert "cancelled" in world.server.message(c.chat.id, lobby.message_id).text
    assert await world.store.ledger.ledger(c.chat.id) == {}
    await tick(world)   # nothing is left to do
    assert await world.store.tournament.claim(clocks.now() + 10**6) == []


async def test_standings_are_text_where_the_boards_are_text(world: World) -> None:
    c = club(world, 3)
    admin = world.server.add_user("Admin")
    chat = world.server.add_group("Texts", members=[*c.players, admin], admins=[admin])
    sent = await world.send(chat, admin, "/settings")
    await world.tap(chat, admin, await world.reply(chat, sent, "Settings"), text="🔤 Text")
    other = Club(chat, c.players)
    await tournament(world, other, "rr")
    sent = await world.send(chat, c.players[1], "/standings")
    table = await world.reply(chat, sent, "Tournament")
    assert table.photo is None and "<pre>" not in (table.text or "") and "Pts" in (table.text or "")
    assert button(world, table, ButtonAction.STANDINGS) is not None


async def test_withdraw_oneself_or_by_an_admin(world: World) -> None:
    admin = world.server.add_user("Admin")
    c = club(world, 4)
    chat = world.server.add_group("Cup", members=[*c.players, admin], admins=[admin])
    cup = Club(chat, c.players)
    await tournament(world, cup, "swiss")
    said = await world.send(chat, c.players[1], "hello")
    sent = await world.send(chat, c.players[2], "/withdraw", reply_to=said)
    assert "Only the player or a chat admin" in (await world.reply(chat, sent)).text
    sent = await world.send(chat, admin, "/withdraw", reply_to=said)
    assert "P2 withdrew" in await withdrawn(world, chat, sent, admin)
    sent = await world.send(chat, c.players[3], "/withdraw")
    assert "P4 withdrew" in await withdrawn(world, chat, sent, c.players[3])
    record = await current(world, cup)
    assert {e.user_id for e in record.entrants if e.withdrawn} == {c.players[1].id,
                                                                   c.players[3].id}
    sent = await world.send(chat, c.players[3], "/withdraw")
    assert "withdrawn from this tournament already" in (await world.reply(chat, sent)).text


def league_rows(text: str) -> list[str]:
    """The lines of a league table's players (``" 1 P2   1   1 ..."``)."""
    return [line for line in text.splitlines() if re.match(r" ?[0-9]+ P[0-9]", line)]


async def test_a_named_league_season_from_its_start_to_its_final_table(world: World) -> None:
    c = club(world, 3)
    sent = await world.send(c.chat, c.players[1], "/league start Winter cup")
    assert "Winter cup has started" in (await world.reply(c.chat, sent, "started")).text
    sent = await world.send(c.chat, c.players[2], "/league start Spring")
    assert "Winter cup is running" in (await world.reply(c.chat, sent, "running")).text
    for words in ("start", "start 2026-11"):
        sent = await world.send(c.chat, c.players[2], f"/league {words}")
        assert "needs a name" in (await world.reply(c.chat, sent, "name")).text
    await tournament(world, c, "rr long")
    await play_round(world, c)   # one game (and a bye)
    sent = await world.send(c.chat, c.players[0], "/league")
    running = (await world.reply(c.chat, sent, "League")).text or ""
    assert "League: Winter cup" in running and "Running since" in running
    rows = [line.split() for line in league_rows(running)]
    assert len(rows) == 2 and sorted(int(row[2]) for row in rows) == [-1, 1], running
    sent = await world.send(c.chat, c.players[1], "/league end")   # its starter
    final = (await world.reply(c.chat, sent, "final table")).text or ""
    assert final.replace("Running since", "") == final and "League: Winter cup" in final
    assert league_rows(final) == league_rows(running)
    sent = await world.send(c.chat, c.players[0], "/league end")
    assert "No named season is running" in (await world.reply(c.chat, sent, "running")).text
    sent = await world.send(c.chat, c.players[0], "/league")   # the month again
    month = (await world.reply(c.chat, sent, "League")).text or ""
    assert "League: Winter cup" not in month and len(league_rows(month)) == 2
    sent = await world.send(c.chat, c.players[0], "/league winter CUP")
    assert "final table" in (await world.reply(c.chat, sent, "League")).text
    sent = await world.send(c.chat, c.players[0], "/league Summer <b>")
    refused = (await world.reply(c.chat, sent, "No season")).text or ""
    assert "called Summer <b>" in refused and "kept: Winter cup" in refused


async def test_an_admin_who_does_not_play_cancels_a_running_tournament(world: World,
                                                                      clock: Clock) -> None:
    """``/tournament cancel``: refused to a player (an admin who plays too)
    and to a member; an outside admin is asked once more, and the button
    cancels it: nothing booked, the games not started closed, the game being
    played goes on as an ordinary game, the prompt and the lobby say so."""
    admin, referee = world.server.add_user("Admin"), world.server.add_user("Referee")
    c = club(world, 3)
    chat = world.server.add_group("Cup", members=[*c.players, admin, referee],
                                  admins=[admin, referee])
    cup = Club(chat, [admin, *c.players])
    sent = await world.send(chat, admin, "/tournament rr long entry=10")
    lobby = await world.reply(chat, sent, "Tournament")
    record = await tournament_from(world, cup, lobby)
    playing = record.rounds[-1].pairings[0].game_id
    assert playing is not None
    start = button(world, board_of(world, cup, playing), ButtonAction.START)
    game = await world.store.games.load_game(chat.id, playing)
    assert start is not None and game is not None
    await world.tap(chat, cup.user(game.players[0].user_id), board_of(world, cup, playing), start)
    for who, says in [(c.players[1], "Only an admin who does not play"),
                      (admin, "Only an admin who does not play")]:
        sent = await world.send(chat, who, "/tournament cancel")
        assert says in (await world.reply(chat, sent)).text
    sent = await world.send(chat, referee, "/tournament cancel")
    prompt = await world.reply(chat, sent, "Cancel this tournament")
    sent = await world.send(chat, referee, "/tournament cancel")   # asked twice
    second = await world.reply(chat, sent, "Cancel this tournament")
    data = button(world, prompt, ButtonAction.END)
    assert data is not None and (await current(world, cup)).status is Status.ACTIVE
    answer = await world.tap(chat, c.players[2], prompt, data)   # a player taps it: refused
    assert answer.show_alert and "Only an admin" in (answer.text or "")
    assert (await current(world, cup)).status is Status.ACTIVE
    answer = await world.tap(chat, referee, prompt, data)
    assert not answer.show_alert, answer
    record = await current(world, cup)
    assert record.status is Status.CANCELLED and record.closed
    assert await world.store.ledger.ledger(chat.id) == {}
    said = world.server.message(chat.id, prompt.message_id)
    assert "was cancelled" in said.text and not world.buttons(said)
    assert "cancelled" in world.server.message(chat.id, lobby.message_id).text
    for pairing in record.rounds[-1].pairings:
        assert pairing.game_id is not None
        game = await world.store.games.load_game(chat.id, pairing.game_id)
        assert game is not None
        assert game.status is (Status.ACTIVE if pairing.game_id == playing else Status.CANCELLED)
    answer = await world.tap(chat, referee, second, data)   # the second: over already
    assert answer.show_alert and "not being played" in (answer.text or "")
    said = world.server.message(chat.id, second.message_id)
    assert "was cancelled" in said.text and not world.buttons(said)
    sent = await world.send(chat, referee, "/tournament cancel")
    assert "no tournament" in (await world.reply(chat, sent)).text


async def test_a_group_that_becomes_a_supergroup_plays_its_tournament_on(
        world: World, clock: Clock) -> None:
    """A round robin whose group is upgraded between two rounds: the record,
    its match map and its wake-up move; the next rounds are posted and played
    in the supergroup, their ends find the tournament there, and the prizes
    are booked in the supergroup's ledger."""
    c = club(world, 4)
    record = await tournament(world, c, "rr long entry=10")
    for pairing in record.rounds[-1].pairings:   # round 1, played in the group
        assert pairing.game_id is not None
        await resign_game(world, c, pairing.game_id)
    supergroup = world.server.migrate_chat(c.chat)
    await world.idle()
    moved = Club(supergroup, c.players)
    [there] = await _all(world.store, supergroup.id)
    assert there.tournament_id == record.tournament_id and await _all(world.store, c.chat.id) == []
    # a worker that had it claimed under the old id sets its wake-up there again
    due = world.store.keys.tournaments_due
    await world.store.redis.zadd(due, {record.ref: 0})
    await tick(world)
    assert await world.store.redis.zscore(due, record.ref) is None   # dropped, not kept
    assert len(texts(world, moved, "Round 2")) == 1
    for _ in range(2):
        await play_round(world, moved)
    record = await current(world, moved)
    assert record.status is Status.FINISHED and record.closed
    assert [len(r.pairings) for r in record.rounds] == [2, 2, 2]
    assert await ledger_nets(world, moved) == prizes.nets(record)
    assert len(texts(world, moved, "Final standings")) == 1


async def test_a_change_while_the_job_runs_keeps_its_sooner_wake_up(
        world: World, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    """The job sets the next wake-up from the record it handled; a change
    meanwhile (here a withdrawal that ends the round: the next must be
    posted now) woke the tournament at once, and the job's wake-up (the
    round's deadline) replaced it: the next round waited for that deadline."""
    c = club(world, 4)
    record = await tournament(world, c, "rr long")
    first, second = record.rounds[0].pairings
    assert first.game_id is not None
    await resign_game(world, c, first.game_id)
    store = world.store
    reschedule = store.tournament.reschedule

    async def raced(handled: TournamentRecord, when: float | None) -> None:
        await service.commit_tournament(store, c.chat.id, handled.tournament_id,
                                        lambda r, now: rules.withdraw(r, second.first, now))
        await reschedule(handled, when)

    monkeypatch.setattr(store.tournament, "reschedule", raced)
    await handler.process(CallbackContext(world.app), c.chat.id, record.tournament_id)
    monkeypatch.undo()
    assert len((await current(world, c)).rounds) == 2
    assert await store.tournament.claim(clocks.now() + 1) == [(c.chat.id, record.tournament_id)]
