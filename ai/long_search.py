"""Search over long nardy turns with the learned evaluation.

:func:`turn_equities` scores every legal turn at 1 ply: the position after
the turn, evaluated for the opponent to roll and turned round.  A turn that
bears off the last checker scores its exact result.  The strong level looks
one roll further for the best few: the opponent's best reply to each of the
21 rolls, weighted by their chances (:func:`roll_values`, which also gives
the luck of a roll in analysis; :meth:`ai.long_player.LongNetPlayer.deepen`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ai.long_features import Matrix, Rows
from ai.long_net import Evaluation, Vector
from ai.player import ROLLS
from engine import Dice, Position, Turn, Variant, legal_turns
from engine.turns import PACKED_BYTES, packed_results


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


def afterstate_equities(net: Evaluation, movers: Rows, opponent: Rows, koks: bool) -> Vector:
    """The mover's equity after each of ``movers`` (K, 24) with ``opponent``
    to roll next."""
    count = len(movers)
    others = np.broadcast_to(opponent, (count, 24))
    values = -net.value(net.probs(others, movers), koks)
    finished = movers.sum(axis=1) == 0
    if finished.any():
        values[finished] = exact_win(opponent, koks)
    return values


def turn_equities(
    net: Evaluation, position: Position, dice: Dice, koks: bool = False
) -> tuple[list[Turn], Vector]:
    """Every legal turn with the mover's 1-ply equity after it."""
    assert position.variant is Variant.LONG
    turns = legal_turns(position, dice)
    side = position.turn
    movers = np.array([turn.position.board[side][:24] for turn in turns], dtype=np.int64)
    opponent = np.array(position.board[side.opponent][:24], dtype=np.int64)
    return turns, afterstate_equities(net, movers, opponent, koks)


def final_rows(position: Position, dice: Dice) -> Rows:
    """The mover's rows (K, 24) after each of ``legal_turns(position, dice)``."""
    return _unpack(b"".join(packed_results(position, dice)))


def _unpack(codes: bytes) -> Rows:
    """Rows (points 1..24) of packed state codes."""
    packed = np.frombuffer(codes, dtype=np.uint8).reshape(-1, PACKED_BYTES)
    return packed[:, 1 : 24 + 1].astype(np.int64)


CHANCES: Vector = np.array([chance for _, chance in ROLLS])
"""The chances of :data:`ROLLS`, in their order."""


def roll_values(net: Evaluation, positions: Sequence[Position], koks: bool) -> Matrix:
    """For each position, the equity of the side to roll after its best
    turn (by 1 ply) for each of the 21 :data:`ROLLS`: shape ``(N, 21)``.
    Every reply of every position is evaluated in one batch, each with the
    other side to roll.  A position whose other side has already borne
    off is lost: every roll gives minus that side's exact win."""
    replies: list[bytes] = []
    bounds: list[int] = []
    others: list[Rows] = []
    counts: list[int] = []
    for position in positions:
        other = np.array(position.board[position.turn.opponent][:24], dtype=np.int64)
        first = len(replies)
        if other.any():
            for dice, _ in ROLLS:
                bounds.append(len(replies))
                replies.extend(packed_results(position, dice))
        others.append(other)
        counts.append(len(replies) - first)
    values = np.empty((len(positions), len(ROLLS)))
    if replies:
        theirs = _unpack(b"".join(replies))
        mine = np.repeat(np.array(others), counts, axis=0)
        # each reply seen by the other side, to roll next; turned round
        reply_values = -net.value(net.probs(mine, theirs), koks)
        finished = theirs.sum(axis=1) == 0
        if finished.any():
            reply_values[finished] = [exact_win(row, koks) for row in mine[finished]]
        best = np.maximum.reduceat(reply_values, bounds)
    row = 0
    for index, (position, other) in enumerate(zip(positions, others, strict=True)):
        if other.any():
            values[index] = best[row : row + len(ROLLS)]
            row += len(ROLLS)
        else:
            mover = np.array(position.board[position.turn][:24], dtype=np.int64)
            values[index] = -exact_win(mover, koks)
    return values


def reply_positions(net: Evaluation, positions: Sequence[Position], koks: bool) -> list[Position]:
    """For each position (its side to roll), the position after that
    side's best turn by 1 ply for each of the 21 :data:`ROLLS`, the other
    side to roll: ``21 * len(positions)`` positions, roll by roll.  A
    position whose side to roll has already lost repeats itself."""
    replies: list[Position] = []
    for position in positions:
        side = position.turn
        other = np.array(position.board[side.opponent][:24], dtype=np.int64)
        tail = position.board[side][24:]
        for dice, _ in ROLLS:
            if not other.any():
                replies.append(position)
                continue
            movers = _unpack(b"".join(packed_results(position, dice)))
            best = movers[int(np.argmax(afterstate_equities(net, movers, other, koks)))]
            row = (*(int(count) for count in best), *tail)
            board = (row, position.board[side.opponent]) if side.value == 0 else (
                position.board[side.opponent], row)
            replies.append(Position(position.variant, board, side.opponent))
    return replies


def three_ply(net: Evaluation, positions: Sequence[Position], koks: bool) -> Vector:
    """The equity of the side to roll in each position at 3 ply: for each
    of its 21 rolls its best turn by 1 ply, then the other side's 2-ply
    value of the position it leaves (the average over that side's 21 rolls
    of its best turn by 1 ply, :func:`roll_values`), weighted by the
    rolls' chances and turned round.  (The roller's turn is chosen at
    1 ply, as GNU Backgammon's move filters choose at a lower ply.)"""
    replies = reply_positions(net, positions, koks)
    after = roll_values(net, replies, koks) @ CHANCES
    return np.asarray(-(after.reshape(len(positions), len(ROLLS)) @ CHANCES), dtype=float)
