"""Random tournaments, played to the end through the rules, keep every
invariant (tests/bot/rules/tournament/simulate.py says which).

The suite plays 1,500 seeded tournaments and 150 that hypothesis picks
(about 10 s); benchmarks/tournament_bench.py plays 10,000 and times them."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules.tournament.actions import MAX_ENTRANTS, MIN_ENTRANTS
from bot.vocab.tournament import Format
from tests.bot.rules.tournament.simulate import check, simulate

SEEDED = 1500


@pytest.mark.parametrize("fmt", list(Format))
def test_seeded_tournaments_keep_every_invariant(fmt: Format) -> None:
    events: Counter[str] = Counter()
    sizes = set()
    for seed in range(SEEDED // 3):
        played = simulate(seed, fmt)
        check(played)
        events.update(played.events)
        sizes.add(len(played.record.entrants))
    # the loop did reach what it claims to test
    assert min(sizes) <= MIN_ENTRANTS[fmt] + 3 and max(sizes) >= MAX_ENTRANTS[fmt] - 8
    assert all(events[kind] > 20 for kind in ("played", "forfeit", "double_forfeit",
                                              "withdrawal", "deadline"))


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(list(Format)), st.integers(0, 2**32), st.data())
def test_any_tournament_keeps_every_invariant(fmt: Format, seed: int, data: st.DataObject
                                              ) -> None:
    players = data.draw(st.integers(MIN_ENTRANTS[fmt], MAX_ENTRANTS[fmt]))
    check(simulate(seed, fmt, players))


def test_the_checks_catch_a_repeated_swiss_pairing() -> None:
    """The invariants can fail: a Swiss whose round 2 repeats round 1."""
    played = simulate(3, Format.SWISS, 8)
    record = played.record
    first, second = record.rounds[0], record.rounds[1]
    repeated = second.model_copy(update={"pairings": tuple(
        p.model_copy(update={"board": p.board}) for p in first.pairings)})
    played.record = record.model_copy(update={"rounds": (first, repeated, *record.rounds[2:])})
    with pytest.raises(AssertionError, match="repeated"):
        check(played)


def test_the_checks_catch_standings_that_do_not_follow_the_results() -> None:
    played = simulate(5, Format.ROUND_ROBIN, 6)
    final = played.record.final
    swapped = (final[1].model_copy(update={"rank": 1}), final[0].model_copy(update={"rank": 2}),
               *final[2:])
    played.record = played.record.model_copy(update={"final": swapped})
    with pytest.raises(AssertionError, match="not the results' standings"):
        check(played)
