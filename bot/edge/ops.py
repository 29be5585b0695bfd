"""Running many workers safely: each update handled once, failures retried, measured.

Every update goes through :func:`handle_once` (polling: via
:class:`GatedUpdateProcessor`; webhook: called by :mod:`bot.edge.web`, which answers
Telegram only after it returns):

1. :meth:`store.updates.claim_update` marks the update (:func:`identity`) in Redis, shared by all
   workers: a redelivered update that was handled already is skipped
   (``done``); one another worker is handling right now is ``in_flight``
   (the webhook answers 503 so Telegram tries again later, by which time it
   is done or its claim ran out because that worker died).  The claim is a
   short lease (:data:`bot.store.updates.UPDATE_LEASE`, 15 s) that a
   heartbeat renews while the update is handled: a worker killed mid-update
   frees it within seconds, and the attempt that takes it over reads the
   first one's journal.
2. ``Application.process_update`` runs the handlers; :func:`note_failure`,
   an error handler registered after the central one, marks the update as
   failed when an exception escaped a handler.
3. The marker becomes ``done``, or ``failed`` when the error may pass on a
   retry (Redis or network trouble, a bug that depends on timing): then the
   webhook answers 500 and Telegram's retry is handled afresh.  Errors that
   a retry cannot fix (the Bot API refused the request: bad request,
   forbidden) and the :data:`MAX_ATTEMPTS`-th failure settle as done, so a
   poisonous update is not retried for a day.

What an attempt already did at the Bot API (answers, messages sent) and the
steps its handlers noted are written through to the update's journal
(:mod:`bot.edge.effects`) as they happen: a retry, after a failure or after the
worker died, does not do them again.  An attempt is bounded
(:data:`HANDLE_TIMEOUT`): a handler stuck on an unreachable Redis node fails
its update (to be retried) instead of holding the worker.

Each step is logged with the update's ids (:mod:`bot.edge.logs`) and counted
(:mod:`bot.edge.metrics`).  Game changes themselves are compare-and-set, so even a
handler run twice cannot apply a tap twice; the marker saves the work and
keeps replies from being sent twice.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import enum
import functools
import gc
import logging
import time
from collections.abc import Awaitable, Coroutine
from typing import Any

from telegram import Update
from telegram.error import BadRequest, ChatMigrated, Forbidden, InvalidToken
from telegram.ext import ApplicationHandlerStop, SimpleUpdateProcessor

from bot.edge import effects, logs, metrics
from bot.edge.incoming import identity, polled_identity
from bot.store import Store
from bot.store.client import is_transient
from bot.store.updates import HEARTBEAT, Claim
from bot.vocab.records import ids_done, ids_from

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 5
"""Deliveries of one update that may fail before it is given up (settled as done);
failures because Redis was unreachable (a failover: Telegram redelivers faster
than a master fails over) do not count: the update waits for Redis instead."""
PERMANENT = (BadRequest, Forbidden, ChatMigrated, InvalidToken)
"""Errors a retry of the same update cannot fix."""
HANDLE_TIMEOUT = 60.0
"""Seconds one attempt at an update may take; then it fails (and is retried)."""


class HandlingTimeout(TimeoutError):
    """An attempt took longer than :data:`HANDLE_TIMEOUT` (a retry may pass)."""


class UpdateOutcome(enum.Enum):
    DONE = "done"
    DUPLICATE = "duplicate"
    IN_FLIGHT = "in_flight"
    FAILED = "failed"
    GIVEN_UP = "given_up"

    @property
    def retry(self) -> bool:
        """True when Telegram should deliver the update again (non-2xx answer)."""
        return self in (UpdateOutcome.IN_FLIGHT, UpdateOutcome.FAILED)


@dataclasses.dataclass
class Handling:
    """The update being handled in this task (a context variable)."""

    update_id: int
    kind: str
    started: float = dataclasses.field(default_factory=time.perf_counter)
    error: BaseException | None = None


_handling: contextvars.ContextVar[Handling | None] = contextvars.ContextVar(
    "nardy_handling", default=None)


def handling() -> Handling | None:
    """What this task is handling (None outside an update): the rate limiter
    uses it to time taps."""
    return _handling.get()


def kind_of(update: Update) -> str:
    """The update's kind for metrics: ``callback_query``, ``message``, ...

    >>> kind_of(Update.de_json({"update_id": 1, "callback_query": {
    ...     "id": "1", "from": {"id": 2, "is_bot": False, "first_name": "A"},
    ...     "chat_instance": "3", "data": "g:x:1:r"}}, None))
    'callback_query'
    """
    for name in ("callback_query", "message", "edited_message", "my_chat_member",
                 "chat_member", "inline_query", "chosen_inline_result"):
        if getattr(update, name, None) is not None:
            return name
    return "other"


def ids_of(update: Update) -> dict[str, Any]:
    """The ids to tag log lines with: update, chat, user, and the game a button names."""
    chat, user = update.effective_chat, update.effective_user
    ids: dict[str, Any] = {"update_id": update.update_id, "chat_id": chat.id if chat else None,
                           "user_id": user.id if user else None}
    query = update.callback_query
    if query is not None and query.data and query.data[:2] in ("g:", "l:"):
        ids["game_id"] = query.data.split(":", 2)[1]
    return ids


async def handle_once(app: Any, update: Update, store: Store | None = None,
                      process: Awaitable[None] | None = None, key: str | None = None
                      ) -> UpdateOutcome:
    """Handle ``update`` unless some worker did already; see the module doc.

    ``process`` is the coroutine that handles it (default:
    ``app.process_update(update)``); it is closed unawaited when skipped.
    ``key``: the update's identity made from its JSON (bot/edge/incoming.py),
    else it is made from ``update``.
    """
    store = store or app.bot_data["store"]
    kind = kind_of(update)
    with logs.bind(**ids_of(update)):
        try:
            key = key or identity(update)
            state, claim = await store.updates.claim(key)
            earlier = await store.updates.load_effects(key) \
                if claim is not None and claim.attempt > 1 else {}
        except BaseException:
            _close(process)
            raise
        if claim is None:
            _close(process)
            outcome = UpdateOutcome.DUPLICATE if state == "done" else UpdateOutcome.IN_FLIGHT
            log.info("update %s skipped: %s", update.update_id, outcome.value)
            metrics.UPDATES.labels(kind, outcome.value).inc()
            return outcome
        attempt = claim.attempt
        current = Handling(update.update_id, kind)
        token = _handling.set(current)
        # written through as the attempt goes: one try each (what fails is written next time)
        journal, journal_token = effects.begin(
            earlier, functools.partial(store.updates.save_effects, key, budget=0))
        ids_token = ids_from(key, attempt)
        heartbeat = asyncio.create_task(_heartbeat(store, claim, journal))
        metrics.IN_FLIGHT.inc()
        try:
            work = process if process is not None else app.process_update(update)
            await asyncio.wait_for(work, HANDLE_TIMEOUT)
        except TimeoutError:
            current.error = current.error or HandlingTimeout(
                f"update {update.update_id} took over {HANDLE_TIMEOUT} s")
            log.error("update %s took over %s s: given up for a retry",
                      update.update_id, HANDLE_TIMEOUT)
        except Exception as error:  # process_update routes handler errors; this is the rest
            current.error = error
            log.exception("update %s could not be handled", update.update_id)
        finally:
            heartbeat.cancel()
            ids_done(ids_token)
            effects.end(journal_token)
            _handling.reset(token)
            metrics.IN_FLIGHT.dec()
            metrics.UPDATE_SECONDS.labels(kind).observe(time.perf_counter() - current.started)
        outcome = _outcome(current.error, attempt)
        if outcome.retry:  # before the marker: the retry must find it
            await journal.flush()
            if journal.dirty:  # the write-through failed: the journal must reach Redis
                await store.updates.save_effects(key, journal.written())
        # done: its journal is deleted in the same step
        await store.updates.settle_update(key, attempt, ok=not outcome.retry)
        metrics.UPDATES.labels(kind, outcome.value).inc()
        if outcome is UpdateOutcome.GIVEN_UP:
            log.error("update %s failed %s times; giving up on it", update.update_id, attempt)
        elif outcome is UpdateOutcome.FAILED:
            log.warning("update %s failed (attempt %s); a redelivery will retry it",
                        update.update_id, attempt)
        return outcome


async def _heartbeat(store: Store, claim: Claim, journal: effects.Journal,
                     every: float = HEARTBEAT) -> None:
    """Renew the update's claim while it is handled (and write what its journal
    noted since the last Bot API request), so that only a dead worker's claim
    runs out.  A failure is logged; the next beat tries again."""
    while True:
        await asyncio.sleep(every)
        try:
            await journal.flush()
            if not await store.updates.renew_update(claim):
                log.warning("update %s: its claim ran out and was taken over", claim.update)
                return
        except Exception as error:
            log.warning("update %s: claim not renewed: %r", claim.update, error)


def _outcome(error: BaseException | None, attempt: int) -> UpdateOutcome:
    if error is None or isinstance(error, PERMANENT):
        return UpdateOutcome.DONE
    if is_transient(error):  # Redis away (a failover): never given up, it comes back
        return UpdateOutcome.FAILED
    return UpdateOutcome.GIVEN_UP if attempt >= MAX_ATTEMPTS else UpdateOutcome.FAILED


def _close(process: Awaitable[None] | None) -> None:
    close = getattr(process, "close", None)
    if close is not None:
        close()


async def note_failure(update: object, context: Any) -> None:
    """Error handler (after the central one): remember that this update failed.

    An error a retry may fix also stops the update's later handler groups: the
    retry runs them all again.
    """
    current = _handling.get()
    error = context.error
    if error is not None:
        metrics.ERRORS.labels(type(error).__name__).inc()
    if current is not None and isinstance(update, Update) \
            and update.update_id == current.update_id and current.error is None:
        current.error = error
        if not isinstance(error, PERMANENT):
            raise ApplicationHandlerStop


@dataclasses.dataclass
class Slot:
    """One of the update slots (the processor's ``max_concurrent_updates``, the
    webhook's connections), held by the update handled in this task (a
    context variable, :func:`slot`).  :meth:`park` gives it back while the
    handler goes on: the chat outbox (bot/edge/outbox.py) calls it when a
    message must wait for the chat's flood bucket, so a spent bucket in one
    chat never holds the slots the other chats' updates need; so does a
    request about to wait for an analysis (bot/edge/handlers/analysis.py)."""

    lane: object
    """Whose messages these are (:func:`lane_of`): the chat outbox's round robin."""
    parked: asyncio.Future[None]

    def park(self) -> None:
        if not self.parked.done():
            self.parked.set_result(None)


_slot: contextvars.ContextVar[Slot | None] = contextvars.ContextVar("nardy_slot", default=None)
_PARKED: set[asyncio.Task[Any]] = set()
"""Handlers that gave their slot back and still run, and work started off any
slot (:func:`off_slot`), kept from the garbage collector."""


def slot() -> Slot | None:
    """The update slot this task holds, if any."""
    return _slot.get()


def parked() -> int:
    """Handlers of this event loop that gave their update slot back and still
    run (a loop closed with some still parked leaves them here for good)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return 0
    return sum(1 for task in _PARKED if not task.done() and task.get_loop() is loop)


def off_slot(work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
    """Run ``work`` in a task of its own that holds no update slot and that
    nobody awaits (a job's work that must not hold the job up: a chat's
    tournament lane, bot/edge/handlers/tournament.py), counted by
    :func:`parked` until it ends."""
    task = asyncio.ensure_future(work)
    _PARKED.add(task)
    task.add_done_callback(_PARKED.discard)
    return task


def lane_of(update: Update) -> object:
    """Whose turn the update's messages take in the chat outbox: the game a
    button names, else the user (a member's flood of commands is one lane).

    >>> tap = {"update_id": 7, "callback_query": {"id": "1", "chat_instance": "3",
    ...        "from": {"id": 2, "is_bot": False, "first_name": "A"}, "data": "g:x1:1:r"}}
    >>> lane_of(Update.de_json(tap, None))
    ('game', 'x1')
    >>> lane_of(Update.de_json({"update_id": 8, "message": {"message_id": 1, "date": 0,
    ...     "chat": {"id": -5, "type": "group"}, "text": "/rules",
    ...     "from": {"id": 2, "is_bot": False, "first_name": "A"}}}, None))
    ('user', 2)
    """
    game = ids_of(update).get("game_id")
    if game is not None:
        return "game", game
    user = update.effective_user
    return ("user", user.id) if user is not None else ("update", update.update_id)


async def handle_in_slot(app: Any, update: Update, store: Store | None = None,
                         process: Awaitable[None] | None = None, key: str | None = None
                         ) -> UpdateOutcome:
    """:func:`handle_once` holding an update slot until it is done, or until
    its handler parks (:meth:`Slot.park`): then the handler finishes off the
    slot and this returns ``DONE`` (the webhook answers Telegram, the
    processor takes the next update).  Such an update is settled when its
    handler ends; a failure after it parked is logged, not redelivered."""
    current = Slot(lane_of(update), asyncio.get_running_loop().create_future())
    token = _slot.set(current)
    try:
        task = asyncio.ensure_future(handle_once(app, update, store, process, key))
    finally:
        _slot.reset(token)
    await asyncio.wait((task, current.parked), return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        return task.result()
    metrics.PARKED.inc()
    _PARKED.add(task)
    task.add_done_callback(_PARKED.discard)
    return UpdateOutcome.DONE


class GatedUpdateProcessor(SimpleUpdateProcessor):
    """PTB's update processor for polling: runs each fetched update through
    :func:`handle_once` (at most ``max_concurrent_updates`` at once, each
    holding its slot until done or parked: :func:`handle_in_slot`).

    Its ``app`` is set by :func:`bot.edge.app.build_application` once the
    application exists.
    """

    app: Any = None

    async def initialize(self) -> None:
        """Once at start-up, with every module imported and the board
        pictures' layers drawn: see :func:`settle_heap`."""
        await super().initialize()
        settle_heap()

    async def do_process_update(self, update: object, coroutine: Any) -> None:
        if not isinstance(update, Update) or self.app is None \
                or "store" not in self.app.bot_data:
            await coroutine
            return
        await handle_in_slot(self.app, update, process=coroutine,
                             key=polled_identity(self.app, update))


GC_YOUNG = 10_000
"""Allocations between two young-generation collections (Python's default:
700).  A tap allocates thousands of short-lived objects (JSON, pydantic and
Telegram objects); at 700 the collector ran ~25 times a second under load
and every 100th run became a full collection of the live games' tables
(20-40 ms, all taps waiting).  Fewer, larger young collections (~0.5 ms)
make full ones ~14 times rarer; plain garbage is freed by reference
counting either way, only cycles wait longer."""


def settle_heap() -> None:
    """Move every object alive now (modules, pydantic schemas, Babel data,
    the cached board layers: ~85 000 objects) out of the garbage
    collector's sight.  They live as long as the process, yet each full
    collection walked them all: 30-110 ms with the whole process stopped,
    which was the slowest 1% of tap answers under load.  Later objects are
    collected as usual, but in larger batches (:data:`GC_YOUNG`)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG, *gc.get_threshold()[1:])


