"""Translations: gettext catalogs read from the ``.po`` files at run time.

The catalogs live in ``bot/present/locales/<lang>/LC_MESSAGES/messages.po`` and are
compiled in memory when first used, so no binary ``.mo`` file is kept in git.
Code marks text with ``_`` / ``ngettext`` on a :class:`Translator` (the
handlers bind ``_ = tr.gettext``) or with :func:`N_` for text defined before a
language is known; ``pybabel extract -F bot/present/locales/babel.cfg`` finds them all.
Placeholders use ``str.format`` names and are filled after translation.

A text that names one of our buttons says so with a placeholder from
:data:`BUTTONS` (``"tap {join}"``, never ``"tap Join"``), filled by
:meth:`Translator.naming` with the label *as the button's keyboard reads
it*: the keyboard's translator is a required argument, so a Russian alert
about an English lobby says «✋ Join», the button the player sees.

>>> tr = translator("ru")
>>> tr.gettext("Roll")
'Бросить'
>>> translator("lt").ngettext("{n} point", "{n} points", 3, n=3)
'3 taškai'
>>> pick_language("ru-RU"), pick_language("de"), pick_language(None)
('ru', 'en', 'en')
>>> translator("ru").naming("Tap {join}: the first two to join play each other.",
...                         translator("en"))
'Нажмите «✋ Join»: играют первые двое, кто нажмёт.'
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


BUTTONS: dict[str, tuple[str, str]] = {
    "join": ("✋ ", N_("Join")),
    "start": ("▶ ", N_("Start")),
    "verify": ("🎲 ", N_("Verify")),
    "confirm": ("✓ ", N_("Confirm")),
    "more": ("⋯ ", N_("More")),
    "next_game": ("", N_("Next game")),
    "app": ("📱 ", N_("Open the board app")),
}
"""The buttons a text may name: placeholder -> (mark, label).  The keyboards
draw these buttons with :meth:`Translator.label`, and a text names one only as
``{placeholder}`` (tests/bot/vocab/test_button_names.py)."""
_BUTTON_FIELDS = tuple("{" + name + "}" for name in BUTTONS)


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
        if not values and "{" in message and any(field in message for field in _BUTTON_FIELDS):
            raise KeyError(f"name its buttons with Translator.naming: {message!r}")
        text = self._catalog.gettext(message)
        return text.format(**values) if values else text

    def label(self, button: str) -> str:
        """The label of the button ``button`` (a key of :data:`BUTTONS`) in this language."""
        mark, text = BUTTONS[button]
        return mark + self._catalog.gettext(text)

    def naming(self, message: str, buttons: Translator, /, **values: object) -> str:
        """``message`` in this language, each button it names (``{join}`` ...)
        as it reads on the keyboard drawn in ``buttons``' language."""
        named = {name: buttons.label(name) for name, field in zip(BUTTONS, _BUTTON_FIELDS,
                                                                   strict=True)
                 if field in message}
        return self.gettext(message, **named, **values)

    def ngettext(self, singular: str, plural: str, n: int, /, **values: object) -> str:
        text = self._catalog.ngettext(singular, plural, n)
        return text.format(**values) if values else text


@functools.cache
def translator(lang: str | None) -> Translator:
    return Translator(pick_language(lang))
