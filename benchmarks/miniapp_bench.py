"""What a Mini App turn costs the group: games through the real bot with the flood
limiter on, Alice in the Mini App (a real chromium), Bob tapping in the chat.

Run: ``.venv/bin/python benchmarks/miniapp_bench.py [turns] [variant...]``
(default 0: whole games; else that many of Alice's turns per variant).  Needs chromium and
chromedriver (bin/test installs them).  The bot runs with its default limiter
(NARDY_RATE_LIMIT unset: 30/s overall, ~20/min per group as Telegram allows) and
the local Bot API server answers 429 beyond 20 messages a minute per chat, as
Telegram does.  Players think THINK seconds before each action, as people do.

Prints, per turn of each player (Alice's in the Mini App, Bob's in the chat; a
turn runs from the moment the game waits for that player until it waits for the
other, her roll and take included, his Roll and steps included): group messages
(sends + edits into the group, pings and notes included) and taps; the app's API
requests, Confirm -> the app shows the result and -> the group board edited
p50/p95; Bob's tap -> redraw p50/p95; Bob's tap -> Alice's open app updated p50/p95.
The chat-only half (both players tapping) is the budget work's benchmark.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import itertools
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_redis import bench_redis_url
from bot.edge.boardpace import EVERY, SHARE
from bot.edge.webapp import ROLL_HOLD
from bot.present.webstate import unpack_tree
from bot.rules.play import UI_ONLY
from bot.vocab.callbacks import Callback
from tests.bot.driver import game_board, pick
from tests.bot.trees import walk
from tests.botapi import BotApiServer, BotProcess
from tests.botapi.limits import SENDING_METHODS
from tests.botapi.model import Chat
from tests.e2e.miniapp import (
    AppApi,
    browser,
    click,
    free_port,
    init_data,
    open_app,
    play_turn,
    shown_version,
    wait_version,
)

THINK = 1.0
GROUP_LIMIT = 20
"""Messages a minute the local server lets into one group (Telegram's)."""
SENDING = ("send", "edit", "copy", "forward")


def group_messages(server: BotApiServer, chat: Chat, since: float,
                   kinds: tuple[str, ...] = SENDING, until: float = float("inf")) -> int:
    """Messages (sends and edits, not answers or deletions) the bot made into ``chat``
    from ``since`` until before ``until``."""
    return sum(1 for r in server.requests() if since <= r.time < until and r.status == 200
               and r.method.lower().startswith(kinds)
               and str(r.params.get("chat_id")) == str(chat.id))


def requests(driver: Any) -> int:
    """The app's API requests so far (its long polls' answers included)."""
    return int(driver.execute_script("return window.nardyRequests || 0"))


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def board_edited(server: BotApiServer, chat: Chat, message_id: int, edits: int,
                 timeout: float = 120.0) -> float:
    start = time.monotonic()
    server.wait_for(lambda: server.message(chat, message_id).edits > edits, timeout,
                    description="the group board to be edited", chat=chat)
    return time.monotonic() - start


def run(variant: str, turns: int) -> dict[str, Any]:
    port = free_port()
    out: dict[str, Any] = {"variant": variant, "app": [], "chat": [], "live": [],
                           "segments": []}
    with tempfile.TemporaryDirectory() as data, BotApiServer() as server:
        server.rate_limit(GROUP_LIMIT, 60.0, per_chat=True)
        alice, bob = server.add_user("Alice"), server.add_user("Bob")
        chat = server.add_group("Bench", members=[alice, bob])
        env = {"NARDY_TEST_SEED": "9", "WEBAPP_URL": f"http://127.0.0.1:{port}/app",
               "WEBAPP_PORT": str(port)}
        bot = BotProcess.for_server(server, data_dir=data, log_level="WARNING", env=env)
        bot.start()
        server.watch(bot)
        try:
            deadline = time.monotonic() + 60
            while "Mini App on" not in bot.log and time.monotonic() < deadline:
                time.sleep(0.1)
            from tests.e2e.test_miniapp import app_link, start_game, state_after

            start_game(server, chat, variant, alice, bob)
            payload = app_link(server, chat)
            api = AppApi(f"http://127.0.0.1:{port}/app", server.token or "", alice, payload)
            state = api.state()
            segments: list[tuple[str, float]] = []  # (who acts, since when): one per turn
            taps = {"app": 0, "chat": 0}
            with browser() as driver:
                open_app(driver, api.url, payload, init_data(api.token, alice,
                                                             start_param=payload))
                wait_version(driver, state["version"])
                while state["status"] == "active" and (not turns or len(out["app"]) < turns):
                    who = "app" if state["to_act"] == state["you"] else "chat"
                    if not segments or segments[-1][0] != who:
                        segments.append((who, server.clock()))
                    time.sleep(THINK)
                    if who == "app":
                        if state["tree"] is None:
                            action = next(a for a in ("roll", "take") if a in state["actions"])
                            board = game_board(server, chat)
                            assert board is not None
                            click(driver, f'[data-action="{action}"]')
                            taps["app"] += 1
                            state = state_after(api, state["version"])
                            wait_version(driver, state["version"])
                            if action != "roll" or state["to_act"] != state["you"]:
                                # not held (a take; a roll with nothing to play): Bob
                                # taps once the board shows it
                                board_edited(server, chat, board.message_id, board.edits)
                            continue
                        board = game_board(server, chat)
                        assert board is not None
                        sent = requests(driver)
                        steps = play_turn(driver, state, confirm=False)
                        taps["app"] += 2 * len(steps) + 1
                        before = time.monotonic()
                        click(driver, '[data-action="confirm"]')
                        state = state_after(api, state["version"])
                        wait_version(driver, state["version"], timeout=120)
                        shown = time.monotonic() - before
                        redraw = board_edited(server, chat, board.message_id, board.edits)
                        redraw += shown
                        out["app"].append({"requests": requests(driver) - sent,
                                           "redraw": redraw, "shown": shown})
                    else:
                        board = game_board(server, chat)
                        assert board is not None
                        data_ = pick(board)
                        assert data_ is not None
                        before = time.monotonic()
                        shown = shown_version(driver)
                        tap = server.user_taps(chat, bob, board, data_)
                        answer = tap.wait_answer(60)
                        assert not answer.show_alert, answer  # never an unbounded wait below
                        taps["chat"] += 1
                        if Callback.parse(data_).action not in UI_ONLY:
                            # the open app follows (its long poll), whatever the board's pace
                            while shown_version(driver) == shown:
                                time.sleep(0.01)
                            out["live"].append(time.monotonic() - before)
                        board_edited(server, chat, board.message_id, board.edits)
                        out["chat"].append({"redraw": time.monotonic() - before})
                        if Callback.parse(data_).action not in UI_ONLY:
                            state = state_after(api, state["version"])
                time.sleep(1.0)  # the last edit's followers (a ping, a note) have gone out
            # every group message (send or edit) falls into the turn of the player who
            # was to act when it was made
            ends = [t for _, t in segments[1:]] + [server.clock()]
            for (who, since), until in zip(segments, ends, strict=True):
                out["segments"].append({
                    "who": who,
                    "sends": group_messages(server, chat, since, ("send", "copy", "forward"),
                                            until),
                    "edits": group_messages(server, chat, since, ("edit",), until)})
            out["taps"] = taps
        finally:
            bot.stop()
    return out


def report(result: dict[str, Any]) -> None:
    app, chat, live = result["app"], result["chat"], result["live"]
    print(f"== {result['variant']}: {len(app)} Mini App turns, {len(chat)} chat taps")
    for who, name in (("app", "Alice's turns (Mini App)"), ("chat", "Bob's turns (chat)")):
        turns = [s for s in result["segments"] if s["who"] == who]
        if not turns:
            continue
        sends = sum(s["sends"] for s in turns) / len(turns)
        edits = sum(s["edits"] for s in turns) / len(turns)
        print(f"  {name}: {len(turns)} turns, group messages {sends + edits:.2f}/turn "
              f"(sends {sends:.2f} + edits {edits:.2f}), taps "
              f"{result['taps'][who] / len(turns):.2f}/turn")
    if app:
        calls = statistics.mean(a["requests"] for a in app)
        print(f"  Mini App: API requests {calls:.2f}/turn (Confirm's); Confirm -> app shows it "
              f"p50 {pct([a['shown'] for a in app], .5):.2f} s, p95 "
              f"{pct([a['shown'] for a in app], .95):.2f} s; Confirm -> group board edited p50 "
              f"{pct([a['redraw'] for a in app], .5):.2f} s, p95 "
              f"{pct([a['redraw'] for a in app], .95):.2f} s")
    if chat:
        print(f"  chat: tap -> redraw p50 {pct([c['redraw'] for c in chat], .5):.2f} s, "
              f"p95 {pct([c['redraw'] for c in chat], .95):.2f} s")
    if live:
        print(f"  Bob's tap -> Alice's open app updated p50 {pct(live, .5):.2f} s, "
              f"p95 {pct(live, .95):.2f} s")


# --- several groups, both players in the app (no browser: the app's API as it calls it)

GAME_TURN = 8.0
"""Seconds a game takes per turn at human pace (each player thinks this long)."""
CHAT_METHODS = SENDING_METHODS - {"answercallbackquery"}
"""What a group's 20 a minute count (a tap's answer is no message in the group)."""
TAP_EVERY = 3.5
"""Seconds between two taps in one group in the scale run (within its 20 a minute)."""
TOKEN_RATE = 30.0
"""Messages a second Telegram allows one bot in all chats."""


@dataclasses.dataclass
class Tally:
    app_turns: int = 0
    actions: int = 0
    refused: int = 0
    errors: int = 0
    statuses: collections.Counter[int] = dataclasses.field(default_factory=collections.Counter)


class Client:
    """The app's API as one user's open app calls it (initData signed by the bench)."""

    def __init__(self, http: Any, url: str, token: str, user: Any, payload: str,
                 tally: Tally) -> None:
        self.http, self.url, self.token, self.user, self.payload = http, url, token, user, payload
        self.tally = tally

    async def call(self, name: str, **body: Any) -> tuple[int, Any]:
        data = {"initData": init_data(self.token, self.user), "game": self.payload,
                "packed": True, **body}
        try:
            answer = await self.http.post(f"{self.url}/api/{name}", json=data,
                                          headers={"Accept-Encoding": "gzip"})
        except Exception:  # a refused or dropped connection: counted
            self.tally.errors += 1
            return 0, {}
        self.tally.statuses[answer.status_code] += 1
        body_ = answer.json() if answer.content else {}
        if isinstance(body_, dict) and body_.get("tree"):
            body_["tree"] = unpack_tree(body_["tree"])
        return answer.status_code, body_


async def app_player(client: Client, think: float, stop_at: float, rng: random.Random) -> None:
    """A player in the app: waits (its long poll) until the game waits for them, thinks,
    then rolls, takes, or plays a whole turn (a random walk of the tree)."""
    import asyncio

    status, state = await client.call("state")
    while status == 200 and state.get("status") == "active" and time.monotonic() < stop_at:
        if state["to_act"] != state["you"]:
            status, newer = await client.call("state", after=state["version"])
            state = newer if status == 200 else state
            continue
        await asyncio.sleep(think)
        acts, version = state["actions"], state["version"]
        if state.get("tree"):
            steps = [edge["step"] for edge in walk(state["tree"], rng.choice)]
            status, answer = await client.call("turn", version=version, play=state["play"],
                                               steps=steps)
            client.tally.app_turns += status == 200
        else:
            action = next((a for a in ("take", "roll", "accept") if a in acts), None)
            if action is None:
                status, answer = await client.call("state", after=version)
                state = answer if status == 200 else state
                continue
            status, answer = await client.call("action", version=version, action=action)
        client.tally.actions += 1
        if status == 200:
            state = answer
        else:
            client.tally.refused += 1
            status, state = await client.call("state")


def turns_of(records: list[Any]) -> int:
    """The turns played in these games (each began with a roll, blocked ones too)."""
    from bot.rules.matchstate import table_of
    from engine.game import Action
    return sum(1 for record in records for e in table_of(record).game.events
               if e.action is Action.ROLL)


@contextlib.contextmanager
def bot_with_games(count: int, variants: tuple[str, ...]) -> Iterator[tuple[Any, ...]]:
    """The bot (its Mini App on) against the local Bot API server with Telegram's
    limits (20 a minute a group, 30 a second in all), ``count`` groups each with a
    game started (variants in turn): (server, bot, app port, Redis URL, tables of
    (chat, first player, second player, the app's payload))."""
    import redis

    from tests.e2e.test_miniapp import app_link, start_game

    url = bench_redis_url()
    redis.Redis.from_url(url).flushdb()
    port = free_port()
    with BotApiServer() as server:
        server.rate_limit(GROUP_LIMIT, 60.0, per_chat=True, methods=CHAT_METHODS)
        server.rate_limit(int(TOKEN_RATE), 1.0, per_chat=False)
        env = {"WEBAPP_URL": f"http://127.0.0.1:{port}/app", "WEBAPP_PORT": str(port)}
        bot = BotProcess.for_server(server, redis_url=url, log_level="WARNING", env=env)
        bot.start()
        server.watch(bot)
        try:
            deadline = time.monotonic() + 60
            while "Mini App on" not in bot.log and time.monotonic() < deadline:
                time.sleep(0.1)
            tables = []
            for n in range(count):
                alice, bob = server.add_user(f"A{n}"), server.add_user(f"B{n}")
                chat = server.add_group(f"G{n}", members=[alice, bob])
                start_game(server, chat, variants[n % len(variants)], alice, bob)
                tables.append((chat, alice, bob, app_link(server, chat)))
            yield server, bot, port, url, tables
        finally:
            bot.stop()


def groups(count: int, minutes: float, think: float) -> dict[str, Any]:
    """``count`` groups, each a game both players play in the app, for ``minutes``."""
    import asyncio

    import httpx
    import psutil

    out: dict[str, Any] = {}
    with bot_with_games(count, ("long", "backgammon")) as (server, bot, port, url, tables):
        time.sleep(2.0)  # the start's messages are out
        since = server.clock()
        tally = Tally()
        process = psutil.Process(bot.pid)
        cpu = sum(process.cpu_times()[:2])
        began = time.monotonic()

        async def play() -> None:
            limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
            async with httpx.AsyncClient(timeout=60, limits=limits) as http:
                base = f"http://127.0.0.1:{port}/app"
                stop_at = time.monotonic() + minutes * 60
                await asyncio.gather(*(
                    app_player(Client(http, base, server.token or "", user, payload, tally),
                               think, stop_at, random.Random(n))
                    for n, (_, a, b, payload) in enumerate(tables) for user in (a, b)))

        asyncio.run(play())
        elapsed = time.monotonic() - began
        time.sleep(max(EVERY, ROLL_HOLD) + 5.0)  # the paced draws still due are made
        out["cpu"] = sum(process.cpu_times()[:2]) - cpu
        chats = {str(chat.id) for chat, *_ in tables}
        done = [r for r in server.requests() if r.time >= since
                and str(r.params.get("chat_id")) in chats
                and r.method.lower().startswith(SENDING)]
        out["messages"] = sum(1 for r in done if r.status == 200)
        out["flooded"] = sum(1 for r in done if r.status == 429)
        out.update(elapsed=elapsed, tally=tally, games=count)
        out["final"] = final_boards(server, url, tables)
    return out


def final_boards(server: BotApiServer, url: str, tables: list[Any]) -> dict[str, int]:
    """How many games' group boards show their stored version (the last state), and
    the turns played in all (from the stored games)."""
    import asyncio

    import redis.asyncio as aioredis

    from bot.store import Store

    async def read() -> list[Any]:
        client = aioredis.Redis.from_url(url)
        try:
            store = Store(client)
            return [game for chat, *_ in tables
                    for game in await store.games.chat_games(chat.id, ended=True)][:len(tables)]
        finally:
            await client.aclose()

    records = asyncio.run(read())
    current = 0
    for (chat, *_), record in zip(tables, records, strict=False):
        board = game_board(server, chat)
        versions = {Callback.parse(d).version for row in (board.buttons if board else [])
                    for _, d in row if d and d.startswith("g:")}
        current += versions == {record.version} or not versions
    return {"current": current, "turns": turns_of(records)}


def report_groups(result: dict[str, Any]) -> None:
    tally: Tally = result["tally"]
    turns = result["final"]["turns"]
    app = max(tally.app_turns, 1)
    per_turn = result["messages"] / app
    per_game_second = result["messages"] / (result["games"] * result["elapsed"])
    print(f"== {result['games']} groups, both players in the app, {result['elapsed']:.0f} s, "
          f"default limiter (20/min a group, 30/s in all), picture boards")
    print(f"  turns {turns}: app turns (chosen in the app) {tally.app_turns}, forced or "
          f"blocked (played by themselves) {turns - tally.app_turns}; app actions "
          f"{tally.actions}, refused {tally.refused}")
    print(f"  group messages {result['messages']} (429 answers: {result['flooded']}): "
          f"{per_turn:.2f} per app turn, {result['messages'] / max(turns, 1):.2f} per turn")
    print(f"  app API answers {dict(sorted(tally.statuses.items()))}, connection errors "
          f"{tally.errors}")
    print(f"  bot CPU {result['cpu']:.1f} s: {tally.app_turns / max(result['cpu'], 1e-9):.1f} "
          f"app turns per second per core (every request of the open apps included)")
    every = result["elapsed"] * result["games"] / max(turns, 1)
    print(f"  a turn every {every:.1f} s a game; {per_game_second:.3f} group messages a second "
          f"a game: one token ({TOKEN_RATE:.0f} messages/s in all chats) carries "
          f"{TOKEN_RATE / max(per_game_second, 1e-9):.0f} such games (beyond "
          f"{SHARE * EVERY:.0f} games in the app the pace lengthens, bot/edge/boardpace.py: "
          f"paced boards stay within {SHARE:.0f}/s however many)")
    print(f"  group boards showing the final state: {result['final']['current']} of "
          f"{result['games']}")


# --- many open apps on one worker, taps in the chat meanwhile


def scale(apps: int, seconds: float, count: int = 4) -> dict[str, Any]:
    """``apps`` long polls open on one worker (spread over ``count`` games' payloads,
    as spectators), while the players tap in their groups: tap -> answer latency,
    whether each tap was applied, and the polls' answers by status."""
    import asyncio
    import threading

    out: dict[str, Any] = {"latency": [], "applied": 0, "taps": 0}
    with bot_with_games(count, ("long",)) as (server, _bot, port, _url, tables):
        tally = Tally()
        fans = [server.add_user(f"F{n}") for n in range(apps)]
        stop = threading.Event()
        opened = threading.Event()

        inflight = [0]

        async def polls() -> None:  # aiohttp: the client must not be the bottleneck
            import aiohttp

            base = f"http://127.0.0.1:{port}/app/api/state"
            opened_count = [0]
            connector = aiohttp.TCPConnector(limit=0)
            timeout = aiohttp.ClientTimeout(total=90)
            async with aiohttp.ClientSession(connector=connector, timeout=timeout) as http:
                async def ask(body: dict[str, Any]) -> tuple[int, Any]:
                    inflight[0] += 1
                    try:
                        async with http.post(base, json=body) as answer:
                            tally.statuses[answer.status] += 1
                            return answer.status, await answer.json()
                    except Exception:  # a refused or dropped connection: counted
                        tally.errors += 1
                        return 0, {}
                    finally:
                        inflight[0] -= 1

                async def one(n: int, user: Any) -> None:
                    body = {"initData": init_data(server.token or "", user),
                            "game": tables[n % count][3], "packed": True}
                    status, state = await ask(body)
                    opened_count[0] += 1
                    if opened_count[0] == apps:
                        opened.set()
                    version = state.get("version", 0) if status == 200 else 0
                    while not stop.is_set():
                        status, state = await ask({**body, "after": version})
                        if status == 200:
                            version = state["version"]
                        else:
                            await asyncio.sleep(1.0)

                tasks = []
                for n, user in enumerate(fans):  # opened over a few seconds, as people do
                    tasks.append(asyncio.create_task(one(n, user)))
                    if n % 50 == 49:
                        await asyncio.sleep(0.1)
                while not stop.is_set():
                    await asyncio.sleep(0.2)
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)

        runner = threading.Thread(target=asyncio.run, args=(polls(),), daemon=True)
        runner.start()
        opened.wait(300)
        out["opened"] = opened.is_set()
        out["waiting"] = []
        time.sleep(2.0)  # the last ones are waiting
        stop_at = time.monotonic() + seconds
        next_tap: dict[int, float] = {}
        while time.monotonic() < stop_at:
            time.sleep(0.05)
            for chat, alice, bob, _ in tables:
                if time.monotonic() < next_tap.get(chat.id, 0.0):
                    continue
                next_tap[chat.id] = time.monotonic() + TAP_EVERY
                board = game_board(server, chat)
                if board is None:
                    continue
                data_ = pick(board)
                if data_ is None:
                    continue
                edits = board.edits
                for user in (alice, bob):  # the one whose turn it is gets no alert
                    before = time.monotonic()
                    tap = server.user_taps(chat, user, board, data_)
                    answer = tap.wait_answer(60)
                    if answer.show_alert:
                        continue
                    out["latency"].append(time.monotonic() - before)
                    out["waiting"].append(inflight[0])
                    out["taps"] += 1
                    try:
                        server.wait_for(lambda c=chat, b=board, e=edits:
                                        server.message(c, b.message_id).edits > e
                                        or (game_board(server, c) or b).message_id
                                        != b.message_id, 30,
                                        description="the tap's redraw", chat=chat)
                        out["applied"] += 1
                    except AssertionError:
                        pass
                    break
        stop.set()
        runner.join(30)
        out["tally"] = tally
    return out


def report_scale(result: dict[str, Any], apps: int) -> None:
    tally: Tally = result["tally"]
    latency = result["latency"]
    print(f"== {apps} open apps on one worker (long polls, "
          f"{'all opened' if result['opened'] else 'NOT all opened'}), taps in the chat")
    waiting = sorted(result["waiting"]) or [0]
    print(f"  open apps' polls waiting at the taps: min {waiting[0]}, median "
          f"{waiting[len(waiting) // 2]}")
    print(f"  taps {result['taps']}, applied (board redrawn) {result['applied']}; tap -> answer "
          f"p50 {pct(latency, .5):.2f} s, p99 {pct(latency, .99):.2f} s, max "
          f"{max(latency, default=float('nan')):.2f} s")
    fives = sum(n for status, n in tally.statuses.items() if status >= 500)
    print(f"  app answers {dict(sorted(tally.statuses.items()))}: 5xx {fives}, connection "
          f"errors {tally.errors}")


# --- how many games one token carries: the real pace on a virtual clock


def token(games: int, seconds: float = 600.0, turn: float = GAME_TURN) -> tuple[float, float]:
    """``games`` games both played in the app, a turn every ``turn`` seconds each
    (spread evenly), through one worker's :class:`BoardPace` on a virtual clock for
    ``seconds``: the group-board draws a second in all, and the seconds between two
    draws of one game (mean)."""
    import asyncio
    import heapq

    from bot.edge.boardpace import BoardPace
    from bot.vocab.records import GameRecord
    from engine.position import Variant

    async def simulate() -> tuple[float, float]:
        now = [0.0]
        wakes: list[tuple[float, int, asyncio.Future[None]]] = []
        order = [0]

        async def sleep(wait: float) -> None:
            future = asyncio.get_running_loop().create_future()
            order[0] += 1
            heapq.heappush(wakes, (now[0] + wait, order[0], future))
            await future

        pace = BoardPace(clock=lambda: now[0], sleep=sleep)
        records = [GameRecord(chat_id=-1 - n, game_id=f"game{n}", variant=Variant.LONG)
                   for n in range(games)]
        drawn: dict[int, list[float]] = {n: [] for n in range(games)}

        def drawer(n: int) -> Any:
            async def draw(_old: GameRecord, _new: GameRecord) -> None:
                drawn[n].append(now[0])
            return draw

        async def load(n: int) -> GameRecord:
            return records[n]

        turns = sorted((n * turn / games + k * turn, n) for n in range(games)
                       for k in range(int(seconds / turn)))
        for at, n in turns:
            while wakes and wakes[0][0] <= at:
                when, _, future = heapq.heappop(wakes)
                now[0] = when
                future.set_result(None)
                await asyncio.sleep(0)
                await asyncio.sleep(0)
            now[0] = at
            await pace.change(records[n], records[n], drawer(n),
                              lambda n=n: load(n), paced=True)
            await asyncio.sleep(0)  # a draw put off starts its wait
        total = sum(len(times) for times in drawn.values())
        gaps = [b - a for times in drawn.values() for a, b in itertools.pairwise(times)]
        return total / seconds, statistics.mean(gaps) if gaps else float("nan")

    return asyncio.run(simulate())


def report_token() -> None:
    print(f"== one worker's paced group boards, a turn every {GAME_TURN:.0f} s a game "
          f"(virtual clock, bot/edge/boardpace.py as it runs)")
    for games in (50, 200, 500, 1000, 2000):
        rate, gap = token(games)
        print(f"  {games:5d} games: {rate:5.1f} board edits a second in all "
              f"(Telegram allows {TOKEN_RATE:.0f}), each game's board every {gap:.1f} s, "
              f"{rate / (games / GAME_TURN):.2f} per app turn")


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].isdigit() else "browser"
    args = sys.argv[2:] if mode != "browser" else sys.argv[1:]
    if mode == "groups":  # groups [games] [minutes] [think seconds]
        count = int(args[0]) if args else 4
        minutes = float(args[1]) if len(args) > 1 else 3.0
        think = float(args[2]) if len(args) > 2 else GAME_TURN
        report_groups(groups(count, minutes, think))
        return
    if mode == "token":
        report_token()
        return
    if mode == "scale":  # scale [apps] [seconds]
        apps = int(args[0]) if args else 2000
        report_scale(scale(apps, float(args[1]) if len(args) > 1 else 60.0), apps)
        return
    turns = int(args[0]) if args else 0
    variants = args[1:] or ["long", "backgammon"]
    for variant in variants:
        report(run(variant, turns))


if __name__ == "__main__":
    main()
