"""Search over long nardy turns with the learned evaluation.

:func:`turn_equities` scores every legal turn at 1 ply: the position after
the turn, evaluated for the opponent to roll and turned round.  A turn that
bears off the last checker scores its exact result.  The strong level looks
one roll further for the best few: the opponent's best reply to each of the
21 rolls, weighted by their chances (:func:`roll_values`, which also gives
the luck of a roll in analysis; :meth:`ai.long_player.LongNetPlayer.deepen`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ai.long_features import Matrix, Rows
from ai.long_net import CHUNK, Evaluation, LongNet, Vector
from ai.player import ROLLS
from engine import Dice, Position, Side, Turn, Variant, legal_turns
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
    return _side_replies(net, _sides_of(positions), koks)


@dataclass(frozen=True)
class _Sides:
    """Positions as rows: the side to roll's points 1..24 (``movers``), the
    other side's (``others``), both ``(N, 24)`` bytes in their own
    numbering, and whether it is the side to roll's first turn."""

    movers: npt.NDArray[np.uint8]
    others: npt.NDArray[np.uint8]
    firsts: npt.NDArray[np.bool_]


def _sides_of(positions: Sequence[Position]) -> _Sides:
    movers, others = (zip(*map(_sides, positions), strict=True) if positions
                      else ((), ()))
    return _Sides(np.frombuffer(b"".join(movers), dtype=np.uint8).reshape(-1, 24),
                  np.frombuffer(b"".join(others), dtype=np.uint8).reshape(-1, 24),
                  np.array([position.first_turn for position in positions], dtype=bool))


def _side_replies(net: Evaluation, sides: _Sides, koks: bool,
                  found: _Generated | None = None) -> _Replies:
    """:func:`_replies` of positions given as rows (``found``: their
    replies, when already generated)."""
    found = _generate(sides) if found is None else found
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


def _generate(sides: _Sides) -> _Generated:
    """The replies from the C generator (:mod:`ai._longcore`, the engine's
    mirror) where it was built, else from the engine's
    (:func:`_engine_replies`)."""
    if _longcore is None:
        return _engine_replies([
            Position(Variant.LONG, ((*mover.tolist(), 0), (*other.tolist(), 0)), Side.WHITE,
                     bool(first))
            for mover, other, first in zip(sides.movers, sides.others, sides.firsts, strict=True)])
    sources, at, starts, alive, kinds, kind = _longcore.replies(
        sides.movers, sides.others, sides.firsts.astype(np.uint8), _ROLL_BYTES)
    return _Generated(
        np.frombuffer(kinds, dtype=np.uint8).reshape(-1, 24),
        np.frombuffer(kind, dtype=np.int32).astype(np.intp),
        sides.others,
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
    return _side_roll_values(net, _sides_of(positions), koks)


def _side_roll_values(net: Evaluation, sides: _Sides, koks: bool,
                      found: _Generated | None = None) -> Matrix:
    """:func:`roll_values` of positions given as rows (``found``: their
    replies, when already generated)."""
    values = np.empty((len(sides.movers), len(ROLLS)))
    replies = _side_replies(net, sides, koks, found)
    if replies.live:
        best = np.maximum.reduceat(replies.values[replies.where], replies.bounds)
        values[replies.live] = best.reshape(len(replies.live), len(ROLLS))
    for index in sorted(set(range(len(values))) - set(replies.live)):
        values[index] = -exact_win(sides.movers[index], koks)
    return values


def _lost(sides: _Sides, live: list[int], koks: bool) -> Vector:
    """A value for each position: minus the other side's exact win where
    the side to roll has already lost (not ``live``); the others to fill."""
    found = np.empty(len(sides.movers))
    for index in sorted(set(range(len(found))) - set(live)):
        found[index] = -exact_win(sides.movers[index], koks)
    return found


def _after(sides: _Sides, live: Sequence[int], rows: Rows, each: int) -> _Sides:
    """The positions after the roller's turns ``rows``, ``each`` of them
    for each of the ``live`` positions in turn: the other side to roll, in
    its first turn while all 15 of its checkers are on the head (as
    ``end_turn`` reads it)."""
    others = np.repeat(sides.others[list(live)], each, axis=0)
    return _Sides(others, np.ascontiguousarray(rows, dtype=np.uint8), others[:, 23] == 15)


def _best(replies: _Replies, keep: int) -> npt.NDArray[np.intp]:
    """For each roll of each live position, its ``keep`` best replies by
    1 ply as indices into ``replies.rows`` (best first; of equal values the
    generator's first, as ``np.argmax``; the best again where a roll has
    fewer): shape ``(len(live) * 21, keep)``."""
    ends = [*replies.bounds[1:], len(replies.where)]
    found = np.empty((len(replies.bounds), keep), dtype=np.intp)
    for segment, (first, end) in enumerate(zip(replies.bounds, ends, strict=True)):
        indices = replies.where[first:end]
        order = np.argsort(-replies.values[indices], kind="stable")[:keep]
        found[segment] = indices[order[np.minimum(np.arange(keep), len(order) - 1)]]
    return found


def reply_positions(net: Evaluation, positions: Sequence[Position], koks: bool) -> list[Position]:
    """For each position (its side to roll), the position after that
    side's best turn by 1 ply for each of the 21 :data:`ROLLS`
    (:func:`_best`), the other side to roll: ``21 * len(positions)``
    positions, roll by roll.  A position whose side to roll has already
    lost repeats itself."""
    replies = _replies(net, positions, koks)
    chosen = iter(_best(replies, 1).reshape(-1, len(ROLLS)))
    found: list[Position] = []
    live = set(replies.live)
    for index, position in enumerate(positions):
        if index not in live:
            found.extend([position] * len(ROLLS))
            continue
        side = position.turn
        tail = position.board[side][24:]
        for at in next(chosen):
            row = (*replies.rows[at].tolist(), *tail)
            board = (row, position.board[side.opponent]) if side.value == 0 else (
                position.board[side.opponent], row)
            # from_rows: the other side's first turn read from its checkers, as end_turn
            found.append(Position.from_rows(position.variant, board, side.opponent))
    return found


def three_ply(net: Evaluation, positions: Sequence[Position], koks: bool,
              replies: int = 1, budget: int | None = None) -> Vector:
    """The equity of the side to roll in each position at 3 ply: for each
    of its 21 rolls its best turn, then the other side's 2-ply value of the
    position it leaves (the average over that side's 21 rolls of its best
    turn by 1 ply, :func:`roll_values`), weighted by the rolls' chances and
    turned round.  The roller's best turn is chosen among its ``replies``
    best by 1 ply by that 2-ply value: with 1, its best by 1 ply (as GNU
    Backgammon's move filters choose at a lower ply).  The positions after
    the roller's turns are rows (:class:`_Sides`), not positions: making
    and checking those took a tenth of the look.  A position whose side to
    roll has already lost is worth minus the other side's exact win.

    ``budget``: the most distinct positions the look may value at its last
    ply, over all the positions (its cost is about 0.5-0.8 µs each).  The
    positions are looked at in order while they fit, the first two always,
    and the values returned are theirs: fewer than ``positions`` when the
    budget ran out."""
    return _side_three_ply(net, _sides_of(positions), koks, replies, budget)


def _side_three_ply(net: Evaluation, sides: _Sides, koks: bool, replies: int = 1,
                    budget: int | None = None) -> Vector:
    """:func:`three_ply` of positions given as rows."""
    middle = _side_replies(net, sides, koks)
    found = _lost(sides, middle.live, koks)
    if not middle.live:
        return found
    # the other side to roll next, against each of the roller's turns;
    # position by position, so that the budget can stop before the next
    chosen = _best(middle, replies).reshape(len(middle.live), -1)
    spent = 0
    for at, index in enumerate(middle.live):
        after = _after(sides, [index], middle.rows[chosen[at]], len(ROLLS) * replies)
        generated = _generate(after)
        spent += len(generated.kind)
        if budget is not None and spent > budget and index >= 2:
            return found[:index]
        values = _side_roll_values(net, after, koks, generated) @ CHANCES
        # the roller takes the turn that leaves the other side least
        least = values.reshape(len(ROLLS), replies).min(axis=1)
        found[index] = -(least @ CHANCES)
    return found


def four_ply(net: Evaluation, positions: Sequence[Position], koks: bool) -> Vector:
    """The equity of the side to roll in each position at 4 ply: for each
    of its 21 rolls its best turn by 1 ply, then the other side's 3-ply
    value of the position it leaves (:func:`three_ply` from there),
    weighted by the rolls' chances and turned round: some 280,000
    positions valued at the last ply for each (about 0.2 s).  A position
    whose side to roll has already lost is worth minus the other side's
    exact win."""
    sides = _sides_of(positions)
    middle = _side_replies(net, sides, koks)
    found = _lost(sides, middle.live, koks)
    if not middle.live:
        return found
    after = _after(sides, middle.live, middle.rows[_best(middle, 1).reshape(-1)], len(ROLLS))
    values = _side_three_ply(net, after, koks)
    found[middle.live] = -(values.reshape(len(middle.live), len(ROLLS)) @ CHANCES)
    return found
