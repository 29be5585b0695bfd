"""Load test: two bot workers in webhook mode behind one "load balancer", the
real Redis, many games at once, duplicate deliveries and simultaneous taps.

Run: ``.venv/bin/python benchmarks/load_test.py
[games] [concurrency] [taps] [--faults [--worker-kills N] [--master-kills N]]``
(default 1000 games, 48 played at a time, 10 taps each; the BENCH_REDIS_URL
database (bench_redis.py) is FLUSHED first).

``--faults`` runs on a local Redis Cluster that the test starts itself (3
masters, 3 replicas, ``cluster-node-timeout`` :data:`NODE_TIMEOUT_MS`:
tests/bot/store/cluster.py) with ``REDIS_CLUSTER=1`` workers, and while the games
are played kills a worker (SIGKILL, started again a second later) and a
master (SIGKILL: its replica takes over; the node is started again and rejoins
as a replica), in turn; a master is killed right after a player was told a
game's end (the accept's answer), the master of that game's chat.  It prints
games finished, taps unanswered after 10 s, taps answered twice, second
answers the Bot API refused (and fails on one of another text than the
first), lobbies created or posted twice, bookings missing or doubled, games
missing from the booked set, players' stats wrong, taps answered later than
30 s after the fault they met was over, workers that finished no update for
60 s while updates waited (and whether every worker still answers ``/livez``
and ``/healthz``), and the CPU of every worker process that ran (sampled: a
killed one's up to its death) and of the Redis nodes (issue 37).

The local Bot API server (tests/botapi) delivers webhook updates to two
``python -m bot`` processes in turn (``webhook_targets``).  Each game: ``/new``
with a stake, two joins, then ``taps`` rounds in which *both* players tap the
chosen button at the same moment (only the mover's may apply), a quarter of
the rounds the mover taps it twice at once, and a fifth of the taps are
delivered again (``redeliver``: Telegram's retry), a quarter of those at once
(while the first delivery is being handled) and the rest after the answer;
then the mover resigns and the opponent accepts, which books the stake.

It prints updates per second, tap -> answerCallbackQuery p50/p99, the CPU the
workers (with their painter processes) and Redis spent per handled update
(without ``--faults``: a killed worker's CPU is lost with it), and checks
every game afterwards from Redis: the stored game replays (``Game.from_dict``),
its record's version is the number of taps answered as applied plus
:data:`UNTAPPED_SAVES` (every applied tap is one compare-and-set, whatever
autoplay, automatic rolls or a whole turn did within it: no step lost or
doubled), every tap was answered exactly once (duplicates never reached a
handler twice), the history has the game once and the chat's ledger balances
with it.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import signal
import socket
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx
import redis

from benchmarks.bench_redis import bench_redis_url, past_upgrade_day
from benchmarks.cpu import CpuMeter, cpu_seconds
from bot.store.client import as_text
from tests.bot.driver import game_board, pick
from tests.botapi import BotApiServer, BotProcess
from tests.botapi.model import Chat, Message, User

_parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
_parser.add_argument("games", type=int, nargs="?", default=1000)
_parser.add_argument("concurrency", type=int, nargs="?", default=48)
_parser.add_argument("taps", type=int, nargs="?", default=10)
_parser.add_argument("--faults", action="store_true",
                     help="a local Redis Cluster; kill workers and masters meanwhile")
_parser.add_argument("--worker-kills", type=int, default=2)
_parser.add_argument("--master-kills", type=int, default=2)
ARGS = _parser.parse_args()
GAMES, CONCURRENCY, TAPS = ARGS.games, ARGS.concurrency, ARGS.taps
STAKE = 3
SECRET = "load-test-secret"
TIMEOUT = 60.0
APPLYING = {"r": "roll", "c": "confirm"}
"""Actions of which two applied answers to one board are a step applied twice.  Not
a step (``m``): a tap on an older drawing of the board is re-aimed at the current
state and played when still legal (bot/rules/taps.py ``caught_up``), so with a
double both taps of one button move a checker, as a player tapping twice on a
lagging board means; a step applied twice would still show in the version check."""
BEHIND = ("out of date", "catching up")
"""Refusals of a tap on a board read before its redraw arrived: read it again."""
UNTAPPED_SAVES = 3
"""Saves of a game that no tap makes: the lobby's, its post's, the board's post
when the game starts (measured: every game of a run without faults)."""
KEYBOARD_ONLY = frozenset("sboi")
"""Actions that change only the keyboard (source, back, menu, hint): no save."""
NODE_TIMEOUT_MS = 3000
"""``cluster-node-timeout`` of the fault mode's cluster (what docs/operations.md advises)."""
LATE = 10.0
"""A tap answered later than this counts as unanswered after 10 s."""
RECOVERY = 30.0
"""Every tap must be answered within this long after the fault it met was over."""
HANDLED = ("done", "failed", "given_up")
"""Outcomes of an update whose handlers ran (bot/edge/ops.py): the CPU figure's
denominator (a duplicate or one in flight elsewhere is only claimed)."""


@dataclass
class Played:
    chat: Chat
    players: tuple[User, User]
    variant: str
    applied: collections.Counter[str] = field(default_factory=collections.Counter)
    saves: int = 0
    """Taps answered as applied (each one compare-and-set of the record)."""
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
        self.ended: collections.deque[tuple[float, int]] = collections.deque(maxlen=100)
        """(when, chat) of each game whose end a player was just told (the accept's
        answer): the fault thread kills that chat's master right after it."""

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
            game.saves += not tap.wait_answer(TIMEOUT).show_alert  # type: ignore[attr-defined]
            lobby = self.wait_board(game, lobby, since)
        mover, stale = 0, 0
        for _ in range(TAPS):
            # the board, not the lobby's edit or the dice's commitment beside it
            board = server.wait_for(lambda: game_board(server, game.chat), TIMEOUT,
                                    description="the game's board")
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
            if not took and stale < 5 and all(any(b in (a.text or "") for b in BEHIND)
                                               for _, a in answers):
                # the board read was behind a redraw still under way: read it again
                stale += 1
                time.sleep(0.3)
                continue
            if not took:
                game.problems.append(f"nobody could tap {data}: {answers}")
                return
            mover = took[0]
            action = action_of(data)
            if action not in KEYBOARD_ONLY:
                game.saves += len(took)
            if action in APPLYING:
                if len(took) != 1:
                    game.problems.append(f"{data} applied {len(took)} times")
                game.applied[APPLYING[action]] += 1
            self.wait_board(game, board, since)
        self.resign(game, mover)

    def press(self, game: Played, who: int, board: Message, data: str) -> Message | str:
        """``who`` taps ``data`` on ``board``: the board redrawn after it, or the
        refusal's text."""
        since = self.server.revision
        answer = self.tap(game, game.players[who], board, data).wait_answer(TIMEOUT)  # type: ignore[attr-defined]
        if answer.show_alert:
            return str(answer.text)
        return self.wait_board(game, board, since)

    def resign(self, game: Played, mover: int) -> None:
        server, refused = self.server, []
        # each player in turn, each up to three times: a board read behind a
        # redraw still under way is refused as out of date and read again
        for who in (mover, 1 - mover) * 3:
            if refused:
                time.sleep(0.3)
            # the board, not the lobby's edit or the dice's commitment beside it
            board: Message | str = server.wait_for(lambda: game_board(server, game.chat),
                                                   TIMEOUT, description="the game's board")
            assert isinstance(board, Message)
            offer, menu = _button(board, ":R:"), _button(board, ":o", end=True)
            if offer is None and menu is None:  # read behind a redraw (or an offer): again
                refused.append("no menu button")
                continue
            if offer is None and menu is not None:  # not open yet (an earlier try may have)
                board = self.press(game, who, board, menu)
                if isinstance(board, str):
                    refused.append(board)
                    continue
                offer = _button(board, ":R:")
            if offer is None:  # read before the menu's redraw: read the board again
                refused.append("no resign button yet")
                continue
            board = self.press(game, who, board, offer)
            sure = None if isinstance(board, str) else _button(board, ":G:")
            if sure is not None and not isinstance(board, str):
                board = self.press(game, who, board, sure)  # a staked game asks once more
            if isinstance(board, str):
                refused.append(board)
                continue
            game.saves += 1
            since = server.revision
            accept = _button(board, ":a", end=True)
            if accept is None:  # read before the offer's redraw: the offer stands, read again
                board = self.wait_board(game, board, since)
                accept = _button(board, ":a", end=True)
            if accept is None:
                game.problems.append("the resignation offer shows no accept button")
                return
            since = server.revision
            answer = self.tap(game, game.players[1 - who], board, accept,
                              duplicate=True).wait_answer(TIMEOUT)  # type: ignore[attr-defined]
            if answer.show_alert:
                game.problems.append(f"accepting the resignation was refused: {answer}")
            else:
                game.saves += 1
                self.ended.append((time.time(), game.chat.id))  # told: ended and booked
            self.wait_board(game, board, since)
            game.resigner = who
            return
        game.problems.append(f"neither player could resign: {refused}")


def _button(board: Message, part: str, *, end: bool = False) -> str | None:
    """The data of the first button on ``board`` that holds ``part`` (ends with it)."""
    return next((d for row in board.buttons for _, d in row
                 if (d.endswith(part) if end else part in d)), None)


@dataclass
class Tally:
    """What the check found, by kind (the fault mode's figures)."""

    finished: int = 0
    lobbies_twice: int = 0
    lobbies_posted_twice: int = 0
    bookings_wrong: int = 0
    booked_wrong: int = 0
    stats_wrong: int = 0
    steps_wrong: int = 0


def lobby_posts(server: BotApiServer) -> collections.Counter[int]:
    """Messages posted with a lobby's buttons (``l:`` data), by chat."""
    posts: collections.Counter[int] = collections.Counter()
    for method in ("sendMessage", "sendPhoto"):
        for request in server.requests(method):
            markup = request.params.get("reply_markup")
            text = markup if isinstance(markup, str) else json.dumps(markup)
            if 200 <= request.status < 300 and '"l:' in text:
                posts[int(request.params.get("chat_id") or 0)] += 1
    return posts


def check(client: Any, games: list[Played], tally: Tally | None = None,
          posts: collections.Counter[int] | None = None) -> list[str]:
    """Every game's stored record, history, ledger, booked set and players'
    stats against what was tapped; ``posts``: lobbies posted by chat
    (:func:`lobby_posts`, one each)."""
    from bot.rules.matchstate import MatchState
    from bot.vocab.records import GameRecord, PlayerStats, Status, decode

    tally = tally or Tally()
    problems = []
    for game in games:
        name = f"nardy:{{chat:{game.chat.id}}}"
        where = f"chat {game.chat.id}"
        problems += [f"{where}: {p}" for p in game.problems]
        if posts is not None and posts[game.chat.id] != 1:
            tally.lobbies_posted_twice += posts[game.chat.id] > 1
            problems.append(f"{where}: a lobby posted {posts[game.chat.id]} times")
        # the chat's one game, ended (or still live), under its own id (bot/store/games.py)
        ids = [as_text(g) for g in client.zrange(f"{name}:ended", 0, -1)
               + client.zrange(f"{name}:live", 0, -1)]
        if len(ids) != 1:
            tally.lobbies_twice += len(ids) > 1
            problems.append(f"{where}: {len(ids)} games in the chat")
        if not ids:
            continue
        records = []
        for game_id in ids:
            key = f"{name}:g:{game_id}"
            records.append(decode(GameRecord, key, client.hget(key, "d"),
                                  int(client.hget(key, "v") or 0)))
        record = next((r for r in records if r.status is Status.FINISHED), records[0])
        if record.status is not Status.FINISHED:
            problems.append(f"{where}: status {record.status}")
            continue
        tally.finished += 1
        MatchState.from_dict(record.engine)  # replays every event: raises if inconsistent
        # each applied tap is one compare-and-set, and UNTAPPED_SAVES more
        if record.version != game.saves + UNTAPPED_SAVES:
            tally.steps_wrong += 1
            problems.append(f"{where}: version {record.version}, {game.saves} taps applied")
        history = [e for e in (decode_history(client, game.chat.id)) if e.game_id == record.game_id]
        if len(history) != 1:
            tally.bookings_wrong += 1
            problems.append(f"{where}: game in the history {len(history)} times")
            continue
        entry = history[0]
        low, high = sorted(p.id for p in game.players)
        balance = int(client.hget(f"nardy:{{chat:{game.chat.id}}}:ledger", f"{low}:{high}") or 0)
        winner = next(p.user_id for p in record.players if p.side is entry.winner)
        expected = entry.stake if winner == low else -entry.stake
        if entry.stake != STAKE * entry.points or balance != expected:
            tally.bookings_wrong += 1
            problems.append(f"{where}: ledger {balance}, history says {expected} "
                            f"({entry.points} points at {STAKE})")
        if client.zscore(f"{name}:booked", record.game_id) is None:
            tally.booked_wrong += 1
            problems.append(f"{where}: the game is not in the booked set")
        for player in record.players:  # each player's one game, its result counted once
            raw = client.hget(f"{name}:stats", f"{record.variant.value}:{player.user_id}")
            stats = None if raw is None else decode(PlayerStats, f"{name}:stats", raw)
            won = player.side is entry.winner
            if stats is None or stats.games != 1 or stats.wins != int(won):
                tally.stats_wrong += 1
                problems.append(f"{where}: stats of {player.user_id}: {stats}")
    return problems



def decode_history(client: Any, chat_id: int) -> list[object]:
    from bot.vocab.records import HistoryEntry, decode

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


@dataclass
class Fault:
    kind: str
    began: float
    over: float = 0.0


class Faults(threading.Thread):
    """Kills a worker and a master in turn while the games are played (``--faults``)."""

    def __init__(self, cluster: Any, bots: list[BotProcess], make_bot: Any, ports: list[int],
                 worker_kills: int, master_kills: int, load: Load | None = None,
                 client: Any = None) -> None:
        super().__init__(daemon=True)
        self.cluster, self.bots, self.make_bot, self.ports = cluster, bots, make_bot, ports
        self.load, self.client = load, client
        self.after_told: list[int] = []
        """Chats whose master was killed right after a player was told the game's end."""
        self.plan = ["worker", "master"] * max(worker_kills, master_kills)
        self.plan = [k for i, k in enumerate(self.plan)
                     if (worker_kills if k == "worker" else master_kills) > i // 2]
        self.done = threading.Event()
        self.faults: list[Fault] = []
        self.errors: list[str] = []

    def run(self) -> None:
        try:
            for n, kind in enumerate(self.plan):
                if self.done.wait(6.0):
                    return
                fault = Fault(kind, time.time())
                if kind == "worker":
                    self._kill_worker(n // 2 % len(self.bots))
                else:
                    self._kill_master()
                fault.over = time.time()
                self.faults.append(fault)
                print(f"  fault: {kind} killed at +{fault.began - STARTED:.1f} s, "
                      f"over after {fault.over - fault.began:.1f} s", flush=True)
        except Exception as error:  # reported, and the run still checks its games
            self.errors.append(repr(error))

    def _kill_worker(self, index: int) -> None:
        bot = self.bots[index]
        assert bot.pid is not None
        os.kill(bot.pid, signal.SIGKILL)  # nothing settled, nothing cleaned up
        bot.stop(0)
        time.sleep(1.0)
        self.bots[index] = self.make_bot(self.ports[index]).start()
        _wait(lambda: _up(self.ports[index]), 60, "the restarted worker")

    def _told_master(self) -> int | None:
        """The master of a chat whose end a player was told a moment ago (waits up to
        10 s for one), if that master has a replica; its chat noted."""
        if self.load is None or self.client is None:
            return None
        asked = time.time()
        deadline = asked + 10
        while time.time() < deadline and not self.done.is_set():
            told = [chat for when, chat in list(self.load.ended) if when >= asked - 0.5]
            if told:
                node = self.client.get_node_from_key(f"nardy:{{chat:{told[-1]}}}:g:x")
                port = int(node.port) if node is not None else 0
                if port in self.cluster.masters_with_replica():
                    self.after_told.append(told[-1])
                    return port
                asked = time.time()
            time.sleep(0.02)
        return None

    def _kill_master(self) -> None:
        told = self._told_master()  # right after a "booked/ended" answer: it must survive
        port = self.cluster.kill_master(told or self.cluster.masters_with_replica()[0])
        _wait(lambda: len(self.cluster.masters()) == 3 and self.cluster.healthy(), 60,
              "the replica taking over")
        self.cluster.restart(port)  # rejoins as the new master's replica
        _wait(lambda: len(self.cluster.masters_with_replica()) == 3, 60, "the node rejoining")


STUCK = 60.0
"""A running worker that finishes no update for this long while updates wait,
and met no fault in the last :data:`RECOVERY` s, is stuck (even if its
``/healthz`` answers: issue 37)."""


class Monitor(threading.Thread):
    """Samples the workers while the games are played: the CPU of every worker
    process that ran (with its painter) and of Redis, a killed one's up to its
    last sample (``--faults`` loses none), and whether a worker stops finishing
    updates (:data:`STUCK`)."""

    def __init__(self, server: BotApiServer, bots: list[BotProcess], ports: list[int],
                 redis_pids: list[int], faults: Faults | None) -> None:
        super().__init__(daemon=True)
        self.server, self.bots, self.ports, self.faults = server, bots, ports, faults
        self.redis_pids = redis_pids
        self.first: dict[tuple[str, int], float] = {}
        self.last: dict[tuple[str, int], float] = {}
        self.progress = {port: (-1.0, time.time()) for port in ports}
        self.stuck: list[str] = []
        self.done = threading.Event()

    def cpu(self) -> dict[str, float]:
        """CPU seconds by group since the monitor started."""
        out: dict[str, float] = collections.defaultdict(float)
        for (group, pid), seconds in self.last.items():
            out[group] += seconds - self.first[(group, pid)]
        return dict(out)

    def run(self) -> None:
        while not self.done.wait(2.0):
            self.sample()

    def sample(self) -> None:
        now = time.time()
        pids = [("bot", b.pid) for b in self.bots if b.pid is not None and b.running]
        pids += [("redis", pid) for pid in self.redis_pids]
        for group, pid in pids:
            used = cpu_seconds(pid, children=group == "bot")
            if used or (group, pid) in self.last:
                self.first.setdefault((group, pid), 0.0 if self.last else used)
                self.last[(group, pid)] = max(used, self.last.get((group, pid), 0.0))
        waiting = self.server.pending_updates() > 0
        recent = self.faults is not None and any(
            f.began > now - RECOVERY - STUCK or not f.over for f in self.faults.faults)
        for port in self.ports:
            try:
                handled = sum(worker_counts(port).values())
            except httpx.HTTPError:
                handled = -1.0  # down (being restarted): a fault, not a stuck loop
            seen, since = self.progress[port]
            if handled != seen or not waiting or recent:
                self.progress[port] = (handled, now)
            elif now - since > STUCK:
                self.stuck.append(f"worker on port {port} finished no update for "
                                  f"{now - since:.0f} s (+{now - STARTED:.0f} s)")
                self.progress[port] = (handled, now)


def _wait(ready: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: not within {timeout} s")
        time.sleep(0.1)


STARTED = time.time()


def main() -> None:
    global STARTED
    cluster = None
    if ARGS.faults:
        from tests.bot.store.cluster import LocalCluster

        cluster = LocalCluster.start(Path(tempfile.mkdtemp(prefix="nardy-load-")), replicas=1,
                                     node_timeout=NODE_TIMEOUT_MS)
        url = cluster.url
        client: Any = redis.RedisCluster.from_url(url)
        where = f"a local Redis Cluster (3 masters, 3 replicas, node timeout {NODE_TIMEOUT_MS} ms)"
    else:
        url = bench_redis_url()
        client = redis.Redis.from_url(url)
        client.flushdb()
        where = f"Redis at {url}"
    past_upgrade_day(client)
    print(f"load_test: {GAMES} games, {CONCURRENCY} at a time, {TAPS} tap rounds each, "
          f"2 webhook workers, {where}")
    ports = [free_port(), free_port()]
    public = f"http://127.0.0.1:{ports[0]}/telegram"
    faults = None
    try:
        with BotApiServer() as server:
            def make_bot(port: int) -> BotProcess:
                env = {"WEBHOOK_URL": public, "WEBHOOK_SECRET": SECRET,
                       "WEBHOOK_PORT": str(port), "NARDY_RATE_LIMIT": "0",
                       "NARDY_TEST_SEED": str(port)}
                if cluster is not None:
                    env["REDIS_CLUSTER"] = "1"
                return BotProcess.for_server(server, redis_url=url, log_level="WARNING",
                                             env=env)

            bots = [make_bot(port).start() for port in ports]
            try:
                for bot in bots:
                    if cluster is None:  # (a killed worker must not end the waits)
                        server.watch(bot)
                    bot.wait_for_log("|", 0)  # started
                server.webhook_targets = [f"http://127.0.0.1:{port}" for port in ports]
                server.wait_for(lambda: server.webhook, 60, description="setWebhook")
                for port in ports:
                    server.wait_for(lambda p=port: _up(p), 60, description="worker up")
                load = Load(server, 11)
                games = []
                for i in range(GAMES):
                    alice, bob = server.add_user(f"A{i}"), server.add_user(f"B{i}")
                    games.append(Played(server.add_group(f"G{i}", members=[alice, bob]),
                                        (alice, bob), ("long", "backgammon")[i % 2]))
                delivered_before = len(server.webhook_deliveries)
                meter = None if cluster is not None else CpuMeter(  # a killed worker's is lost
                    {"bot": [b.pid for b in bots if b.pid is not None],
                     "redis": [int(client.info("server")["process_id"])]})
                began = time.perf_counter()
                STARTED = time.time()
                if cluster is not None:
                    faults = Faults(cluster, bots, make_bot, ports,
                                    ARGS.worker_kills, ARGS.master_kills, load, client)
                    faults.start()
                monitor = Monitor(server, faults.bots if faults else bots, ports,
                                  [p.pid for p in cluster.processes] if cluster else
                                  [int(client.info("server")["process_id"])], faults)
                monitor.start()
                with ThreadPoolExecutor(CONCURRENCY) as pool:
                    for future in [pool.submit(load.play, g) for g in games]:
                        future.result()
                if faults is not None:
                    faults.done.set()
                    faults.join()
                server.wait_for(lambda: server.pending_updates() == 0, TIMEOUT,
                                description="all updates delivered")
                monitor.done.set()
                monitor.join()
                monitor.sample()
                elapsed = time.perf_counter() - began
                deliveries = server.webhook_deliveries[delivered_before:]
                stuck = [port for port in ports if not _alive(port)]
                counts = [worker_counts(p) for p in ports]
                report(server, games, deliveries, elapsed, counts,
                       faults.faults if faults else None)
                if meter is None:  # fault mode: sampled, a killed worker's up to its death
                    used = monitor.cpu()
                    deliveries_n = max(len(deliveries), 1)
                    print("  CPU ms per webhook delivery (fault mode, sampled every 2 s; "
                          "every worker process that ran, with its painter; the 6 Redis "
                          "nodes): " + ", ".join(f"{k} {v * 1000 / deliveries_n:.1f}"
                                                  for k, v in sorted(used.items())))
                if meter is not None:
                    handled = sum(c.get(k, 0) for c in counts for k in HANDLED)
                    print(f"  CPU ms per handled update ({handled:.0f}: {', '.join(HANDLED)}; "
                          f"the workers with their painters): {meter.per(int(handled))}; "
                          f"per webhook delivery: {meter.per(len(deliveries))}")
            finally:
                for bot in bots:
                    bot.stop()
            posts = lobby_posts(server)
        tally = Tally()
        problems = check(client, games, tally, posts)
        problems += monitor.stuck
    finally:
        if cluster is not None:
            cluster.stop()
    if faults is not None:
        print(f"  faults: {len(faults.faults)} of {len(faults.plan)} done "
              f"({', '.join(f.kind for f in faults.faults)}); errors {faults.errors}")
        print(f"  games finished {tally.finished} of {len(games)}; lobbies created twice "
              f"{tally.lobbies_twice}, posted twice {tally.lobbies_posted_twice}; bookings "
              f"missing or doubled {tally.bookings_wrong}; not in the booked set "
              f"{tally.booked_wrong}; players' stats wrong {tally.stats_wrong}; "
              f"records whose version is not applied taps + {UNTAPPED_SAVES}: {tally.steps_wrong}; "
              f"workers not answering /livez and /healthz: {len(stuck)}; "
              f"workers that stopped finishing updates: {len(monitor.stuck)}")
        lost = [chat for chat in faults.after_told
                if any(p.startswith(f"chat {chat}:") for p in problems)]
        print(f"  masters killed right after a player was told a game's end: "
              f"{len(faults.after_told)}; of those games wrong afterwards: {len(lost)}")
        problems += [f"fault thread: {e}" for e in faults.errors]
        problems += [f"worker on port {p} stuck" for p in stuck]
    print(f"  consistency: {len(games)} games checked, "
          f"{sum(g.saves for g in games)} applied taps; {len(problems)} problems")
    for problem in problems[:20]:
        print("   ", problem)
    if problems:
        sys.exit(1)


def _alive(port: int) -> bool:
    """The worker answers /livez and /healthz (its loop runs, it reaches every slot)."""
    try:
        return all(httpx.get(f"http://127.0.0.1:{port}{path}", timeout=5).status_code == 200
                   for path in ("/livez", "/healthz"))
    except httpx.TransportError:
        return False


def _up(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz").status_code == 200
    except httpx.TransportError:
        return False


def report(server: BotApiServer, games: list[Played], deliveries: list[object],
           elapsed: float, per_worker: list[dict[str, float]],
           faults: list[Fault] | None = None) -> None:
    answered: dict[str, list[float]] = collections.defaultdict(list)
    said: dict[str, object] = {}  # the answer the tapper saw, by query
    second: list[tuple[str, object]] = []  # answers the API refused: a query has one answer
    for request in server.requests("answerCallbackQuery"):
        query = str(request.params.get("callback_query_id"))
        if 200 <= request.status < 300:  # what the tapper saw
            answered[query].append(request.time)
            said.setdefault(query, request.params.get("text"))
        else:
            second.append((query, request.params.get("text")))
    refused = len(second)
    # a retry repeats the first attempt's answer (issue 37): another text is a problem
    other_text = [(q, text) for q, text in second if q in said and said[q] != text]
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
          f"answered twice: {twice}, unanswered: {unanswered} "
          f"({refused} second answers refused by the API, {len(other_text)} of them with "
          f"another text than the first)")
    for n, counts in enumerate(per_worker, 1):
        print(f"  worker {n}: " + ", ".join(f"{k} {v:.0f}" for k, v in sorted(counts.items())))
    late = 0
    if faults is not None:
        slow = sum(not answered.get(q) or answered[q][0] - t > LATE for q, t in taps)
        for q, t in taps:
            # 30 s after the end of every fault the tap met (or after the tap itself)
            deadline = max([t] + [f.over for f in faults
                                  if f.began <= t + RECOVERY and f.over >= t]) + RECOVERY
            late += not answered.get(q) or answered[q][0] > deadline
        print(f"  taps unanswered after {LATE:.0f} s: {slow}; answered later than "
              f"{RECOVERY:.0f} s after the fault they met was over (or never): {late}")
    for q, _ in [(q, t) for q, t in taps if len(answered[q]) > 1][:3]:
        print(f"  answered twice: query {q}: " + "; ".join(
            f"+{r.time - STARTED:.1f} s {r.params.get('text')!r}"
            for r in server.requests("answerCallbackQuery")
            if str(r.params.get("callback_query_id")) == q and 200 <= r.status < 300))
    for q, text in other_text[:3]:
        print(f"  answered again with another text: query {q}: {said[q]!r}, then {text!r}")
    if twice or unanswered or late or other_text:
        games[0].problems.append(f"{twice} taps answered twice, {unanswered} unanswered, "
                                 f"{late} late after a fault, {len(other_text)} answered "
                                 f"again with another text")


if __name__ == "__main__":
    main()
