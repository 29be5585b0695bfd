"""The Russian and Lithuanian texts follow docs/glossary.md: the game words
are the glossary's, and a player's name (filled in as typed, nominative) is
never put where the grammar would decline it or give it a gender."""

from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po

from bot.vocab.i18n import po_path, translator

NAMES = r"\{(?:name|who|winner|loser|late|opponent|debtor|creditor|requester|other|names)\}"
"""Placeholders that hold a player's name."""
DECLINING = {
    # a preposition (or "между вами и") that wants the next word in an oblique case
    "ru": re.compile(r"(?i)(?<!\w)(?:у|с|со|от|для|к|ко|о|об|без|против|над|под|при|про|перед"
                     r"|после|между\s+\S+\s+и)\s+" + NAMES),
    "lt": re.compile(r"(?i)(?<!\w)(?:prieš|su|tarp\s+\S+\s+ir|iš|be|pas|už|apie|nuo|dėl|link)\s+"
                     + NAMES),
}
GENDERED_RU = re.compile(NAMES + r"\s+(?:\w+л(?:ся)?|должен|согласен)(?!\w)|\w\(а\)")
"""A Russian masculine past verb or short adjective right after a name, or a
"(а)" bracket: the sentence guesses the player's gender."""


def _strings(lang: str) -> list[tuple[str, str]]:
    with po_path(lang).open("rb") as fh:
        catalog = read_po(fh, locale=lang)
    found = []
    for message in catalog:
        if not message.id:
            continue
        msgid = message.id if isinstance(message.id, str) else message.id[0]
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        found += [(msgid, text) for text in strings if text]
    return found


@pytest.mark.parametrize("lang", sorted(DECLINING))
def test_names_stay_in_the_nominative(lang: str) -> None:
    bad = [(msgid, text) for msgid, text in _strings(lang) if DECLINING[lang].search(text)]
    assert not bad, bad


def test_russian_texts_do_not_guess_a_gender() -> None:
    bad = [(msgid, text) for msgid, text in _strings("ru") if GENDERED_RU.search(text)]
    assert not bad, bad


GLOSSARY = {
    # msgid: (ru, lt) — the board's words and the buttons, as in docs/glossary.md
    "pips": ("пипсов", "liko"),
    "Pips: {white} – {black}": ("Пипсы: {white} – {black}", "Liko eiti: {white} – {black}"),
    "off": ("выброс", "išmesta"),
    "bar": ("бар", "juosta"),
    "Last:": ("Последний ход:", "Paskutinis ėjimas:"),
    "to move": ("ходит", "eina"),
    "Dice": ("Кости", "Kauliukai"),
    "Cube": ("Куб", "Kubas"),
    "Roll": ("Бросить", "Mesti"),
    "Double": ("Удвоить", "Dvigubinti"),
    "Take": ("Принять", "Priimti"),
    "Pass": ("Отказаться", "Atsisakyti"),
    "Undo": ("Вернуть ход", "Grąžinti ėjimą"),
    "Confirm": ("Подтвердить", "Patvirtinti"),
    "Rematch": ("Реванш", "Revanšas"),
    "on time": ("по времени", "baigėsi laikas"),
    "oin": ("ойн", "oinas"),
    "mars": ("марс", "marsas"),
    "koks": ("кокс", "koksas"),
    "gammon": ("гаммон", "gamonas"),
}


@pytest.mark.parametrize("lang", ["ru", "lt"])
def test_game_words_are_the_glossarys(lang: str) -> None:
    tr = translator(lang)
    column = 0 if lang == "ru" else 1
    got = {msgid: tr.gettext(msgid) for msgid in GLOSSARY}
    assert got == {msgid: words[column] for msgid, words in GLOSSARY.items()}


@pytest.mark.parametrize(("lang", "cancel_stem"), [("ru", "отмен"), ("lt", "atšauk")])
def test_undo_is_not_the_word_for_cancelling_the_game(lang: str, cancel_stem: str) -> None:
    tr = translator(lang)
    assert cancel_stem in tr.gettext("Propose to cancel the game").lower()
    assert cancel_stem not in tr.gettext("Undo").lower()


TAKE_BACK = re.compile(r"(?i)^undo$|\bturns? back\b")
"""English texts about taking a turn back (the Undo button, the one-tap take-back)."""


@pytest.mark.parametrize(("lang", "undo_stem", "cancel_stem"),
                         [("ru", "верн", "отмен"), ("lt", "grąžin", "atšauk")])
def test_taking_a_turn_back_is_always_undos_word(lang: str, undo_stem: str,
                                                 cancel_stem: str) -> None:
    """Every text about taking a turn back says it with Undo's verb (ru
    "вернуть ход", lt "grąžinti ėjimą"), never the verb of cancelling the game."""
    found = [(msgid, text) for msgid, text in _strings(lang) if TAKE_BACK.search(msgid)]
    assert len(found) >= 3  # Undo, the take-back button, its refusal
    bad = [(msgid, text) for msgid, text in found
           if undo_stem not in text.lower() or cancel_stem in text.lower()]
    assert not bad, bad


REJECTED = {
    # a word the glossary chose against, and the glossary's word for the thing
    "ru": {r"зерн": "сид (seed): зерно reads as grain"},
    "lt": {r"atspaud": "kontrolinis kodas (the seed's fingerprint)",
           r"(?<!\w)punkt": "laukelis (a point of the board)",
           r"priešinink": "varžovas (the opponent)",
           r"apskait": "žurnalas (the ledger)"},
}
"""Synonyms of glossary words: one text with a synonym makes players wonder
whether it is a different thing (docs/glossary.md)."""


@pytest.mark.parametrize("lang", sorted(REJECTED))
def test_no_synonyms_of_glossary_words(lang: str) -> None:
    bad = [(msgid, text, REJECTED[lang][word]) for msgid, text in _strings(lang)
           for word in REJECTED[lang] if re.search(word, text, re.I)]
    assert not bad, bad
