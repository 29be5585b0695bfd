"""Search over long nardy turns with the learned evaluation.

:func:`turn_equities` scores every legal turn at 1 ply: the position after
the turn, evaluated for the opponent to roll and turned round.  A turn that
bears off the last checker scores its exact result.  The strong level looks
one roll further for the best few: the opponent's best reply to each of the
21 rolls, weighted by their chances (:func:`roll_values`, which also gives
the luck of a roll in analysis; :meth:`ai.long_player.LongNetPlayer.deepen`).
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ai.long_features import Matrix, Rows
from ai.long_net import CHUNK, Evaluation, LongNet, Vector
from ai.player import ROLLS
from engine import Dice, Position, Turn, Variant, legal_turns
from engine.turns import PACKED_BYTES, packed_results, results_key

try:
    from ai import _longcore
except ImportError:  # built without a C compiler: the engine's generator serves
    _longcore = None  # type: ignore[assignment]


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


def evaluate(net: Evaluation, me: Rows, opp: Rows, koks: bool) -> Vector:
    """``net.value(net.probs(me, opp), koks)``: the equity of ``me`` to
    roll, in pieces of :data:`CHUNK` rows (row by row the same values)."""
    if len(me) <= CHUNK:
        return net.value(net.probs(me, opp), koks)
    return np.concatenate([net.value(net.probs(me[i : i + CHUNK], opp[i : i + CHUNK]), koks)
                           for i in range(0, len(me), CHUNK)])


def afterstate_equities(net: Evaluation, movers: Rows, opponent: Rows, koks: bool) -> Vector:
    """The mover's equity after each of ``movers`` (K, 24) with ``opponent``
    to roll next."""
    count = len(movers)
    others = np.broadcast_to(opponent, (count, 24))
    values = -evaluate(net, others, movers, koks)
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
    if _longcore is not None:
        mover, opponent = _sides(position)
        found = _longcore.results(mover, opponent, position.first_turn, dice.first, dice.second)
        return np.frombuffer(found, dtype=np.uint8).reshape(-1, 24).astype(np.int64)
    return _unpack(b"".join(packed_results(position, dice)))


def _unpack(codes: bytes) -> Rows:
    """Rows (points 1..24) of packed state codes."""
    packed = np.frombuffer(codes, dtype=np.uint8).reshape(-1, PACKED_BYTES)
    return packed[:, 1 : 24 + 1].astype(np.int64)


def _sides(position: Position) -> tuple[bytes, bytes]:
    """The points 1..24 of the side to roll and of the other side, a byte each."""
    board = position.board
    return bytes(board[position.turn][:24]), bytes(board[position.turn.opponent][:24])


CHANCES: Vector = np.array([chance for _, chance in ROLLS])
"""The chances of :data:`ROLLS`, in their order."""
_ROLL_BYTES = bytes(die for dice, _ in ROLLS for die in (dice.first, dice.second))


@dataclass(frozen=True)
class _Replies:
    """Every reply to every roll of some positions, each distinct one
    valued once (:func:`_replies`)."""

    rows: Rows
    """The distinct replies: the roller's points after them, ``(M, 24)``."""
    values: Vector
    """The roller's equity after each of :attr:`rows`, the other side to roll."""
    where: npt.NDArray[np.intp]
    """The replies of each roll of each live position in turn (the
    generator's order), as indices into :attr:`rows`."""
    bounds: list[int]
    """Where each roll's replies start in :attr:`where`."""
    live: list[int]
    """The positions whose other side has not borne off (those rolled for)."""


def _replies(net: Evaluation, positions: Sequence[Position], koks: bool) -> _Replies:
    """The replies of the side to roll in ``positions`` to each of the 21
    :data:`ROLLS`, valued in one batch (in pieces of :data:`CHUNK`).  A
    reply met again - from another roll (6-1, 5-2 and 4-3 can each move
    one checker 7 pips) or from another position with the same other side -
    is valued once: a 3-ply look meets each reply about 1.3 times."""
    found = _generate(positions)
    theirs = found.kinds[found.kind]
    values = np.empty(0)
    if len(theirs):
        # each reply seen by the other side, to roll next; turned round
        values = -evaluate_pairs(net, found.others, found.sources, found.kinds, found.kind, koks)
        finished = theirs.sum(axis=1) == 0
        if finished.any():
            values[finished] = [exact_win(row, koks)
                                for row in found.others[found.sources[finished]]]
    return _Replies(theirs, values, found.where, found.bounds, found.live)


def evaluate_pairs(net: Evaluation, me: Rows, me_index: npt.NDArray[np.intp], opp: Rows,
                   opp_index: npt.NDArray[np.intp], koks: bool) -> Vector:
    """:func:`evaluate` of the pairs ``(me[me_index], opp[opp_index])``:
    the learned net values them with each row's share of its first layer
    computed once (:meth:`ai.long_net.LongNet.probs_shared`)."""
    if isinstance(net, LongNet):
        return net.value(net.probs_shared(me, me_index, opp, opp_index), koks)
    return evaluate(net, me[me_index], opp[opp_index], koks)


@dataclass(frozen=True)
class _Generated:
    """Every reply to every roll of some positions (:func:`_generate`),
    each reply against the same other side once."""

    kinds: Rows
    """The distinct replies whatever the other side: the roller's rows after them."""
    kind: npt.NDArray[np.intp]
    """Each reply's row, as an index into :attr:`kinds`."""
    others: Rows
    """The other side's rows, one per position (or per distinct one)."""
    sources: npt.NDArray[np.intp]
    """Each reply's other side, as an index into :attr:`others`."""
    where: npt.NDArray[np.intp]
    """:attr:`_Replies.where`."""
    bounds: list[int]
    live: list[int]


def _generate(positions: Sequence[Position]) -> _Generated:
    """The replies from the C generator (:mod:`ai._longcore`, the engine's
    mirror) where it was built, else from the engine's
    (:func:`_engine_replies`)."""
    if _longcore is None:
        return _engine_replies(positions)
    movers, opponents = zip(*map(_sides, positions), strict=True) if positions else ((), ())
    _, sources, at, starts, alive, kinds, kind = _longcore.replies(
        b"".join(movers), b"".join(opponents),
        bytes(position.first_turn for position in positions), _ROLL_BYTES)
    return _Generated(
        np.frombuffer(kinds, dtype=np.uint8).reshape(-1, 24),
        np.frombuffer(kind, dtype=np.int32).astype(np.intp),
        np.frombuffer(b"".join(opponents), dtype=np.uint8).reshape(-1, 24),
        np.frombuffer(sources, dtype=np.int32).astype(np.intp),
        np.frombuffer(at, dtype=np.int32).astype(np.intp),
        np.frombuffer(starts, dtype=np.int32).tolist(),
        np.frombuffer(alive, dtype=np.int32).tolist())


def _engine_replies(positions: Sequence[Position]) -> _Generated:
    """:func:`_generate` by the engine's generator.  A mover met again
    against other checkers holding the same points (what
    :func:`engine.turns.results_key` says decides its turns) has its turns
    generated once: in a 3-ply look some 40% of the calls."""
    tables: dict[tuple[int, ...], tuple[int, dict[bytes, int]]] = {}
    others: list[tuple[int, ...]] = []
    codes: list[bytes] = []
    groups: list[int] = []
    where: list[int] = []
    bounds: list[int] = []
    live: list[int] = []
    # the turns of a mover against replies that leave the points held as they were
    generated: dict[tuple[Hashable, Dice], list[bytes]] = {}
    for index, position in enumerate(positions):
        other = position.board[position.turn.opponent][:24]
        if not any(other):
            continue
        live.append(index)
        if other not in tables:
            tables[other] = (len(others), {})
            others.append(other)
        group, seen = tables[other]
        key = results_key(position)
        for dice, _ in ROLLS:
            bounds.append(len(where))
            results = generated.get((key, dice))
            if results is None:
                results = generated[key, dice] = packed_results(position, dice)
            for code in results:
                at = seen.get(code)
                if at is None:
                    at = seen[code] = len(codes)
                    codes.append(code)
                    groups.append(group)
                where.append(at)
    theirs = _unpack(b"".join(codes)) if codes else np.empty((0, 24), dtype=np.int64)
    return _Generated(theirs, np.arange(len(theirs)),
                      np.array(others, dtype=np.int64).reshape(-1, 24),
                      np.array(groups, dtype=np.intp), np.array(where, dtype=np.intp),
                      bounds, live)


def roll_values(net: Evaluation, positions: Sequence[Position], koks: bool) -> Matrix:
    """For each position, the equity of the side to roll after its best
    turn (by 1 ply) for each of the 21 :data:`ROLLS`: shape ``(N, 21)``.
    Every reply of every position is evaluated in one batch, each with the
    other side to roll (:func:`_replies`).  A position whose other side has
    already borne off is lost: every roll gives minus that side's exact win."""
    values = np.empty((len(positions), len(ROLLS)))
    replies = _replies(net, positions, koks)
    if replies.live:
        best = np.maximum.reduceat(replies.values[replies.where], replies.bounds)
        values[replies.live] = best.reshape(len(replies.live), len(ROLLS))
    for index in sorted(set(range(len(positions))) - set(replies.live)):
        mover, _ = rows(positions[index])
        values[index] = -exact_win(mover, koks)
    return values


def reply_positions(net: Evaluation, positions: Sequence[Position], koks: bool) -> list[Position]:
    """For each position (its side to roll), the position after that
    side's best turn by 1 ply for each of the 21 :data:`ROLLS`, the other
    side to roll: ``21 * len(positions)`` positions, roll by roll.  A
    position whose side to roll has already lost repeats itself."""
    replies = _replies(net, positions, koks)
    ends = [*replies.bounds[1:], len(replies.where)]
    chosen = iter(zip(replies.bounds, ends, strict=True))
    found: list[Position] = []
    live = set(replies.live)
    for index, position in enumerate(positions):
        if index not in live:
            found.extend([position] * len(ROLLS))
            continue
        side = position.turn
        tail = position.board[side][24:]
        for first, end in itertools.islice(chosen, len(ROLLS)):
            indices = replies.where[first:end]
            best = replies.rows[int(indices[int(np.argmax(replies.values[indices]))])]
            row = (*best.tolist(), *tail)
            board = (row, position.board[side.opponent]) if side.value == 0 else (
                position.board[side.opponent], row)
            # from_rows: the other side's first turn read from its checkers, as end_turn
            found.append(Position.from_rows(position.variant, board, side.opponent))
    return found


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
