"""Load test: two bot workers in webhook mode behind one "load balancer", the
real Redis, many games at once, duplicate deliveries and simultaneous taps.

Run: ``.venv/bin/python benchmarks/load_test.py
[games] [concurrency] [taps]`` (default 1000 games, 48 played at a time, 10 taps
each; the BENCH_REDIS_URL database (bench_redis.py) is FLUSHED first).

The local Bot API server (tests/botapi) delivers webhook updates to two
``python -m bot`` processes in turn (``webhook_targets``).  Each game: ``/new``
with a stake, two joins, then ``taps`` rounds in which *both* players tap the
chosen button at the same moment (only the mover's may apply), a quarter of
the rounds the mover taps it twice at once, and a fifth of the taps are
delivered again (``redeliver``: Telegram's retry), a quarter of those at once
(while the first delivery is being handled) and the rest after the answer;
then the mover resigns and the opponent accepts, which books the stake.

It prints updates per second, tap -> answerCallbackQuery p50/p99, and checks
every game afterwards from Redis: the stored game replays (``Game.from_dict``),
it holds exactly the steps, rolls and confirmations whose taps were answered
as applied (no step lost or doubled), every tap was answered exactly once
(duplicates never reached a handler twice), the history has the game once and
the chat's ledger balances with it.
"""

from __future__ import annotations

import collections
import random
import socket
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx
import redis

from benchmarks.bench_redis import bench_redis_url
from tests.bot.driver import game_board, pick
from tests.botapi import BotApiServer, BotProcess
from tests.botapi.model import Chat, Message, User

GAMES = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
CONCURRENCY = int(sys.argv[2]) if len(sys.argv) > 2 else 48
TAPS = int(sys.argv[3]) if len(sys.argv) > 3 else 10
STAKE = 3
SECRET = "load-test-secret"
TIMEOUT = 60.0
APPLYING = {"r": "roll", "m": "step", "c": "confirm"}
"""Actions whose applied taps the check counts (the driver never doubles or undoes)."""


@dataclass
class Played:
    chat: Chat
    players: tuple[User, User]
    variant: str
    applied: collections.Counter[str] = field(default_factory=collections.Counter)
    taps: list[tuple[str, float]] = field(default_factory=list)
    resigner: int | None = None
    problems: list[str] = field(default_factory=list)


def action_of(data: str) -> str:
    return data.split(":")[3]


class Load:
    def __init__(self, server: BotApiServer, seed: int) -> None:
        self.server = server
        self.rng = random.Random(seed)
        self.lock = threading.Lock()

    def chance(self, p: float) -> bool:
        with self.lock:
            return self.rng.random() < p

    def tap(self, game: Played, user: User, board: Message, data: str, *,
            duplicate: bool = False) -> object:
        started = time.time()
        tap = self.server.user_taps(game.chat, user, board, data, strict=False)
        game.taps.append((tap.query_id, started))
        if duplicate:
            self.server.redeliver(tap.update_id)
        return tap

    def delivery_log(self, update_id: int) -> str:
        tries = [(d.status, round(d.seconds, 2), d.error) for d in self.server.webhook_deliveries
                 if d.update_id == update_id]
        return f"update {update_id} deliveries {tries}, pending {self.server.pending_updates()}"

    def wait_board(self, game: Played, board: Message, since: int) -> Message:
        def changed() -> Message | None:
            latest = next((m for m in reversed(self.server.messages(game.chat))
                           if m.from_bot and any(d and d[:2] in ("g:", "l:")
                                                 for row in m.buttons for _, d in row)), None)
            if latest is not None and (latest.message_id != board.message_id
                                       or latest.revision > since):
                return latest
            return None
        return self.server.wait_for(changed, TIMEOUT, description="the board to change")

    def play(self, game: Played) -> None:
        server, (alice, bob) = self.server, game.players
        sent = server.user_sends(game.chat, alice, f"/new {game.variant} stake={STAKE}")
        lobby = server.wait_message(game.chat, "New game", since=sent, timeout=TIMEOUT)
        for user in (alice, bob):
            join = next(d for row in lobby.buttons for _, d in row if d.endswith(":j"))
            since = server.revision
            tap = self.tap(game, user, lobby, join, duplicate=self.chance(0.2))
            tap.wait_answer(TIMEOUT)  # type: ignore[attr-defined]
            lobby = self.wait_board(game, lobby, since)
        mover = 0
        for _ in range(TAPS):
            board = game_board(server, game.chat)
            assert board is not None
            data = pick(board)
            if data is None:
                break
            since = server.revision
            tappers = [0, 1] + ([mover] if self.chance(0.25) else [])
            taps = [(who, self.tap(game, game.players[who], board, data,
                                   duplicate=self.chance(0.05))) for who in tappers]
            try:
                answers = [(who, t.wait_answer(TIMEOUT)) for who, t in taps]  # type: ignore[attr-defined]
            except AssertionError:
                game.problems.append(f"a tap on {data} was not answered: " + "; ".join(
                    self.delivery_log(t.update_id) for _, t in taps))  # type: ignore[attr-defined]
                return
            for _, t in taps:
                if self.chance(0.15):  # Telegram's retry of an update already handled
                    server.redeliver(t.update_id)  # type: ignore[attr-defined]
            took = [who for who, answer in answers if not answer.show_alert]
            if not took:
                game.problems.append(f"nobody could tap {data}: {answers}")
                return
            mover = took[0]
            action = action_of(data)
            if action in APPLYING:
                if len(took) != 1:
                    game.problems.append(f"{data} applied {len(took)} times")
                game.applied[APPLYING[action]] += 1
            self.wait_board(game, board, since)
        self.resign(game, mover)

    def resign(self, game: Played, mover: int) -> None:
        server = self.server
        for who in (mover, 1 - mover):
            board = game_board(server, game.chat)
            assert board is not None
            menu = next((d for row in board.buttons for _, d in row if d.endswith(":o")), None)
            if menu is None:
                game.problems.append("no menu button")
                return
            since = server.revision
            if self.tap(game, game.players[who], board, menu).wait_answer(  # type: ignore[attr-defined]
                    TIMEOUT).show_alert:
                continue
            board = self.wait_board(game, board, since)
            offer = next(d for row in board.buttons for _, d in row if ":R:" in d)
            since = server.revision
            if self.tap(game, game.players[who], board, offer).wait_answer(  # type: ignore[attr-defined]
                    TIMEOUT).show_alert:
                continue
            board = self.wait_board(game, board, since)
            accept = next(d for row in board.buttons for _, d in row if d.endswith(":a"))
            since = server.revision
            answer = self.tap(game, game.players[1 - who], board, accept,
                              duplicate=True).wait_answer(TIMEOUT)  # type: ignore[attr-defined]
            if answer.show_alert:
                game.problems.append(f"accepting the resignation was refused: {answer}")
            self.wait_board(game, board, since)
            game.resigner = who
            return
        game.problems.append("neither player could resign")


def check(client: redis.Redis, games: list[Played]) -> list[str]:
    """Every game's stored record, history and ledger against what was tapped."""
    from bot.rules.matchstate import MatchState
    from bot.store.records import GameRecord, Status, decode

    problems = []
    for game in games:
        name = f"nardy:{{chat:{game.chat.id}}}"
        raw = client.hget(f"{name}:game:0", "d")
        record = decode(GameRecord, name, raw, int(client.hget(f"{name}:game:0", "v") or 0))
        where = f"chat {game.chat.id}"
        problems += [f"{where}: {p}" for p in game.problems]
        if record.status is not Status.FINISHED:
            problems.append(f"{where}: status {record.status}")
            continue
        table = MatchState.from_dict(record.engine)  # replays every event: raises if inconsistent
        events = table.game.events
        stored = {
            "step": sum(len(e.steps) for e in events) + len(record.engine["game"]["played"]),
            # backgammon's opening dice are the first roll event, without a tap
            "roll": sum(e.action.value == "roll" for e in events)
            - (game.variant == "backgammon"),
            "confirm": sum(e.action.value == "move" and bool(e.steps) for e in events),
        }
        for name_, count in stored.items():
            if count != game.applied[name_]:
                problems.append(f"{where}: {count} {name_}s stored, {game.applied[name_]} applied")
        history = [e for e in (decode_history(client, game.chat.id)) if e.game_id == record.game_id]
        if len(history) != 1:
            problems.append(f"{where}: game in the history {len(history)} times")
            continue
        entry = history[0]
        low, high = sorted(p.id for p in game.players)
        balance = int(client.hget(f"nardy:{{chat:{game.chat.id}}}:ledger", f"{low}:{high}") or 0)
        winner = next(p.user_id for p in record.players if p.side is entry.winner)
        expected = entry.stake if winner == low else -entry.stake
        if entry.stake != STAKE * entry.points or balance != expected:
            problems.append(f"{where}: ledger {balance}, history says {expected} "
                            f"({entry.points} points at {STAKE})")
    return problems


def decode_history(client: redis.Redis, chat_id: int) -> list[object]:
    from bot.store.records import HistoryEntry, decode

    name = f"nardy:{{chat:{chat_id}}}:history"
    return [decode(HistoryEntry, name, raw) for raw in client.lrange(name, 0, -1)]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def worker_counts(port: int) -> dict[str, float]:
    page = httpx.get(f"http://127.0.0.1:{port}/metrics").text
    counts: dict[str, float] = collections.Counter()
    for line in page.splitlines():
        if line.startswith("nardy_updates_total{"):
            outcome = line.split('outcome="')[1].split('"')[0]
            counts[outcome] += float(line.rsplit(" ", 1)[1])
    return dict(counts)


def main() -> None:
    url = bench_redis_url()
    client = redis.Redis.from_url(url)
    client.flushdb()
    print(f"load_test: {GAMES} games, {CONCURRENCY} at a time, {TAPS} tap rounds each, "
          f"2 webhook workers, Redis at {url}")
    ports = [free_port(), free_port()]
    public = f"http://127.0.0.1:{ports[0]}/telegram"
    with BotApiServer() as server:
        bots = [BotProcess.for_server(server, redis_url=url, log_level="WARNING", env={
            "WEBHOOK_URL": public, "WEBHOOK_SECRET": SECRET, "WEBHOOK_PORT": str(port),
            "NARDY_RATE_LIMIT": "0", "NARDY_TEST_SEED": str(port)}).start() for port in ports]
        try:
            for bot in bots:
                server.watch(bot)
                bot.wait_for_log("|", 0)  # started
            server.webhook_targets = [f"http://127.0.0.1:{port}" for port in ports]
            server.wait_for(lambda: server.webhook, 20, description="setWebhook")
            for port in ports:
                server.wait_for(lambda p=port: _up(p), 20, description="worker up")
            load = Load(server, 11)
            games = []
            for i in range(GAMES):
                alice, bob = server.add_user(f"A{i}"), server.add_user(f"B{i}")
                games.append(Played(server.add_group(f"G{i}", members=[alice, bob]),
                                    (alice, bob), ("long", "backgammon")[i % 2]))
            delivered_before = len(server.webhook_deliveries)
            began = time.perf_counter()
            with ThreadPoolExecutor(CONCURRENCY) as pool:
                for future in [pool.submit(load.play, g) for g in games]:
                    future.result()
            server.wait_for(lambda: server.pending_updates() == 0, TIMEOUT,
                            description="all updates delivered")
            elapsed = time.perf_counter() - began
            deliveries = server.webhook_deliveries[delivered_before:]
            report(server, games, deliveries, elapsed, [worker_counts(p) for p in ports])
        finally:
            for bot in bots:
                bot.stop()
    problems = check(client, games)
    print(f"  consistency: {len(games)} games checked, "
          f"{sum(sum(g.applied.values()) for g in games)} applied taps; "
          f"{len(problems)} problems")
    for problem in problems[:20]:
        print("   ", problem)
    if problems:
        sys.exit(1)


def _up(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz").status_code == 200
    except httpx.TransportError:
        return False


def report(server: BotApiServer, games: list[Played], deliveries: list[object],
           elapsed: float, per_worker: list[dict[str, float]]) -> None:
    answered: dict[str, list[float]] = collections.defaultdict(list)
    for request in server.requests("answerCallbackQuery"):
        answered[str(request.params.get("callback_query_id"))].append(request.time)
    taps = [t for g in games for t in g.taps]
    latencies = sorted((answered[q][0] - t) * 1000 for q, t in taps if answered.get(q))
    twice = sum(len(answered[q]) > 1 for q, _ in taps)
    unanswered = sum(not answered.get(q) for q, _ in taps)
    ok = sum(200 <= d.status < 300 for d in deliveries)  # type: ignore[attr-defined]
    retried = len(deliveries) - ok
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    print(f"  {len(deliveries)} webhook deliveries in {elapsed:.1f} s = "
          f"{len(deliveries) / elapsed:.0f} updates/s ({ok} acknowledged, {retried} answered "
          f"non-2xx and delivered again)")
    print(f"  {len(taps)} taps: tap -> answerCallbackQuery p50 "
          f"{statistics.median(latencies):.1f} ms, p99 {p99:.1f} ms, max {latencies[-1]:.1f} ms; "
          f"answered twice: {twice}, unanswered: {unanswered}")
    for n, counts in enumerate(per_worker, 1):
        print(f"  worker {n}: " + ", ".join(f"{k} {v:.0f}" for k, v in sorted(counts.items())))
    if twice or unanswered:
        games[0].problems.append(f"{twice} taps answered twice, {unanswered} unanswered")


if __name__ == "__main__":
    main()
