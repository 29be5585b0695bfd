"""The board's own words come from ``BoardView.labels``: translated labels
replace every English word on the text board and the picture."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PIL import ImageChops

from bot.present.render import BoardLabels, BoardView, RenderError, render_image, render_text
from bot.present.render.png import _drawable
from bot.present.render.samples import SAMPLES
from bot.present.render.text import WIDTH


def _russian_pips(n: int) -> str:
    """The three Russian plural forms (the bot's come from its catalog)."""
    if n % 10 == 1 and n % 100 != 11:
        return f"{n} пипс"
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return f"{n} пипса"
    return f"{n} пипсов"


RUSSIAN = BoardLabels(pips="пипсов", off="выброс", bar="бар", dice="Кости", played="сыграно",
                      cube="Куб", centred="в центре", last="Последний ход:", no_move="нет хода",
                      score="Счёт", score_of="счёт", match_to="Матч до {n}", to_move="ходит",
                      pip_count=_russian_pips)
ENGLISH_WORDS = ("pips", "off", "Dice", "played", "Cube", "centred", "Last:", "Match to",
                 "Score", "BAR")


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_text_board_uses_the_labels(name: str) -> None:
    view = replace(SAMPLES[name], labels=RUSSIAN, status="")
    text = render_text(view)
    assert {len(line) for line in text.splitlines()} == {WIDTH}
    for word in ENGLISH_WORDS:  # the notation's bar and off included
        assert word not in text, (word, text)
    assert "пипс" in text and "выброс" in text


def test_every_word_of_a_busy_board_is_translated() -> None:
    view = replace(SAMPLES["backgammon-bearoff"], labels=RUSSIAN, status="")
    text = render_text(view)
    for word in ("Кости 6-4 (сыграно 6/выброс)", "Последний ход: Борис", "Матч до 7",
                 "куб 4", "37 пипсов"):
        assert word in text, text
    start = render_text(replace(SAMPLES["backgammon-start"], labels=RUSSIAN, status=""))
    assert "Куб 1 (в центре)" in start and "БАР" in start


def test_long_labels_keep_the_grid() -> None:
    long = BoardLabels(pips="p" * 40, off="o" * 40, cube="c" * 30)
    view = replace(SAMPLES["backgammon-bearoff"], labels=long)
    assert {len(line) for line in render_text(view).splitlines()} == {WIDTH}


@pytest.mark.parametrize("name", ["backgammon-hits", "long-midgame"])
def test_picture_draws_the_labels(name: str) -> None:
    english = render_image(SAMPLES[name])
    russian = render_image(replace(SAMPLES[name], labels=RUSSIAN))
    assert ImageChops.difference(english, russian).getbbox() is not None
    assert all(_drawable(char) for field in RUSSIAN.__slots__ if field != "pip_count"
               for char in getattr(RUSSIAN, field) if char not in " {}")


def test_english_is_the_default() -> None:
    view = SAMPLES["long-midgame"]
    assert render_text(view) == render_text(replace(view, labels=BoardLabels()))


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"pips": 3}, "BoardLabels.pips must be a string"),
    ({"match_to": "Match"}, "placeholder"),
])
def test_bad_labels(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(RenderError, match=message):
        BoardLabels(**kwargs)  # type: ignore[arg-type]
    with pytest.raises(RenderError, match="labels must be BoardLabels"):
        BoardView(SAMPLES["long-start"].position, SAMPLES["long-start"].viewer,
                  labels={"pips": "x"})  # type: ignore[arg-type]
