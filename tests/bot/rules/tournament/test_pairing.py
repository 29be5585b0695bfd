"""Pairings: FIDE's Berger tables, knockout brackets, and Swiss rounds that
never repeat a pairing, give at most one bye each and never get stuck while
a pairing exists."""

from __future__ import annotations

import itertools
from collections import Counter
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules.tournament import pairing
from bot.rules.tournament.pairing import (
    PairingError,
    berger,
    bracket_order,
    first_slots,
    round_robin,
    swiss,
)

# FIDE Handbook C.05 Annex 1, "Berger Tables for Round-Robin Tournaments",
# as published (white-black, board by board); with an odd number of players
# the highest number is the bye.
FIDE = {
    4: """1-4 2-3 / 4-3 1-2 / 2-4 3-1""",
    6: """1-6 2-5 3-4 / 6-4 5-3 1-2 / 2-6 3-1 4-5 / 6-5 1-4 2-3 / 3-6 4-2 5-1""",
    8: """1-8 2-7 3-6 4-5 / 8-5 6-4 7-3 1-2 / 2-8 3-1 4-7 5-6 / 8-6 7-5 1-4 2-3 /
          3-8 4-2 5-1 6-7 / 8-7 1-6 2-5 3-4 / 4-8 5-3 6-2 7-1""",
    10: """1-10 2-9 3-8 4-7 5-6 / 10-6 7-5 8-4 9-3 1-2 / 2-10 3-1 4-9 5-8 6-7 /
           10-7 8-6 9-5 1-4 2-3 / 3-10 4-2 5-1 6-9 7-8 / 10-8 9-7 1-6 2-5 3-4 /
           4-10 5-3 6-2 7-1 8-9 / 10-9 1-8 2-7 3-6 4-5 / 5-10 6-4 7-3 8-2 9-1""",
    12: """1-12 2-11 3-10 4-9 5-8 6-7 / 12-7 8-6 9-5 10-4 11-3 1-2 /
           2-12 3-1 4-11 5-10 6-9 7-8 / 12-8 9-7 10-6 11-5 1-4 2-3 /
           3-12 4-2 5-1 6-11 7-10 8-9 / 12-9 10-8 11-7 1-6 2-5 3-4 /
           4-12 5-3 6-2 7-1 8-11 9-10 / 12-10 11-9 1-8 2-7 3-6 4-5 /
           5-12 6-4 7-3 8-2 9-1 10-11 / 12-11 1-10 2-9 3-8 4-7 5-6 /
           6-12 7-5 8-4 9-3 10-2 11-1""",
    14: """1-14 2-13 3-12 4-11 5-10 6-9 7-8 / 14-8 9-7 10-6 11-5 12-4 13-3 1-2 /
           2-14 3-1 4-13 5-12 6-11 7-10 8-9 / 14-9 10-8 11-7 12-6 13-5 1-4 2-3 /
           3-14 4-2 5-1 6-13 7-12 8-11 9-10 / 14-10 11-9 12-8 13-7 1-6 2-5 3-4""",
}


def _table(text: str) -> list[list[tuple[int, int]]]:
    return [[tuple(map(int, pair.split("-"))) for pair in line.split()]  # type: ignore[misc]
            for line in text.split("/")]


@pytest.mark.parametrize("size", sorted(FIDE))
def test_berger_is_fides_table(size: int) -> None:
    for number, expected in enumerate(_table(FIDE[size]), start=1):
        assert berger(size, number) == expected, f"{size} players, round {number}"


@pytest.mark.parametrize("size", [4, 6, 8, 10, 12, 14, 16])
def test_berger_meets_everybody_once(size: int) -> None:
    pairs = [frozenset(p) for number in range(1, size) for p in berger(size, number)]
    assert len(pairs) == len(set(pairs)) == size * (size - 1) // 2


def test_an_odd_field_uses_the_next_table_and_its_last_number_is_the_bye() -> None:
    seeded = [101, 102, 103, 104, 105]   # the 6-player table, number 6 the bye
    assert round_robin(seeded, 1, False) == [(101, None), (102, 105), (103, 104)]
    assert round_robin(seeded, 2, False) == [(104, None), (105, 103), (101, 102)]
    byes = Counter(p[0] for n in range(1, 6) for p in round_robin(seeded, n, False)
                   if p[1] is None)
    assert byes == Counter(seeded)   # each sits out once


def test_a_double_round_robin_plays_the_table_again_the_other_way_round() -> None:
    seeded = [1, 2, 3, 4]
    assert round_robin(seeded, 4, True) == [(4, 1), (3, 2)]
    assert round_robin(seeded, 5, True) == [(3, 4), (2, 1)]
    with pytest.raises(PairingError):
        round_robin(seeded, 7, True)
    with pytest.raises(PairingError):
        round_robin(seeded, 4, False)


def test_knockout_brackets_seed_the_best_apart_and_give_byes_to_the_top() -> None:
    assert bracket_order(2) == [1, 2]
    assert bracket_order(4) == [1, 4, 2, 3]
    order = bracket_order(32)
    assert [order[i:i + 2] for i in range(0, 8, 2)] == [[1, 32], [16, 17], [8, 25], [9, 24]]
    assert order.index(2) >= 16   # 1 and 2 only meet in the final
    assert first_slots(list(range(1, 6))) == [1, None, 4, 5, 2, None, 3, None]
    with pytest.raises(PairingError):
        bracket_order(12)


# ---------------------------------------------------------------- Swiss


def test_a_worked_swiss_round() -> None:
    """Round 3 of eight players.  After two rounds: A, B 2 points; C, D, E,
    F 1; G, H 0 (by seed within each group).  A met B in round 2, so the top
    group cannot pair itself: A and B float into the 1-point group, which
    pairs top half against bottom half - A v C, B v D (A-C and B-D are not
    repeats), then E v F; G v H at the bottom."""
    a, b, c, d, e, f, g, h = range(1, 9)
    score = {a: 2, b: 2, c: 1, d: 1, e: 1, f: 1, g: 0, h: 0}
    met = {frozenset(p) for p in [(a, e), (b, f), (c, g), (d, h), (a, b), (c, d), (e, g),
                                  (f, h)]}
    assert swiss([a, b, c, d, e, f, g, h], score, met, set()) == (
        [(a, c), (b, d), (e, f), (g, h)], None)


def test_a_swiss_transposes_the_bottom_half_to_avoid_a_repeat() -> None:
    """Four players on 1 point: 1 v 3 and 2 v 4 would be the pairing, but 1
    met 3; the next transposition is 1 v 4, 2 v 3."""
    assert swiss([1, 2, 3, 4], dict.fromkeys([1, 2, 3, 4], 1), {frozenset((1, 3))}, set()) \
        == ([(1, 4), (2, 3)], None)


def test_the_bye_goes_to_the_lowest_player_who_had_none() -> None:
    """5 had a bye: 4 gets it.  1 floats into the 1-point group and meets
    its best, 2; 3 floats down to 5."""
    score = {1: 2, 2: 1, 3: 1, 4: 0, 5: 0}
    assert swiss([1, 2, 3, 4, 5], score, set(), {5}) == ([(1, 2), (3, 5)], 4)


def test_the_bye_moves_up_when_the_lowest_would_leave_the_rest_unpairable() -> None:
    """5 and 4 may both have the bye, but if 5 took it, 4 could only meet 3,
    and 1-2 have met: so 4 gets the bye."""
    met = {frozenset(p) for p in [(1, 2), (1, 4), (2, 4), (3, 5)]}
    pairs, bye = swiss([1, 2, 3, 4, 5], dict.fromkeys(range(1, 6), 0), met, set()) or ([], 0)
    assert bye == 4
    assert sorted(map(sorted, pairs)) == [[1, 3], [2, 5]]  # type: ignore[arg-type]


def test_no_swiss_round_when_every_pairing_repeats() -> None:
    everyone = {frozenset(p) for p in itertools.combinations(range(4), 2)}
    assert swiss([0, 1, 2, 3], dict.fromkeys(range(4), 0), everyone, set()) is None
    assert swiss([0, 1, 2], dict.fromkeys(range(3), 0), set(), {0, 1, 2}) is None


def _pairable(players: list[int], met: set[frozenset[int]], had_bye: set[int]) -> bool:
    """Brute force: is there any pairing of ``players`` (a bye if odd)?"""
    def pairs_up(rest: list[int]) -> bool:
        if not rest:
            return True
        first = rest[0]
        return any(frozenset((first, o)) not in met and pairs_up([x for x in rest[1:] if x != o])
                   for o in rest[1:])
    if len(players) % 2:
        return any(p not in had_bye and pairs_up([x for x in players if x != p])
                   for p in players)
    return pairs_up(players)


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[int], dict[int, int], set[frozenset[int]], set[int]]:
    count = draw(st.integers(2, 11))
    players = list(range(count))
    every = [frozenset(p) for p in itertools.combinations(players, 2)]
    met = set(draw(st.lists(st.sampled_from(every), max_size=len(every))))
    had_bye = set(draw(st.lists(st.sampled_from(players), max_size=count)))
    score = {p: draw(st.integers(0, 4)) for p in players}
    ranked = sorted(players, key=lambda p: (-score[p], p))
    return ranked, score, met, had_bye


@settings(max_examples=400, deadline=None)
@given(histories())
def test_swiss_pairs_whenever_a_pairing_exists_and_only_validly(
        history: tuple[list[int], dict[int, int], set[frozenset[int]], set[int]]) -> None:
    ranked, score, met, had_bye = history
    found = swiss(ranked, score, met, had_bye)
    assert (found is not None) == _pairable(ranked, met, had_bye)
    if found is None:
        return
    pairs, bye = found
    seen = [p for pair in pairs for p in pair] + ([bye] if bye is not None else [])
    assert sorted(seen) == sorted(ranked)   # type: ignore[type-var]
    assert all(frozenset(pair) not in met for pair in pairs)
    assert all(ranked.index(a) < ranked.index(b) for a, b in pairs)  # type: ignore[arg-type]
    if bye is not None:
        assert bye not in had_bye
        # nobody ranked lower could have had it instead
        lower = ranked[ranked.index(bye) + 1:]
        assert not any(p not in had_bye and _pairable_without(ranked, p, met) for p in lower)


def _pairable_without(ranked: list[int], bye: int, met: set[frozenset[int]]) -> bool:
    return _pairable([p for p in ranked if p != bye], met, set())


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 12), st.data())
def test_swiss_pairs_a_score_group_within_itself_when_it_can(count: int, data: st.DataObject
                                                            ) -> None:
    """Without repeats in the way, nobody floats from an even score group,
    and the top half meets the bottom half."""
    players = list(range(count + count % 2))
    group = data.draw(st.integers(0, 1))
    score = {p: group for p in players}
    pairs, bye = swiss(players, score, set(), set()) or ([], -1)
    half = len(players) // 2
    assert bye is None
    assert pairs == [(players[i], players[i + half]) for i in range(half)]


@settings(max_examples=200, deadline=None)
@given(histories(), st.integers(1, 6))
def test_a_round_whose_search_runs_out_still_pairs_whenever_it_can(
        history: tuple[list[int], dict[int, int], set[frozenset[int]], set[int]],
        budget: int) -> None:
    """With almost no search budget the rest of the round is paired top-down,
    still only validly and still whenever some pairing exists."""
    ranked, score, met, had_bye = history
    with patch.object(pairing, "SEARCH_BUDGET", budget):
        found = swiss(ranked, score, met, had_bye)
    assert (found is not None) == _pairable(ranked, met, had_bye)
    if found is not None:
        pairs, bye = found
        seen = [p for pair in pairs for p in pair] + ([bye] if bye is not None else [])
        assert sorted(seen) == sorted(ranked)   # type: ignore[type-var]
        assert all(frozenset(pair) not in met for pair in pairs)
        assert bye is None or bye not in had_bye
