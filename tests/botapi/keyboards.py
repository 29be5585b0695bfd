"""Inline keyboards as strictly as Telegram takes them, for messages and inline results.

At most 100 buttons, 8 a row, each with a text and exactly one kind;
``callback_data`` of 1-64 bytes, ``url`` http(s) or tg; a ``web_app`` button
only in a private chat, with an HTTPS URL (the Mini App's rule).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from tests.botapi.model import JSON, bad_request

if TYPE_CHECKING:
    from tests.botapi.core import _ChatState

MAX_CALLBACK_DATA = 64
MAX_ROW_BUTTONS = 8
MAX_BUTTONS = 100
BUTTON_KINDS = ("callback_data", "url", "web_app", "login_url", "switch_inline_query",
                "switch_inline_query_current_chat", "switch_inline_query_chosen_chat",
                "copy_text", "callback_game", "pay")


def _markup(value: Any, chat_type: str | None = None) -> JSON | None:
    """A validated reply_markup (None when absent), or Telegram's errors for bad buttons.

    ``chat_type``: the chat it goes to (None: an inline message); a ``web_app``
    button works only in a private chat (elsewhere BUTTON_TYPE_INVALID), and its
    URL must be HTTPS, as must a Mini App's (shared/TELEGRAM.md)."""
    if value is None or value == "":
        return None
    if not isinstance(value, dict):
        raise bad_request("can't parse reply keyboard markup JSON object")
    rows = value.get("inline_keyboard", [])
    if sum(len(row) for row in rows if isinstance(row, list)) > MAX_BUTTONS:
        raise bad_request("reply markup is too long")
    for row in rows:
        if not isinstance(row, list):
            raise bad_request("can't parse inline keyboard button: InlineKeyboardButton "
                              "must be an Object")
        if len(row) > MAX_ROW_BUTTONS:
            raise bad_request("BUTTONS_TOO_MUCH")
        for button in row:
            if not str(button.get("text") or "").strip():
                raise bad_request("text buttons are unallowed in the inline keyboard")
            data = button.get("callback_data")
            if data is not None and not 1 <= len(str(data).encode("utf-8")) <= MAX_CALLBACK_DATA:
                raise bad_request("BUTTON_DATA_INVALID")
            url = button.get("url")
            if url is not None and not re.match(r"(https?|tg)://", str(url)):
                raise bad_request("BUTTON_URL_INVALID")
            if sum(kind in button for kind in BUTTON_KINDS) != 1:
                raise bad_request("can't find field with a button kind in InlineKeyboardButton")
            if "web_app" in button:
                app = button["web_app"]
                if chat_type != "private":
                    raise bad_request("BUTTON_TYPE_INVALID")
                if not isinstance(app, dict) or not re.match(r"https://[^/\s]+",
                                                             str(app.get("url") or "")):
                    raise bad_request("BUTTON_URL_INVALID")
    return value


def _markup_in(params: JSON, state: _ChatState | None) -> JSON | None:
    """The edit's reply_markup validated for the message's chat (None: an inline message)."""
    return _markup(params.get("reply_markup"), None if state is None else state.chat.type)
