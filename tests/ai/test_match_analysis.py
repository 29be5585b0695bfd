"""A match game is judged at the match score (ai/matchequity.py), by the
same figures the computer's match cube plays by.

The positions are from the games of ``gnubg_analysed/`` (GNU Backgammon
Position IDs, the side on roll White), found where money rules and the
match score disagree: issue #28's cases."""

from __future__ import annotations

import random

import pytest

from ai import Level, make_player
from ai.analysis import (
    CubeAction,
    DecisionKind,
    _Chance,
    _Cube,
    _match_cube_decisions,
    _match_turn_emg,
    analyse,
)
from ai.arena import play_recorded
from ai.backgammon import GnubgPlayer, after_turn_probs, turn_equity
from ai.cube import CubeState, janowski
from ai.matchequity import Score, cube_mwc, match_equity, match_take, outcome_mwc, score_of, to_emg
from engine import Action, Dice, GameOptions, Position, Side, Variant, legal_turns
from engine.ids import position_from_id
from engine.match import Match

W, B = Side.WHITE, Side.BLACK


@pytest.fixture(scope="module")
def strong():  # type: ignore[no-untyped-def]
    return make_player(Variant.BACKGAMMON, Level.STRONG)


def test_no_double_where_the_score_says_no_double_is_not_an_error(strong) -> None:  # type: ignore[no-untyped-def]
    """Money rules call holding the cube here a doubtful mistake (-0.07);
    at 2-3 of 7 not doubling is right (the issue: "no double" graded
    -0.089 where gnubg says no double is right)."""
    position = position_from_id("Nh3GYEBbc4KDAA", W)
    probs = strong.probabilities(position)
    money = min(2 * janowski(probs, "opponent"), 1.0) - janowski(probs, "centre")
    assert money > 0.04  # what the money judge held against it
    cube = CubeState(1, None, 7, (2, 3))
    [decision] = _match_cube_decisions(strong, [], [_Chance(4, W, position, 1, None, cube)])
    assert decision.kind is DecisionKind.DOUBLE and decision.played == "no double"
    assert decision.loss == 0.0 and decision.grade is None
    assert not strong.should_double(position, cube)  # and the computer holds too


def test_a_take_of_a_redouble_to_4_at_0_0_of_5_that_should_be_a_pass_is_flagged(strong) -> None:  # type: ignore[no-untyped-def]
    """A take by money rules; at 0-0 of 5 the cube on 4 gives the doubler
    the match with any gammon... and the taker should pass."""
    position = position_from_id("WLcxBwCsPRkHAA", W)
    probs = strong.probabilities(position)
    assert -2 * janowski(probs, "opponent") > -1.0  # money: take
    cube = CubeState(2, W, 5, (0, 0))  # White owns 2 and redoubles
    decisions = _match_cube_decisions(strong, [
        _Cube(9, W, Action.DOUBLE, position, 2, W, cube),
        _Cube(9, B, Action.TAKE, position, 2, W, cube)], [])
    take = next(d for d in decisions if d.kind is DecisionKind.TAKE)
    assert take.played == CubeAction.TAKE.value and take.best == CubeAction.PASS.value
    assert take.loss > 0.08 and take.grade is not None
    assert not strong.should_take(position, cube)  # the computer passes


def test_with_gammons_dead_only_the_win_chance_counts(strong) -> None:  # type: ignore[no-untyped-def]
    """1-1 of 3, the cube on 2 (dead for both): every turn is worth its
    chance to win and nothing for gammons, so the safe turn money rules
    call a mistake (-0.29) loses nothing (the issue: a 3-point match with
    the cube at 2 showed twice gnubg's error rate)."""
    position = position_from_id("3LYFCwAs74gBMA", W)
    turns = legal_turns(position, Dice(1, 2))
    cube = CubeState(2, B, 3, (1, 1))
    wins = [after_turn_probs(turn.position, 0)[0] for turn in turns]
    values = [_match_turn_emg(turn, cube, W, 0) for turn in turns]
    assert values == pytest.approx([2 * win - 1 for win in wins], abs=1e-6)
    money = [turn_equity(turn, 0) for turn in turns]
    safest = max(range(len(turns)), key=lambda i: wins[i])
    assert max(money) - money[safest] > 0.2  # money's verdict
    assert values[safest] == max(values)  # the score's


def test_gammons_count_for_what_they_bring_at_the_score() -> None:
    probs = (0.6, 0.3, 0.0, 0.1, 0.0)
    # 2-away both, cube 1: a gammon wins the match like two single wins
    score = Score(2, 2)
    expected = (0.3 * match_equity(1, 2) + 0.3 * 1.0 + 0.3 * match_equity(2, 1) + 0.1 * 0.0)
    assert outcome_mwc(probs, score) == pytest.approx(expected)
    assert to_emg(match_equity(1, 2), score) == pytest.approx(1.0)
    assert to_emg(match_equity(2, 1), score) == pytest.approx(-1.0)
    # the Crawford game's score is the pre-Crawford table; after it, the post-Crawford one
    assert score_of(CubeState(match_length=5, score=(4, 2), crawford=True), W).later is False
    assert score_of(CubeState(match_length=5, score=(4, 2)), W).later is True


def _match(level: Level, length: int, seed: int) -> Match:
    rng = random.Random(seed)
    players = [make_player(Variant.BACKGAMMON, level, seed + side) for side in (0, 1)]
    match = Match.new(GameOptions.backgammon(match_length=length))
    while not match.is_over:
        match = match.next_game()
        assert match.current is not None
        game = match.current.roll(rng) if match.current.to_act is None else match.current
        match = match.update(play_recorded(players, rng, start=game, score=match.score))
    return match


def test_the_computers_own_match_cube_actions_are_not_graded_errors() -> None:
    """A 7-point match of the medium level against itself, analysed at its
    depth: every double, take, pass and roll without doubling it chose is
    judged right (by money rules they were not: the issue's 2-3 of 7)."""
    match = _match(Level.MEDIUM, 7, 3)
    score = [0, 0]
    judged = 0
    for game in match.games:
        analysis = analyse(game, score=(score[0], score[1]), level=Level.MEDIUM)
        assert analysis.match_score
        cube = [d for d in analysis.decisions if d.kind is not DecisionKind.MOVE]
        judged += len(cube)
        assert [d for d in cube if d.loss > 0] == []
        assert game.result is not None
        score[game.result.winner] += game.result.points
    assert judged >= 5


def test_the_strong_levels_match_cube_agrees_with_the_default_analysis(strong) -> None:  # type: ignore[no-untyped-def]
    """The same at the strong level (1-ply), the bot's default analysis."""
    match = _match(Level.STRONG, 3, 5)
    score = [0, 0]
    judged = 0
    for game in match.games[:3]:
        analysis = analyse(game, score=(score[0], score[1]), player=strong)
        cube = [d for d in analysis.decisions if d.kind is not DecisionKind.MOVE]
        judged += len(cube)
        assert [d for d in cube if d.loss > 0] == []
        assert game.result is not None
        score[game.result.winner] += game.result.points
    assert judged >= 1


def test_a_turn_of_the_cubes_owner_counts_the_cube_it_keeps() -> None:
    """The mover holds the cube (2, at 0-0 of 7): a turn is worth its
    "no double" (the redouble kept for later), more than the outcomes alone;
    with the cube dead (the mover 2-away) the outcomes alone."""
    position = position_from_id("4HPwATDgc/ABMA", W)
    turn = legal_turns(position, Dice(3, 1))[0]
    probs = after_turn_probs(turn.position, 0)
    live = CubeState(2, W, 7, (0, 0))
    mine = score_of(live, W)
    kept = _match_turn_emg(turn, live, W, 0)
    assert kept > to_emg(outcome_mwc(probs, mine), mine)
    dead = CubeState(2, W, 7, (5, 0))
    assert _match_turn_emg(turn, dead, W, 0) == pytest.approx(
        to_emg(outcome_mwc(probs, score_of(dead, W)), score_of(dead, W)))


def test_a_dead_cube_take_is_valued_exactly_and_the_free_drop_is_a_pass() -> None:
    """At 6-1 in a 7-point match after the Crawford game the trailer (6
    away) doubles: the leader's take leaves a dead cube, the game played
    out for 2, worth exactly its outcomes at the score.  gnubg-nn's
    shortcut valued it without the backgammons (0.1878 for the doubler,
    under the 0.1894 of a pass), so the take was graded right where GNU
    Backgammon passes - the free drop (issue 38)."""
    probs = (0.5, 0.2, 0.01, 0.02, 0.0)  # the trailer's, on roll
    score = Score(6, 1, 1, crawford=False, later=True)
    _, take, drop = cube_mwc(probs, score)
    assert take == pytest.approx(outcome_mwc(probs, Score(6, 1, 2, later=True)))
    assert take > drop == pytest.approx(match_equity(5, 1, post_crawford=True))
    cube = CubeState(1, None, 7, (6, 1), False)
    assert not match_take(probs, cube, B)  # the leader (White) passes

    class Fixed(GnubgPlayer):
        def probabilities(self, position: Position) -> tuple[float, ...]:
            return probs if position.turn is B else (0.5, 0.1, 0.0, 0.1, 0.0)

    position = Position.initial(Variant.BACKGAMMON, B)
    decisions = _match_cube_decisions(Fixed(Level.STRONG), [
        _Cube(6, B, Action.DOUBLE, position, 1, None, cube),
        _Cube(6, W, Action.TAKE, position, 1, None, cube)], [])
    taken = next(d for d in decisions if d.kind is DecisionKind.TAKE)
    assert taken.played == CubeAction.TAKE.value and taken.best == CubeAction.PASS.value
    assert taken.loss == pytest.approx(to_emg(1 - drop, Score(1, 6, 1, later=True))
                                       - to_emg(1 - take, Score(1, 6, 1, later=True)))
    assert taken.loss > 0.01
