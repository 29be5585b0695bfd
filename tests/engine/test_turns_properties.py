"""Properties of the move generator over positions from random games, and a
check against a slow, obviously written reference generator (both variants;
GNU Backgammon checks backgammon separately in test_gnubg_crosscheck.py)."""

from __future__ import annotations

import contextlib
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    CHECKERS,
    HEAD,
    Dice,
    InvalidPositionError,
    Position,
    Step,
    TurnInProgress,
    Variant,
    apply_step,
    end_turn,
    legal_turns,
    opponent_point,
)
from engine.turns import packed_results, results_key
from tests.engine.strategies import dice, game_positions, random_game_positions

LONG = Variant.LONG

# --- the reference: every rule spelled out, no speed tricks ---------------------

Rows = tuple[tuple[int, ...], tuple[int, ...]]  # (mover, opponent), own numbering


def opponent_on(variant: Variant, opp: tuple[int, ...], point: int) -> int:
    return opp[opponent_point(variant, point) - 1]


def illegal_block(mover: tuple[int, ...], opp: tuple[int, ...]) -> bool:
    """Six or more of the mover's points in a row along the opponent's path
    (its numbers, no wrap) with no opponent checker past them and none off."""
    if sum(opp) < CHECKERS:
        return False
    occupied = [False] + [bool(mover[opponent_point(LONG, q) - 1]) for q in range(1, 25)]
    lowest_opponent = min(q for q in range(1, 25) if opp[q - 1])
    for low in range(1, 20):
        if all(occupied[low : low + 6]) and not occupied[low - 1] and lowest_opponent > low:
            return True
    return False


def head_limit(position: Position, rows: Rows, die: int, double: bool) -> int:
    if not (position.first_turn and double and die in (3, 4, 6)):
        return 1
    point = HEAD
    for _ in range(4):
        point -= die
        if point >= 1 and opponent_on(LONG, rows[1], point):
            return 2 if point == 12 else 1
    return 1


def reference_steps(variant: Variant, rows: Rows, die: int, head_left: int) -> list[Rows]:
    """Positions after each legal single step with ``die``."""
    mover, opp = rows
    found = []
    # backgammon: the bar first
    sources = [25] if mover[24] else [p for p in range(1, 25) if mover[p - 1]]
    if variant is LONG and head_left <= 0 and HEAD in sources:
        sources.remove(HEAD)
    for source in sources:
        target = source - die
        new_mover, new_opp = list(mover), list(opp)
        new_mover[source - 1] -= 1
        if target >= 1:
            there = opponent_on(variant, opp, target)
            if there > (0 if variant is LONG else 1):
                continue
            new_mover[target - 1] += 1
            if there:  # backgammon blot
                new_opp[opponent_point(variant, target) - 1] -= 1
                new_opp[24] += 1
        else:
            if any(mover[6:]):
                continue
            if target < 0 and any(mover[source:6]):
                continue
        if variant is LONG and illegal_block(tuple(new_mover), opp):
            continue
        found.append((tuple(new_mover), tuple(new_opp)))
    return found


def reference_finals(position: Position, roll: Dice) -> set[Rows]:
    mover = position.board[position.turn]
    start: Rows = (mover, position.board[position.turn.opponent])
    variant = position.variant
    limit = head_limit(position, start, roll.first, roll.is_double)
    orders = [roll.steps] if roll.is_double else list(itertools.permutations(roll.steps))
    by_length: dict[int, set[Rows]] = {0: {start}}
    single_with: dict[int, set[Rows]] = {}
    for order in orders:
        level = {start}
        for used, die in enumerate(order, 1):
            level = {
                after
                for rows in level
                for after in reference_steps(
                    variant, rows, die, limit - (mover[HEAD - 1] - rows[0][HEAD - 1])
                )
            }
            if not level:
                break
            by_length.setdefault(used, set()).update(level)
            if used == 1:
                single_with[die] = level
    longest = max(by_length)
    if longest == 1 and not roll.is_double:
        return single_with.get(max(roll.steps)) or single_with[min(roll.steps)]
    return by_length[longest]


def finals(position: Position, roll: Dice) -> set[Rows]:
    side = position.turn
    return {
        (t.position.board[side], t.position.board[side.opponent])
        for t in legal_turns(position, roll)
    }


@pytest.mark.parametrize("variant", list(Variant))
def test_matches_the_reference_generator(variant: Variant) -> None:
    for position, roll in random_game_positions(variant, seed=5, count=700):
        assert finals(position, roll) == reference_finals(position, roll), (position, roll)


@pytest.mark.parametrize("variant", list(Variant))
def test_matches_the_reference_on_every_roll(variant: Variant) -> None:
    rolls = [Dice(a, b) for a in range(1, 7) for b in range(a, 7)]
    for position, _ in random_game_positions(variant, seed=6, count=40):
        for roll in rolls:
            assert finals(position, roll) == reference_finals(position, roll), (position, roll)


# --- properties -----------------------------------------------------------------

both_variants = st.sampled_from(list(Variant)).flatmap(game_positions)


@settings(max_examples=150, deadline=None)
@given(both_variants, dice())
def test_turns_are_valid_positions_with_all_checkers(position: Position, roll: Dice) -> None:
    turns = legal_turns(position, roll)
    assert len({t.position for t in turns}) == len(turns)
    for turn in turns:
        after = turn.position
        # rebuilt with every check Position makes
        assert Position(after.variant, after.board, after.turn, after.first_turn) == after
        assert after.turn is position.turn
        mover, opp = position.turn, position.turn.opponent
        assert sum(after.board[opp]) == sum(position.board[opp])
        moved = sum(after.board[mover]) + after.borne_off(mover)
        assert moved == CHECKERS
        assert after.pips(mover) < position.pips(mover) or not turn.steps


@settings(max_examples=150, deadline=None)
@given(both_variants, dice())
def test_every_turn_uses_the_most_dice(position: Position, roll: Dice) -> None:
    turns = legal_turns(position, roll)
    lengths = {len(t.steps) for t in turns}
    assert len(lengths) == 1
    (length,) = lengths
    assert length <= len(roll.steps)
    for turn in turns:
        replayed = position
        for step in turn.steps:
            replayed = apply_step(replayed, step)
        assert replayed == turn.position
        dice_used = sorted(step.die for step in turn.steps)
        if length == len(roll.steps) or roll.is_double:
            assert dice_used == sorted(roll.steps)[: len(dice_used)]


def explore(tip: TurnInProgress, seen: dict[tuple[Position, tuple[int, ...]], bool]) -> None:
    """Walk every legal step sequence (merging equal positions with equal dice
    left); every state must offer a step or be complete."""
    left = sorted(tip.dice.steps)
    for step in tip.played:
        left.remove(step.die)
    key = (tip.position, tuple(left))
    if key in seen:
        return
    seen[key] = tip.is_complete
    assert tip.is_complete != bool(tip.legal_steps), "dead end or overlong turn"
    for step in tip.legal_steps:
        after = tip.play(step)
        assert after.undo() == tip
        assert after.position == apply_step(tip.position, step)
        explore(after, seen)


@settings(max_examples=100, deadline=None)
@given(both_variants, dice())
def test_step_by_step_reaches_exactly_the_legal_turns(position: Position, roll: Dice) -> None:
    seen: dict[tuple[Position, tuple[int, ...]], bool] = {}
    tip = TurnInProgress(position, roll)
    explore(tip, seen)
    complete = {state for (state, _), done in seen.items() if done}
    assert complete == {turn.position for turn in legal_turns(position, roll)}
    for turn in legal_turns(position, roll):
        played = TurnInProgress(position, roll, turn.steps)
        assert played.is_complete and played.position == turn.position


def test_first_long_turns_are_sampled() -> None:
    # the pool must hold first turns, or the head rule goes unexercised
    pool = random_game_positions(LONG, seed=5, count=700)
    assert sum(position.first_turn for position, _ in pool) >= 10
    assert any(Step(24, 18, 6) in t.steps for p, r in pool for t in legal_turns(p, r))


def opponent_variants(position: Position) -> list[Position]:
    """The position with the opponent's checkers changed one at a time: a
    checker moved to any point the mover does not hold, or taken off."""
    side = position.turn
    mover, opp = position.board[side], position.board[side.opponent]
    found = [position]
    for source in range(24):
        if not opp[source]:
            continue
        for target in [*range(24), None]:
            taken = target is not None and mover[opponent_point(LONG, target + 1) - 1]
            if target == source or taken:
                continue
            row = list(opp)
            row[source] -= 1
            if target is not None:
                row[target] += 1
            board = [list(mover), row] if side.value == 0 else [row, list(mover)]
            with contextlib.suppress(InvalidPositionError):
                found.append(Position.from_rows(LONG, board, side, position.first_turn))
    return found


def test_results_key_decides_the_packed_results() -> None:
    # a search generates a mover's turns once per key (ai.long_search._replies):
    # every position sharing a key must share the results, however its opponent's
    # checkers stand
    merged = 0
    for position, roll in random_game_positions(LONG, seed=8, count=120):
        groups: dict[object, tuple[list[bytes], Position]] = {}
        for variant in opponent_variants(position):
            key = results_key(variant)
            results = packed_results(variant, roll)
            if key in groups:
                merged += groups[key][1].board != variant.board
                assert results == groups[key][0], (groups[key][1], variant, roll)
            else:
                groups[key] = (results, variant)
    assert merged > 1000  # the key does merge different opponents


def test_results_key_tells_apart_what_the_turns_depend_on() -> None:
    # every other opponent holds another point or has taken one off (the block rule)
    start = Position.initial(LONG)
    later = [v for v in opponent_variants(start) if v.board != start.board]
    assert later and all(results_key(v) != results_key(start) for v in later)
    assert results_key(start) != results_key(end_turn(legal_turns(start, Dice(6, 5))[0].position))
