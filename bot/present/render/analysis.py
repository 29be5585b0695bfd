"""A game's analysis as a picture: both players' figures, the win chance
turn by turn with the mistakes marked, and the biggest mistakes as small
boards (the move played beside the best one).

Pure drawing (Pillow), ~0.15 s: the bot paints it in the painter's
process (bot/present/painter.py).  Every word comes in
:class:`AnalysisPicture` already translated (bot/present/analysis.py);
the boards are the board picture's own (:func:`render_image`), cut to
the field and made smaller, the turn marked as the board marks the last
turn (rings where checkers left, outlines where they arrived).

>>> from engine.position import Position, Side, Variant
>>> board = BoardView(Position.initial(Variant.LONG), Side.WHITE)
>>> panel = PlayerPanel(Side.WHITE, "Ann", ("Error rate: 4.1 — world class",))
>>> picture = AnalysisPicture("Analysis", (panel, panel), (0.5, 0.7, 0.4), (Mark(1, "bad", 1),),
...     "Win chance", "Ann", "Bob", ("doubtful", "bad", "very bad"),
...     (Mistake("1. turn 2", "Played: 24/18", board, "Best: 24/13", board, "bad"),), "turn")
>>> png = render_analysis(picture)
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
    FOOT_H,
    HEIGHT,
    INFO_H,
    INK,
    MUTED,
    PAGE,
    checker_image,
    fit,
    load_font,
    printable,
    render_image,
)
from bot.present.render.png import WIDTH as PNG_WIDTH
from bot.present.render.view import BoardView
from engine.position import Side

WIDTH = 1440
"""Wide enough for two small boards side by side at :data:`BOARD_W`."""
MARGIN = 30
GRADE_COLOURS = {"doubtful": (240, 228, 66), "bad": ACCENT, "very_bad": (213, 94, 0)}
"""Okabe-Ito yellow, orange and vermillion: told apart by lightness too."""
GRAPH_MARKS = tuple(GRADE_COLOURS)
"""The grades (``ai.analysis.Grade`` values) marked on the graph, mildest first."""
MARK_SIZE = {"doubtful": 6, "bad": 8, "very_bad": 10}
AHEAD = {Side.WHITE: (236, 214, 170), Side.BLACK: (190, 200, 222)}
"""The graph's area on each side of 50%: whose game it was."""
GRID_C = (214, 206, 192)
PANEL_H = 176
"""A panel's height with four lines of figures; each more adds :data:`PANEL_LINE`."""
PANEL_LINE = 27


def _panel_h(picture: AnalysisPicture) -> int:
    lines = max((len(panel.lines) for panel in picture.panels), default=4)
    return PANEL_H + PANEL_LINE * max(0, lines - 4)


def _plot_h(picture: AnalysisPicture) -> int:
    """The win-chance plot's height: it yields what panels of more than five lines
    (a backgammon game's cube errors) take, so the whole picture stays within
    :data:`PHOTO_SIDE` however many lines the panels have."""
    lines = max((len(panel.lines) for panel in picture.panels), default=4)
    return PLOT_H - PANEL_LINE * max(0, lines - 5)
PLOT_H = 240
BOARD_W = (WIDTH - 2 * MARGIN - 20) // 2
"""A small board's width: 0.68 of the board picture's, so its point numbers
(18 px there) are 12 px here, legible on a phone (issue 26 §3)."""
PHOTO_SIDE = 2560
"""Telegram scales a photo down to this longest side: the picture stays
within it (three mistakes drawn), so its pixels are the ones posted."""


@dataclass(frozen=True)
class PlayerPanel:
    """One player's figures: ``lines`` of text under their name."""

    side: Side
    name: str
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Mark:
    """A graded decision on the graph: its turn (index), its grade
    (``"doubtful"``, ``"bad"``, ``"very_bad"``) and its number among the
    mistakes drawn below (0: not drawn)."""

    ply: int
    grade: str
    number: int = 0


@dataclass(frozen=True)
class Mistake:
    """One of the biggest mistakes: its line, and the boards after the move
    played and after the best one (``best`` None: a cube decision, one board)."""

    title: str
    played_label: str
    played: BoardView
    best_label: str
    best: BoardView | None
    grade: str = ""


@dataclass(frozen=True)
class AnalysisPicture:
    """Everything the picture shows, translated; ``chances`` is White's win
    chance after each turn (0..1), ``top`` / ``bottom`` the graph's ends
    (White's and Black's sure win), ``legend`` the three grade words."""

    title: str
    panels: tuple[PlayerPanel, PlayerPanel]
    chances: tuple[float, ...]
    marks: tuple[Mark, ...]
    graph_title: str
    top: str
    bottom: str
    legend: tuple[str, str, str]
    mistakes: tuple[Mistake, ...]
    turn_word: str


def _fit(text: str, size: int, width: int, bold: bool = True) -> tuple[str, int]:
    """``text`` (only what the font draws) and a font size from ``size``
    down to 14 that fits ``width`` (:func:`~bot.present.render.png.fit`)."""
    shown, font = fit(printable(text), width, size, bold, least=min(size, 14))
    return shown, int(font.size)


def _write(d: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, size: int, width: int,
           *, bold: bool = True, fill: tuple[int, int, int] = INK, anchor: str = "la") -> None:
    shown, size = _fit(text, size, width, bold)
    d.text(xy, shown, font=load_font(size, bold), fill=fill, anchor=anchor)


def _panels(image: Image.Image, d: ImageDraw.ImageDraw, picture: AnalysisPicture,
            top: int) -> int:
    width = (WIDTH - 2 * MARGIN - 20) // 2
    for column, panel in enumerate(picture.panels):
        left = MARGIN + column * (width + 20)
        d.rounded_rectangle((left, top, left + width, top + _panel_h(picture)), 12,
                            fill=FIELD_C)
        icon = checker_image(panel.side).resize((36, 36), Image.Resampling.LANCZOS)
        image.paste(icon, (left + 14, top + 12), icon)
        _write(d, (left + 60, top + 30), panel.name, 26, width - 74, anchor="lm")
        y = top + 62
        for line in panel.lines:
            _write(d, (left + 16, y), line, 20, width - 32, bold=False)
            y += PANEL_LINE
    return top + _panel_h(picture)


def _graph(d: ImageDraw.ImageDraw, picture: AnalysisPicture, top: int) -> int:
    _write(d, (MARGIN, top), picture.graph_title, 24, WIDTH - 2 * MARGIN)
    _write(d, (MARGIN, top + 36), picture.top, 17, WIDTH - 2 * MARGIN, bold=False, fill=MUTED)
    plot_top = top + 62
    left, right = MARGIN + 10, WIDTH - MARGIN - 10
    plot_h = _plot_h(picture)
    base = plot_top + plot_h
    middle = plot_top + plot_h / 2
    chances = picture.chances or (0.5,)
    count = len(chances)
    step = (right - left) / max(count - 1, 1)

    def point(ply: int) -> tuple[float, float]:
        return left + ply * step, base - plot_h * min(max(chances[ply], 0.0), 1.0)

    d.rectangle((left, plot_top, right, base), outline=GRID_C, width=1)
    line = [point(ply) for ply in range(count)]
    for side in Side:  # White ahead above the middle, Black below
        clipped = [(x, min(y, middle) if side is Side.WHITE else max(y, middle)) for x, y in line]
        d.polygon([(left, middle), *clipped, (line[-1][0], middle)], fill=AHEAD[side])
    turn_word, size = _fit(picture.turn_word + " →", 15, 200, bold=False)
    words_at = right - load_font(size, bold=False).getlength(turn_word) - 16
    d.text((right, base + 6), turn_word, font=load_font(size, bold=False), fill=MUTED, anchor="ra")
    for tick in range(10, count + 1, 10 if count <= 120 else 20):
        x = left + (tick - 1) * step
        d.line((x, plot_top, x, base), fill=GRID_C, width=1)
        if x + 14 < words_at:  # the turn word keeps its place at the right end
            d.text((x, base + 6), str(tick), font=load_font(14, bold=False), fill=MUTED,
                   anchor="ma")
    d.line((left, middle, right, middle), fill=MUTED, width=1)
    d.text((right - 4, middle + 3), "50%", font=load_font(14, bold=False), fill=MUTED, anchor="rt")
    if count > 1:
        d.line(line, fill=INK, width=3, joint="curve")
    for mark in sorted(picture.marks, key=lambda m: (m.number > 0, GRAPH_MARKS.index(m.grade))):
        if not 0 <= mark.ply < count:
            continue
        x, y = point(mark.ply)
        r = MARK_SIZE[mark.grade]
        d.ellipse((x - r, y - r, x + r, y + r), fill=GRADE_COLOURS[mark.grade], outline=INK,
                  width=2)
        if mark.number:
            label_y = y - r - 4 if y > plot_top + 30 else y + r + 4
            d.text((x, label_y), str(mark.number), font=load_font(18), fill=INK,
                   anchor="mb" if y > plot_top + 30 else "mt", stroke_width=3, stroke_fill=PAGE)
    y = base + 28
    _write(d, (MARGIN, y), picture.bottom, 17, WIDTH // 2, bold=False, fill=MUTED)
    x = WIDTH - MARGIN
    for grade, word in reversed(list(zip(GRAPH_MARKS, picture.legend, strict=True))):
        shown, size = _fit(word, 17, 180, bold=False)
        x -= int(load_font(size, bold=False).getlength(shown))
        d.text((x, y), shown, font=load_font(size, bold=False), fill=INK)
        r = MARK_SIZE[grade]
        x -= 10 + r
        d.ellipse((x - r, y + 10 - r, x + r, y + 10 + r), fill=GRADE_COLOURS[grade], outline=INK,
                  width=2)
        x -= r + 22
    return y + 34


def _small_board(view: BoardView, width: int) -> Image.Image:
    """The board picture without its players' bands and footer, ``width`` wide."""
    full = render_image(view)
    field = full.crop((0, INFO_H, full.width, full.height - INFO_H - FOOT_H))
    height = round(field.height * width / field.width)
    # reduced by averaging first (a third of the time of one large resampling),
    # never below the size asked for: the point numbers keep every pixel
    factor = max(1, field.width // width)
    return field.reduce(factor).resize((width, height), Image.Resampling.LANCZOS)


def _mistakes(image: Image.Image, d: ImageDraw.ImageDraw, picture: AnalysisPicture,
              top: int) -> int:
    y = top
    for mistake in picture.mistakes:
        d.line((MARGIN, y, WIDTH - MARGIN, y), fill=GRID_C, width=2)
        colour = GRADE_COLOURS.get(mistake.grade)
        if colour is not None:
            d.ellipse((MARGIN, y + 14, MARGIN + 20, y + 34), fill=colour, outline=INK, width=2)
        _write(d, (MARGIN + 30, y + 12), mistake.title, 21, WIDTH - 2 * MARGIN - 30)
        y += 48
        if mistake.best is None:
            _write(d, (MARGIN, y), f"{mistake.played_label} · {mistake.best_label}", 20,
                   WIDTH - 2 * MARGIN, bold=False)
            board = _small_board(mistake.played, BOARD_W)
            image.paste(board, ((WIDTH - BOARD_W) // 2, y + 30))
        else:
            for column, (label, view) in enumerate(((mistake.played_label, mistake.played),
                                                    (mistake.best_label, mistake.best))):
                left = MARGIN + column * (BOARD_W + 20)
                _write(d, (left, y), label, 20, BOARD_W, bold=False)
                board = _small_board(view, BOARD_W)
                image.paste(board, (left, y + 30))
        y += 30 + board.height + 20
    return y


def render_analysis(picture: AnalysisPicture) -> bytes:
    """The picture as a PNG (:data:`WIDTH` px wide; taller with each mistake drawn)."""
    height = _height(picture)
    image = Image.new("RGB", (WIDTH, height), PAGE)
    d = ImageDraw.Draw(image)
    _write(d, (MARGIN, 22), picture.title, 30, WIDTH - 2 * MARGIN)
    y = _panels(image, d, picture, 74) + 24
    y = _graph(d, picture, y)
    _mistakes(image, d, picture, y + 8)
    out = io.BytesIO()
    # 256 colours: a third of the file; the fast method, as the boards' own
    # palette lacks the graph's colours
    image.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE).save(
        out, "PNG", compress_level=6)
    return out.getvalue()


SMALL_BOARD_H = round((HEIGHT - 2 * INFO_H - FOOT_H) * BOARD_W / PNG_WIDTH)
"""A small board's height at :data:`BOARD_W`: the board picture without its
players' bands and footer, scaled."""


def _height(picture: AnalysisPicture) -> int:
    rows = sum(48 + 30 + SMALL_BOARD_H + 20 for _ in picture.mistakes)
    return 74 + _panel_h(picture) + 24 + 62 + _plot_h(picture) + 28 + 34 + 8 + rows + 10
