"""Button taps: the callback query a tap makes, and its one answer.

A tap needs the button on the message now (``strict=False``: a stale
keyboard); an inline message's tap carries ``inline_message_id``, not the
message.  ``answerCallbackQuery`` is taken once per query, within
``callback_query_timeout`` when one is set, with a text of at most 200
UTF-16 units.
"""

from __future__ import annotations

from typing import Any

from tests.botapi.core import ServerCore
from tests.botapi.formatting import utf16_len
from tests.botapi.model import JSON, Answer, Chat, StoredFile, Tap, User, bad_request

MAX_ANSWER_TEXT = 200
QUERY_TOO_OLD = "query is too old and response timeout expired or query ID is invalid"


class CallbacksMixin(ServerCore):
    """user_taps and answerCallbackQuery."""

    def _init_callbacks(self) -> None:
        self.callback_query_timeout: float | None = None  # seconds; None = never expires
        self._queries: dict[str, tuple[Tap, float]] = {}
        self._query_counter = 0

    def user_taps(self, chat: Chat | int, user: User, message: int | Any,
                  data: str | None = None, *, text: str | None = None,
                  strict: bool = True) -> Tap:
        """The user taps an inline button of ``message`` (id, or a stored or PTB Message) by
        callback ``data`` or by button ``text``.

        ``strict`` requires the button to be on the message now; ``strict=False`` simulates a
        tap on a stale keyboard.  Returns a :class:`Tap` to wait for the bot's answer.
        """
        with self._cond:
            state = self._state(chat)
            message_id = int(getattr(message, "message_id", message))  # ours or PTB's Message
            msg = state.messages.get(message_id)
            if msg is None or msg.deleted:
                raise ValueError(f"no message {message_id} in chat {state.chat.id}")
            current = [b for row in msg.buttons for b in row]
            if text is not None:
                found = [d for t, d in current if t == text]
                if not found:
                    raise ValueError(f"no button {text!r} on message {message_id}: {current}")
                data = found[0]
            if data is None:
                raise ValueError("user_taps needs callback data or a button text")
            if strict and data not in [d for _, d in current]:
                raise ValueError(f"no button with data {data!r} on message {message_id}: "
                                 f"{current}")
            self._query_counter += 1
            query_id = f"{self.bot.id}{self._query_counter:010d}"
            query = {"id": query_id, "from": user.to_dict(),
                     "chat_instance": str(abs(state.chat.id) * 7 + 1), "data": data}
            if msg.inline_message_id is not None:  # the bot knows neither chat nor message
                query["inline_message_id"] = msg.inline_message_id
            else:
                query["message"] = self._message_json(msg)
            update_id = self._emit("callback_query", query, state)
            queued = self.clock()
            tap = Tap(self, query_id, update_id, data, self._revision, queued, state.chat.id)
            self._queries[query_id] = (tap, queued)
            return tap

    def _m_answer_callback_query(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        with self._cond:
            entry = self._queries.get(str(params.get("callback_query_id")))
            if entry is None or entry[0].answer is not None:
                raise bad_request(QUERY_TOO_OLD)
            tap, created = entry
            if (self.callback_query_timeout is not None
                    and self.clock() - created > self.callback_query_timeout):
                raise bad_request(QUERY_TOO_OLD)
            text = params.get("text")
            if text is not None and utf16_len(str(text)) > MAX_ANSWER_TEXT:
                raise bad_request("MESSAGE_TOO_LONG")
            tap._set_answer(Answer(None if text is None else str(text),
                                   bool(params.get("show_alert")), params.get("url"),
                                   params.get("cache_time")))
            self._bump(tap.chat_id)
            return True
