"""A text names a button as that button reads (issue 35): never by the word
itself, always by a placeholder of :data:`bot.vocab.i18n.BUTTONS` (``tap
{join}``), filled by ``Translator.naming`` with the label in the language of
the keyboard the button is on.  A Russian alert about an English lobby then
says «✋ Join», not «Играю»; a catalog entry that spells a button out (the
way those slipped through) fails here."""

from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po

from bot.present.keyboards import KeyboardBuilder, join_keyboard
from bot.vocab.i18n import BUTTONS, LANGUAGES, po_path, translator

TELEGRAMS_START = {
    "Open our private chat (tap my name, then Start) and tap {verify} again: the dice "
    "check goes there.",
    "Open a private chat with me first ({link}, tap Start), then send /invite again.",
}
"""Texts that name Telegram's own Start button (the client labels it in its
user's language), not one of ours."""
DESCRIBES_EVERY_BUTTON = "<b>Buttons</b>"
"""The /rules page that describes the board's buttons one by one (left to the
game-flow change that rewrites it; it names them in the reader's language)."""
QUOTES = {"ru": r"«([^»]*)»", "lt": r"„([^“]*)“"}


def _entries(lang: str) -> list[tuple[str, str]]:
    with po_path(lang).open("rb") as fh:
        catalog = read_po(fh, locale=lang)
    return [(m.id if isinstance(m.id, str) else m.id[0],
             m.string if isinstance(m.string, str) else m.string[0])
            for m in catalog if m.id]


def _words(lang: str) -> set[str]:
    """Each button's label in ``lang``, with and without its mark."""
    tr = translator(lang)
    return {tr.label(name) for name in BUTTONS} | {tr.gettext(text) for _, text in
                                                   BUTTONS.values()}


@pytest.mark.parametrize("lang", ["ru", "lt"])
def test_no_translation_spells_a_button_out(lang: str) -> None:
    words = _words(lang)
    spelled = [(msgid, quoted) for msgid, text in _entries(lang)
               if msgid not in TELEGRAMS_START and not msgid.startswith(DESCRIBES_EVERY_BUTTON)
               for quoted in re.findall(QUOTES[lang], text) if quoted in words]
    assert not spelled, spelled


def test_no_english_text_spells_a_button_out() -> None:
    labels = "|".join(re.escape(translator("en").gettext(text)) for _, text in BUTTONS.values())
    named = re.compile(rf"\b(?:[Tt]aps?|with|for|[Oo]pen)\s+(?:\S+\s)?(?:{labels})\b")
    marked = [translator("en").label(name) for name, (mark, _) in BUTTONS.items() if mark]
    spelled = [msgid for msgid, _ in _entries("ru")
               if msgid not in TELEGRAMS_START and not msgid.startswith(DESCRIBES_EVERY_BUTTON)
               and (named.search(msgid) or any(label in msgid for label in marked))]
    assert not spelled, spelled


@pytest.mark.parametrize("lang", LANGUAGES)
def test_keyboards_draw_the_buttons_texts_name(lang: str) -> None:
    """The labels a text names are the ones the keyboards draw (one table)."""
    tr = translator(lang)
    keys = KeyboardBuilder(tr, "g1", 1)
    drawn = {b.text for row in keys.lobby(["a", "b"], 0, computer=True).inline_keyboard
             for b in row}
    drawn |= {b.text for row in keys.start(close=True).inline_keyboard for b in row}
    drawn |= {b.text for row in join_keyboard(tr, "x").inline_keyboard for b in row}
    assert {tr.label("join"), tr.label("start")} <= drawn


def test_a_text_names_a_button_in_its_keyboards_language() -> None:
    ru, en = translator("ru"), translator("en")
    text = ru.naming("Someone is waiting for a second player here: tap {join} to play them.",
                     en)
    assert "«✋ Join»" in text and "Играю" not in text
    assert ru.naming("You play {name}: tap {start} on your board in the group.", ru,
                     name="Ann").endswith("«▶ Начать» на своей доске в группе.")


def test_a_button_placeholder_left_unfilled_fails_loudly() -> None:
    with pytest.raises(KeyError):
        translator("ru").gettext("Someone is waiting for a second player here: tap {join} to "
                                 "play them.")
