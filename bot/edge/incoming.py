"""An update as Telegram sent it, before python-telegram-bot builds objects of it.

Two things are cheaper on the update's JSON than on PTB's objects:

- its **identity** (:func:`identity_of`: the update id and a digest of its
  content, what its marker and journal are keyed by, bot/edge/ops.py).  It
  used to be a digest of ``Update.to_dict()``, which walks every object PTB
  made of the update (a tap's message with its board's keyboard: ~0.23 ms a
  delivery, duplicates included); now it is a digest of the JSON itself, with
  the values that PTB's ``to_dict`` adds or drops left out (false flags, empty
  values), so an ``Update`` without its JSON (a test's, one put on the queue
  in process) gets the same identity (:func:`identity`);
- the tapped message's **keyboard** is cut to the tapped button
  (:func:`trim`): a board's message carries tens of buttons, which PTB turned
  into objects for every tap, while a handler asks only whether the tapped
  button is on it (bot/edge/handlers/common.py ``drawn_here``).

The webhook (bot/edge/web.py) has each update's JSON at hand; in polling mode
:class:`PollingRequest` (the ``getUpdates`` client) notes each update's
identity as it arrives and trims it before PTB reads the answer, and
:func:`polled_identity` hands the identity to the update processor.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from typing import Any

from telegram import Update

from bot.edge.http import AiohttpRequest

KEPT = 1000
"""Identities :class:`PollingRequest` keeps for updates not handled yet (a
getUpdates answer holds at most 100)."""


def _content(value: Any) -> Any:
    """``value`` without false flags and empty values, at every depth: what PTB's
    ``to_dict`` adds (``group_chat_created: false``, ...) or drops (``None``)."""
    if isinstance(value, dict):
        return {key: _content(item) for key, item in value.items()
                if item is not False and item is not None and item != [] and item != {}}
    if isinstance(value, list):
        return [_content(item) for item in value]
    return value


def identity_of(data: dict[str, Any]) -> str:
    """The identity of the update whose JSON is ``data``: ``<update id>:<digest>``.

    >>> tap = {"update_id": 7, "callback_query": {"id": "1", "chat_instance": "3",
    ...        "from": {"id": 2, "is_bot": False, "first_name": "A"}, "data": "g:x:1:r"}}
    >>> identity_of(tap) == identity(Update.de_json(tap, None))
    True
    >>> identity_of(tap) == identity_of({**tap, "callback_query": {
    ...     **tap["callback_query"], "id": "9"}})
    False
    >>> identity_of(tap).split(":")[0]
    '7'
    """
    content = json.dumps(_content(data), sort_keys=True, separators=(",", ":"), default=str)
    return f"{data['update_id']}:{hashlib.sha256(content.encode()).hexdigest()[:16]}"


def identity(update: Update) -> str:
    """:func:`identity_of` an ``Update`` object (its JSON made again: slower)."""
    return identity_of(update.to_dict())


def trim(data: dict[str, Any]) -> bool:
    """Cut the keyboard of a tapped message in ``data`` (an update's JSON) to the
    tapped button (no button when it is not on it); True if anything was cut.

    >>> row = [{"text": "1", "callback_data": "a"}, {"text": "2", "callback_data": "b"}]
    >>> tap = {"update_id": 1, "callback_query": {"id": "1", "data": "b", "message": {
    ...     "message_id": 5, "reply_markup": {"inline_keyboard": [row, row]}}}}
    >>> trim(tap), tap["callback_query"]["message"]["reply_markup"]
    (True, {'inline_keyboard': [[{'text': '2', 'callback_data': 'b'}]]})
    >>> trim(tap)
    False
    """
    query = data.get("callback_query")
    message = query.get("message") if isinstance(query, dict) else None
    markup = message.get("reply_markup") if isinstance(message, dict) else None
    rows = markup.get("inline_keyboard") if isinstance(markup, dict) else None
    if not isinstance(query, dict) or not isinstance(markup, dict) or not isinstance(rows, list) \
            or sum(len(row) for row in rows if isinstance(row, list)) < 2:
        return False
    tapped = query.get("data")
    button = next((b for row in rows if isinstance(row, list) for b in row
                   if isinstance(b, dict) and tapped is not None
                   and b.get("callback_data") == tapped), None)
    markup["inline_keyboard"] = [[button]] if button is not None else []
    return True


class PollingRequest(AiohttpRequest):
    """The ``getUpdates`` client: notes each update's identity from its JSON
    (:attr:`identities`, taken by :func:`polled_identity`) and trims it
    (:func:`trim`) before PTB reads the answer."""

    def __init__(self, connection_pool_size: int = 1, **timeouts: Any) -> None:
        super().__init__(connection_pool_size, **timeouts)
        self.identities: OrderedDict[int, str] = OrderedDict()

    async def do_request(self, url: str, method: str, *args: Any, **kwargs: Any
                         ) -> tuple[int, bytes]:
        status, body = await super().do_request(url, method, *args, **kwargs)
        if not (200 <= status < 300 and url.endswith("/getUpdates")):
            return status, body
        try:
            answer = json.loads(body)
            updates = answer["result"]
            trimmed = False
            for data in updates:
                self.identities[data["update_id"]] = identity_of(data)
                trimmed |= trim(data)
        except (ValueError, KeyError, TypeError):
            return status, body  # PTB reports what it cannot read
        while len(self.identities) > KEPT:
            self.identities.popitem(last=False)
        return status, (json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode()
                        if trimmed else body)


def polled_identity(app: Any, update: Update) -> str | None:
    """The identity :class:`PollingRequest` noted for ``update`` (None: it did not
    come by this application's polling)."""
    requests = app.bot_data.get("http", ())
    for request in requests:
        if isinstance(request, PollingRequest):
            return request.identities.pop(update.update_id, None)
    return None
