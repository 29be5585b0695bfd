"""Stakes, ledger, matches and ratings: what every kind of result books, booked once,
matches with Crawford, and the commands /stake /ledger /history through the real
handlers (/settle: test_settle.py; /stats, /top: test_ratings.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from bot.present.board import board_message
from bot.rules.aftergame import after_game
from bot.rules.clock import claim_timeout
from bot.rules.dice import Dealer
from bot.rules.ledger import Outcome, booking, updated_stats
from bot.rules.lobby import apply_lobby, start_game
from bot.rules.matchstate import table_of
from bot.rules.options import OptionError, parse_new_args
from bot.rules.play import apply_game
from bot.rules.seats import waiting_user
from bot.service.saving import save
from bot.store import Store
from bot.vocab.callbacks import ButtonAction, Callback, Kind
from bot.vocab.i18n import translator
from bot.vocab.records import GameRecord, Player, Status, TableOptions
from bot.vocab.refusals import MATCH_IN_PROGRESS, NOT_PLAYING, PROPOSED, Refusal
from engine.game import Game, Phase
from engine.position import Side, Variant
from engine.scoring import EndReason, GameResult, ResultKind, resign_kinds
from tests.bot.conftest import World
from tests.bot.edge.handlers.club import book, club_of_three, command
from tests.conftest import chat_game

CHAT, ANN, BOB = -100777, 101, 202
PLAYERS = (Player(user_id=ANN, name="Ann", side=Side.WHITE),
           Player(user_id=BOB, name="Bob", side=Side.BLACK))

# ---------------------------------------------------------------- every result books


BOOKED = [  # (variant, kind, cube, points, amount at a stake of 7): the rules, written out
    (Variant.LONG, ResultKind.OIN, 1, 1, 7), (Variant.LONG, ResultKind.OIN, 4, 4, 28),
    (Variant.LONG, ResultKind.MARS, 1, 2, 14), (Variant.LONG, ResultKind.MARS, 4, 8, 56),
    (Variant.LONG, ResultKind.KOKS, 1, 3, 21), (Variant.LONG, ResultKind.KOKS, 4, 12, 84),
    (Variant.BACKGAMMON, ResultKind.SINGLE, 1, 1, 7),
    (Variant.BACKGAMMON, ResultKind.SINGLE, 4, 4, 28),
    (Variant.BACKGAMMON, ResultKind.GAMMON, 1, 2, 14),
    (Variant.BACKGAMMON, ResultKind.GAMMON, 4, 8, 56),
    (Variant.BACKGAMMON, ResultKind.BACKGAMMON, 1, 3, 21),
    (Variant.BACKGAMMON, ResultKind.BACKGAMMON, 4, 12, 84),
]
REASONS = [EndReason.BORNE_OFF, EndReason.RESIGNED]


def test_the_table_covers_every_kind() -> None:
    kinds = {*resign_kinds(Variant.LONG, koks=True), *resign_kinds(Variant.BACKGAMMON)}
    assert {kind for _, kind, _, _, _ in BOOKED} == kinds


@pytest.mark.parametrize(("variant", "kind", "cube", "points", "amount"), BOOKED)
@pytest.mark.parametrize("reason", REASONS)
def test_every_kind_books_points_times_stake(variant: Variant, kind: ResultKind, cube: int,
                                             points: int, amount: int,
                                             reason: EndReason) -> None:
    result = GameResult(Side.BLACK, kind, reason, cube)
    entry, ledger = booking(Outcome("g1", variant, PLAYERS, result, stake=7))
    assert ledger == {(BOB, ANN): amount}
    assert (entry.result, entry.points, entry.stake, entry.winner, entry.reason) == (
        kind.value, points, amount, Side.BLACK, reason.value)


@pytest.mark.parametrize("variant", [Variant.LONG, Variant.BACKGAMMON])
def test_a_passed_double_books_the_cube_it_was_passed_at(variant: Variant) -> None:
    kind = ResultKind.OIN if variant is Variant.LONG else ResultKind.SINGLE
    result = GameResult(Side.WHITE, kind, EndReason.DOUBLE_PASSED, cube=8)
    entry, ledger = booking(Outcome("g1", variant, PLAYERS, result, stake=3))
    assert ledger == {(ANN, BOB): 24} and entry.reason == "double_passed"


def test_jacoby_gammon_books_one_point_but_counts_as_a_gammon() -> None:
    result = GameResult(Side.WHITE, ResultKind.GAMMON, EndReason.BORNE_OFF, 1, multiplier=1)
    outcome = Outcome("g1", Variant.BACKGAMMON, PLAYERS, result, stake=10)
    assert booking(outcome)[1] == {(ANN, BOB): 10}
    ann, bob = updated_stats(outcome, {})
    assert (ann.gammons_won, bob.gammons_lost, ann.triples_won) == (1, 1, 0)


def test_no_stake_and_cancelled_games_book_nothing() -> None:
    result = GameResult(Side.WHITE, ResultKind.MARS, EndReason.BORNE_OFF)
    entry, ledger = booking(Outcome("g1", Variant.LONG, PLAYERS, result, stake=0))
    assert ledger == {} and entry.points == 2 and entry.stake == 0
    entry, ledger = booking(Outcome("g2", Variant.LONG, PLAYERS, None, stake=10))
    assert ledger == {} and entry.result == "cancelled" and entry.winner is None
    assert updated_stats(Outcome("g2", Variant.LONG, PLAYERS, None, stake=10), {}) == []


def test_streaks_and_big_wins_accumulate() -> None:
    stats: dict[int, object] = {}
    for winner, kind in [(Side.WHITE, ResultKind.MARS), (Side.WHITE, ResultKind.KOKS),
                         (Side.BLACK, ResultKind.OIN)]:
        result = GameResult(winner, kind, EndReason.BORNE_OFF)
        new = updated_stats(Outcome("g", Variant.LONG, PLAYERS, result), stats)  # type: ignore[arg-type]
        stats = {s.user_id: s for s in new}
    ann, bob = stats[ANN], stats[BOB]
    assert (ann.games, ann.wins, ann.gammons_won, ann.triples_won, ann.streak) == (  # type: ignore[attr-defined]
        3, 2, 2, 1, -1)
    assert (bob.wins, bob.gammons_lost, bob.triples_lost, bob.streak) == (1, 2, 1, 1)  # type: ignore[attr-defined]
    assert ann.experience == bob.experience == 3  # type: ignore[attr-defined]


# ---------------------------------------------------------------- through the service and store


def _lobby(variant: Variant, **options: object) -> GameRecord:
    return GameRecord(chat_id=CHAT, variant=variant, players=PLAYERS,
                      options=TableOptions(koks=False, **options))  # type: ignore[arg-type]


async def _started(store: Store, record: GameRecord, rng: Dealer) -> GameRecord:
    return await store.games.save(start_game(record, rng), 0)  # each game under its own key


def _uid(side: Side) -> int:
    return ANN if side is Side.WHITE else BOB


async def _tap(store: Store, record: GameRecord, user: int, action: ButtonAction, *args: int,
               rng: Dealer) -> GameRecord:
    data = Callback.game(record.game_id, record.version, action, *args)
    return await save(store, record, apply_game(record, user, data))


async def _play_until(store: Store, record: GameRecord, rng: Dealer,
                      ready: Callable[[Game], bool]) -> GameRecord:
    """Roll, play the first legal step, confirm - until ``ready(game)``."""
    while not ready(game := table_of(record).game):
        mover = game.to_act
        assert mover is not None
        if game.phase is Phase.ROLL:
            record = await _tap(store, record, _uid(mover), ButtonAction.ROLL, rng=rng)
        elif game.turn is not None and game.turn.is_complete:
            record = await _tap(store, record, _uid(mover), ButtonAction.CONFIRM, rng=rng)
        else:
            step = sorted(game.legal_steps, key=repr)[0]
            record = await _tap(store, record, _uid(mover), ButtonAction.STEP, step.source,
                                step.target, step.die, rng=rng)
    return record


async def _resign(store: Store, record: GameRecord, level: int, rng: Dealer
                  ) -> GameRecord:
    """The player to act resigns ``level`` (1 oin/single, 2 mars/gammon...); the other accepts."""
    game = table_of(record).game
    resigner = game.to_act
    assert resigner is not None
    # a staked game asks once more: Resign only redraws the keyboard, Yes resigns
    sure = ButtonAction.RESIGN_SURE if record.options.stake_per_point else ButtonAction.RESIGN
    record = await _tap(store, record, _uid(resigner), sure, level, rng=rng)
    return await _tap(store, record, _uid(resigner.opponent), ButtonAction.ACCEPT, rng=rng)


async def test_a_resigned_mars_books_and_rates_once(store: Store) -> None:
    rng = Dealer.for_tests(1)
    record = await _started(store, _lobby(Variant.LONG, stake_per_point=10), rng)
    done = await _resign(store, record, 2, rng)
    result = table_of(done).game.result
    assert done.status is Status.FINISHED and result is not None
    winner = _uid(result.winner)
    loser = _uid(result.winner.opponent)
    assert await store.ledger.balance(CHAT, winner, loser) == 20
    (entry,) = await store.ledger.history(CHAT)
    assert (entry.result, entry.points, entry.stake, entry.reason) == ("mars", 2, 20, "resigned")
    stats = {s.user_id: s for s in await store.ledger.player_stats(CHAT)}
    assert stats[winner].rating == 1510.0 and stats[loser].rating == 1490.0
    assert stats[winner].gammons_won == 1 and stats[loser].gammons_lost == 1
    # the end message says what was booked, in the phrasing of a transfer
    names = {p.user_id: p.name for p in PLAYERS}
    text = board_message(translator("en"), done).text
    assert f"Booked: {names[loser]} pays {names[winner]} 20." in text, text
    ru = board_message(translator("ru"), done).text
    assert f"Записано: {names[loser]} платит 20, получает {names[winner]}." in ru, ru


async def test_a_duplicated_final_update_books_nothing_more(store: Store) -> None:
    rng = Dealer.for_tests(2)
    record = await _started(store, _lobby(Variant.LONG, stake_per_point=5), rng)
    resigner = table_of(record).game.to_act
    assert resigner is not None
    offered = await _tap(store, record, _uid(resigner), ButtonAction.RESIGN_SURE, 1, rng=rng)
    accept = Callback.game(offered.game_id, offered.version, ButtonAction.ACCEPT)
    final = apply_game(offered, _uid(resigner.opponent), accept)
    # the same final tap delivered three times at once, and once more later
    # (the store recognises the game id: each gets the stored end back, one books)
    results = await asyncio.gather(*[save(store, offered, final) for _ in range(3)])
    results.append(await save(store, offered, final))
    assert {r.version for r in results} == {offered.version + 1}
    assert all(r.status is Status.FINISHED for r in results)
    assert await store.ledger.balance(CHAT, _uid(resigner.opponent), _uid(resigner)) == 5
    assert len(await store.ledger.history(CHAT)) == 1
    assert [s.games for s in await store.ledger.player_stats(CHAT)] == [1, 1]


async def test_a_passed_double_books_the_cube(store: Store) -> None:
    rng = Dealer.for_tests(3)
    record = await _started(store, _lobby(Variant.BACKGAMMON, stake_per_point=4), rng)
    record = await _play_until(store, record, rng, lambda g: g.phase is Phase.ROLL and (
        g.cube is not None and g.to_act is not None and g.cube.may_double(g.to_act)))
    side = table_of(record).game.to_act
    assert side is not None
    # a double in a staked game asks to confirm: Double alone changes nothing
    data = Callback.game(record.game_id, record.version, ButtonAction.DOUBLE)
    assert apply_game(record, _uid(side), data) is record
    record = await _tap(store, record, _uid(side), ButtonAction.DOUBLE_SURE, rng=rng)
    assert table_of(record).game.phase is Phase.DOUBLE
    record = await _tap(store, record, _uid(side.opponent), ButtonAction.PASS_SURE, rng=rng)
    assert await store.ledger.balance(CHAT, _uid(side), _uid(side.opponent)) == 4  # cube 1 x 4
    (entry,) = await store.ledger.history(CHAT)
    assert (entry.reason, entry.points, entry.stake) == ("double_passed", 1, 4)


async def _next(store: Store, record: GameRecord, rng: Dealer) -> GameRecord:
    """Ann offers the next game (or a rematch) and Bob accepts: it takes both."""
    offer = Callback.game(record.game_id, record.version, ButtonAction.REMATCH)
    offered = await save(store, record, after_game(record, ANN, offer, rng))
    assert (offered.game_id, offered.status, offered.rematch_by) == (
        record.game_id, Status.FINISHED, ANN)  # one tap starts nothing
    accept = Callback.game(offered.game_id, offered.version, ButtonAction.ACCEPT)
    return await save(store, offered, after_game(offered, BOB, accept, rng))


async def test_a_backgammon_match_with_crawford_books_its_stake_once(store: Store) -> None:
    rng = Dealer.for_tests(4)
    record = await _started(store, _lobby(Variant.BACKGAMMON, stake_per_point=10,
                                          match_length=3), rng)
    record = await _resign(store, record, 2, rng)  # a gammon: 2-0, one away
    leader = table_of(record).game.result.winner  # type: ignore[union-attr]
    assert await store.ledger.ledger(CHAT) == {}  # games of a match only score
    record = await _next(store, record, rng)
    table = table_of(record)
    assert table.game.crawford and table.crawford_done and table.score[leader] == 2
    assert table.game.cube is not None and not table.game.cube.may_double(leader.opponent)
    # the trailer wins the Crawford game: 2-1, and the next game is post-Crawford
    record = await _play_until(store, record, rng, lambda g: g.to_act is leader)
    record = await _resign(store, record, 1, rng)
    assert table_of(record).score[leader.opponent] == 1
    assert await store.ledger.ledger(CHAT) == {}
    record = await _next(store, record, rng)
    assert not table_of(record).game.crawford and table_of(record).crawford_done
    # the leader wins the match
    record = await _play_until(store, record, rng, lambda g: g.to_act is leader.opponent)
    record = await _resign(store, record, 1, rng)
    assert table_of(record).match_over
    assert await store.ledger.balance(CHAT, _uid(leader), _uid(leader.opponent)) == 30  # 3 x 10
    history = await store.ledger.history(CHAT)
    assert [e.stake for e in history] == [30, 0, 0]
    assert history[0].score is not None and max(history[0].score) >= 3
    stats = {s.user_id: s for s in await store.ledger.player_stats(CHAT)}
    # rated once, as a 3-point match: 4 * 5 * sqrt 3 * 0.5
    assert stats[_uid(leader)].rating == pytest.approx(1500 + 10 * 3 ** 0.5)
    assert stats[_uid(leader)].experience == 3 and stats[_uid(leader)].matches == 1
    assert stats[_uid(leader)].games == 3


async def test_long_nardy_match_second_player_starts_the_next_game(store: Store) -> None:
    rng = Dealer.for_tests(5)
    record = await _started(store, _lobby(Variant.LONG, stake_per_point=2, match_length=3), rng)
    first = table_of(record).game.opening.starter  # type: ignore[union-attr]
    record = await _resign(store, record, 1, rng)
    record = await _next(store, record, rng)
    assert table_of(record).game.to_act is first.opponent


# ---------------------------------------------------------------- every game starts on two taps


EVE = 303


async def _finished(store: Store, rng: Dealer, **options: object) -> GameRecord:
    record = await _started(store, _lobby(Variant.LONG, **options), rng)
    return await _resign(store, record, 1, rng)


async def _path(store: Store, path: str, rng: Dealer) -> tuple[GameRecord, Callback]:
    """A record one tap away from a game (so the tests say), and that tap's button."""
    if path == "lobby":
        lobby = GameRecord(chat_id=CHAT, variant=Variant.LONG, created_by=EVE,
                           options=TableOptions(stake_per_point=1000, time_control=3600))
        record = await store.games.save(lobby, 0)
        return record, Callback.lobby(record.game_id, record.version, ButtonAction.JOIN)
    record = await _finished(store, rng, stake_per_point=1000, time_control=3600,
                             match_length=3 if path == "next game" else 1)
    assert not (path == "next game" and table_of(record).match_over)
    return record, Callback.game(record.game_id, record.version, ButtonAction.REMATCH)


def _press(record: GameRecord, user: int, data: Callback, rng: Dealer) -> GameRecord:
    if data.kind is Kind.LOBBY:
        return apply_lobby(record, user, "Ann" if user == ANN else "Bob", data, rng)
    return after_game(record, user, data, rng)


@pytest.mark.parametrize("path", ["lobby", "rematch", "next game"])
async def test_no_game_starts_on_one_players_taps(store: Store, path: str) -> None:
    """Every way to a new game between two players takes a tap of each (the
    invitation link: tests/bot/edge/handlers/test_invite.py); a staked, timed game never
    starts, and no clock runs, on one player's taps."""
    rng = Dealer.for_tests(6)
    record, data = await _path(store, path, rng)
    first = await save(store, record, _press(record, ANN, data, rng))
    assert first.game_id == record.game_id and first.status is not Status.ACTIVE
    assert first.deadline is None
    # tapping again, or the intruder tapping, starts nothing
    again = Callback(data.kind, data.id, first.version, data.action)
    with pytest.raises(Refusal):
        _press(first, ANN, again, rng)
    if path != "lobby":  # in a lobby the intruder may join: he is then the second player
        accept = Callback.game(first.game_id, first.version, ButtonAction.ACCEPT)
        for user, refusal in ((ANN, PROPOSED), (EVE, NOT_PLAYING)):
            with pytest.raises(Refusal) as refused:
                after_game(first, user, accept, rng)
            assert refused.value.message == refusal
        data = accept
    second = await save(store, first, _press(first, BOB, Callback(
        data.kind, data.id, first.version, data.action), rng))
    assert second.status is Status.ACTIVE and second.deadline is not None


async def test_an_offered_rematch_books_nothing_and_cannot_be_claimed(store: Store) -> None:
    """The issue's case: stake 1000, an hour a move; Ann resigns, Bob taps
    Rematch and waits two hours: no game, no clock, nothing to claim."""
    rng = Dealer.for_tests(7)
    record = await _finished(store, rng, stake_per_point=1000, time_control=3600)
    ledger = await store.ledger.ledger(CHAT)
    result = table_of(record).game.result
    assert result is not None
    tapper = _uid(result.winner)
    offer = Callback.game(record.game_id, record.version, ButtonAction.REMATCH)
    offered = await save(store, record, after_game(record, tapper, offer, rng))
    assert offered.status is Status.FINISHED and offered.deadline is None
    assert waiting_user(offered) == (ANN if tapper == BOB else BOB)
    with pytest.raises(Refusal):
        claim_timeout(offered, tapper, offered.updated_at + 7200)
    assert await store.ledger.ledger(CHAT) == ledger
    assert len(await store.ledger.history(CHAT)) == 1


async def test_new_game_between_games_of_a_match_is_refused_to_everyone(store: Store) -> None:
    rng = Dealer.for_tests(8)
    record = await _finished(store, rng, stake_per_point=10, match_length=3)
    new = Callback.game(record.game_id, record.version, ButtonAction.NEW)
    for user in (EVE, ANN, BOB):
        with pytest.raises(Refusal) as refused:
            after_game(record, user, new, rng)
        assert refused.value.message == MATCH_IN_PROGRESS
    with pytest.raises(Refusal) as refused:
        after_game(record, EVE, Callback.game(record.game_id, record.version, ButtonAction.REMATCH),
                   rng)
    assert refused.value.message == NOT_PLAYING


# ---------------------------------------------------------------- commands


async def test_stake_shows_sets_and_refuses_bad_values(world: World) -> None:
    club, ann, bob, _eve = club_of_three(world)
    assert "0 per point" in await command(world, club, bob, "/stake")
    for bad in ("-5", "0.5", "ten", "99999999", "1 2"):
        answer = await command(world, club, ann, f"/stake {bad}")
        assert "whole number from 0 to" in answer and "for example /stake 10" in answer
    for tried in ("5", "abc"):  # not an admin: that is the answer, whatever the value
        assert "Only chat admins" in await command(world, club, bob, f"/stake {tried}")
    # in a group an answer replies to the command it answers: whose error it is shows
    sent = await world.send(club, ann, "/stake ten")
    answer = await world.reply(club, sent)
    assert answer.reply_to == sent.message_id
    assert (await world.store.games.chat_settings(club.id)).options.stake_per_point == 0
    assert "15 per point" in await command(world, club, ann, "/stake 15")
    assert (await world.store.games.chat_settings(club.id)).options.stake_per_point == 15
    # /new without stake= plays for the chat's stake; stake= still wins
    sent = await world.send(club, bob, "/new long")
    await world.reply(club, sent)
    lobby = await chat_game(world.store, club.id)
    assert lobby is not None and lobby.options.stake_per_point == 15
    await world.store.games.delete(lobby)
    sent = await world.send(club, bob, "/new long stake=0")
    await world.reply(club, sent)
    lobby = await chat_game(world.store, club.id)
    assert lobby is not None and lobby.options.stake_per_point == 0


async def test_ledger_and_history(world: World) -> None:
    club, ann, bob, eve = club_of_three(world)
    assert "Nobody owes anybody" in await command(world, club, eve, "/ledger")
    assert "No finished games" in await command(world, club, eve, "/history")
    await book(world, club, ann, bob, 30)
    await book(world, club, bob, ann, 10)
    await book(world, club, eve, ann, 4)
    table = await command(world, club, eve, "/ledger")
    assert "Who owes whom" in table
    assert "Bob → Ann 20" in table and "Ann → Eve  4" in table
    history = await command(world, club, eve, "/history 2")
    lines = history.splitlines()
    assert len(lines) == 3  # the title and two games, newest first
    assert "Eve beat Ann: oin (resigned), 1 point; booked 4" in lines[1]
    assert "Long nardy" in lines[1]
    for bad in ("0", "51", "x", "1 2"):
        assert "from 1 to 50" in await command(world, club, eve, f"/history {bad}")


@pytest.mark.parametrize("arg", ["stake=-5", "stake=0.5", "stake=1e3", "stake=", "stake=10000001",
                                 "match=0", "match=26", "match=-3", "match=999999"])
def test_bad_stakes_and_absurd_match_lengths_are_refused(arg: str) -> None:
    with pytest.raises(OptionError, match="whole number"):
        parse_new_args(["long", arg])


async def test_money_commands_are_registered_per_language(world: World) -> None:
    for code in ("", "ru", "lt"):
        names = {c["command"] for c in world.server.commands(language_code=code)}
        assert {"stake", "ledger", "history", "settle", "stats", "top"} <= names


