"""The long nardy search's batched looks (:mod:`ai.long_search`) give what
their definitions give, turn by turn through ``legal_turns``: the same
values, so the same choices, however the batch is cut and deduplicated."""

from __future__ import annotations

import numpy as np
import pytest

import ai.long_net as long_net
import ai.long_search as search
from ai import Level
from ai.long_player import LongNetPlayer
from ai.player import ROLLS
from engine import Dice, Position, Side, Variant, end_turn, legal_turns
from tests.engine.strategies import random_game_positions

FLOAT32 = 1e-6
"""How far two computations of one value may differ: the net's first layer
runs in float32 (:meth:`ai.long_net.LongNet.probs`), and BLAS may round a
row of one batch apart from the same row in another by some 1e-7."""


def _net_player() -> LongNetPlayer:
    return LongNetPlayer(Level.MEDIUM)


def _positions() -> list[Position]:
    """Positions of random games: the opening, the middle, the bear-off
    (where replies finish the game), one position twice, two positions
    with the same side not to roll (replies the batch values only once) and
    two with the same roller's checkers against different other sides
    (replies it must value apart)."""
    games = [position for position, _ in random_game_positions(Variant.LONG, seed=38, count=400)]
    picked = [games[0], games[40], games[150], games[40], games[260]]
    late = [p for p in games if sum(p.board[p.turn][:24]) <= 3 and any(p.board[p.turn][:24])]
    assert len(late) >= 2
    moved = legal_turns(games[150], Dice(6, 5))[0].position  # the same side still to move
    # the opening roller's very checkers against another other side
    answered = end_turn(legal_turns(end_turn(games[0]), Dice(6, 5))[0].position)
    return [*picked, *late[:2], moved, answered]


def _lost() -> Position:
    """The side to roll has lost: the other side bore off every checker."""
    rows = [[0] * 25, [0] * 25]
    rows[0][23] = 15
    return Position.from_rows(Variant.LONG, rows, Side.WHITE)


def _by_definition(player: LongNetPlayer, position: Position) -> tuple[list[float], list[Position]]:
    """For each roll: the roller's best turn by 1 ply, its value and the
    position it leaves (the other side to roll), one roll at a time."""
    values, after = [], []
    for dice, _ in ROLLS:
        turns = legal_turns(position, dice)
        equities = player.shallow(position, turns)
        best = int(np.argmax(equities))
        values.append(float(equities[best]))
        after.append(end_turn(turns[best].position))
    return values, after


def test_roll_values_and_replies_are_the_best_turn_of_each_roll() -> None:
    player = _net_player()
    positions = [*_positions(), _lost()]
    values = search.roll_values(player.net, positions, False)
    replies = search.reply_positions(player.net, positions[:-1], False)
    assert values.shape == (len(positions), len(ROLLS))
    for index, position in enumerate(positions[:-1]):
        expected, after = _by_definition(player, position)
        assert values[index].tolist() == pytest.approx(expected, abs=FLOAT32)
        assert replies[21 * index : 21 * (index + 1)] == after
    assert (values[-1] == -2.0).all()  # mars: no checker of the loser home or off


def test_the_values_do_not_depend_on_how_the_batch_is_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    player = _net_player()
    positions = _positions()
    whole = search.roll_values(player.net, positions, False)
    monkeypatch.setattr(search, "CHUNK", 7)
    monkeypatch.setattr(long_net, "CHUNK", 7)  # the pieces of LongNet.probs_shared
    # equal up to rounding: BLAS may sum a 7-row product in another order than a
    # 2,048-row one (in float32, FLOAT32); a mixed-up row is off by far more
    cut = search.roll_values(player.net, positions, False)
    np.testing.assert_allclose(cut, whole, rtol=0, atol=FLOAT32)
    one_by_one = np.array([search.roll_values(player.net, [p], False)[0] for p in positions])
    np.testing.assert_allclose(one_by_one, whole, rtol=0, atol=FLOAT32)


def test_three_ply_with_the_rollers_turn_chosen_among_its_best_few() -> None:
    """``replies=3``: for each of the roller's rolls, its three best turns
    by 1 ply, of which it takes the one whose 2-ply value for the other
    side is least; with 1 the best by 1 ply.  A position whose roller has
    lost is worth minus the other side's exact win (mars: the roller has
    none of its checkers home or off)."""
    player = _net_player()
    positions = [*_positions()[1:3], _lost()]
    values = search.three_ply(player.net, positions, False, replies=3)
    for position, value in zip(positions[:2], values[:2], strict=True):
        expected = []
        for dice, _ in ROLLS:
            turns = legal_turns(position, dice)
            equities = player.shallow(position, turns)
            best = np.argsort(-equities, kind="stable")[:3]
            two_ply = [float(np.dot(_by_definition(player, end_turn(turns[i].position))[0],
                                    search.CHANCES)) for i in best]
            expected.append(min(two_ply))
        assert value == pytest.approx(-float(np.dot(expected, search.CHANCES)), abs=FLOAT32)
    assert values[-1] == -2.0
    assert search.three_ply(player.net, positions[-1:], False)[0] == -2.0


def test_three_ply_within_a_budget_looks_at_the_first_positions_that_fit() -> None:
    """A budget of positions valued at the last ply: the positions in order
    while they fit, the first two always, their values as without it."""
    player = _net_player()
    positions = _positions()[:4]
    whole = search.three_ply(player.net, positions, False)
    assert len(search.three_ply(player.net, positions, False, budget=1)) == 2
    cut = search.three_ply(player.net, positions, False, budget=20_000)
    assert 2 <= len(cut) < len(positions)
    np.testing.assert_allclose(cut, whole[: len(cut)], rtol=0, atol=FLOAT32)
    np.testing.assert_allclose(search.three_ply(player.net, positions, False, budget=10**9),
                               whole, rtol=0, atol=FLOAT32)


def test_four_ply_is_the_three_ply_value_after_each_best_turn() -> None:
    """4 ply by its definition: for each of the roller's 21 rolls its best
    turn by 1 ply, then the other side's 3-ply value of what it leaves."""
    player = _net_player()
    positions = [_positions()[2], _lost()]
    values = search.four_ply(player.net, positions, False)
    _, after = _by_definition(player, positions[0])
    three = search.three_ply(player.net, after, False)
    assert values[0] == pytest.approx(-float(np.dot(three, search.CHANCES)), abs=FLOAT32)
    assert values[1] == -2.0


def test_three_ply_is_the_two_ply_value_after_each_best_turn() -> None:
    """3 ply by its definition: for each of the roller's 21 rolls its best
    turn by 1 ply, then the other side's 2-ply value of what it leaves."""
    player = _net_player()
    positions = _positions()[1:3]
    values = search.three_ply(player.net, positions, False)
    for position, value in zip(positions, values, strict=True):
        _, after = _by_definition(player, position)
        two_ply = [float(np.dot(_by_definition(player, p)[0], search.CHANCES)) for p in after]
        assert value == pytest.approx(-float(np.dot(two_ply, search.CHANCES)), abs=FLOAT32)


def test_a_third_look_refuses_a_setting_it_cannot_play() -> None:
    from ai.long_player import Third

    for bad in ({"candidates": 1, "margin": 0.3}, {"candidates": 5, "margin": 0.3, "replies": 0},
                {"candidates": 5, "margin": 0.3, "budget": -1},
                {"candidates": 5, "margin": 0.3, "fourth": -1}):
        with pytest.raises(ValueError, match="third look"):
            Third(**bad)  # type: ignore[arg-type]
