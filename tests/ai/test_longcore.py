"""The search's C core (ai/_longcore.c) against what it mirrors: the
engine's move generator and ai.long_features in numpy.

The rules live in engine/; the C generator must answer exactly what
engine.turns.packed_results answers, in the same order, for every roll, and
the C features must equal the numpy ones bit for bit.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from ai import long_search
from ai.arena import play_game
from ai.long_features import INDEX, SIZE, WIDE_SIZE, features, numpy_features, own_features
from ai.long_net import LongNet
from ai.long_player import LongNetPlayer
from ai.long_search import _engine_replies, _replies, final_rows
from ai.player import ROLLS, Level
from engine import Dice, Position, Side, Variant
from engine.turns import packed_results
from tests.engine.strategies import random_game_positions
from tests.engine.test_turns_properties import opponent_variants

try:
    from ai import _longcore
except ImportError:  # pragma: no cover - the message is the point
    pytest.fail("ai._longcore was not built: the install needs a C compiler (gcc)",
                pytrace=False)

LONG = Variant.LONG


def sides(position: Position) -> tuple[bytes, bytes]:
    board = position.board
    return bytes(board[position.turn][:24]), bytes(board[position.turn.opponent][:24])


def engine_results(position: Position, dice: Dice) -> bytes:
    return b"".join(code[1:25] for code in packed_results(position, dice))


def c_results(position: Position, dice: Dice) -> bytes:
    mover, opponent = sides(position)
    return bytes(_longcore.results(mover, opponent, position.first_turn, dice.first, dice.second))


def test_every_roll_of_random_games_gives_the_engines_turns_in_its_order() -> None:
    pool = random_game_positions(LONG, seed=9, count=300)
    assert sum(position.first_turn for position, _ in pool) >= 5
    borne_off = 0
    for position, _ in pool:
        borne_off += sum(position.board[position.turn][:24]) < 15
        for dice, _ in ROLLS:
            assert c_results(position, dice) == engine_results(position, dice), (position, dice)
    assert borne_off >= 20  # bearing off is exercised


def test_the_first_turns_head_rule() -> None:
    # 6-6, 4-4 and 3-3 on the first turn may take two checkers off the head
    for turn in (0, 1):
        start = Position.initial(LONG)
        start = Position.from_rows(LONG, start.board, start.turn.opponent) if turn else start
        for dice, _ in ROLLS:
            assert c_results(start, dice) == engine_results(start, dice), dice
    six = c_results(Position.initial(LONG), Dice(6, 6))
    assert any(row[23] == 13 for row in (six[i : i + 24] for i in range(0, len(six), 24)))


def test_other_opponents_block_rule_and_held_points() -> None:
    # every opponent one checker away: the points it holds and its rearmost
    # checker (the block rule) change, so must the turns
    checked = 0
    for position, roll in random_game_positions(LONG, seed=12, count=40):
        for variant in opponent_variants(position)[::3]:
            assert c_results(variant, roll) == engine_results(variant, roll), (variant, roll)
            checked += 1
    assert checked > 1000


def six_in_a_row(row: bytes) -> bool:
    return any(all(row[p - 1] for p in range(low, low + 6)) for low in range(1, 8))


def test_the_block_rule() -> None:
    # my points 2..6 held; a checker on 9 could close 7: six in a row, legal
    # only once an opponent checker has passed it (here: one on its point 1)
    mover = [0, 2, 2, 2, 2, 2, 0, 0, 5] + [0] * 15
    behind = [0] * 23 + [15]
    passed = [1] + [0] * 22 + [14]
    made = {}
    for name, opponent in (("behind", behind), ("passed", passed)):
        position = Position.from_rows(LONG, [[*mover, 0], [*opponent, 0]], Side.WHITE, False)
        made[name] = 0
        for dice, _ in ROLLS:
            found = c_results(position, dice)
            assert found == engine_results(position, dice), (name, dice)
            made[name] += sum(six_in_a_row(found[i : i + 24]) for i in range(0, len(found), 24))
    assert made["behind"] == 0
    assert made["passed"] > 0


def test_played_positions_with_blocks() -> None:
    # the block rule refuses steps mostly in real play, where blocks are built
    record = play_game(LongNetPlayer(Level.MEDIUM, seed=1), LongNetPlayer(Level.MEDIUM, seed=2),
                       random.Random(5), keep=True)
    for position, _ in record.positions:
        for dice, _ in ROLLS:
            assert c_results(position, dice) == engine_results(position, dice), (position, dice)


def test_replies_match_the_engines_batch() -> None:
    positions = [p for p, _ in random_game_positions(LONG, seed=13, count=60)]
    generated = _engine_replies(positions)
    rows, where = generated.kinds[generated.kind], generated.where
    bounds, live = generated.bounds, generated.live
    net = LongNet.load()
    replies = _replies(net, positions, False)
    assert replies.live == live
    assert replies.bounds == bounds
    # the same replies roll by roll (their numbering may differ)
    assert np.array_equal(replies.rows[replies.where], rows[where])
    saved = long_search._longcore
    try:
        long_search._longcore = None
        engine_values = _replies(net, positions, False).values[where]
    finally:
        long_search._longcore = saved
    assert np.array_equal(replies.values[replies.where], engine_values)


def test_replies_generated_once_per_opponent_that_decides_them() -> None:
    # the C core generates a mover's turns once for opponents holding the same
    # points with the same rearmost checker: a batch of the opponent's
    # variants (many such, and many not) must give each its own turns
    engine_rows = c_rows = 0
    for position, _ in random_game_positions(LONG, seed=17, count=12):
        variants = opponent_variants(position)
        generated = _engine_replies(variants)
        replies = _replies(LongNet.load(), variants, False)
        assert replies.bounds == generated.bounds and replies.live == generated.live
        expected = generated.kinds[generated.kind][generated.where]
        assert np.array_equal(replies.rows[replies.where], expected)
        engine_rows += len(expected)
        c_rows += len(replies.rows)
    assert c_rows < engine_rows  # replies met again are valued once


def test_final_rows_are_the_legal_turns() -> None:
    for position, dice in random_game_positions(LONG, seed=14, count=40):
        expected = np.frombuffer(engine_results(position, dice), dtype=np.uint8).reshape(-1, 24)
        assert np.array_equal(final_rows(position, dice), expected)


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="mover"):
        _longcore.results(b"\0" * 23, b"\0" * 24, False, 1, 2)
    with pytest.raises(ValueError, match="dice"):
        _longcore.results(bytes(24), bytes(24), False, 0, 2)
    with pytest.raises(ValueError, match="rolls"):
        _longcore.replies(bytes(24), bytes(24), b"\0", b"\1")
    with pytest.raises(ValueError, match="out"):
        _longcore.features(bytes(24), bytes(24), np.empty(100))
    with pytest.raises(ValueError, match="float64 or float32, not int32"):
        features(np.zeros((1, 24)), np.zeros((1, 24)), SIZE, dtype=np.int32)
    with pytest.raises(ValueError, match="out"):
        _longcore.own(bytes(48), np.empty((2, 84), dtype=np.float32))
    def pairs(me_index: int, cross: int, out: int = 5) -> None:
        """One pair of one row each (4 hidden units), the cross weights
        ``cross`` rows, ``out`` estimates out."""
        one = np.ones(1, dtype=np.float32)
        _longcore.pairs(bytes(24), np.array([me_index]), bytes(24), np.zeros(1, dtype=np.int64),
                        one, one, np.zeros((1, 4), dtype=np.float32),
                        np.zeros((1, 4), dtype=np.float32),
                        np.zeros((cross, 4), dtype=np.float32), np.zeros((5, 4)), np.zeros(5),
                        np.empty((1, out)))

    four = np.zeros(4, dtype=np.float32)
    _longcore.shares(np.zeros((2, 3), dtype=np.float32), np.zeros((3, 4), dtype=np.float32),
                     four, np.empty((2, 4), dtype=np.float32))
    for rows, weights, bias in (((2, 3), (4, 4), 4), ((2, 3), (3, 4), 5), ((2, 129), (129, 1), 1)):
        with pytest.raises(ValueError, match=r"shares: .* do not fit"):
            _longcore.shares(np.zeros(rows, dtype=np.float32),
                             np.zeros(weights, dtype=np.float32), np.zeros(bias, dtype=np.float32),
                             np.empty((rows[0], bias), dtype=np.float32))
    pairs(0, 15)
    pairs(0, 25)
    for cross, out in ((16, 5), (15, 4)):
        with pytest.raises(ValueError, match="do not fit"):
            pairs(0, cross, out)
    with pytest.raises(IndexError, match="index"):
        pairs(1, 15)


def played_rows() -> tuple[np.ndarray, np.ndarray]:
    positions = [p for p, _ in random_game_positions(LONG, seed=15, count=1500)]
    me = np.array([p.board[p.turn][:24] for p in positions])
    opp = np.array([p.board[p.turn.opponent][:24] for p in positions])
    return me, opp


@pytest.mark.parametrize("size", [SIZE, WIDE_SIZE])
def test_features_equal_numpys_bit_for_bit(size: int) -> None:
    me, opp = played_rows()
    assert np.array_equal(features(me, opp, size), numpy_features(me, opp, size))


def test_sums_are_exact() -> None:
    # "any off" and the mars margin must not depend on how a processor sums
    # fractions: the old sums read "off" in half the positions where nothing was
    me, opp = played_rows()
    for found in (features(me, opp, WIDE_SIZE), numpy_features(me, opp, WIDE_SIZE)):
        for side, rows in (("me", me), ("opp", opp)):
            on = rows.sum(axis=1)
            assert np.array_equal(found[:, INDEX[f"{side}_off"]], (15 - on) / 15)
            assert np.array_equal(found[:, INDEX[f"{side}_any_off"]], on < 15)
            margin = found[:, INDEX[f"{side}_mars_margin"]]
            assert not margin[on < 15].any()
            assert margin[on == 15].any()


def test_nets_keep_the_sums_they_were_trained_on(tmp_path: Path) -> None:
    shipped = LongNet.load()
    me, opp = played_rows()
    legacy = features(me, opp, shipped.inputs, legacy=True)
    exact = features(me, opp, shipped.inputs)
    assert not np.array_equal(legacy, exact)
    # the two readings give other estimates (by far more than float32's 1e-6)
    assert not np.allclose(shipped.probs_of_features(legacy), shipped.probs_of_features(exact),
                           atol=1e-3)
    if shipped.legacy:
        assert np.allclose(shipped.probs(me, opp), shipped.probs_of_features(legacy), atol=1e-6)
    for flag in (True, False):
        net = LongNet(shipped.w1, shipped.b1, shipped.w2, shipped.b2, legacy=flag)
        net.save(tmp_path / "net.npz")
        again = LongNet.load(tmp_path / "net.npz")
        assert again.legacy is flag
        assert np.allclose(again.probs(me, opp),
                           again.probs_of_features(legacy if flag else exact), atol=1e-6)


@pytest.mark.parametrize("legacy", [True, False])
@pytest.mark.parametrize("size", [SIZE, WIDE_SIZE])
def test_shared_rows_give_the_nets_estimates(size: int, legacy: bool) -> None:
    """LongNet.probs_shared splits the first layer by the features' parts
    (own rows once, the inputs that read both sides per pair): the same
    estimates as probs of the gathered pairs, within float32's rounding,
    and the old sums' readings (legacy) kept."""
    shipped = LongNet.load()
    rng = np.random.default_rng(size)
    # 203 hidden units: the C loops' whole vectors and the ends that are not
    net = LongNet(shipped.w1, shipped.b1, shipped.w2, shipped.b2, legacy=legacy).widened(
        128, rng, size) if size == WIDE_SIZE else LongNet(
        rng.normal(0, 0.3, (SIZE, 203)), rng.normal(0, 0.3, 203), rng.normal(0, 0.3, (203, 5)),
        np.zeros(5), legacy=legacy)
    if size == WIDE_SIZE:
        net.w1[SIZE:] = rng.normal(0, 0.3, (WIDE_SIZE - SIZE, 128))  # blocks that count
    me, opp = played_rows()
    me, opp = me[:300], opp[:900]
    me_index, opp_index = rng.integers(0, 300, 5000), rng.integers(0, 900, 5000)
    shared = net.probs_shared(me, me_index, opp, opp_index)
    np.testing.assert_allclose(shared, net.probs(me[me_index], opp[opp_index]), rtol=0,
                               atol=1e-6)
    expected = net.probs_of_features(features(me[me_index], opp[opp_index], size, legacy))
    np.testing.assert_allclose(shared, expected, rtol=0, atol=1e-6)
    # a pair's estimates do not depend on its batch: each row and pair is
    # summed in one fixed order (numpy's products follow the batch's shape)
    for k in (0, 17, 4999):
        one = np.zeros(1, dtype=np.intp)
        alone = net.probs_shared(me[me_index[k : k + 1]], one, opp[opp_index[k : k + 1]], one)
        np.testing.assert_array_equal(alone[0], shared[k])


def test_a_net_wider_than_the_c_loops_is_valued_by_numpy() -> None:
    # the C loops keep a row's sums on the stack (MOST_HIDDEN of them): a
    # wider net gets numpy's estimates rather than an error
    rng = np.random.default_rng(3)
    hidden = _longcore.MOST_HIDDEN + 1
    net = LongNet(rng.normal(0, 0.05, (SIZE, hidden)), np.zeros(hidden),
                  rng.normal(0, 0.05, (hidden, 5)), np.zeros(5))
    me, opp = played_rows()
    index = np.arange(20)
    np.testing.assert_array_equal(net.probs_shared(me, index, opp, index),
                                  net.probs(me[:20], opp[:20]))


def test_broken_weights_are_not_hidden() -> None:
    # a NaN in the weights gives NaN estimates, as numpy's net does, not
    # plausible ones (the C tanh clamps its input: a NaN must pass through)
    shipped = LongNet.load()
    b1 = shipped.b1.copy()
    b1[3] = np.nan
    net = LongNet(shipped.w1, b1, shipped.w2, shipped.b2, legacy=shipped.legacy)
    me, opp = played_rows()
    index = np.arange(10)
    assert np.isnan(net.probs(me[:10], opp[:10])).all()
    assert np.isnan(net.probs_shared(me, index, opp, index)).all()


def test_a_row_alone_reads_the_old_sums_as_in_a_batch() -> None:
    # the old sums read "off" from a product's rounding: a single row must not
    # go through numpy's matrix-vector routine, which rounds otherwise
    me, _ = played_rows()
    together, gates = own_features(me[:400], legacy=True)
    for k in range(400):
        alone, gate = own_features(me[k : k + 1], legacy=True)
        assert np.array_equal(alone[0], together[k]) and gate[0] == gates[k], k


def test_without_the_c_core_the_search_plays_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    # a machine without a compiler installs without ai._longcore: the engine's
    # generator and numpy's features must then give the same choices
    from ai import long_features, long_net

    player = LongNetPlayer(Level.STRONG)
    positions = random_game_positions(LONG, seed=16, count=12)
    with_core = [player.ranked(position, dice) for position, dice in positions]
    monkeypatch.setattr(long_search, "_longcore", None)
    monkeypatch.setattr(long_features, "_longcore", None)
    monkeypatch.setattr(long_net, "_longcore", None)
    player = LongNetPlayer(Level.STRONG)
    for (position, dice), ranked in zip(positions, with_core, strict=True):
        again = player.ranked(position, dice)
        assert [r.turn.position for r in again] == [r.turn.position for r in ranked]
        assert [r.equity for r in again] == pytest.approx([r.equity for r in ranked], abs=1e-6)
