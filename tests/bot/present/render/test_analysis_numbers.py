"""The analysis picture's small boards keep their point numbers legible (issue 26
§3: they were about 8 px): measured on the picture's own small board, the
digits are at least 12/18 of the board picture's (whose numbers are 18 px), so
at least 12 px, and the whole picture with three mistakes stays within the
side Telegram keeps, so those are the pixels posted."""

from __future__ import annotations

from PIL import Image, ImageChops

from bot.present.render.analysis import BOARD_W, PHOTO_SIDE, _height, _small_board
from bot.present.render.png import render_image
from bot.present.render.view import BoardView
from engine.position import Position, Side, Variant

NUMBER_PX = 18
"""The board picture's point-number font (bot/present/render/png.py ``_background``)."""
LEGIBLE_PX = 12


def _digit_height(white: Image.Image, black: Image.Image) -> int:
    """The height of the top row of point numbers: the same board numbered for
    White and for Black differs only in its numbers."""
    diff = ImageChops.difference(white.convert("RGB"), black.convert("RGB")).convert("L")
    rows = [y for y in range(diff.height // 2)
            if diff.crop((0, y, diff.width, y + 1)).getextrema()[1] > 64]
    assert rows, "no numbers found"
    band = [rows[0]]
    for y in rows[1:]:  # the first run of rows: the top numbers
        if y > band[-1] + 1:
            break
        band.append(y)
    return band[-1] - band[0] + 1


def _views(variant: Variant) -> tuple[BoardView, BoardView]:
    position = Position.initial(variant)
    return (BoardView(position, Side.WHITE, numbering=Side.WHITE),
            BoardView(position, Side.WHITE, numbering=Side.BLACK))


def test_the_small_boards_numbers_are_legible() -> None:
    for variant in Variant:
        white, black = _views(variant)
        full = _digit_height(render_image(white), render_image(black))
        small = _digit_height(_small_board(white, BOARD_W), _small_board(black, BOARD_W))
        assert small >= full * LEGIBLE_PX / NUMBER_PX - 0.5, (variant, small, full)


def test_three_mistakes_fit_the_photo_telegram_keeps() -> None:
    class Panel:
        def __init__(self, lines: int) -> None:
            self.lines = ("x",) * lines

    class Three:
        mistakes = (None, None, None)

        def __init__(self, lines: int) -> None:
            self.panels = (Panel(lines), Panel(lines))

    for lines in range(4, 9):  # up to a backgammon game's cube errors, and one more
        assert _height(Three(lines)) <= PHOTO_SIDE, lines  # type: ignore[arg-type]
