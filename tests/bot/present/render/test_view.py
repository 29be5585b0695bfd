"""BoardView validation, point labels and the shared geometry."""

from __future__ import annotations

import pytest

from bot.present.render import (
    BoardView,
    LastTurn,
    RenderError,
    point_label,
    render_png,
    render_text,
)
from bot.present.render.view import cell_of, label_at, occupant
from engine import BAR, OFF, Dice, Position, Side, Step, Variant, opponent_point

BG = Position.initial(Variant.BACKGAMMON)
LONG = Position.initial(Variant.LONG)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"viewer": 0}, "viewer must be a Side"),
        ({"viewer": "white"}, "viewer must be a Side"),
        ({"names": ["a", "b"]}, "names must be a tuple"),
        ({"names": ("a",)}, "names must be a tuple"),
        ({"names": ("a", None)}, "names must be a tuple"),
        ({"dice": (3, 1)}, "dice must be Dice"),
        ({"used": (3,)}, "not part of the roll"),
        ({"dice": Dice(3, 1), "used": (3, 3)}, "not part of the roll"),
        ({"dice": Dice(3, 1), "used": [3]}, "used must be a tuple"),
        ({"cube": 3}, "power of two"),
        ({"cube": 0}, "power of two"),
        ({"cube": True}, "cube must be an int"),
        ({"cube_owner": Side.WHITE}, "without a cube"),
        ({"cube": 2, "cube_owner": 1}, "cube_owner must be a Side"),
        ({"score": (1, -1)}, "score must be"),
        ({"score": (1, 2, 3)}, "score must be"),
        ({"match_length": 7}, "without a score"),
        ({"score": (0, 0), "match_length": 0}, "match_length must be"),
        ({"last_turn": (Side.WHITE, ())}, "last_turn must be a LastTurn"),
        ({"status": None}, "status must be"),
    ],
)
def test_bad_view_raises_clear_value_error(kwargs: dict[str, object], message: str) -> None:
    arguments: dict[str, object] = {"position": BG, "viewer": Side.WHITE, **kwargs}
    with pytest.raises(RenderError, match=message) as error:
        BoardView(**arguments)  # type: ignore[arg-type]
    assert isinstance(error.value, ValueError)


def test_long_nardy_has_no_cube() -> None:
    with pytest.raises(RenderError, match="no doubling cube"):
        BoardView(LONG, Side.WHITE, cube=1)


def test_position_must_be_a_position() -> None:
    with pytest.raises(RenderError, match="position must be a Position"):
        BoardView(BG.board, Side.WHITE)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("side", "steps", "start", "message"),
    [
        (1, (), None, "LastTurn.side must be a Side"),
        (Side.WHITE, "24/18", None, "sequence of Step"),
        (Side.WHITE, [(24, 18, 6)], None, "must hold Step"),
        (Side.BLACK, [Step(24, 18, 6)], BG, "side to move"),
        (Side.WHITE, [Step(20, 14, 6)], BG, "cannot be played"),
    ],
)
def test_bad_last_turn(side: object, steps: object, start: object, message: str) -> None:
    with pytest.raises(RenderError, match=message):
        LastTurn(side, steps, start)  # type: ignore[arg-type]


def test_renderers_reject_non_views() -> None:
    with pytest.raises(RenderError):
        render_text(BG)  # type: ignore[arg-type]
    with pytest.raises(RenderError):
        render_png(BG)  # type: ignore[arg-type]


def test_views_are_hashable_values() -> None:
    last = LastTurn(Side.WHITE, [Step(24, 18, 6)])  # type: ignore[arg-type]  # lists accepted
    a = BoardView(BG, Side.WHITE, last_turn=last)
    b = BoardView(BG, Side.WHITE, last_turn=LastTurn(Side.WHITE, (Step(24, 18, 6),)))
    assert a == b and hash(a) == hash(b)


@pytest.mark.parametrize("variant", list(Variant))
def test_point_label(variant: Variant) -> None:
    for point in range(1, 25):
        assert point_label(variant, Side.WHITE, Side.WHITE, point) == str(point)
        theirs = point_label(variant, Side.BLACK, Side.WHITE, point)
        assert theirs == str(opponent_point(variant, point))
        # the opponent's label of my label is my point again: one board, two views
        assert point_label(variant, Side.WHITE, Side.BLACK, int(theirs)) == str(point)
    for mover in Side:
        assert point_label(variant, mover, Side.WHITE, BAR) == "bar"
        assert point_label(variant, mover, Side.BLACK, OFF) == "off"


def test_point_label_takes_a_view_and_checks_input() -> None:
    view = BoardView(LONG, Side.WHITE)
    assert point_label(view, Side.BLACK, Side.WHITE, 1) == "13"
    with pytest.raises(RenderError):
        point_label("long", Side.WHITE, Side.WHITE, 1)  # type: ignore[arg-type]
    with pytest.raises(RenderError):
        point_label(view, Side.WHITE, 0, 1)  # type: ignore[arg-type]
    with pytest.raises(RenderError):
        point_label(view, Side.WHITE, Side.WHITE, 26)


def test_cells_cover_the_board_once() -> None:
    cells = {cell_of(point) for point in range(1, 25)}
    assert cells == {(row, col) for row in (0, 1) for col in range(12)}
    assert all(label_at(*cell_of(point)) == point for point in range(1, 25))


@pytest.mark.parametrize("viewer", list(Side))
def test_occupant_sees_every_checker(viewer: Side) -> None:
    for variant in Variant:
        view = BoardView(Position.initial(variant), viewer)
        counts = {side: 0 for side in Side}
        for label in range(1, 25):
            side, count = occupant(view, label)
            if side is not None:
                counts[side] += count
        assert counts == {Side.WHITE: 15, Side.BLACK: 15}
        # the viewer's own start is on its own numbers
        assert occupant(view, 24) == (viewer, 15 if variant is Variant.LONG else 2)


def test_dice_faces_mark_used_dice() -> None:
    view = BoardView(BG, Side.WHITE, dice=Dice(2, 5), used=(5,))
    assert view.dice_faces() == [(2, False), (5, True)]
    assert BoardView(BG, Side.WHITE).dice_faces() == []


def test_net_moves_and_hits() -> None:
    rows = [[0] * 25, [0] * 25]
    rows[0][23], rows[0][12] = 2, 13
    rows[1][5], rows[1][1] = 1, 14  # a Black blot on its 6 = White's 19
    start = Position.from_rows(Variant.BACKGAMMON, rows)
    last = LastTurn(Side.WHITE, (Step(24, 19, 5), Step(19, 17, 2)), start)
    assert last.hits() == (True, False)
    assert last.net_moves() == ({24: 1}, {17: 1})
