"""A tournament's standings as a picture: the table (rank, player, points,
games, the two tie-breaks), the leaders' rows marked, withdrawn players
crossed (×), and the round being played underneath.

Pure drawing (Pillow), a few ms: callers run it off the event loop
(``asyncio.to_thread``).  Every word comes in :class:`StandingsPicture`
already translated (bot/present/tournament.py).

The columns are as wide as their longest text (the head's or a cell's), the
player's takes the rest; a name too long for it is cut with "…" before its
×; the title and the lines under the table are drawn smaller before they
are cut.  :func:`layout` says where every text went and the slot it must stay
in (tests/bot/present/render/test_tournament_layout.py).

>>> picture = StandingsPicture("Standings", ("#", "Player", "Pts", "G", "SB", "Buch"),
...     (("1", "Ann", "3", "3", "4", "5"), ("2", "Борис 🎲", "1", "3", "0", "4")),
...     ("Round 4", "1. Ann – Борис"), struck=(False, True))
>>> png = render_standings(picture)
>>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image, ImageDraw

from bot.present.render.png import (
    ACCENT,
    FIELD_C,
    INK,
    MUTED,
    PAGE,
    Placed,
    fit,
    load_font,
    printable,
)

WIDTH = 900
MARGIN = 36
ROW_H = 40
TITLE_H = 78
LINE_H = 32
SIZE = 24
"""The table's text size; the title and the lines shrink to :data:`LEAST` first."""
LEAST = 18
GAP = 20
"""Pixels between a column's longest text and the next column."""
NUMBER_MOST = 150
"""The widest a column of numbers gets (a longer head is cut)."""
STRUCK = " ×"
ELLIPSIS = "…"


@dataclass(frozen=True)
class StandingsPicture:
    title: str
    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    """Rank, player, points, games, tie-breaks: one tuple per place, as text."""
    lines: tuple[str, ...] = ()
    """Under the table: the round being played."""
    struck: tuple[bool, ...] = ()
    """Per row: the player withdrew (drawn ×, after the name however long it is)."""


def _columns(picture: StandingsPicture, inner: float) -> list[float]:
    """Where each column starts (and, last, where the table ends)."""
    heads, cells = load_font(SIZE, True), load_font(SIZE, False)
    widths: list[float] = []
    for i, head in enumerate(picture.head):
        if i == 1:
            widths.append(0.0)   # the player's: what is left
            continue
        longest = max([heads.getlength(printable(head))]
                      + [cells.getlength(row[i]) for row in picture.rows if i < len(row)])
        widths.append(min(longest, NUMBER_MOST) + GAP)
    widths[1] = inner - sum(widths)
    starts = [float(MARGIN)]
    for width in widths:
        starts.append(starts[-1] + width)
    return starts


def _draw(picture: StandingsPicture, placed: list[Placed] | None) -> Image.Image:
    height = TITLE_H + ROW_H * (len(picture.rows) + 1) + LINE_H * len(picture.lines) + 40
    image = Image.new("RGB", (WIDTH, height), PAGE)
    d = ImageDraw.Draw(image)
    inner = WIDTH - 2 * MARGIN

    def write(what: str, x: float, y: float, text: str, width: float, size: int, *,
              bold: bool = False, least: int | None = None, fill: tuple[int, int, int] = INK,
              after: str = "") -> None:
        # an emoji left out leaves no double space
        shown, font = fit(" ".join(printable(text).split()),
                          width - font_length(after, size, bold), size, bold, least)
        shown += after
        d.text((x, y), shown, font=font, fill=fill)
        if placed is not None and shown:
            box = d.textbbox((x, y), shown, font=font)
            # a glyph may hang 4 px left of its pen (a J), into the gap before
            placed.append(Placed(what, shown, tuple(map(float, box)),  # type: ignore[arg-type]
                                 (int(x) - 4, int(y) - 4, int(x + width), int(y) + ROW_H - 4)))

    write("title", MARGIN, 24, picture.title, inner, SIZE, bold=True, least=LEAST)
    starts = _columns(picture, inner)
    y = TITLE_H
    for i, text in enumerate(picture.head):
        write("head", starts[i], y + 6, text, starts[i + 1] - starts[i] - GAP / 2, SIZE,
              bold=True, fill=MUTED)
    for number, row in enumerate(picture.rows):
        y += ROW_H
        if number % 2 == 0:
            d.rectangle((MARGIN - 8, y, WIDTH - MARGIN + 8, y + ROW_H), fill=FIELD_C)
        if row and row[0] == "1":
            d.rectangle((MARGIN - 8, y, MARGIN - 2, y + ROW_H), fill=ACCENT)
        struck = number < len(picture.struck) and picture.struck[number]
        for i, text in enumerate(row):
            write("player" if i == 1 else "cell", starts[i], y + 7, text,
                  starts[i + 1] - starts[i] - GAP / 2, SIZE, bold=i == 1,
                  after=STRUCK if struck and i == 1 else "")
    y += ROW_H + 16
    for line in picture.lines:
        write("line", MARGIN, y, line, inner, SIZE, least=LEAST)
        y += LINE_H
    return image


def font_length(text: str, size: int, bold: bool) -> float:
    return load_font(size, bold).getlength(text) if text else 0.0


def layout(picture: StandingsPicture) -> list[Placed]:
    """Every text the picture writes, with the box its glyphs cover and the
    slot it must stay in (its cell, or the width inside the margins)."""
    placed: list[Placed] = []
    _draw(picture, placed)
    return placed


def render_standings(picture: StandingsPicture) -> bytes:
    """The picture as a PNG (:data:`WIDTH` px wide, as tall as its rows)."""
    out = io.BytesIO()
    _draw(picture, None).quantize(64, method=Image.Quantize.FASTOCTREE,
                                  dither=Image.Dither.NONE).save(out, "PNG", compress_level=6)
    return out.getvalue()
