"""End to end: a tournament survives the real ``python -m bot`` process being
killed (SIGKILL: nothing settled, nothing cleaned up) in the middle of a
round - one game of the round just resigned, another under way, the round's
deadline pending - and is played to its end by two fresh worker processes on
the same Redis, behind one webhook (the local Bot API server delivers to
them in turn, as a load balancer would).  Nothing is lost, nothing is posted
twice, the prizes are booked once.

Redis: REDIS_URL when set (flushed first), else a redis-server of the test's
own on a unix socket (a bot's embedded Redis would outlive its SIGKILL).
"""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from bot.rules.tournament import prizes
from bot.store.keys import Keys
from bot.vocab.callbacks import ButtonAction, Callback, CallbackDataError
from bot.vocab.clock import DAY, TEST_CLOCK_ENV, set_test_offset
from bot.vocab.records import Status, decode
from bot.vocab.tournament import TournamentRecord
from tests.botapi import BotApiServer, BotProcess
from tests.botapi.model import Chat, Message, User
from tests.e2e.test_games import REDIS_URL

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

SECRET = "tournament-secret"
KEYS = Keys()


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """A Redis that outlives the bot processes: REDIS_URL's, or our own."""
    if REDIS_URL:
        redis.Redis.from_url(REDIS_URL).flushdb()
        yield REDIS_URL
        return
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("no REDIS_URL and no redis-server")
    sock = tmp_path / "redis.sock"
    server = subprocess.Popen([binary, "--port", "0", "--unixsocket", str(sock),
                               "--save", "", "--appendonly", "no", "--dir", str(tmp_path)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while not sock.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        yield f"unix://{sock}"
    finally:
        server.terminate()
        server.wait(10)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def worker(server: BotApiServer, url: str, port: int, public: str, clock: Path, seed: int
           ) -> BotProcess:
    env = {"WEBHOOK_URL": public, "WEBHOOK_SECRET": SECRET, "WEBHOOK_PORT": str(port),
           "NARDY_RATE_LIMIT": "0", "NARDY_TEST_SEED": str(seed), TEST_CLOCK_ENV: str(clock),
           "NARDY_TOURNAMENT_INTERVAL": "0.2", "NARDY_AI_WORKERS": "0"}
    return BotProcess.for_server(server, redis_url=url, log_level="INFO", env=env).start()


def up(server: BotApiServer, bots: list[BotProcess], ports: list[int]) -> None:
    """The workers answer on their ports and take the webhook's deliveries."""
    for bot in bots:
        server.watch(bot)
    for port in ports:
        server.wait_for(lambda p=port: _healthy(p), 60, description=f"worker on {port}")
    server.webhook_targets = [f"http://127.0.0.1:{port}" for port in ports]


def _healthy(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz").status_code == 200
    except httpx.TransportError:
        return False


def record_of(client: redis.Redis, chat: Chat) -> TournamentRecord:
    [tid] = client.zrange(KEYS.chat(chat.id, "tournaments"), 0, -1)
    key = KEYS.chat(chat.id, f"t:{tid.decode()}")
    return decode(TournamentRecord, key, client.hget(key, "d"))  # type: ignore[no-any-return]


def posted(client: redis.Redis, chat: Chat, number: int) -> TournamentRecord | None:
    """The record once round ``number`` has all its games (or, past the last
    round, once the tournament is over and its end posted)."""
    record = record_of(client, chat)
    if record.status is Status.FINISHED:
        return record if record.closed else None
    if not record.rounds or record.rounds[-1].number < number:
        return None
    return record if all(p.game_id for p in record.rounds[-1].pairings) else None


def game_status(client: redis.Redis, chat: Chat, game_id: str) -> Status:
    raw = client.hget(KEYS.chat(chat.id, f"g:{game_id}"), "d")
    return Status(json.loads(raw)["status"]) if raw else Status.LOBBY


def board(server: BotApiServer, chat: Chat, game_id: str) -> Message | None:
    """The newest message with a button of the game."""
    def mine(message: Message) -> bool:
        for _, data in flat(message):
            with contextlib.suppress(CallbackDataError):
                if data and Callback.parse(data).id == game_id:
                    return True
        return False

    return server.newest_message(chat, mine)


def flat(message: Message | None) -> list[tuple[str, str | None]]:
    return [] if message is None else [b for row in message.buttons for b in row]


def tap(server: BotApiServer, chat: Chat, user: User, game_id: str, action: ButtonAction,
        arg: int | None = None) -> str | None:
    """``user`` taps the game's ``action`` button once it is on its board; the
    answer's alert text (None: done)."""
    def ready() -> tuple[Message, str] | None:
        found = board(server, chat, game_id)
        for _, data in flat(found):
            with contextlib.suppress(CallbackDataError):
                parsed = Callback.parse(data or "")
                if parsed.action is action and arg in (None, *parsed.args[:1]):
                    assert found is not None
                    return found, data or ""
        return None

    message, data = server.wait_for(ready, 20, description=f"{action} on {game_id}")
    return server.user_taps(chat, user, message, data).wait_answer(20).text


def resign(server: BotApiServer, chat: Chat, players: dict[int, User], game_id: str,
           first: int, second: int, started: bool = False) -> None:
    """Start the game (unless ``started``), and whoever is to act resigns it."""
    if not started:
        assert tap(server, chat, players[first], game_id, ButtonAction.START) is None
    loser, winner = players[first], players[second]
    if tap(server, chat, loser, game_id, ButtonAction.MENU) is not None:   # not their turn
        loser, winner = winner, loser
        assert tap(server, chat, loser, game_id, ButtonAction.MENU) is None
    assert tap(server, chat, loser, game_id, ButtonAction.RESIGN, 1) is None
    assert tap(server, chat, winner, game_id, ButtonAction.ACCEPT) is None


def sent(server: BotApiServer, chat: Chat, part: str) -> list[Message]:
    return [m for m in server.messages(chat) if m.by_bot and part in m.content]


def test_a_tournament_survives_a_killed_worker_and_ends_on_two(
        redis_url: str, tmp_path: Path) -> None:
    client = redis.Redis.from_url(redis_url)
    clock = tmp_path / "clock"
    set_test_offset(clock, 0)
    ports = [free_port(), free_port()]
    public = f"http://127.0.0.1:{ports[0]}/telegram"
    bots: list[BotProcess] = []
    with BotApiServer() as server:
        try:
            users = [server.add_user(f"P{n}") for n in range(1, 5)]
            players = {u.id: u for u in users}
            chat = server.add_group("Cup", members=users)
            bots.append(worker(server, redis_url, ports[0], public, clock, 1))
            up(server, bots, ports[:1])
            said = server.user_sends(chat, users[0], "/tournament rr long entry=5 round=1d")
            lobby = server.wait_message(chat, "Tournament", since=said, timeout=20)
            for user in users:
                answer = server.user_taps(chat, user, lobby, text="✋ Join").wait_answer(20)
                assert answer.text is None, answer
                lobby = server.wait_message(chat, user.first_name, since=lobby, timeout=20,
                                            match=lambda m, at=lobby.message_id:
                                            m.message_id == at)
            server.user_taps(chat, users[0], lobby, text="▶ Start").wait_answer(20)
            record = server.wait_for(lambda: posted(client, chat, 1), 20,
                                     description="round 1's games")
            one, two = record.rounds[0].pairings
            assert one.game_id and two.game_id and one.second and two.second
            server.wait_for(lambda: board(server, chat, str(two.game_id)), 20)
            # round 1: game two under way, game one resigned - and the worker killed
            # the moment the resignation's acceptance is answered
            assert tap(server, chat, players[two.first], two.game_id,
                       ButtonAction.START) is None
            server.wait_for(lambda: game_status(client, chat, str(two.game_id))
                            is Status.ACTIVE, 20)
            resign(server, chat, players, one.game_id, one.first, one.second)
            bots[0].kill()
            server.unwatch(bots[0])
            assert len(sent(server, chat, "Round 1")) == 1
            # two fresh workers on the same Redis; the round's deadline passes
            bots += [worker(server, redis_url, port, public, clock, 2 + n)
                     for n, port in enumerate(ports)]
            up(server, bots[1:], ports)
            set_test_offset(clock, DAY + 60)
            record = server.wait_for(lambda: posted(client, chat, 2), 30,
                                     description="round 2, after round 1's deadline")
            decided = record.rounds[0].pairings
            assert decided[0].result is not None and decided[0].result.winner in (
                one.first, one.second)
            assert decided[1].result is not None   # the game under way: lost on time
            # who wins a game follows from its dice, drawn by whichever worker made
            # it: the rounds are played to the end, a play-off too if there is one
            while record.status is not Status.FINISHED:
                number = record.rounds[-1].number
                assert number <= 6, server.transcript(chat)
                for pairing in record.rounds[-1].pairings:
                    if pairing.second is None:   # a bye (a play-off's)
                        continue
                    assert pairing.game_id
                    resign(server, chat, players, pairing.game_id, pairing.first,
                           pairing.second)
                record = server.wait_for(lambda n=number: posted(client, chat, n + 1), 30,
                                         description=f"round {number} over")
            assert len(record.rounds) >= 3
            server.wait_for(lambda: sent(server, chat, "Final standings"), 20)
            time.sleep(1.0)   # both workers' jobs run a few more times: nothing more
            for part in [f"ound {r.number} ·" for r in record.rounds] + ["Final standings"]:
                assert len(sent(server, chat, part)) == 1, (part, server.transcript(chat))
            games = [p.game_id for r in record.rounds for p in r.pairings if p.game_id]
            assert len(games) == sum(1 for r in record.rounds for p in r.pairings if p.second)
            posts = [json.dumps(r.params) for r in server.requests()
                     if r.method in ("sendMessage", "sendPhoto")]
            for game_id in games:   # each game's lobby posted once, its board at ▶ Start once
                assert sum(f":{game_id}:" in post for post in posts) == 2, game_id
            # the only deletions: each lobby, once its board replaced it (no copy retired)
            assert server.request_count("deleteMessage") == len(games)
            history = [json.loads(h)["game_id"] for h in
                       client.lrange(KEYS.chat(chat.id, "history"), 0, -1)]
            assert sorted(history) == sorted(games)   # each game booked once
            nets = {u.id: 0 for u in users}
            for field, value in client.hgetall(KEYS.chat(chat.id, "ledger")).items():
                low, high = map(int, field.decode().split(":"))
                nets[low] += int(value)
                nets[high] -= int(value)
            assert nets == prizes.nets(record)   # the prizes, once
            assert sum(nets.values()) == 0 and max(nets.values()) > 0   # 70/30 of 20
            # (the killed worker's update in flight is answered 503 until its lease ends)
            for bot in bots[1:]:
                errors = [line for line in bot.log.splitlines()
                          if " ERROR " in line and "503 POST /telegram" not in line]
                assert not errors, errors[:5]
        finally:
            for bot in bots:
                bot.stop()
