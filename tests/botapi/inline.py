"""Inline mode of the local Bot API: inline queries, chosen results, inline messages.

Mixed into :class:`tests.botapi.server.BotApiServer` (beside the other concerns, over
:class:`tests.botapi.core.ServerCore`).  The flow Telegram has:

1. A user types ``@bot <query>`` in some chat (:meth:`InlineMode.user_inline_query`):
   the bot gets an ``inline_query`` update (the chat's *type* only, never its id)
   and answers with ``answerInlineQuery``, checked as strictly as Telegram does.
2. The user picks a result (:meth:`InlineMode.user_chooses_inline_result`): the
   result's message appears in that chat, sent by the user "via @bot".  The bot
   does not receive it as a chat message; if it has a keyboard it gets an
   ``inline_message_id``, and with inline feedback on (@BotFather
   ``/setinlinefeedback``) the bot gets a ``chosen_inline_result`` update.
3. Taps on its buttons (``user_taps`` as usual) carry ``inline_message_id`` and
   ``chat_instance`` instead of ``message``; the bot edits it with
   ``editMessageText/Caption/ReplyMarkup/Media`` and ``inline_message_id``
   (they answer ``True``, not the message).  Editing an inline message's media
   cannot upload a new file: only a ``file_id`` or an HTTP URL.

Inline mode is off until :meth:`InlineMode.set_inline` (@BotFather ``/setinline``),
as for a new bot; ``getMe`` says ``supports_inline_queries`` accordingly.
"""

from __future__ import annotations

import re
import threading
import urllib.request
from typing import TYPE_CHECKING, Any

from tests.botapi.model import (
    JSON,
    Chat,
    InlineAnswer,
    InlineQuery,
    Message,
    StoredFile,
    User,
    bad_request,
)

if TYPE_CHECKING:
    from tests.botapi.core import _ChatState

MAX_RESULTS = 50
MAX_RESULT_ID = 64  # bytes
MAX_QUERY = 256  # characters a client sends
MAX_OFFSET = 64  # bytes of next_offset
INLINE_UPLOAD = ("can't upload a new file when editing an inline message: use the file_id of a "
                 "file uploaded before, or an HTTP URL")
"""Our wording of the real rule (Telegram refuses such an edit)."""
_RESULT_TYPES = ("article", "photo")
_START_PARAMETER = re.compile(r"[A-Za-z0-9_-]{1,64}")


class InlineMode:
    """Inline queries and inline messages (see the module doc)."""

    # provided by BotApiServer
    _cond: threading.Condition
    _revision: int
    bot: User
    clock: Any

    def _init_inline(self) -> None:
        self.inline_enabled = False
        """@BotFather ``/setinline``: users may type ``@bot …`` in any chat."""
        self.inline_placeholder: str | None = None
        self.inline_feedback = False
        """@BotFather ``/setinlinefeedback``: ``chosen_inline_result`` updates are sent."""
        self.inline_query_timeout: float | None = None
        """Seconds after which answerInlineQuery is too late (None: never)."""
        self._inline_queries: dict[str, InlineQuery] = {}
        self._inline_messages: dict[str, Message] = {}
        self._inline_counter = 0
        self._next_dialog_id = 7_000_001

    # ------------------------------------------------------------------ set-up

    def set_inline(self, enabled: bool = True, *, placeholder: str | None = None) -> None:
        """Turn inline mode on or off, as @BotFather's ``/setinline`` does."""
        with self._cond:
            self.inline_enabled = enabled
            self.inline_placeholder = placeholder

    def set_inline_feedback(self, enabled: bool = True) -> None:
        """@BotFather's ``/setinlinefeedback``: send ``chosen_inline_result`` updates
        (Telegram also allows a percentage; here it is all or nothing)."""
        with self._cond:
            self.inline_feedback = enabled

    def user_chat(self, first: User, second: User) -> Chat:
        """A private chat between two users, which the bot is not in: it cannot post
        there (400 chat not found) and sees nothing of it; inline mode works there."""
        from tests.botapi.core import _ChatState

        with self._cond:
            chat_id = self._next_dialog_id
            self._next_dialog_id += 1
            chat = Chat(chat_id, "private", first_name=f"{first.first_name} & {second.first_name}")
            state = _ChatState(chat, members={first.id: "member", second.id: "member"},
                               bot_status="left", dialog=True)
            self._chats[chat_id] = state  # type: ignore[attr-defined]
            self._bump()  # type: ignore[attr-defined]
            return chat

    # ------------------------------------------------------------------ user actions

    def user_inline_query(self, chat: Chat | int, user: User, query: str, *,
                          offset: str = "") -> InlineQuery:
        """``user`` types ``@bot <query>`` in ``chat``: an ``inline_query`` update.

        ValueError while inline mode is off (Telegram shows nothing then) or for a
        query longer than a client sends.  Returns an :class:`InlineQuery` to wait
        for the bot's answer."""
        with self._cond:
            if not self.inline_enabled:
                raise ValueError("inline mode is off for this bot (@BotFather /setinline)")
            if len(query) > MAX_QUERY:
                raise ValueError(f"an inline query has at most {MAX_QUERY} characters")
            state: _ChatState = self._state(chat)  # type: ignore[attr-defined]
            if state.chat.type != "private" and state.members.get(user.id) not in (
                    "creator", "administrator", "member", "restricted"):
                state.members[user.id] = "member"
            if state.dialog:
                if user.id not in state.members:
                    raise ValueError(f"user {user.id} is not in chat {state.chat.id}")
                chat_type = "private"
            elif state.chat.type == "private":
                chat_type = "sender" if state.chat.id == user.id else "private"
            else:
                chat_type = state.chat.type
            self._inline_counter += 1
            query_id = f"{self.bot.id}{self._inline_counter:09d}7"
            payload = {"id": query_id, "from": user.to_dict(), "query": query, "offset": offset,
                       "chat_type": chat_type}
            update_id = self._emit("inline_query", payload, state)  # type: ignore[attr-defined]
            handle = InlineQuery(self, query_id, update_id, user, state.chat.id, query,
                                 self._revision, self.clock())
            self._inline_queries[query_id] = handle
            return handle

    def user_chooses_inline_result(self, query: InlineQuery, title: str | None = None, *,
                                   id: str | None = None) -> Message:
        """The user taps a result of the bot's answer (by title or id): its message
        is sent into the query's chat "via @bot" (see the module doc).  Returns a
        snapshot of it; its ``inline_message_id`` is set when it has a keyboard."""
        with self._cond:
            answer = query.answer
            if answer is None:
                raise ValueError(f"the bot has not answered {query!r}")
            result = answer.result(title, id=id)
            state: _ChatState = self._state(query.chat_id)  # type: ignore[attr-defined]
            fields: dict[str, Any] = {}
            content = result.get("input_message_content")
            if content is not None:
                fields["text"], fields["entities"] = self._text(  # type: ignore[attr-defined]
                    _as_text(content), "text", "entities", 4096)
            else:  # a photo result
                fields["photo"] = self._result_photo(result)
                fields["caption"], fields["caption_entities"] = self._text(  # type: ignore[attr-defined]
                    result, "caption", "caption_entities", 1024)
            markup = result.get("reply_markup")
            inline_id = None
            if markup:
                self._inline_counter += 1
                inline_id = f"AgAAA{self._inline_counter:07d}{abs(state.chat.id) % 9973:04d}Qx"
            msg = self._store(state, query.user, via_bot=self.bot,  # type: ignore[attr-defined]
                              reply_markup=markup, inline_message_id=inline_id, **fields)
            if inline_id is not None:
                self._inline_messages[inline_id] = msg
            if self.inline_feedback:
                chosen: JSON = {"result_id": result["id"], "from": query.user.to_dict(),
                                "query": query.query}
                if inline_id is not None:
                    chosen["inline_message_id"] = inline_id
                self._emit("chosen_inline_result", chosen, state)  # type: ignore[attr-defined]
            return msg.snapshot()

    # ------------------------------------------------------------------ inspection

    def inline_message(self, inline_message_id: str) -> Message:
        """A snapshot of the message sent from an inline result; KeyError if none."""
        with self._cond:
            return self._inline_messages[inline_message_id].snapshot()

    def inline_messages(self) -> list[Message]:
        """Snapshots of every message sent from an inline result with a keyboard."""
        with self._cond:
            return [m.snapshot() for m in self._inline_messages.values()]

    # ------------------------------------------------------------------ internals

    def _inline_target(self, params: JSON) -> Message:
        """The inline message an edit names, or Telegram's error."""
        if params.get("chat_id") not in (None, "") or params.get("message_id") not in (None, ""):
            raise bad_request("chat_id and message_id must be empty with inline_message_id")
        msg = self._inline_messages.get(str(params.get("inline_message_id")))
        if msg is None or msg.deleted:
            raise bad_request("MESSAGE_ID_INVALID")
        return msg

    def _inline_media(self, value: Any, files: dict[str, StoredFile]) -> StoredFile:
        """The picture of an inline message's media edit: a known file_id or a URL,
        never an upload."""
        if files or not isinstance(value, str) or value.startswith("attach://"):
            raise bad_request(INLINE_UPLOAD)
        if re.match(r"https?://", value):
            return self._fetch(value)
        stored = self._files.get(value)  # type: ignore[attr-defined]
        if stored is None:
            raise bad_request("wrong file identifier/HTTP URL specified")
        return stored  # type: ignore[no-any-return]

    def _fetch(self, url: str) -> StoredFile:
        """A picture Telegram would download: here only from this machine."""
        if not re.match(r"https?://(127\.0\.0\.1|localhost)[:/]", url):
            raise bad_request("wrong file identifier/HTTP URL specified")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:  # loopback only, see above
                data = response.read()
        except OSError:
            raise bad_request("failed to get HTTP URL content") from None
        from tests.botapi.media import _with_image_size

        stored = _with_image_size(self._new_file(data, None, "image/png"))  # type: ignore[attr-defined]
        self._files[stored.file_id] = stored  # type: ignore[attr-defined]
        return stored

    def _result_photo(self, result: JSON) -> StoredFile:
        if "photo_file_id" in result:
            stored = self._files.get(str(result["photo_file_id"]))  # type: ignore[attr-defined]
            if stored is None:
                raise bad_request("wrong file identifier/HTTP URL specified")
            return stored  # type: ignore[no-any-return]
        return self._fetch(str(result.get("photo_url")))

    def _m_answer_inline_query(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        from tests.botapi.callbacks import QUERY_TOO_OLD

        with self._cond:
            handle = self._inline_queries.get(str(params.get("inline_query_id")))
            if handle is None or handle.answer is not None:
                raise bad_request(QUERY_TOO_OLD)
            if (self.inline_query_timeout is not None
                    and self.clock() - handle.queued_at > self.inline_query_timeout):
                raise bad_request(QUERY_TOO_OLD)
            results = params.get("results")
            if not isinstance(results, list):
                raise bad_request("can't parse inline query results JSON object")
            if len(results) > MAX_RESULTS:
                raise bad_request("RESULTS_TOO_MUCH")
            seen: set[str] = set()
            for result in results:
                self._check_result(result, seen)
            cache_time = params.get("cache_time", 300)
            if isinstance(cache_time, bool) or not isinstance(cache_time, int) or cache_time < 0:
                raise bad_request("CACHE_TIME_INVALID")
            next_offset = str(params.get("next_offset") or "")
            if len(next_offset.encode()) > MAX_OFFSET:
                raise bad_request("NEXT_OFFSET_INVALID")
            button = params.get("button")
            if button is not None:
                _check_button(button)
            handle._set_answer(InlineAnswer(list(results), cache_time,
                                            bool(params.get("is_personal")), next_offset,
                                            button))
            self._bump(handle.chat_id)  # type: ignore[attr-defined]
            return True

    def _check_result(self, result: Any, seen: set[str]) -> None:
        if not isinstance(result, dict):
            raise bad_request("can't parse inline query result")
        rid = result.get("id")
        if not isinstance(rid, str) or not 1 <= len(rid.encode()) <= MAX_RESULT_ID:
            raise bad_request("RESULT_ID_INVALID")
        if rid in seen:
            raise bad_request("RESULT_ID_DUPLICATE")
        seen.add(rid)
        kind = result.get("type")
        if kind not in _RESULT_TYPES:
            raise bad_request(f"unsupported inline query result type {kind!r} "
                              f"(the local server knows {', '.join(_RESULT_TYPES)})")
        content = result.get("input_message_content")
        if kind == "article":
            if not str(result.get("title") or "").strip():
                raise bad_request("RESULT_TITLE_EMPTY")
            if not isinstance(content, dict):
                raise bad_request("MESSAGE_EMPTY")
        elif "photo_file_id" in result:
            self._result_photo(result)
        elif not re.match(r"https?://", str(result.get("photo_url") or "")) \
                or not re.match(r"https?://", str(result.get("thumbnail_url") or "")):
            raise bad_request("PHOTO_INVALID")
        if content is not None:
            if not isinstance(content, dict) or "message_text" not in content:
                raise bad_request("unsupported input_message_content (the local server knows "
                                  "InputTextMessageContent)")
            text, _ = self._text(_as_text(content), "text", "entities",  # type: ignore[attr-defined]
                                 4096)
            if text is None:
                raise bad_request("MESSAGE_EMPTY")
        elif kind == "photo":
            self._text(result, "caption", "caption_entities", 1024)  # type: ignore[attr-defined]
        self._markup(result.get("reply_markup"))  # type: ignore[attr-defined]


def _as_text(content: JSON) -> JSON:
    """An InputTextMessageContent as sendMessage's text parameters."""
    return {"text": content.get("message_text"), "parse_mode": content.get("parse_mode"),
            "entities": content.get("entities")}


def _check_button(button: Any) -> None:
    """An InlineQueryResultsButton: text and exactly one of web_app / start_parameter."""
    if not isinstance(button, dict) or not str(button.get("text") or "").strip():
        raise bad_request("BUTTON_TEXT_INVALID")
    has_start, has_app = "start_parameter" in button, "web_app" in button
    if has_start == has_app:
        raise bad_request("BUTTON_TYPE_INVALID")
    if has_start and not _START_PARAMETER.fullmatch(str(button["start_parameter"])):
        raise bad_request("START_PARAM_INVALID")
