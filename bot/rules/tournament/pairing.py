"""Who plays whom: Berger tables, Swiss rounds, knockout brackets.

Pure functions of user ids in seed order (the top seed first) and the
results so far; the tournament's rules (:mod:`bot.rules.tournament.actions`)
turn what they return into a round.  A pair is ``(first, second)``;
``second`` is None for a bye.  Nardy has no colours, so "first" only orders
the two names (it is FIDE's white in a Berger table).

**Round robin**: FIDE's Berger tables (Handbook C.05, Annex 1), players
numbered by seed; with an odd number the highest number is the bye.  A double
round robin plays the table twice, the second time each pair named the other
way round.

>>> berger(4, 1), berger(4, 2), berger(4, 3)
([(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)])

**Knockout**: the bracket of the next power of two, seeds placed so that the
best two can meet only in the final (1 v 16, 8 v 9, 4 v 13 ...); the places of
missing seeds are byes, which therefore go to the top seeds.

>>> bracket_order(8)
[1, 8, 4, 5, 2, 7, 3, 6]

**Swiss**: :func:`swiss` (its docstring says how).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence, Set
from itertools import groupby

from bot.rules.tournament.matching import Witness

Pair = tuple[int, int | None]


class PairingError(ValueError):
    """Arguments no tournament has (a round that does not exist, too few players)."""


# ---------------------------------------------------------------- round robin


def berger_size(players: int) -> int:
    """The Berger table used for ``players``: the even number at or above it."""
    return players + players % 2


def berger(size: int, round_number: int) -> list[tuple[int, int]]:
    """Round ``round_number`` (1 ..``size - 1``) of FIDE's Berger table for an
    even ``size``: ``(white, black)`` board by board, players numbered from 1.

    Board 1 is ``size`` against the player ``s`` whom the table rotates
    through (1, then ``size/2 + 1`` ...: each round adds ``size/2``, modulo
    ``size - 1``), ``s`` first in odd rounds; board ``k`` pairs the players
    ``k - 1`` places either side of ``s`` on the circle of ``1 .. size - 1``,
    the one after first.

    >>> berger(6, 2)
    [(6, 4), (5, 3), (1, 2)]
    """
    if size < 2 or size % 2 or not 1 <= round_number < size:
        raise PairingError(f"no round {round_number} in a Berger table of {size}")
    circle = size - 1
    turn = (round_number - 1) * (size // 2) % circle   # s - 1
    pairs = [(turn + 1, size) if round_number % 2 else (size, turn + 1)]
    for board in range(2, size // 2 + 1):
        pairs.append(((turn + board - 1) % circle + 1, (turn - board + 1) % circle + 1))
    return pairs


def round_robin_rounds(players: int, double: bool) -> int:
    """How many rounds a round robin of ``players`` has.

    >>> round_robin_rounds(5, False), round_robin_rounds(6, True)
    (5, 10)
    """
    return (berger_size(players) - 1) * (2 if double else 1)


def round_robin(seeded: Sequence[int], round_number: int, double: bool) -> list[Pair]:
    """Round ``round_number`` of a round robin of ``seeded`` (seed 1 is Berger
    number 1): the table's pairs, its bye number's as a bye.

    >>> round_robin([10, 20, 30], 1, False)
    [(10, None), (20, 30)]
    >>> round_robin([10, 20, 30], 4, True)
    [(10, None), (30, 20)]
    """
    size = berger_size(len(seeded))
    single = size - 1
    if not 1 <= round_number <= round_robin_rounds(len(seeded), double):
        raise PairingError(f"no round {round_number} in this round robin")
    second_cycle = round_number > single
    table = berger(size, round_number - single if second_cycle else round_number)
    out: list[Pair] = []
    for white, black in table:
        one, two = (black, white) if second_cycle else (white, black)
        if one > len(seeded):
            out.append((seeded[two - 1], None))
        else:
            out.append((seeded[one - 1], seeded[two - 1] if two <= len(seeded) else None))
    return out


# ---------------------------------------------------------------- knockout


def bracket_order(size: int) -> list[int]:
    """The seeds of a bracket of ``size`` (a power of two) in bracket order:
    neighbours meet in the first round, and each seed ``s`` of the top
    ``size/2`` meets ``size + 1 - s`` there.

    >>> bracket_order(16)
    [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]
    """
    if size < 1 or size & (size - 1):
        raise PairingError(f"a bracket has a power of two places, not {size}")
    order = [1]
    while len(order) < size:
        bigger = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, bigger - top)]
    return order


def bracket_size(players: int) -> int:
    """The smallest power of two at or above ``players``.

    >>> bracket_size(5), bracket_size(8), bracket_size(2)
    (8, 8, 2)
    """
    return 1 << max(0, players - 1).bit_length()


def first_slots(seeded: Sequence[int]) -> list[int | None]:
    """A bracket's places filled with ``seeded`` (seed 1 first); None: a bye's empty place.

    >>> first_slots([11, 22, 33])
    [11, None, 22, 33]
    """
    order = bracket_order(bracket_size(len(seeded)))
    return [seeded[s - 1] if s <= len(seeded) else None for s in order]


def slot_pairs(slots: Sequence[int | None]) -> Iterator[tuple[int | None, int | None]]:
    """Neighbouring places of a bracket, the pairs of its next round."""
    return zip(slots[::2], slots[1::2], strict=True)


def next_slots(slots: Sequence[int | None], winner: Callable[[int, int], int]
               ) -> list[int | None]:
    """The places of a bracket's next round: each game's winner (``winner(a,
    b)`` says who), a lone player going through, an empty pair staying empty.

    >>> next_slots([1, 2, None, 4, None, None], lambda a, b: max(a, b))
    [2, 4, None]
    """
    out: list[int | None] = []
    for a, b in slot_pairs(slots):
        if a is not None and b is not None:
            out.append(winner(a, b))
        else:
            out.append(a if b is None else b)
    return out


# ---------------------------------------------------------------- Swiss

SEARCH_BUDGET = 20_000
"""Pairs a Swiss round tries before it stops looking for the best pairing of
a score group and pairs the rest top-down (still never failing).  None of
the 10,000 tournaments of benchmarks/tournament_bench.py reaches it."""


def swiss(ranked: Sequence[int], scores: Mapping[int, int], met: Set[frozenset[int]],
          had_bye: Set[int]) -> tuple[list[Pair], int | None] | None:
    """A Swiss round for ``ranked`` (the players to pair, by score and then
    seed, best first): its pairs (the better-ranked player first) and the
    bye; None if no pairing exists (then every pair would repeat, or the bye
    would go to a player who had one).

    * Nobody meets an opponent twice (``met``), and a bye goes only to a
      player who had none (``had_bye``): the lowest-ranked such player whose
      bye leaves the rest pairable - in the lowest score group that can.
    * Score groups are paired from the top, each making as many pairs as it
      can.  The players who floated down into a group meet its best
      residents first; the residents pair top half against bottom half (1st
      v (k/2+1)th ...), trying the next opponents in that order when a pair
      is a repeat; whoever cannot be paired floats down to the next group,
      the lowest-ranked first.
    * Every pair is kept only if all the players left can still be paired
      (:class:`~bot.rules.tournament.matching.Witness`), so a round is never
      stuck while some pairing exists.

    >>> swiss([1, 2, 3, 4], {1: 1, 2: 1, 3: 0, 4: 0}, {frozenset({1, 2})}, set())
    ([(1, 3), (2, 4)], None)
    """
    count = len(ranked)
    index = {player: i for i, player in enumerate(ranked)}
    bye = count if count % 2 else None
    allowed = [0] * (count + (bye is not None))
    for i, a in enumerate(ranked):
        for j in range(i + 1, count):
            if frozenset((a, ranked[j])) not in met:
                allowed[i] |= 1 << j
                allowed[j] |= 1 << i
        if bye is not None and a not in had_bye:
            allowed[i] |= 1 << bye
            allowed[bye] |= 1 << i
    witness = Witness(allowed)
    if not witness.complete():
        return None
    got_bye = None
    if bye is not None:
        got_bye = next(i for i in reversed(range(count)) if witness.take(i, bye))
    groups = [[index[p] for p in group] for _, group in
              groupby((p for p in ranked if index[p] != got_bye), key=lambda p: -scores[p])]
    pairs = _pair_groups(witness, groups)
    return ([(ranked[a], ranked[b]) for a, b in pairs],
            None if got_bye is None else ranked[got_bye])


def _pair_groups(witness: Witness, groups: list[list[int]]) -> list[tuple[int, int]]:
    budget = [SEARCH_BUDGET]
    pairs: list[tuple[int, int]] = []
    floating: list[int] = []
    for number, group in enumerate(groups):
        found = _pair_group(witness, floating, group, last=number == len(groups) - 1,
                            budget=budget)
        if found is None:  # the search budget ran out: pair everybody left top-down
            rest = sorted(floating + group + [p for g in groups[number + 1:] for p in g])
            return pairs + _top_down(witness, rest)
        made, floating = found
        pairs += made
    return pairs


def _pair_group(witness: Witness, floaters: list[int], residents: list[int], last: bool,
                budget: list[int]) -> tuple[list[tuple[int, int]], list[int]] | None:
    """The most pairs a score group (and who floated into it) can make, and
    who floats on.  The players below who cannot be paired among themselves
    each need a partner from the group: that bounds its pairs, and spares a
    search through every pairing of a count it cannot make."""
    members = floaters + residents
    size = len(members)
    needed = 0
    if not last:
        below = witness.alive & ~sum(1 << p for p in members)
        needed = below.bit_count() - 2 * witness.most_pairs(below)
    most = (size - needed) // 2
    for count in range(most, most - 1 if last else -1, -1):
        found = _search(witness, floaters, residents, count, size - 2 * count, budget)
        if found is not None or budget[0] <= 0:
            return found
    return None  # pragma: no cover - the last group's witness pairs it


def _search(witness: Witness, floaters: list[int], residents: list[int], pairs_left: int,
            floats_left: int, budget: list[int]
            ) -> tuple[list[tuple[int, int]], list[int]] | None:
    """Backtracking over who ``floaters[0]`` (or, once they are all placed,
    ``residents[0]``) plays, in the order the system prefers: a player who
    floated in meets the group's best residents first; the residents pair
    top half against bottom half (the Dutch split of who is left), then
    try the next opponents."""
    if pairs_left == 0:
        return [], floaters + residents
    if floaters:
        first = floaters[0]
        candidates = residents + floaters[1:]
    else:
        first, rest = residents[0], residents[1:]
        candidates = rest[pairs_left - 1:] + rest[:pairs_left - 1]
    for other in candidates:
        budget[0] -= 1
        if budget[0] <= 0:
            return None
        if witness.take(first, other):
            found = _search(witness, [p for p in floaters if p not in (first, other)],
                            [p for p in residents if p not in (first, other)],
                            pairs_left - 1, floats_left, budget)
            if found is not None:
                return [(first, other), *found[0]], found[1]
            witness.give_back(first, other)
    if floats_left:
        found = _search(witness, [p for p in floaters if p != first],
                        [p for p in residents if p != first], pairs_left, floats_left - 1,
                        budget)
        if found is not None:
            return found[0], [first, *found[1]]
    return None


def _top_down(witness: Witness, rest: list[int]) -> list[tuple[int, int]]:
    """Each player left, best first, against the best-ranked opponent that keeps
    the rest pairable (one always does: the witness's own partner)."""
    pairs = []
    while rest:
        first = rest[0]
        other = next(p for p in rest[1:] if witness.take(first, p))
        pairs.append((first, other))
        rest = [p for p in rest[1:] if p != other]
    return pairs


def ranked_for_swiss(players: Sequence[int], scores: Mapping[int, int],
                     seed: Mapping[int, int]) -> list[int]:
    """``players`` by score, best first, then by seed."""
    return sorted(players, key=lambda p: (-scores[p], seed[p]))
