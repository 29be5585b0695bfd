"""/dice as a picture: a bar per roll (the 21 of engine/dicestats.py),
observed against what fair dice give, with the summary underneath.

Pure drawing (Pillow), ~20 ms: callers run it off the event loop
(``asyncio.to_thread``).  Every word comes in :class:`DiceChart` already
translated; the picture holds no user text but the title line.

>>> from engine.dicestats import DiceStats
>>> png = render_dice_chart(DiceChart("Ann", DiceStats.of([(6, 6), (2, 1)]), ("rolls",),
...                                   "observed", "fair dice"))
>>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

from PIL import Image, ImageDraw

from bot.present.render.png import ACCENT, INK, MUTED, PAGE, load_font
from engine.dicestats import ROLLS, DiceStats

WIDTH, HEIGHT = 1000, 560
LEFT, RIGHT, TOP, PLOT_H = 60, 30, 70, 300
EXPECTED_C = (58, 98, 112)
GRID_C = (214, 206, 192)


@dataclass(frozen=True)
class DiceChart:
    """What the chart shows: the title (a player's name), their counts, the
    summary lines under the bars and the legend's two words."""

    title: str
    stats: DiceStats
    summary: tuple[str, ...]
    observed: str
    expected: str


def _label(roll: tuple[int, int]) -> str:
    return f"{roll[0]}{roll[1]}"


MAX_LINES = 5
"""Grid lines at most above the base line."""


def y_ticks(top: float) -> tuple[int, ...]:
    """The grid lines' counts for bars up to ``top``: whole numbers at an even
    step of 1, 2 or 5 times a power of ten, at most :data:`MAX_LINES`, the last
    at or above ``top`` (the chart's scale), so a bar of 2 reaches the "2" line.

    >>> y_ticks(9), y_ticks(2.25), y_ticks(1), y_ticks(37)
    ((2, 4, 6, 8, 10), (1, 2, 3), (1,), (10, 20, 30, 40))
    """
    need = max(1, math.ceil(top - 1e-9))
    power = 1
    while True:
        for factor in (1, 2, 5):
            step = factor * power
            lines = math.ceil(need / step)
            if lines <= MAX_LINES:
                return tuple(step * n for n in range(1, lines + 1))
        power *= 10


def render_dice_chart(chart: DiceChart) -> bytes:
    """The chart as a PNG."""
    image = Image.new("RGB", (WIDTH, HEIGHT), PAGE)
    d = ImageDraw.Draw(image)
    d.text((LEFT, 18), chart.title[:60], font=load_font(28), fill=INK)
    stats = chart.stats
    expected = stats.expected
    ticks = y_ticks(max([*stats.counts, *expected, 1]))
    top = ticks[-1]  # the scale: the highest grid line
    slot = (WIDTH - LEFT - RIGHT) / len(ROLLS)
    base = TOP + PLOT_H
    for tick in ticks:  # grid lines at whole counts, labelled
        y = base - PLOT_H * tick / top
        d.line((LEFT, y, WIDTH - RIGHT, y), fill=GRID_C, width=1)
        d.text((8, y - 8), str(tick), font=load_font(13, bold=False), fill=MUTED)
    for i, (roll, count, fair) in enumerate(zip(ROLLS, stats.counts, expected, strict=True)):
        x = LEFT + i * slot
        height = PLOT_H * count / top
        d.rectangle((x + slot * 0.18, base - height, x + slot * 0.82, base),
                    fill=ACCENT if roll[0] == roll[1] else (201, 134, 0))
        y = base - PLOT_H * fair / top  # the fair expectation: a dark tick across the bar
        d.line((x + slot * 0.05, y, x + slot * 0.95, y), fill=EXPECTED_C, width=4)
        d.text((x + slot / 2, base + 14), _label(roll), font=load_font(16), fill=INK, anchor="mm")
    d.line((LEFT, base, WIDTH - RIGHT, base), fill=INK, width=2)
    legend = base + 40
    d.rectangle((LEFT, legend, LEFT + 22, legend + 16), fill=ACCENT)
    d.text((LEFT + 30, legend - 2), chart.observed, font=load_font(17, bold=False), fill=INK)
    x = LEFT + 60 + d.textlength(chart.observed, font=load_font(17, bold=False))
    d.line((x, legend + 8, x + 22, legend + 8), fill=EXPECTED_C, width=4)
    d.text((x + 30, legend - 2), chart.expected, font=load_font(17, bold=False), fill=INK)
    y = legend + 36
    for line in chart.summary:
        d.text((LEFT, y), line, font=load_font(19, bold=False), fill=INK)
        y += 28
    out = io.BytesIO()
    image.save(out, "PNG", optimize=False)
    return out.getvalue()
