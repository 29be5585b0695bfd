"""Search over long nardy turns with the learned evaluation.

:func:`turn_equities` scores every legal turn at 1 ply: the position after
the turn, evaluated for the opponent to roll and turned round.  A turn that
bears off the last checker scores its exact result.  :func:`two_ply` looks
one roll further for the best few: the opponent's best reply to each of the
21 rolls, weighted by their chances.
"""

from __future__ import annotations

import numpy as np

from ai.long_features import Rows
from ai.long_net import LongNet, Vector, equity
from engine import Dice, Position, Turn, Variant, legal_turns
from engine._movegen import _CODE_BYTES, final_states
from engine.turns import _generator

ROLLS: tuple[tuple[Dice, float], ...] = tuple(
    (Dice(a, b), (1 if a == b else 2) / 36) for a in range(1, 7) for b in range(a, 7)
)
"""The 21 distinct rolls with their chances."""


def rows(position: Position) -> tuple[Rows, Rows]:
    """``(mover, opponent)`` as arrays of 24 points (no bar in long nardy)."""
    board = position.board
    mover = board[position.turn]
    other = board[position.turn.opponent]
    return np.array(mover[:24], dtype=np.int64), np.array(other[:24], dtype=np.int64)


def exact_win(loser: Rows, koks: bool) -> float:
    """Points the winner gets against ``loser``'s checkers (cube 1)."""
    if loser.sum() < 15:
        return 1.0
    if koks and not loser[:6].any():
        return 3.0
    return 2.0


def afterstate_equities(net: LongNet, movers: Rows, opponent: Rows, koks: bool) -> Vector:
    """The mover's equity after each of ``movers`` (K, 24) with ``opponent``
    to roll next."""
    count = len(movers)
    others = np.broadcast_to(opponent, (count, 24))
    values = -equity(net.probs(others, movers), koks)
    finished = movers.sum(axis=1) == 0
    if finished.any():
        values[finished] = exact_win(opponent, koks)
    return values


def turn_equities(
    net: LongNet, position: Position, dice: Dice, koks: bool = False
) -> tuple[list[Turn], Vector]:
    """Every legal turn with the mover's 1-ply equity after it."""
    assert position.variant is Variant.LONG
    turns = legal_turns(position, dice)
    side = position.turn
    movers = np.array([turn.position.board[side][:24] for turn in turns], dtype=np.int64)
    opponent = np.array(position.board[side.opponent][:24], dtype=np.int64)
    return turns, afterstate_equities(net, movers, opponent, koks)


def _final_rows(position: Position, dice: Dice) -> list[bytes]:
    """The mover's rows after each legal turn, packed as the move
    generator's state codes (byte ``p``: checkers on point ``p``), in
    :func:`engine.legal_turns`' order; the position itself when nothing can
    be played.  The engine's fast core, without building a
    :class:`Position` per turn: the 2-ply search meets hundreds of them per
    candidate."""
    gen = _generator(position, dice)
    codes = sorted(final_states(gen, (dice.first, dice.second))) or [gen.code]
    return [code.to_bytes(_CODE_BYTES, "little") for code in codes]


def final_rows(position: Position, dice: Dice) -> Rows:
    """The mover's rows (K, 24) after each of ``legal_turns(position, dice)``."""
    return _unpack(b"".join(_final_rows(position, dice)))


def _unpack(codes: bytes) -> Rows:
    """Rows (points 1..24) of packed state codes."""
    packed = np.frombuffer(codes, dtype=np.uint8).reshape(-1, _CODE_BYTES)
    return packed[:, 1 : 24 + 1].astype(np.int64)


def two_ply(net: LongNet, after: Position, koks: bool) -> float:
    """The equity for the side that just moved into ``after`` (the opponent
    to roll next): over the opponent's 21 rolls, its best reply by 1 ply,
    each reply evaluated with us to roll.  One batch for the whole tree."""
    me = after.turn.opponent
    my_row = np.array(after.board[me][:24], dtype=np.int64)
    if not my_row.any():
        return exact_win(np.array(after.board[after.turn][:24], dtype=np.int64), koks)
    replies: list[bytes] = []
    bounds: list[int] = []
    chances: list[float] = []
    for dice, chance in ROLLS:
        bounds.append(len(replies))
        chances.append(chance)
        replies.extend(_final_rows(after, dice))
    theirs = _unpack(b"".join(replies))
    mine = np.broadcast_to(my_row, theirs.shape)
    values = equity(net.probs(mine, theirs), koks)
    finished = theirs.sum(axis=1) == 0
    if finished.any():
        values[finished] = -exact_win(my_row, koks)
    # the opponent picks the reply worst for us
    worst = np.minimum.reduceat(values, bounds)
    return float(np.dot(worst, chances))
