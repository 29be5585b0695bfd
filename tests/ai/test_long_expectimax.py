"""The yardstick of issue 38: the hand-tuned expectimax long nardy player."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ai import Level, make_player
from ai.arena import play_game
from ai.long_expectimax import ON_ROLL, ExpectimaxPlayer, HandEvaluation, weight_vector
from ai.long_features import features
from ai.long_hand import NAMES, STRATEGY_WEIGHTS, StrategyEvaluation, side
from ai.long_search import rows
from ai.player import ROLLS
from engine import Dice, Position, Turn, Variant, end_turn, legal_turns
from tests.engine.strategies import dice, game_positions

FAST = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(data=st.data())
def test_the_yardstick_plays_a_legal_turn(data: st.DataObject) -> None:
    position = data.draw(game_positions(Variant.LONG))
    roll = data.draw(dice())
    legal = {turn.position for turn in legal_turns(position, roll)}
    assert ExpectimaxPlayer(seed=3).choose(position, roll).position in legal


@pytest.fixture(scope="module")
def met() -> tuple[tuple[Position, Dice], ...]:
    """The positions and rolls of a game of the medium level against itself."""
    first, second = (make_player(Variant.LONG, Level.MEDIUM, seed) for seed in (1, 2))
    return play_game(first, second, random.Random(4), keep=True).positions


def test_the_yardstick_is_deterministic_whatever_its_seed(
    met: tuple[tuple[Position, Dice], ...],
) -> None:
    one, other = ExpectimaxPlayer(1), ExpectimaxPlayer(2)
    for position, roll in met[::4]:
        assert one.choose(position, roll) == other.choose(position, roll)


def _value(evaluation: HandEvaluation | StrategyEvaluation, me: list[int], opp: list[int]
           ) -> float:
    """The side to roll's equity by the hand evaluation."""
    probs = evaluation.probs(np.array([me[:24]]), np.array([opp[:24]]))
    return float(evaluation.value(probs)[0])


def _expectimax(position: Position, turn: Turn) -> float:
    """The definition, turn by turn: the mover's expectation over the
    opponent's rolls of the position after the opponent's best reply."""
    evaluation = StrategyEvaluation()
    me = position.turn
    after = end_turn(turn.position)
    total = 0.0
    for roll, chance in ROLLS:
        replies = legal_turns(after, roll)
        best = max(
            -_value(evaluation, list(r.position.board[me]), list(r.position.board[me.opponent]))
            if sum(r.position.board[me.opponent][:24]) else 1.0
            for r in replies
        )
        total += chance * -best
    return total


def test_every_turn_is_valued_by_the_opponents_best_reply_to_each_roll(
    met: tuple[tuple[Position, Dice], ...],
) -> None:
    player = ExpectimaxPlayer()
    position, roll = met[12]
    turns = legal_turns(position, roll)
    ranked = player.rank(position, turns, full=True)
    assert len(ranked) == len(turns)  # every turn looked at
    for entry in ranked:
        assert entry.equity == pytest.approx(_expectimax(position, entry.turn), abs=1e-9)


def test_the_hand_evaluation_is_the_same_from_either_side(
    met: tuple[tuple[Position, Dice], ...],
) -> None:
    """Turned round, a contact position's logit changes sign (besides the
    roll's bonus): no side is favoured by the weights themselves."""
    mine, theirs = zip(*(rows(p) for p, _ in met), strict=True)
    me, opp = np.array(mine), np.array(theirs)
    weights = weight_vector({"pips": -6.0, "run": 1.5, "head": -2.0})
    ahead = features(me, opp) @ weights
    behind = features(opp, me) @ weights
    np.testing.assert_allclose(ahead, -behind, atol=1e-12)
    evaluation = HandEvaluation()
    contact = ~features(me, opp)[:, -2].astype(bool)
    p_ahead = evaluation.probs(me, opp)[contact, 0]
    p_behind = evaluation.probs(opp, me)[contact, 0]
    logit = np.log(p_ahead / (1 - p_ahead)) + np.log(p_behind / (1 - p_behind))
    np.testing.assert_allclose(logit, 2 * ON_ROLL, atol=1e-9)


@pytest.mark.parametrize("evaluation", [HandEvaluation(), StrategyEvaluation()])
def test_in_a_race_the_pip_lead_decides(evaluation: HandEvaluation | StrategyEvaluation) -> None:
    me = [0] * 24
    me[:6] = [3, 2, 2, 2, 2, 2]
    opp = list(me)
    level = _value(evaluation, me, opp)
    assert level > 0  # the side to roll is half a roll ahead
    behind = list(opp)
    behind[5] += behind[0]
    behind[0] = 0
    assert _value(evaluation, me, behind) > level
    assert _value(evaluation, behind, me) < -level


def test_weights_name_side_features() -> None:
    with pytest.raises(ValueError, match="no side feature"):
        weight_vector({"race": 1.0})


def test_the_strategy_evaluation_is_the_same_from_either_side(
    met: tuple[tuple[Position, Dice], ...],
) -> None:
    """Turned round, a contact position's logit changes sign besides the
    roll's bonus (the race term, which holds the roll's half a roll in its
    pips, left out)."""
    mine, theirs = zip(*(rows(p) for p, _ in met), strict=True)
    me, opp = np.array(mine), np.array(theirs)
    evaluation = StrategyEvaluation({**STRATEGY_WEIGHTS, "race": 0.0})
    contact = me[:, 12:].any(axis=1) | opp[:, 12:].any(axis=1)
    assert contact.any() and not contact.all()
    total = evaluation.logits(me, opp) + evaluation.logits(opp, me)
    np.testing.assert_allclose(total[contact], 2 * 0.2, atol=1e-9)


def _points(**held: int) -> list[int]:
    row = [0] * 24
    for name, count in held.items():
        row[int(name[1:]) - 1] = count
    return row


def test_checkers_behind_a_block_are_trapped() -> None:
    """Three of my checkers on my 20 face the other side's five points in a
    row on my 14..18 (its own 2..6); my two on my 10 are past it."""
    me = np.array([_points(p20=3, p10=2, p24=10)], dtype=np.float64)
    seen = np.array([_points(p14=1, p15=1, p16=1, p17=1, p18=1, p3=10)], dtype=np.float64)
    row = side(me, seen, np.array([200.0]))[0]
    named = dict(zip(NAMES, row, strict=True))
    assert named["trapped4"] == pytest.approx(13 / 15)
    assert named["trapped5"] == pytest.approx(13 / 15)
    assert named["trapped6"] == 0
    assert named["rear_block"] == pytest.approx(5 / 6)
    assert named["head"] == pytest.approx(10 / 15)


def test_a_block_in_front_of_the_opponent_is_worth_having() -> None:
    """The same checkers, spread into a block facing the opponent's head
    checkers (my 7..11, its 19..23) or scattered on as many pips: the
    block is better for its holder."""
    evaluation = StrategyEvaluation()
    opp = [0] * 24
    opp[23], opp[16] = 13, 2
    block = _points(p24=9, p11=1, p10=1, p9=1, p8=1, p7=1, p20=1)
    scattered = _points(p24=9, p16=2, p17=1, p6=1, p5=2)
    assert sum(block) == sum(scattered) == 15
    assert sum(p * n for p, n in enumerate(block)) == sum(p * n for p, n in enumerate(scattered))
    assert _value(evaluation, block, opp) > _value(evaluation, scattered, opp)
