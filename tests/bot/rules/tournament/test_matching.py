"""The perfect-matching witness against brute force on small random graphs."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules.tournament.matching import Witness


def perfect(allowed: list[int], alive: int) -> bool:
    """Brute force: can the players of ``alive`` all be paired?"""
    players = [v for v in range(len(allowed)) if alive >> v & 1]
    if not players:
        return True
    first = players[0]
    return any(allowed[first] >> other & 1 and perfect(allowed, alive & ~(1 << first | 1 << other))
               for other in players[1:])


@st.composite
def graphs(draw: st.DrawFn) -> list[int]:
    size = draw(st.integers(0, 12))
    density = draw(st.floats(0.0, 1.0))
    allowed = [0] * size
    for a in range(size):
        for b in range(a + 1, size):
            if draw(st.floats(0.0, 1.0)) < density:
                allowed[a] |= 1 << b
                allowed[b] |= 1 << a
    return allowed


def valid(witness: Witness) -> bool:
    live = [v for v in range(witness.size) if witness.alive >> v & 1]
    mate = witness.mate
    return all(witness.alive >> mate[v] & 1 and mate[mate[v]] == v
               and witness.allowed[v] >> mate[v] & 1 for v in live)


@settings(max_examples=300, deadline=None)
@given(graphs(), st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), max_size=8))
def test_the_witness_answers_as_brute_force_does(allowed: list[int],
                                                 takes: list[tuple[int, int]]) -> None:
    witness = Witness(allowed)
    everyone = (1 << len(allowed)) - 1
    assert witness.complete() == perfect(allowed, everyone)
    if not witness.alive or not perfect(allowed, everyone):
        return
    assert valid(witness)
    taken = []
    for x, y in takes:
        if max(x, y) >= len(allowed):
            continue
        before = witness.alive
        live = before >> x & 1 and before >> y & 1 and x != y
        expected = bool(live and allowed[x] >> y & 1
                        and perfect(allowed, before & ~(1 << x | 1 << y)))
        assert witness.take(x, y) == expected
        if expected:
            taken.append((x, y))
        else:
            assert witness.alive == before
        assert valid(witness)
    for x, y in reversed(taken):   # backtracking puts pairs back
        witness.give_back(x, y)
        assert valid(witness)
    assert witness.alive == everyone


@settings(max_examples=200, deadline=None)
@given(graphs(), st.integers(0, 2**12 - 1))
def test_most_pairs_is_a_maximum_matching(allowed: list[int], among: int) -> None:
    among &= (1 << len(allowed)) - 1
    players = [v for v in range(len(allowed)) if among >> v & 1]

    def best(rest: list[int]) -> int:
        if len(rest) < 2:
            return 0
        first, others = rest[0], rest[1:]
        return max([best(others)] + [1 + best([x for x in others if x != o])
                                     for o in others if allowed[first] >> o & 1])

    witness = Witness(allowed)
    assert witness.most_pairs(among) == best(players)
    assert witness.alive == (1 << len(allowed)) - 1   # unchanged
