"""The fast core of the move generator: plain lists and ints, make/unmake.

:mod:`engine.turns` wraps it in the public API.  Everything here works in the
mover's frame with 1-based point numbers, in one mutable list ``row``:
``row[p]`` for ``p`` in 1..24 holds the mover's checkers on its own point
``p``, ``row[25]`` its bar (backgammon) and ``row[0]`` its borne-off checkers.

A state of the turn is also packed into one int, its *code*: byte ``p`` is
``row[p]``, and bit ``208 + p`` is set once the opponent's blot on the
mover's point ``p`` was hit this turn (the only way the opponent's checkers
change).  Two step orders reaching the same code reach the same position.
A step changes the code by a precomputed ``delta`` (plus a hit bit), so the
search deduplicates states without building them; ``code.to_bytes`` turns a
code back into a row.  Pure Python is slow: the hot paths avoid value
objects, attribute lookups and copying.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from itertools import compress

from engine.position import CHECKERS, HEAD, Step

OFF = 0
BAR = 25
HOME = 6
_BYTES = 27
_HITS_SHIFT = 8 * _BYTES
_CODE_BYTES = _BYTES + 4
_HIT = [1 << (_HITS_SHIFT + p) for p in range(BAR + 1)]
_UNPACK_ROW = struct.Struct(f"<{BAR + 1}B{_CODE_BYTES - BAR - 1}x").unpack
_UNPACK_MOVER = struct.Struct(f"<x{BAR}B{_CODE_BYTES - BAR - 1}x").unpack
_WEIGHT = [1 << (8 * p) for p in range(BAR + 1)]

Move = tuple[int, int, Step, int]
"""``(source, target, step, delta)``: a step, unpacked for speed, with the
change of the state code it makes (without a hit)."""
Code = int
Row = tuple[int, ...]
Path = tuple[Step, ...]


def _move(source: int, target: int, die: int) -> Move:
    return source, target, Step(source, target, die), _WEIGHT[target] - _WEIGHT[source]


_REGULAR = {
    source << 3 | die: _move(source, source - die, die)
    for die in range(1, 7)
    for source in range(die + 1, BAR + 1)
}
"""Every move to a point (entering from the bar included), made once:
``_REGULAR[source << 3 | die]``."""
_BEAR_OFF = {
    source << 3 | die: _move(source, OFF, die)
    for die in range(1, 7)
    for source in range(1, die + 1)
}
"""Every bearing-off move: ``_BEAR_OFF[source << 3 | die]``."""


_BY_DIE = {
    die: [_REGULAR[source << 3 | die] for source in range(HEAD, die, -1)] for die in range(1, 7)
}
"""Each die's moves between points, highest source first."""
_OPEN = {limit: bytes(count < limit for count in range(256)) for limit in (1, 2)}
"""``bytes.translate`` tables: 1 where a point with that many opponent
checkers is open, by the most checkers that leave it open plus one."""


def _bits(mask: int) -> list[int]:
    """The numbers of the bits set in ``mask``."""
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return found


def decode(code: Code) -> list[int]:
    """The ``row`` of a state code."""
    return list(_UNPACK_ROW(code.to_bytes(_CODE_BYTES, "little")))


def _long_frame() -> tuple[list[int], list[int], list[int]]:
    # Long nardy: my point p is the opponent's point (p + 11) % 24 + 1.  Blocks
    # are counted along the opponent's path, so walk in its numbers: the
    # neighbour one opponent-number higher ("up") and lower ("down"); BAR =
    # none, as the bar is always empty in long nardy (the opponent's 24 and 1
    # are not neighbours: no wrap).
    theirs = [0] * (BAR + 1)
    up = [BAR] * (BAR + 1)
    down = [BAR] * (BAR + 1)
    for p in range(1, 25):
        theirs[p] = (p + 11) % 24 + 1
    for p in range(1, 25):
        for q in range(1, 25):
            if theirs[q] == theirs[p] + 1:
                up[p] = q
            if theirs[q] == theirs[p] - 1:
                down[p] = q
    return theirs, up, down


_THEIR_LONG, _UP, _DOWN = _long_frame()


def head_limit(opponent_on: Sequence[int], first_turn: bool, die: int, double: bool) -> int:
    """How many checkers may leave the head this turn (long nardy).

    One, except on the first turn with 3-3, 4-4 or 6-6 when a lone head
    checker walking the roll would first be stopped by the opponent's head
    (the mover's point 12): then two.
    """
    if first_turn and double and die in (3, 4, 6):
        point = HEAD
        for _ in range(4):
            point -= die
            if point < 1:
                break
            if opponent_on[point]:
                return 2 if point == 12 else 1
    return 1


class Generator:
    """One turn's search state: the mover's ``row`` and state ``code`` plus
    what the opponent's checkers allow.  ``moves(die)`` lists the steps legal
    now; ``make`` and ``unmake`` play and take back one.

    ``strict=False`` leaves out the head and block rules, for
    :func:`engine.turns.apply_step`, which checks only what the checkers allow.
    """

    __slots__ = (
        "blocked",
        "blot",
        "blots",
        "check_blocks",
        "code",
        "head_limit",
        "head_start",
        "hit_rows",
        "is_long",
        "limit",
        "opp_min",
        "opponent",
        "outside",
        "reach",
        "reach_headless",
        "row",
    )

    def __init__(
        self,
        is_long: bool,
        mover: Sequence[int],
        opponent: Sequence[int],
        first_turn: bool,
        dice: tuple[int, int],
        strict: bool = True,
    ) -> None:
        self.is_long = is_long
        self.opponent = opponent
        # the opponent's row after each set of hits seen, by hit bits
        self.hit_rows = {0: tuple(opponent)}
        self.head_start = mover[HEAD - 1]
        self.head_limit = CHECKERS
        self.opp_min = 0
        theirs = bytes(opponent)
        # the opponent's checkers on the mover's points 1..24 (index 0: off)
        if is_long:
            on = b"\0" + theirs[12:24] + theirs[:12]
            if strict:
                self.head_limit = head_limit(on, first_turn, dice[0], dice[0] == dice[1])
                # the lowest opponent point (its numbers) with a checker; 0
                # once it has borne off, which makes every block legal
                if sum(theirs) == CHECKERS:
                    self.opp_min = len(theirs) - len(theirs.lstrip(b"\0")) + 1
        else:
            on = b"\0" + theirs[23::-1] + b"\0"
        # a move can only land where the opponent has at most one checker, so
        # from now on ``blot[p]`` (a copy of ``on``) says whether it hits
        self.blots = on
        self.blot = bytearray(on)
        self.check_blocks = bool(self.opp_min)
        self.blocked = 0  # how often the block rule refused a step, so far
        # the moves to an open point, per die: only the checkers decide later
        self.reach: dict[int, list[Move]] = {}
        self.reach_headless: dict[int, list[Move]] = {}
        # a point is open while the opponent has fewer checkers there
        limit = self.limit = 1 if is_long else 2
        opens = on.translate(_OPEN[limit])
        for die in set(dice):
            # _BY_DIE[die] lands on the points HEAD - die down to 1
            moves = list(compress(_BY_DIE[die], opens[HEAD - die : 0 : -1]))
            self.reach[die] = moves
            self.reach_headless[die] = moves[1:] if moves and moves[0][0] == HEAD else moves
            if not is_long and on[BAR - die] < 2:
                self.reach[-die] = [_REGULAR[BAR << 3 | die]]
        row = self.row = [CHECKERS - sum(mover), *mover]
        self.code = int.from_bytes(bytes(mover), "little") << 8 | row[0]
        self.outside = sum(row[HOME + 1 :])

    def reset(self, code: Code) -> None:
        """Go to the state ``code`` (from the same turn)."""
        row = self.row = decode(code)
        self.code = code
        self.outside = sum(row[HOME + 1 :])
        blot = self.blot = bytearray(self.blots)
        for p in _bits(code >> _HITS_SHIFT):
            blot[p] = 0

    def moves(self, die: int) -> list[Move]:
        """The steps with ``die`` legal in the current state."""
        row = self.row
        if row[BAR]:
            # backgammon: everything on the bar enters first
            return self.reach.get(-die, [])
        if self.head_start - row[HEAD] >= self.head_limit:
            reach = self.reach_headless[die]
        else:
            reach = self.reach[die]
        if self.check_blocks:
            # only a step onto an empty point next to a held one can make a block
            up, down = _UP, _DOWN
            found = [
                m
                for m in reach
                if row[m[0]]
                and (row[m[1]] or not (row[up[m[1]]] or row[down[m[1]]]) or not self._blocks(m))
            ]
        else:
            found = [move for move in reach if row[move[0]]]
        if not self.outside:
            if row[die]:
                found.append(_BEAR_OFF[die << 3 | die])
            elif not any(row[die + 1 : HOME + 1]):
                # a die bigger than the highest checker bears that one off
                for source in range(die - 1, 0, -1):
                    if row[source]:
                        found.append(_BEAR_OFF[source << 3 | die])
                        break
        return found

    def _blocks(self, move: Move) -> bool:
        """Would ``move`` (onto an empty point) make a run of six or more
        points that no opponent checker has passed?"""
        source, target = move[0], move[1]
        row = self.row
        vacated = row[source] == 1
        up, down = _UP, _DOWN
        length = 1
        p = up[target]
        while row[p] and not (vacated and p == source):
            length += 1
            p = up[p]
        low = target
        p = down[target]
        while row[p] and not (vacated and p == source):
            length += 1
            low = p
            p = down[p]
        if length >= 6 and self.opp_min >= _THEIR_LONG[low]:
            self.blocked += 1
            return True
        return False

    def make(self, move: Move) -> bool:
        """Play a move from :meth:`moves`; returns whether it hit (for unmake)."""
        source, target = move[0], move[1]
        row = self.row
        row[source] -= 1
        row[target] += 1
        self.code += move[3]
        if source > HOME >= target:
            self.outside -= 1
        if self.blot[target]:
            self.blot[target] = 0
            self.code += _HIT[target]
            return True
        return False

    def unmake(self, move: Move, hit: bool) -> None:
        source, target = move[0], move[1]
        row = self.row
        row[source] += 1
        row[target] -= 1
        self.code -= move[3]
        if source > HOME >= target:
            self.outside += 1
        if hit:
            self.blot[target] = 1
            self.code -= _HIT[target]

    def child(self, move: Move) -> Code:
        """The code after ``move``, leaving the state as it is."""
        target = move[1]
        if self.blot[target]:
            return self.code + move[3] + _HIT[target]
        return self.code + move[3]

    def rows_of(self, code: Code) -> tuple[Row, Row]:
        """``(mover, opponent)``: the rows of the position the state ``code``
        of this turn shows."""
        hits = code >> _HITS_SHIFT
        opponent = self.hit_rows.get(hits)
        if opponent is None:
            row = list(self.opponent)
            for p in _bits(hits):
                row[24 - p] -= 1
                row[BAR - 1] += 1
            opponent = self.hit_rows[hits] = tuple(row)
        return _UNPACK_MOVER(code.to_bytes(_CODE_BYTES, "little")), opponent


def final_states(gen: Generator, dice: tuple[int, int]) -> dict[Code, Path]:
    """Every distinct state after a complete legal turn, each with one step
    sequence reaching it; ``{}`` when nothing can be played."""
    high, low = max(dice), min(dice)
    start = gen.code
    if high == low:
        level: dict[Code, Path] = {start: ()}
        for _ in range(4):
            frontier: dict[Code, Path] = {}
            for code, path in level.items():
                gen.reset(code)
                blot = gen.blot
                for _, target, step, delta in gen.moves(high):
                    # Generator.child, inlined: this loop is the hot spot
                    child = code + delta
                    if blot[target]:
                        child += _HIT[target]
                    if child not in frontier:
                        frontier[child] = (*path, step)
            if not frontier:
                break
            level = frontier
        return {} if start in level else level
    full: dict[Code, Path] = {}
    moves, make, unmake, blot = gen.moves, gen.make, gen.unmake, gen.blot
    for first, second in ((high, low), (low, high)):
        if first == low and _order_is_redundant(gen):
            _same_checker(gen, full, low, high)
            break
        for move in moves(first):
            hit = make(move)
            code, step = gen.code, move[2]
            for _, target, step2, delta in moves(second):
                child = code + delta  # Generator.child, inlined
                if blot[target]:
                    child += _HIT[target]
                if child not in full:
                    full[child] = (step, step2)
            unmake(move, hit)
    if full:
        return full
    # not both dice: the larger one if it can be played, else the smaller
    for die in (high, low):
        singles: dict[Code, Path] = {gen.child(move): (move[2],) for move in moves(die)}
        if singles:
            return singles
    return {}


def _order_is_redundant(gen: Generator) -> bool:
    """After the larger die was tried first, do the other order's turns
    that move two different checkers all repeat ones already found?

    They do when each of the two steps is legal before and after the other:
    no checker on the bar (entering decides what may follow), no bearing off
    (one step can allow it, or change which checker may go), and the block
    rule refused no step so far (a step can lift or make a block for the
    other).  The head rule treats both orders alike.  Then only the same
    checker moving twice, through another point, can reach a new position.
    """
    return not gen.row[BAR] and gen.outside >= 2 and not gen.blocked


def _same_checker(gen: Generator, found: dict[Code, Path], low: int, high: int) -> None:
    """Add the turns moving one checker by ``low`` and then by ``high``."""
    row, blot = gen.row, gen.blot
    for move in gen.moves(low):
        middle = move[1]
        target = middle - high
        if target < 1 or gen.blots[target] >= gen.limit:
            continue
        hit = gen.make(move)
        second = _REGULAR[middle << 3 | high]
        if not (gen.check_blocks and not row[target] and gen._blocks(second)):
            child = gen.code + second[3]
            if blot[target]:
                child += _HIT[target]
            found.setdefault(child, (move[2], second[2]))
        gen.unmake(move, hit)
