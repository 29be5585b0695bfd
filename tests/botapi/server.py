"""A local HTTP server that speaks the Telegram Bot API, for end-to-end tests and benchmarks.

The real bot process talks to it through python-telegram-bot's ``base_url``; test code drives
a simulated world of users and chats (``user_sends``, ``user_taps``...) and asserts on what
the bot did (``wait_message``, ``messages``, ``requests``).  Everything test-facing is
thread-safe.  See tests/botapi/README.md for a walk-through.
"""

from __future__ import annotations

import asyncio
import http.client
import io
import ipaddress
import json
import math
import re
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol, TypeVar
from urllib.parse import parse_qsl, unquote, urlsplit

from tests.botapi.formatting import ParseError, command_entities, parse_text, strip_text, utf16_len
from tests.botapi.inline import InlineMode
from tests.botapi.model import (
    JSON,
    PATIENCE,
    Answer,
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
MAX_TEXT = 4096
MAX_CAPTION = 1024
MAX_CALLBACK_DATA = 64
MAX_ANSWER_TEXT = 200
MAX_ROW_BUTTONS = 8
MAX_BUTTONS = 100
NOT_MODIFIED = ("message is not modified: specified new message content and reply markup are "
                "exactly the same as a current content and reply markup of the message")
QUERY_TOO_OLD = "query is too old and response timeout expired or query ID is invalid"

# Methods a flood rule or rate limit applies to unless told otherwise.
SENDING_METHODS = frozenset({
    "sendmessage", "sendphoto", "senddocument", "editmessagetext", "editmessagecaption",
    "editmessagemedia", "editmessagereplymarkup", "deletemessage", "answercallbackquery",
    "sendchataction", "pinchatmessage",
})
# Parameters that are plain strings even when they look like JSON ("123", "true").
_STRING_PARAMS = frozenset({
    "text", "caption", "callback_query_id", "url", "secret_token", "parse_mode", "action",
    "language_code", "description", "short_description", "name", "inline_message_id",
    "ip_address", "emoji", "title", "file_id", "photo", "document", "query",
    "inline_query_id", "next_offset",
})
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


@dataclass
class _Pending:
    update_id: int
    payload: JSON
    forced: bool = False  # a redelivered duplicate: handed out even below the offset
    delivered: bool = False
    claimed: bool = False  # a webhook worker is posting it


@dataclass
class _FloodRule:
    retry_after: int
    times: int | None
    methods: frozenset[str]
    chat_id: int | None


@dataclass
class _Fault:
    status: int
    description: str
    times: int | None
    methods: frozenset[str]
    chat_id: int | None


@dataclass
class _RateLimit:
    max_calls: int
    period: float
    per_chat: bool
    methods: frozenset[str]
    calls: dict[Any, deque[float]] = field(default_factory=dict)


@dataclass(frozen=True)
class WebhookDelivery:
    """One POST of an update to the bot's webhook."""

    update_id: int
    status: int  # HTTP status, 0 when the connection failed
    seconds: float
    error: str | None = None


def _chat_id(chat: Chat | int) -> int:
    return chat if isinstance(chat, int) else chat.id


def _revision_of(since: Any) -> int:
    return since if isinstance(since, int) else int(since.revision)


class BotApiServer(InlineMode):
    """The simulated Bot API.  ``with BotApiServer() as server:`` starts it on a free port.

    ``token`` is the one token accepted (None accepts any); requests with another get 401.
    ``privacy_mode`` mirrors Telegram's default: in groups where the bot is not an admin it
    only receives commands, replies to its own messages and service messages.
    """

    def __init__(self, token: str | None = DEFAULT_TOKEN, *, bot_username: str = "nardy_test_bot",
                 bot_name: str = "Nardy Test", privacy_mode: bool = True,
                 host: str = "127.0.0.1", port: int = 0) -> None:
        self.token = token
        bot_id = int(token.split(":")[0]) if token and token.split(":")[0].isdigit() else 123456
        self.bot = User(bot_id, bot_name, username=bot_username, is_bot=True)
        self.privacy_mode = privacy_mode
        self.clock: Callable[[], float] = time.time
        self.callback_query_timeout: float | None = None  # seconds; None = never expires
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self.delivered_at: dict[int, float] = {}
        """Update id -> server clock time getUpdates first handed it to the bot."""
        self._chat_conds: dict[int, threading.Condition] = {}
        """Per-chat conditions on the same lock, for waiters that only watch one
        chat (``wait_for(chat=...)``): a change wakes its chat's waiters, not every
        waiting thread, which with dozens of players would burn the machine's CPU."""
        self._revision = 0
        self._users: dict[int, User] = {}
        self._chats: dict[int, _ChatState] = {}
        self._files: dict[str, StoredFile] = {}
        self._file_counter = 0
        self._next_user_id = 1_000_001
        self._next_group_id = 4_000_001
        self._next_update_id = 100_000
        self._pending: list[_Pending] = []
        self._updates: list[JSON] = []
        self._queries: dict[str, tuple[Tap, float]] = {}
        self._query_counter = 0
        self._requests: list[RequestRecord] = []
        self._commands: dict[tuple[str, str], list[JSON]] = {}
        self._bot_settings: dict[tuple[str, str], JSON] = {}
        self._allowed_updates: list[str] = []
        self._poll_generation = 0
        self._webhook: JSON | None = None
        self._webhook_generation = 0
        self._webhook_error: tuple[int, str] | None = None
        self.webhook_deliveries: list[WebhookDelivery] = []
        self.webhook_targets: list[str] = []
        """Roots (``http://127.0.0.1:PORT``) to spread webhook deliveries over in turn,
        like a load balancer in front of several workers; empty: the webhook URL's own."""
        self._webhook_turn = 0
        self._floods: list[_FloodRule] = []
        self._faults: list[_Fault] = []
        self._rate_limits: list[_RateLimit] = []
        self._watched: list[Checkable] = []
        self._closing = False
        self._init_inline()
        self._methods: dict[str, Callable[[JSON, dict[str, StoredFile]], Any]] = {
            name[len("_m_"):].replace("_", ""): getattr(self, name)
            for name in dir(self) if name.startswith("_m_")
        }
        self._host = host
        self._httpd = _HTTPServer((host, port), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.api = self  # type: ignore[attr-defined]
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle

    @property
    def url(self) -> str:
        """The server root for ``TELEGRAM_API_URL``, e.g. ``http://127.0.0.1:40123``."""
        return f"http://{self._host}:{self._httpd.server_port}"

    @property
    def base_url(self) -> str:
        """PTB's ``base_url`` for this server."""
        return f"{self.url}/bot"

    @property
    def base_file_url(self) -> str:
        """PTB's ``base_file_url`` for this server."""
        return f"{self.url}/file/bot"

    def start(self) -> BotApiServer:
        if self._thread is None:
            self._thread = threading.Thread(target=self._httpd.serve_forever,
                                            kwargs={"poll_interval": 0.05},
                                            name="botapi-server", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; pending long polls return at once, webhook workers end."""
        with self._cond:
            self._closing = True
            self._webhook_generation += 1
            self._cond.notify_all()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> BotApiServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def __aenter__(self) -> BotApiServer:
        return self.start()

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self.stop)

    def watch(self, process: Checkable) -> None:
        """Make every wait helper call ``process.check()`` so a crashed bot fails at once."""
        with self._cond:
            self._watched.append(process)

    # ------------------------------------------------------------------ world set-up

    def add_user(self, first_name: str = "User", *, username: str | None = None,
                 language_code: str | None = "en", last_name: str | None = None,
                 id: int | None = None) -> User:
        """A new user (not yet in any chat)."""
        with self._cond:
            if id is None:
                id = self._next_user_id
                self._next_user_id += 1
            user = User(id, first_name, username=username, language_code=language_code,
                        last_name=last_name)
            self._users[id] = user
            return user

    def private_chat(self, user: User, *, started: bool = True) -> Chat:
        """The user's private chat with the bot; ``started=False``: the bot may not write first."""
        with self._cond:
            state = self._chats.get(user.id)
            if state is None:
                state = _ChatState(Chat.private(user), members={user.id: "member"},
                                   started=started)
                self._chats[user.id] = state
            return state.chat

    def add_group(self, title: str = "Group", *, members: Iterable[User] = (),
                  admins: Iterable[User] = (), owner: User | None = None,
                  supergroup: bool = False, forum: bool = False, username: str | None = None,
                  bot_status: str = "member", id: int | None = None) -> Chat:
        """A group (or supergroup; ``forum=True`` implies one) the bot is already in."""
        supergroup = supergroup or forum
        with self._cond:
            if id is None:
                n = self._next_group_id
                self._next_group_id += 1
                id = -(1_000_000_000_000 + n) if supergroup else -n
            chat = Chat(id, "supergroup" if supergroup else "group", title=title,
                        username=username, is_forum=forum)
            state = _ChatState(chat, bot_status=bot_status)
            for user in members:
                state.members[user.id] = "member"
            for user in admins:
                state.members[user.id] = "administrator"
            if owner is not None:
                state.members[owner.id] = "creator"
            self._chats[id] = state
            self._bump()
            return chat

    def create_topic(self, chat: Chat | int, name: str, *, by: User | None = None) -> int:
        """A forum topic; returns its message_thread_id (and emits the service message)."""
        with self._cond:
            state = self._state(chat)
            if not state.chat.is_forum:
                raise ValueError(f"chat {state.chat.id} is not a forum")
            sender = by or self._any_member(state)
            msg = self._store(state, sender, service={
                "forum_topic_created": {"name": name, "icon_color": 7322096}})
            msg.thread_id = msg.message_id
            state.topics[msg.message_id] = name
            self._emit_message(state, msg)
            return msg.message_id

    def set_member_status(self, chat: Chat | int, user: User, status: str) -> None:
        """Set a user's status (creator/administrator/member/restricted/left/kicked), no update."""
        with self._cond:
            self._state(chat).members[user.id] = status
            self._bump()

    def set_admins(self, chat: Chat | int, *users: User) -> None:
        """Make exactly ``users`` administrators (the creator stays creator)."""
        with self._cond:
            state = self._state(chat)
            for uid, status in list(state.members.items()):
                if status == "administrator":
                    state.members[uid] = "member"
            for user in users:
                state.members[user.id] = "administrator"
            self._bump()

    def set_bot_status(self, chat: Chat | int, status: str) -> None:
        """Set the bot's own status in a chat silently (e.g. "administrator")."""
        with self._cond:
            self._state(chat).bot_status = status
            self._bump()

    # ------------------------------------------------------------------ user actions

    def user_sends(self, chat: Chat | int, user: User, text: str, *,
                   thread_id: int | None = None, reply_to: int | Message | None = None) -> Message:
        """The user writes ``text``; commands get bot_command entities like in Telegram."""
        with self._cond:
            state = self._state(chat)
            if state.chat.type == "private":
                state.started = True
            elif state.members.get(user.id) not in _PRESENT_STATUSES:
                state.members[user.id] = "member"
            reply_id = reply_to.message_id if isinstance(reply_to, Message) else reply_to
            if thread_id is not None and state.chat.is_forum and thread_id not in state.topics:
                raise ValueError(f"no topic {thread_id} in chat {state.chat.id}")
            msg = self._store(state, user, text=text, entities=command_entities(text),
                              thread_id=thread_id, reply_to=reply_id)
            self._emit_message(state, msg)
            return msg.snapshot()

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

    def member_joins(self, chat: Chat | int, user: User, *, by: User | None = None) -> Message:
        """``user`` joins (or is added by ``by``): a new_chat_members service message."""
        with self._cond:
            state = self._state(chat)
            state.members[user.id] = "member"
            msg = self._store(state, by or user,
                              service={"new_chat_members": [user.to_dict()],
                                       "new_chat_member": user.to_dict(),
                                       "new_chat_participant": user.to_dict()})
            self._emit_message(state, msg)
            return msg.snapshot()

    def member_leaves(self, chat: Chat | int, user: User, *, kicked_by: User | None = None
                      ) -> Message:
        """``user`` leaves (or is kicked): a left_chat_member service message."""
        with self._cond:
            state = self._state(chat)
            state.members[user.id] = "kicked" if kicked_by else "left"
            msg = self._store(state, kicked_by or user,
                              service={"left_chat_member": user.to_dict(),
                                       "left_chat_participant": user.to_dict()})
            self._emit_message(state, msg)
            return msg.snapshot()

    def add_bot(self, chat: Chat | int, *, by: User, status: str = "member") -> int:
        """Someone adds the bot to a chat: a my_chat_member update; returns its update_id."""
        with self._cond:
            state = self._state(chat)
            update_id = self._set_bot_member(state, by, status)
            if state.chat.type != "private":
                msg = self._store(state, by, service={"new_chat_members": [self.bot.to_dict()],
                                                      "new_chat_member": self.bot.to_dict(),
                                                      "new_chat_participant": self.bot.to_dict()})
                self._emit_message(state, msg)
            return update_id

    def kick_bot(self, chat: Chat | int, *, by: User | None = None) -> int:
        """The bot is removed (group) or blocked (private): my_chat_member, then 403 on send."""
        with self._cond:
            state = self._state(chat)
            actor = by or self._any_member(state)
            return self._set_bot_member(state, actor, "kicked")

    def user_blocks_bot(self, user: User) -> int:
        """The user blocks the bot in their private chat (``kick_bot`` of the private chat)."""
        return self.kick_bot(self.private_chat(user), by=user)

    def migrate_chat(self, chat: Chat | int, *, by: User | None = None) -> Chat:
        """Upgrade a group to a supergroup: the old id then answers 400 with migrate_to_chat_id.

        Emits the two service messages Telegram sends (migrate_to_chat_id in the old chat,
        migrate_from_chat_id in the new one).  Messages are not carried over.
        """
        with self._cond:
            old = self._state(chat)
            if old.chat.type != "group":
                raise ValueError("only groups migrate")
            n = self._next_group_id
            self._next_group_id += 1
            new_chat = Chat(-(1_000_000_000_000 + n), "supergroup", title=old.chat.title)
            new = _ChatState(new_chat, members=dict(old.members), bot_status=old.bot_status)
            self._chats[new_chat.id] = new
            actor = by or self._any_member(old)
            msg = self._store(old, actor, service={"migrate_to_chat_id": new_chat.id})
            self._emit_message(old, msg)
            old.migrated_to = new_chat.id
            msg = self._store(new, actor, service={"migrate_from_chat_id": old.chat.id})
            self._emit_message(new, msg)
            return new_chat

    def redeliver(self, update_id: int) -> None:
        """Queue an already sent update again, same update_id, even if it was confirmed."""
        with self._cond:
            payload = next((u for u in self._updates if u["update_id"] == update_id), None)
            if payload is None:
                raise ValueError(f"no update {update_id}")
            self._pending.append(_Pending(update_id, payload, forced=True))
            self._bump()

    # ------------------------------------------------------------------ faults

    def flood(self, retry_after: int = 1, *, times: int | None = 1,
              methods: Iterable[str] | None = None, chat: Chat | int | None = None) -> None:
        """The next ``times`` matching calls (None: all, until ``clear_floods``) answer 429."""
        with self._cond:
            names = frozenset(m.lower() for m in methods) if methods else SENDING_METHODS
            self._floods.append(_FloodRule(retry_after, times, names,
                                           None if chat is None else _chat_id(chat)))

    def fail(self, status: int = 502, description: str = "Bad Gateway", *, times: int | None = 1,
             methods: Iterable[str] | None = None, chat: Chat | int | None = None) -> None:
        """The next ``times`` matching calls (None: all, until ``clear_floods``) fail with
        ``status`` before doing anything, as Telegram's front end does when it is in
        trouble (502/500/504).  ``methods``: those Bot API methods (any case) only;
        default every method."""
        with self._cond:
            names = frozenset(m.lower() for m in methods) if methods else frozenset()
            self._faults.append(_Fault(status, description, times, names,
                                       None if chat is None else _chat_id(chat)))

    def rate_limit(self, max_calls: int, period: float, *, per_chat: bool = True,
                   methods: Iterable[str] | None = None) -> None:
        """At most ``max_calls`` matching calls per ``period`` seconds (per chat or overall);
        the excess answers 429 with the retry_after that would have made it fit."""
        with self._cond:
            names = frozenset(m.lower() for m in methods) if methods else SENDING_METHODS
            self._rate_limits.append(_RateLimit(max_calls, period, per_chat, names))

    def clear_floods(self) -> None:
        with self._cond:
            self._floods.clear()
            self._faults.clear()
            self._rate_limits.clear()

    # ------------------------------------------------------------------ inspection

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

    def request_count(self, method: str | None = None) -> int:
        return len(self.requests(method))

    def updates(self) -> list[JSON]:
        """Every update emitted so far (as JSON), in order."""
        with self._cond:
            return list(self._updates)

    def pending_updates(self) -> int:
        with self._cond:
            return len(self._pending)

    def commands(self, *, scope: JSON | None = None, language_code: str = "") -> list[JSON]:
        with self._cond:
            return list(self._commands.get((self._scope_key(scope), language_code), []))

    @property
    def webhook(self) -> JSON | None:
        """The setWebhook parameters in force, or None in polling mode."""
        with self._cond:
            return dict(self._webhook) if self._webhook else None

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

    # ------------------------------------------------------------------ waiting

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

    # ------------------------------------------------------------------ internals

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

    # ------------------------------------------------------------------ HTTP dispatch

    def _dispatch(self, path: str, query: str, content_type: str, body: bytes
                  ) -> tuple[int, str, bytes]:
        path = unquote(path)  # PTB percent-encodes the token's ":" in file URLs
        m = re.fullmatch(r"/file/bot([^/]+)/(.+)", path)
        if m:
            return self._download(m.group(1), m.group(2))
        m = re.fullmatch(r"/bot([^/]*)/([A-Za-z]+)", path)
        if m is None:
            return _json_response(ApiError(404, "Not Found").to_dict(), 404)
        token, method = m.groups()
        started = self.clock()
        try:
            params, uploads = _parse_params(query, content_type, body)
        except ValueError as err:
            return _json_response(bad_request(str(err)).to_dict(), 400)
        files = {name: self._new_file(*upload) for name, upload in uploads.items()}
        handler = self._methods.get(method.lower())
        try:
            if self.token is not None and token != self.token:
                raise ApiError(401, "Unauthorized")
            if handler is None:
                raise ApiError(404, "Not Found: method not found")
            with self._cond:
                self._check_flood(method.lower(), params)
            result = handler(params, files)
            status, response = 200, {"ok": True, "result": result}
        except ApiError as err:
            status, response = err.code, err.to_dict()
        with self._cond:
            self._requests.append(RequestRecord(method, params, files, started, status, response))
            # what a request changed in a chat woke that chat already
            chat_id = params.get("chat_id")
            self._bump(chat_id if isinstance(chat_id, int) else None)
        return _json_response(response, status)

    def _download(self, token: str, file_path: str) -> tuple[int, str, bytes]:
        if self.token is not None and token != self.token:
            return _json_response(ApiError(401, "Unauthorized").to_dict(), 401)
        with self._cond:
            for f in self._files.values():
                if f.path == file_path:
                    return 200, f.mime_type or "application/octet-stream", f.data
        return _json_response(ApiError(404, "Not Found").to_dict(), 404)

    def _check_flood(self, method: str, params: JSON) -> None:
        chat_id = params.get("chat_id")
        for fault in list(self._faults):
            if (not fault.methods or method in fault.methods) \
                    and (fault.chat_id is None or fault.chat_id == chat_id):
                if fault.times is not None:
                    fault.times -= 1
                    if fault.times <= 0:
                        self._faults.remove(fault)
                raise ApiError(fault.status, fault.description)
        for rule in list(self._floods):
            if method in rule.methods and (rule.chat_id is None or rule.chat_id == chat_id):
                if rule.times is not None:
                    rule.times -= 1
                    if rule.times <= 0:
                        self._floods.remove(rule)
                raise _too_many(rule.retry_after)
        now = time.monotonic()
        for limit in self._rate_limits:
            if method not in limit.methods:
                continue
            calls = limit.calls.setdefault(chat_id if limit.per_chat else None, deque())
            while calls and calls[0] <= now - limit.period:
                calls.popleft()
            if len(calls) >= limit.max_calls:
                raise _too_many(max(1, math.ceil(calls[0] + limit.period - now)))
            calls.append(now)

    # ------------------------------------------------------------------ API methods
    # Each _m_<name> implements the Bot API method whose lower-cased name is <name> without
    # underscores; it gets the decoded parameters and uploaded files.

    def _m_get_me(self, params: JSON, files: dict[str, StoredFile]) -> JSON:
        return {**self.bot.to_dict(), "can_join_groups": True,
                "can_read_all_group_messages": not self.privacy_mode,
                "supports_inline_queries": self.inline_enabled, "can_connect_to_business": False,
                "has_main_web_app": False}

    def _m_get_updates(self, params: JSON, files: dict[str, StoredFile]) -> list[JSON]:
        offset = params.get("offset")
        limit = min(max(int(params.get("limit") or 100), 1), 100)
        timeout = max(float(params.get("timeout") or 0), 0.0)
        with self._cond:
            if self._webhook:
                raise ApiError(409, "Conflict: can't use getUpdates method while webhook is "
                                    "active; use deleteWebhook to delete the webhook first")
            if "allowed_updates" in params:
                self._allowed_updates = list(params["allowed_updates"] or [])
            self._poll_generation += 1
            generation = self._poll_generation
            self._cond.notify_all()
            if offset:
                self._confirm(int(offset))
            deadline = time.monotonic() + timeout
            while True:
                if generation != self._poll_generation:
                    raise ApiError(409, "Conflict: terminated by other getUpdates request; make "
                                        "sure that only one bot instance is running")
                batch = self._pending[:limit]
                remaining = deadline - time.monotonic()
                if batch or remaining <= 0 or self._closing:
                    break
                self._cond.wait(remaining)
            now = self.clock()
            for p in batch:
                p.delivered = True
                self.delivered_at.setdefault(p.update_id, now)
            return [p.payload for p in batch]

    def _confirm(self, offset: int) -> None:
        if offset < 0:
            self._pending = self._pending[offset:]
            return
        self._pending = [p for p in self._pending
                         if p.update_id >= offset or (p.forced and not p.delivered)]

    def _m_set_webhook(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        url = params.get("url") or ""
        if not url:
            return self._m_delete_webhook(params, files)
        parts = urlsplit(url)
        host = parts.hostname or ""
        try:
            loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if parts.scheme not in ("http", "https") or not loopback:
            raise bad_request("bad webhook: the local Bot API server only calls loopback URLs")
        secret = params.get("secret_token")
        if secret is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", str(secret)):
            raise bad_request("bad webhook: secret token contains unallowed characters")
        with self._cond:
            if params.get("drop_pending_updates"):
                self._pending.clear()
            if "allowed_updates" in params:
                self._allowed_updates = list(params["allowed_updates"] or [])
            self._webhook = {"url": url, "secret_token": secret,
                             "max_connections": int(params.get("max_connections") or 40)}
            self._webhook_generation += 1
            generation = self._webhook_generation
            for p in self._pending:
                p.claimed = False
            workers = max(1, min(self._webhook["max_connections"], 100))
            self._cond.notify_all()
        for n in range(workers):
            threading.Thread(target=self._webhook_worker, args=(generation,),
                             name=f"botapi-webhook-{n}", daemon=True).start()
        return True

    def _m_delete_webhook(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        with self._cond:
            self._webhook = None
            self._webhook_generation += 1
            if params.get("drop_pending_updates"):
                self._pending.clear()
            for p in self._pending:
                p.claimed = False
            self._cond.notify_all()
        return True

    def _m_get_webhook_info(self, params: JSON, files: dict[str, StoredFile]) -> JSON:
        with self._cond:
            info: JSON = {"url": self._webhook["url"] if self._webhook else "",
                          "has_custom_certificate": False,
                          "pending_update_count": len(self._pending)}
            if self._webhook:
                info["max_connections"] = self._webhook["max_connections"]
            if self._allowed_updates:
                info["allowed_updates"] = self._allowed_updates
            if self._webhook_error:
                info["last_error_date"], info["last_error_message"] = self._webhook_error
            return info

    def _webhook_worker(self, generation: int) -> None:
        conns: dict[tuple[str, int], http.client.HTTPConnection] = {}
        while True:
            with self._cond:
                item = None
                while generation == self._webhook_generation and not self._closing:
                    item = next((p for p in self._pending if not p.claimed), None)
                    if item is not None:
                        break
                    self._cond.wait(0.5)
                if item is None or self._webhook is None:
                    break
                item.claimed = True
                hook = dict(self._webhook)
                target = hook["url"]
                if self.webhook_targets:
                    root = self.webhook_targets[self._webhook_turn % len(self.webhook_targets)]
                    self._webhook_turn += 1
                    target = root.rstrip("/") + (urlsplit(target).path or "/")
            parts = urlsplit(target)
            headers = {"Content-Type": "application/json"}
            if hook["secret_token"]:
                headers["X-Telegram-Bot-Api-Secret-Token"] = hook["secret_token"]
            started = time.monotonic()
            status, error = 0, None
            address = (parts.hostname or "127.0.0.1", parts.port or 80)
            conn = conns.get(address)
            try:
                if conn is None:
                    conn = conns[address] = http.client.HTTPConnection(*address, timeout=30)
                conn.request("POST", parts.path or "/", json.dumps(item.payload).encode(), headers)
                response = conn.getresponse()
                response.read()
                status = response.status
            except (OSError, http.client.HTTPException) as err:
                error = f"{type(err).__name__}: {err}"
                if conn is not None:
                    conn.close()
                conns.pop(address, None)
            with self._cond:
                self.webhook_deliveries.append(WebhookDelivery(
                    item.update_id, status, time.monotonic() - started, error))
                if 200 <= status < 300:
                    if item in self._pending:
                        self._pending.remove(item)
                else:
                    item.claimed = False
                    self._webhook_error = (int(self.clock()),
                                           error or f"Wrong response from the webhook: {status}")
                self._bump()
            if not 200 <= status < 300:
                time.sleep(0.1)  # Telegram retries failed deliveries, not in a tight loop
        for conn in conns.values():
            conn.close()

    def _m_send_message(self, params: JSON, files: dict[str, StoredFile]) -> JSON:
        with self._cond:
            state = self._writable(params)
            text, entities = self._text(params, "text", "entities", MAX_TEXT)
            if text is None:
                raise bad_request("message text is empty")
            return self._send(state, params, text=text, entities=entities)

    def _m_send_photo(self, params: JSON, files: dict[str, StoredFile]) -> JSON:
        return self._send_media(params, files, "photo")

    def _m_send_document(self, params: JSON, files: dict[str, StoredFile]) -> JSON:
        return self._send_media(params, files, "document")

    def _send_media(self, params: JSON, files: dict[str, StoredFile], kind: str) -> JSON:
        with self._cond:
            state = self._writable(params)
            stored = self._input_file(params.get(kind), files, kind)
            caption, caption_entities = self._text(params, "caption", "caption_entities",
                                                   MAX_CAPTION)
            return self._send(state, params, caption=caption, caption_entities=caption_entities,
                              **{kind: stored})

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

    def _input_file(self, value: Any, files: dict[str, StoredFile], kind: str) -> StoredFile:
        """An uploaded file (by field name or attach://name) or a known file_id."""
        found: StoredFile | None = None
        if isinstance(value, str) and value.startswith("attach://"):
            found = files.get(value[len("attach://"):])
        elif value is None:
            found = files.get(kind)
        elif isinstance(value, str):
            found = self._files.get(value)
            if found is None:
                raise bad_request("wrong file identifier/HTTP URL specified")
        if found is None:
            raise bad_request(f"there is no {kind} in the request")
        if found.file_id not in self._files:
            if kind == "photo":
                found = _with_image_size(found)
            self._files[found.file_id] = found
        return found

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

    def _m_edit_message_media(self, params: JSON, files: dict[str, StoredFile]
                              ) -> JSON | bool:
        with self._cond:
            state, msg = self._editable(params)
            inline = msg.inline_message_id is not None
            # an inline message's text may be given media (the Bot API: "or to add
            # media to text messages"); a chat message's must have media already
            if msg.photo is None and msg.document is None and not inline:
                raise bad_request("there is no media in the message to edit")
            media = params.get("media")
            if not isinstance(media, dict) or media.get("type") not in ("photo", "document"):
                raise bad_request("can't parse InputMedia: unsupported media type")
            kind = media["type"]
            if inline:
                stored = self._inline_media(media.get("media"), files)
            else:
                stored = self._input_file(media.get("media"), files, kind)
            caption, entities = self._text(media, "caption", "caption_entities", MAX_CAPTION)
            return self._edit(msg, photo=stored if kind == "photo" else None,
                              document=stored if kind == "document" else None,
                              caption=caption, caption_entities=entities, text=None,
                              entities=[], reply_markup=_markup_in(params, state))

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

    @staticmethod
    def _markup(value: Any) -> JSON | None:
        return _markup(value)

    @staticmethod
    def _scope_key(scope: Any) -> str:
        return json.dumps(scope or {"type": "default"}, sort_keys=True)

    def _m_set_my_commands(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        commands = params.get("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise bad_request("can't parse commands JSON object")
        for c in commands:
            if not re.fullmatch(r"[a-z0-9_]{1,32}", str(c.get("command", ""))):
                raise bad_request("BOT_COMMAND_INVALID")
            if not 1 <= len(str(c.get("description", ""))) <= 256:
                raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        with self._cond:
            key = (self._scope_key(params.get("scope")), params.get("language_code") or "")
            self._commands[key] = [{"command": c["command"], "description": c["description"]}
                                   for c in commands]
            return True

    def _m_get_my_commands(self, params: JSON, files: dict[str, StoredFile]) -> list[JSON]:
        return self.commands(scope=params.get("scope"),
                             language_code=params.get("language_code") or "")

    def _m_delete_my_commands(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        with self._cond:
            self._commands.pop((self._scope_key(params.get("scope")),
                                params.get("language_code") or ""), None)
            return True

    def _bot_setting(self, params: JSON, key: str) -> bool:
        with self._cond:
            self._bot_settings[(key, params.get("language_code") or "")] = params
            return True

    def _m_set_my_description(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        return self._bot_setting(params, "description")

    def _m_set_my_short_description(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        return self._bot_setting(params, "short_description")

    def _m_set_my_name(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        return self._bot_setting(params, "name")

    def _get_bot_setting(self, params: JSON, key: str) -> JSON:
        with self._cond:
            stored = self._bot_settings.get((key, params.get("language_code") or ""), {})
            return {key: stored.get(key) or ""}

    def _m_get_my_description(self, params: JSON, files: dict[str, StoredFile]) -> JSON:
        return self._get_bot_setting(params, "description")

    def _m_get_my_short_description(self, params: JSON, files: dict[str, StoredFile]) -> JSON:
        return self._get_bot_setting(params, "short_description")

    def _m_get_my_name(self, params: JSON, files: dict[str, StoredFile]) -> JSON:
        return self._get_bot_setting(params, "name")

    def _m_set_chat_menu_button(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        return True

    def _m_set_my_default_administrator_rights(self, params: JSON,
                                               files: dict[str, StoredFile]) -> bool:
        return True

    def _m_log_out(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        return True

    def _m_close(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        return True

    def _m_send_chat_action(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        with self._cond:
            self._writable(params)
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

    def _m_leave_chat(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        with self._cond:
            state = self._writable(params)
            self._set_bot_member(state, self.bot, "left")
            return True

    def _m_get_chat(self, params: JSON, files: dict[str, StoredFile]) -> JSON:
        with self._cond:
            state = self._writable(params)
            return {**state.chat.to_dict(), "accent_color_id": 0, "max_reaction_count": 11,
                    "accepted_gift_types": {"unlimited_gifts": False, "limited_gifts": False,
                                            "unique_gifts": False, "premium_subscription": False,
                                            "gifts_from_channels": False}}

    def _m_get_chat_member(self, params: JSON, files: dict[str, StoredFile]) -> JSON:
        with self._cond:
            state = self._writable(params)
            user_id = int(params.get("user_id") or 0)
            if user_id == self.bot.id:
                return self._member_json(self.bot, state.bot_status)
            user = self._users.get(user_id)
            if user is None:
                raise bad_request("user not found")
            return self._member_json(user, state.members.get(user_id, "left"))

    def _m_get_chat_administrators(self, params: JSON, files: dict[str, StoredFile]
                                   ) -> list[JSON]:
        with self._cond:
            state = self._writable(params)
            if state.chat.type == "private":
                raise bad_request("there are no administrators in the private chat")
            admins = [self._member_json(self._users[uid], status)
                      for uid, status in state.members.items()
                      if status in _OWNER_STATUSES and uid in self._users]
            if state.bot_status == "administrator":
                admins.append(self._member_json(self.bot, "administrator"))
            return admins

    def _m_get_chat_member_count(self, params: JSON, files: dict[str, StoredFile]) -> int:
        with self._cond:
            state = self._writable(params)
            return sum(s in _PRESENT_STATUSES for s in state.members.values()) + (
                state.bot_status in _PRESENT_STATUSES)

    def _m_get_file(self, params: JSON, files: dict[str, StoredFile]) -> JSON:
        with self._cond:
            stored = self._files.get(str(params.get("file_id")))
            if stored is None:
                raise bad_request("invalid file_id")
            return {"file_id": stored.file_id, "file_unique_id": stored.file_unique_id,
                    "file_size": len(stored.data), "file_path": stored.path}

    def _new_file(self, data: bytes, filename: str | None, mime_type: str | None) -> StoredFile:
        with self._cond:
            self._file_counter += 1
            n = self._file_counter
        return StoredFile(f"BQACAgIAAx{n:08d}", f"AgAD{n:06d}", data, filename, mime_type)


def _too_many(retry_after: int) -> ApiError:
    return ApiError(429, f"Too Many Requests: retry after {retry_after}",
                    {"retry_after": retry_after})


def _markup_in(params: JSON, state: _ChatState | None) -> JSON | None:
    """The edit's reply_markup validated for the message's chat (None: an inline message)."""
    return _markup(params.get("reply_markup"), None if state is None else state.chat.type)


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


def _with_image_size(stored: StoredFile) -> StoredFile:
    from dataclasses import replace

    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(stored.data)) as image:
            width, height = image.size
    except (UnidentifiedImageError, OSError):
        raise bad_request("IMAGE_PROCESS_FAILED") from None
    return replace(stored, width=width, height=height)


def _decode(name: str, raw: str) -> Any:
    if name in _STRING_PARAMS:
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw


Upload = tuple[bytes, str, str]  # data, filename, MIME type


def _parse_params(query: str, content_type: str, body: bytes) -> tuple[JSON, dict[str, Upload]]:
    """Decode query string and body the way Telegram accepts them: JSON, url-encoded, multipart.

    Form values are JSON-decoded (PTB serialises non-strings as JSON) except known text fields.
    """
    params: JSON = {k: _decode(k, v) for k, v in parse_qsl(query)}
    files: dict[str, Upload] = {}
    kind = content_type.split(";")[0].strip().lower()
    if not body:
        return params, files
    if kind == "application/json":
        decoded = json.loads(body)
        if not isinstance(decoded, dict):
            raise ValueError("request body must be a JSON object")
        params.update(decoded)
    elif kind == "application/x-www-form-urlencoded":
        params.update({k: _decode(k, v) for k, v in parse_qsl(body.decode("utf-8"),
                                                             keep_blank_values=True)})
    elif kind == "multipart/form-data":
        for name, filename, part_type, payload in _multipart_parts(content_type, body):
            if filename is not None:
                files[name] = (payload, filename, part_type)
            else:
                params[name] = _decode(name, payload.decode("utf-8"))
    return params, files


_HEADER_PARAM = re.compile(r';\s*([A-Za-z0-9_*-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))')


def _header_params(value: str) -> dict[str, str]:
    """``name="x"; filename="y.png"`` parameters of a header value, unquoted."""
    return {m.group(1).lower(): re.sub(r"\\(.)", r"\1", m.group(2)) if m.group(2) is not None
            else m.group(3) for m in _HEADER_PARAM.finditer(value)}


def _multipart_parts(content_type: str, body: bytes
                     ) -> Iterable[tuple[str, str | None, str, bytes]]:
    """``(name, filename or None, content type, payload)`` of each part of a
    multipart/form-data body (RFC 7578).  A split on the boundary: the email
    package's parser costs ~20 times as much, which a benchmark's harness,
    sharing the machine with the bot, cannot afford."""
    boundary = _header_params(content_type).get("boundary")
    if not boundary:
        raise ValueError("multipart body without a boundary")
    delimiter = b"--" + boundary.encode("latin-1")
    chunks = body.split(delimiter)
    if len(chunks) < 3 or not chunks[-1].startswith(b"--"):
        raise ValueError("malformed multipart body")
    for chunk in chunks[1:-1]:
        if not chunk.startswith(b"\r\n") or not chunk.endswith(b"\r\n"):
            raise ValueError("malformed multipart part")
        head, separator, payload = chunk[2:-2].partition(b"\r\n\r\n")
        if not separator:
            raise ValueError("multipart part without a header block")
        headers = {}
        for line in head.decode("utf-8").split("\r\n"):
            key, colon, value = line.partition(":")
            if not colon:
                raise ValueError(f"malformed multipart header {line!r}")
            headers[key.strip().lower()] = value.strip()
        disposition = _header_params(headers.get("content-disposition", ""))
        if "name" not in disposition:
            raise ValueError("multipart part without a name")
        part_type = headers.get("content-type", "text/plain").split(";")[0].strip().lower()
        yield disposition["name"], disposition.get("filename"), part_type, payload


def _json_response(payload: Any, status: int) -> tuple[int, str, bytes]:
    return status, "application/json", json.dumps(payload).encode("utf-8")


class _HTTPServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # a client that hung up mid-answer (the bot stopped during a long poll)
        # is routine here; anything else gets the standard traceback
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: PTB's httpx pool reuses connections

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes; without NODELAY every keep-alive
        # request would wait ~40 ms for a delayed ACK.
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the request log is in BotApiServer.requests()

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def _handle(self) -> None:
        api: BotApiServer = self.server.api  # type: ignore[attr-defined]
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        status, content_type, data = api._dispatch(
            parts.path, parts.query, self.headers.get("Content-Type", ""), body)
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
