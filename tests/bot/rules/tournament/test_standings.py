"""Standings from the results alone, against examples worked out by hand."""

from __future__ import annotations

from bot.rules.tournament import actions
from bot.rules.tournament.standings import standings
from bot.vocab.records import Status, TableOptions
from bot.vocab.tournament import (
    Decision,
    Entrant,
    Format,
    Pairing,
    Result,
    Round,
    Stage,
    TournamentRecord,
)
from engine.position import Variant

A, B, C, D, E, F = 1, 2, 3, 4, 5, 6


def won(first: int, second: int, winner: int, board: int = 1,
        decision: Decision = Decision.PLAYED) -> Pairing:
    return Pairing(board=board, first=first, second=second,
                   result=Result(decision=decision, winner=winner, points=1))


def record(fmt: Format, rounds: list[list[Pairing]], players: int) -> TournamentRecord:
    return TournamentRecord(
        chat_id=-1, format=fmt, variant=Variant.LONG, created_by=A, status=Status.ACTIVE,
        entrants=tuple(Entrant(user_id=p, name=f"p{p}", seed=p) for p in range(1, players + 1)),
        rounds=tuple(Round(number=n, started_at=0.0, pairings=tuple(
            p.model_copy(update={"board": i}) for i, p in enumerate(pairs, start=1)))
            for n, pairs in enumerate(rounds, start=1)))


def lines(places: tuple) -> list[tuple]:  # type: ignore[type-arg]
    return [(p.rank, p.user_id, p.points, p.games, p.wins, p.tiebreaks) for p in places]


def test_swiss_buchholz_cut_1_and_sonneborn_berger_by_hand() -> None:
    """Six players, three rounds; C did not show in round 1 (F won by forfeit).

    ======  =========  =========  =========  ======  =================  ==
    player  round 1    round 2    round 3    points  Buchholz cut-1     SB
    ======  =========  =========  =========  ======  =================  ==
    A       beat D     lost to B  beat F     2       D1 B3 F1 -1 = 4    2
    B       beat E     beat A     beat C     3       E1 A2 C1 -1 = 3    4
    C       forfeited  beat E     lost to B  1       own1 E1 B3 -1 = 4  1
    D       lost to A  beat F     lost to E  1       A2 F1 E1 -1 = 3    1
    E       lost to B  lost to C  beat D     1       B3 C1 D1 -1 = 4    1
    F       forfeit w  lost to D  lost to A  1       own1 D1 A2 -1 = 3  0
    ======  =========  =========  =========  ======  =================  ==

    C and E are equal on everything: they share 3rd (listed by seed)."""
    swiss = record(Format.SWISS, [
        [won(A, D, A), won(B, E, B), won(C, F, F, decision=Decision.FORFEIT)],
        [won(A, B, B), won(F, D, D), won(E, C, C)],
        [won(B, C, B), won(A, F, A), won(D, E, E)],
    ], 6)
    assert lines(standings(swiss)) == [
        (1, B, 3, 3, 3, (3, 4)),
        (2, A, 2, 3, 2, (4, 2)),
        (3, C, 1, 2, 1, (4, 1)),   # the forfeit is no game played
        (3, E, 1, 3, 1, (4, 1)),
        (5, D, 1, 3, 1, (3, 1)),
        (6, F, 1, 2, 1, (3, 0)),
    ]


def test_a_swiss_bye_scores_a_point_and_counts_the_players_own_points() -> None:
    """Three players, two rounds: A has the bye in round 1, then beats B."""
    bye = Pairing(board=1, first=A, result=Result(decision=Decision.BYE, winner=A))
    swiss = record(Format.SWISS, [[won(B, C, B), bye], [won(A, B, A), Pairing(
        board=2, first=C, result=Result(decision=Decision.BYE, winner=C))]], 3)
    # A: bye (own 2), B (1) -> cut the 1: 2; B: C (1), A (2) -> 2; C: B (1), bye (own 1) -> 1
    assert lines(standings(swiss)) == [
        (1, A, 2, 1, 1, (2, 1)),
        (2, B, 1, 2, 1, (2, 1)),
        (3, C, 1, 1, 0, (1, 0)),
    ]


def test_round_robin_head_to_head_then_sonneborn_berger_by_hand() -> None:
    """Four players, FIDE's table: 1 and 2 both have 2 points, 2 beat 1; 3 and
    4 have 1, 4 beat 3.  Head-to-head decides both ties."""
    rr = record(Format.ROUND_ROBIN, [
        [won(1, 4, 1), won(2, 3, 3)],
        [won(4, 3, 4), won(1, 2, 2)],
        [won(2, 4, 2), won(3, 1, 1)],
    ], 4)
    # SB: 1 beat 4 (1) and 3 (1) = 2; 2 beat 1 (2) and 4 (1) = 3; 3 beat 2 (2); 4 beat 3 (1)
    assert lines(standings(rr)) == [
        (1, 2, 2, 3, 2, (1, 3, 0)),
        (2, 1, 2, 3, 2, (0, 2, 0)),
        (3, 4, 1, 3, 1, (1, 1, 0)),
        (4, 3, 1, 3, 1, (0, 2, 0)),
    ]


def test_a_round_robin_bye_scores_nothing_and_a_forfeit_win_no_sonneborn_berger() -> None:
    bye = Pairing(board=1, first=1, result=Result(decision=Decision.BYE, winner=1))
    rr = record(Format.ROUND_ROBIN, [[bye, won(2, 3, 2, decision=Decision.FORFEIT)]], 3)
    assert lines(standings(rr)) == [   # a forfeit is no game: G 0 (issue 36: it was 1)
        (1, 2, 1, 0, 1, (0, 0, 0)),
        (2, 1, 0, 0, 0, (0, 0, 0)),
        (2, 3, 0, 0, 0, (0, 0, 0)),
    ]


def _play(record: TournamentRecord, winners: dict[frozenset[int], int]) -> TournamentRecord:
    """Every open game of the current round won as ``winners`` say."""
    for pairing in record.rounds[-1].pairings:
        if pairing.result is None:
            result = Result(decision=Decision.PLAYED, winner=winners[frozenset(pairing.players)])
            record = actions.record_result(record, pairing.board, result, 0.0)
    return record


def _started(fmt: Format, players: int, **setup: object) -> TournamentRecord:
    record = actions.create(-1, None, 1, Variant.LONG, TableOptions(),
                            actions.Setup(format=fmt, **setup), 0.0)  # type: ignore[arg-type]
    for user in range(1, players + 1):
        record = actions.join(record, user, f"p{user}", 0.0)
    ratings = {u: (2000.0 - 10 * u, 60.0) for u in range(1, players + 1)}   # seed = user id
    return actions.start(record, 1, ratings, 0.0)


def test_a_circle_of_wins_is_played_off() -> None:
    """Three players each beat one other: equal on points, head-to-head and
    SB, so a play-off knockout decides first place: 1 has the bye, 2 beats
    3, 1 beats 2.  The play-off scores no points and decides first place
    only: 2 and 3 share second (issue 36: the final's loser was ranked 2nd,
    the semi-final's 3rd)."""
    rr = _started(Format.ROUND_ROBIN, 3)
    circle = {frozenset((1, 2)): 1, frozenset((2, 3)): 2, frozenset((1, 3)): 3}
    for _ in range(3):
        rr = _play(rr, circle)
    assert rr.status is Status.ACTIVE
    playoff = rr.rounds[-1].pairings
    assert [(p.stage, p.players) for p in playoff] == [(Stage.PLAYOFF, (1,)),
                                                      (Stage.PLAYOFF, (2, 3))]
    rr = _play(rr, {frozenset((2, 3)): 2})
    assert [p.players for p in rr.rounds[-1].pairings] == [(1, 2)]
    rr = _play(rr, {frozenset((1, 2)): 1})
    assert rr.status is Status.FINISHED
    assert lines(rr.final) == [
        (1, 1, 1, 2, 1, (1, 1, 1)),
        (2, 2, 1, 2, 1, (1, 1, 0)),
        (2, 3, 1, 2, 1, (1, 1, 0)),
    ]


def test_knockout_ranks_by_the_round_reached_and_the_consolation() -> None:
    """Eight players, seeds win every main game; the consolation (the four
    first-round losers) is won by seed 5.  Semi-final losers share 3rd."""
    ko = _started(Format.KNOCKOUT, 8, consolation=True)
    better = {frozenset((a, b)): min(a, b) for a in range(1, 9) for b in range(1, 9)}
    while ko.status is Status.ACTIVE:
        ko = _play(ko, better)
    assert [len(r.pairings) for r in ko.rounds] == [4, 4, 2]   # main + consolation
    assert [(p.rank, p.user_id, p.tiebreaks) for p in ko.final] == [
        (1, 1, (3, 0)), (2, 2, (2, 0)), (3, 3, (1, 0)), (3, 4, (1, 0)),
        (5, 5, (0, 2)), (6, 6, (0, 1)), (7, 7, (0, 0)), (7, 8, (0, 0)),
    ]
