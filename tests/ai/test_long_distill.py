"""The search-bootstrapped targets of :mod:`ai.distill_long`."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ai.distill_long import roll_probs, self_play_positions, three_ply_probs
from ai.long_features import WIDE_SIZE, features
from ai.long_net import LongNet, equity
from ai.long_search import CHANCES, roll_values, rows, three_ply


def _net() -> LongNet:
    return LongNet.load()


def test_self_play_positions_are_reproducible_and_their_results_turn_round() -> None:
    net = _net()
    first, results = self_play_positions(net, random.Random(3), 0.3)
    again, results_again = self_play_positions(net, random.Random(3), 0.3)
    assert first == again and np.array_equal(results, results_again)
    assert len(first) == len(results) > 0
    for position, result in zip(first, results, strict=True):
        # the side to roll won (1, mars, koks, 0, 0) or lost (0, 0, 0, mars, koks)
        assert result[0] in (0, 1)
        assert (result[3:] if result[0] else result[1:3]).tolist() == [0, 0]
        assert position.winner is None
    winners = {(p.turn, r[0]) for p, r in zip(first, results, strict=True)}
    # the two sides' results are opposite
    assert len({won for side, won in winners}) == 2 and len(winners) == 2


def test_the_targets_agree_with_the_searchs_equities() -> None:
    """roll_probs and three_ply_probs give the equities of the search's own
    roll_values and three_ply (which add the value of being on roll once
    more or less: the side to roll alternates)."""
    net = _net()
    positions, _ = self_play_positions(net, random.Random(5), 0.15)
    one = roll_probs(net, positions)
    assert one.shape == (len(positions), 5) and ((one >= 0) & (one <= 1)).all()
    assert np.allclose(equity(one) - net.on_roll, roll_values(net, positions, False) @ CHANCES)
    two = three_ply_probs(net, positions[:3])
    assert np.allclose(equity(two) + net.on_roll, three_ply(net, positions[:3], False))


def test_a_widened_net_is_the_same_function() -> None:
    """More hidden units, and the block inputs, start silent: the widened
    net plays as the one it came from until training moves them."""
    shipped = _net()
    positions, _ = self_play_positions(shipped, random.Random(6), 0.2)
    me, opp = (np.array(side) for side in zip(*(rows(p) for p in positions), strict=True))
    narrow = LongNet.fresh(16, np.random.default_rng(3))  # the 184 inputs: the blocks are new
    assert narrow.inputs < WIDE_SIZE
    for net in (shipped, narrow):
        hidden = net.w1.shape[1] + 32
        for inputs in (net.inputs, WIDE_SIZE):
            wide = net.widened(hidden, np.random.default_rng(0), inputs)
            assert wide.w1.shape == (inputs, hidden) and wide.on_roll == net.on_roll
            assert wide.inputs == inputs
            assert np.allclose(wide.probs(me, opp), net.probs(me, opp), atol=1e-6)
            x = features(me, opp, inputs, net.legacy)
            # training's float64 against play's float32 first layer
            assert np.allclose(wide.probs_of_features(x), net.probs(me, opp), atol=1e-6)


def test_a_net_cannot_be_narrowed() -> None:
    net = _net()
    with pytest.raises(ValueError, match="cannot widen"):
        net.widened(net.w1.shape[1] - 1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="cannot widen"):
        net.widened(net.w1.shape[1], np.random.default_rng(0), WIDE_SIZE + 1)
