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


def _value(evaluation: HandEvaluation, me: list[int], opp: list[int]) -> float:
    """The side to roll's equity by the hand evaluation."""
    probs = evaluation.probs(np.array([me[:24]]), np.array([opp[:24]]))
    return float(evaluation.value(probs)[0])


def _expectimax(position: Position, turn: Turn) -> float:
    """The definition, turn by turn: the mover's expectation over the
    opponent's rolls of the position after the opponent's best reply."""
    evaluation = HandEvaluation()
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


def test_in_a_race_the_pip_lead_decides() -> None:
    evaluation = HandEvaluation()
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
