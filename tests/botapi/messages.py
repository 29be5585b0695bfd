"""Text messages: send, edit, delete, pin; the text and caption checks.

Texts are parsed (HTML or MarkdownV2, ``formatting.py``) and measured in
UTF-16 units after parsing (text 1-4,096, caption up to 1,024); an edit that
changes nothing is refused as "message is not modified"; only the bot's own
messages may be edited, and others' deleted only where the bot is an admin.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.botapi.core import _OWNER_STATUSES, ServerCore, _ChatState
from tests.botapi.formatting import ParseError, parse_text, strip_text, utf16_len
from tests.botapi.keyboards import _markup, _markup_in
from tests.botapi.model import JSON, Message, StoredFile, bad_request

MAX_TEXT = 4096
MAX_CAPTION = 1024
NOT_MODIFIED = ("message is not modified: specified new message content and reply markup are "
                "exactly the same as a current content and reply markup of the message")


class MessagesMixin(ServerCore):
    """sendMessage, editMessageText/Caption/ReplyMarkup, deleteMessage(s), pins, chat actions."""

    _inline_target: Callable[[JSON], Message]  # inline.py: the inline message an edit names

    def _m_send_message(self, params: JSON, files: dict[str, StoredFile]) -> JSON:
        with self._cond:
            state = self._writable(params)
            text, entities = self._text(params, "text", "entities", MAX_TEXT)
            if text is None:
                raise bad_request("message text is empty")
            return self._send(state, params, text=text, entities=entities)

    def _send(self, state: _ChatState, params: JSON, **content: Any) -> JSON:
        markup = _markup(params.get("reply_markup"), state.chat.type)
        thread_id = params.get("message_thread_id")
        if thread_id is not None:
            thread_id = int(thread_id)
            known = (state.topics if state.chat.is_forum else state.messages)
            if thread_id not in known:
                raise bad_request("message thread not found")
        reply = params.get("reply_parameters") or {}
        reply_to = params.get("reply_to_message_id") or reply.get("message_id")
        if reply_to is not None:
            target = state.messages.get(int(reply_to))
            if target is None or target.deleted:
                if not (params.get("allow_sending_without_reply")
                        or reply.get("allow_sending_without_reply")):
                    raise bad_request("message to be replied not found")
                reply_to = None
        msg = self._store(state, self.bot, reply_markup=markup, thread_id=thread_id,
                          reply_to=None if reply_to is None else int(reply_to),
                          disable_notification=bool(params.get("disable_notification")),
                          **content)
        return self._message_json(msg)

    def _text(self, params: JSON, key: str, entities_key: str, limit: int
              ) -> tuple[str | None, list[JSON]]:
        raw = params.get(key)
        if raw is None or raw == "":
            return None, []
        try:
            text, entities = parse_text(str(raw), params.get("parse_mode"))
        except ParseError as err:
            raise bad_request(f"can't parse entities: {err}") from None
        if not params.get("parse_mode") and params.get(entities_key):
            entities = list(params[entities_key])
        text, entities = strip_text(text, entities)
        for entity in entities:  # Telegram sends the whole user in a text_mention
            known = self._users.get(entity.get("user", {}).get("id"))
            if entity.get("type") == "text_mention" and known is not None:
                entity["user"] = known.to_dict()
        if not text:
            raise bad_request("message text is empty" if key == "text"
                              else "message caption is empty")
        if utf16_len(text) > limit:
            raise bad_request("message is too long" if key == "text"
                              else "message caption is too long")
        return text, entities

    def _editable(self, params: JSON, verb: str = "edit") -> tuple[_ChatState | None, Message]:
        if params.get("inline_message_id"):
            if verb != "edit":
                raise bad_request("MESSAGE_ID_INVALID")
            return None, self._inline_target(params)
        state = self._writable(params)
        message_id = params.get("message_id")
        msg = state.messages.get(int(message_id)) if message_id is not None else None
        if msg is None or msg.deleted:
            raise bad_request(f"message to {verb} not found")
        if verb == "edit" and not msg.from_bot:
            raise bad_request("message can't be edited")
        return state, msg

    def _edit(self, msg: Message, **changes: Any) -> JSON | bool:
        """Apply an edit; the edited message, or True for an inline message (the bot
        does not get to see it)."""
        if all(getattr(msg, key) == value for key, value in changes.items()):
            raise bad_request(NOT_MODIFIED)
        for key, value in changes.items():
            setattr(msg, key, value)
        msg.edits += 1
        msg.edit_date = int(self.clock())
        msg.revision = self._bump(msg.chat.id)
        if msg.inline_message_id is not None:
            return True
        return self._message_json(msg)

    def _m_edit_message_text(self, params: JSON, files: dict[str, StoredFile]) -> JSON | bool:
        with self._cond:
            state, msg = self._editable(params)
            if msg.text is None:
                raise bad_request("there is no text in the message to edit")
            text, entities = self._text(params, "text", "entities", MAX_TEXT)
            if text is None:
                raise bad_request("message text is empty")
            return self._edit(msg, text=text, entities=entities,
                              reply_markup=_markup_in(params, state))

    def _m_edit_message_caption(self, params: JSON, files: dict[str, StoredFile]
                                ) -> JSON | bool:
        with self._cond:
            state, msg = self._editable(params)
            if msg.text is not None or msg.service:
                raise bad_request("there is no caption in the message to edit")
            caption, entities = self._text(params, "caption", "caption_entities", MAX_CAPTION)
            return self._edit(msg, caption=caption, caption_entities=entities,
                              reply_markup=_markup_in(params, state))

    def _m_edit_message_reply_markup(self, params: JSON, files: dict[str, StoredFile]
                                     ) -> JSON | bool:
        with self._cond:
            state, msg = self._editable(params)
            return self._edit(msg, reply_markup=_markup_in(params, state))

    def _m_delete_message(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        with self._cond:
            state, msg = self._editable(params, "delete")
            if (state.chat.type != "private" and not msg.from_bot
                    and state.bot_status not in _OWNER_STATUSES):
                raise bad_request("message can't be deleted")
            msg.deleted = True
            msg.revision = self._bump(msg.chat.id)
            return True

    def _m_delete_messages(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        with self._cond:
            state = self._writable(params)
            for message_id in params.get("message_ids") or []:
                msg = state.messages.get(int(message_id))
                if msg is not None and not msg.deleted:
                    msg.deleted = True
                    msg.revision = self._bump(msg.chat.id)
            return True

    def _m_pin_chat_message(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        with self._cond:
            state = self._writable(params)
            msg = state.messages.get(int(params.get("message_id") or 0))
            if msg is None or msg.deleted:
                raise bad_request("message to pin not found")
            msg.pinned = True
            msg.revision = self._bump()
            return True

    def _m_unpin_chat_message(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        with self._cond:
            state = self._writable(params)
            for msg in state.messages.values():
                if params.get("message_id") in (None, msg.message_id):
                    msg.pinned = False
            self._bump()
            return True

    def _m_unpin_all_chat_messages(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        return self._m_unpin_chat_message({"chat_id": params.get("chat_id")}, files)

    def _m_send_chat_action(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        with self._cond:
            self._writable(params)
            return True

    @staticmethod
    def _markup(value: Any) -> JSON | None:
        return _markup(value)
