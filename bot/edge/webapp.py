"""The Mini App's HTTP side: its static files and its JSON API, on the bot's web server.

Routes (all under ``/app``, :func:`routes`; :class:`bot.edge.web.WebServer` serves
them in webhook mode beside the webhook, and in polling mode when ``WEBAPP_URL`` is
set):

``GET /app/``, ``GET /app/static/<file>``
    The page and its plain JavaScript modules (bot/webapp/static, no build step).
``POST /app/api/state``
    ``{initData, game, after?, packed?}``: the game as :func:`bot.present.webstate.game_state`
    draws it for the user.  With ``after`` (a version) it is a long poll: it answers
    as soon as the stored version differs, else after :data:`LONG_POLL` seconds.
    It waits in memory: the worker's one subscription to the games' changes
    (:mod:`bot.edge.live`, told by every worker's saves) wakes it; a waiting poll
    reads nothing from Redis.  With ``packed`` (every request may carry it) the turn
    tree is sent packed (:func:`bot.present.webstate.pack_tree`; the app's tree.js
    unpacks it).
``POST /app/api/turn``
    ``{initData, game, version, play?, steps}``: the whole turn, checked by the engine
    (:func:`bot.rules.play.apply_turn`) and saved with the tap's compare-and-set on
    ``version`` (or on the stored one if only the board moved since: the same
    ``play``); then every board of the game is redrawn once.
``POST /app/api/action``
    ``{initData, game, version, action, level?}``: roll, double, take, pass, beaver,
    resign (``level``), accept, decline: the tap's rule (:func:`bot.rules.play.apply_game`).
    After the game: rematch (the offer of a rematch or of the match's next game),
    withdraw, accept, decline: the group board's buttons' rule
    (:func:`bot.rules.taps.tap`, so :func:`bot.rules.aftergame.after_game`), the
    rematch's seed committed with the offer; an Accept whose tap is the new match's
    dice entropy (docs/fair-dice.md) is refused here: it is made on the board in the
    chat, whose tap Telegram gives an id the bot cannot know before.
    A roll's redraw of the boards is held for :data:`ROLL_HOLD` seconds: the turn
    the mover then sends in the app redraws them once for both (the group's budget,
    issue 24: a Mini App turn costs one group message); a mover who thinks longer
    gets the roll drawn when the hold ends.
``POST /app/api/hint``
    ``{initData, game}``: the hint's text, where a 💡 Hint tap would give one.
``POST /app/api/analysis``
    ``{initData, game}``: a finished game's analysis, each player's figures
    (:func:`bot.present.analysis.summary`), computed as 📊 and ``/analyze`` compute it
    (:func:`bot.edge.handlers.computer.analysed`: in the analysis pool, off the event
    loop, once per game, within the same bounds per chat and user).

Every request is refused (401) unless its ``initData`` is Telegram's and fresh
(:mod:`bot.edge.initdata`); a game is shown to anyone with a valid ``initData`` and its
payload, but only a seated player may act (the rules refuse others exactly as they
refuse their taps).  Bodies over :data:`MAX_REQUEST` bytes get 413; a user making
more than :data:`RATE` requests in :data:`RATE_WINDOW` seconds gets 429 (per worker).
Answers over :data:`GZIP_FROM` bytes are gzipped for a client that accepts it.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any

import tornado.web
from telegram.ext import CallbackContext

from bot.edge.boardpace import BoardPace, Presence, at_once
from bot.edge.handlers import computer as computer_turns
from bot.edge.handlers import hints as hint_answers
from bot.edge.handlers.analysis import NO_GAME, NOT_OVER
from bot.edge.handlers.board import show as show_change
from bot.edge.handlers.common import alert_text, chat_settings, get_dealer
from bot.edge.handlers.computer import TooManyAnalyses, analysed
from bot.edge.initdata import InitData, InitDataError, checked
from bot.edge.live import LiveGames
from bot.present.analysis import summary
from bot.present.webapp import PayloadError, game_of
from bot.present.webstate import game_state, play_key, step_of
from bot.rules import hints
from bot.rules.analysis import analysable
from bot.rules.dice import Dealer, entropy_tap
from bot.rules.play import (
    apply_game,
    apply_turn,
    needs_double_confirmation,
    needs_resign_confirmation,
)
from bot.rules.seats import seat_of, waiting_user
from bot.rules.taps import tap
from bot.service.saving import save_first
from bot.store import Store, VersionConflict
from bot.store.layout import GameLimit
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.i18n import LANGUAGES, Translator, translator
from bot.vocab.records import GameRecord, Status
from bot.vocab.refusals import ACCEPT_IN_CHAT, CHANGED, GAME_LIMIT, STALE, Refusal
from engine.position import EngineError

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parents[1] / "webapp" / "static"
STATIC_NAME = r"[A-Za-z0-9_-]+\.[A-Za-z0-9]+"
"""What a static file's name may be (the files of bot/webapp/static are all such)."""
MAX_REQUEST = 16 * 1024
"""Bytes an API request may have (a turn is four steps; initData under 1 kB)."""
RATE = 600
RATE_WINDOW = 60.0
LONG_POLL = 25.0
APP_REDIS = 24
"""App requests that may use Redis at once: the bot's pool has 100 connections
(redis-py's default), and the chats' updates and the jobs need theirs however many
apps are open (issue 34: a burst of app requests took them all; the bot's taps,
joins and jobs failed with "Too many connections").  A waiting long poll holds none."""
WATCHED = 2048
"""Spectators' states kept (one per game, version, language and view)."""
GZIP_FROM = 1024
"""Bytes from which an answer is gzipped (a smaller one gains nothing)."""
MAX_STEPS = 4
ROLL_HOLD = 20.0
"""Seconds a roll made in the app waits before it redraws the boards; a turn sent
within them makes that redraw needless (the turn's shows the roll too)."""

ACTIONS = {"roll": ButtonAction.ROLL, "double": ButtonAction.DOUBLE,
           "take": ButtonAction.TAKE, "pass": ButtonAction.PASS_SURE,
           "beaver": ButtonAction.BEAVER, "resign": ButtonAction.RESIGN,
           "accept": ButtonAction.ACCEPT, "decline": ButtonAction.DECLINE}
"""The app's action names and the buttons they are (Pass and a staked Double are
confirmed in the app itself, so they are the buttons' second taps)."""
AFTER = {"rematch": ButtonAction.REMATCH, "withdraw": ButtonAction.WITHDRAW,
         "accept": ButtonAction.ACCEPT, "decline": ButtonAction.DECLINE}
"""The app's actions after the game: the board's buttons for the next game's offer."""


class ApiError(ValueError):
    """A request the API refuses: its HTTP status and a message for the user."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class RateLimit:
    """At most ``rate`` requests per ``window`` seconds per user (this worker's count)."""

    def __init__(self, rate: int = RATE, window: float = RATE_WINDOW,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.window, self.clock = rate, window, clock
        self._seen: dict[int, deque[float]] = {}

    def allow(self, user_id: int) -> bool:
        now = self.clock()
        seen = self._seen.setdefault(user_id, deque())
        while seen and now - seen[0] > self.window:
            seen.popleft()
        if len(seen) >= self.rate:
            return False
        seen.append(now)
        if len(self._seen) > 10_000:  # forget the quiet ones
            self._seen = {u: q for u, q in self._seen.items() if q and now - q[-1] <= self.window}
        return True


class Webapp:
    """What the API handlers share: the application, the token, the clock."""

    def __init__(self, app: Any, token: str, *, clock: Callable[[], float] = time.time,
                 rate: RateLimit | None = None, roll_hold: float = ROLL_HOLD,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                 long_poll: float = LONG_POLL, live: LiveGames | None = None,
                 pace: BoardPace | None = None, presence: Presence | None = None) -> None:
        self.app = app
        self.token = token
        self.clock = clock
        self.rate = rate or RateLimit()
        self.roll_hold, self.sleep = roll_hold, sleep
        self.long_poll = long_poll
        self.live = live or LiveGames(lambda: self.store)
        """The worker's one subscription to the games' changes, for the long polls."""
        self.pace = pace or BoardPace()
        """The group boards of games both players play in the app (bot/edge/boardpace.py)."""
        self.presence = presence or Presence()
        self.watched: OrderedDict[tuple[Any, ...], dict[str, Any]] = OrderedDict()
        """The states spectators were sent lately, by game, version, language and view."""
        self._woken: OrderedDict[tuple[int, str, int], asyncio.Future[GameRecord | None]] = \
            OrderedDict()
        self.gate = asyncio.Semaphore(APP_REDIS)
        """The app's requests reading or writing Redis at once (the others queue here)."""
        self._redraws: set[asyncio.Future[None]] = set()

    @property
    def store(self) -> Store:
        store: Store = self.app.bot_data["store"]
        return store

    def later(self, work: Coroutine[Any, Any, None], record: GameRecord) -> None:
        """Redraw the boards after the answer (kept referenced until done, errors logged;
        a redraw that fails leaves its board behind, and the next tap repairs it, as
        after a failed tap's redraw)."""
        task = asyncio.ensure_future(work)
        self._redraws.add(task)

        def done(finished: asyncio.Future[None]) -> None:
            self._redraws.discard(task)
            if not finished.cancelled() and finished.exception() is not None:
                log.error("game %s: redrawing after a Mini App turn failed", record.game_id,
                          exc_info=finished.exception())

        task.add_done_callback(done)

    async def held(self, work: Callable[[], Coroutine[Any, Any, None]],
                   saved: GameRecord) -> None:
        """``work`` (the redraw after ``saved``) after :attr:`roll_hold` seconds,
        unless the game has moved on meanwhile: that change's redraw shows
        ``saved``'s too (and a tap on the board meanwhile is told the board is
        catching up, and repairs it, bot/edge/handlers/buttons.py)."""
        await self.sleep(self.roll_hold)
        current = await self.store.games.load_game(saved.chat_id, saved.game_id)
        if current is not None and current.version == saved.version:
            await work()

    async def woken(self, chat_id: int, game_id: str, version: int) -> GameRecord | None:
        """The game as the polls a change (to ``version``) woke read it: one read for
        them all (a move wakes every open app of the game at once)."""
        key = (chat_id, game_id, version)
        shared = self._woken.get(key)
        if shared is None:
            shared = asyncio.ensure_future(self.store.games.load_game(chat_id, game_id))
            self._woken[key] = shared
            shared.add_done_callback(lambda done: done.cancelled() or done.exception() is None
                                     or self._woken.pop(key, None))
            if len(self._woken) > WATCHED:
                self._woken.popitem(last=False)
        return await asyncio.shield(shared)

    def context(self) -> Any:
        """A handler context of its own for one request (what it reads is cached in it)."""
        return CallbackContext(self.app)


def routes(webapp: Webapp) -> list[Any]:
    args = {"webapp": webapp}
    return [
        (r"/app/?", _Page),
        # only plain file names reach the file handler: anything else (a NUL byte, a
        # "..", a slash, a percent sign) is no route, so a plain 404, never the 500 a
        # NUL byte raised in the path's resolution
        (rf"/app/static/({STATIC_NAME})", tornado.web.StaticFileHandler, {"path": str(STATIC)}),
        (r"/app/api/state", _State, args),
        (r"/app/api/turn", _Turn, args),
        (r"/app/api/action", _Action, args),
        (r"/app/api/hint", _Hint, args),
        (r"/app/api/analysis", _Analysis, args),
    ]


class _Page(tornado.web.RequestHandler):
    def get(self) -> None:
        if not self.request.path.endswith("/"):  # its modules and API are relative to /app/
            query = f"?{self.request.query}" if self.request.query else ""
            self.redirect(f"{self.request.path}/{query}")
            return
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-cache")
        self.finish((STATIC / "index.html").read_bytes())


class _Api(tornado.web.RequestHandler):
    webapp: Webapp

    def initialize(self, webapp: Webapp) -> None:
        self.webapp = webapp

    def answer(self, status: int, body: dict[str, Any]) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-store")
        self.set_header("Vary", "Accept-Encoding")
        data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
        if len(data) >= GZIP_FROM and "gzip" in self.request.headers.get("Accept-Encoding", ""):
            data = gzip.compress(data, compresslevel=6)
            self.set_header("Content-Encoding", "gzip")
        self.finish(data)

    def on_connection_close(self) -> None:
        """The client went away (an app closed during its long poll): stop waiting."""
        gone = getattr(self, "_gone", None)
        if gone is not None and not gone.done():
            gone.set_result(None)

    async def post(self) -> None:
        tr = translator(None)
        try:
            if len(self.request.body) > MAX_REQUEST:
                raise ApiError(413, "request too large")
            try:
                body = json.loads(self.request.body)
            except ValueError:
                raise ApiError(400, "malformed request") from None
            if not isinstance(body, dict):
                raise ApiError(400, "malformed request")
            self.packed = body.get("packed") is True  # the app unpacks (tree.js)
            try:
                user = checked(self.webapp.token, str(body.get("initData") or ""),
                               now=self.webapp.clock())
            except InitDataError as error:
                raise ApiError(401, str(error)) from None
            if not self.webapp.rate.allow(user.user_id):
                raise ApiError(429, "too many requests")
            try:
                chat_id, game_id = game_of(str(body.get("game") or user.start_param or ""))
            except PayloadError as error:
                raise ApiError(400, str(error)) from None
            async with self.webapp.gate:  # the app's share of the Redis pool
                context = self.webapp.context()
                settings = await chat_settings(context, chat_id)
                # the app is the user's own screen: their Telegram language where the bot
                # speaks it, else the chat's
                tr = translator(user.language if user.language in LANGUAGES
                                else settings.language)
                record = await self.webapp.store.games.load_game(chat_id, game_id)
                if record is None or not record.engine:
                    raise ApiError(404, tr.gettext("There is no such game."))
                self.webapp.presence.seen(record.ref, user.user_id)
                result = await self.act(context, tr, user, record, body)
            self.answer(200, result)
        except ApiError as error:
            self.answer(error.status, {"error": error.message})
        except Refusal as refusal:
            self.answer(409, {"error": alert_text(tr, refusal)})

    async def act(self, context: Any, tr: Translator, user: InitData, record: GameRecord,
                  body: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    async def state(self, context: Any, tr: Translator, user: InitData,
                    record: GameRecord) -> dict[str, Any]:
        settings = await chat_settings(context, record.chat_id)
        packed = getattr(self, "packed", False)
        if seat_of(record, user.user_id) is not None:
            waits = False
            if record.next_game is not None and record.status is not Status.ACTIVE:
                # a rematch against the computer waits for ▶ Start, a tap in the chat
                following = await self.webapp.store.games.load_game(record.chat_id,
                                                                     record.next_game)
                waits = following is not None and not following.engine
            return game_state(tr, record, user.user_id, orientation=settings.orientation,
                              packed=packed, next_waits=waits)
        # every spectator of a version sees the same: made once (a move wakes them all)
        key = (record.ref, record.version, tr.lang, settings.orientation, packed)
        shown = self.webapp.watched.get(key)
        if shown is None:
            shown = game_state(tr, record, user.user_id, orientation=settings.orientation,
                               packed=packed)
            self.webapp.watched[key] = shown
            if len(self.webapp.watched) > WATCHED:
                self.webapp.watched.popitem(last=False)
        return shown

    async def commit(self, context: Any, tr: Translator, user: InitData, record: GameRecord,
                     new: GameRecord, *, hold: bool = False) -> dict[str, Any]:
        """Save ``new`` over ``record`` (the tap's compare-and-set), redraw the boards once
        (``hold``: a roll's redraw, :meth:`Webapp.held`)."""
        if new is record:
            return await self.state(context, tr, user, record)
        try:
            saved, upkeep = await save_first(self.webapp.store, record, new)
        except VersionConflict:
            raise Refusal(CHANGED) from None
        except GameLimit as full:  # the match's next game, in a chat at its limit
            raise Refusal(GAME_LIMIT, count=full.live) from None
        await upkeep()
        saved = await computer_turns.play(context, saved)
        # the app has its answer at once; the boards follow at the group's pace (the
        # flood limiter may hold an edit for seconds), as a tap is answered first
        webapp = self.webapp
        paced = (not saved.is_private and webapp.presence.all_here(saved)
                 and not at_once(record, saved))

        def draw(old: GameRecord, new: GameRecord) -> Coroutine[Any, Any, None]:
            # asked when drawn (a paced draw comes later): the group board says the game
            # is played in the app while both still are, the pace's own condition
            live = not new.is_private and webapp.presence.all_here(new)
            return show_change(context, tr, old, new, user.user_id, live=live)

        def load() -> Awaitable[GameRecord | None]:
            return webapp.store.games.load_game(saved.chat_id, saved.game_id)

        held = hold and waiting_user(saved) == user.user_id  # the roll left the move to them
        if paced:  # both players in the app: the group board follows every EVERY s
            webapp.later(webapp.pace.change(record, saved, draw, load, paced=True,
                                            hold=webapp.roll_hold if held else 0.0), saved)
        elif held:
            webapp.later(webapp.held(lambda: draw(record, saved), saved), saved)
        else:
            webapp.later(webapp.pace.change(record, saved, draw, load, paced=False), saved)
        if saved.game_id != record.game_id:
            # the next game began (accepted here): the app shows the game it asked for,
            # now continued, and goes on into the next one from it (its payload)
            record = await webapp.store.games.load_game(record.chat_id, record.game_id) \
                or record
            return await self.state(context, tr, user, record)
        return await self.state(context, tr, user, saved)


def _version(body: dict[str, Any], record: GameRecord) -> None:
    """Refuse a request made on another version of the game than the stored one,
    unless only the board moved since (the same :func:`play_key`: a ``/board``
    repost must not undo the mover's unsent steps, issue 34); the save is still the
    compare-and-set on the version loaded."""
    version = body.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version > record.version:
        raise Refusal(CHANGED)
    if version != record.version and body.get("play") != play_key(record):
        raise Refusal(CHANGED)


class _State(_Api):
    async def act(self, context: Any, tr: Translator, user: InitData, record: GameRecord,
                  body: dict[str, Any]) -> dict[str, Any]:
        after = body.get("after")
        if isinstance(after, int) and not isinstance(after, bool) and record.version == after:
            record = await self.follow(record, after)
        return await self.state(context, tr, user, record)

    async def follow(self, record: GameRecord, after: int) -> GameRecord:
        """``record`` once its stored version moves past ``after`` (or as it is after
        the long poll's time, or when the client went away), waiting in the worker's
        memory (:mod:`bot.edge.live`)."""
        games = self.webapp.store.games
        name = games.name_of(record.chat_id, record.game_id)
        self._gone: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        async with self.webapp.live.listen(name, after) as moved:
            [version] = await games.versions([name])  # saved before we listened?
            if version == after and self.request.connection is not None:
                either: list[asyncio.Future[Any]] = [moved, self._gone]
                self.webapp.gate.release()  # a waiting poll holds no share of the pool
                try:
                    await asyncio.wait(either, timeout=self.webapp.long_poll,
                                       return_when=asyncio.FIRST_COMPLETED)
                finally:
                    await self.webapp.gate.acquire()
                if not moved.done():
                    return record
                if not moved.cancelled():  # a move woke every poll of the game: one read
                    found = await self.webapp.woken(record.chat_id, record.game_id,
                                                    moved.result())
                    return found or record
        found = await games.load_game(record.chat_id, record.game_id)
        return found or record


class _Turn(_Api):
    async def act(self, context: Any, tr: Translator, user: InitData, record: GameRecord,
                  body: dict[str, Any]) -> dict[str, Any]:
        _version(body, record)
        raw = body.get("steps")
        if not isinstance(raw, list) or len(raw) > MAX_STEPS:
            raise ApiError(400, "steps must be a list of at most four steps")
        try:
            steps = [step_of(value) for value in raw]
        except (ValueError, EngineError):
            raise ApiError(400, "malformed step") from None
        return await self.commit(context, tr, user, record,
                                 apply_turn(record, user.user_id, steps))


def acted(tr: Translator, record: GameRecord, user: InitData, body: dict[str, Any],
          dealer: Dealer) -> GameRecord:
    """The record an app action (``body``'s) makes: during the game the tap's rule
    (:func:`bot.rules.play.apply_game`); after it, the board's buttons' rule
    (:func:`bot.rules.taps.tap`, so :func:`bot.rules.aftergame.after_game`: a rematch's
    seed committed with its offer).  :class:`ApiError` or :class:`Refusal` otherwise.
    Pure: the API and the page tests' stand-in server (tests/e2e/apphost.py) call it."""
    name = str(body.get("action"))
    if record.status is not Status.ACTIVE:
        action = AFTER.get(name)
        if action is None:
            raise ApiError(400, "unknown action")
        if entropy_tap(record, action) is not None:
            # it would fix the new match's dice: a request from the app has no id the
            # bot could not make up, a tap in the chat has Telegram's (docs/fair-dice.md)
            raise Refusal(ACCEPT_IN_CHAT)
        data = Callback.game(record.game_id, record.version, action)
        try:
            return tap(record, user.user_id, user.name, data, dealer, own_board=False)
        except Refusal as refusal:
            if refusal.message == STALE:  # the chat's words ("use the newest message")
                raise Refusal(CHANGED) from None
            raise
    action = ACTIONS.get(name)
    if action is None:
        raise ApiError(400, "unknown action")
    args: tuple[int, ...] = ()
    if action is ButtonAction.RESIGN:
        level = body.get("level")
        if not isinstance(level, int) or isinstance(level, bool) or not 1 <= level <= 3:
            raise ApiError(400, "resign needs a level 1..3")
        args = (level,)
    if action is ButtonAction.DOUBLE and needs_double_confirmation(record):
        action = ButtonAction.DOUBLE_SURE  # the app asked "Yes, double" itself
    if action is ButtonAction.RESIGN and needs_resign_confirmation(record):
        action = ButtonAction.RESIGN_SURE  # and "resign?" (confirmFirst)
    return apply_game(record, user.user_id, Callback.game(record.game_id, record.version,
                                                          action, *args))


class _Action(_Api):
    async def act(self, context: Any, tr: Translator, user: InitData, record: GameRecord,
                  body: dict[str, Any]) -> dict[str, Any]:
        _version(body, record)
        # the dealer commits a rematch's seed; no tap id: an app request is no entropy
        new = acted(tr, record, user, body, get_dealer(context).tapped(None))
        rolled = record.status is Status.ACTIVE and body.get("action") == "roll"
        return await self.commit(context, tr, user, record, new, hold=rolled)


class _Hint(_Api):
    async def act(self, context: Any, tr: Translator, user: InitData, record: GameRecord,
                  body: dict[str, Any]) -> dict[str, Any]:
        question = hints.ask(record, user.user_id)
        return {"hint": await hint_answers.answer_text(tr, question)}


class _Analysis(_Api):
    async def act(self, context: Any, tr: Translator, user: InitData, record: GameRecord,
                  body: dict[str, Any]) -> dict[str, Any]:
        # who may see it and when: as 📊 on the board (a private game: its players only)
        if record.is_private and seat_of(record, user.user_id) is None:
            raise ApiError(404, tr.gettext("There is no such game."))
        if not analysable(record):
            raise Refusal(NOT_OVER if record.status.is_open else NO_GAME)
        self.webapp.gate.release()  # seconds in the pool: no share of the Redis pool held
        try:
            report = await analysed(record, record.chat_id, user.user_id)
        except TooManyAnalyses as busy:
            raise Refusal(busy.message) from None
        finally:
            await self.webapp.gate.acquire()
        return {"analysis": summary(tr, record, report)}
