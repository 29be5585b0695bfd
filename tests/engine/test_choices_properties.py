"""Properties of whole-turn choices, step groups and forced turns over
positions from random games of both variants, against a brute-force walk of
:class:`TurnInProgress` (every legal step tried, nothing clever)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    Dice,
    Position,
    Side,
    Step,
    TurnInProgress,
    Variant,
    forced_turn,
    format_turn,
    legal_turns,
    parse_turn,
    text_order,
    turn_choices,
)
from tests.engine.strategies import dice, game_positions, random_game_positions

VARIANTS = [Variant.BACKGAMMON, Variant.LONG]


def remaining(tip: TurnInProgress) -> tuple[int, ...]:
    left = list(tip.dice.steps)
    for step in tip.played:
        left.remove(step.die)
    return tuple(left)


class Walk:
    """Every complete turn reachable from a turn in progress, by trying
    every legal step (memoised on the position and the dice left, which
    decide what may follow within one turn)."""

    def __init__(self) -> None:
        self.memo: dict[tuple[Position, tuple[int, ...]], frozenset[Position]] = {}

    def finals(self, tip: TurnInProgress) -> frozenset[Position]:
        key = (tip.position, remaining(tip))
        found = self.memo.get(key)
        if found is None:
            if tip.is_complete:
                found = frozenset((tip.position,))
            else:
                found = frozenset().union(*(self.finals(tip.play(s)) for s in tip.legal_steps))
            self.memo[key] = found
        return found


def sequences(tip: TurnInProgress) -> Iterator[tuple[Step, ...]]:
    """The complete legal step sequences from ``tip``, one per set of steps
    (orders of the same steps give the same position and text)."""
    seen: set[tuple[Position, tuple[Step, ...]]] = set()
    stack = [tip]
    while stack:
        here = stack.pop()
        key = (here.position, tuple(sorted(here.played, key=repr)))
        if key in seen:
            continue
        seen.add(key)
        if here.is_complete:
            yield here.played
        stack.extend(here.play(step) for step in here.legal_steps)


def one_step_in(tip: TurnInProgress, pick: int) -> TurnInProgress:
    """``tip`` after one of its legal steps (``tip`` itself if none)."""
    steps = sorted(tip.legal_steps, key=repr)
    return tip.play(steps[pick % len(steps)]) if steps else tip


def check_groups(tip: TurnInProgress, walk: Walk) -> int:
    """Check the step groups of ``tip`` against the brute-force definition;
    returns how many steps shared a button with another."""
    groups = {rep: tip.equivalent_steps(rep) for rep in tip.distinct_steps}
    assert set().union(*groups.values()) == tip.legal_steps
    assert sum(len(group) for group in groups.values()) == len(tip.legal_steps)
    for rep, group in groups.items():
        assert rep in group and rep.die == max(step.die for step in group)
        for step in group:
            assert tip.equivalent_steps(step) == group

    def result(step: Step) -> tuple[Position, frozenset[Position]]:
        after = tip.play(step)
        return after.position, walk.finals(after)

    results = {step: result(step) for step in tip.legal_steps}
    for a in tip.legal_steps:
        for b in tip.legal_steps:
            same_group = tip.equivalent_steps(a) == tip.equivalent_steps(b)
            assert (results[a] == results[b]) == same_group
    return sum(len(group) for group in groups.values() if len(group) > 1)


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=120, deadline=None)
@given(data=st.data(), roll=dice())
def test_whole_turn_choices_are_the_legal_turns_results(
    variant: Variant, data: st.DataObject, roll: Dice
) -> None:
    position = data.draw(game_positions(variant))
    choices = turn_choices(position, roll)
    reached = [choice.position for choice in choices]
    assert len(set(reached)) == len(reached)
    assert set(reached) == {turn.position for turn in legal_turns(position, roll)}
    assert set(reached) == Walk().finals(TurnInProgress(position, roll))
    for choice in choices:
        tip = TurnInProgress(position, roll)
        for step in choice.steps:  # the same legal path a player taps
            assert step in tip.legal_steps
            tip = tip.play(step)
        assert tip.is_complete and tip.position == choice.position
    for numbering in (None, Side.WHITE, Side.BLACK):
        texts = [choice.notation(numbering) for choice in choices]
        assert len(set(texts)) == len(texts)


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=60, deadline=None)
@given(data=st.data(), roll=dice())
def test_a_result_has_one_text_however_it_is_played_and_it_parses_back(
    variant: Variant, data: st.DataObject, roll: Dice
) -> None:
    position = data.draw(game_positions(variant))
    text_of = {choice.position: choice.notation() for choice in turn_choices(position, roll)}
    for steps in sequences(TurnInProgress(position, roll)):
        reached = TurnInProgress(position, roll, steps).position
        assert format_turn(position, text_order(steps)) == text_of[reached]
    for reached, text in text_of.items():
        assert parse_turn(position, roll, text).position == reached


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=150, deadline=None)
@given(data=st.data(), roll=dice(), pick=st.integers(0, 30))
def test_step_groups_are_exactly_the_distinct_results(
    variant: Variant, data: st.DataObject, roll: Dice, pick: int
) -> None:
    position = data.draw(game_positions(variant))
    walk = Walk()
    tip = TurnInProgress(position, roll)
    check_groups(tip, walk)
    check_groups(one_step_in(tip, pick), walk)


@pytest.mark.parametrize("variant", VARIANTS)
def test_step_groups_meet_real_bear_offs(variant: Variant) -> None:
    # the property above must not pass by never meeting a shared button:
    # positions of whole random games, bear-offs included, have them
    shared = 0
    for position, roll in random_game_positions(variant, 14, 600):
        tip = TurnInProgress(position, roll)
        if not tip.legal_steps or len(tip.distinct_steps) == len(tip.legal_steps):
            continue
        shared += check_groups(tip, Walk())
    assert shared >= 10


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=150, deadline=None)
@given(data=st.data(), roll=dice(), pick=st.integers(0, 30))
def test_a_forced_turn_is_one_with_exactly_one_result(
    variant: Variant, data: st.DataObject, roll: Dice, pick: int
) -> None:
    position = data.draw(game_positions(variant))
    start = TurnInProgress(position, roll)
    results = legal_turns(position, roll)
    forced = forced_turn(position, roll)
    assert (forced is not None) == (len(results) == 1)
    if not start.legal_steps:
        assert forced == ()
    walk = Walk()
    for tip in (start, one_step_in(start, pick)):
        steps = tip.forced_steps
        finals = walk.finals(tip)
        assert (steps is not None) == (len(finals) == 1)
        if steps is not None:
            for step in steps:
                tip = tip.play(step)
            assert tip.is_complete and {tip.position} == finals
