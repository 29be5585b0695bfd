"""The long nardy features and the TD(λ) targets."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from ai import train_long
from ai.arena import play_game
from ai.long_features import BLOCK_NAMES, INDEX, SIZE, WIDE_NAMES, WIDE_SIZE, features
from ai.long_hand import INDEX as HAND_INDEX
from ai.long_hand import side
from ai.long_net import WEIGHTS_PATH, LongNet, flip, outcome
from ai.long_player import LongNetPlayer
from ai.long_search import CHANCES, roll_values, rows
from ai.player import Level
from ai.train_long import CALIBRATION, fit_on_roll, lambda_returns, main, self_play
from engine import legal_turns


def _rows(points: dict[int, int]) -> np.ndarray:
    row = np.zeros((1, 24), dtype=np.int64)
    for point, count in points.items():
        row[0, point - 1] = count
    return row


def _named(me: dict[int, int], opp: dict[int, int]) -> dict[str, float]:
    values = features(_rows(me), _rows(opp))[0]
    assert values.shape == (SIZE,)
    return {name: float(values[i]) for name, i in INDEX.items()}


def test_features_of_the_start() -> None:
    start = _named({24: 15}, {24: 15})
    assert start["me_head"] == start["opp_head"] == 1
    assert start["me_run"] == 1 / 6 and start["race"] == 0 and start["pip_lead"] == 0
    # each die moves the head checker to a free point
    assert all(start[f"me_mobility_{d}"] == 1 / 8 for d in range(1, 7))
    assert start["me_entry"] == pytest.approx(15 * 18 / 100)


def _wide(me: dict[int, int], opp: dict[int, int]) -> dict[str, float]:
    values = features(_rows(me), _rows(opp), WIDE_SIZE)[0]
    assert np.array_equal(values[:SIZE], features(_rows(me), _rows(opp))[0])
    return dict(zip(WIDE_NAMES, values.tolist(), strict=True))


def test_the_block_inputs_of_a_position() -> None:
    # the opponent holds its 7..11 (my 19..23): five in a row in front of
    # my head checkers; my 12 and 2 are past them (ahead: nothing)
    wide = _wide({24: 10, 12: 3, 2: 2}, {7: 3, 8: 3, 9: 3, 10: 3, 11: 3})
    assert wide["me_trapped4"] == wide["me_trapped5"] == 10 / 15
    assert wide["me_trapped6"] == 0
    assert wide["me_rear_block"] == 5 / 6
    # each head checker has all five in the six points in front of it
    assert wide["me_pressed"] == pytest.approx(10 * (5 / 6) ** 2 / 15)
    # in the opponent's numbering my points are its 12, 24 and 14: none in
    # front of its checkers on 7..11
    assert wide["opp_trapped4"] == wide["opp_rear_block"] == wide["opp_pressed"] == 0
    with pytest.raises(ValueError, match="184 or 194"):
        features(_rows({24: 15}), _rows({24: 15}), SIZE + 1)


def test_the_block_inputs_are_the_yardsticks_block_features() -> None:
    """Two implementations, one definition: bit masks here, the yardstick's
    runs of points there (ai.long_hand.side), on played positions where
    blocks of 4 to 6 occur."""
    player = LongNetPlayer(Level.MEDIUM, seed=3)
    me_rows, opp_rows = [], []
    for index in range(3):
        record = play_game(player, player, random.Random(index), first_starts=True, keep=True)
        for position, _ in record.positions:
            me, opp = rows(position)
            me_rows.append(me)
            opp_rows.append(opp)
    me, opp = np.array(me_rows), np.array(opp_rows)
    wide = features(me, opp, WIDE_SIZE)
    points = np.arange(1, 25)
    for first, x, y in ((SIZE, me, opp), (SIZE + len(BLOCK_NAMES), opp, me)):
        hand = side(x.astype(float), np.roll(y, 12, axis=1).astype(float), y @ points)
        for k, name in enumerate(BLOCK_NAMES):
            assert np.allclose(wide[:, first + k], hand[:, HAND_INDEX[name]]), name
    assert (wide[:, SIZE + 1] > 0).any() and (wide[:, SIZE + 2] > 0).any()


def test_blocks_mobility_race_and_mars_danger() -> None:
    # my six points 13..18 are the opponent's home 1..6; its checkers sit
    # on its 7 and 8 (my 19, 20), stopped in front of them
    blocked = _named({13: 2, 14: 2, 15: 2, 16: 2, 17: 2, 18: 2, 1: 3}, {7: 8, 8: 7})
    assert blocked["me_run"] == 1 and blocked["me_their_home"] == 1
    assert blocked["opp_mobility_1"] == 1 / 8  # only 8 -> 7
    assert all(blocked[f"opp_mobility_{d}"] == 0 for d in range(2, 7))
    assert blocked["race"] == 0
    # both sides on their own points 1..12: no contact is left
    race = _named({1: 10, 12: 5}, {2: 15})
    assert race["race"] == 1
    # nothing off and far from home against a side nearly done: mars danger
    late = _named({20: 15}, {1: 2})
    assert late["me_mars_margin"] == -3  # clipped: 2 pips against 15 x 14 to come home
    assert late["opp_mars_margin"] == 0  # it has borne off: no mars for it
    early = _named({20: 15}, {20: 15})
    assert early["me_mars_margin"] == pytest.approx((300 - 210) / 60)


def test_lambda_returns_turn_round_each_position() -> None:
    values = np.full((3, 5), 0.5)
    # the loser has a checker home: mars, not koks
    final = outcome(15, np.array([1] + [0] * 22 + [14]))
    assert list(final) == [1, 1, 0, 0, 0]
    assert list(outcome(15, np.array([0] * 23 + [15]))) == [1, 1, 1, 0, 0]  # koks
    targets = lambda_returns(values, final, lam=1.0)
    assert np.allclose(targets[2], final)
    assert np.allclose(targets[1], flip(final[None, :])[0])  # the loser: lose with mars
    assert np.allclose(targets[0], final)


def test_lambda_returns_go_on_from_a_cut() -> None:
    """A cut position takes its given target, and the positions before it
    are valued from there, not from the game that followed."""
    values = np.full((4, 5), 0.5)
    final = outcome(15, np.array([1] + [0] * 22 + [14]))
    given = np.array([0.7, 0.1, 0.0, 0.2, 0.05])
    targets = lambda_returns(values, final, lam=1.0, cuts={1: given})
    assert np.allclose(targets[3], final) and np.allclose(targets[2], flip(final[None, :])[0])
    assert np.allclose(targets[1], given)
    assert np.allclose(targets[0], flip(given[None, :])[0])
    assert np.allclose(lambda_returns(values, final, lam=0.7, cuts={}),
                       lambda_returns(values, final, lam=0.7))


def test_self_play_is_reproducible_and_the_net_learns_from_it() -> None:
    net = LongNet.fresh(8, np.random.default_rng(0))
    first = self_play(net, random.Random(4), explore=0.0)
    again = self_play(net, random.Random(4), explore=0.0)
    assert np.array_equal(first[0], again[0]) and np.array_equal(first[1], again[1])
    assert first[0].shape[1] == SIZE and first[1].shape == (len(first[0]), 5)


def test_self_play_with_the_hand_share_plays_the_yardsticks_turns() -> None:
    """--hand 1: every turn is the hand evaluation's, so two different nets
    play the same game (their targets differ); with no share they do not.
    A net with the block inputs gets them in its training rows."""
    one = LongNet.fresh(8, np.random.default_rng(0)).widened(8, np.random.default_rng(1),
                                                             WIDE_SIZE)
    other = LongNet.fresh(8, np.random.default_rng(2))
    by_hand = [self_play(net, random.Random(4), explore=0.0, hand=1.0) for net in (one, other)]
    assert by_hand[0][0].shape[1] == WIDE_SIZE and by_hand[1][0].shape[1] == SIZE
    assert np.array_equal(by_hand[0][0][:, :SIZE], by_hand[1][0])
    assert not np.array_equal(by_hand[0][1], by_hand[1][1])
    own = [self_play(net, random.Random(4), explore=0.0) for net in (one, other)]
    assert len(own[0][0]) != len(own[1][0]) or not np.array_equal(own[0][0][:, :SIZE], own[1][0])


def test_the_cut_keeps_the_partners_game_and_values_it_by_the_nets_own_turns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """--hand 1 --cut: the same game as without the cut (the partner still
    plays every turn), other targets where the net would have played
    otherwise; a partner who plays as the net does leaves nothing to cut."""
    net = LongNet.fresh(8, np.random.default_rng(0))
    plain = self_play(net, random.Random(4), explore=0.0, hand=1.0)
    cut = self_play(net, random.Random(4), explore=0.0, hand=1.0, cut=True)
    assert np.array_equal(plain[0], cut[0])
    assert not np.allclose(plain[1], cut[1])
    monkeypatch.setattr(train_long, "_HAND", net)
    agreeing = [self_play(net, random.Random(4), explore=0.0, hand=1.0, cut=c)
                for c in (False, True)]
    assert np.array_equal(agreeing[0][0], agreeing[1][0])
    assert np.array_equal(agreeing[0][1], agreeing[1][1])


@pytest.mark.parametrize(("options", "said"), [
    (["--cut"], "give --hand"),
    (["--hand", "1.5"], "a share of the turns, 0 to 1"),
    (["--hand", "-0.1"], "a share of the turns, 0 to 1"),
    (["--blocks"], "widen the net of --start-from"),
    (["--widen", "128"], "widen the net of --start-from"),
    (["--average", str(WEIGHTS_PATH), "--calibrate-only"], "not with --calibrate-only"),
    (["--weight-mean", str(WEIGHTS_PATH), "--start-from", str(WEIGHTS_PATH)],
     "--weight-mean writes a new net: not with --calibrate-only or --start-from"),
    (["--average", str(WEIGHTS_PATH), "--weight-mean", str(WEIGHTS_PATH)], "give one"),
    (["--mean-from", "10", "--calibrate-only"], "not with --average, --weight-mean or"),
    (["--mean-from", "10", "--average", str(WEIGHTS_PATH)], "not with --average, --weight-mean"),
    (["--mean-from", "10", "--weight-mean", str(WEIGHTS_PATH)],
     "not with --average, --weight-mean"),
    (["--weight-mean", "no/such/net.npz"], "cannot read a net from no/such/net.npz"),
    (["--average", "no/such/net.npz"], "cannot read a net from no/such/net.npz"),
    (["--start-from", "no/such/net.npz"], "cannot read a net from no/such/net.npz"),
    (["--calibrate-only"], "net.npz: FileNotFoundError"),  # --out not there
    (["--start-from", __file__], "cannot read a net from"),  # not a net file
    (["--average", str(WEIGHTS_PATH), str(WEIGHTS_PATH.with_name("long_net_best.npz"))],
     "same features"),  # the shipped net reads the old sums, best's the exact ones
    (["--weight-mean", str(WEIGHTS_PATH.with_name("long_net_best.npz")),
      str(WEIGHTS_PATH)], "--weight-mean cannot combine"),  # other shapes and sums
])
def test_training_refuses_options_it_cannot_follow(
    options: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """Bad options are said, and nothing is trained or written."""
    out = tmp_path / "net.npz"
    with pytest.raises(SystemExit):
        main([*options, "--out", str(out), "--games", "1"])
    assert said in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_a_net_trained_on_from_one_on_the_old_sums_reads_the_exact_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """--start-from a net file saved before the sums were exact: the net it
    trains on reads and saves the exact sums (ai.long_features._legacy_sums)."""
    monkeypatch.setitem(CALIBRATION, "games", 2)
    start = LongNet.fresh(8, np.random.default_rng(1))
    start.legacy = True
    start.info = {"games": 10.0}
    start.save(tmp_path / "old.npz")
    assert LongNet.load(tmp_path / "old.npz").legacy
    out = tmp_path / "new.npz"
    main(["--start-from", str(tmp_path / "old.npz"), "--out", str(out), "--games", "11"])
    trained = LongNet.load(out)
    assert not trained.legacy and trained.info["games"] == 11


def test_another_seed_trains_on_other_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """--seed: the same start and games on other dice give other weights (an
    ensemble's members); without it the seed is SETTINGS', so the runs of
    the docs are made again as they were.  A checkpoint resumes only with
    the seed it was trained with."""
    monkeypatch.setitem(CALIBRATION, "games", 2)
    start = LongNet.fresh(8, np.random.default_rng(3))
    start.info = {"games": 10.0}
    start.save(tmp_path / "start.npz")

    def trained(name: str, *seed: str) -> LongNet:
        main(["--start-from", str(tmp_path / "start.npz"), "--out", str(tmp_path / name),
              "--games", "13", *seed])
        return LongNet.load(tmp_path / name)

    default, same = trained("default.npz"), trained("same.npz", "--seed",
                                                    str(train_long.SETTINGS["seed"]))
    other = trained("other.npz", "--seed", "7")
    assert np.array_equal(default.w1, same.w1) and np.array_equal(default.w2, same.w2)
    assert not np.allclose(default.w1, other.w1, atol=1e-6)
    # a run goes on with its own seed, and another is refused with nothing changed
    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path / "other.npz"), "--games", "15"])
    assert "trained with --seed 7" in capsys.readouterr().err
    assert np.array_equal(LongNet.load(tmp_path / "other.npz").w1, other.w1)
    main(["--out", str(tmp_path / "other.npz"), "--games", "15", "--seed", "7"])
    assert LongNet.load(tmp_path / "other.npz").info["games"] == 15


def test_the_value_of_being_on_roll_is_fitted_to_the_nets_own_look_ahead() -> None:
    """fit_on_roll: with the fitted value added to every estimate of the side
    to roll, the net's estimate of a position before a roll and its look one
    roll ahead agree on average over the games it was fitted on (not
    exactly: a reply that bears off the last checker scores its exact
    result, which the value does not move)."""
    shipped = LongNet.load()
    net = LongNet(shipped.w1, shipped.b1, shipped.w2, shipped.b2)
    net.on_roll = fit_on_roll(net, 2, 5)
    assert -0.05 < net.on_roll < 0.05 and net.on_roll != 0
    player = LongNetPlayer(Level.MEDIUM, seed=5, net=net)
    player.noise = None  # the games it is fitted on: the plain 1-ply net's
    gaps = []
    for index in range(2):
        record = play_game(player, player, random.Random(5 * 1_000_003 + index),
                           first_starts=index % 2 == 0, keep=True)
        positions = [position for position, _ in record.positions]
        me, opponent = zip(*(rows(p) for p in positions), strict=True)
        now = net.value(net.probs(np.array(me), np.array(opponent)))
        gaps.extend(roll_values(net, positions, False) @ CHANCES - now)
    assert abs(np.mean(gaps)) < 0.002
    # a net on the old sums is fitted reading them, as it plays
    assert fit_on_roll(shipped, 2, 5) != net.on_roll and shipped.legacy


def test_the_value_of_being_on_roll_changes_no_choice() -> None:
    """The strong level with and without it picks the same turns in a game
    (every candidate of a ranking moves alike), and a 1-ply value moves by
    exactly minus it."""
    shipped = LongNet.load()
    plain = LongNet(shipped.w1, shipped.b1, shipped.w2, shipped.b2)
    shifted = LongNet(shipped.w1, shipped.b1, shipped.w2, shipped.b2, on_roll=-0.05)
    a = LongNetPlayer(Level.STRONG, net=plain)
    b = LongNetPlayer(Level.STRONG, net=shifted)
    record = play_game(a, a, random.Random(8), keep=True)
    for position, dice in record.positions:
        assert a.choose(position, dice) == b.choose(position, dice)
    position, dice = record.positions[10]
    turns = legal_turns(position, dice)
    assert np.allclose(b.shallow(position, turns), a.shallow(position, turns) + 0.05)


def test_an_averaged_net_plays_the_mean_of_its_nets_logits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """LongNet.averaged: one wider net whose logits are the mean of its nets'
    (probs, and probs_shared in C, alike); --average writes it with its own
    value of being on roll; nets reading other features are refused."""
    rng = np.random.default_rng(4)
    a, b = LongNet.fresh(8, rng), LongNet.fresh(12, rng)
    a.b2, b.b2 = rng.normal(0, 1, 5), rng.normal(0, 1, 5)
    position = play_game(LongNetPlayer(Level.EASY, seed=1), LongNetPlayer(Level.EASY, seed=2),
                         random.Random(3), keep=True).positions[30][0]
    me, opp = (np.array([row]) for row in rows(position))
    both = LongNet.averaged([a, b])
    assert both.w1.shape[1] == 20

    def logit(p: np.ndarray) -> np.ndarray:
        return np.asarray(np.log(p / (1 - p)))

    mean = (logit(a.probs(me, opp)) + logit(b.probs(me, opp))) / 2
    assert np.allclose(logit(both.probs(me, opp)), mean, atol=1e-5)
    index = np.zeros(1, dtype=np.intp)
    assert np.allclose(logit(both.probs_shared(me, index, opp, index)), mean, atol=1e-4)
    legacy = LongNet.fresh(8, rng)
    legacy.legacy = True
    with pytest.raises(ValueError, match="same features"):
        LongNet.averaged([a, legacy])
    with pytest.raises(ValueError, match="same features"):
        LongNet.averaged([])
    monkeypatch.setitem(CALIBRATION, "games", 2)
    a.save(tmp_path / "a.npz")
    b.save(tmp_path / "b.npz")
    main(["--average", str(tmp_path / "a.npz"), str(tmp_path / "b.npz"),
          "--out", str(tmp_path / "ab.npz")])
    saved = LongNet.load(tmp_path / "ab.npz")
    assert np.allclose(saved.w1, both.w1, atol=1e-6) and saved.on_roll != both.on_roll


def test_the_weight_mean_of_nets_is_the_mean_of_their_weights(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """LongNet.weight_mean: one net of the same shape, each weight the mean
    of the nets' (one net: itself); nets of other shapes or features are
    refused.  --weight-mean writes it with its own value of being on roll."""
    rng = np.random.default_rng(6)
    a, b, c = (LongNet.fresh(8, rng) for _ in range(3))
    mean = LongNet.weight_mean([a, b, c])
    for name in ("w1", "b1", "w2", "b2"):
        assert np.allclose(getattr(mean, name),
                           (getattr(a, name) + getattr(b, name) + getattr(c, name)) / 3)
    assert all(np.array_equal(x, y) for x, y in zip(LongNet.weight_mean([a]).weights,
                                                    a.weights, strict=True))
    with pytest.raises(ValueError, match="one shape"):
        LongNet.weight_mean([a, LongNet.fresh(9, rng)])
    legacy = LongNet.fresh(8, rng)
    legacy.legacy = True
    with pytest.raises(ValueError, match="one shape"):
        LongNet.weight_mean([a, legacy])
    with pytest.raises(ValueError, match="one shape"):
        LongNet.weight_mean([])
    monkeypatch.setitem(CALIBRATION, "games", 2)
    for name, net in zip("abc", (a, b, c), strict=True):
        net.on_roll = 0.25
        net.save(tmp_path / f"{name}.npz")
    main(["--weight-mean", *(str(tmp_path / f"{name}.npz") for name in "abc"),
          "--out", str(tmp_path / "mean.npz")])
    saved = LongNet.load(tmp_path / "mean.npz")
    assert all(np.allclose(x, y, atol=1e-6) for x, y in zip(saved.weights, mean.weights,
                                                            strict=True))
    assert saved.on_roll != 0.25


def test_training_with_mean_from_writes_the_mean_of_its_checkpoints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """--mean-from G: the net written is the weight mean of the run's
    checkpoints from game G on, the same when the run is stopped and
    resumed between them; the checkpoint keeps the live weights.  A run that
    ends before game G writes its last weights and says so."""
    monkeypatch.setitem(CALIBRATION, "games", 2)
    start = LongNet.fresh(8, np.random.default_rng(2))
    start.info = {"games": 10.0}
    start.save(tmp_path / "start.npz")
    common = ["--start-from", str(tmp_path / "start.npz"), "--checkpoint-every", "2"]
    snapshots = []
    for games in (12, 14, 16):  # the checkpoints from game 12 on, one run a step
        main([*common, "--out", str(tmp_path / "step.npz"), "--games", str(games)])
        with np.load(tmp_path / "step.ckpt.npz") as data:
            snapshots.append(LongNet(data["w1"], data["b1"], data["w2"], data["b2"]))
    main([*common, "--out", str(tmp_path / "mean.npz"), "--games", "14", "--mean-from", "12"])
    main([*common, "--out", str(tmp_path / "mean.npz"), "--games", "16", "--mean-from", "12"])
    written = LongNet.load(tmp_path / "mean.npz")
    expected = LongNet.weight_mean(snapshots)
    for mine, theirs in zip(written.weights, expected.weights, strict=True):
        assert np.allclose(mine, theirs, atol=1e-6)  # saved as float32
    assert not np.allclose(written.w1, snapshots[-1].w1, atol=1e-6)
    assert written.info["games"] == 16
    with np.load(tmp_path / "mean.ckpt.npz") as data:
        assert np.array_equal(data["w1"], snapshots[-1].w1) and int(data["mean_count"]) == 3
    # no checkpoint from that game on: it says so and writes the last weights
    main([*common, "--out", str(tmp_path / "late.npz"), "--games", "12", "--mean-from", "20"])
    assert "no checkpoint from game 20 on: the last weights" in capsys.readouterr().out
    assert np.allclose(LongNet.load(tmp_path / "late.npz").w1, snapshots[0].w1, atol=1e-6)
