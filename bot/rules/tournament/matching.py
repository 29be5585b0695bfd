"""Can these players all be paired?  A perfect matching kept as a witness.

The Swiss pairing (:mod:`bot.rules.tournament.pairing`) tries pairs in the
order it prefers and keeps one only if everybody left can still be paired
(without a repeat, and with the bye only to a player who has had none).  That
question is "does the graph of allowed pairs still have a perfect
matching?", answered here by Edmonds' blossom algorithm (any graph, not only
two halves: a Swiss field is not bipartite).

:class:`Witness` keeps a perfect matching of the players still unpaired.
Taking a pair out costs nothing when the witness pairs them already;
otherwise their two partners are left single, and one search for an
augmenting path between them (``O(n²)``) says whether the rest can still be
paired, and re-pairs them if so.  Putting a pair back (backtracking) always
works: the smaller set's witness plus that pair is a witness of the bigger.

Players are numbered ``0 .. n-1``; ``allowed[v]`` is the bit mask of the
players ``v`` may be paired with.

>>> triangle_and_one = [0b0110, 0b0101, 0b0011, 0b0000]   # 3 has no allowed pair
>>> Witness(triangle_and_one).complete()
False
>>> square = [0b1010, 0b0101, 0b1010, 0b0101]             # a 4-cycle 0-1-2-3-0
>>> witness = Witness(square)
>>> witness.complete()
True
>>> witness.take(0, 2)   # not allowed
False
>>> witness.take(0, 1), witness.take(2, 3), witness.alive
(True, True, 0)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence


class Witness:
    """A perfect matching of the live players, kept while pairs are taken out and put back."""

    def __init__(self, allowed: Sequence[int]) -> None:
        self.allowed = tuple(allowed)
        self.size = len(self.allowed)
        self.alive = (1 << self.size) - 1
        """Bit mask of the players not taken yet."""
        self.mate = [-1] * self.size

    def complete(self) -> bool:
        """Make the witness a maximum matching of the live players; whether it
        is perfect (every live player paired)."""
        mate = self.mate
        for v in _bits(self.alive):
            if mate[v] != -1 and not self.alive >> mate[v] & 1:
                mate[v] = -1
        for v in _bits(self.alive):  # a greedy start leaves few paths to find
            if mate[v] == -1:
                free = [u for u in _bits(self.allowed[v] & self.alive) if mate[u] == -1]
                if free:
                    mate[v], mate[free[0]] = free[0], v
        for v in _bits(self.alive):
            if mate[v] == -1:
                self._augment(v)
        return all(mate[v] != -1 for v in _bits(self.alive))

    def most_pairs(self, among: int) -> int:
        """How many pairs the players of the mask ``among`` can make among
        themselves (a maximum matching of them; this witness is unchanged).
        When each may meet at least half of them, all can be paired but an
        odd one out (Dirac), without a search."""
        players = _bits(among)
        if all((self.allowed[v] & among).bit_count() >= (len(players) + 1) // 2
               for v in players):
            return len(players) // 2
        other = Witness(self.allowed)
        other.alive = among
        other.complete()
        return sum(other.mate[v] != -1 for v in players) // 2

    def take(self, x: int, y: int) -> bool:
        """Take ``x`` and ``y`` out as a pair if they may meet and everybody
        left can still be paired; False (nothing changed) if not.  The
        witness must be perfect (:meth:`complete` said True)."""
        if x == y or not self.allowed[x] >> y & 1 or not self.alive >> x & 1 & (self.alive >> y):
            return False
        mate = self.mate
        if mate[x] == y:
            self.alive &= ~(1 << x | 1 << y)
            return True
        x2, y2 = mate[x], mate[y]
        self.alive &= ~(1 << x | 1 << y)
        mate[x2] = mate[y2] = -1
        if self._augment(x2):  # the only other single player is y2: the path ends there
            mate[x], mate[y] = y, x
            return True
        self.alive |= 1 << x | 1 << y
        mate[x2], mate[y2] = x, y
        return False

    def give_back(self, x: int, y: int) -> None:
        """Undo :meth:`take` of ``x`` and ``y``."""
        self.alive |= 1 << x | 1 << y
        self.mate[x], self.mate[y] = y, x

    def _augment(self, root: int) -> bool:
        """Edmonds' search from the single player ``root`` for an augmenting
        path (alternating, ending at another single player), shrinking odd
        cycles (blossoms) to their base as it goes; flips it if found."""
        size, mate, alive, allowed = self.size, self.mate, self.alive, self.allowed
        parent = [-1] * size
        base = list(range(size))
        outer = [False] * size
        outer[root] = True
        queue = deque([root])
        while queue:
            v = queue.popleft()
            for to in _bits(allowed[v] & alive):
                if base[v] == base[to] or mate[v] == to:
                    continue
                if to == root or (mate[to] != -1 and parent[mate[to]] != -1):
                    top = _common_base(v, to, base, parent, mate)
                    inside = [False] * size
                    _mark_path(v, top, to, base, parent, mate, inside)
                    _mark_path(to, top, v, base, parent, mate, inside)
                    for i in _bits(alive):
                        if inside[base[i]]:
                            base[i] = top
                            if not outer[i]:
                                outer[i] = True
                                queue.append(i)
                elif parent[to] == -1:
                    parent[to] = v
                    if mate[to] == -1:
                        _flip(to, parent, mate)
                        return True
                    outer[mate[to]] = True
                    queue.append(mate[to])
        return False


def _bits(mask: int) -> list[int]:
    """The numbers of the set bits of ``mask``, lowest first (at most 65 of them here)."""
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def _common_base(a: int, b: int, base: list[int], parent: list[int], mate: list[int]) -> int:
    """The base of the blossom that the edge ``a``-``b`` closes: where their
    paths towards the root meet."""
    seen = set()
    while True:
        a = base[a]
        seen.add(a)
        if mate[a] == -1:
            break
        a = parent[mate[a]]
    while True:
        b = base[b]
        if b in seen:
            return b
        b = parent[mate[b]]


def _mark_path(v: int, top: int, child: int, base: list[int], parent: list[int],
               mate: list[int], inside: list[bool]) -> None:
    while base[v] != top:
        inside[base[v]] = inside[base[mate[v]]] = True
        parent[v] = child
        child = mate[v]
        v = parent[mate[v]]


def _flip(end: int, parent: list[int], mate: list[int]) -> None:
    """Swap matched and unmatched edges along the path found, from its end back to the root."""
    while end != -1:
        previous = parent[end]
        further = mate[previous]
        mate[end], mate[previous] = previous, end
        end = further
