"""The /dice chart's scale (issue 26 §3): grid lines and their labels at whole
counts (a top of 9 gave "2, 4, 7, 9" for 2.25, 4.5, 6.75), so a bar of 2 ends
on the "2" line; measured on the picture itself."""

from __future__ import annotations

import io
from fractions import Fraction

import pytest
from PIL import Image

from bot.present.render.dice import (
    GRID_C,
    LEFT,
    MAX_LINES,
    RIGHT,
    WIDTH,
    DiceChart,
    render_dice_chart,
    y_ticks,
)
from engine.dicestats import ROLLS, DiceStats

TOPS = [*range(1, 120), 150, 199, 200, 201, 999, 1000, 4321,
        *(float(Fraction(n, 4)) for n in range(1, 60))]


@pytest.mark.parametrize("top", TOPS)
def test_grid_lines_are_whole_evenly_spaced_and_cover_the_top(top: float) -> None:
    ticks = y_ticks(top)
    step = ticks[0]
    assert all(isinstance(t, int) for t in ticks)
    assert ticks == tuple(step * n for n in range(1, len(ticks) + 1))
    assert str(step).strip("0") in ("1", "2", "5")  # 1, 2 or 5 times a power of ten
    assert 1 <= len(ticks) <= MAX_LINES
    assert ticks[-1] >= top > ticks[-1] - step or (top <= 1 and ticks == (1,))


def test_top_nine_gives_two_four_six_eight_ten() -> None:
    assert y_ticks(9) == (2, 4, 6, 8, 10)


def _rows(image: Image.Image, x: int, colour: tuple[int, int, int]) -> list[int]:
    return [y for y in range(image.height) if image.getpixel((x, y)) == colour]


def test_a_bar_of_two_ends_on_the_two_line() -> None:
    rolls = [(6, 6)] * 9 + [(2, 1)] * 2
    png = render_dice_chart(DiceChart("Ann", DiceStats.of(rolls), (), "observed", "fair"))
    image = Image.open(io.BytesIO(png)).convert("RGB")
    grid = _rows(image, LEFT + 1, GRID_C)  # the grid lines, left of the first bar
    assert len(grid) == 5  # 2, 4, 6, 8, 10
    slot = (WIDTH - LEFT - RIGHT) / len(ROLLS)
    x = int(LEFT + ROLLS.index((2, 1)) * slot + slot * 0.3)  # inside the bar, off the fair tick
    bar = _rows(image, x, (201, 134, 0))
    two = max(grid)  # the lowest grid line is the "2" line
    assert abs(min(bar) - two) <= 1, (min(bar), grid)
