"""Every label of the picture fits its slot, in every language (issue 26).

The picture's texts are measured as drawn (:func:`bot.present.render.png.layout`:
each ``d.text`` with Pillow's ``textbbox`` of its glyphs): point numbers in
their column of the label strip, the tray and bar words on the tray and
between the bar's checkers and a centred cube, the tray counts in the tray,
each player's name and facts on the band without meeting, the footer's last
turn and score without meeting.  Lithuanian had "JUOSTA" sticking out on both
sides of the centred cube and the footer cut inside the name
("Paskutinis ėjimas: Nardų botas (…")."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.present.names import board_labels
from bot.present.render import BoardView, LastTurn
from bot.present.render.png import (
    BAR_LEFT,
    BAR_W,
    CUBE,
    MIDDLE,
    Placed,
    layout,
    printed_numbers,
)
from bot.present.render.samples import SAMPLES, board
from bot.vocab.i18n import LANGUAGES, translator
from engine import BAR, OFF, Dice, Side, Step, Variant

BOT = "🤖 Nardų botas (stiprus)"
"""The computer's name in Lithuanian, the footer's cut case."""
TOLERANCE = 0.5
"""Pixels a glyph's box may pass its slot by (antialiasing)."""


def _worst(lang: str) -> dict[str, BoardView]:
    """Boards with the longest things each slot holds, in ``lang``."""
    labels = board_labels(translator(lang))
    entering = board(Variant.BACKGAMMON, {24: 2, 13: 5, 8: 3, 6: 5},
                     {BAR: 1, 24: 1, 13: 5, 8: 3, 6: 5}, Side.BLACK)
    views = {
        "bar, centred cube, match, the bot's four steps": BoardView(
            entering, Side.WHITE, ("Aleksandra Žemaitytė-Čiurlionienė", BOT),
            dice=Dice(3, 3), used=(3,), cube=1, score=(12, 14), match_length=25,
            last_turn=LastTurn(Side.BLACK, (Step(BAR, 22, 3), Step(22, 19, 3),
                                            Step(13, 10, 3), Step(13, 10, 3)),
                               dice=Dice(3, 3)),
            labels=labels, to_act=Side.BLACK),
        "bear-off to the tray": replace(
            SAMPLES["backgammon-bearoff"], labels=labels, names=(BOT, "Ąžuolas Čėsnys"),
            score=(3, 10), match_length=11,
            last_turn=LastTurn(Side.WHITE, (Step(6, OFF, 6), Step(6, OFF, 6), Step(5, OFF, 6),
                                            Step(4, OFF, 6)), dice=Dice(6, 6))),
        "long nardy, its status": replace(
            SAMPLES["long-midgame"], labels=labels, names=("Борис Ивановский-Ковалёв", BOT),
            status="Jonas to move · 23h 59m left"),
        "long nardy, Black's numbers": replace(SAMPLES["long-midgame-black"], labels=labels,
                                               names=(BOT, BOT)),
        "ended": replace(SAMPLES["backgammon-hits"], labels=labels, over=True),
    }
    for name in sorted(SAMPLES):
        views[name] = replace(SAMPLES[name], labels=labels)
    return views


def _outside(item: Placed) -> bool:
    (left, top, right, bottom), slot = item.box, item.slot
    return (left < slot[0] - TOLERANCE or top < slot[1] - TOLERANCE
            or right > slot[2] + TOLERANCE or bottom > slot[3] + TOLERANCE)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_label_fits_its_slot(lang: str) -> None:
    for name, view in _worst(lang).items():
        placed = layout(view)
        kinds = {item.what for item in placed}
        assert {"point number", "tray word", "player name", "player facts"} <= kinds, name
        wrong = [(item.what, item.text, item.box, item.slot) for item in placed
                 if _outside(item)]
        assert not wrong, (lang, name, wrong)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_bar_word_clears_a_centred_cube(lang: str) -> None:
    view = _worst(lang)["bar, centred cube, match, the bot's four steps"]
    cube = (BAR_LEFT + (BAR_W - CUBE) // 2, MIDDLE - CUBE // 2,
            BAR_LEFT + (BAR_W + CUBE) // 2, MIDDLE + CUBE // 2)
    word = next(item for item in layout(view) if item.what == "bar word")
    assert word.text == view.labels.bar.upper()
    left, top, right, bottom = word.box
    assert right <= cube[0] or left >= cube[2] or bottom <= cube[1] or top >= cube[3], word


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_footer_keeps_the_movers_whole_name_and_the_roll(lang: str) -> None:
    view = _worst(lang)["bar, centred cube, match, the bot's four steps"]
    footer = next(item for item in layout(view) if item.what == "footer last turn")
    assert "Nardų botas (stiprus) (3-3) " in footer.text, footer.text
    assert footer.text.endswith("22/10(2)") or "…" not in footer.text, footer.text


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_the_picture_prints_the_numbers_of_printed_numbers(name: str) -> None:
    """The texts in the label strips are :func:`printed_numbers`, the numbers
    the move texts are checked against (tests/bot/present/test_board_truth.py)."""
    view = SAMPLES[name]
    drawn = [int(item.text) for item in layout(view) if item.what == "point number"]
    rows = printed_numbers(view)
    assert drawn == [*rows[0], *rows[1]] or sorted(drawn) == sorted([*rows[0], *rows[1]])
    by_place = {}
    for item in layout(view):
        if item.what == "point number":
            by_place[(item.slot[1], item.slot[0])] = int(item.text)
    ordered = [by_place[key] for key in sorted(by_place)]
    assert ordered == [*rows[0], *rows[1]]
