"""The board app's page against games held in memory: a stand-in server for browser tests of
what the page draws and does (tests/e2e/test_miniapp_page.py), fast enough to try many
moments of a game (after the opponent's turn, a double, the end) at several phone sizes.

It serves the real page (bot/webapp/static) and answers its API with the real state
(:func:`bot.present.webstate.game_state`), the real ``initData`` check and the real rules
(:func:`bot.rules.play.apply_turn`, :func:`~bot.rules.play.apply_game`); what it leaves
out is the bot (storage, boards in the chat), which tests/e2e/test_miniapp.py drives.
The test changes a game with :meth:`AppHost.put` (an opponent's turn arriving live).
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import tornado.web

from bot.edge.initdata import InitDataError, checked
from bot.edge.webapp import STATIC, acted
from bot.present.analysis import summary
from bot.present.webapp import payload
from bot.present.webstate import game_state, step_of, turn_tree
from bot.rules.aftergame import continued
from bot.rules.analysis import analyse_job, job
from bot.rules.dice import Dealer
from bot.rules.lobby import start_game
from bot.rules.matchstate import table_of
from bot.rules.play import apply_game, apply_turn
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.i18n import translator
from bot.vocab.records import GameRecord, Player, Status, TableOptions
from bot.vocab.refusals import Refusal
from engine.game import Phase
from engine.position import Side, Variant
from tests.bot.trees import random_turn
from tests.botapi.model import User
from tests.e2e.miniapp import free_port, init_data, phone_size, wait_version

TOKEN = "123456:page-test-token"
ANN, BOB, EVE = 101, 202, 303
PLAYERS = (Player(user_id=ANN, name="Ann", side=Side.WHITE),
           Player(user_id=BOB, name="Bob", side=Side.BLACK))


class AppHost:
    """The page and its API on a free port, in a thread of its own."""

    def __init__(self) -> None:
        self.games: dict[str, GameRecord] = {}
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/app"
        self.orientation = "follow"
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.inflight = 0
        self.analysed = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> AppHost:
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    def put(self, record: GameRecord) -> str:
        """Hold ``record`` (a new version of a game the page may show); its payload."""
        key = payload(record.chat_id, record.game_id)
        self.games[key] = record
        return key

    def saved(self, old: GameRecord, new: GameRecord) -> GameRecord:
        """``new`` saved over ``old`` as the store does: the next version, or a game
        that continues ``old`` (a rematch accepted) saved beside it, ``old`` pointing
        to it; returns what became of ``old``'s game."""
        if new.game_id != old.game_id:
            self.put(new.model_copy(update={"version": 1}))
            new = continued(old, new, time.time())
        done = new.model_copy(update={"version": old.version + 1})
        self.put(done)
        return done

    def _serve(self) -> None:
        self._loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self._loop)
        app = tornado.web.Application([
            (r"/app/", _Page),
            (r"/app/static/(.*)", tornado.web.StaticFileHandler, {"path": str(STATIC)}),
            (r"/app/api/(state|turn|action|hint|analysis)", _Api, {"host": self}),
        ])
        app.listen(self.port, "127.0.0.1")
        self._ready.set()
        self._loop.run_forever()


class _Page(tornado.web.RequestHandler):
    def get(self) -> None:
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish((STATIC / "index.html").read_bytes())


class _Api(tornado.web.RequestHandler):
    host: AppHost

    def initialize(self, host: AppHost) -> None:
        self.host = host
        self.gone = False

    def on_connection_close(self) -> None:
        self.gone = True

    async def post(self, name: str) -> None:
        body = json.loads(self.request.body)
        self.host.requests.append((name, body))
        self.host.inflight += 1
        try:
            await self.answer(name, body)
        finally:
            self.host.inflight -= 1

    async def answer(self, name: str, body: dict[str, Any]) -> None:
        try:
            user = checked(TOKEN, body["initData"], now=time.time())
        except InitDataError as error:
            self.set_status(401)
            self.finish({"error": str(error)})
            return
        key = body["game"]
        tr = translator(user.language)
        record = self.host.games[key]
        try:
            if name == "state" and isinstance(body.get("after"), int):
                deadline = time.monotonic() + 4  # short: chromium keeps a page's
                # connections after it navigates, and has six per host
                while self.host.games[key].version == body["after"] \
                        and time.monotonic() < deadline:
                    if self.gone:
                        return  # the page went away
                    await asyncio.sleep(0.05)
                record = self.host.games[key]
            elif name in ("turn", "action"):
                if body.get("version") != record.version:
                    raise Refusal("The game changed meanwhile; please try again.")
                if name == "turn":
                    new = apply_turn(record, user.user_id, [step_of(s) for s in body["steps"]])
                else:  # the API's own rule (the real dealer's seeds: a rematch's)
                    new = acted(tr, record, user, body, Dealer.for_tests(len(self.host.requests)))
                record = self.host.saved(record, new)
            elif name == "hint":
                self.finish({"hint": "💡 24/18 13/10"})
                return
            elif name == "analysis":  # the bot's own analysis, in a thread (the bot: a pool)
                found = await asyncio.get_running_loop().run_in_executor(
                    None, analyse_job, job(record))
                self.host.analysed += 1
                self.finish({"analysis": summary(tr, record, found)})
                return
        except Refusal as refusal:
            self.set_status(409)
            self.finish({"error": tr.gettext(refusal.message)})
            return
        self.finish(json.dumps(game_state(tr, record, user.user_id,
                                          orientation=self.host.orientation)))


# ---- games at the moments the tests need ----

def started(variant: Variant, seed: int = 3, **options: Any) -> GameRecord:
    record = GameRecord(chat_id=-1001234567890, variant=variant, players=PLAYERS,
                        options=TableOptions(koks=False, **options))
    # the game's board is a message of its own, posted when it starts (its lobby stays)
    return start_game(record, Dealer.for_tests(seed)).model_copy(
        update={"version": 1, "board_message_id": 77})


def user_of(record: GameRecord, side: Side | None) -> int:
    return ANN if side is Side.WHITE else BOB


def advance(record: GameRecord, rng: random.Random, *, double: bool = False) -> GameRecord:
    """One action of whoever must act: a roll (or a double, where ``double`` and allowed),
    a take, or a random whole turn from the tree the app is sent."""
    game = table_of(record).game
    user = user_of(record, game.to_act)
    if game.phase is Phase.MOVE:
        tree = turn_tree(game, Side.WHITE)
        steps = random_turn(tree, rng)
        new = apply_turn(record, user, steps)
    else:
        action = {Phase.ROLL: ButtonAction.DOUBLE if double else ButtonAction.ROLL,
                  Phase.DOUBLE: ButtonAction.TAKE,
                  Phase.RESIGNATION: ButtonAction.ACCEPT}[game.phase]
        new = apply_game(record, user, Callback.game(record.game_id, record.version, action))
    return new.model_copy(update={"version": record.version + 1})


def until(record: GameRecord, done: Callable[[GameRecord], bool], seed: int = 7,
          limit: int = 2000) -> GameRecord:
    """``record`` played on at random until ``done`` says so."""
    rng = random.Random(seed)
    for _ in range(limit):
        if done(record):
            return record
        if record.status is not Status.ACTIVE:
            break
        record = advance(record, rng)
    raise AssertionError("the game never reached the moment asked for")


def moving_after(side: Side, turns: int = 4) -> Callable[[GameRecord], bool]:
    """``side`` to move, after at least ``turns`` turns, the opponent's last one with steps."""
    def done(record: GameRecord) -> bool:
        game = table_of(record).game
        moves = [e for e in game.events if e.action.name == "MOVE"]
        return (game.phase is Phase.MOVE and game.to_act is side and len(moves) >= turns
                and bool(moves[-1].steps) and moves[-1].side is side.opponent)
    return done


def over(record: GameRecord) -> bool:
    return record.status is Status.FINISHED


def stub(data: str, payload_: str, *, dark: bool = False, telegram_buttons: bool = False) -> str:
    """The script that stands in for Telegram's: ``window.Telegram.WebApp`` recording what
    the page asks of it in ``window.tgCalls``."""
    theme = ({"bg_color": "#17212b", "text_color": "#f5f5f5", "hint_color": "#708499",
              "secondary_bg_color": "#232e3c", "button_color": "#5288c1",
              "button_text_color": "#ffffff", "accent_text_color": "#6ab2f2"} if dark else
             {"bg_color": "#ffffff", "text_color": "#000000", "hint_color": "#999999",
              "secondary_bg_color": "#efeff3", "button_color": "#2481cc",
              "button_text_color": "#ffffff"})
    button = """(kind) => ({ params: {}, handlers: [],
        setParams(p) { Object.assign(this.params, p); calls.push([kind, JSON.stringify(p)]);
                       return this; },
        setText(t) { this.params.text = t; return this; },
        show() { this.params.is_visible = true; },
        hide() { this.params.is_visible = false; calls.push([kind, 'hide']); },
        onClick(f) { this.handlers.push(f); }, click() { this.handlers.forEach((f) => f()); } })"""
    extra = (f"MainButton: ({button})('main'), SecondaryButton: ({button})('second'),"
             if telegram_buttons else "")
    return f"""(() => {{
      const calls = window.tgCalls = [];
      window.addEventListener("error", (e) => calls.push(["jserror", e.message]));
      window.addEventListener("unhandledrejection", (e) => calls.push(["jserror",
                                                                       String(e.reason)]));
      window.Telegram = {{ WebApp: {{
        initData: {json.dumps(data)}, initDataUnsafe: {{ start_param: {json.dumps(payload_)} }},
        version: "8.0", colorScheme: {json.dumps("dark" if dark else "light")},
        themeParams: {json.dumps(theme)},
        isVersionAtLeast(v) {{ return parseFloat(v) <= 8.0; }},
        ready() {{ calls.push(['ready']); }}, expand() {{ calls.push(['expand']); }},
        disableVerticalSwipes() {{ calls.push(['disableVerticalSwipes']); }},
        onEvent() {{}}, close() {{ calls.push(['close']); }},
        openTelegramLink(url) {{ calls.push(['openTelegramLink', url]); }},
        HapticFeedback: {{
          selectionChanged() {{ calls.push(['haptic', 'selection']); }},
          impactOccurred(s) {{ calls.push(['haptic', 'impact:' + s]); }},
          notificationOccurred(s) {{ calls.push(['haptic', s]); }} }},
        {extra}
      }} }};
    }})();"""


def open_page(driver: Any, host: AppHost, record: GameRecord, user_id: int, *,
              size: tuple[int, int] = (390, 844), language: str = "en", **options: Any) -> None:
    """Open the page for ``record`` as ``user_id`` at ``size``, Telegram stubbed
    (``options``: :func:`stub`'s), and wait until it shows the game."""
    key = host.put(record)
    name = {ANN: "Ann", BOB: "Bob"}.get(user_id, "Eve")
    data = init_data(TOKEN, User(id=user_id, first_name=name, language_code=language),
                     start_param=key)
    phone_size(driver, size)
    previous = getattr(driver, "nardy_stub", None)
    if previous is not None:
        driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument",
                               {"identifier": previous})
    added = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                                   {"source": stub(data, key, **options)})
    driver.nardy_stub = added.get("identifier")
    driver.get(f"{host.url}/?game={key}")
    wait_version(driver, record.version)
