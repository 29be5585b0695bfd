"""Fewer taps: steps with one result are one button, whole turns are choices
with one canonical text, forced turns and rolls are known (issue 14)."""

from __future__ import annotations

import pytest

from engine import (
    OFF,
    Dice,
    EngineError,
    Game,
    GameError,
    GameOptions,
    IllegalStepError,
    NotationError,
    Position,
    Side,
    Step,
    TurnInProgress,
    Variant,
    forced_turn,
    format_turn,
    legal_turns,
    parse_turn,
    turn_choices,
)
from engine.game import Action, Phase
from tests.engine.gameplay import Scripted

W, B = Side.WHITE, Side.BLACK
BG, LONG = Variant.BACKGAMMON, Variant.LONG


def row(**points: int) -> list[int]:
    """A side's 25 counts from ``p<point>=count`` (``bar=count``)."""
    counts = [0] * 25
    for name, count in points.items():
        counts[24 if name == "bar" else int(name[1:]) - 1] = count
    return counts


def far_away(variant: Variant) -> list[int]:
    """An opponent that stays out of the mover's home and has borne none off."""
    return row(p24=15) if variant is LONG else row(p1=15)


# -- distinct steps -----------------------------------------------------------


@pytest.mark.parametrize("variant", [BG, LONG])
def test_bearing_off_one_checker_with_either_die_is_one_button(variant: Variant) -> None:
    # everything on point 1, 6-3: "1/off (6)" and "1/off (3)" give one result
    position = Position.from_rows(variant, [row(p1=3), far_away(variant)])
    tip = TurnInProgress(position, Dice(6, 3))
    six, three = Step(1, OFF, 6), Step(1, OFF, 3)
    assert tip.legal_steps == {six, three}
    assert tip.distinct_steps == {six}  # the larger die stands for both
    assert tip.equivalent_steps(six) == tip.equivalent_steps(three) == {six, three}
    # the results really are the same: same position, same ways to finish
    after_six, after_three = tip.play(six), tip.play(three)
    assert after_six.position == after_three.position
    assert after_six.play(Step(1, OFF, 3)).position == after_three.play(six).position


@pytest.mark.parametrize("variant", [BG, LONG])
def test_the_same_checker_borne_off_from_its_highest_point_is_one_result(
    variant: Variant,
) -> None:
    # 3/off with the 5 or the 3 leaves the same board, and the other die then
    # bears off from the highest point either way: one result
    position = Position.from_rows(variant, [row(p3=1, p2=2), far_away(variant)])
    tip = TurnInProgress(position, Dice(5, 3))
    assert tip.legal_steps == {Step(3, OFF, 5), Step(3, OFF, 3)}
    assert tip.distinct_steps == {Step(3, OFF, 5)}
    assert tip.equivalent_steps(Step(3, OFF, 3)) == {Step(3, OFF, 5), Step(3, OFF, 3)}
    assert tip.play(Step(3, OFF, 5)).legal_steps == {Step(2, OFF, 3)}
    assert tip.play(Step(3, OFF, 3)).legal_steps == {Step(2, OFF, 5)}


@pytest.mark.parametrize("variant", [BG, LONG])
def test_steps_to_different_points_stay_separate_buttons(variant: Variant) -> None:
    # same die, different checkers; and one checker with either die: all differ
    position = Position.from_rows(variant, [row(p6=2, p5=1), far_away(variant)])
    tip = TurnInProgress(position, Dice(4, 1))
    assert tip.distinct_steps == tip.legal_steps
    assert len(tip.legal_steps) == 4
    for step in tip.legal_steps:
        assert tip.equivalent_steps(step) == {step}


def test_equivalent_steps_refuses_a_step_that_is_not_legal() -> None:
    tip = TurnInProgress(Position.initial(BG), Dice(6, 5))
    with pytest.raises(IllegalStepError, match="not legal"):
        tip.equivalent_steps(Step(6, 1, 5))  # blocked: Black holds White's 1
    with pytest.raises(IllegalStepError):
        tip.equivalent_steps((24, 18, 6))  # type: ignore[arg-type]


# -- whole turns ----------------------------------------------------------------


def texts(position: Position, dice: Dice, numbering: Side | None = None) -> list[str]:
    return [choice.notation(numbering) for choice in turn_choices(position, dice)]


def test_whole_turns_are_listed_once_each_with_standard_texts() -> None:
    start = Position.initial(BG)
    found = texts(start, Dice(6, 5))
    # (Black holds White's 1 point: nothing lands there)
    assert found == [
        "24/13", "24/18 13/8", "24/18 8/3", "13/8 13/7", "13/7 8/3", "13/2", "8/3 8/2"
    ]
    assert "8/5(2) 6/3(2)" in texts(start, Dice(3, 3))
    assert len(found) == len(set(found)) == len(legal_turns(start, Dice(6, 5)))


def test_hits_entering_and_bearing_off_are_written_in_standard_form() -> None:
    # Black's blot on White's 7; White has one checker on the bar
    black = row(p24=2, p18=1, p13=4, p8=3, p6=5)
    white = row(bar=1, p13=5, p8=3, p6=5, p24=1)
    found = texts(Position.from_rows(BG, [white, black]), Dice(6, 3))
    assert "bar/22 13/7*" in found and "bar/22 8/2" in found
    assert all(text.startswith("bar/") for text in found)
    home = Position.from_rows(BG, [row(p6=2, p2=1), far_away(BG)])
    assert texts(home, Dice(6, 1)) == ["6/5 6/off", "6/off 2/1"]


def test_texts_can_be_numbered_for_either_side() -> None:
    # the board is numbered for the player to act; the last move is shown
    # in those numbers: White's 24/18 13/10 is Black's 1/7 12/15 (backgammon),
    # and long nardy's 24/18 is the other side's 12/6
    start = Position.initial(BG)
    choice = next(c for c in turn_choices(start, Dice(6, 3)) if c.notation() == "24/18 13/10")
    assert choice.notation(numbering=W) == "24/18 13/10"
    assert choice.notation(numbering=B) == "1/7 12/15"
    long_start = Position.initial(LONG, B)
    assert texts(long_start, Dice(6, 6), numbering=W) == ["12/6(2)"]
    assert texts(long_start, Dice(6, 6), numbering=B) == ["24/18(2)"]
    bar = Position.from_rows(BG, [row(bar=1, p6=14), row(p6=2, p1=13)])
    assert texts(bar, Dice(3, 3)) == ["bar/22 6/3(3)"]  # Black holds White's 19
    assert texts(bar, Dice(3, 3), numbering=B) == ["bar/3 19/22(3)"]
    with pytest.raises(NotationError):
        format_turn(start, choice.steps, numbering=1)  # type: ignore[arg-type]


def test_a_turn_texts_round_trip_through_the_parser() -> None:
    start = Position.initial(BG)
    for choice in turn_choices(start, Dice(4, 4)):
        assert parse_turn(start, Dice(4, 4), choice.notation()).position == choice.position


def test_nothing_to_play_is_one_choice_without_steps() -> None:
    # White on the bar against Black's closed home board
    closed = Position.from_rows(BG, [row(bar=1, p6=14), row(p1=2, p2=2, p3=2, p4=2, p5=2, p6=5)])
    (choice,) = turn_choices(closed, Dice(6, 5))
    assert choice.steps == () and choice.notation() == "" and choice.position == closed
    assert forced_turn(closed, Dice(6, 5)) == ()


# -- forced turns ---------------------------------------------------------------


def test_long_nardy_first_turns_are_forced_but_for_three_three() -> None:
    # RULES.md: one checker leaves the head; on the first turn its path is
    # free, so both dice move it to one point (6-6 and 4-4 take two checkers
    # by the exception, still one result); 3-3 lets two checkers choose
    start = Position.initial(LONG)
    free = {
        (a, b): forced_turn(start, Dice(a, b)) for a in range(1, 7) for b in range(a, 7)
    }
    assert [roll for roll, steps in free.items() if steps is None] == [(3, 3)]
    assert free[(1, 5)] == (Step(24, 19, 5), Step(19, 18, 1))
    assert free[(6, 6)] == (Step(24, 18, 6),) * 2
    assert forced_turn(Position.initial(BG), Dice(1, 5)) is None


def test_a_turn_can_become_forced_after_its_first_step() -> None:
    tip = TurnInProgress(Position.initial(BG), Dice(6, 5))
    assert tip.forced_steps is None
    # 24/18 blocked on with the 5 only from 18/13, 13/8, 8/3 or 6/1: a choice
    assert tip.play(Step(24, 18, 6)).forced_steps is None
    home = TurnInProgress(Position.from_rows(BG, [row(p6=1, p1=1), far_away(BG)]), Dice(6, 5))
    assert home.forced_steps is None  # 6/off or 6/1 first
    assert home.play(Step(6, 1, 5)).forced_steps == (Step(1, OFF, 6),)
    done = home.play(Step(6, OFF, 6)).play(Step(1, OFF, 5))
    assert done.is_complete and done.forced_steps == ()


# -- the game: who has a choice -----------------------------------------------


def on_roll(options: GameOptions, *dice: int) -> Game:
    """A backgammon game after White's opening 3-1 (8/5 6/5), Black on roll."""
    game = Game.new(options).roll(Scripted(3, 1, *dice))
    return game.play_step(Step(8, 5, 3)).play_step(Step(6, 5, 1)).confirm()


def test_can_double_only_on_roll_with_a_cube_the_player_may_turn() -> None:
    money = on_roll(GameOptions.backgammon())
    assert money.can_double(B) and not money.can_double(W)
    assert not on_roll(GameOptions.backgammon(cube=False)).can_double(B)
    assert not money.double(B).can_double(B) and not money.double(B).can_double(W)
    rolling = on_roll(GameOptions.backgammon(), 6, 5).roll(Scripted(6, 5))
    assert rolling.phase is Phase.MOVE and not rolling.can_double(B)
    crawford = Game.new(GameOptions.backgammon(match_length=5), crawford=True, starter=W)
    assert crawford.phase is Phase.ROLL and not crawford.can_double(W)
    assert not Game.new(GameOptions.long(), starter=W).can_double(W)
    with pytest.raises(GameError):
        money.can_double(1)  # type: ignore[arg-type]


def test_only_action_is_roll_when_no_double_is_possible() -> None:
    assert Game.new(GameOptions.long()).only_action is Action.ROLL  # the opening roll
    assert Game.new(GameOptions.long(), starter=W).only_action is Action.ROLL
    assert Game.new(GameOptions.backgammon()).only_action is Action.ROLL
    assert on_roll(GameOptions.backgammon()).only_action is None  # roll or double
    assert on_roll(GameOptions.backgammon(cube=False)).only_action is Action.ROLL
    crawford = Game.new(GameOptions.backgammon(match_length=5), crawford=True, starter=W)
    assert crawford.only_action is Action.ROLL
    assert on_roll(GameOptions.backgammon()).double(B).only_action is None  # take or pass
    over = on_roll(GameOptions.backgammon()).double(B).pass_(W)
    assert over.is_over and over.only_action is None


@pytest.mark.parametrize("max_cube", [2, 64])
def test_a_cube_the_roller_may_not_turn_leaves_only_the_roll(max_cube: int) -> None:
    # Black doubles, White takes and owns the cube: Black then only rolls;
    # White may redouble unless the cube is at its limit
    game = on_roll(GameOptions.backgammon(max_cube=max_cube)).double(B).take(W)
    assert game.to_act is B and not game.can_double(B) and game.only_action is Action.ROLL
    game = game.roll(Scripted(6, 5)).play_step(Step(24, 18, 6)).play_step(Step(18, 13, 5))
    game = game.confirm()
    assert game.to_act is W and game.can_double(W) is (max_cube > 2)
    assert game.only_action is (None if max_cube > 2 else Action.ROLL)


def test_a_forced_turn_is_played_and_confirmed_by_the_game() -> None:
    game = Game.new(GameOptions.long(), starter=W).roll(Scripted(5, 1))
    assert game.only_action is Action.MOVE
    played = game.play_forced()
    assert played.events[-1].steps == (Step(24, 19, 5), Step(19, 18, 1))
    assert played.to_act is B and played.phase is Phase.ROLL
    assert Game.from_dict(played.to_dict()) == played
    # a step already tapped: no longer the game's to play
    assert game.play_step(Step(24, 23, 1)).only_action is None
    free = on_roll(GameOptions.backgammon(cube=False), 6, 5).roll(Scripted(6, 5))
    assert free.only_action is None
    with pytest.raises(GameError, match="more than one"):
        free.play_forced()
    with pytest.raises(GameError):
        Game.new(GameOptions.long()).play_forced()
    assert isinstance(GameError("x"), EngineError)
