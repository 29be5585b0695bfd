"""Translations: gettext catalogs read from the ``.po`` files at run time.

The catalogs live in ``bot/present/locales/<lang>/LC_MESSAGES/messages.po`` and are
compiled in memory when first used, so no binary ``.mo`` file is kept in git.
Code marks text with ``_`` / ``ngettext`` on a :class:`Translator` (the
handlers bind ``_ = tr.gettext``) or with :func:`N_` for text defined before a
language is known; ``pybabel extract -F bot/present/locales/babel.cfg`` finds them all.
Placeholders use ``str.format`` names and are filled after translation.

>>> tr = translator("ru")
>>> tr.gettext("Roll")
'Бросить'
>>> translator("lt").ngettext("{n} point", "{n} points", 3, n=3)
'3 taškai'
>>> pick_language("ru-RU"), pick_language("de"), pick_language(None)
('ru', 'en', 'en')
"""

from __future__ import annotations

import functools
import gettext as _gettext
import io
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LOCALES_DIR = Path(__file__).resolve().parents[1] / "present" / "locales"
"""The catalogs are what the user reads, so they stay with the presentation."""
DOMAIN = "messages"
LANGUAGES = ("en", "ru", "lt")
"""Languages the bot speaks; the first is the fallback."""
DEFAULT_LANGUAGE = LANGUAGES[0]
LANGUAGE_NAMES = {"en": "English", "ru": "Русский", "lt": "Lietuvių"}


def N_(message: str) -> str:
    """Mark ``message`` for extraction; it is translated later with ``tr.gettext``."""
    return message


def pick_language(code: str | None) -> str:
    """Our language for a Telegram ``language_code`` (``ru``, ``lt``, else English)."""
    if not code:
        return DEFAULT_LANGUAGE
    base = code.split("-")[0].split("_")[0].lower()
    return base if base in LANGUAGES else DEFAULT_LANGUAGE


def po_path(lang: str) -> Path:
    return LOCALES_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def _catalog(lang: str) -> _gettext.NullTranslations:
    path = po_path(lang)
    if not path.exists():
        return _gettext.NullTranslations()
    with path.open("rb") as fh:
        catalog = read_po(fh, locale=lang)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return _gettext.GNUTranslations(buf)


class Translator:
    """Text in one language."""

    __slots__ = ("_catalog", "lang")

    def __init__(self, lang: str) -> None:
        self.lang = lang if lang in LANGUAGES else DEFAULT_LANGUAGE
        self._catalog = _catalog(self.lang)

    def gettext(self, message: str, /, **values: object) -> str:
        text = self._catalog.gettext(message)
        return text.format(**values) if values else text

    def ngettext(self, singular: str, plural: str, n: int, /, **values: object) -> str:
        text = self._catalog.ngettext(singular, plural, n)
        return text.format(**values) if values else text


@functools.cache
def translator(lang: str | None) -> Translator:
    return Translator(pick_language(lang))
