"""The computer opponent at work: it thinks off the event loop and saves like a tap.

When a saved record waits for the computer (:func:`bot.rules.computer.waiting_for_computer`),
:func:`play` asks the brains in a worker pool - a process pool by default
(``NARDY_AI_WORKERS=process``; ``thread`` for a thread pool), because most of
a turn's thinking is Python (the legal turns) that holds the GIL: in a thread
it would slow every other game's taps (benchmarks/computer_bench.py measures
both).  Its buttons are pressed on the event loop (:func:`bot.rules.computer.press`:
the same rules, dice and compare-and-set as a tap), and the result is saved
once: the whole turn is one board update.

Two pools, one worker process each: :func:`pool` for what a person waits
for on a board (the computer's moves, hints) and :func:`analysis_pool` for
analyses (📊, ``/analyze``, ``/export``), so a move is never queued behind an
analysis.  The computer's answer to each question (a position, its dice) is
computed once and kept (:data:`MOVES`, :class:`bot.edge.memo.Memo`).

A game's analysis (📊, ``/analyze``, ``/export``) is computed once too
(:func:`analysed`: :data:`_ANALYSES` shares it, and a second request while it
is computed waits for that one); a request waiting for one gives its update
slot back (:func:`_give_slot_back`), so requests waiting for analyses never
hold the slots other chats' taps need (tests/bot/edge/handlers/test_thinking.py).
A new analysis is started only within :data:`MAX_PER_CHAT` in flight for
the chat it is asked in and :data:`MAX_PER_USER` for whoever asks (per
worker); beyond that the asker is told to ask again later (:func:`refusal`).

Not a handler: the handlers share it (tests/bot/edge/handlers/test_imports.py).

Nothing is kept in memory between two steps: a crash (or a lost
compare-and-set) mid-think leaves the record waiting for the computer, and
the next tap on it, ``/board``, or the :func:`sweep_job` (at start-up and
every :func:`sweep_interval` seconds, through the computer's own index of open
games) resumes it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import hashlib
import json
import logging
import multiprocessing
import os
from collections import Counter
from collections.abc import Awaitable, Callable
from concurrent.futures import BrokenExecutor, Executor
from typing import TypeVar

from ai.analysis import Analysis
from bot.edge import ops
from bot.edge.handlers.board import board_translator, edit, notify
from bot.edge.handlers.common import Context, chat_language, chat_settings, get_dealer, get_store
from bot.edge.memo import Memo
from bot.rules import computer
from bot.rules.analysis import Job, analyse_job, earlier_jobs, job
from bot.rules.cancelling import cancelled
from bot.rules.dice import Dealer
from bot.rules.lobby import awaits_start
from bot.service.saving import commit_game, save
from bot.store import VersionConflict
from bot.vocab import clock
from bot.vocab.i18n import N_, Translator, translator
from bot.vocab.processes import die_with_parent
from bot.vocab.records import GameRecord
from bot.vocab.refusals import Refusal
from engine.position import Variant

log = logging.getLogger(__name__)
Q = TypeVar("Q")
A = TypeVar("A")

WORKERS_ENV = "NARDY_AI_WORKERS"
MAX_STEPS = 200
"""Button rounds one :func:`play` may take.  A turn is at most three (take,
roll, move), but while the person has no choice (dancing on the bar against
a closed board: rolls and forced turns play themselves) the computer plays
turn after turn; the bound only keeps a defect from spinning."""
SWEEP_ENV = "NARDY_COMPUTER_SWEEP"
SWEEP_JOB = "computer"
COMPUTER_PER_PERSON = "computer_per_person"
COMPUTER_IDLE = "computer_idle"
"""bot_data keys of ``COMPUTER_GAMES_PER_PERSON`` and ``COMPUTER_IDLE_DAYS`` (in
seconds), set at start-up (bot/edge/app.py); absent: the defaults of bot/rules/computer.py."""
IDLE_BEFORE_SWEEP = 5.0
"""Seconds a record must have waited for the computer before the sweep resumes
it (younger ones are being played by the update that saved them)."""

_POOL: Executor | None = None
_ANALYSIS_POOL: Executor | None = None
MOVES: Memo[computer.Question, computer.Answer] = Memo(1024)
"""The computer's answers, by question (one is a few hundred bytes)."""
_THINKING: set[str] = set()
"""Games this process is playing for the computer now (a second trigger
waits for nothing: the first one's save shows the turn)."""


def pool() -> Executor:
    """The worker pool for moves and hints (made on first use: one worker)."""
    global _POOL
    if _POOL is None:
        _POOL = _new_pool("computer")
    return _POOL


def analysis_pool() -> Executor:
    """The worker pool for analyses (made on first use: one worker; while it
    analyses, :func:`pool`'s worker still plays)."""
    global _ANALYSIS_POOL
    if _ANALYSIS_POOL is None:
        _ANALYSIS_POOL = _new_pool("analysis")
    return _ANALYSIS_POOL


def _new_pool(name: str) -> Executor:
    if os.environ.get(WORKERS_ENV, "process") == "thread":
        return concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix=name)
    # spawn: a fork of a process running an event loop and threads is unsafe; it
    # ends with the bot however the bot dies (a kill -9 left it behind)
    return concurrent.futures.ProcessPoolExecutor(
        1, mp_context=multiprocessing.get_context("spawn"), initializer=die_with_parent,
        initargs=(os.getpid(),))


def sweep_interval() -> float:
    """Seconds between two sweeps (``NARDY_COMPUTER_SWEEP``, default 30)."""
    return float(os.environ.get(SWEEP_ENV) or 30)


def _drop_pool(broken: Executor) -> None:
    global _POOL, _ANALYSIS_POOL
    if _POOL is broken:
        _POOL = None
    if _ANALYSIS_POOL is broken:
        _ANALYSIS_POOL = None
    broken.shutdown(wait=False, cancel_futures=True)


async def in_pool(work: Callable[[Q], A], question: Q, *, analysis: bool = False) -> A:
    """``work(question)`` in a worker pool, awaited on the event loop: the
    computer's thinking and hints (bot/edge/handlers/hints.py) in :func:`pool`,
    analyses (``analysis``: bot/edge/handlers/analysis.py) in :func:`analysis_pool`."""
    workers = analysis_pool() if analysis else pool()
    try:
        return await asyncio.get_running_loop().run_in_executor(workers, work, question)
    except BrokenExecutor:
        _drop_pool(workers)  # its worker died (killed, out of memory): a new one next time
        raise


async def advance(record: GameRecord, dealer: Dealer) -> GameRecord:
    """``record`` after everything the computer does now (nothing saved);
    ``record`` itself when it does not wait for the computer."""
    new = record
    for _ in range(MAX_STEPS):
        step = computer.next_move(new)
        if step is None:
            break
        if isinstance(step, computer.Question):
            answer = await MOVES.get(step, functools.partial(in_pool, computer.think, step))
            step = computer.buttons_for(new, step, answer)
        new = computer.press(new, step, dealer)
    return new


async def opening(record: GameRecord, dealer: Dealer) -> GameRecord:
    """A new game against the computer before its first save: the computer's
    opening turn if it starts (if it cannot think now, the game is saved
    waiting for it, and a tap, /board or the sweep plays it)."""
    try:
        return await advance(record, dealer)
    except Exception:
        log.exception("the computer could not open %s", record.ref)
        return record


async def seat(context: Context, named: Translator, choice: str, user_id: int,
               variant: Variant) -> computer.Seat:
    """Where the computer sits down against ``user_id`` in a game of ``variant``
    asked at ``choice`` (a level, or auto: the level of their standing, read
    now), named in ``named``'s language (the board's).  Every place the
    computer sits down asks here: ``/new … bot``, the lobby's 🤖 Play the bot,
    a rematch (:func:`play`)."""
    standing = await get_store(context).computer.standing(user_id, variant)
    return computer.seat_for(named, choice, standing)


async def _seated_anew(context: Context, old: GameRecord, new: GameRecord) -> GameRecord:
    """A rematch the computer accepted (``new`` continues ``old``, waiting for
    the person's ▶ Start): the computer seated again by the game's choice of
    level, so a game at auto is followed by one at the level its result gave
    (a fixed level sits as it was)."""
    bot = computer.computer_seat(new)
    if new.game_id == old.game_id or not awaits_start(new) or bot is None \
            or new.options.computer is None:
        return new
    person = next(p for p in new.players if p.user_id != bot.user_id)
    # the board's language, as when it first sat down (noted then; else the person's)
    named = await board_translator(context, await chat_settings(context, new.chat_id), translator(
        await get_store(context).prefs.language(person.user_id)))
    return computer.seat_computer(new, await seat(context, named, new.options.computer,
                                                  person.user_id, new.variant), person)


async def play(context: Context, record: GameRecord) -> GameRecord:
    """Let the computer act in the stored ``record`` and save it (one
    compare-and-set); returns the stored record after it, or the newest
    stored one if something else changed it meanwhile."""
    store = get_store(context)
    key = str(record.ref)
    if key in _THINKING or not computer.waiting_for_computer(record):
        return record
    _THINKING.add(key)
    try:
        new = await advance(record, get_dealer(context))
        if new is record:
            return record
        new = await _seated_anew(context, record, new)
        return await save(store, record, new)
    except (VersionConflict, Refusal) as lost:
        # a tap or another process moved the game on: the stored record is the truth
        log.info("the computer's move in %s was not saved: %s", key, lost)
        current = await store.games.load(record.key)
        return current if current is not None else record
    except Exception:
        # the thinking failed: the record still waits for the computer, and the
        # next tap, /board or sweep tries again; the person's own change stands
        log.exception("the computer could not play in %s", key)
        return record
    finally:
        _THINKING.discard(key)


async def resume(context: Context, tr: Translator, record: GameRecord) -> GameRecord:
    """If ``record`` waits for the computer (a crash, a restart), let it play
    now and redraw the boards; returns the stored record."""
    if not computer.waiting_for_computer(record):
        return record
    saved = await play(context, record)
    if saved.version != record.version:
        await edit(context, tr, saved)
        await notify(context, saved)
    return saved


def per_person(context: Context) -> int:
    """Games against the computer one person may play at once in a chat or topic."""
    return int(context.bot_data.get(COMPUTER_PER_PERSON, computer.PER_PERSON_DEFAULT))


def idle_after(context: Context) -> float:
    """Seconds a game against the computer may wait for its person."""
    return float(context.bot_data.get(COMPUTER_IDLE, computer.IDLE_DEFAULT))


async def end_idle(context: Context, tr: Translator, record: GameRecord) -> GameRecord | None:
    """End ``record`` if it has waited :func:`idle_after` for its person (as it
    is stored at that moment, by compare-and-set): cancelled, unrated and
    unbooked; its board says so.  Returns the ended record, else None."""
    limit = idle_after(context)

    def change(current: GameRecord, now: float) -> GameRecord:
        return cancelled(current) if computer.idle(current, now, limit) else current

    store = get_store(context)
    changed = await commit_game(store, lambda: store.games.load(record.key), change)
    if changed is None or changed[0] is changed[1]:
        return None
    await edit(context, tr, changed[1])
    return changed[1]


async def sweep_job(context: Context) -> None:
    """The repeating job: resume every game that has waited for the
    computer longer than :data:`IDLE_BEFORE_SWEEP`, and end those that have
    waited :func:`idle_after` for their person (found through the
    computer's index of open games; the clock is :func:`bot.vocab.clock.now`)."""
    store = context.bot_data.get("store")
    if store is None:  # Redis not open yet
        return
    now = clock.now()
    for level in computer.LEVELS:
        for record in await store.games.user_games(computer.user_id(level)):
            if computer.idle(record, now, idle_after(context)):
                work, what = end_idle, "ending the idle game"
            elif computer.waiting_for_computer(record) \
                    and now - record.updated_at >= IDLE_BEFORE_SWEEP:
                work, what = resume, "resuming the computer's turn in"
            else:
                continue
            tr = translator(None if record.is_private
                            else await chat_language(context, record.chat_id))
            try:
                await work(context, tr, record)
            except Exception:  # one broken game must not stop the others
                log.exception("%s %s failed", what, record.ref)


KEPT_ANALYSES = 32
"""Analyses this process keeps (the same game asked for in another language
or style is drawn again, not analysed again)."""


MAX_PER_CHAT = 2
"""New analyses in flight at once for requests from one chat (per worker)."""


MAX_PER_USER = 1
"""New analyses in flight at once for requests by one user (per worker)."""


TOO_MANY_IN_CHAT = N_("Games of this chat are being analysed already; please ask again in "
                      "a minute.")


TOO_MANY_OF_USER = N_("Your earlier request is still being analysed; please ask again in "
                      "a minute.")


_ANALYSES: Memo[str, Analysis] = Memo(KEPT_ANALYSES)


_RUNNING_IN_CHAT: Counter[int] = Counter()


_RUNNING_OF_USER: Counter[int] = Counter()


class TooManyAnalyses(ValueError):
    """A new analysis beyond the bound of its chat or user; ``message`` says which."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def refusal(record: GameRecord, chat_id: int, user_id: int) -> str | None:
    """Why a request from ``user_id`` in ``chat_id`` may not start the analysis
    of ``record`` now (the untranslated message), or None: kept or in flight
    analyses are always shared; a new one must be within the bounds."""
    return _refusal(str(record.ref), chat_id, user_id)


def _refusal(key: str, chat_id: int, user_id: int) -> str | None:
    if key in _ANALYSES or _ANALYSES.in_flight(key):
        return None
    if _RUNNING_IN_CHAT[chat_id] >= MAX_PER_CHAT:
        return TOO_MANY_IN_CHAT
    if _RUNNING_OF_USER[user_id] >= MAX_PER_USER:
        return TOO_MANY_OF_USER
    return None


async def analysed(record: GameRecord, chat_id: int = 0, user_id: int = 0) -> Analysis:
    """The game's analysis: kept, shared with the one in flight, or computed
    in the analysis pool for a request from ``user_id`` in ``chat_id``
    (:class:`TooManyAnalyses` beyond their bounds)."""
    return await _analysed(str(record.ref), job(record), chat_id, user_id)


async def analysed_earlier(record: GameRecord, chat_id: int = 0, user_id: int = 0
                           ) -> list[tuple[int, Analysis]]:
    """The analyses of the match's games before the record's, numbered
    (/export of a match: :func:`bot.rules.analysis.earlier_jobs`), one after
    the other within the same bounds as :func:`analysed`.  Each is kept by
    the game and its score, so the match's later games' exports share them."""
    found = []
    for number, work in earlier_jobs(record):
        digest = hashlib.sha256(json.dumps([work.game, work.score], sort_keys=True).encode())
        key = f"{record.chat_id}:game:{digest.hexdigest()[:24]}"
        found.append((number, await _analysed(key, work, chat_id, user_id)))
    return found


async def _analysed(key: str, work: Job, chat_id: int, user_id: int) -> Analysis:
    def compute() -> Awaitable[Analysis]:
        return in_pool(analyse_job, work, analysis=True)

    if key in _ANALYSES:
        return await _ANALYSES.get(key, compute)
    if _ANALYSES.in_flight(key):
        _give_slot_back()
        return await _ANALYSES.get(key, compute)
    too_many = _refusal(key, chat_id, user_id)
    if too_many is not None:
        raise TooManyAnalyses(too_many)
    _give_slot_back()
    _RUNNING_IN_CHAT[chat_id] += 1
    _RUNNING_OF_USER[user_id] += 1
    try:
        return await _ANALYSES.get(key, compute)
    finally:
        for running, who in ((_RUNNING_IN_CHAT, chat_id), (_RUNNING_OF_USER, user_id)):
            running[who] -= 1
            if running[who] <= 0:
                del running[who]


def _give_slot_back() -> None:
    """The update about to wait for an analysis gives its update slot back
    (:meth:`bot.edge.ops.Slot.park`) and waits off it: however many requests
    wait for analyses, the other chats' taps find a free slot."""
    held = ops.slot()
    if held is not None:
        held.park()
