"""The board picture: a PNG about 1000 px wide, drawn with Pillow.

Everything that does not depend on the checkers is drawn once and cached:
the board with its triangles and point numbers (:func:`_background`), the
checker, ring, die and cube sprites.  A render copies the background, pastes
sprites and writes the few text items (names, counts), then encodes a
palette PNG, which keeps the file small (well under 100 KB) and fast to
encode.  Colours: ivory and dark navy checkers (told apart by lightness, not
hue, so colour-blind-safe) and an orange accent (Okabe-Ito) for the side to
move and the last turn.

>>> from engine.position import Position, Side, Variant
>>> data = render_png(BoardView(Position.initial(Variant.LONG), Side.WHITE))
>>> data[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

import dataclasses
import io
import struct
import zlib
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

from PIL import Image, ImageDraw, ImageFont

try:  # ISA-L's deflate: a PNG in a seventh of zlib's time (encode_png)
    from isal import isal_zlib
except ImportError:  # pragma: no cover - a platform without its wheel: Pillow's zlib
    isal_zlib = None  # type: ignore[assignment]

from bot.present.render.view import (
    HALF,
    BoardView,
    LastTurn,
    RenderError,
    format_last_turn,
    label_at,
    occupant,
    score_line,
    viewer_point,
)
from engine.position import BAR, CHECKERS, OFF, Dice, Position, Side, Step, Variant

# Geometry, in pixels.
WIDTH = 1000
POINT_W = 66
CHECKER = 60
STACK = 5
"""Checkers drawn per point; the top one of a taller stack carries the count."""
FRAME = 14
BAR_W = 60
TRAY_W = 70
GAP = 84
"""Height of the middle strip between the top and bottom points (dice go there)."""
INFO_H = 54
LABEL_H = 28
FOOT_H = 34
HALF_H = STACK * CHECKER
FIELD_H = 2 * HALF_H + GAP
BOARD_W = 2 * FRAME + 2 * HALF * POINT_W + BAR_W + TRAY_W + FRAME
LEFT = (WIDTH - BOARD_W) // 2
FIELD_TOP = INFO_H + LABEL_H + FRAME
FIELD_LEFT = LEFT + FRAME
BAR_LEFT = FIELD_LEFT + HALF * POINT_W
TRAY_LEFT = BAR_LEFT + BAR_W + HALF * POINT_W + FRAME
HEIGHT = FIELD_TOP + FIELD_H + FRAME + LABEL_H + INFO_H + FOOT_H
MIDDLE = FIELD_TOP + HALF_H + GAP // 2
DIE = 50
CUBE = 48
BAR_WORD_SLOT = (LEFT + FRAME + HALF * POINT_W, MIDDLE - GAP // 2,
                 LEFT + FRAME + HALF * POINT_W + BAR_W, MIDDLE - CUBE // 2)
"""Where the bar's word goes: on the bar between the top side's bar checkers
and a centred cube (the cube sits in the middle of the bar)."""
BAR_WORD_Y = (BAR_WORD_SLOT[1] + BAR_WORD_SLOT[3]) // 2
SUPER = 4
"""Sprites are drawn this many times larger and scaled down: antialiasing."""

# Colours.
PAGE = (246, 241, 231)
INK = (27, 27, 31)
MUTED = (110, 104, 96)
FRAME_C = (74, 47, 27)
FIELD_C = (236, 222, 190)
BAR_C = (92, 60, 36)
TRIANGLES = ((176, 84, 58), (58, 98, 112))
TRAY_C = (60, 39, 22)
ACCENT = (230, 159, 0)
NOW = (86, 180, 233)
"""Rings of the steps played so far in the current turn (Okabe-Ito sky blue)."""
CHECKER_FILL = {Side.WHITE: (248, 244, 233), Side.BLACK: (26, 36, 64)}
CHECKER_RIM = {Side.WHITE: (40, 40, 44), Side.BLACK: (214, 222, 238)}
CHECKER_TEXT = {Side.WHITE: INK, Side.BLACK: (255, 255, 255)}


@lru_cache(maxsize=16)
def load_font(size: int, bold: bool = True) -> ImageFont.FreeTypeFont:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    with resources.as_file(resources.files("bot.present.render") / "assets" / name) as path:
        return ImageFont.truetype(str(path), size)


NOTDEF = "\U0010fffd"
"""A private-use code point no font draws: its mask is the font's "no glyph" box."""


@lru_cache(maxsize=4096)
def _drawable(char: str) -> bool:
    """Whether the shipped font has a glyph for ``char`` (variation
    selectors count as not drawable: DejaVu shows them as boxes)."""
    if "\ufe00" <= char <= "\ufe0f":
        return False
    font = load_font(24)
    mask, missing = font.getmask(char), font.getmask(NOTDEF)
    return (mask.size, bytes(mask)) != (missing.size, bytes(missing))


def printable(text: str) -> str:
    """``text`` without the characters the font cannot draw (emoji it lacks
    would show as boxes), so any name renders.

    >>> printable("Борис 🎲 Ąž")
    'Борис  Ąž'
    """
    return "".join(char for char in text if _drawable(char))


Box = tuple[int, int, int, int]
"""``(left, top, right, bottom)`` in the picture's pixels."""


@dataclass(frozen=True)
class Placed:
    """One text of the picture: what it is, the text, the box its glyphs
    cover and the slot it must stay in (see :func:`layout`)."""

    what: str
    text: str
    box: tuple[float, float, float, float]
    slot: Box


_placed: list[Placed] | None = None
"""While :func:`layout` measures a picture: every text written, with its slot."""


def _write(d: ImageDraw.ImageDraw, xy: tuple[float, float], text: str,
           font: ImageFont.FreeTypeFont, what: str, slot: Box, scale: int = 1,
           **options: object) -> None:
    """``d.text`` that, while :func:`layout` measures, notes the glyphs' box
    (in picture pixels: a layer drawn ``scale`` times larger is divided) and
    the ``slot`` (in picture pixels) the text belongs in."""
    d.text(xy, text, font=font, **options)  # type: ignore[arg-type]
    if _placed is not None and text:
        box = d.textbbox(xy, text, font=font, anchor=options.get("anchor"),  # type: ignore[arg-type]
                         stroke_width=options.get("stroke_width", 0))  # type: ignore[arg-type]
        _placed.append(Placed(what, text, tuple(v / scale for v in box), slot))  # type: ignore[arg-type]


def _fitted(d: ImageDraw.ImageDraw, centre: tuple[int, int], text: str, width: int,
            size: int, what: str, slot: Box, scale: int = 1) -> None:
    """``text`` centred at ``centre`` in bold, made smaller until it fits ``width``."""
    while size > 6 and load_font(size).getlength(text) > width:
        size -= 1
    _write(d, centre, text, load_font(size), what, slot, scale, fill=PAGE, anchor="mm")


def fit(text: str, width: float, size: int, bold: bool = True, least: int | None = None
        ) -> tuple[str, ImageFont.FreeTypeFont]:
    """``text`` and the font of the largest size from ``size`` down to
    ``least`` in which it fits ``width`` pixels; in ``least`` (or ``size``),
    cut with "…" to fit.  The pictures' one way to fit a line of text."""
    for each in range(size, (least or size) - 1, -1):
        font = load_font(each, bold)
        if font.getlength(text) <= width:
            return text, font
    return _cut(text, font, width), font


def _cut(text: str, font: ImageFont.FreeTypeFont, width: float) -> str:
    """``text`` cut at its end, with "…", to at most ``width`` pixels in ``font``."""
    if font.getlength(text) <= width:
        return text
    while text and font.getlength(text + "…") > width:
        text = text[:-1]
    return text.rstrip() + "…" if text else ""


def _smooth(size: tuple[int, int], draw: object) -> Image.Image:
    """An RGBA sprite drawn ``SUPER`` times larger by ``draw(ImageDraw, scale)``
    and scaled down, for smooth edges."""
    big = Image.new("RGBA", (size[0] * SUPER, size[1] * SUPER), (0, 0, 0, 0))
    draw(ImageDraw.Draw(big), SUPER)  # type: ignore[operator]
    return big.resize(size, Image.Resampling.LANCZOS)


@cache
def checker_image(side: Side) -> Image.Image:
    def draw(d: ImageDraw.ImageDraw, s: int) -> None:
        size = CHECKER * s
        d.ellipse((s, s, size - s, size - s), fill=CHECKER_RIM[side])
        d.ellipse((3 * s, 3 * s, size - 3 * s, size - 3 * s), fill=CHECKER_FILL[side])
        inner = 11 * s
        d.ellipse(
            (inner, inner, size - inner, size - inner), outline=CHECKER_RIM[side], width=s * 2
        )

    return _smooth((CHECKER, CHECKER), draw)


@cache
def _ring(kind: str) -> Image.Image:
    """``"from"``: a faded dashed ring where a checker left; ``"to"``: a bold
    outline around a checker that just arrived (the last turn, in the accent
    colour); ``"now-from"``, ``"now-to"``: the same for the steps already
    played in the turn in progress, in a second colour."""
    colour = NOW if kind.startswith("now") else ACCENT

    def draw(d: ImageDraw.ImageDraw, s: int) -> None:
        size = CHECKER * s
        if kind.endswith("to"):
            d.ellipse((0, 0, size - 1, size - 1), outline=colour, width=5 * s)
        else:
            box = (3 * s, 3 * s, size - 3 * s, size - 3 * s)
            for start in range(0, 360, 30):
                d.arc(box, start, start + 18, fill=(*colour, 235), width=4 * s)

    return _smooth((CHECKER, CHECKER), draw)


@cache
def _die(value: int, used: bool) -> Image.Image:
    pips = {
        1: [(1, 1)],
        2: [(0, 0), (2, 2)],
        3: [(0, 0), (1, 1), (2, 2)],
        4: [(0, 0), (0, 2), (2, 0), (2, 2)],
        5: [(0, 0), (0, 2), (1, 1), (2, 0), (2, 2)],
        6: [(0, 0), (0, 2), (1, 0), (1, 2), (2, 0), (2, 2)],
    }[value]
    face, dot = ((200, 196, 188), (140, 136, 130)) if used else ((255, 255, 255), INK)

    def draw(d: ImageDraw.ImageDraw, s: int) -> None:
        size = DIE * s
        d.rounded_rectangle((s, s, size - s, size - s), 9 * s, fill=face, outline=INK, width=2 * s)
        step, r = size // 4, 5 * s
        for row, col in pips:
            x, y = step * (col + 1), step * (row + 1)
            d.ellipse((x - r, y - r, x + r, y + r), fill=dot)

    return _smooth((DIE, DIE), draw)


@cache
def _cube(value: int) -> Image.Image:
    text = str(64 if value == 1 else value)

    def draw(d: ImageDraw.ImageDraw, s: int) -> None:
        size = CUBE * s
        d.rounded_rectangle(
            (s, s, size - s, size - s), 7 * s, fill=(250, 250, 246), outline=INK, width=2 * s
        )
        font = load_font((22 if len(text) < 3 else 16) * s)
        d.text((size // 2, size // 2), text, font=font, fill=INK, anchor="mm")

    return _smooth((CUBE, CUBE), draw)


def _point_box(row: int, column: int) -> tuple[int, int]:
    """Left x of a screen column and the y of the board edge its stack grows from."""
    x = FIELD_LEFT + column * POINT_W + (BAR_W if column >= HALF else 0)
    y = FIELD_TOP if row == 0 else FIELD_TOP + FIELD_H
    return x, y


def _slot(row: int, x: int, edge: int, depth: int) -> tuple[int, int]:
    """Top-left corner of the ``depth``-th checker (0 at the edge) of a stack
    growing from ``edge`` into the board, centred in a column of ``POINT_W``
    starting at ``x``."""
    depth = min(depth, STACK - 1)
    left = x + (POINT_W - CHECKER) // 2
    return (left, edge + depth * CHECKER) if row == 0 else (left, edge - (depth + 1) * CHECKER)


def printed_numbers(view: BoardView) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The point numbers the picture prints, per screen row (top, bottom),
    left to right: :meth:`BoardView.number_at` of each cell, the numbers
    every text about the board is written in."""
    return tuple(tuple(view.number_at(label_at(row, column)) for column in range(2 * HALF))
                 for row in (0, 1))  # type: ignore[return-value]


@lru_cache(maxsize=16)
def _background(variant: Variant, off: str = "OFF", bar: str = "BAR",
                numbers: tuple[tuple[int, ...], ...] | None = None) -> Image.Image:
    """The empty board with triangles, bar, trays and the point numbers
    (``numbers``, per row as :func:`printed_numbers` gives them; the bottom
    side's when not given: the checkers stay, the numbers follow the board's
    :attr:`BoardView.numbered_for`); ``off`` and ``bar`` are the words on the
    trays and the bar, in the board's language."""
    if numbers is None:
        numbers = tuple(tuple(label_at(row, column) for column in range(2 * HALF))
                        for row in (0, 1))
    s = 2
    img = Image.new("RGB", (WIDTH * s, HEIGHT * s), PAGE)
    d = ImageDraw.Draw(img)
    top = INFO_H + LABEL_H
    d.rectangle(
        (LEFT * s, top * s, (LEFT + BOARD_W) * s - 1, (top + FIELD_H + 2 * FRAME) * s - 1),
        fill=FRAME_C,
    )
    for half_left in (FIELD_LEFT, BAR_LEFT + BAR_W):
        d.rectangle(
            (
                half_left * s,
                FIELD_TOP * s,
                (half_left + HALF * POINT_W) * s - 1,
                (FIELD_TOP + FIELD_H) * s - 1,
            ),
            fill=FIELD_C,
        )
    d.rectangle(
        (BAR_LEFT * s, FIELD_TOP * s, (BAR_LEFT + BAR_W) * s - 1, (FIELD_TOP + FIELD_H) * s - 1),
        fill=BAR_C,
    )
    d.rectangle(
        (TRAY_LEFT * s, FIELD_TOP * s, (TRAY_LEFT + TRAY_W) * s - 1, (FIELD_TOP + FIELD_H) * s - 1),
        fill=TRAY_C,
    )
    tip = HALF_H - 14
    number_font = load_font(18 * s)
    for row in (0, 1):
        for column in range(2 * HALF):
            x, edge = _point_box(row, column)
            colour = TRIANGLES[(column + row) % 2]
            apex = edge + tip if row == 0 else edge - tip
            d.polygon(
                [
                    (x * s + s, edge * s),
                    ((x + POINT_W) * s - s, edge * s),
                    ((x + POINT_W // 2) * s, apex * s),
                ],
                fill=colour,
            )
            label_y = (
                (top - LABEL_H // 2) if row == 0 else (top + FIELD_H + 2 * FRAME + LABEL_H // 2)
            )
            strip = top - LABEL_H if row == 0 else top + FIELD_H + 2 * FRAME
            _write(d, ((x + POINT_W // 2) * s, label_y * s), str(numbers[row][column]),
                   number_font, "point number", (x, strip, x + POINT_W, strip + LABEL_H), s,
                   fill=INK, anchor="mm")
    for y in (FIELD_TOP + 12, FIELD_TOP + FIELD_H - 12):
        _fitted(d, ((TRAY_LEFT + TRAY_W // 2) * s, y * s), off, (TRAY_W - 8) * s, 13 * s,
                "tray word", (TRAY_LEFT, y - 12, TRAY_LEFT + TRAY_W, y + 12), s)
    if variant is Variant.BACKGAMMON:  # above a centred cube, never under it
        _fitted(d, ((BAR_LEFT + BAR_W // 2) * s, BAR_WORD_Y * s), bar, (BAR_W - 8) * s, 13 * s,
                "bar word", BAR_WORD_SLOT, s)
    return img.resize((WIDTH, HEIGHT), Image.Resampling.LANCZOS)


@lru_cache(maxsize=64)
def _count_label(side: Side, count: int) -> Image.Image:
    return _smooth(
        (CHECKER, CHECKER),
        lambda d, s: d.text(
            (CHECKER * s // 2, CHECKER * s // 2),
            str(count),
            font=load_font(24 * s),
            fill=CHECKER_TEXT[side],
            anchor="mm",
        ),
    )


def _stack(img: Image.Image, side: Side, count: int, row: int, x: int, edge: int) -> None:
    sprite = checker_image(side)
    for depth in range(min(count, STACK)):
        img.paste(sprite, _slot(row, x, edge, depth), sprite)
    if count > STACK:
        label = _count_label(side, count)
        img.paste(label, _slot(row, x, edge, STACK - 1), label)


def _place(view: BoardView, side: Side, point: int) -> tuple[int, int, int]:
    """``(row, x, edge)`` of the stack holding ``side``'s own ``point``
    (1..24 or BAR); the bar stacks grow from the middle outwards, the top
    side's upwards."""
    if point == BAR:
        row = 1 if side is view.top else 0  # grows away from the middle
        edge = MIDDLE - GAP // 2 if side is view.top else MIDDLE + GAP // 2
        return row, BAR_LEFT + (BAR_W - POINT_W) // 2, edge
    label = viewer_point(view.variant, side, view.viewer, point)
    row = 0 if label > 12 else 1
    column = label - 13 if row == 0 else 12 - label
    x, edge = _point_box(row, column)
    return row, x, edge


def _draw_checkers(img: Image.Image, view: BoardView) -> None:
    for row in (0, 1):
        for column in range(2 * HALF):
            side, count = occupant(view, label_at(row, column))
            if side is not None:
                x, edge = _point_box(row, column)
                _stack(img, side, count, row, x, edge)
    if view.variant is Variant.BACKGAMMON:
        for side in Side:
            count = view.position.checkers(side, BAR)
            if count:
                row, x, edge = _place(view, side, BAR)
                _stack(img, side, count, row, x, edge)


def _tray_box(view: BoardView, side: Side) -> tuple[int, int, int, int]:
    """Inner box of ``side``'s borne-off tray: the top half for the top side."""
    top = FIELD_TOP + 24 if side is view.top else MIDDLE + GAP // 2
    bottom = MIDDLE - GAP // 2 if side is view.top else FIELD_TOP + FIELD_H - 24
    return TRAY_LEFT + 8, top, TRAY_LEFT + TRAY_W - 8, bottom


def _draw_trays(d: ImageDraw.ImageDraw, view: BoardView, arrived_off: int) -> None:
    """Borne-off checkers as slabs seen edge-on, with the count."""
    for side in Side:
        count = view.borne_off(side)
        left, top, right, bottom = _tray_box(view, side)
        slab = (bottom - top) // CHECKERS
        for i in range(count):
            y = bottom - (i + 1) * slab if side is view.bottom else top + i * slab
            fresh = side is (view.last_turn.side if view.last_turn else None) and (
                i >= count - arrived_off
            )
            d.rounded_rectangle(
                (left, y + 1, right, y + slab - 1),
                3,
                fill=CHECKER_FILL[side],
                outline=ACCENT if fresh else CHECKER_RIM[side],
                width=3 if fresh else 1,
            )
        if count:
            y = top + (bottom - top) // 2
            _write(d, (TRAY_LEFT + TRAY_W // 2, y), str(count), load_font(24), "tray count",
                   (TRAY_LEFT, top, TRAY_LEFT + TRAY_W, bottom), fill=ACCENT, anchor="mm",
                   stroke_width=3, stroke_fill=INK)


def _draw_last_turn(img: Image.Image, view: BoardView, last: LastTurn | None,
                    now: bool = False) -> int:
    """Dashed rings where ``last``'s checkers came from, bold outlines on
    where they arrived (in the second colour for the turn in progress,
    ``now``); returns how many it bore off."""
    if last is None:
        return 0
    departed, arrived = last.net_moves()
    prefix = "now-" if now else ""
    ring_from, ring_to = _ring(prefix + "from"), _ring(prefix + "to")
    for point, n in departed.items():
        row, x, edge = _place(view, last.side, point)
        here = view.position.checkers(last.side, point)
        for depth in range(here, here + n):
            img.paste(ring_from, _slot(row, x, edge, depth), ring_from)
    for point, n in arrived.items():
        if point == OFF:
            continue
        row, x, edge = _place(view, last.side, point)
        here = view.position.checkers(last.side, point)
        for depth in range(max(here - n, 0), here):
            img.paste(ring_to, _slot(row, x, edge, depth), ring_to)
    return arrived[OFF]


def _draw_dice_and_cube(img: Image.Image, view: BoardView) -> None:
    faces = view.dice_faces()
    if faces:
        # the player to move rolls into the right half of its own side
        half_left = BAR_LEFT + BAR_W if view.turn is view.bottom else FIELD_LEFT
        width = len(faces) * DIE + (len(faces) - 1) * 12
        x = half_left + (HALF * POINT_W - width) // 2
        for value, used in faces:
            sprite = _die(value, used)
            img.paste(sprite, (x, MIDDLE - DIE // 2), sprite)
            x += DIE + 12
    if view.cube is not None:
        sprite = _cube(view.cube)
        if view.cube_owner is None:
            y = MIDDLE - CUBE // 2
        elif view.cube_owner is view.top:
            y = FIELD_TOP + 6
        else:
            y = FIELD_TOP + FIELD_H - CUBE - 6
        img.paste(sprite, (BAR_LEFT + (BAR_W - CUBE) // 2, y), sprite)


@cache
def _icon(side: Side) -> Image.Image:
    """The checker beside a player's name (made once, not on every board)."""
    return checker_image(side).resize((34, 34), Image.Resampling.LANCZOS)


def _draw_player(img: Image.Image, d: ImageDraw.ImageDraw, view: BoardView, side: Side) -> None:
    y = 0 if side is view.top else FIELD_TOP + FIELD_H + FRAME + LABEL_H
    to_move = side is view.actor
    if to_move:
        d.rounded_rectangle((LEFT, y + 6, LEFT + BOARD_W, y + INFO_H - 6), 10, fill=ACCENT)
    icon = _icon(side)
    img.paste(icon, (LEFT + 10, y + (INFO_H - 34) // 2), icon)
    middle = y + INFO_H // 2
    labels = view.labels
    facts = f"{labels.pip_count(view.pips(side))}   {labels.off} {view.borne_off(side)}"
    if view.score is not None:  # the match length is on the footer ("Match to 7 · …")
        facts += f"   {labels.score_of} {view.score[side]}"
    if to_move:
        facts = f"{labels.to_move}   " + facts
    # the facts end at the right edge (smaller type if they would leave the
    # name less than NAME_ROOM); the name gets what is left of the line
    facts = printable(facts)
    right = LEFT + BOARD_W - 14
    size = 20
    room = right - (LEFT + 56 + NAME_ROOM)
    while size > 12 and load_font(size, bold=False).getlength(facts) > room:
        size -= 1
    font = load_font(size, bold=False)
    band = (LEFT, y, LEFT + BOARD_W, y + INFO_H)
    _write(d, (right, middle), facts, font, "player facts",
           (LEFT + 56 + NAME_ROOM, y, right, y + INFO_H), fill=INK, anchor="rm")
    name_right = right - int(font.getlength(facts)) - 24
    name = _cut(printable(view.names[side]).strip(), load_font(24), name_right - (LEFT + 56))
    _write(d, (LEFT + 56, middle), name, load_font(24), "player name",
           (LEFT + 48, band[1], name_right, band[3]), fill=INK, anchor="lm")  # past the icon


NAME_ROOM = 150
"""Pixels a player's name keeps on its band however long the facts are."""
FOOT_GAP = 24
"""Pixels between the footer's last turn and its score or status."""
FOOT_MIN = 14
"""The smallest type the footer's last turn is set in before its name is cut."""


def _draw_footer(d: ImageDraw.ImageDraw, view: BoardView) -> None:
    """The last turn (who, the roll, the moves) on the left, whole: the
    score or status on the right yields first (down to a third of the line),
    then the last turn's type gets smaller (down to :data:`FOOT_MIN`), then
    the mover's name is cut; nothing runs into anything."""
    y = HEIGHT - FOOT_H // 2 - 4
    slot_top, slot_bottom = HEIGHT - FOOT_H - 4, HEIGHT
    left_edge, right_edge = LEFT + 10, LEFT + BOARD_W - 10
    room = right_edge - left_edge
    right = printable(view.status or score_line(view, 48)).strip()
    right_font = load_font(19)
    head = tail = name = ""
    if view.last_turn is not None:
        head = printable(view.labels.last).strip()
        name = printable(view.names[view.last_turn.side]).strip()
        tail = printable(format_last_turn(view))
    size = 19
    font = load_font(size, bold=False)
    whole = f"{head} {name} {tail}" if view.last_turn is not None else ""
    # the right side yields first, down to a third of the line
    keep = max(room - font.getlength(whole) - FOOT_GAP, room / 3) if whole else room
    if not view.status:  # the score: its names are shortened before the line is cut
        drawable = dataclasses.replace(view, names=tuple(  # type: ignore[arg-type]
            printable(name).strip() for name in view.names))
        for width in range(48, 16, -1):
            right = score_line(drawable, width)
            if right_font.getlength(right) <= keep:
                break
    right = _cut(" ".join(right.split()), right_font, keep)
    left_room = room - (right_font.getlength(right) + FOOT_GAP if right else 0)
    if whole:
        fixed = f"{head}  {tail}"
        while size > FOOT_MIN and font.getlength(whole) > left_room:  # the whole name, smaller
            size -= 1
            font = load_font(size, bold=False)
        name = _cut(name, font, left_room - font.getlength(fixed))
        text = f"{head} {name} {tail}" if name else f"{head} {tail}"
        _write(d, (left_edge, y), _cut(text, font, left_room), font, "footer last turn",
               (left_edge, slot_top, int(left_edge + left_room + FOOT_GAP // 2), slot_bottom),
               fill=INK, anchor="lm")
    if right:
        _write(d, (right_edge, y), right, right_font, "footer right",
               (int(left_edge + left_room + FOOT_GAP // 2) if whole else left_edge, slot_top,
                right_edge, slot_bottom), fill=MUTED, anchor="rm")


def layout(view: BoardView) -> list[Placed]:
    """Every text :func:`render_image` writes for ``view``, with the box its
    glyphs cover and the slot it must stay in (for the layout tests: a
    label that sticks out of its slot overlaps something)."""
    global _placed
    _background.cache_clear()  # its texts are written once, when it is made
    _placed = []
    try:
        render_image(view)
        return _placed
    finally:
        _placed = None
        _background.cache_clear()


def render_image(view: BoardView) -> Image.Image:
    """The board as an RGB Pillow image (what :func:`render_png` encodes)."""
    if not isinstance(view, BoardView):
        raise RenderError(f"render_png needs a BoardView, got {view!r}")
    labels = view.labels
    img = _background(
        view.variant, printable(labels.off.upper()), printable(labels.bar.upper()),
        printed_numbers(view),
    ).copy()
    d = ImageDraw.Draw(img)
    _draw_checkers(img, view)
    arrived_off = _draw_last_turn(img, view, view.last_turn)
    _draw_last_turn(img, view, view.current_turn(), now=True)
    _draw_trays(d, view, arrived_off)
    _draw_dice_and_cube(img, view)
    for side in (view.top, view.bottom):
        _draw_player(img, d, view, side)
    _draw_footer(d, view)
    return img


PALETTE_COLOURS = 128


@lru_cache(maxsize=1)
def _palette() -> Image.Image:
    """A fixed palette, made once from a board that shows every element
    (both checkers, both kinds of rings, used and unused dice, cube, trays,
    accent bar).
    Mapping a render onto a fixed palette is ~30 times faster than
    quantizing each picture afresh, and the pictures all share one look."""
    rows = [[0] * 25, [0] * 25]
    rows[0][:8] = [2, 2, 2, 2, 2, 2, 1, 0]
    rows[0][24] = 1
    rows[1][6:12] = [3, 3, 3, 1, 1, 1]
    rows[1][24] = 1
    sample = BoardView(
        Position.from_rows(Variant.BACKGAMMON, rows, Side.WHITE),
        Side.WHITE,
        names=("Sample", "Sample"),
        dice=Dice(5, 2),
        used=(5,),
        current=(Step(8, 3, 5),),
        cube=2,
        cube_owner=Side.BLACK,
        last_turn=LastTurn(Side.WHITE, (Step(7, 2, 5), Step(2, 0, 2))),
        status="status",
    )
    return render_image(sample).quantize(PALETTE_COLOURS, method=Image.Quantize.MEDIANCUT)


def render_png(view: BoardView) -> bytes:
    """The board as a palette PNG (about 50-70 KB)."""
    return encode_png(render_image(view).quantize(palette=_palette(), dither=Image.Dither.NONE))


DEFLATE_LEVEL = 2
"""ISA-L's level: as small as zlib's level 1 (smaller on boards), ~6 times faster."""


def encode_png(image: Image.Image) -> bytes:
    """A palette image as a PNG: the same pixels as Pillow writes, but compressed
    with ISA-L (``isal``) when it is installed, which takes about a seventh of the
    time of Pillow's zlib (the encoding was the biggest part of a board's cost).

    Every row is stored unfiltered (filter byte 0, what Pillow does for a
    palette image too), so the rows are the image's bytes with one zero byte
    in front of each: a copy one pixel wider, pasted at x=1.
    """
    if isal_zlib is None or image.mode != "P":
        out = io.BytesIO()
        image.save(out, "PNG", compress_level=1)
        return out.getvalue()
    width, height = image.size
    rows = Image.new("P", (width + 1, height), 0)
    rows.paste(image, (1, 0))
    palette = bytes(image.getpalette() or [])
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)  # 8 bits, palette
    return b"".join((b"\x89PNG\r\n\x1a\n", _chunk(b"IHDR", header), _chunk(b"PLTE", palette),
                     _chunk(b"IDAT", isal_zlib.compress(rows.tobytes(), DEFLATE_LEVEL)),
                     _chunk(b"IEND", b"")))


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(
        ">I", zlib.crc32(data, zlib.crc32(kind)))


def warm_up() -> None:
    """Build the cached layers (palette, both empty boards, sprites) now, so
    the first board a user sees is drawn as fast as the others (~5 ms
    instead of ~150 ms)."""
    for variant in Variant:
        render_png(BoardView(Position.initial(variant), Side.WHITE, dice=Dice(6, 5)))
