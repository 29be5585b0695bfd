"""The PNG board: golden pictures (tolerant comparison), size, fonts, marks."""

from __future__ import annotations

import dataclasses
import io

import pytest
from PIL import Image, ImageChops, ImageFilter, ImageStat

from bot.present.render import BoardView, LastTurn, point_label, render_image, render_png
from bot.present.render.png import (
    ACCENT,
    BAR_W,
    FIELD_H,
    FIELD_LEFT,
    FIELD_TOP,
    HALF_H,
    HEIGHT,
    INFO_H,
    POINT_W,
    WIDTH,
)
from bot.present.render.samples import SAMPLES
from bot.present.render.view import cell_of
from engine import BAR, Dice, Position, Side, Step, Variant, apply_step
from engine.position import EngineError
from tests.bot.present.render.conftest import GOLDEN, UPDATE

MEAN_TOLERANCE = 1.5
"""Mean absolute difference per channel (0..255) a golden may show."""
PIXEL_TOLERANCE = 64
BAD_PIXELS = 0.005
"""Share of pixels allowed to differ by more than PIXEL_TOLERANCE (antialiasing
and glyph hinting change between Pillow and FreeType versions)."""


def _decode(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGB")


BLOB = 7
"""Side of a square of differing pixels that is a change of the picture, not of
its antialiasing: glyph and edge differences are thin lines, a checker or a
die that moved is a solid patch (a checker is ~60 pixels across)."""
BLOB_PIXELS = 20
"""Pixels allowed to survive an erosion of the differing pixels by :data:`BLOB`
(a blur of radius 2 leaves at most 1; one checker moved leaves 340 or more)."""


def _differences(a: Image.Image, b: Image.Image) -> tuple[float, float, int]:
    """Mean difference, share of pixels that differ much, and the pixels of solid
    patches of difference (see :data:`BLOB`)."""
    diff = ImageChops.difference(a, b)
    mean = sum(ImageStat.Stat(diff).mean) / 3
    worst = diff.convert("L").point(lambda v: 255 if v > PIXEL_TOLERANCE else 0)
    blobs = worst.filter(ImageFilter.MinFilter(BLOB)).histogram()[255]
    return mean, ImageStat.Stat(worst).mean[0] / 255, blobs


def _same(differences: tuple[float, float, int]) -> bool:
    mean, bad, blobs = differences
    return mean < MEAN_TOLERANCE and bad < BAD_PIXELS and blobs <= BLOB_PIXELS


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_golden_png(name: str) -> None:
    data = render_png(SAMPLES[name])
    path = GOLDEN / f"{name}.png"
    if UPDATE:
        path.write_bytes(data)
    golden = Image.open(path).convert("RGB")
    differences = _differences(_decode(data), golden)
    assert _same(differences), differences


def test_golden_comparison_can_fail() -> None:
    """The tolerance is not so loose that another board passes."""
    a = _decode(render_png(SAMPLES["long-midgame"]))
    b = _decode(render_png(SAMPLES["long-midgame-black"]))
    assert not _same(_differences(a, b))


def _one_checker_moved(view: BoardView) -> BoardView:
    """``view`` with one checker of the side to move stepped one pip on."""
    position = view.position
    for point in range(BAR, 0, -1):
        for die in range(1, 7):
            try:
                return dataclasses.replace(view, position=apply_step(position,
                                                                     Step(point, point - die, die)))
            except EngineError:
                continue
    raise AssertionError("no checker can move")


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_golden_comparison_catches_one_checker_moved(name: str) -> None:
    """The bug the golden pictures are for: a board that draws a checker
    on the wrong point (mean and share of bad pixels alone let it pass)."""
    golden = Image.open(GOLDEN / f"{name}.png").convert("RGB")
    moved = _decode(render_png(_one_checker_moved(SAMPLES[name])))
    assert not _same(_differences(moved, golden))


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_png_is_small_and_sized_for_phones(name: str) -> None:
    data = render_png(SAMPLES[name])
    assert len(data) < 100_000
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG" and image.size == (WIDTH, HEIGHT)
    assert 900 <= WIDTH <= 1100


NAMES = [
    "Алиса Селезнёва",
    "Ąžuolas Čėsnys-Įšųūž",
    "🎲🎲 Борис 😀",
    "👨‍👩‍👧 family",
    "中文名字",
    "",
    "x" * 300,
    "\u200f\u202eRTL עברית\x00",
]


@pytest.mark.parametrize("name", NAMES)
def test_any_unicode_name_renders(name: str) -> None:
    view = BoardView(Position.initial(Variant.LONG), Side.WHITE, (name, name), status=name)
    assert render_png(view)[:4] == b"\x89PNG"


def test_cyrillic_and_lithuanian_letters_are_drawn() -> None:
    """Each letter has a glyph: the name strip differs from a blank name by
    about as much ink as a Latin name of the same length."""

    def ink(name: str) -> float:
        view = BoardView(Position.initial(Variant.LONG), Side.WHITE, ("", name))
        strip = render_image(view).crop((0, 0, WIDTH, INFO_H)).convert("L")
        return 255 - ImageStat.Stat(strip).mean[0]

    blank = ink("")
    for letters in ("ąčęėįšųūž", "жщыюяё", "abcdefghi"):
        assert ink(letters) - blank > 0.3 * (ink("abcdefghi") - blank)


def _accent_pixels(image: Image.Image, box: tuple[int, int, int, int]) -> int:
    """Pixels within a small distance of the accent colour (edges are blended)."""
    region = image.crop(box).convert("RGB")
    colours = region.getcolors(region.width * region.height) or []
    return sum(
        count
        for count, colour in colours
        if isinstance(colour, tuple)
        and sum(abs(a - b) for a, b in zip(colour, ACCENT, strict=True)) < 60
    )


def test_side_to_move_is_highlighted() -> None:
    position = Position.initial(Variant.BACKGAMMON)
    for turn in Side:
        image = render_image(BoardView(position.with_turn(turn), Side.WHITE))
        top = _accent_pixels(image, (0, 0, WIDTH, INFO_H))
        bottom_strip = (0, HEIGHT - INFO_H - 40, WIDTH, HEIGHT - 34)
        bottom = _accent_pixels(image, bottom_strip)
        assert (bottom > 1000, top > 1000) == (turn is Side.WHITE, turn is Side.BLACK)


def _column_box(label: int) -> tuple[int, int, int, int]:
    """The screen box of the viewer's point ``label`` (its half of the field)."""
    row, column = cell_of(label)
    x = FIELD_LEFT + column * POINT_W + (BAR_W if column >= 6 else 0)
    top = FIELD_TOP if row == 0 else FIELD_TOP + FIELD_H - HALF_H
    return x, top, x + POINT_W, top + HALF_H


@pytest.mark.parametrize("viewer", list(Side))
def test_last_turn_marks_source_and_target(viewer: Side) -> None:
    start = Position.initial(Variant.BACKGAMMON)
    position = apply_step(start, Step(13, 10, 3))
    plain = render_image(BoardView(position, viewer))
    last = LastTurn(Side.WHITE, (Step(13, 10, 3),), start)
    marked = render_image(BoardView(position, viewer, last_turn=last))
    for point in (13, 10):
        box = _column_box(int(point_label(Variant.BACKGAMMON, Side.WHITE, viewer, point)))
        assert _accent_pixels(plain, box) == 0
        assert _accent_pixels(marked, box) > 100


def test_used_dice_look_different() -> None:
    position = Position.initial(Variant.BACKGAMMON)
    fresh = render_image(BoardView(position, Side.WHITE, dice=Dice(4, 4)))
    used = render_image(BoardView(position, Side.WHITE, dice=Dice(4, 4), used=(4, 4)))
    assert ImageChops.difference(fresh, used).getbbox() is not None


def test_render_is_deterministic() -> None:
    view = SAMPLES["backgammon-hits"]
    assert render_png(view) == render_png(view)


@pytest.mark.parametrize("fast", [True, False], ids=["isal", "pillow"])
def test_the_png_encoder_keeps_every_pixel_of_the_palette_image(
        fast: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """encode_png (ISA-L's deflate, or Pillow's where isal is missing) writes exactly
    the palette indices and colours Pillow's own encoder writes: the same pictures."""
    from bot.present.render import png

    if fast:
        assert png.isal_zlib is not None  # a dependency (pyproject.toml): the fast path runs
    else:
        monkeypatch.setattr(png, "isal_zlib", None)
    for name in ("long-midgame", "backgammon-hits"):
        image = render_image(SAMPLES[name]).quantize(palette=png._palette(),
                                                     dither=Image.Dither.NONE)
        reference = io.BytesIO()
        image.save(reference, "PNG", compress_level=1)
        ours, theirs = (Image.open(io.BytesIO(data))
                        for data in (png.encode_png(image), reference.getvalue()))
        assert ours.mode == theirs.mode == "P" and ours.size == theirs.size
        assert ours.tobytes() == theirs.tobytes()
        assert ours.convert("RGB").tobytes() == theirs.convert("RGB").tobytes()
