"""Each rule of RULES.md that the move generator enforces, on hand-made positions."""

from __future__ import annotations

import pytest

from engine import (
    BAR,
    OFF,
    Dice,
    IllegalStepError,
    Position,
    Side,
    Step,
    Turn,
    TurnInProgress,
    Variant,
    apply_step,
    end_turn,
    legal_turns,
)

LONG, BACKGAMMON = Variant.LONG, Variant.BACKGAMMON


def make(
    variant: Variant,
    mover: dict[int, int],
    opponent: dict[int, int],
    first_turn: bool | None = None,
) -> Position:
    """White to move; both sides' checkers by their own point numbers (BAR=25)."""
    rows = [[0] * 25, [0] * 25]
    for side, checkers in ((Side.WHITE, mover), (Side.BLACK, opponent)):
        for point, count in checkers.items():
            rows[side][point - 1] = count
    return Position.from_rows(variant, rows, Side.WHITE, first_turn)


def points(position: Position, side: Side | None = None) -> dict[int, int]:
    """``side``'s (default: the mover's) checkers by its own point (25 = bar)."""
    row = position.board[position.turn if side is None else side]
    return {i + 1: n for i, n in enumerate(row) if n}


def results(position: Position, dice: Dice) -> list[dict[int, int]]:
    return [points(turn.position) for turn in legal_turns(position, dice)]


def steps_of(position: Position, dice: Dice) -> set[tuple[Step, ...]]:
    return {turn.steps for turn in legal_turns(position, dice)}


# --- long nardy: the head rule -------------------------------------------------


@pytest.mark.parametrize(
    ("dice", "expected"),
    [
        (Dice(6, 6), [{24: 13, 18: 2}]),
        (Dice(4, 4), [{24: 13, 16: 2}]),
        (Dice(5, 5), [{24: 14, 4: 1}]),
        (Dice(2, 2), [{24: 14, 16: 1}]),
        (Dice(1, 1), [{24: 14, 20: 1}]),
    ],
)
def test_opening_doubles(dice: Dice, expected: list[dict[int, int]]) -> None:
    assert results(Position.initial(LONG), dice) == expected


def test_opening_three_three_has_two_ways() -> None:
    found = results(Position.initial(LONG), Dice(3, 3))
    assert sorted(found, key=sorted) == [{24: 13, 21: 1, 15: 1}, {24: 13, 18: 2}]


def test_opening_non_double_moves_one_checker() -> None:
    assert results(Position.initial(LONG), Dice(6, 5)) == [{24: 14, 13: 1}]


def after_white_opens(dice: Dice) -> Position:
    (turn,) = legal_turns(Position.initial(LONG), dice)
    black_to_move = end_turn(turn.position)
    assert black_to_move.turn is Side.BLACK and black_to_move.first_turn
    return black_to_move


def test_black_four_four_after_white_five_five_plays_one_four() -> None:
    position = after_white_opens(Dice(5, 5))
    assert points(position, Side.WHITE) == {24: 14, 4: 1}  # on Black's 16
    (turn,) = legal_turns(position, Dice(4, 4))
    assert turn.steps == (Step(24, 20, 4),)
    assert points(turn.position, Side.BLACK) == {24: 14, 20: 1}


def test_black_five_five_after_white_two_two_plays_three_fives() -> None:
    position = after_white_opens(Dice(2, 2))
    assert points(position, Side.WHITE) == {24: 14, 16: 1}  # on Black's 4
    (turn,) = legal_turns(position, Dice(5, 5))
    assert turn.steps == (Step(24, 19, 5), Step(19, 14, 5), Step(14, 9, 5))


def test_black_six_six_gets_the_exception_when_whites_head_stops_it() -> None:
    position = after_white_opens(Dice(2, 2))
    assert results(position, Dice(6, 6)) == [{24: 13, 18: 2}]


def test_head_exception_needs_the_first_turn() -> None:
    # the same checkers, but not the first turn: one checker only
    position = Position.from_rows(LONG, Position.initial(LONG).board, first_turn=False)
    assert results(position, Dice(6, 6)) == [{24: 14, 18: 1}]


def test_one_checker_leaves_the_head_in_the_middle_game() -> None:
    position = make(LONG, {24: 10, 9: 5}, {24: 15})
    heads = {points(turn.position)[24] for turn in legal_turns(position, Dice(3, 3))}
    assert heads == {9, 10}


def test_long_nardy_never_lands_on_an_opponent_checker() -> None:
    # Black's lone checker on its 13 stands on White's 1... and White's 18
    # is Black's 6: a Black checker there closes it for White
    position = make(LONG, {24: 14, 20: 1}, {24: 14, 6: 1})
    assert points(position, Side.BLACK)
    for turn in legal_turns(position, Dice(6, 2)):
        assert 18 not in points(turn.position)
        assert all(step.target != 18 for step in turn.steps)


# --- long nardy: the block rule ------------------------------------------------

# White's 11..7 are Black's 23..19: a run of five along Black's path; a
# White checker stopping on White's 6 (Black's 18) makes six.
RUN_OF_FIVE = {24: 9, 11: 2, 10: 1, 9: 1, 8: 1, 7: 1}


def test_block_of_six_without_an_opponent_checker_past_it_is_illegal() -> None:
    position = make(LONG, RUN_OF_FIVE, {24: 15})
    tip = TurnInProgress(position, Dice(5, 3))
    assert Step(11, 6, 5) not in tip.legal_steps
    for turn in legal_turns(position, Dice(5, 3)):
        assert not all(p in points(turn.position) for p in range(6, 12))


def test_block_of_six_with_an_opponent_checker_past_it_is_legal() -> None:
    # Black's point 10 (White's 22) is past Black's 18..23
    position = make(LONG, RUN_OF_FIVE, {24: 14, 10: 1})
    assert Step(11, 6, 5) in TurnInProgress(position, Dice(5, 3)).legal_steps


def test_block_of_six_is_legal_once_the_opponent_bore_off() -> None:
    position = make(LONG, RUN_OF_FIVE, {24: 14})
    assert Step(11, 6, 5) in TurnInProgress(position, Dice(5, 3)).legal_steps


def test_block_as_an_intermediate_stop_is_illegal() -> None:
    # 11/6/3 stops on 6 (six in a row) on the way; 11/8/3 reaches the same
    position = make(LONG, RUN_OF_FIVE, {24: 15})
    tip = TurnInProgress(position, Dice(5, 3))
    assert Step(11, 6, 5) not in tip.legal_steps
    assert Step(11, 8, 3) in tip.legal_steps
    target = {24: 9, 11: 1, 10: 1, 9: 1, 8: 1, 7: 1, 3: 1}
    assert target in results(position, Dice(5, 3))
    assert all(steps[0] != Step(11, 6, 5) for steps in steps_of(position, Dice(5, 3)))


def test_run_of_seven_is_illegal() -> None:
    # 11 10 9 _ 7 6 5 (Black's 23..17): filling 8 makes seven
    mover = {24: 7, 13: 2, 11: 1, 10: 1, 9: 1, 7: 1, 6: 1, 5: 1}
    position = make(LONG, mover, {24: 15})
    assert Step(13, 8, 5) not in TurnInProgress(position, Dice(5, 1)).legal_steps
    freed = make(LONG, mover, {24: 14, 2: 1})  # Black's 2 is past its 17..23
    assert Step(13, 8, 5) in TurnInProgress(freed, Dice(5, 1)).legal_steps


def _turn_results(position: Position, *turns: str) -> list[dict[int, int]]:
    """The positions ``turns`` ("11/6 10/6", steps "from/to", by hand) reach."""
    found = []
    for turn in turns:
        reached = position
        for step in turn.split():
            source, target = (int(n) for n in step.split("/"))
            reached = apply_step(reached, Step(source, target, source - target))
        found.append(points(reached))
    return found


def _same(found: list[dict[int, int]], expected: list[dict[int, int]]) -> None:
    key = sorted  # dicts compare as their sorted items
    assert sorted(map(key, map(dict.items, found))) == sorted(map(key, map(dict.items, expected)))


# White holds four of Black's 23..18 (White's 11..6) with all of Black at its
# head: two steps that fill the other two make six in a row, which only the
# block rule stops (may_block must look at four held points for two steps).
NEAR_BLOCKS = [
    # the case: 11 10 9 8 held, 5-4 can add 7 and 6 (11/7 11/6)
    ({24: 9, 11: 3, 10: 1, 9: 1, 8: 1}, Dice(5, 4), "11/7 11/6", [
        "24/19 11/7", "24/19 10/6", "24/19 9/5", "24/19 8/4", "24/19 19/15",
        "11/6 24/20", "11/6 10/6", "11/6 9/5", "11/6 8/4", "11/6 6/2",
        "10/5 24/20", "10/5 11/7", "10/5 9/5", "10/5 8/4", "10/5 5/1",
        "9/4 24/20", "9/4 11/7", "9/4 10/6", "9/4 8/4",
        "8/3 24/20", "8/3 11/7", "8/3 10/6", "8/3 9/5",
    ]),
    # a gap: 11 10 _ 8 7 held, 2-1 fills 9 and 6 (11/9 7/6)
    ({24: 8, 11: 2, 10: 2, 8: 1, 7: 2}, Dice(2, 1), "11/9 7/6", [
        "24/22 11/10", "24/22 10/9", "24/22 8/7", "24/22 7/6", "24/22 22/21",
        "11/9 24/23", "11/9 11/10", "11/9 10/9", "11/9 8/7", "11/9 9/8",  # = 10/8 11/10
        "10/8 24/23", "10/8 10/9", "10/8 8/7", "10/8 7/6",  # 10/8 8/7 = 10/8/7
        "8/6 24/23", "8/6 11/10", "8/6 10/9", "8/6 7/6", "8/6 6/5",  # = 7/5 8/7
        "7/5 24/23", "7/5 11/10", "7/5 10/9", "7/5 7/6", "7/5 5/4",
    ]),
]


@pytest.mark.parametrize(("mover", "dice", "block", "legal"), NEAR_BLOCKS)
def test_near_blocks_list_exactly_the_turns_that_make_no_block(
        mover: dict[int, int], dice: Dice, block: str, legal: list[str]) -> None:
    position = make(LONG, mover, {24: 15})
    _same(results(position, dice), _turn_results(position, *legal))
    (blocked,) = _turn_results(position, block)
    assert all(p in blocked for p in range(6, 12))  # the six in a row
    assert blocked not in results(position, dice)
    # once a Black checker is past the six, the block is a legal turn too
    freed = make(LONG, mover, {24: 14, 10: 1})
    assert points(apply_step(apply_step(freed, *_steps(block)[:1]), *_steps(block)[1:])) in (
        results(freed, dice))


def _steps(turn: str) -> list[Step]:
    pairs = [tuple(int(n) for n in step.split("/")) for step in turn.split()]
    return [Step(a, b, a - b) for a, b in pairs]


def test_blocks_do_not_wrap_around_the_opponents_start() -> None:
    # White's 15..13 are Black's 3..1 and White's 12..10 are Black's 24..22:
    # six points in a row on the board, but not along Black's path
    position = make(LONG, {24: 9, 15: 1, 14: 2, 13: 1, 11: 1, 10: 1}, {20: 15})
    tip = TurnInProgress(position, Dice(2, 1))
    assert Step(14, 12, 2) in tip.legal_steps


# --- backgammon ----------------------------------------------------------------


def test_landing_on_a_blot_hits_it() -> None:
    # Black's blot on its 20 is White's 5
    position = make(BACKGAMMON, {6: 5, 8: 10}, {20: 1, 1: 14})
    hits = [t for t in legal_turns(position, Dice(3, 1)) if points(t.position).get(5)]
    assert hits
    for turn in hits:
        assert points(turn.position, Side.BLACK) == {BAR: 1, 1: 14}


def test_hit_and_run_sends_the_blot_to_the_bar() -> None:
    position = make(BACKGAMMON, {8: 15}, {20: 1, 1: 14})
    after = apply_step(apply_step(position, Step(8, 5, 3)), Step(5, 4, 1))
    assert points(after) == {8: 14, 4: 1}
    assert points(after, Side.BLACK) == {BAR: 1, 1: 14}
    assert after in [t.position for t in legal_turns(position, Dice(3, 1))]


def test_closed_point_cannot_be_landed_on() -> None:
    position = make(BACKGAMMON, {8: 15}, {20: 2, 1: 13})  # White's 5 closed
    for turn in legal_turns(position, Dice(3, 1)):
        assert all(step.target != 5 for step in turn.steps)
    with pytest.raises(IllegalStepError, match="closed"):
        apply_step(position, Step(8, 5, 3))


def test_bar_checkers_enter_before_anything_else() -> None:
    position = make(BACKGAMMON, {BAR: 1, 6: 14}, {1: 15})
    tip = TurnInProgress(position, Dice(4, 2))
    assert {step.source for step in tip.legal_steps} == {BAR}
    with pytest.raises(IllegalStepError, match="bar"):
        apply_step(position, Step(6, 2, 4))
    assert {t.steps[0].source for t in legal_turns(position, Dice(4, 2))} == {BAR}


def test_partly_blocked_entry_loses_the_other_die() -> None:
    # two on the bar; Black holds its 5 (White's 20): a 5 cannot enter
    position = make(BACKGAMMON, {BAR: 2, 6: 13}, {5: 2, 1: 13})
    (turn,) = legal_turns(position, Dice(6, 5))
    assert turn.steps == (Step(BAR, 19, 6),)
    assert points(turn.position) == {BAR: 1, 19: 1, 6: 13}


def test_closed_board_passes() -> None:
    position = make(BACKGAMMON, {BAR: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 7: 3})
    assert legal_turns(position, Dice(6, 5)) == [Turn((), position)]
    tip = TurnInProgress(position, Dice(6, 5))
    assert tip.is_complete and tip.legal_steps == frozenset()
    assert tip.finish() == end_turn(position)


def test_long_nardy_passes_when_nothing_moves() -> None:
    # all on the head, and a Black checker on its 6 (White's 18) stops 6-6
    position = make(LONG, {24: 15}, {24: 14, 6: 1})
    assert legal_turns(position, Dice(6, 6)) == [Turn((), position)]


# --- maximum and larger-die rules ------------------------------------------------


def test_both_dice_must_be_played_when_possible() -> None:
    # 24/19 is legal alone but leaves no six; 24/18 8/3 plays both
    position = make(BACKGAMMON, {24: 1, 8: 1, 1: 13}, {12: 2, 23: 2, 3: 11})
    assert results(position, Dice(6, 5)) == [{18: 1, 3: 1, 1: 13}]
    tip = TurnInProgress(position, Dice(6, 5))
    assert tip.legal_steps == {Step(24, 18, 6), Step(8, 3, 5)}
    apply_step(position, Step(24, 19, 5))  # legal as a step, not as a turn


def test_larger_die_when_only_one_can_be_played() -> None:
    # Black holds its 12 (White's 13) and 23 (White's 2): 24/18 or 24/19
    # alone; the six must be played
    position = make(BACKGAMMON, {24: 1, 8: 1, 1: 13}, {12: 2, 23: 2, 22: 2, 3: 9})
    assert steps_of(position, Dice(6, 5)) == {(Step(24, 18, 6),)}
    assert TurnInProgress(position, Dice(6, 5)).legal_steps == {Step(24, 18, 6)}


def test_smaller_die_when_the_larger_cannot_be_played() -> None:
    # White's 7 and 2 closed too: no six at all
    position = make(BACKGAMMON, {13: 1, 1: 14}, {18: 2, 23: 2, 1: 11})
    assert steps_of(position, Dice(6, 5)) == {(Step(13, 8, 5),)}


def test_larger_die_rule_single_checker() -> None:
    # 13/7 or 13/8, then White's 2 is closed: one die only, the six
    position = make(BACKGAMMON, {13: 1, 1: 14}, {23: 2, 1: 13})
    assert steps_of(position, Dice(6, 5)) == {(Step(13, 7, 6),)}


# --- bearing off ---------------------------------------------------------------


def test_die_equal_to_the_point_bears_off() -> None:
    position = make(BACKGAMMON, {5: 1, 3: 1}, {1: 15})
    (all_off,) = [t for t in legal_turns(position, Dice(5, 3)) if not points(t.position)]
    assert set(all_off.steps) == {Step(5, OFF, 5), Step(3, OFF, 3)}


def test_higher_die_bears_off_the_highest_checker() -> None:
    position = make(BACKGAMMON, {3: 2, 2: 1}, {1: 15})
    assert results(position, Dice(6, 5)) == [{2: 1}]


def test_higher_die_must_move_inside_when_a_higher_point_is_occupied() -> None:
    position = make(LONG, {6: 1, 2: 1}, {24: 15})
    tip = TurnInProgress(position, Dice(5, 4))
    assert Step(2, OFF, 5) not in tip.legal_steps
    assert Step(6, 1, 5) in tip.legal_steps
    with pytest.raises(IllegalStepError, match="bear off"):
        apply_step(position, Step(2, OFF, 5))


def test_no_bearing_off_with_a_checker_outside() -> None:
    position = make(BACKGAMMON, {7: 1, 3: 14}, {1: 15})
    assert Step(3, OFF, 3) not in TurnInProgress(position, Dice(3, 3)).legal_steps


def test_bearing_off_becomes_possible_mid_turn() -> None:
    position = make(BACKGAMMON, {8: 1, 6: 14}, {1: 15})
    assert {6: 14} in results(position, Dice(6, 2))
    tip = TurnInProgress(position, Dice(6, 2))
    assert Step(6, OFF, 6) not in tip.legal_steps
    assert Step(6, OFF, 6) in tip.play(Step(8, 6, 2)).legal_steps
    assert Step(2, OFF, 2) in tip.play(Step(8, 2, 6)).legal_steps


def test_bearing_off_is_not_compulsory() -> None:
    position = make(BACKGAMMON, {6: 1, 3: 1}, {1: 15})
    assert {3: 1, 2: 1} in results(position, Dice(3, 1))  # 6/3/2 keeps both


def test_long_nardy_bears_off_too() -> None:
    position = make(LONG, {4: 1, 1: 2}, {24: 15})
    assert results(position, Dice(6, 5)) == [{1: 1}]


# --- TurnInProgress ------------------------------------------------------------


def test_turn_in_progress_play_undo_finish() -> None:
    start = Position.initial(BACKGAMMON)
    tip = TurnInProgress(start, Dice(6, 5))
    assert not tip.is_complete and tip.position == start
    half = tip.play(Step(24, 18, 6))
    assert half.position == apply_step(start, Step(24, 18, 6))
    assert half.legal_steps == {Step(18, 13, 5), Step(13, 8, 5), Step(8, 3, 5)}
    assert half.undo() == tip
    with pytest.raises(IllegalStepError, match="not complete"):
        half.finish()
    done = half.play(Step(18, 13, 5))
    assert done.is_complete and done.legal_steps == frozenset()
    with pytest.raises(IllegalStepError, match="complete"):
        done.play(Step(13, 8, 5))
    after = done.finish()
    assert after.turn is Side.BLACK
    assert points(after, Side.WHITE) == {13: 6, 8: 3, 6: 5, 24: 1}


def test_turn_in_progress_refuses_illegal_steps() -> None:
    tip = TurnInProgress(Position.initial(BACKGAMMON), Dice(6, 5))
    with pytest.raises(IllegalStepError):
        tip.play(Step(6, 1, 5))  # Black holds White's 1
    with pytest.raises(IllegalStepError):
        tip.play(Step(13, 9, 4))  # not a die of this roll
    with pytest.raises(IllegalStepError, match="undo"):
        tip.undo()
    with pytest.raises(IllegalStepError):
        TurnInProgress(tip.start, tip.dice, (Step(24, 19, 5),))


def test_turn_in_progress_is_rebuilt_from_storage() -> None:
    start = Position.initial(LONG)
    played = (Step(24, 21, 3), Step(21, 18, 3))
    rebuilt = TurnInProgress(start, Dice(3, 3), played)
    assert rebuilt == TurnInProgress(start, Dice(3, 3)).play(played[0]).play(played[1])
    assert rebuilt.legal_steps == {Step(24, 21, 3), Step(18, 15, 3)}


def test_apply_step_refuses_a_missing_checker() -> None:
    with pytest.raises(IllegalStepError, match="no checker"):
        apply_step(Position.initial(BACKGAMMON), Step(20, 14, 6))


def test_a_step_that_lifts_a_block_lets_the_other_die_through() -> None:
    # 24/18 alone would close Black's 2..7 with Black's last checker on its 8;
    # after 19/15 (the four first) the six is legal
    mover = {24: 10, 19: 1, 17: 1, 16: 1, 15: 1, 14: 1}
    position = make(LONG, mover, {24: 9, 8: 1, 10: 1, 11: 1, 17: 1, 18: 1, 21: 1})
    tip = TurnInProgress(position, Dice(4, 6))
    assert Step(24, 18, 6) not in tip.legal_steps
    assert Step(24, 18, 6) in tip.play(Step(19, 15, 4)).legal_steps
    assert {24: 9, 18: 1, 17: 1, 16: 1, 15: 2, 14: 1} in results(position, Dice(4, 6))


# --- boundaries of the fast paths (each case kills a planted off-by-one) ---------


def _same_results(position: Position, dice: Dice, expected: list[dict[int, int]]) -> None:
    _same(results(position, dice), expected)


def test_bearing_off_waits_for_a_checker_on_point_7() -> None:
    # 7 is outside the home board: the first step cannot bear off (4 then 3
    # bring it home and bear it off: the same position either way)
    _same_results(make(BACKGAMMON, {7: 1, 3: 14}, {1: 15}), Dice(4, 3), [{3: 14}])


def test_a_step_inside_the_home_board_does_not_bring_a_checker_home() -> None:
    # 6/4 leaves the checker on 7 outside: 1/off stays illegal after it
    _same_results(make(BACKGAMMON, {7: 1, 6: 1, 1: 13}, {1: 15}), Dice(2, 1), [
        {5: 2, 1: 13}, {6: 1, 4: 1, 1: 13}, {6: 1, 5: 1, 1: 12}, {7: 1, 3: 1, 1: 13}])


def test_the_smaller_die_first_can_bring_the_last_checker_home() -> None:
    # 7/6 then 5/off is found only by playing the 1 first
    _same_results(make(BACKGAMMON, {7: 1, 5: 1, 2: 13}, {1: 15}), Dice(5, 1), [
        {4: 1, 2: 14}, {5: 1, 2: 13, 1: 1}, {6: 1, 2: 13}])


def test_a_higher_die_bears_off_the_checker_just_below_it() -> None:
    tip = TurnInProgress(make(BACKGAMMON, {4: 1, 2: 1}, {1: 15}), Dice(5, 1))
    assert tip.legal_steps == {Step(4, OFF, 5), Step(4, 3, 1), Step(2, 1, 1)}


@pytest.mark.parametrize(("variant", "mover", "opponent", "expected"), [
    # backgammon: White's 7 is closed (two Black checkers): 13/12/7 is not a turn
    (BACKGAMMON, {13: 2, 6: 13}, {18: 2, 24: 13},
     [{12: 1, 8: 1, 6: 13}, {13: 1, 8: 1, 6: 12, 5: 1}]),
    # long nardy: one Black checker closes White's 8 (Black's 20): 14/13/8 is not
    (LONG, {14: 2, 6: 13}, {20: 1, 24: 14},
     [{13: 1, 9: 1, 6: 13}, {14: 1, 9: 1, 6: 12, 5: 1}, {14: 1, 13: 1, 6: 12, 1: 1},
      {14: 2, 6: 11, 5: 1, 1: 1}]),
])
def test_one_checker_moving_twice_cannot_land_on_a_closed_point(
        variant: Variant, mover: dict[int, int], opponent: dict[int, int],
        expected: list[dict[int, int]]) -> None:
    _same_results(make(variant, mover, opponent), Dice(5, 1), expected)


def test_one_checker_moving_twice_near_a_block_cannot_land_on_a_closed_point() -> None:
    # White holds 9..6 (Black's 21..18), so every step is checked for blocks
    # (none can be made: each of those points has one checker); a Black
    # checker closes White's 10 (Black's 22): 16/15/10 is not a turn
    position = make(LONG, {24: 10, 16: 1, 9: 1, 8: 1, 7: 1, 6: 1}, {24: 14, 22: 1})
    found = results(position, Dice(5, 1))
    assert all(10 not in reached for reached in found)
    assert {24: 10, 15: 1, 9: 1, 8: 1, 7: 1, 1: 1} in found  # 16/15 6/1
    assert {24: 10, 11: 1, 9: 1, 8: 1, 7: 1, 5: 1} in found  # 16/11 6/5
