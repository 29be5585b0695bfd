"""The group board of a game both players play in the Mini App says so (issue 34):
one line in the board's language that names the 📱 button as it reads on that
board, only while the game goes on, within Telegram's caption limit."""

from __future__ import annotations

import random

import pytest

from bot.present import board
from bot.present.board import board_message
from bot.present.webapp import WebappLinks, app_button
from bot.vocab.i18n import LANGUAGES, translator
from bot.vocab.records import Status
from bot.vocab.usertext import CAPTION_LIMIT, visible_length
from engine import Game, Phase, Variant
from tests.bot.present.test_board_end import _options, _play, _record

SAID = {"en": "📱 Played live in the board app: tap 📱 Open the board app to watch.",
        "ru": "📱 Партия идёт вживую в приложении: нажмите «📱 Открыть доску в приложении», "
              "чтобы смотреть.",
        "lt": "📱 Partija žaidžiama gyvai programėlėje: spauskite „📱 Atverti lentą "
              "programėlėje“, kad stebėtumėte."}


def _playing() -> Game:
    rng = random.Random(7)
    return _play(Game.new(_options(Variant.BACKGAMMON)), rng,
                 lambda game: game.phase is Phase.ROLL)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("style", ["text", "png"])
def test_the_board_says_the_game_is_played_live_in_the_app(lang: str, style: str) -> None:
    tr = translator(lang)
    record = _record(_playing(), Status.ACTIVE)
    live = board_message(tr, record, style=style, live=True).text
    assert live.splitlines()[-1] == SAID[lang]
    # the button it names is the one the board carries, as it reads there
    button = app_button(tr, WebappLinks("https://example.org/app", "nardybot", "board"), -1,
                        record.game_id, private=False)
    assert button.text in live
    assert SAID[lang] not in board_message(tr, record, style=style).text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_final_board_never_says_it(lang: str) -> None:
    rng = random.Random(5)
    over = _play(Game.new(_options(Variant.BACKGAMMON)), rng,
                 lambda game: False)
    assert over.is_over
    text = board_message(translator(lang), _record(over, Status.FINISHED), live=True).text
    assert "📱" not in text


def test_a_caption_too_long_drops_the_line_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """The caption keeps to Telegram's limit; short of room, the live line (the 📱
    button stays) goes first, before the turns told, the facts and the clock."""
    record = _record(_playing(), Status.ACTIVE)
    ru = translator("ru")
    full = board_message(ru, record).text
    assert visible_length(board_message(ru, record, live=True).text) <= CAPTION_LIMIT
    monkeypatch.setattr(board, "CAPTION_LIMIT", visible_length(full) + 10)
    assert board_message(ru, record, live=True).text == full
