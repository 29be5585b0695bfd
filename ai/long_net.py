"""The long nardy evaluation: a small MLP on :mod:`ai.long_features`.

It estimates, for the side to roll, five probabilities: win, win with mars,
win with koks, lose with mars, lose with koks (koks is part of mars; it only
counts when the game's koks option is on).  The equity in points of one game,
for the side to roll, is ``2 win - 1 + win_mars - lose_mars`` plus
``win_koks - lose_koks`` with koks, so the brain plays for mars when it is on
the table and away from it when losing.

Weights are trained by :mod:`ai.train_long` and shipped as
``ai/data/long_net.npz``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from ai.long_features import (
    SIZE,
    WIDE_SIZE,
    Matrix,
    Rows,
    features,
    own_features,
    split_weights,
)

try:
    from ai import _longcore
except ImportError:  # built without a C compiler: probs_shared gathers the rows
    _longcore = None  # type: ignore[assignment]

OUTPUTS = ("win", "win_mars", "win_koks", "lose_mars", "lose_koks")
WEIGHTS_PATH = Path(__file__).parent / "data" / "long_net.npz"
CHUNK = 2048
"""Rows per call of the evaluation: a 3-ply look values up to some 100,000
positions, and their feature matrices (184 floats a row) in one piece
outgrow the processor's caches: 8.7 µs a row in one piece, 4.7-5.5 in
pieces of 2,048 (docs/ai.md, "Long nardy's best: a roll deeper")."""
Vector = npt.NDArray[np.float64]


def flip(probs: Matrix) -> Matrix:
    """The same estimates from the other side's point of view."""
    return np.stack([1 - probs[:, 0], probs[:, 3], probs[:, 4], probs[:, 1], probs[:, 2]], axis=1)


def equity(probs: Matrix, koks: bool = False) -> Vector:
    """Expected points of one game (cube 1) for the side the ``probs`` are for."""
    value = 2 * probs[:, 0] - 1 + probs[:, 1] - probs[:, 3]
    if koks:
        value = value + probs[:, 2] - probs[:, 4]
    return np.asarray(value)


def outcome(winner_off: int, loser_row: Rows) -> Vector:
    """The five targets for the winner of a finished game (``loser_row``: the
    loser's checkers in its own numbering)."""
    del winner_off
    mars = float(loser_row.sum() == 15)
    koks = mars * float(not loser_row[:6].any())
    return np.array([1.0, mars, koks, 0.0, 0.0])


class Evaluation(Protocol):
    """What a search needs of an evaluation (:class:`LongNet`, or the hand
    one of :mod:`ai.long_expectimax`): the five estimates for ``me`` to
    roll, and the equity they give."""

    def probs(self, me: Rows, opp: Rows) -> Matrix: ...

    def value(self, probs: Matrix, koks: bool = False) -> Vector: ...


@dataclass
class LongNet:
    """:data:`~ai.long_features.SIZE` or :data:`~ai.long_features.WIDE_SIZE`
    inputs (:attr:`inputs`), ``hidden`` tanh units, five sigmoid outputs."""

    w1: Matrix
    b1: Vector
    w2: Matrix
    b2: Vector
    info: dict[str, float] = field(default_factory=dict)
    on_roll: float = 0.0
    """Points added to the equity of the side to roll: the calibration of
    the value of being on roll (:func:`ai.train_long.fit_on_roll`), which
    makes the net's estimate of a position before a roll agree on average
    with its own look one roll ahead."""
    legacy: bool = False
    """Trained on the old sums of checkers (:func:`ai.long_features._legacy_sums`):
    the nets saved before 7 December 2026, which have no ``exact_sums`` in
    their file."""

    def value(self, probs: Matrix, koks: bool = False) -> Vector:
        """The equity of the side to roll for the net's ``probs``:
        :func:`equity` plus :attr:`on_roll`."""
        return equity(probs, koks) + self.on_roll

    @classmethod
    def fresh(cls, hidden: int, rng: np.random.Generator) -> LongNet:
        return cls(
            rng.normal(0, 1 / np.sqrt(SIZE), (SIZE, hidden)),
            np.zeros(hidden),
            rng.normal(0, 1 / np.sqrt(hidden), (hidden, len(OUTPUTS))),
            np.zeros(len(OUTPUTS)),
        )

    @classmethod
    def load(cls, path: Path = WEIGHTS_PATH) -> LongNet:
        with np.load(path) as data:
            info = {key[5:]: float(data[key]) for key in data.files if key.startswith("info_")}
            # stored as float32; computed in float64 like the features (a
            # mixed-type product misses the fast BLAS path)
            w1, b1, w2, b2 = (
                np.asarray(data[name], dtype=np.float64) for name in ("w1", "b1", "w2", "b2")
            )
            on_roll = float(data["on_roll"]) if "on_roll" in data.files else 0.0
            return cls(w1, b1, w2, b2, info, on_roll, legacy="exact_sums" not in data.files)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays: dict[str, Matrix] = {
            "w1": self.w1.astype(np.float32),
            "b1": self.b1.astype(np.float32),
            "w2": self.w2.astype(np.float32),
            "b2": self.b2.astype(np.float32),
        }
        arrays |= {f"info_{key}": np.array(value) for key, value in self.info.items()}
        arrays["on_roll"] = np.array(self.on_roll)
        if not self.legacy:
            arrays["exact_sums"] = np.array(True)
        np.savez_compressed(path, allow_pickle=False, **arrays)

    @property
    def inputs(self) -> int:
        """How many features the net takes (:func:`ai.long_features.features`'s ``size``)."""
        return int(self.w1.shape[0])

    def widened(self, hidden: int, rng: np.random.Generator, inputs: int | None = None) -> LongNet:
        """The same function with ``hidden`` units and ``inputs`` features
        (:data:`~ai.long_features.WIDE_SIZE` adds the blocks): new inputs
        start with weights 0, new units with small random input weights and
        output weights 0, so training goes on from the net as it plays."""
        inputs = self.inputs if inputs is None else inputs
        extra, more = hidden - self.w1.shape[1], inputs - self.inputs
        if extra < 0 or more < 0 or inputs not in (SIZE, WIDE_SIZE):
            raise ValueError(f"cannot widen {self.inputs}x{self.w1.shape[1]} to {inputs}x{hidden}")
        w1 = np.concatenate([self.w1, np.zeros((more, self.w1.shape[1]))])
        w1 = np.concatenate([w1, rng.normal(0, 0.1 / np.sqrt(inputs), (inputs, extra))], axis=1)
        b1 = np.concatenate([self.b1, np.zeros(extra)])
        w2 = np.concatenate([self.w2, np.zeros((extra, self.w2.shape[1]))])
        return LongNet(w1, b1, w2, self.b2.copy(), on_roll=self.on_roll, legacy=self.legacy)

    @classmethod
    def averaged(cls, nets: Sequence[LongNet]) -> LongNet:
        """One net whose outputs' logits are the mean of ``nets``' logits:
        their hidden units side by side, each net's second layer divided by
        how many they are - an ensemble that plays as one wider net (its
        :attr:`on_roll` the mean of theirs until fitted again).  The nets
        must read the same features."""
        if not nets or len({(net.inputs, net.legacy) for net in nets}) != 1:
            raise ValueError("nets to average must be one or more reading the same features: "
                             f"{[(net.inputs, net.legacy) for net in nets]}")
        return cls(np.concatenate([net.w1 for net in nets], axis=1),
                   np.concatenate([net.b1 for net in nets]),
                   np.concatenate([net.w2 for net in nets]) / len(nets),
                   np.mean([net.b2 for net in nets], axis=0),
                   on_roll=float(np.mean([net.on_roll for net in nets])),
                   legacy=nets[0].legacy)

    @classmethod
    def weight_mean(cls, nets: Sequence[LongNet]) -> LongNet:
        """One net of the same shape whose weights are the mean of ``nets``'
        weights (:class:`WeightSum`): stochastic weight averaging of one
        run's checkpoints, whose hidden units are the same units, moved a
        little (nets trained apart have units in no common order: for them,
        :meth:`averaged`).  The nets must have one shape and read the same
        features."""
        if not nets or len({(net.w1.shape, net.legacy) for net in nets}) != 1:
            raise ValueError("nets to take the weight mean of must be one or more of one shape "
                             f"and features: {[(net.w1.shape, net.legacy) for net in nets]}")
        total = WeightSum()
        for net in nets:
            total.add(net)
        mean = total.mean(legacy=nets[0].legacy)
        mean.on_roll = float(np.mean([net.on_roll for net in nets]))
        return mean

    @property
    def weights(self) -> tuple[Matrix, Vector, Matrix, Vector]:
        """The four arrays training moves: w1, b1, w2, b2."""
        return self.w1, self.b1, self.w2, self.b2

    def hidden(self, x: Matrix) -> Matrix:
        return np.asarray(np.tanh(x @ self.w1 + self.b1))

    def probs_of_features(self, x: Matrix) -> Matrix:
        logits = self.hidden(x) @ self.w2 + self.b2
        return np.asarray(1 / (1 + np.exp(-logits)))

    def probs(self, me: Rows, opp: Rows) -> Matrix:
        """Estimates for ``me`` to roll against ``opp`` (batches of rows).
        The features and the first layer in float32: a third of the time of
        float64 (1.4 µs a row), the estimates within some 1e-6 of
        :meth:`probs_of_features` (training's float64)."""
        x = features(me, opp, self.inputs, self.legacy, np.float32)
        h = x @ self.w1.astype(np.float32)
        h += self.b1.astype(np.float32)
        np.tanh(h, out=h)
        logits = h.astype(np.float64) @ self.w2  # the second layer in float64
        logits += self.b2
        np.negative(logits, out=logits)
        np.exp(logits, out=logits)
        logits += 1
        return np.reciprocal(logits, out=logits)

    def probs_shared(self, me: Rows, me_index: npt.NDArray[np.intp], opp: Rows,
                     opp_index: npt.NDArray[np.intp]) -> Matrix:
        """:meth:`probs` of the pairs ``(me[me_index], opp[opp_index])``, for
        many pairs of few rows: in a 2- or 3-ply look each reply meets some
        20 positions of the other side, and each of those some thousand
        replies.  The first layer is split by the features' parts
        (:func:`ai.long_features.split_weights`): each row's own part is
        multiplied once (``_longcore.shares``), and the rest pair by pair
        (``_longcore.pairs``: the 15 or 25 inputs that read both sides,
        tanh, the second layer), in C, in vectors - some 0.35 µs a pair
        where :meth:`probs` takes 1.4 µs a row; the same estimates within
        float32's rounding.  Each row and pair is summed in one fixed order,
        so a pair's estimates do not depend on the batch it came in."""
        if _longcore is None or len(self.b1) > _longcore.MOST_HIDDEN:
            return np.concatenate(
                [self.probs(me[me_index[i : i + CHUNK]], opp[opp_index[i : i + CHUNK]])
                 for i in range(0, len(me_index), CHUNK)] or [np.empty((0, len(OUTPUTS)))])
        mine, theirs, cross = split_weights(self.w1.astype(np.float32))
        own_me, gate_me = own_features(me, self.legacy)
        own_opp, gate_opp = own_features(opp, self.legacy)
        # each row's share, the bias in mine (once per row, not per pair)
        first_me = np.empty((len(me), len(self.b1)), dtype=np.float32)
        first_opp = np.empty((len(opp), len(self.b1)), dtype=np.float32)
        _longcore.shares(own_me, np.ascontiguousarray(mine), self.b1.astype(np.float32),
                         first_me)
        _longcore.shares(own_opp, np.ascontiguousarray(theirs),
                         np.zeros(len(self.b1), dtype=np.float32), first_opp)
        found = np.empty((len(me_index), len(OUTPUTS)))
        _longcore.pairs(np.ascontiguousarray(me, dtype=np.uint8),
                        np.ascontiguousarray(me_index, dtype=np.int64),
                        np.ascontiguousarray(opp, dtype=np.uint8),
                        np.ascontiguousarray(opp_index, dtype=np.int64),
                        gate_me, gate_opp, first_me, first_opp, np.ascontiguousarray(cross),
                        np.ascontiguousarray(self.w2.T, dtype=np.float64),
                        np.ascontiguousarray(self.b2, dtype=np.float64), found)
        return found


@dataclass
class WeightSum:
    """A running sum of nets' weights in float64, in the order they came:
    :meth:`LongNet.weight_mean`, and training's ``--mean-from``, which keeps
    it in its checkpoint so a resumed run goes on with it."""

    sums: list[Matrix] | None = None
    count: int = 0

    def add(self, net: LongNet) -> None:
        if self.sums is None:
            self.sums = [np.zeros_like(array, dtype=np.float64) for array in net.weights]
        for total, array in zip(self.sums, net.weights, strict=True):
            total += array
        self.count += 1

    def mean(self, legacy: bool) -> LongNet:
        if self.sums is None or not self.count:
            raise ValueError("the mean of no nets")
        w1, b1, w2, b2 = (total / self.count for total in self.sums)
        return LongNet(w1, b1, w2, b2, legacy=legacy)


@dataclass
class Adam:
    """Adam on the net's four arrays (cross-entropy on the sigmoid outputs)."""

    rate: float
    beta1: float = 0.9
    beta2: float = 0.999
    steps: int = 0
    moments: list[tuple[Matrix, Matrix]] = field(default_factory=list)

    def step(self, net: LongNet, x: Matrix, target: Matrix) -> float:
        """One update towards ``target`` for the inputs ``x``; the mean loss."""
        h = net.hidden(x)
        p = 1 / (1 + np.exp(-(h @ net.w2 + net.b2)))
        eps = 1e-7
        loss = -np.mean(target * np.log(p + eps) + (1 - target) * np.log(1 - p + eps))
        d_out = (p - target) / len(x)
        grads = [
            np.zeros_like(net.w1),
            np.zeros_like(net.b1),
            h.T @ d_out,
            d_out.sum(axis=0),
        ]
        d_h = (d_out @ net.w2.T) * (1 - h * h)
        grads[0] = x.T @ d_h
        grads[1] = d_h.sum(axis=0)
        params = [net.w1, net.b1, net.w2, net.b2]
        if not self.moments:
            self.moments = [(np.zeros_like(q), np.zeros_like(q)) for q in params]
        self.steps += 1
        correction = np.sqrt(1 - self.beta2**self.steps) / (1 - self.beta1**self.steps)
        for param, grad, (m, v) in zip(params, grads, self.moments, strict=True):
            m *= self.beta1
            m += (1 - self.beta1) * grad
            v *= self.beta2
            v += (1 - self.beta2) * grad * grad
            param -= self.rate * correction * m / (np.sqrt(v) + 1e-8)
        return float(loss)
