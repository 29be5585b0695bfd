"""Hand-made features of long nardy positions, for the learned evaluation
(:mod:`ai.long_net`) and the greedy baseline (:mod:`ai.heuristic`).

A batch of positions is two integer arrays of shape ``(N, 24)``: ``me`` (the
side the features are for, usually the side to roll) and ``opp``, each in its
own numbering (column ``i`` = that side's own point ``i + 1``; long nardy has
no bar).  My point ``p`` is the opponent's point ``(p + 11) % 24 + 1``, so the
opponent's checkers seen in my numbering are ``np.roll(opp, 12, axis=1)``.

Per side (mine first, then the opponent's, each seen from its own side):

* ``occupancy`` (72): for each point, ``n >= 1``, ``n >= 2`` and
  ``(n - 2) / 13`` for more (the head holds up to 15);
* ``pips`` (pips / 360), ``off`` (borne off / 15), ``any_off``,
  ``home`` (checkers on points 1..6 / 15), ``all_home`` (may bear off),
  ``head`` (checkers still on point 24 / 15);
* ``entry`` - pips to bring every checker home (sum of ``p - 6`` over points
  above 6) / 100: how far the side is from bearing off its first checker,
  the core of mars danger;
* ``mars_margin`` - while nothing is borne off: (the other side's pips minus
  my ``entry``) / 60, clipped to ±3: positive when I should get a checker off
  before the other side finishes (no mars), negative when mars threatens;
* ``mobility`` (6): for each die 1..6, the points I hold from which a checker
  can move that far to a point the opponent does not hold, / 8;
* ``run`` - my longest run of held points (blocks count along the opponent's
  path, so the run breaks between my points 12 and 13) / 6; ``spread`` -
  points held / 12; ``their_home`` - points held in the opponent's home (my
  13..18) / 6; ``start_quarter`` - checkers on my 19..24 / 15; ``stack`` -
  checkers beyond three on a point, head excluded, / 15.

Shared: ``race`` (1 when no contact is left: every checker of both sides is
on its own points 1..12, the two groups can never meet again) and
``pip_lead`` ((opponent's pips - mine) / 100).

These :data:`SIZE` inputs are the shipped net's.  A net may take
:data:`WIDE_SIZE`: the same and, per side (mine, then the opponent's),
the blocks in front of its checkers (``BLOCK_NAMES``; the yardstick's
strategy features, :mod:`ai.long_hand`, computed here on bit masks):
``trapped4``/``5``/``6`` - checkers with a block of at least 4, 5, 6 of
the other side's points in a row somewhere ahead of them, / 15;
``rear_block`` - the longest such block ahead of the rearmost checker, / 6;
``pressed`` - for each checker outside home, (the other side's points among
the six in front of it / 6) squared, summed / 15.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

try:
    from ai import _longcore
except ImportError:  # built without a C compiler: numpy serves
    _longcore = None  # type: ignore[assignment]

Rows = npt.NDArray[np.integer[Any]]
"""Checkers by point, one row per position (int64, or uint8 from the C core)."""
Matrix = npt.NDArray[np.float64]

POINTS = 24
CHECKERS = 15
_POINT_NUMBERS = np.arange(1, POINTS + 1, dtype=np.float64)
_ENTRY_WEIGHT = np.maximum(_POINT_NUMBERS - 6, 0)

SIDE_NAMES: tuple[str, ...] = (
    *(f"occ1_{p}" for p in range(1, 25)),
    *(f"occ2_{p}" for p in range(1, 25)),
    *(f"occ3_{p}" for p in range(1, 25)),
    "pips",
    "off",
    "any_off",
    "home",
    "all_home",
    "head",
    "entry",
    "mars_margin",
    *(f"mobility_{d}" for d in range(1, 7)),
    "run",
    "spread",
    "their_home",
    "start_quarter",
    "stack",
)
SHARED_NAMES: tuple[str, ...] = ("race", "pip_lead")
NAMES: tuple[str, ...] = (
    *(f"me_{name}" for name in SIDE_NAMES),
    *(f"opp_{name}" for name in SIDE_NAMES),
    *SHARED_NAMES,
)
SIZE = len(NAMES)
INDEX = {name: i for i, name in enumerate(NAMES)}
BLOCK_NAMES: tuple[str, ...] = ("trapped4", "trapped5", "trapped6", "rear_block", "pressed")
WIDE_NAMES: tuple[str, ...] = (
    *NAMES,
    *(f"me_{name}" for name in BLOCK_NAMES),
    *(f"opp_{name}" for name in BLOCK_NAMES),
)
WIDE_SIZE = len(WIDE_NAMES)


_BITS = 1 << np.arange(POINTS, dtype=np.int64)
_ALL = (1 << POINTS) - 1
_NO_WRAP = _ALL & ~(1 << 12)
"""A run of held points breaks between my points 12 and 13 (bits 11, 12)."""
_LINEAR = np.zeros((POINTS, 6), dtype=np.int64)
_LINEAR[:, 0] = np.arange(1, POINTS + 1)  # pips
_LINEAR[:, 1] = 1  # checkers on the board
_LINEAR[:6, 2] = 1  # home
_LINEAR[23, 3] = 1  # head
_LINEAR[:, 4] = _ENTRY_WEIGHT  # entry
_LINEAR[18:, 5] = 1  # start quarter
_SCALE = np.array([360, 15, 15, 15, 100, 15])
"""The counts of :data:`_LINEAR` are summed in integers and divided once:
summed as fractions (``n @ (w / 15)``) they came out 1e-16 off in half the
positions, in the summation order of the processor's BLAS, and ``off > 0``
("any off") and the mars margin's "nothing off" with them."""


def _longest_run(held: Rows, cap: int = 8, joined: int = _NO_WRAP) -> Matrix:
    """Longest run of held points (bit masks) per row, up to ``cap``; a run
    goes on from bit ``i - 1`` to bit ``i`` only where ``joined`` has bit ``i``."""
    best = np.zeros(held.shape[0])
    run = held
    for _ in range(cap):
        alive = run != 0
        if not alive.any():
            break
        best += alive
        run = run & (run << 1) & joined
    return best


_SHIFTS = np.arange(POINTS, dtype=np.int64)


def _unpack(bits: Rows) -> Rows:
    """``(N, 24)`` 0/1 columns of 24-bit masks."""
    return np.asarray((bits[:, None] >> _SHIFTS) & 1)


def _blocks(n: Rows, mine: Rows, seen: Rows) -> Matrix:
    """:data:`BLOCK_NAMES` of each row of ``n`` (checkers, own numbering,
    held points ``mine``) against the other side's held points ``seen`` in
    the same numbering (bit ``p - 1`` for point ``p``).  A checker moves down its numbering,
    so what is ahead of point ``p`` is on the bits below ``p - 1``; the
    other side's points in a row are a block here across the middle too."""
    columns = []
    # above[:, i]: checkers on bits i.. (points i + 1..); 0 past the top
    above = np.zeros((len(n), POINTS + 1), dtype=np.int64)
    above[:, :POINTS] = n[:, ::-1].cumsum(axis=1)[:, ::-1]
    rows = np.arange(len(n))
    starts = seen
    for length in range(2, 7):
        starts = starts & (seen >> (length - 1))
        if length < 4:
            continue
        # the checkers above the top of the lowest block of this length
        lowest = np.log2(np.maximum(starts & -starts, 1)).astype(np.int64)
        top = np.where(starts != 0, lowest + length, POINTS)
        columns.append(above[rows, top] / 15)
    rear = np.where(mine > 0, np.floor(np.log2(np.maximum(mine, 1))), 0).astype(np.int64)
    below = np.where(mine > 0, (np.int64(1) << rear) - 1, 0)
    columns.append(_longest_run(seen & below, POINTS, _ALL) / 6)
    theirs = _unpack(seen).cumsum(axis=1)
    ahead = np.zeros_like(theirs)
    ahead[:, 1:] = theirs[:, :-1]
    ahead[:, 7:] -= theirs[:, :-7]
    # (the other side's points among the six ahead / 6) squared, in integers
    columns.append((n[:, 6:] * ahead[:, 6:] ** 2).sum(axis=1) / (36 * 15))
    return np.stack(columns, axis=1)


def _sides(both: Rows, bits: Rows, seen: Rows, other_pips: Rows) -> Matrix:
    """The per-side features of each row of ``both`` (checkers, own
    numbering; held points ``bits``, bit ``p - 1`` for point ``p``) against
    the other side whose held points ``seen`` are given in the same
    numbering.  Sums are taken in integers, so they are exact."""
    n = both.astype(np.float64)
    held = n > 0
    counts = both @ _LINEAR
    pips, home, head, entry, quarter = (counts[:, [0, 2, 3, 4, 5]] / _SCALE[[0, 2, 3, 4, 5]]).T
    on = counts[:, 1]
    free = ~seen & _ALL
    mobility = [np.bitwise_count(bits & (free << die)) for die in range(1, 7)]
    stack = np.maximum(both[:, :23] - 3, 0).sum(axis=1) / 15
    singles = np.stack(
        [
            pips,
            (CHECKERS - on) / 15,
            on < CHECKERS,
            home,
            counts[:, 4] == 0,
            head,
            entry,
            np.clip((other_pips - counts[:, 4]) / 60, -3, 3) * (on == CHECKERS),
            *(m / 8 for m in mobility),
            _longest_run(bits) / 6,
            np.bitwise_count(bits) / 12,
            np.bitwise_count(bits & 0x3F000) / 6,
            quarter,
            stack,
        ],
        axis=1,
    )
    return np.concatenate([held, n >= 2, np.maximum(n - 2, 0) / 13, singles], axis=1)


def features(me: Rows, opp: Rows, size: int = SIZE, legacy: bool = False,
             dtype: type[np.floating[Any]] = np.float64) -> Matrix:
    """The ``(N, size)`` feature matrix of a batch (see the module doc):
    ``size`` is :data:`SIZE` or :data:`WIDE_SIZE`; ``legacy`` for a net
    trained on the old sums (:func:`_legacy_sums`); ``dtype`` float64 or
    float32.  Computed in C (:mod:`ai._longcore`, equal bit for bit) where
    it was built."""
    if size not in (SIZE, WIDE_SIZE):
        raise ValueError(f"a net takes {SIZE} or {WIDE_SIZE} inputs, not {size}")
    if np.dtype(dtype) not in (np.dtype(np.float64), np.dtype(np.float32)):
        raise ValueError(f"features are float64 or float32, not {np.dtype(dtype).name}")
    if _longcore is None:
        found = numpy_features(me, opp, size).astype(dtype)
    else:
        mine = np.ascontiguousarray(me, dtype=np.uint8)
        found = np.empty((len(mine), size), dtype=dtype)
        _longcore.features(mine, np.ascontiguousarray(opp, dtype=np.uint8), found)
    if legacy:
        _legacy_sums(found, me, opp)
    return found


def numpy_features(me: Rows, opp: Rows, size: int = SIZE) -> Matrix:
    """:func:`features` in numpy (where the C module was not built, and to
    check it)."""
    both = np.concatenate([np.asarray(me), np.asarray(opp)]).astype(np.int64)
    count = len(both) // 2
    pips = both @ _LINEAR[:, 0]
    held_bits = (both > 0).astype(np.int64) @ _BITS
    others = np.concatenate([held_bits[count:], held_bits[:count]])
    # the other side's points in each side's own numbering
    seen = ((others >> 12) | (others << 12)) & _ALL
    other_pips = np.concatenate([pips[count:], pips[:count]])
    sides = _sides(both, held_bits, seen, other_pips)
    behind = np.asarray(both[:, 12:].any(axis=1))
    race = ~(behind[:count] | behind[count:])
    lead = (other_pips[:count] - pips[:count]) / 100
    parts = [sides[:count], sides[count:], race[:, None], lead[:, None]]
    if size == WIDE_SIZE:
        blocks = _blocks(both, held_bits, seen)
        parts += [blocks[:count], blocks[count:]]
    return np.concatenate(parts, axis=1)


_LEGACY_ON = np.full((POINTS, 6), 1 / 15)
_OFF_COLUMNS = [(INDEX[f"{side}_off"], INDEX[f"{side}_any_off"], INDEX[f"{side}_mars_margin"])
                for side in ("me", "opp")]


def _legacy_sums(found: Matrix, me: Rows, opp: Rows) -> None:
    """Make ``found`` what the nets trained before 7 December 2026 saw.

    They summed the checkers on the board as fractions, ``n @ (1 / 15)``
    in a matrix product, which came out 1e-16 above or below 1 in about
    half the positions (by the summation order of the processor's BLAS):
    there "any off" read 1 and the mars margin read 0 while nothing was
    off.  Such a net plays as trained only with the same readings (with
    the exact ones the shipped net won 46.0% of 250 games against itself:
    docs/ai.md)."""
    both = np.concatenate([np.asarray(me), np.asarray(opp)]).astype(np.float64)
    # the very product the old code made (six columns, of which this one):
    # BLAS sums a matrix product in another order than a vector's
    off = 1 - (both @ _LEGACY_ON)[:, 1]
    count = len(both) // 2
    for (at_off, at_any, at_margin), part in zip(_OFF_COLUMNS, (off[:count], off[count:]),
                                                 strict=True):
        found[:, at_off] = part
        found[:, at_any] = part > 0
        found[:, at_margin] *= part == 0


# ---- the features in two parts, for pairs of rows that share their rows ----

def stable_product(rows: npt.NDArray[Any], weights: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """``rows @ weights``, a single row too by the matrix product: numpy
    multiplies a single row by a matrix-vector routine, which rounds
    otherwise - and the old sums (:func:`_legacy_sums`) read "off" from
    that rounding."""
    if len(rows) == 1:
        return np.asarray((np.vstack([rows, rows]) @ weights)[:1])
    return np.asarray(rows @ weights)


OWN_SIZE = 85
"""Columns of :func:`own_features`: what a side's features read of its own
checkers alone."""
CROSS_SIZE = 15
"""Columns of the cross part (``ai._longcore.pairs``) for a net of
:data:`SIZE` inputs, what reads both sides: each side's mars margin and
mobility, the race; a net of :data:`WIDE_SIZE` has the 10 blocks too."""
_OWN_NAMES = (*SIDE_NAMES[:79], *SIDE_NAMES[86:])
"""The own part's columns but its last (pips / 100, the lead's share):
the side's features but the mars margin and mobility."""
_SIDE_CROSS = ("mars_margin", *(f"mobility_{d}" for d in range(1, 7)))
_CROSS_NAMES = (*(f"me_{name}" for name in _SIDE_CROSS),
                *(f"opp_{name}" for name in _SIDE_CROSS), "race",
                *WIDE_NAMES[SIZE:])
WIDE_INDEX = {name: i for i, name in enumerate(WIDE_NAMES)}


def split_weights(w1: Matrix) -> tuple[Matrix, Matrix, Matrix]:
    """A first layer's weights ``(inputs, hidden)`` by the features' parts:
    ``(mine, theirs, cross)`` such that ``features(me, opp) @ w1`` is
    ``own(me) @ mine + own(opp) @ theirs + cross(me, opp) @ cross`` (the
    mars margins gated): the pip lead, ``(their pips - mine) / 100``, is
    each side's pips / 100 with a sign."""
    index = WIDE_INDEX
    lead = w1[index["pip_lead"]]
    mine = np.vstack([w1[[index[f"me_{name}"] for name in _OWN_NAMES]], -lead])
    theirs = np.vstack([w1[[index[f"opp_{name}"] for name in _OWN_NAMES]], lead])
    cross = w1[[index[name] for name in _CROSS_NAMES[:len(w1) - SIZE + CROSS_SIZE]]]
    return mine, theirs, cross


def own_features(rows: Rows, legacy: bool = False
                 ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """The own part (:data:`OWN_SIZE` columns, float32) of distinct rows,
    and each row's gate of its mars margin (1 while none of its checkers is
    off; for a ``legacy`` net, also while the old sum read none off: its
    off and any off are the old sums' too, :func:`_legacy_sums`).  Needs
    the C core."""
    assert _longcore is not None
    n = np.ascontiguousarray(rows, dtype=np.uint8)
    found = np.empty((len(n), OWN_SIZE), dtype=np.float32)
    _longcore.own(n, found)
    at_off, at_any = _OWN_NAMES.index("off"), _OWN_NAMES.index("any_off")
    gate = found[:, at_any] == 0
    if legacy:
        # the very product the old code made: see _legacy_sums
        off = 1 - stable_product(n.astype(np.float64), _LEGACY_ON)[:, 1]
        found[:, at_off] = off
        found[:, at_any] = off > 0
        gate &= off == 0
    return found, gate.astype(np.float32)
