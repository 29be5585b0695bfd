"""The Mini App's button on a board, and the game payload it carries.

A ``web_app`` button works only in a private chat with the bot; a group's board
gets a URL button to the Direct Link Mini App
``https://t.me/<bot>/<app>?startapp=<payload>`` instead (shared/TELEGRAM.md).
Without ``WEBAPP_URL`` there is no button (:data:`LINKS` stays None).

The payload names the chat and the game: ``<chat>_<game id>``, the chat's id
with ``n`` for its minus sign (``A-Z a-z 0-9 _ -`` only, as Telegram requires).
Knowing it lets a user *see* that game, read-only unless seated: exactly what
the group's board shows to anyone who has the button, and the game id is 48
random bits, so a payload cannot be guessed (docs/miniapp.md#security).

>>> payload(-100123, "k3Xa9_zQ"), game_of("n100123_k3Xa9_zQ")
('n100123_k3Xa9_zQ', (-100123, 'k3Xa9_zQ'))
>>> game_of("n1_")
Traceback (most recent call last):
...
bot.present.webapp.PayloadError: not a game payload
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from bot.vocab.i18n import Translator

_PAYLOAD = re.compile(r"(n?)([0-9]{1,20})_([A-Za-z0-9_-]{1,32})")


class PayloadError(ValueError):
    """A start parameter that names no game."""


@dataclass(frozen=True)
class WebappLinks:
    """Where the Mini App lives: its public HTTPS ``url`` (``WEBAPP_URL``), its short
    name at @BotFather (``WEBAPP_NAME``) and the bot's username (for t.me links)."""

    url: str
    name: str
    bot_username: str

    def direct(self, chat_id: int, game_id: str) -> str:
        return f"https://t.me/{self.bot_username}/{self.name}?startapp={payload(chat_id, game_id)}"

    def page(self, chat_id: int, game_id: str) -> str:
        return f"{self.url}/?game={quote(payload(chat_id, game_id))}"


LINKS: WebappLinks | None = None
"""Set once at start-up when ``WEBAPP_URL`` is (bot/edge/app.py); None: no button."""


def payload(chat_id: int, game_id: str) -> str:
    return f"{'n' if chat_id < 0 else ''}{abs(chat_id)}_{game_id}"


def game_of(value: str) -> tuple[int, str]:
    """The (chat id, game id) a payload names, else :class:`PayloadError`."""
    found = _PAYLOAD.fullmatch(value or "")
    if found is None:
        raise PayloadError("not a game payload")
    sign, digits, game_id = found.groups()
    return (-int(digits) if sign else int(digits)), game_id


def app_button(tr: Translator, links: WebappLinks, chat_id: int, game_id: str, *,
               private: bool) -> InlineKeyboardButton:
    """📱 Board: a ``web_app`` button in a private chat, else the Direct Link (also
    in a private chat when ``WEBAPP_URL`` is plain http: a browser test's address)."""
    text = tr.label("app")
    if private and links.url.startswith("https://"):  # Telegram opens web_app only over HTTPS
        return InlineKeyboardButton(text, web_app=WebAppInfo(links.page(chat_id, game_id)))
    return InlineKeyboardButton(text, url=links.direct(chat_id, game_id))


def with_app_button(tr: Translator, markup: InlineKeyboardMarkup | None, chat_id: int,
                    game_id: str, *, private: bool,
                    links: WebappLinks | None = None) -> InlineKeyboardMarkup | None:
    """``markup`` with the app's button as its last row (unchanged without ``LINKS``)."""
    links = links if links is not None else LINKS
    if links is None:
        return markup
    rows = [list(row) for row in markup.inline_keyboard] if markup is not None else []
    rows.append([app_button(tr, links, chat_id, game_id, private=private)])
    return InlineKeyboardMarkup(rows)
