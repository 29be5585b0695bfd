"""The simulated world's records: users, chats, stored messages, taps, logged requests.

Each record knows how to render itself as the JSON Telegram sends, so updates built from
them parse with python-telegram-bot exactly like real ones.

>>> alice = User(1001, "Alice", username="alice", language_code="ru")
>>> private = Chat.private(alice)
>>> private.to_dict()
{'id': 1001, 'type': 'private', 'username': 'alice', 'first_name': 'Alice'}
>>> Message(chat=private, message_id=1, sender=alice, date=0, text="/start").content
'/start'
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

JSON = dict[str, Any]
PATIENCE = 30.0
"""Seconds a test waits by default for what it expects (an answer, a message,
a request): a guard against a hang, never a limit on speed.  A wait returns
as soon as its thing happens, so only a failing test waits this long; on a
loaded machine (2 cores, several test runs) 5 s was not enough."""


class ApiError(Exception):
    """An error answer of the Bot API: HTTP status, description, optional parameters."""

    def __init__(self, code: int, description: str, parameters: JSON | None = None) -> None:
        super().__init__(f"{code} {description}")
        self.code = code
        self.description = description
        self.parameters = parameters

    def to_dict(self) -> JSON:
        body: JSON = {"ok": False, "error_code": self.code, "description": self.description}
        if self.parameters:
            body["parameters"] = self.parameters
        return body


def bad_request(text: str, parameters: JSON | None = None) -> ApiError:
    """``400 Bad Request: <text>``."""
    return ApiError(400, f"Bad Request: {text}", parameters)


@dataclass(frozen=True)
class User:
    """A Telegram user (or the bot itself when ``is_bot``)."""

    id: int
    first_name: str
    username: str | None = None
    language_code: str | None = None
    last_name: str | None = None
    is_bot: bool = False

    def to_dict(self) -> JSON:
        data: JSON = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        for key in ("last_name", "username", "language_code"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        return data


@dataclass(frozen=True)
class Chat:
    """A chat as Telegram describes it in a Message (``type`` private/group/supergroup)."""

    id: int
    type: str
    title: str | None = None
    username: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    is_forum: bool = False

    @classmethod
    def private(cls, user: User) -> Chat:
        return cls(user.id, "private", username=user.username, first_name=user.first_name,
                   last_name=user.last_name)

    def to_dict(self) -> JSON:
        data: JSON = {"id": self.id, "type": self.type}
        for key in ("title", "username", "first_name", "last_name"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        if self.is_forum:
            data["is_forum"] = True
        return data


@dataclass(frozen=True)
class StoredFile:
    """An uploaded file: its bytes and the ids Telegram gave it."""

    file_id: str
    file_unique_id: str
    data: bytes
    filename: str | None = None
    mime_type: str | None = None
    width: int = 0
    height: int = 0

    @property
    def path(self) -> str:
        return f"files/{self.file_unique_id}"


Button = tuple[str, str | None]


@dataclass
class Message:
    """A message as the server stores it; tests get snapshots (copies), never the live record.

    ``edits`` counts edits; ``deleted`` marks deleted messages, which stay in the history.
    ``revision`` is the server revision of the last change, ``created_revision`` of creation:
    pass either (or the message) as ``since=`` to the wait helpers.
    """

    chat: Chat
    message_id: int
    sender: User
    date: int
    text: str | None = None
    entities: list[JSON] = field(default_factory=list)
    caption: str | None = None
    caption_entities: list[JSON] = field(default_factory=list)
    photo: StoredFile | None = None
    document: StoredFile | None = None
    reply_markup: JSON | None = None
    thread_id: int | None = None
    reply_to: int | None = None
    service: JSON = field(default_factory=dict)
    disable_notification: bool = False
    deleted: bool = False
    pinned: bool = False
    edits: int = 0
    edit_date: int | None = None
    revision: int = 0
    created_revision: int = 0
    update_id: int | None = None
    via_bot: User | None = None
    """The bot an inline result was sent through ("via @bot"); the sender is the user."""
    inline_message_id: str | None = None
    """Set on a message sent from an inline result with a keyboard: the bot edits it by
    this id (it never learns the chat or the message id)."""

    @property
    def from_bot(self) -> bool:
        return self.sender.is_bot

    @property
    def by_bot(self) -> bool:
        """Sent by the bot, or by a user through the bot's inline mode."""
        return self.sender.is_bot or self.via_bot is not None

    @property
    def content(self) -> str:
        """The text, or the caption of a media message, or ""."""
        return self.text if self.text is not None else (self.caption or "")

    @property
    def buttons(self) -> list[list[Button]]:
        """Inline keyboard rows as (text, callback_data) pairs; [] without a keyboard."""
        return buttons(self)

    @property
    def photo_bytes(self) -> bytes | None:
        return self.photo.data if self.photo else None

    @property
    def document_bytes(self) -> bytes | None:
        return self.document.data if self.document else None

    @property
    def document_name(self) -> str | None:
        return self.document.filename if self.document else None

    def snapshot(self) -> Message:
        return dataclasses.replace(self)

    def to_dict(self, *, with_reply: Message | None = None) -> JSON:
        data: JSON = {
            "message_id": self.message_id,
            "from": self.sender.to_dict(),
            "chat": self.chat.to_dict(),
            "date": self.date,
        }
        if self.thread_id is not None:
            data["message_thread_id"] = self.thread_id
            if self.chat.is_forum:
                data["is_topic_message"] = True
        if with_reply is not None:
            data["reply_to_message"] = with_reply.to_dict()
        if self.edit_date is not None:
            data["edit_date"] = self.edit_date
        if self.via_bot is not None:
            data["via_bot"] = self.via_bot.to_dict()
        if self.text is not None:
            data["text"] = self.text
            if self.entities:
                data["entities"] = self.entities
        if self.photo is not None:
            data["photo"] = [{
                "file_id": self.photo.file_id, "file_unique_id": self.photo.file_unique_id,
                "file_size": len(self.photo.data),
                "width": self.photo.width, "height": self.photo.height,
            }]
        if self.document is not None:
            doc: JSON = {"file_id": self.document.file_id,
                         "file_unique_id": self.document.file_unique_id,
                         "file_size": len(self.document.data)}
            if self.document.filename:
                doc["file_name"] = self.document.filename
            if self.document.mime_type:
                doc["mime_type"] = self.document.mime_type
            data["document"] = doc
        if self.caption is not None:
            data["caption"] = self.caption
            if self.caption_entities:
                data["caption_entities"] = self.caption_entities
        if self.reply_markup is not None and "inline_keyboard" in self.reply_markup:
            data["reply_markup"] = self.reply_markup
        data.update(self.service)
        return data

    def describe(self) -> str:
        """One line for transcripts in failure messages."""
        who = "bot" if self.from_bot else (self.sender.username or self.sender.first_name)
        if self.via_bot is not None:
            who += " via bot"
        flags = "".join(
            f" [{flag}]" for flag, on in (("deleted", self.deleted), (f"edited x{self.edits}",
                                          self.edits), ("photo", self.photo),
                                          ("document", self.document)) if on
        )
        body = self.content.replace("\n", "\\n")
        keys = " | ".join(" ".join(f"[{t}]" for t, _ in row) for row in self.buttons)
        service = " ".join(sorted(self.service))
        return (f"#{self.message_id} {who}{flags}: {body[:200]}"
                f"{' ' + service if service else ''}{'  ' + keys if keys else ''}")


def buttons(message: Message | JSON | None) -> list[list[Button]]:
    """Inline keyboard rows of a message (stored or JSON) as (text, callback_data) pairs.

    Buttons without callback data (URL buttons...) have ``None`` as data.
    """
    if message is None:
        return []
    markup = message.reply_markup if isinstance(message, Message) else message.get(
        "reply_markup")
    rows = (markup or {}).get("inline_keyboard", [])
    return [[(b.get("text", ""), b.get("callback_data")) for b in row] for row in rows]


@dataclass(frozen=True)
class Answer:
    """What the bot said in answerCallbackQuery."""

    text: str | None
    show_alert: bool
    url: str | None
    cache_time: int | None


A = TypeVar("A")


class _Query(Generic[A]):
    """A query the bot answers once (a tap, an inline query): wait for the answer."""

    def __init__(self, server: Any, query_id: str, update_id: int, revision: int,
                 queued_at: float, chat_id: int | None) -> None:
        self.server = server
        self.query_id = query_id
        self.update_id = update_id
        self.revision = revision
        self.queued_at = queued_at
        """The server clock's time when the update was queued for the bot."""
        self.chat_id = chat_id
        self._answer: A | None = None

    def _set_answer(self, answer: A) -> None:
        self._answer = answer

    @property
    def answer(self) -> A | None:
        """The answer if the bot gave one already, else None."""
        return self._answer

    def _waiting_for(self) -> str:
        raise NotImplementedError

    def wait_answer(self, timeout: float = PATIENCE) -> A:
        """Block until the bot answers this query; AssertionError after ``timeout`` seconds."""
        answer: A = self.server.wait_for(lambda: self._answer, timeout, chat=self.chat_id,
                                         description=self._waiting_for())
        return answer

    async def wait_answer_async(self, timeout: float = PATIENCE) -> A:
        """:meth:`wait_answer` for async tests (runs in a worker thread)."""
        import asyncio

        return await asyncio.to_thread(self.wait_answer, timeout)


class Tap(_Query[Answer]):
    """A callback query the test sent; wait for the bot's answerCallbackQuery with it."""

    def __init__(self, server: Any, query_id: str, update_id: int, data: str | None,
                 revision: int, queued_at: float = 0.0, chat_id: int | None = None) -> None:
        super().__init__(server, query_id, update_id, revision, queued_at, chat_id)
        self.data = data

    def _waiting_for(self) -> str:
        return f"answerCallbackQuery for query {self.query_id} (data {self.data!r})"

    def __repr__(self) -> str:
        return f"Tap(query_id={self.query_id!r}, data={self.data!r}, answer={self._answer!r})"


@dataclass(frozen=True)
class InlineAnswer:
    """What the bot said in answerInlineQuery (results as the JSON it sent)."""

    results: list[JSON]
    cache_time: int
    is_personal: bool
    next_offset: str
    button: JSON | None

    @property
    def titles(self) -> list[str]:
        """Each result's title (a photo result's caption, or its id)."""
        return [str(r.get("title") or r.get("caption") or r.get("id")) for r in self.results]

    def result(self, title: str | None = None, *, id: str | None = None) -> JSON:
        """The result with this title (or id); ValueError if there is none."""
        for r in self.results:
            if (id is not None and r.get("id") == id) or (title is not None
                                                          and r.get("title") == title):
                return r
        raise ValueError(f"no result {title or id!r} among {self.titles}")


class InlineQuery(_Query[InlineAnswer]):
    """An inline query a user typed; wait for the bot's answerInlineQuery with it."""

    def __init__(self, server: Any, query_id: str, update_id: int, user: User, chat_id: int,
                 query: str, revision: int, queued_at: float) -> None:
        super().__init__(server, query_id, update_id, revision, queued_at, chat_id)
        self.user = user
        self.query = query  # typed in chat_id: the bot is told only that chat's type

    def _waiting_for(self) -> str:
        return f"answerInlineQuery for {self.query!r} (query {self.query_id})"

    def __repr__(self) -> str:
        return f"InlineQuery(query_id={self.query_id!r}, query={self.query!r})"


@dataclass(frozen=True)
class RequestRecord:
    """One request the bot made: method as sent, decoded params, uploaded files, outcome."""

    method: str
    params: JSON
    files: dict[str, StoredFile]
    time: float
    status: int
    response: JSON
