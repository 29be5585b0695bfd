"""The fast core of the move generator: plain lists, make/unmake, no value objects.

:mod:`engine.turns` wraps it in the public API.  Everything here works in the
mover's frame with 1-based point numbers, in one mutable list ``row``:

* ``row[p]`` for ``p`` in 1..24: the mover's checkers on its own point ``p``;
* ``row[25]``: the mover's bar (backgammon), ``row[0]``: its borne-off checkers;
* ``row[26]``: bit ``p`` set when the opponent's blot on the mover's point
  ``p`` was hit this turn (backgammon).

So ``tuple(row)`` - a *key* - identifies a state of the turn completely (the
opponent's checkers only change by hits), and two step orders that reach the
same key reach the same position.  Pure Python is slow, so the hot paths avoid
value objects, method lookups and copying: a step is ``make`` and ``unmake``
on the one list; states are deduplicated by key per depth.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.position import CHECKERS, HEAD, Step

OFF = 0
BAR = 25
HITS = 26
HOME = 6

Move = tuple[int, int, Step]
"""``(source, target, step)``: a step with its points unpacked for speed."""
Key = tuple[int, ...]
Path = tuple[Step, ...]


def _step_table() -> tuple[dict[int, Step], dict[int, Step]]:
    regular: dict[int, Step] = {}
    bear_off: dict[int, Step] = {}
    for die in range(1, 7):
        for source in range(die + 1, BAR + 1):
            regular[source << 3 | die] = Step(source, source - die, die)
        for source in range(1, die + 1):
            bear_off[source << 3 | die] = Step(source, OFF, die)
    return regular, bear_off


_REGULAR, _BEAR_OFF = _step_table()
"""Every possible :class:`Step`, made once: ``_REGULAR[source << 3 | die]``
(entering from the bar included) and ``_BEAR_OFF[source << 3 | die]``."""


def _long_frame() -> tuple[list[int], list[int], list[int], list[int]]:
    # Long nardy: my point p is the opponent's point (p + 11) % 24 + 1.  Blocks
    # are counted along the opponent's path, so walk in its numbers: the
    # neighbour one opponent-number higher ("up") and lower ("down"); 0 = none
    # (the opponent's 24 and 1 are not neighbours: no wrap).
    theirs = [0] * (BAR + 1)
    up = [0] * (BAR + 1)
    down = [0] * (BAR + 1)
    for p in range(1, 25):
        theirs[p] = (p + 11) % 24 + 1
    for p in range(1, 25):
        for q in range(1, 25):
            if theirs[q] == theirs[p] + 1:
                up[p] = q
            if theirs[q] == theirs[p] - 1:
                down[p] = q
    index = [theirs[p] - 1 for p in range(1, 25)]
    return theirs, up, down, index


_THEIR_LONG, _UP, _DOWN, _INDEX_LONG = _long_frame()
_INDEX_BACKGAMMON = [24 - p for p in range(1, 25)]
"""Index into the opponent's row of the mover's points 1..24."""


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
    """One turn's search state: the mover's ``row`` plus what the opponent's
    checkers allow.  ``moves(die)`` lists the steps legal now; ``make`` and
    ``unmake`` play and take back one.

    ``strict=False`` leaves out the head and block rules, for
    :func:`engine.turns.apply_step`, which checks only what the checkers allow.
    """

    __slots__ = (
        "blot",
        "blots",
        "head_limit",
        "head_start",
        "is_long",
        "open",
        "opp_min",
        "opponent",
        "outside",
        "row",
        "strict",
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
        self.strict = strict
        self.opponent = opponent
        self.row: list[int] = [CHECKERS - sum(mover), *mover, 0]
        # index 0 (off) only pads: no step lands there through ``open``
        if is_long:
            on = [0, *[opponent[i] for i in _INDEX_LONG]]
            self.open = [False, *[not c for c in on[1:]]]
            self.blot = [False] * (BAR + 1)
            self.head_start = mover[HEAD - 1]
            self.head_limit = (
                head_limit(on, first_turn, dice[0], dice[0] == dice[1]) if strict else CHECKERS
            )
            # the lowest opponent point (its numbers) with a checker; 0 once it
            # has borne off, which makes every block legal
            self.opp_min = 0
            if sum(opponent) == CHECKERS:
                self.opp_min = next(q + 1 for q in range(24) if opponent[q])
        else:
            on = [0, *[opponent[i] for i in _INDEX_BACKGAMMON]]
            self.open = [False, *[c < 2 for c in on[1:]], True]
            self.blot = [False, *[c == 1 for c in on[1:]], False]
            self.head_start = self.head_limit = self.opp_min = 0
        self.blots = self.blot[:]
        self.outside = sum(self.row[HOME + 1 : BAR + 1])

    def reset(self, key: Key) -> None:
        """Go to the state ``key`` (from the same turn)."""
        row = self.row = list(key)
        self.outside = sum(row[HOME + 1 : BAR + 1])
        blot = self.blot = self.blots[:]
        hits = row[HITS]
        if hits:
            for p in range(1, 25):
                if hits >> p & 1:
                    blot[p] = False

    def moves(self, die: int) -> list[Move]:
        """The steps with ``die`` legal in the current state."""
        row = self.row
        found: list[Move] = []
        regular = _REGULAR
        if row[BAR]:
            # backgammon: everything on the bar enters first
            if self.open[BAR - die]:
                found.append((BAR, BAR - die, regular[BAR << 3 | die]))
            return found
        openp = self.open
        top = HEAD
        if self.is_long and self.head_start - row[HEAD] >= self.head_limit:
            top = HEAD - 1
        check_blocks = self.is_long and self.strict and self.opp_min
        for source in range(top, die, -1):
            if row[source]:
                target = source - die
                if openp[target]:
                    if check_blocks and not row[target] and self._blocks(source, target):
                        continue
                    found.append((source, target, regular[source << 3 | die]))
        if not self.outside:
            if row[die]:
                found.append((die, OFF, _BEAR_OFF[die << 3 | die]))
            elif not any(row[die + 1 : HOME + 1]):
                # a die bigger than the highest checker bears that one off
                for source in range(die - 1, 0, -1):
                    if row[source]:
                        found.append((source, OFF, _BEAR_OFF[source << 3 | die]))
                        break
        return found

    def _blocks(self, source: int, target: int) -> bool:
        """Would ``source``/``target`` (onto an empty point) make a run of six
        or more points that no opponent checker has passed?"""
        row = self.row
        vacated = row[source] == 1
        up, down = _UP, _DOWN
        length = 1
        p = up[target]
        while p and row[p] and not (vacated and p == source):
            length += 1
            p = up[p]
        low = target
        p = down[target]
        while p and row[p] and not (vacated and p == source):
            length += 1
            low = p
            p = down[p]
        return length >= 6 and self.opp_min >= _THEIR_LONG[low]

    def make(self, source: int, target: int) -> bool:
        """Play a step from :meth:`moves`; returns whether it hit (for unmake)."""
        row = self.row
        row[source] -= 1
        row[target] += 1
        if source > HOME >= target:
            self.outside -= 1
        if self.blot[target]:
            self.blot[target] = False
            row[HITS] |= 1 << target
            return True
        return False

    def unmake(self, source: int, target: int, hit: bool) -> None:
        row = self.row
        row[source] += 1
        row[target] -= 1
        if source > HOME >= target:
            self.outside += 1
        if hit:
            self.blot[target] = True
            row[HITS] &= ~(1 << target)

    def key(self) -> Key:
        return tuple(self.row)

    def rows(self, key: Key) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """``(mover, opponent)`` rows of the position the state ``key`` shows."""
        mover = key[1 : BAR + 1]
        hits = key[HITS]
        if not hits:
            return mover, tuple(self.opponent)
        opponent = list(self.opponent)
        for p in range(1, 25):
            if hits >> p & 1:
                opponent[24 - p] -= 1
                opponent[BAR - 1] += 1
        return mover, tuple(opponent)


def final_states(gen: Generator, dice: tuple[int, int]) -> dict[Key, Path]:
    """Every distinct state after a complete legal turn, each with one step
    sequence reaching it; ``{}`` when nothing can be played."""
    high, low = max(dice), min(dice)
    start = gen.key()
    if high == low:
        level: dict[Key, Path] = {start: ()}
        for _ in range(4):
            frontier: dict[Key, Path] = {}
            for key, path in level.items():
                gen.reset(key)
                for source, target, step in gen.moves(high):
                    hit = gen.make(source, target)
                    child = tuple(gen.row)
                    if child not in frontier:
                        frontier[child] = (*path, step)
                    gen.unmake(source, target, hit)
            if not frontier:
                break
            level = frontier
        return {} if start in level else level
    full: dict[Key, Path] = {}
    for first, second in ((high, low), (low, high)):
        for source, target, step in gen.moves(first):
            hit = gen.make(source, target)
            for source2, target2, step2 in gen.moves(second):
                hit2 = gen.make(source2, target2)
                child = tuple(gen.row)
                if child not in full:
                    full[child] = (step, step2)
                gen.unmake(source2, target2, hit2)
            gen.unmake(source, target, hit)
    if full:
        return full
    # not both dice: the larger one if it can be played, else the smaller
    for die in (high, low):
        singles: dict[Key, Path] = {}
        for source, target, step in gen.moves(die):
            hit = gen.make(source, target)
            singles.setdefault(tuple(gen.row), (step,))
            gen.unmake(source, target, hit)
        if singles:
            return singles
    return {}
