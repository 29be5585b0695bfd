"""A tournament's standings as a picture: the table (rank, player, points,
games, the two tie-breaks), the leaders' rows marked, and the round being
played underneath.

Pure drawing (Pillow), a few ms: callers run it off the event loop
(``asyncio.to_thread``).  Every word comes in :class:`StandingsPicture`
already translated (bot/present/tournament.py).

>>> picture = StandingsPicture("Standings", ("#", "Player", "Pts", "G", "SB", "Buch"),
...     (("1", "Ann", "3", "3", "4", "5"), ("2", "Борис 🎲", "1", "3", "0", "4")),
...     ("Round 4", "1. Ann – Борис"))
>>> png = render_standings(picture)
>>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image, ImageDraw

from bot.present.render.png import ACCENT, FIELD_C, INK, MUTED, PAGE, load_font, printable

WIDTH = 900
MARGIN = 36
ROW_H = 40
TITLE_H = 78
LINE_H = 32
COLUMNS = (0.0, 0.08, 0.56, 0.68, 0.78, 0.89)
"""Where each column starts, as a share of the table's width (rank, player,
points, games, tie-break, tie-break)."""


@dataclass(frozen=True)
class StandingsPicture:
    title: str
    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    """Rank, player, points, games, tie-breaks: one tuple per place, as text."""
    lines: tuple[str, ...] = ()
    """Under the table: the round being played."""


def _cell(d: ImageDraw.ImageDraw, x: float, y: float, text: str, width: float, *,
          bold: bool = False, fill: tuple[int, int, int] = INK) -> None:
    font = load_font(24, bold)
    text = printable(text)
    while len(text) > 1 and font.getlength(text) > width:
        text = text[:-2] + "…"
    d.text((x, y), text, font=font, fill=fill)


def render_standings(picture: StandingsPicture) -> bytes:
    """The picture as a PNG (:data:`WIDTH` px wide, as tall as its rows)."""
    height = TITLE_H + ROW_H * (len(picture.rows) + 1) + LINE_H * len(picture.lines) + 40
    image = Image.new("RGB", (WIDTH, height), PAGE)
    d = ImageDraw.Draw(image)
    _cell(d, MARGIN, 24, picture.title, WIDTH - 2 * MARGIN, bold=True)
    inner = WIDTH - 2 * MARGIN
    starts = [MARGIN + share * inner for share in COLUMNS] + [WIDTH - MARGIN]
    y = TITLE_H
    for i, text in enumerate(picture.head):
        _cell(d, starts[i], y + 6, text, starts[i + 1] - starts[i] - 8, bold=True, fill=MUTED)
    for number, row in enumerate(picture.rows):
        y += ROW_H
        if number % 2 == 0:
            d.rectangle((MARGIN - 8, y, WIDTH - MARGIN + 8, y + ROW_H), fill=FIELD_C)
        if row and row[0] == "1":
            d.rectangle((MARGIN - 8, y, MARGIN - 2, y + ROW_H), fill=ACCENT)
        for i, text in enumerate(row):
            _cell(d, starts[i], y + 7, text, starts[i + 1] - starts[i] - 8, bold=i == 1)
    y += ROW_H + 16
    for line in picture.lines:
        _cell(d, MARGIN, y, line, inner)
        y += LINE_H
    out = io.BytesIO()
    image.quantize(64, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE).save(
        out, "PNG", compress_level=6)
    return out.getvalue()
