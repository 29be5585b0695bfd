"""The local Bot API's world and its bookkeeping, shared by every concern.

:class:`ServerCore` holds what all the others read: the users, the chats and
their messages, the files, the updates emitted and not yet fetched, the request
log, and one lock (every change bumps :attr:`ServerCore.revision` and wakes the
waiters).  It also gives tests their read side: snapshots (``messages``,
``requests``, ``transcript`` ...) and the waits (``wait_for``, ``wait_message``
...).  The concerns are mixins over it (``messages.py``, ``media.py``,
``callbacks.py``, ``chats.py``, ``limits.py``, ``updates.py``, ``profile.py``,
``inline.py``), composed into :class:`tests.botapi.server.BotApiServer`.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from tests.botapi.model import (
    JSON,
    PATIENCE,
    ApiError,
    Chat,
    Message,
    RequestRecord,
    StoredFile,
    Tap,
    User,
    bad_request,
    buttons,
)

T = TypeVar("T")

DEFAULT_TOKEN = "123456789:TEST-local-bot-api-token"
_OWNER_STATUSES = ("creator", "administrator")
_EVERY_CHAT = object()
_PRESENT_STATUSES = ("creator", "administrator", "member", "restricted")


class Checkable(Protocol):
    """Something the wait helpers poll to fail fast, e.g. a BotProcess that died."""

    def check(self) -> None: ...


@dataclass
class _ChatState:
    chat: Chat
    messages: dict[int, Message] = field(default_factory=dict)
    next_message_id: int = 1
    members: dict[int, str] = field(default_factory=dict)
    bot_status: str = "member"
    started: bool = True  # private chats: the user has pressed Start
    migrated_to: int | None = None
    topics: dict[int, str] = field(default_factory=dict)
    dialog: bool = False  # a private chat between two users (inline mode only)


@dataclass(eq=False)  # by identity: a redelivery is a twin of its update (issue 37)
class _Pending:
    """An update waiting for its delivery.  Two of them may hold the very same
    fields (an update redelivered twice, both posted at once): the one posted
    is the one dropped, so they compare by identity (by fields ``list.remove``
    dropped the twin and left the delivered one pending for ever)."""

    update_id: int
    payload: JSON
    forced: bool = False  # a redelivered duplicate: handed out even below the offset
    delivered: bool = False
    claimed: bool = False  # a webhook worker is posting it


def _chat_id(chat: Chat | int) -> int:
    return chat if isinstance(chat, int) else chat.id


def _revision_of(since: Any) -> int:
    return since if isinstance(since, int) else int(since.revision)


class ServerCore:
    """The state every concern shares, what tests read of it, and the waits."""

    def __init__(self, token: str | None, *, bot_username: str, bot_name: str,
                 privacy_mode: bool) -> None:
        self.token = token
        bot_id = int(token.split(":")[0]) if token and token.split(":")[0].isdigit() else 123456
        self.bot = User(bot_id, bot_name, username=bot_username, is_bot=True)
        self.privacy_mode = privacy_mode
        self.clock: Callable[[], float] = time.time
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._chat_conds: dict[int, threading.Condition] = {}
        """Per-chat conditions on the same lock, for waiters that only watch one
        chat (``wait_for(chat=...)``): a change wakes its chat's waiters, not every
        waiting thread, which with dozens of players would burn the machine's CPU."""
        self._revision = 0
        self._users: dict[int, User] = {}
        self._chats: dict[int, _ChatState] = {}
        self._files: dict[str, StoredFile] = {}
        self._file_counter = 0
        self._next_update_id = 100_000
        self._pending: list[_Pending] = []
        self._updates: list[JSON] = []
        self._allowed_updates: list[str] = []
        self._requests: list[RequestRecord] = []
        self._watched: list[Checkable] = []
        self._closing = False

    def watch(self, process: Checkable) -> None:
        """Make every wait helper call ``process.check()`` so a crashed bot fails at once."""
        with self._cond:
            self._watched.append(process)

    def unwatch(self, process: Checkable) -> None:
        """Stop checking ``process`` (a bot the test killed on purpose)."""
        with self._cond:
            self._watched.remove(process)

    @property
    def revision(self) -> int:
        """Counter bumped by every change; pass it as ``since=`` to the wait helpers."""
        with self._cond:
            return self._revision

    def users(self) -> list[User]:
        with self._cond:
            return list(self._users.values())

    def chat(self, chat_id: int) -> Chat:
        with self._cond:
            return self._state(chat_id).chat

    def messages(self, chat: Chat | int, *, include_deleted: bool = False,
                 thread_id: int | None = None) -> list[Message]:
        """Snapshots of the chat's messages (users' and the bot's) in order."""
        with self._cond:
            return [m.snapshot() for m in self._state(chat).messages.values()
                    if (include_deleted or not m.deleted)
                    and (thread_id is None or m.thread_id == thread_id)]

    def newest_message(self, chat: Chat | int, match: Callable[[Message], bool], *,
                       thread_id: int | None = None) -> Message | None:
        """A snapshot of the newest non-deleted message of the chat (in ``thread_id``)
        that satisfies ``match`` (given the live message: it must not keep it), or None.
        Cheaper than :meth:`messages` for waiting loops: only the hit is copied."""
        with self._cond:
            for m in reversed(self._state(chat).messages.values()):
                if not m.deleted and (thread_id is None or m.thread_id == thread_id) \
                        and match(m):
                    return m.snapshot()
            return None

    def message(self, chat: Chat | int, message_id: int) -> Message:
        """One message (deleted ones too); KeyError if it never existed."""
        with self._cond:
            return self._state(chat).messages[message_id].snapshot()

    def last_message(self, chat: Chat | int, *, from_bot: bool = True) -> Message | None:
        """The newest non-deleted message (of the bot, or via it, by default), or None."""
        found = [m for m in self.messages(chat) if not from_bot or m.by_bot]
        return found[-1] if found else None

    buttons = staticmethod(buttons)

    def requests(self, method: str | None = None) -> list[RequestRecord]:
        """Logged requests, optionally only of one method (case-insensitive)."""
        with self._cond:
            return [r for r in self._requests
                    if method is None or r.method.lower() == method.lower()]

    def unchanged_edits(self) -> list[RequestRecord]:
        """Edits refused as "message is not modified": a bot that suppresses
        the error still made a call Telegram refuses (and counts against the
        chat's flood limit); tests assert there are none."""
        return [r for r in self.requests() if r.status == 400
                and "message is not modified" in str(r.response.get("description", ""))]

    def request_count(self, method: str | None = None) -> int:
        return len(self.requests(method))

    def updates(self) -> list[JSON]:
        """Every update emitted so far (as JSON), in order."""
        with self._cond:
            return list(self._updates)

    def pending_updates(self) -> int:
        with self._cond:
            return len(self._pending)

    def transcript(self, chat: Chat | int | None = None) -> str:
        """Human-readable messages of one chat (or all chats) for failure messages."""
        with self._cond:
            states = [self._state(chat)] if chat is not None else list(self._chats.values())
            lines = []
            for state in states:
                lines.append(f"-- chat {state.chat.id} ({state.chat.type} "
                             f"{state.chat.title or state.chat.first_name})")
                lines += [f"   {m.describe()}" for m in state.messages.values()]
            return "\n".join(lines)

    def wait_for(self, predicate: Callable[[], T | None], timeout: float = PATIENCE, *,
                 description: str | None = None, chat: Chat | int | None = None) -> T:
        """Block until ``predicate()`` (called under the server lock) is truthy; return it.

        ``chat``: the predicate only depends on that chat's messages and taps, so
        only changes there wake it.  Raises AssertionError with a transcript after
        ``timeout`` seconds, and at once when a watched process died.
        """
        deadline = time.monotonic() + timeout
        with self._cond:
            cond = self._cond
            if chat is not None:
                cond = self._chat_conds.get(_chat_id(chat)) or self._chat_conds.setdefault(
                    _chat_id(chat), threading.Condition(self._lock))
            while True:
                for watched in self._watched:
                    watched.check()
                result = predicate()
                if result:
                    return result
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(
                        f"timed out after {timeout}s waiting for "
                        f"{description or getattr(predicate, '__name__', 'a condition')}\n"
                        f"{self.transcript()}")
                cond.wait(min(remaining, 0.2))

    def wait_message(self, chat: Chat | int, contains: str | None = None, *,
                     since: int | Message | Tap = 0, match: Callable[[Message], bool] | None = None,
                     from_bot: bool = True, timeout: float = PATIENCE) -> Message:
        """The first message in ``chat`` sent or edited after ``since`` whose text/caption
        contains ``contains`` and which satisfies ``match``; a snapshot.  ``from_bot``:
        only the bot's messages and those sent via it (inline results)."""
        after = _revision_of(since)

        def found() -> Message | None:
            for m in self._state(chat).messages.values():
                if (m.revision > after and not m.deleted and (not from_bot or m.by_bot)
                        and (contains is None or contains in m.content)
                        and (match is None or match(m))):
                    return m.snapshot()
            return None

        what = f"a message in chat {_chat_id(chat)}" + (
            f" containing {contains!r}" if contains else "") + f" after revision {after}"
        return self.wait_for(found, timeout, description=what)

    def wait_request(self, method: str, *, since: int = 0,
                     timeout: float = PATIENCE) -> RequestRecord:
        """The first ``method`` request logged after ``since`` (an index into ``requests()``)."""
        def found() -> RequestRecord | None:
            return next((r for r in self._requests[since:]
                         if r.method.lower() == method.lower()), None)

        return self.wait_for(found, timeout, description=f"a {method} request")

    async def wait_for_async(self, predicate: Callable[[], T | None], timeout: float = PATIENCE, *,
                             description: str | None = None) -> T:
        """:meth:`wait_for` for async tests (waits in a worker thread)."""
        return await asyncio.to_thread(self.wait_for, predicate, timeout,
                                       description=description)

    async def wait_message_async(self, chat: Chat | int, contains: str | None = None,
                                 **kwargs: Any) -> Message:
        """:meth:`wait_message` for async tests."""
        return await asyncio.to_thread(self.wait_message, chat, contains, **kwargs)

    def _bump(self, chat: int | object | None = _EVERY_CHAT) -> int:
        """A change: wake the waiters; ``chat`` names the only chat it touched
        (None: no chat's messages or taps), by default every chat's waiters wake."""
        self._revision += 1
        self._cond.notify_all()
        if chat is _EVERY_CHAT:
            for cond in self._chat_conds.values():
                cond.notify_all()
        elif isinstance(chat, int) and chat in self._chat_conds:
            self._chat_conds[chat].notify_all()
        return self._revision

    def _state(self, chat: Chat | int) -> _ChatState:
        try:
            return self._chats[_chat_id(chat)]
        except KeyError:
            raise ValueError(f"unknown chat {_chat_id(chat)}") from None

    def _any_member(self, state: _ChatState) -> User:
        for uid, status in state.members.items():
            if status in _PRESENT_STATUSES and uid in self._users:
                return self._users[uid]
        raise ValueError(f"chat {state.chat.id} has no members; pass by=")

    def _writable(self, params: JSON) -> _ChatState:
        """The chat of ``chat_id``, or the errors Telegram gives when the bot can't post."""
        chat_id = params.get("chat_id")
        if chat_id is None or chat_id == "":
            raise bad_request("chat_id is empty")
        state: _ChatState | None = None
        if isinstance(chat_id, str) and chat_id.startswith("@"):
            state = next((s for s in self._chats.values()
                          if s.chat.username and s.chat.username.lower() == chat_id[1:].lower()),
                         None)
        elif isinstance(chat_id, int) or (isinstance(chat_id, str) and
                                          re.fullmatch(r"-?\d+", chat_id)):
            state = self._chats.get(int(chat_id))
        if state is None:
            raise bad_request("chat not found")
        if state.migrated_to is not None:
            raise bad_request("group chat was upgraded to a supergroup chat",
                              {"migrate_to_chat_id": state.migrated_to})
        kind = state.chat.type
        if state.dialog:  # two users' chat: the bot knows nothing of it
            raise bad_request("chat not found")
        if kind == "private":
            if state.bot_status == "kicked":
                raise ApiError(403, "Forbidden: bot was blocked by the user")
            if not state.started:
                raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
        elif state.bot_status == "kicked":
            raise ApiError(403, f"Forbidden: bot was kicked from the {kind} chat")
        elif state.bot_status not in _PRESENT_STATUSES:
            raise ApiError(403, f"Forbidden: bot is not a member of the {kind} chat")
        return state

    def _store(self, state: _ChatState, sender: User, **fields: Any) -> Message:
        msg = Message(chat=state.chat, message_id=state.next_message_id, sender=sender,
                      date=int(self.clock()), **fields)
        state.next_message_id += 1
        msg.revision = msg.created_revision = self._bump(state.chat.id)
        state.messages[msg.message_id] = msg
        return msg

    def _message_json(self, msg: Message) -> JSON:
        state = self._chats.get(msg.chat.id)
        reply_id = msg.reply_to
        if reply_id is None and msg.thread_id is not None and msg.thread_id != msg.message_id:
            reply_id = msg.thread_id  # Telegram: topic messages reply to the topic's start
        reply = state.messages.get(reply_id) if state and reply_id else None
        return msg.to_dict(with_reply=reply)

    def _emit_message(self, state: _ChatState, msg: Message) -> None:
        if self._bot_sees(state, msg):
            msg.update_id = self._emit("message", self._message_json(msg), state)

    def _bot_sees(self, state: _ChatState, msg: Message) -> bool:
        if state.bot_status not in _PRESENT_STATUSES:
            return False
        if state.chat.type == "private" or not self.privacy_mode or msg.service:
            return True
        if state.bot_status in _OWNER_STATUSES:
            return True
        if msg.reply_to and (r := state.messages.get(msg.reply_to)) and r.from_bot:
            return True
        for e in msg.entities:
            if e["type"] == "bot_command":
                command = (msg.text or "").encode("utf-16-le")[
                    2 * e["offset"]:2 * (e["offset"] + e["length"])].decode("utf-16-le")
                _, _, addressee = command.partition("@")
                if not addressee or addressee.lower() == (self.bot.username or "").lower():
                    return True
        return False

    def _emit(self, kind: str, payload: JSON, state: _ChatState | None) -> int:
        self._next_update_id += 1
        update = {"update_id": self._next_update_id, kind: payload}
        self._updates.append(update)
        allowed = self._allowed_updates
        if not allowed or kind in allowed:
            self._pending.append(_Pending(self._next_update_id, update))
        self._bump(state.chat.id if state is not None else _EVERY_CHAT)
        return self._next_update_id

    def _set_bot_member(self, state: _ChatState, actor: User, status: str) -> int:
        old = state.bot_status
        state.bot_status = status
        payload = {"chat": state.chat.to_dict(), "from": actor.to_dict(),
                   "date": int(self.clock()),
                   "old_chat_member": self._member_json(self.bot, old),
                   "new_chat_member": self._member_json(self.bot, status)}
        return self._emit("my_chat_member", payload, state)

    @staticmethod
    def _member_json(user: User, status: str) -> JSON:
        data: JSON = {"status": status, "user": user.to_dict()}
        if status == "creator":
            data["is_anonymous"] = False
        elif status == "administrator":
            data.update({key: True for key in (
                "can_manage_chat", "can_delete_messages", "can_manage_video_chats",
                "can_restrict_members", "can_change_info", "can_invite_users",
                "can_post_stories", "can_edit_stories", "can_delete_stories",
                "can_pin_messages", "can_manage_topics")})
            data.update(can_be_edited=False, is_anonymous=False, can_promote_members=False)
        elif status == "restricted":
            data.update({key: False for key in (
                "can_change_info", "can_invite_users", "can_pin_messages", "can_send_messages",
                "can_send_polls", "can_send_other_messages", "can_add_web_page_previews",
                "can_manage_topics", "can_send_audios", "can_send_documents",
                "can_send_photos", "can_send_videos", "can_send_video_notes",
                "can_send_voice_notes", "can_edit_tag")})
            data.update(is_member=True, until_date=0)
        elif status == "kicked":
            data["until_date"] = 0
        return data

    def _new_file(self, data: bytes, filename: str | None, mime_type: str | None) -> StoredFile:
        with self._cond:
            self._file_counter += 1
            n = self._file_counter
        return StoredFile(f"BQACAgIAAx{n:08d}", f"AgAD{n:06d}", data, filename, mime_type)
