"""The board as issue 14 asked for it: the band and the ``>`` mark whoever must
act, the caption shows the turn played (not the opening roll) once there is
one, the steps of the turn in progress are marked, plural pip counts and the
board's own words for bar and off, and a text board that fits a phone."""

from __future__ import annotations

import pickle
import random

import pytest

from bot.present.board import board_message, board_view, viewer_of
from bot.present.names import board_labels
from bot.present.render import render_text
from bot.present.render.text import MARK, WIDTH
from bot.rules.matchstate import table_of
from bot.vocab.i18n import LANGUAGES, translator
from engine import Game, Phase, Side, Variant
from engine.game import GameOptions
from engine.scoring import ResultKind
from tests.bot.present.test_board_style import _midgames, _random_step, _record, _Scripted

EN = translator("en")
PHONE = 32
"""Monospace characters a phone's message bubble shows on a 360-px screen."""


def _after_first_turn(variant: Variant = Variant.BACKGAMMON) -> Game:
    options = GameOptions.long() if variant is Variant.LONG else GameOptions.backgammon()
    game = Game.new(options).roll(_Scripted(6, 1) if variant is Variant.BACKGAMMON
                                  else _Scripted(6, 1, 6, 5))
    rng = random.Random(2)
    while game.turn is not None and not game.turn.is_complete:
        game = game.play_step(_random_step(game, rng))
    return game.confirm()


def _marked_side(text: str) -> Side:
    """The side whose player line carries the ``>`` mark."""
    marked = [line for line in text.splitlines() if line.startswith(">")]
    assert len(marked) == 1, text
    return next(side for side in Side if MARK[side] in marked[0][:4])


def test_the_band_marks_the_answerer_of_a_double_and_a_resignation_offer() -> None:
    game = _after_first_turn()
    doubler = game.to_act
    assert doubler is not None
    doubled = game.double(doubler)
    record = _record(doubled)
    view = board_view(EN, record, table_of(record), viewer_of(doubled))
    assert view.actor is doubler.opponent and view.turn is doubler
    assert _marked_side(render_text(view)) is doubler.opponent
    offered = game.offer_resignation(doubler, ResultKind.SINGLE)
    record = _record(offered)
    text = board_message(EN, record, style="text").text.replace("&gt;", ">")
    assert _marked_side(text) is doubler.opponent


def test_the_caption_shows_the_turn_played_once_there_is_one() -> None:
    game = Game.new(GameOptions.backgammon()).roll(_Scripted(6, 1))
    assert "Opening roll:" in board_message(EN, _record(game)).text
    game = _after_first_turn()
    caption = board_message(EN, _record(game)).text
    assert "Opening roll:" not in caption and " played 6-1: " in caption, caption


@pytest.mark.parametrize("variant", list(Variant))
def test_the_steps_of_the_turn_in_progress_are_marked(variant: Variant) -> None:
    rng = random.Random(9)
    for game in _midgames(variant, seed=6, count=20):
        if game.turn is None or not game.turn.legal_steps:
            continue
        step = _random_step(game, rng)
        played = game.play_step(step)
        record = _record(played)
        view = board_view(EN, record, table_of(record), viewer_of(played))
        assert view.current == tuple(played.turn.played)  # type: ignore[union-attr]
        text = render_text(view)
        assert f"(played {step.source}/" in text.replace("bar/", "25/")
        return
    pytest.fail("no game to play a step in")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_text_board_fits_a_phone_in_every_language(lang: str) -> None:
    tr = translator(lang)
    for variant in Variant:
        for game in _midgames(variant, seed=8, count=10):
            record = _record(game, names=("Aleksandras Žemaitis", "Ольга Владимировна"))
            text = render_text(board_view(tr, record, table_of(record), viewer_of(game)))
            widths = {len(line) for line in text.splitlines()}
            assert widths == {WIDTH} and WIDTH <= PHONE, (lang, widths)
    assert WIDTH <= PHONE


@pytest.mark.parametrize(("lang", "counts"), [
    ("en", {1: "1 pip", 2: "2 pips", 161: "161 pips"}),
    ("ru", {161: "161 пипс", 162: "162 пипса", 167: "167 пипсов", 111: "111 пипсов"}),
    ("lt", {161: "161 liko", 167: "167 liko"}),
])
def test_pip_counts_take_the_plural_form(lang: str, counts: dict[int, str]) -> None:
    labels = board_labels(translator(lang))
    assert {n: labels.pip_count(n) for n in counts} == counts
    # the painter draws in other processes: the labels must pickle
    assert pickle.loads(pickle.dumps(labels)).pip_count(162) == labels.pip_count(162)


@pytest.mark.parametrize("lang", ["ru", "lt"])
def test_bar_and_off_in_notation_are_the_board_words(lang: str) -> None:
    """The "Last:" line and the caption write the bar and off in the
    chat's language, never the English notation words."""
    tr = translator(lang)
    labels = board_labels(tr)
    rng = random.Random(3)
    seen = set()
    for _ in range(400):
        game = Game.new(GameOptions.backgammon()).roll(rng)
        while not game.is_over and len(seen) < 2:
            if game.phase is Phase.ROLL:
                game = game.roll(rng)
            elif game.turn is not None and game.turn.is_complete:
                steps = game.turn.played
                game = game.confirm()
                if game.is_over:
                    break
                words = {w for s in steps for w, p in ((labels.bar, s.source), (labels.off,
                         s.target)) if p in (25, 0)}
                if words - seen:
                    seen |= words
                    text = board_message(tr, _record(game), style="text").text
                    assert all(word in text for word in words), text
                    assert "bar/" not in text and "/off" not in text, text
            elif game.phase is Phase.MOVE:
                game = game.play_step(_random_step(game, rng))
            else:
                break
        if len(seen) == 2:
            return
    pytest.fail(f"only saw {seen}")

