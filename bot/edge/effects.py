"""What an update's handling did outside Redis, so that its retry does not do it again.

A failed update is handled again from the top (:mod:`bot.edge.ops`: the webhook
answers 500 and Telegram redelivers it).  Compare-and-set keeps a retried tap
from being applied twice, but what the first attempt did at the Bot API would
happen twice: a second answer to the callback query (Telegram refuses it, and
that refusal used to end the retry before the board was redrawn), a second copy
of a message.  So each update has a **journal** of its completed side effects:

- every answer to a callback or inline query, by query id: a retry's answer
  is not sent again (whatever its text: a query has one answer);
- every message sent (``send*``, ``copy*``, ``forward*``), by its method and
  content and how many identical ones the attempt sent before: a retry that
  sends the very same message again gets the first one back (its
  ``message_id``) instead of a copy;
- steps a handler notes itself (:func:`note`, :func:`done`): the tap handler
  notes the record it changed, so that its retry finishes the redraw and the
  ping instead of calling its own step out of date (bot/edge/handlers/buttons.py);
  a turn ping is noted per game version.

:class:`JournaledRequest` (the bot's Bot API client) applies the first two
to every handler.  A late answer (Telegram: "query is too old") is not an
error of the update either: the tapper's spinner has stopped anyway, and the
tap's work still has to be done.

The journal is written to Redis (``nardy:{update:<id // 100>}:fx``, beside the
update's marker and with its expiry) as the attempt goes (*write-through*):
what a handler noted before a Bot API request with a side effect is written
before that request (:meth:`Journal.flush`), the request's own entry right
after it; an answer to a query is written before it goes out, with its
parameters and the notes (one round trip a tap), so that a worker that dies
as it answers leaves its retry to give the very same answer, not what the
retry would say of the changed state ("joined", then "out of date": issue 37;
the Bot API refuses it if the first got through, as a query has one answer),
and a step it saved is known by its write token (bot/edge/handlers/buttons.py).
So a worker that dies mid-update (kill -9, a lost machine) leaves the
attempt that takes its claim over (bot/edge/ops.py: seconds later, not
minutes) everything it did but the one request it may have been making when
it died.  A done update's journal is deleted as it is
settled (nobody will read it); the retry of a failed or abandoned one reads
it back when it claims the update.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from telegram._utils.defaultvalue import DEFAULT_NONE
from telegram._utils.types import ODVInput
from telegram.request import RequestData
from telegram.request._requestparameter import RequestParameter

from bot.edge.http import AiohttpRequest

log = logging.getLogger(__name__)

SENDING = ("send", "copy", "forward")
"""Method prefixes of requests that make a new message."""
NOT_EFFECTS = frozenset({"sendChatAction"})
ANSWERS = {"answerCallbackQuery": "callback_query_id", "answerInlineQuery": "inline_query_id"}
TOO_OLD = b"query is too old"
INTENDED = "i:"
"""Prefix of an answer's journal entry written before the answer goes out (its
parameters); once it went out, the entry is the Bot API's reply."""
ANSWERED = b'{"ok":true,"result":true}'

Value = str | Callable[[], str]
"""A journal value, or what makes it (called only if the journal is written)."""


@dataclass
class Journal:
    """One update's completed side effects: name -> value (see the module doc)."""

    entries: dict[str, Value] = field(default_factory=dict)
    seen: Counter[str] = field(default_factory=Counter)
    """Requests of this attempt by content: the n-th identical one is its own entry."""
    sink: Callable[[dict[str, str]], Awaitable[None]] | None = None
    """Where :meth:`flush` writes new entries (the update's journal in Redis)."""
    dirty: set[str] = field(default_factory=set)
    """Entries noted since the last :meth:`flush`."""
    persisted: bool = False
    """Whether :meth:`flush` wrote anything (then the done update's journal is deleted)."""

    def recall(self, name: str) -> str | None:
        value = self.entries.get(name)
        return value() if callable(value) else value

    def note(self, name: str, value: Value = "1") -> None:
        self.entries[name] = value
        self.dirty.add(name)

    def written(self) -> dict[str, str]:
        """The entries as stored in Redis."""
        return {name: value() if callable(value) else value
                for name, value in self.entries.items()}

    async def flush(self) -> None:
        """Write the entries noted since the last flush to :attr:`sink`.  A failure
        is logged and the entries stay to write next time: the side effect
        that follows still happens (a journal that cannot be written costs at
        most a repeat on a retry; refusing the step would cost the step)."""
        if not self.dirty or self.sink is None:
            return
        names = sorted(self.dirty)
        try:
            await self.sink({name: self.recall(name) or "" for name in names})
        except Exception as error:
            log.warning("the update's journal could not be written: %r", error)
            return
        self.dirty.difference_update(names)
        self.persisted = True


_journal: contextvars.ContextVar[Journal | None] = contextvars.ContextVar(
    "nardy_journal", default=None)


def begin(entries: Mapping[str, str],
          sink: Callable[[dict[str, str]], Awaitable[None]] | None = None
          ) -> tuple[Journal, contextvars.Token[Journal | None]]:
    """Start this task's journal (of an update's attempt) with what earlier attempts
    noted; ``sink`` writes new entries through (:meth:`Journal.flush`)."""
    journal = Journal(dict(entries), sink=sink)
    return journal, _journal.set(journal)


def end(token: contextvars.Token[Journal | None]) -> None:
    _journal.reset(token)


def recall(name: str) -> str | None:
    """What this update's handling noted as ``name`` (an earlier attempt, or this one)."""
    journal = _journal.get()
    return None if journal is None else journal.recall(name)


def done(name: str) -> bool:
    return recall(name) is not None


def note(name: str, value: Value = "1") -> None:
    """Note a completed step of this update (nothing outside an update)."""
    journal = _journal.get()
    if journal is not None:
        journal.note(name, value)


async def flush() -> None:
    """Write what this update noted so far now, before a step outside Redis that a
    retry must not repeat blindly (e.g. storing a secret the retry must reuse)."""
    journal = _journal.get()
    if journal is not None:
        await journal.flush()


def _request_of(params: Mapping[str, str]) -> RequestData:
    """A request with the given parameters (as ``RequestData.json_parameters`` has them)."""
    return RequestData([RequestParameter.from_input(name, value)
                        for name, value in params.items()])


def request_key(endpoint: str, data: RequestData | None) -> str | None:
    """The journal entry of a Bot API request with a side effect, None for others.

    >>> request_key("answerCallbackQuery", RequestData([]))
    'answer:None'
    >>> request_key("editMessageText", None), request_key("sendChatAction", None)
    (None, None)
    """
    params: dict[str, Any] = dict(data.json_parameters) if data is not None else {}
    if endpoint in ANSWERS:
        return f"answer:{params.get(ANSWERS[endpoint])}"
    if not endpoint.startswith(SENDING) or endpoint in NOT_EFFECTS:
        return None
    digest = hashlib.sha256(endpoint.encode())
    for name in sorted(params):
        digest.update(f"\0{name}\0{params[name]}".encode())
    for name, (_filename, content, _mime) in sorted((data.multipart_data if data else {}).items()):
        digest.update(f"\0{name}\0".encode())
        digest.update(content if isinstance(content, bytes) else repr(content).encode())
    return f"api:{endpoint}:{digest.hexdigest()[:24]}"


class JournaledRequest(AiohttpRequest):
    """The Bot API client that keeps an update's journal (see the module doc)."""

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = DEFAULT_NONE,
        write_timeout: ODVInput[float] = DEFAULT_NONE,
        connect_timeout: ODVInput[float] = DEFAULT_NONE,
        pool_timeout: ODVInput[float] = DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        endpoint = url.rsplit("/", 1)[-1]
        journal = _journal.get()
        key = request_key(endpoint, request_data) if journal is not None else None
        if journal is not None and key is not None:
            if not key.startswith("answer:"):
                journal.seen[key] += 1
                key = f"{key}:{journal.seen[key]}"
            before = journal.recall(key)
            if before is not None and before.startswith(INTENDED):
                # an earlier attempt was giving this answer when it died: the same one,
                # not what this attempt would say now (issue 37: "joined", then "out of
                # date"); refused as too old if it got through (a query has one answer)
                log.info("%s begun by an earlier attempt of this update: the same one",
                         endpoint)
                request_data = _request_of(json.loads(before.removeprefix(INTENDED)))
            elif before is not None:
                log.info("%s done by an earlier attempt of this update: not repeated", endpoint)
                return 200, before.encode()
            elif key.startswith("answer:"):  # kept before it goes out, with the notes
                params = dict(request_data.json_parameters) if request_data else {}
                journal.note(key, INTENDED + json.dumps(params, sort_keys=True))
            await journal.flush()  # what led to this request, before it happens
        status, body = await super().do_request(
            url, method, request_data, read_timeout=read_timeout, write_timeout=write_timeout,
            connect_timeout=connect_timeout, pool_timeout=pool_timeout)
        if 200 <= status < 300:
            if journal is not None and key is not None:
                journal.note(key, body.decode())
                if not key.startswith("answer:"):  # an answer's intent is kept already
                    await journal.flush()
        elif endpoint in ANSWERS and status == 400 and TOO_OLD in body.lower():
            # Telegram waits ~15 s for an answer; a slow or retried tap still does its work
            log.info("%s came too late (%s); the update goes on", endpoint, body[:200])
            return 200, ANSWERED
        return status, body
