"""Redis memory per active game and per finished game, measured on the real Redis.

Run: ``.venv/bin/python benchmarks/memory_bench.py [games]``
(default 2000; the BENCH_REDIS_URL database (bench_redis.py) is FLUSHED first).

It writes through the bot's own :class:`bot.store.Store`, so the keys are the
bot's: ``games`` chats each get an active game played to a random point
(``TURNS`` turns, the engine record grows by every roll and step) with its
indexes, its chat's settings, its board's mark and view, a flood window and
the update markers a game keeps with the marker turnover of a real day (a
tap every ``TAP_EVERY`` s, each marker kept ``DONE_TTL`` once done); then every game
is finished (history entry, ledger, booked id) and replaced by the next lobby.
Prints ``INFO memory`` ``used_memory`` deltas divided by the game count, and
``MEMORY USAGE`` of one game's keys.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import redis.asyncio as aioredis

from benchmarks.bench_redis import STEADY_STATE, bench_redis_url
from bot.rules.dice import Dealer
from bot.rules.lobby import start_game
from bot.rules.matchstate import MatchState, with_table
from bot.service.saving import save
from bot.store import Store
from bot.store.layout import ENDED_KEEP
from bot.store.markers import BUCKET, locate
from bot.store.updates import DONE_TTL, UPDATE_TTL
from bot.vocab.records import ChatSettings, GameRecord, Player, Status, TableOptions
from engine.game import Phase
from engine.position import Side, Variant
from engine.scoring import resign_kinds

GAMES = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
TURNS = (10, 60)
"""A game is measured after a random number of turns in this range (a whole
long nardy game is about 50-60 turns a side... of which half are played)."""
TAP_EVERY = 12.0
"""Seconds between two taps of one game being played (a turn's four taps, roll,
steps and confirm, in about 50 s): the marker turnover of a real day is every game's taps at this
pace, around the clock.  A marker is kept ``DONE_TTL`` once its update is
done (bot/store/updates.py; 24 h before issue 37), so an active game keeps
``DONE_TTL / TAP_EVERY`` of them in steady state, whatever the day's length."""


ALIVE = round(DONE_TTL / TAP_EVERY)
"""Update markers an active game keeps in steady state."""


def played(record: GameRecord, rng: random.Random, turns: int) -> GameRecord:
    table = MatchState.from_dict(record.engine)
    game = table.game
    for _ in range(turns):
        if game.is_over:
            break
        if game.phase is Phase.ROLL:
            game = game.roll(rng)
        while game.phase is Phase.MOVE and game.turn is not None and not game.turn.is_complete:
            game = game.play_step(rng.choice(sorted(game.legal_steps, key=repr)))
        if game.phase is Phase.MOVE:
            game = game.confirm()
    return with_table(record, MatchState(game, table.score), status=Status.ACTIVE)


async def used(redis: aioredis.Redis) -> int:
    return int((await redis.info("memory"))["used_memory"])


async def main() -> None:
    url = bench_redis_url()
    redis = aioredis.Redis.from_url(url)
    await redis.flushdb()
    await redis.set(STEADY_STATE, 0)  # the upgrade's first day is over
    store = Store(redis)
    rng = random.Random(3)
    base = await used(redis)
    games = []
    markers = 0
    for i in range(GAMES):
        chat = -1_000_000_000_000 - i
        alice, bob = 10_000_000 + 2 * i, 10_000_001 + 2 * i
        variant = (Variant.LONG, Variant.BACKGAMMON)[i % 2]
        options = TableOptions(stake_per_point=5, koks=variant is Variant.LONG)
        lobby = GameRecord(chat_id=chat, variant=variant, options=options,
                           created_by=alice, board_message_id=100,
                           players=(Player(user_id=alice, name=f"Alice {i}", side=Side.WHITE),
                                    Player(user_id=bob, name=f"Bob {i}", side=Side.BLACK)))
        turns = rng.randint(*TURNS)
        record = played(start_game(lobby, Dealer.for_tests(3)), rng, turns)
        saved = await store.games.save(record, 0)
        games.append(saved)
        # what else a game in a group keeps: its chat's settings, its board's mark
        # and the chat's map of board messages (bot/store/board.py)
        await store.games.save(ChatSettings(chat_id=chat, language="ru"), 0)
        await store.games.mark_shown(saved, (chat, 100))
        await store.board.remember(chat, 100, saved.ref)
        pipe = redis.pipeline(transaction=False)
        for _ in range(ALIVE):
            markers += 1
            _mark(store, pipe, markers)
        pipe.zadd(store.keys.flood(chat),  # a busy group's flood window: 20 booked messages
                  {f"0123456789ab:{n}": 1700000000.5 + 3 * n for n in range(20)})
        pipe.set(f"nardy:{{chat:{chat}}}:ping:{record.game_id}", 12345, ex=7 * 24 * 3600)
        await pipe.execute()
    active = await used(redis)
    sample = games[0]
    keys = [store.keys.record(sample.key), store.keys.chat(sample.chat_id, "live"),
            store.keys.chat(sample.chat_id, "sent"),
            store.keys.chat(sample.chat_id, f"ping:{sample.game_id}"),
            store.keys.user_games(sample.players[0].user_id), locate(store.keys, identity(1))[0]]
    sizes = {key: await redis.memory_usage(key) for key in keys}
    record_bytes = sum([len(await redis.hget(store.keys.record(g.key), "d") or b"")
                        for g in games]) / GAMES
    markers_only, legacy_markers = await _markers_bytes(store, markers)
    # every game ends (a resignation: the stake is booked) and the chat opens a lobby
    for game in games:
        await save(store, game, resigned(game))  # the bot's own end: ledger, history, stats
    finished = await used(redis)
    history_key = store.keys.chat(sample.chat_id, "history")
    finished_sizes = {name: await redis.memory_usage(store.keys.chat(sample.chat_id, name))
                      for name in ("history", "ledger", "booked", "stats")}
    print(f"memory_bench: {GAMES} games on {url} (Redis {(await redis.info())['redis_version']})")
    print(f"  active game, all its keys: {(active - base) / GAMES:,.0f} bytes "
          f"(engine record JSON {record_bytes:,.0f} bytes; {TURNS[0]}-{TURNS[1]} turns played)")
    print(f"    of which update markers: {markers_only / GAMES:,.0f} bytes "
          f"({markers / GAMES:.0f} taps a game x {markers_only / markers:.0f} bytes: a tap every "
          f"{TAP_EVERY:.0f} s, kept {DONE_TTL // 60} min once done, {BUCKET} update ids a hash)")
    day = UPDATE_TTL / TAP_EVERY * markers_only / markers
    print(f"    the same turnover kept 24 h (before issue 37): {day:,.0f} bytes of markers a "
          f"game; the active game with them: {(active - base - markers_only) / GAMES + day:,.0f}"
          f" bytes ({(active - base - markers_only) / GAMES * 1e5 / 1e9 + day * 1e5 / 1e9:,.1f} "
          f"GB for 100 000 games, not {(active - base) / GAMES * 1e5 / 1e9:,.1f} GB)")
    print(f"    the same markers a key each (the layout before 2026-12-01): "
          f"{legacy_markers / GAMES:,.0f} bytes ({legacy_markers / markers:.0f} bytes a tap); "
          f"the active game with them: "
          f"{(active - base - markers_only + legacy_markers) / GAMES:,.0f} bytes")
    for key, size in sizes.items():
        print(f"    MEMORY USAGE {key}: {size} bytes")
    print(f"  finished game: {(finished - active) / GAMES:,.0f} bytes more than the active "
          f"game (history entry, ledger pair, booked id, two players' stats, its place in the "
          f"chat's ended index; the finished record stays: a chat keeps its 20 newest ended "
          f"games, 30 days at most)")
    for name, size in finished_sizes.items():
        print(f"    MEMORY USAGE {store.keys.chat(sample.chat_id, name)}: {size} bytes")
    print(f"  history entry JSON: {len(await redis.lindex(history_key, 0) or b''):,} bytes")
    per_game = await finished_in_one_chat(store, rng)
    print(f"  each further finished game of one chat, past its 20 kept records (its history "
          f"entry and booked id; history keeps {store.history_cap}): {per_game:,.0f} bytes")
    await redis.flushdb()
    await redis.aclose()


KEPT = ENDED_KEEP


async def finished_in_one_chat(store: Store, rng: random.Random, games: int = 170) -> float:
    """Memory added per game when one chat plays ``games`` games one after another
    (once it keeps its 20 ended ones)."""
    chat, players = -42, (Player(user_id=1, name="Alice", side=Side.WHITE),
                          Player(user_id=2, name="Bob", side=Side.BLACK))
    before = 0
    for n in range(games + 1):  # each game under its own key; the chat keeps 20 ended ones
        lobby = GameRecord(chat_id=chat, variant=Variant.LONG, players=players,
                           options=TableOptions(stake_per_point=5, koks=True))
        record = played(start_game(lobby, Dealer.for_tests(3)), rng, 8)
        saved = await store.games.save(record, 0)
        await save(store, saved, resigned(saved))
        if n == KEPT:  # the chat's keys and its kept ended games exist: count what each adds
            before = await chat_bytes(store, chat)
    return (await chat_bytes(store, chat) - before) / (games - KEPT)


async def chat_bytes(store: Store, chat: int) -> int:
    """``MEMORY USAGE`` of every key of a chat (``INFO memory`` moves by more than a
    game's bytes when the allocator reuses what deleted records freed)."""
    total = 0
    async for key in store.redis.scan_iter(match=store.keys.chat(chat, "*")):
        total += await store.redis.memory_usage(key) or 0
    return total


FIRST_UPDATE = 700_000_000
"""Telegram's update ids are large and run on."""


def identity(n: int) -> str:
    """The n-th tap's identity as bot/edge/ops.py makes it: its id and a 16-digit digest."""
    return f"{FIRST_UPDATE + n}:{hashlib.sha256(str(n).encode()).hexdigest()[:16]}"


def _mark(store: Store, pipe: Any, n: int) -> None:
    """The marker of a handled tap, as the bot settles it (bot/store/markers.py)."""
    key, field = locate(store.keys, identity(n))
    pipe.hset(key, field, "d")
    pipe.expire(key, UPDATE_TTL)


async def _markers_bytes(store: Store, count: int) -> tuple[int, int]:
    """Memory of ``count`` markers as stored now, and a key each as before."""
    redis = store.redis
    buckets = sorted({locate(store.keys, identity(n))[0] for n in range(1, count + 1)})

    async def delta(write: Callable[[Any], None], delete: Callable[[Any], None]) -> int:
        before = await used(redis)
        pipe = redis.pipeline(transaction=False)
        write(pipe)
        await pipe.execute()
        after = await used(redis)
        pipe = redis.pipeline(transaction=False)
        delete(pipe)
        await pipe.execute()
        return after - before

    def drop_buckets(pipe: Any) -> None:
        for key in buckets:
            pipe.delete(key)

    def write_buckets(pipe: Any) -> None:
        for n in range(1, count + 1):
            _mark(store, pipe, n)

    def write_legacy(pipe: Any) -> None:
        for n in range(1, count + 1):
            pipe.set(store.keys.update(identity(n)), "d", ex=UPDATE_TTL)

    def drop_legacy(pipe: Any) -> None:
        for n in range(1, count + 1):
            pipe.delete(store.keys.update(identity(n)))

    pipe = redis.pipeline(transaction=False)
    drop_buckets(pipe)
    await pipe.execute()
    legacy = await delta(write_legacy, drop_legacy)
    current = await delta(write_buckets, lambda pipe: None)  # they stay, as in the bot
    return current, legacy


def resigned(record: GameRecord) -> GameRecord:
    """The record after the player on roll resigns and the opponent accepts."""
    table = MatchState.from_dict(record.engine)
    game = table.game
    side = game.to_act or Side.WHITE
    kind = resign_kinds(game.variant, koks=game.options.koks)[0]
    if not game.is_over:  # (a few random games end by themselves)
        game = game.offer_resignation(side, kind).accept_resignation(side.opponent)
    return with_table(record, MatchState(game, table.score).scored(), status=Status.FINISHED)


if __name__ == "__main__":
    asyncio.run(main())
