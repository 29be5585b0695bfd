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

from engine.position import CHECKERS, HEAD, POINTS, Step

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
_HELD = bytes(count > 0 for count in range(256))
"""``bytes.translate`` table: 1 where a count is not 0."""
_FROM = {
    die: [_REGULAR.get(source << 3 | die, _BEAR_OFF[1 << 3 | 1]) for source in range(BAR, 0, -1)]
    for die in range(1, 7)
}
"""``_FROM[die]``: the move with ``die`` from each point, the bar down to 1
(the bearing-off move stands where there is none; no one picks it)."""
_FROM_UP = {die: moves[::-1] for die, moves in _FROM.items()}
"""``_FROM_UP[die]``: the same from point 1 up to the bar."""


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


def may_block(mine: bytes | bytearray, opp_min: int, steps: int) -> bool:
    """Could ``steps`` more steps of the mover (``mine``: its checkers on
    points 1..24) make a block the rule forbids (long nardy), against an
    opponent whose most advanced checker is on its point ``opp_min``?

    Such a block is six points in a row, the lowest (in the opponent's
    numbers) at most ``opp_min``, all held after a step; each step adds at
    most one held point.  So when no such six hold ``6 - steps`` points now,
    no step of the turn needs the block check.

    >>> four = bytes([1, 1, 1, 1] + [0] * 19 + [11, 0])  # points 1..4 and the head
    >>> may_block(four, 20, 2), may_block(four, 5, 2)
    (True, False)
    >>> may_block(bytes([1, 0, 1] + [0] * 20 + [13, 0]), 20, 2)
    False
    """
    need = 6 - steps
    # our checkers by the opponent's numbers: its point t is our t + 12 (t <= 12)
    # or t - 12; only its points up to the last six starting at most opp_min count
    region = (mine[12:24] + mine[:12])[: opp_min + 5 if opp_min < POINTS - 5 else POINTS]
    if len(region) - region.count(0) < need:
        return False
    # byte j of the product counts the held points among bytes j - 5 .. j:
    # the six from the opponent's point j - 4 up
    held = int.from_bytes(region.translate(_HELD), "little")
    sixes = (held * 0x010101010101).to_bytes(len(region) + 5, "little")
    return max(sixes[5 : len(region)]) >= need


def rearmost(theirs: bytes | bytearray) -> int:
    """The opponent's lowest point (its numbers) with a checker, the one
    the block rule counts from (long nardy); 0 once it has borne off,
    which makes every block legal."""
    if sum(theirs) != CHECKERS:
        return 0
    return len(theirs) - len(theirs.lstrip(b"\0")) + 1


def long_key(mover: Sequence[int], opponent: Sequence[int], first_turn: bool
             ) -> tuple[object, ...]:
    """All that a long nardy turn's results depend on besides the roll
    (:class:`Generator` reads no more): the mover's checkers; of the
    opponent's only the points it holds (a step may not land there) and
    :func:`rearmost` (the block rule); the first turn (the head rule).
    Nothing is hit in long nardy, so the opponent's checkers never change."""
    theirs = bytes(opponent)
    return tuple(mover), theirs.translate(_HELD), rearmost(theirs), first_turn


class _Reach(dict[int, list[Move]]):
    """The moves to an open point, made once per die on first use: ``[die]``
    all of them, ``[die + 8]`` those not from the head, ``[-die]`` entering
    from the bar.  Only the mover's checkers decide later."""

    __slots__ = ("entering", "opens")
    entering: bool
    opens: bytes

    def __missing__(self, key: int) -> list[Move]:
        opens = self.opens
        if key < 0:
            found = [_REGULAR[BAR << 3 | -key]] if self.entering and opens[BAR + key] else []
        elif key > 8:
            found = self[key - 8]
            if found and found[0][0] == HEAD:
                found = found[1:]
        else:
            # _BY_DIE[die] lands on the points HEAD - die down to 1
            found = list(compress(_BY_DIE[key], opens[HEAD - key : 0 : -1]))
        self[key] = found
        return found


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
        "mine",
        "opens",
        "opp_min",
        "opponent",
        "outside",
        "reach",
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
        # (a bytearray is made from a tuple twice as fast as bytes)
        mine = self.mine = bytearray(mover)
        self.head_start = mine[HEAD - 1]
        self.head_limit = CHECKERS
        self.opp_min = 0
        theirs = bytearray(opponent)
        double = dice[0] == dice[1]
        # the opponent's checkers on the mover's points 1..24 (index 0: off)
        if is_long:
            on = b"\0" + theirs[12:24] + theirs[:12]
            if strict:
                self.head_limit = head_limit(on, first_turn, dice[0], double) if first_turn else 1
                self.opp_min = rearmost(theirs)
        else:
            on = b"\0" + theirs[23::-1] + b"\0"
        # a move can only land where the opponent has at most one checker, so
        # from now on ``blot[p]`` (a copy of ``on``) says whether it hits
        self.blots = on
        self.blot = bytearray(on)
        self.check_blocks = bool(self.opp_min) and may_block(mine, self.opp_min, 4 if double else 2)
        self.blocked = 0  # how often the block rule refused a step, so far
        # a point is open while the opponent has fewer checkers there
        limit = self.limit = 1 if is_long else 2
        opens = self.opens = on.translate(_OPEN[limit])
        reach = self.reach = _Reach()
        reach.opens, reach.entering = opens, not is_long
        row: list[int] = [CHECKERS - sum(mine), *mine]
        self.row = row
        self.code = int.from_bytes(mine, "little") << 8 | row[0]
        self.outside = sum(mine[HOME:])

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
            return self.reach[-die]
        if self.head_start - row[HEAD] >= self.head_limit:
            reach = self.reach[die + 8]
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
    if not gen.row[BAR] and gen.outside >= 2 and not gen.check_blocks:
        # what _order_is_redundant asks, known before any step: no step can
        # change which others are legal, but for the checkers it moves
        full = _two_dice(gen, high, low)
    else:
        full = _two_dice_searched(gen, high, low)
    if full:
        return full
    # not both dice: the larger one if it can be played, else the smaller
    for die in (high, low):
        singles: dict[Code, Path] = {gen.child(move): (move[2],) for move in gen.moves(die)}
        if singles:
            return singles
    return {}


def _two_dice(gen: Generator, high: int, low: int) -> dict[Code, Path]:
    """The turns playing both dice when each step is legal before and after
    the other (no checker on the bar, no bearing off, no block can arise):
    what :func:`_two_dice_searched` finds, without playing any step.

    After the larger die's step ``h`` the smaller die's steps are the ones
    legal at the start, less the one from ``h``'s point if ``h`` emptied it
    (or left the head), plus the one from where ``h`` landed if that was
    empty; of the other order only one checker moving twice is new.
    """
    row, blot, opens, start = gen.row, gen.blot, gen.opens, gen.code
    # The steps legal at the start, from ints with a byte per point that is
    # 1 where we have checkers, or where a checker may land: shifted by a
    # die, they line up each point with the one a die lower.  to_bytes
    # lists them from the bar down ("big") as _FROM[die] does its moves, or
    # up from point 1 ("little") as _FROM_UP[die].
    held = int.from_bytes(gen.mine.translate(_HELD), "little")
    landing = int.from_bytes(opens[1 : POINTS + 1], "little")
    low_from = (held & landing << 8 * low).to_bytes(BAR, "big")
    lows = list(compress(_FROM[low], low_from))
    # A position reached twice keeps the search's first step sequence: its
    # dict entry is written last here.  So first one checker moving the
    # smaller die and then the larger (all different positions), then the
    # larger die's steps from the lowest point up.
    full: dict[Code, Path] = {}
    for _, middle, step, delta in lows:
        target = middle - high
        if target >= 1 and opens[target]:
            second = _REGULAR[middle << 3 | high]
            child = start + delta + second[3]
            if blot[middle]:
                child += _HIT[middle]
            if blot[target]:
                child += _HIT[target]
            full[child] = (step, second[2])
    # (source, step, code change with a hit)
    later = [(m[0], m[2], m[3] + _HIT[m[1]] if blot[m[1]] else m[3]) for m in lows]
    head_once = gen.head_limit <= 1
    highs = (held & landing << 8 * high).to_bytes(BAR, "little")
    for source, target, step, delta in compress(_FROM_UP[high], highs):
        code = start + delta
        pairs = later
        if (row[source] == 1 or (head_once and source == HEAD)) and low_from[BAR - source]:
            i = low_from.count(1, 0, BAR - source)
            pairs = pairs[:i] + pairs[i + 1 :]
        if blot[target]:
            code += _HIT[target]
            # the smaller die's step onto that point then hits nothing
            hit, back = _HIT[target], target + low
            pairs = [(s, st, d - hit if s == back else d) for s, st, d in pairs]
        onward = target - low
        if not row[target] and onward >= 1 and opens[onward]:
            chain = _REGULAR[target << 3 | low]
            onward_delta = chain[3] + _HIT[onward] if blot[onward] else chain[3]
            pairs = [*pairs, (target, chain[2], onward_delta)]
        for _, step2, delta2 in pairs:
            full[code + delta2] = (step, step2)
    return full


def _two_dice_searched(gen: Generator, high: int, low: int) -> dict[Code, Path]:
    """The turns playing both dice, by playing them in both orders."""
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
    return full


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
