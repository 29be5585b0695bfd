"""Every text the code marks is translated into Russian and Lithuanian, with
the same placeholders, and the catalogs on disk are what the code uses."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from bot.vocab.i18n import LANGUAGES, LOCALES_DIR, po_path, translator

ROOT = Path(__file__).resolve().parents[3]
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None, "naming": (1,)}
_PLACEHOLDER = re.compile(r"\{(\w*)[^{}]*\}")


def _extracted() -> set[str]:
    """What ``pybabel extract -F bot/present/locales/babel.cfg -k N_`` finds in bot/."""
    method_map = [("bot/**.py", "python")]
    found = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(ROOT), method_map=method_map, keywords=KEYWORDS
    ):
        found.add(message[0] if isinstance(message, tuple) else message)
    return found


def _catalog(lang: str):  # type: ignore[no-untyped-def]
    # strict: a catalog that a merge left with a msgid and no msgstr fails here
    # (the bot's own loader is lenient and would quietly drop such texts)
    with po_path(lang).open("rb") as fh:
        return read_po(fh, locale=lang, abort_invalid=True)


def test_babel_cfg_matches_what_the_test_extracts() -> None:
    assert "[python: bot/**.py]" in (LOCALES_DIR / "babel.cfg").read_text()


def test_code_marks_texts() -> None:
    assert len(_extracted()) > 50


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_every_message_is_translated(lang: str) -> None:
    catalog = _catalog(lang)
    missing = []
    for msgid in sorted(_extracted()):
        message = catalog.get(msgid)
        strings = [] if message is None else (
            list(message.string) if isinstance(message.string, tuple) else [message.string])
        if message is None or message.fuzzy or not all(strings):
            missing.append(msgid)
    assert not missing, f"{lang}: {len(missing)} untranslated: {missing[:10]}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_placeholders_match(lang: str) -> None:
    for message in _catalog(lang):
        if not message.id or not message.string:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        expected = {name for msgid in ids for name in _PLACEHOLDER.findall(msgid)}
        for text in strings:
            if text:
                assert set(_PLACEHOLDER.findall(text)) <= expected, (lang, message.id, text)
                # a placeholder the translation drops loses information, except
                # the count in a singular form ("one point")
                assert expected - set(_PLACEHOLDER.findall(text)) <= {"n"}, (lang, message.id)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_stale_messages(lang: str) -> None:
    """Catalogs hold only what the code uses (run the update after edits)."""
    stale = {m.id if isinstance(m.id, str) else m.id[0] for m in _catalog(lang) if m.id}
    stale -= _extracted()
    assert not stale, f"{lang}: not in the code any more: {sorted(stale)[:10]}"


def test_plural_forms_follow_the_language() -> None:
    ru = translator("ru")
    assert [ru.ngettext("{n} point", "{n} points", n, n=n) for n in (1, 3, 5, 21)] == [
        "1 очко", "3 очка", "5 очков", "21 очко"]
    lt = translator("lt")
    assert [lt.ngettext("{n} point", "{n} points", n, n=n) for n in (1, 3, 10, 21)] == [
        "1 taškas", "3 taškai", "10 taškų", "21 taškas"]
