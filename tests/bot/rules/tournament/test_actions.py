"""A tournament's life through its rules: the lobby, the start and seeding,
results, deadlines, no-shows, withdrawals, cancelling."""

from __future__ import annotations

import pytest

from bot.rules.tournament import actions
from bot.rules.tournament.actions import Setup, TournamentError
from bot.vocab.records import COMPUTER_USER_IDS, Status, TableOptions
from bot.vocab.refusals import Refusal
from bot.vocab.tournament import Decision, Format, Result, Stage, TournamentRecord
from engine.position import Variant

CREATOR = 1
DAY = 86400.0


def lobby(fmt: Format = Format.ROUND_ROBIN, players: int = 0, **setup: object
          ) -> TournamentRecord:
    record = actions.create(-5, None, CREATOR, Variant.BACKGAMMON, TableOptions(match_length=3),
                            Setup(format=fmt, **setup), 100.0)  # type: ignore[arg-type]
    for user in range(1, players + 1):
        record = actions.join(record, user, f"p{user}", 100.0)
    return record


def started(fmt: Format, players: int, **setup: object) -> TournamentRecord:
    """Seeds follow the user ids (ratings fall with them)."""
    ratings = {u: (1900.0 - 10 * u, 60.0) for u in range(1, players + 1)}
    return actions.start(lobby(fmt, players, **setup), CREATOR, ratings, 200.0)


def played(winner: int) -> Result:
    return Result(decision=Decision.PLAYED, winner=winner, points=2)


def refused(message: str, call: object, *args: object, **kwargs: object) -> None:
    with pytest.raises(Refusal) as caught:
        call(*args, **kwargs)  # type: ignore[operator]
    assert caught.value.message == message


def test_the_lobby_takes_players_up_to_its_limit() -> None:
    record = lobby(max_entrants=3, players=3)
    assert [e.user_id for e in record.entrants] == [1, 2, 3]
    refused(actions.FULL, actions.join, record, 4, "d", 101.0)
    refused(actions.JOINED, actions.join, record, 2, "b", 101.0)
    refused(actions.NOT_JOINED, actions.leave, record, 9, 101.0)
    left = actions.leave(record, 2, 101.0)
    assert [e.user_id for e in left.entrants] == [1, 3] and left.updated_at == 101.0
    with pytest.raises(TournamentError):
        actions.join(record, COMPUTER_USER_IDS["strong"], "bot", 101.0)


def test_limits_by_format() -> None:
    assert lobby(Format.ROUND_ROBIN).max_entrants == 16
    assert lobby(Format.SWISS).max_entrants == lobby(Format.KNOCKOUT).max_entrants == 64
    for fmt, bad in [(Format.ROUND_ROBIN, 17), (Format.SWISS, 2), (Format.KNOCKOUT, 65)]:
        with pytest.raises(TournamentError):
            lobby(fmt, max_entrants=bad)
    with pytest.raises(TournamentError):
        actions.create(-5, None, 1, Variant.LONG, TableOptions(computer="easy"), Setup(), 0.0)
    refused(actions.TOO_FEW, actions.start, lobby(Format.SWISS, 2), CREATOR, {}, 0.0)
    assert actions.start(lobby(Format.KNOCKOUT, 2), CREATOR, {}, 0.0).status is Status.ACTIVE


def test_only_the_creator_starts_and_nobody_joins_after() -> None:
    record = lobby(players=4)
    refused(actions.ONLY_CREATOR, actions.start, record, 2, {}, 300.0)
    running = actions.start(record, CREATOR, {}, 300.0)
    refused(actions.CLOSED, actions.join, running, 9, "late", 301.0)
    refused(actions.CLOSED, actions.leave, running, 2, 301.0)
    refused(actions.CLOSED, actions.start, running, CREATOR, {}, 301.0)


def test_seeding_puts_provisional_players_after_settled_ones() -> None:
    """A newcomer with a lucky 1600 (deviation 300) seeds below a settled
    1450 (deviation 60): 1600 - 600 < 1450 - 120.  Unknown players are
    newcomers (1500, 350) and come last, in the order they joined."""
    record = lobby(players=4)
    ratings = {1: (1600.0, 300.0), 2: (1450.0, 60.0), 3: (1700.0, 80.0)}
    running = actions.start(record, CREATOR, ratings, 300.0)
    assert [(e.user_id, e.seed, e.rating, e.deviation) for e in running.entrants] == [
        (3, 1, 1700.0, 80.0), (2, 2, 1450.0, 60.0), (1, 3, 1600.0, 300.0),
        (4, 4, 1500.0, 350.0)]


def test_round_one_and_its_deadline() -> None:
    record = started(Format.ROUND_ROBIN, 4, round_length=2 * DAY)
    first = record.rounds[0]
    assert (first.number, first.started_at, first.deadline) == (1, 200.0, 200.0 + 2 * DAY)
    assert [(p.board, p.first, p.second) for p in first.pairings] == [(1, 1, 4), (2, 2, 3)]
    assert record.status is Status.ACTIVE and record.started_at == 200.0


def test_the_start_time_starts_it_or_cancels_it() -> None:
    record = lobby(Format.SWISS, 2, start_in=3600)
    assert record.start_at == 100.0 + 3600
    with pytest.raises(TournamentError):
        actions.start_due(record, {}, 3000.0)
    assert actions.start_due(record, {}, 3700.0).status is Status.CANCELLED
    full = actions.join(record, 3, "c", 200.0)
    assert actions.start_due(full, {}, 3700.0).status is Status.ACTIVE


def test_results_pair_the_next_round_when_the_last_is_in() -> None:
    record = started(Format.ROUND_ROBIN, 4)
    record = actions.attach_game(record, 1, "gameA", 210.0)
    assert record.rounds[0].pairings[0].game_id == "gameA"
    record = actions.record_result(record, 1, played(1), 220.0)
    assert len(record.rounds) == 1
    record = actions.record_result(record, 2, played(3), 230.0)
    assert len(record.rounds) == 2 and record.rounds[1].started_at == 230.0


def test_bad_results_are_errors_and_change_nothing() -> None:
    record = started(Format.ROUND_ROBIN, 4)
    for board, result in [(3, played(1)), (1, played(2)),
                          (1, Result(decision=Decision.BYE, winner=1)),
                          (1, Result(decision=Decision.DOUBLE_FORFEIT, winner=1)),
                          (1, Result(decision=Decision.PLAYED))]:
        with pytest.raises(TournamentError):
            actions.record_result(record, board, result, 300.0)
    done = actions.record_result(record, 1, played(1), 300.0)
    with pytest.raises(TournamentError):   # a second result for the same game
        actions.record_result(done, 1, played(4), 301.0)
    with pytest.raises(TournamentError):
        actions.attach_game(done, 1, "late", 301.0)


def test_the_deadline_adjudicates_every_open_game() -> None:
    record = started(Format.ROUND_ROBIN, 4, round_length=DAY)
    record = actions.record_result(record, 1, played(4), 300.0)
    deadline = record.rounds[0].deadline
    assert deadline is not None
    no_show = {2: Result(decision=Decision.FORFEIT, winner=3)}
    with pytest.raises(TournamentError):
        actions.adjudicate(record, no_show, deadline - 1)
    with pytest.raises(TournamentError):
        actions.adjudicate(record, {}, deadline)
    with pytest.raises(TournamentError):
        actions.adjudicate(record, {**no_show, 1: played(1)}, deadline)
    after = actions.adjudicate(record, no_show, deadline)
    assert len(after.rounds) == 2
    assert [(e.user_id, e.no_shows) for e in after.entrants if e.no_shows] == [(2, 1)]


def test_a_second_no_show_withdraws_and_forfeits_the_rest_of_a_round_robin() -> None:
    record = started(Format.ROUND_ROBIN, 4)       # 4's games: 1-4, 4-3, 2-4
    record = actions.record_result(record, 1, Result(decision=Decision.FORFEIT, winner=1), 0)
    record = actions.record_result(record, 2, played(2), 0)
    board = next(p.board for p in record.rounds[1].pairings if 4 in p.players)
    record = actions.record_result(record, board, Result(decision=Decision.FORFEIT, winner=3), 0)
    four = next(e for e in record.entrants if e.user_id == 4)
    assert (four.no_shows, four.withdrawn) == (2, 2)
    record = actions.record_result(record, 3 - board, played(1), 0)
    last = next(p for p in record.rounds[2].pairings if 4 in p.players)
    assert last.result == Result(decision=Decision.FORFEIT, winner=2)   # at once


def test_withdrawing_from_a_swiss_forfeits_the_game_and_ends_the_pairings() -> None:
    record = started(Format.SWISS, 6, rounds=3)
    refused(actions.NOT_JOINED, actions.withdraw, record, 99, 300.0)
    record = actions.withdraw(record, 2, 300.0)
    game = next(p for p in record.rounds[0].pairings if 2 in p.players)
    assert game.result == Result(decision=Decision.FORFEIT, winner=game.opponent(2))
    refused(actions.WITHDRAWN, actions.withdraw, record, 2, 301.0)
    for pairing in record.rounds[0].pairings:
        if pairing.result is None:
            record = actions.record_result(record, pairing.board, played(pairing.first), 310.0)
    players = [p for pairing in record.rounds[1].pairings for p in pairing.players]
    assert 2 not in players and sorted(players) == [1, 3, 4, 5, 6]   # one of them has a bye


def test_a_knockout_withdrawal_sends_the_opponent_on() -> None:
    record = started(Format.KNOCKOUT, 4)          # 1 v 4, 2 v 3
    record = actions.record_result(record, 1, played(1), 300.0)
    record = actions.withdraw(record, 1, 310.0)   # between his games: out next round
    record = actions.record_result(record, 2, played(2), 320.0)
    final = record.rounds[1].pairings[0]
    assert final.players == (1, 2)
    assert final.result == Result(decision=Decision.FORFEIT, winner=2)
    assert record.status is Status.FINISHED and record.final[0].user_id == 2


def test_a_knockout_double_forfeit_sends_the_better_seed_on() -> None:
    record = started(Format.KNOCKOUT, 4)
    record = actions.record_result(record, 1, Result(decision=Decision.DOUBLE_FORFEIT), 300.0)
    record = actions.record_result(record, 2, played(3), 310.0)
    assert record.rounds[1].pairings[0].players == (1, 3)


def test_byes_go_to_the_top_seeds_of_a_knockout() -> None:
    record = started(Format.KNOCKOUT, 5)
    assert [(p.players, p.result and p.result.decision) for p in record.rounds[0].pairings] == [
        ((1,), Decision.BYE), ((4, 5), None), ((2,), Decision.BYE), ((3,), Decision.BYE)]


def test_a_consolation_needs_two_first_round_losers() -> None:
    record = started(Format.KNOCKOUT, 5, consolation=True)   # one first-round game
    record = actions.record_result(record, 2, played(4), 300.0)
    assert {p.stage for p in record.rounds[1].pairings} == {Stage.MAIN}


def test_cancelling() -> None:
    record = lobby(players=3)
    refused(actions.CANCEL_LOBBY, actions.cancel, record, 2, False, 300.0)
    assert actions.cancel(record, CREATOR, False, 300.0).status is Status.CANCELLED
    assert actions.cancel(record, 2, True, 300.0).status is Status.CANCELLED
    running = actions.start(record, CREATOR, {}, 300.0)
    refused(actions.CANCEL_RUNNING, actions.cancel, running, CREATOR, False, 301.0)
    cancelled = actions.cancel(running, 7, True, 301.0)
    assert cancelled.status is Status.CANCELLED
    refused(actions.NOT_RUNNING, actions.cancel, cancelled, 7, True, 302.0)
    refused(actions.NOT_RUNNING, actions.withdraw, cancelled, 2, 302.0)


def test_swiss_rounds_default_and_limit() -> None:
    assert started(Format.SWISS, 8).rounds_planned == 4
    assert started(Format.SWISS, 40, rounds=3).rounds_planned == 3
    assert started(Format.SWISS, 4, rounds=9).rounds_planned == 2
    assert started(Format.SWISS, 3).rounds_planned == 1


def test_the_record_survives_its_json() -> None:
    record = actions.record_result(started(Format.SWISS, 7), 1, played(1), 300.0)
    assert TournamentRecord.model_validate_json(record.model_dump_json()) == record


def test_each_round_and_a_knockouts_final_have_their_match_lengths() -> None:
    """``match=1,3`` and ``final=7``: round 1 single games, then 3-point
    matches, the main final a 7-point match (the consolation final not)."""
    record = started(Format.KNOCKOUT, 8, consolation=True, round_matches=(1, 3),
                     final_match=7)
    lengths = []
    while record.status is Status.ACTIVE:
        current = record.rounds[-1]
        lengths.append(sorted((p.stage.value, p.match_length) for p in current.pairings))
        for p in current.pairings:
            if p.result is None:
                record = actions.record_result(record, p.board, played(p.first), 300.0)
    assert lengths == [[("main", 1)] * 4,
                       [("consolation", 3), ("consolation", 3), ("main", 3), ("main", 3)],
                       [("consolation", 3), ("main", 7)]]
    # without them, every game has the tournament's options' length (3 here)
    plain = started(Format.ROUND_ROBIN, 4)
    assert {p.match_length for p in plain.rounds[0].pairings} == {3}


def test_a_swiss_bye_skips_a_player_who_won_without_playing() -> None:
    """FIDE C.04.1 d: a point scored without playing (a bye, or an opponent
    who never showed) bars the bye.  Player 6 won round 2 by forfeit and was
    the lowest-ranked player the bye could go to; it goes to 3, next up."""
    record = started(Format.SWISS, 6, rounds=5)
    for board, winner, forfeit in [(1, 1, True), (2, 2, True), (3, 3, False),
                                   (1, 2, False), (2, 4, True), (3, 6, True)]:
        result = Result(decision=Decision.FORFEIT, winner=winner) if forfeit else played(winner)
        record = actions.record_result(record, board, result, 300.0)
    assert [e.user_id for e in record.entrants if e.withdrawn] == [5]   # two no-shows
    byes = [p.first for p in record.rounds[-1].pairings if p.second is None]
    assert len(record.rounds) == 3 and byes == [3]


def test_a_player_who_is_out_has_nothing_to_withdraw_from() -> None:
    """Issue 36, point 6: an eliminated knockout player "withdrew" and was
    told their game "is lost by forfeit"."""
    record = started(Format.KNOCKOUT, 4)          # 1 v 4, 2 v 3
    record = actions.record_result(record, 1, played(1), 300.0)
    refused(actions.OUT, actions.withdraw, record, 4, 310.0)   # beaten, the round goes on
    record = actions.record_result(record, 2, played(2), 320.0)
    for beaten in (3, 4):
        refused(actions.OUT, actions.withdraw, record, beaten, 330.0)
    actions.withdraw(record, 2, 330.0)            # a finalist may
    # with a consolation, a first-round loser plays on there (8: 4 games, 4 losers)
    record = started(Format.KNOCKOUT, 8, consolation=True)
    record = actions.record_result(record, 1, played(1), 300.0)   # 1 v 8: 8 lost
    actions.withdraw(record, 8, 310.0)            # the consolation may still take him
    for board in (2, 3, 4):
        pairing = record.rounds[0].pairings[board - 1]
        record = actions.record_result(record, board, played(pairing.first), 320.0)
    [consolation] = [p for p in record.rounds[1].pairings if p.stage is Stage.CONSOLATION][:1]
    loser = consolation.second
    assert loser is not None
    record = actions.record_result(record, consolation.board, played(consolation.first), 330.0)
    refused(actions.OUT, actions.withdraw, record, loser, 340.0)   # out of both brackets
