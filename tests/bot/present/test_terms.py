"""Rolling the dice and bearing off are never the same word (issue 26).

Russian "выбросить" and Lithuanian "išmesti" mean both "to roll (a number)"
and "to bear off", and the bot once wrote "Выброшено: …" / "Išmesta: …" for
the dice beside a tray labelled "выброс" / "išmesta".  Now each idea has its
own words (docs/glossary.md): bearing off is ru "выбросить / выброс", lt
"išmesti / išmesta" (the long nardy rules' "šaškės išmetimas iš lentos");
the dice are ru "бросить / бросок / выпало", lt "mesti / metimas / iškrito"
(the rules' "iškritusį kauliuką").  A word of one idea in the translation of
a text that is not about it fails here."""

from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po

from bot.vocab.i18n import po_path

BEAR_OFF = {"ru": re.compile(r"выбр[ао]с|выброш", re.I),
            "lt": re.compile(r"išme[st]|išmet", re.I)}
"""The stems that mean bearing off, per language."""
DICE = {"ru": re.compile(r"выпа[лд]|(?<!вы)брос", re.I),
        "lt": re.compile(r"iškri|(?<![a-ząčęėįšųūž])(mesti|meta|mestas|metim|metam)", re.I)}
"""The stems that mean rolling the dice, per language."""
ABOUT_OFF = re.compile(r"\boff\b|\bbear|\bborne", re.I)
ABOUT_DICE = re.compile(r"\broll|\bdice\b|\bdie\b|\bdouble\b|{dice}|^seen$", re.I)
"""English texts about the dice ("seen": the legend of /dice's chart of rolls)."""


def _messages(lang: str) -> list[tuple[str, list[str]]]:
    with po_path(lang).open("rb") as fh:
        catalog = read_po(fh, locale=lang)
    found = []
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        found.append((" ".join(ids), [s for s in strings if s]))
    return found


@pytest.mark.parametrize("lang", ["ru", "lt"])
def test_rolling_and_bearing_off_never_share_a_word(lang: str) -> None:
    wrong = []
    for english, strings in _messages(lang):
        for text in strings:
            if BEAR_OFF[lang].search(text) and not ABOUT_OFF.search(english):
                wrong.append(("bear-off word, not about bearing off", english, text))
            if DICE[lang].search(text) and not ABOUT_DICE.search(english):
                wrong.append(("dice word, not about the dice", english, text))
            if ABOUT_DICE.search(english) and not ABOUT_OFF.search(english) \
                    and BEAR_OFF[lang].search(text):
                wrong.append(("the dice in a bear-off word", english, text))
    assert not wrong, "\n".join(map(repr, wrong))


@pytest.mark.parametrize("lang", ["ru", "lt"])
def test_both_ideas_have_their_words(lang: str) -> None:
    """The patterns above are live: the tray says bearing off, the roll
    texts say rolling."""
    texts = dict(_messages(lang))
    assert BEAR_OFF[lang].search(texts["off"][0])
    assert DICE[lang].search(texts["Rolled: {parts}"][0])
    assert DICE[lang].search(texts["Roll"][0])
