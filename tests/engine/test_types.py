"""Every public entry of the engine refuses arguments of the wrong type with
an EngineError (a ValueError), never a TypeError or AttributeError from deep
inside, and never accepts them: a bool is no number, 3.0 is no die, "5" is
no point.  (A float accepted once was played and then broke the saved game.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import (
    Cube,
    Dice,
    EngineError,
    Event,
    Game,
    GameOptions,
    GameResult,
    Match,
    Opening,
    Position,
    ResignOffer,
    ResultKind,
    Side,
    Step,
    TurnChoice,
    TurnInProgress,
    Variant,
    apply_step,
    end_turn,
    forced_turn,
    format_game,
    format_turn,
    legal_turns,
    parse_step,
    turn_choices,
)
from engine.game import Action
from engine.scoring import EndReason
from tests.engine.gameplay import Scripted

W, B = Side.WHITE, Side.BLACK
BG = Variant.BACKGAMMON
START = Position.initial(BG)
ROWS = [list(row) for row in START.board]
BOARD = START.board
MONEY = GameOptions.backgammon(beavers=True)
TIP = TurnInProgress(START, Dice(3, 1))


def on_roll() -> Game:
    game = Game.new(MONEY).roll(Scripted(3, 1))
    return game.play_step(Step(8, 5, 3)).play_step(Step(6, 5, 1)).confirm()


def moving() -> Game:
    return on_roll().roll(Scripted(6, 5))


def offered() -> Game:
    return on_roll().offer_resignation(W, ResultKind.SINGLE)


GAMMON, RESIGNED = ResultKind.GAMMON, EndReason.RESIGNED


def _rows_with(value: object) -> list[list[object]]:
    rows: list[list[object]] = [list(row) for row in ROWS]
    rows[0][5] = value
    return rows


CALLS: dict[str, Callable[[], Any]] = {
    # steps and dice
    "Step float die": lambda: Step(8, 5, 3.0),  # type: ignore[arg-type]
    "Step bool die": lambda: Step(2, 1, True),  # type: ignore[arg-type]
    "Step str source": lambda: Step("5", 4, 1),  # type: ignore[arg-type]
    "Step float target": lambda: Step(8, 5.0, 3),  # type: ignore[arg-type]
    "Step None source": lambda: Step(None, 5, 3),  # type: ignore[arg-type]
    "Dice float": lambda: Dice(3.0, 1),  # type: ignore[arg-type]
    "Dice bool": lambda: Dice(True, 2),  # type: ignore[arg-type]
    "Dice str": lambda: Dice("3", 1),  # type: ignore[arg-type]
    "Dice None": lambda: Dice(None, 1),  # type: ignore[arg-type]
    # positions
    "Position turn=2": lambda: Position(BG, BOARD, 2),  # type: ignore[arg-type]
    "Position turn=0": lambda: Position(BG, BOARD, 0),  # type: ignore[arg-type]
    "Position turn=True": lambda: Position(BG, BOARD, True),  # type: ignore[arg-type]
    "Position first_turn='yes'": lambda: Position(BG, BOARD, W, "yes"),  # type: ignore[arg-type]
    "Position first_turn=1": lambda: Position(BG, BOARD, W, 1),  # type: ignore[arg-type]
    "Position variant str": lambda: Position("backgammon", BOARD),  # type: ignore[arg-type]
    "Position board lists": lambda: Position(BG, ROWS),  # type: ignore[arg-type]
    "Position board int": lambda: Position(BG, 5),  # type: ignore[arg-type]
    "from_rows float count": lambda: Position.from_rows(BG, _rows_with(5.0)),  # type: ignore[arg-type]
    "from_rows bool count": lambda: Position.from_rows(BG, _rows_with(True)),  # type: ignore[arg-type]
    "from_rows str count": lambda: Position.from_rows(BG, _rows_with("5")),  # type: ignore[arg-type]
    "from_rows not rows": lambda: Position.from_rows(BG, 5),  # type: ignore[arg-type]
    "from_rows str rows": lambda: Position.from_rows(BG, ["ab", "cd"]),
    "from_rows turn=1": lambda: Position.from_rows(BG, ROWS, 1),  # type: ignore[arg-type]
    "from_rows first_turn='yes'": lambda: Position.from_rows(BG, ROWS, W, "yes"),  # type: ignore[arg-type]
    "from_gnubg turn=1": lambda: Position.from_gnubg(BG, ROWS, 1),  # type: ignore[arg-type]
    "from_gnubg None": lambda: Position.from_gnubg(BG, None),  # type: ignore[arg-type]
    # options
    "GameOptions cube=1": lambda: GameOptions(BG, cube=1),  # type: ignore[arg-type]
    "GameOptions koks='no'": lambda: GameOptions(Variant.LONG, koks="no"),  # type: ignore[arg-type]
    "GameOptions max_cube float": lambda: GameOptions(BG, cube=True, max_cube=64.0),  # type: ignore[arg-type]
    "GameOptions max_cube bool": lambda: GameOptions(BG, cube=True, max_cube=True),  # type: ignore[arg-type]
    "GameOptions match_length float": lambda: GameOptions(BG, match_length=3.0),  # type: ignore[arg-type]
    "GameOptions match_length str": lambda: GameOptions(BG, match_length="3"),  # type: ignore[arg-type]
    "GameOptions variant str": lambda: GameOptions("long"),  # type: ignore[arg-type]
    "GameOptions.backgammon jacoby=1": lambda: GameOptions.backgammon(jacoby=1),  # type: ignore[arg-type]
    # turns
    "legal_turns tuple dice": lambda: legal_turns(START, (3, 1)),  # type: ignore[arg-type]
    "legal_turns str position": lambda: legal_turns("start", Dice(3, 1)),  # type: ignore[arg-type]
    "TurnInProgress tuple dice": lambda: TurnInProgress(START, (3, 1)),  # type: ignore[arg-type]
    "TurnInProgress list played": lambda: TurnInProgress(START, Dice(3, 1), [Step(8, 5, 3)]),  # type: ignore[arg-type]
    "TurnInProgress tuple step": lambda: TurnInProgress(START, Dice(3, 1), ((8, 5, 3),)),  # type: ignore[arg-type]
    "tip.play tuple": lambda: TurnInProgress(START, Dice(3, 1)).play((8, 5, 3)),  # type: ignore[arg-type]
    "tip.play str": lambda: TurnInProgress(START, Dice(3, 1)).play("8/5"),  # type: ignore[arg-type]
    "tip.equivalent_steps tuple": lambda: TIP.equivalent_steps((8, 5, 3)),  # type: ignore[arg-type]
    "turn_choices tuple dice": lambda: turn_choices(START, (3, 1)),  # type: ignore[arg-type]
    "turn_choices str position": lambda: turn_choices("start", Dice(3, 1)),  # type: ignore[arg-type]
    "forced_turn tuple dice": lambda: forced_turn(START, (3, 1)),  # type: ignore[arg-type]
    "format_turn int numbering": lambda: format_turn(START, [Step(8, 5, 3)], numbering=1),  # type: ignore[arg-type]
    "format_turn str position": lambda: format_turn("start", [Step(8, 5, 3)]),  # type: ignore[arg-type]
    "TurnChoice str start": lambda: TurnChoice("start", legal_turns(START, Dice(3, 1))[0]),  # type: ignore[arg-type]
    "TurnChoice tuple turn": lambda: TurnChoice(START, ((), START)),  # type: ignore[arg-type]
    "apply_step tuple": lambda: apply_step(START, (13, 7, 6)),  # type: ignore[arg-type]
    "end_turn str": lambda: end_turn("start"),  # type: ignore[arg-type]
    # games
    "Game.new str options": lambda: Game.new("backgammon"),  # type: ignore[arg-type]
    "Game.new crawford=1": lambda: Game.new(GameOptions.backgammon(match_length=3), crawford=1),  # type: ignore[arg-type]
    "Game.new starter=0": lambda: Game.new(MONEY, starter=0),  # type: ignore[arg-type]
    "roll None": lambda: Game.new(MONEY).roll(None),  # type: ignore[arg-type]
    "roll object": lambda: on_roll().roll(object()),  # type: ignore[arg-type]
    "roll float dice": lambda: on_roll().roll(Scripted(3.0, 1)),  # type: ignore[arg-type]
    "play_step tuple": lambda: moving().play_step((24, 18, 6)),  # type: ignore[arg-type]
    "double 1": lambda: on_roll().double(1),  # type: ignore[arg-type]
    "can_double 0": lambda: on_roll().can_double(0),  # type: ignore[arg-type]
    "double str": lambda: on_roll().double("black"),  # type: ignore[arg-type]
    "take 0": lambda: on_roll().double(B).take(0),  # type: ignore[arg-type]
    "pass_ False": lambda: on_roll().double(B).pass_(False),  # type: ignore[arg-type]
    "beaver 0": lambda: on_roll().double(B).beaver(0),  # type: ignore[arg-type]
    "offer_resignation str kind": lambda: on_roll().offer_resignation(W, "gammon"),  # type: ignore[arg-type]
    "offer_resignation int side": lambda: on_roll().offer_resignation(0, ResultKind.GAMMON),  # type: ignore[arg-type]
    "accept_resignation 1": lambda: offered().accept_resignation(1),  # type: ignore[arg-type]
    "claim_timeout 0": lambda: on_roll().claim_timeout(0),  # type: ignore[arg-type]
    "Opening float": lambda: Opening(((3.0, 1),)),  # type: ignore[arg-type]
    "Opening str": lambda: Opening("31"),  # type: ignore[arg-type]
    "Event tuple dice": lambda: Event(W, Action.ROLL, dice=(3, 1)),  # type: ignore[arg-type]
    "Event list steps": lambda: Event(W, Action.MOVE, steps=[Step(8, 5, 3)]),  # type: ignore[arg-type]
    "Match.new str": lambda: Match.new("backgammon"),  # type: ignore[arg-type]
    # cube, offers, results
    "Cube float value": lambda: Cube(value=2.0),  # type: ignore[arg-type]
    "Cube int owner": lambda: Cube(value=2, owner=0),  # type: ignore[arg-type]
    "Cube crawford=1": lambda: Cube(crawford=1),  # type: ignore[arg-type]
    "ResignOffer int side": lambda: ResignOffer(BG, 0, ResultKind.SINGLE),  # type: ignore[arg-type]
    "GameResult float multiplier": lambda: GameResult(W, GAMMON, RESIGNED, 1, 2.0),  # type: ignore[arg-type]
    "GameResult float cube": lambda: GameResult(W, GAMMON, RESIGNED, 2.0),  # type: ignore[arg-type]
    # text
    "parse_step int": lambda: parse_step(85),  # type: ignore[arg-type]
    "format_game int names": lambda: format_game(on_roll(), names=(1, 2)),  # type: ignore[arg-type]
    "format_game str": lambda: format_game("game"),  # type: ignore[arg-type]
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_wrong_types_raise_an_engine_error(name: str) -> None:
    with pytest.raises(EngineError) as raised:
        CALLS[name]()
    assert isinstance(raised.value, ValueError)


NOT_A_NUMBER = st.one_of(
    st.booleans(), st.floats(allow_nan=True), st.text(max_size=3), st.none(),
    st.tuples(st.integers(1, 6)), st.lists(st.integers(1, 6), max_size=2),
)


@given(bad=NOT_A_NUMBER, where=st.integers(0, 2))
def test_no_step_or_dice_accepts_anything_but_whole_numbers(bad: object, where: int) -> None:
    fields: list[object] = [8, 5, 3]
    fields[where] = bad
    with pytest.raises(EngineError):
        Step(*fields)  # type: ignore[arg-type]
    dice: list[object] = [3, 1]
    dice[where % 2] = bad
    with pytest.raises(EngineError):
        Dice(*dice)  # type: ignore[arg-type]
