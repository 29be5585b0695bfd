"""Latency and throughput of the store's load-modify-CAS-save cycle on a real Redis.

    .venv/bin/python benchmarks/store_bench.py [--cycles N]

Uses BENCH_REDIS_URL (see bench_redis.py), a key prefix of its own, and
deletes its keys afterwards.  Prints median and p99 latency of one
`store.games.update()` cycle (load, pure change, CAS save, index upkeep) and cycles per
second, with 1 game and with 50 games updated concurrently.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

import redis.asyncio as aioredis

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_redis import bench_redis_url
from bot.store import Store
from bot.vocab.records import GameRecord, Player, Status, TableOptions, game_key
from engine.position import Side, Variant

PREFIX = "nardy-bench"


def bump(game: GameRecord | None) -> GameRecord:
    assert game is not None
    return game.model_copy(update={"engine": {**game.engine, "n": game.engine["n"] + 1}})


async def run(store: Store, games: int, cycles: int) -> tuple[list[float], float]:
    """`cycles` updates of each of `games` games, all games concurrently."""
    for chat in range(games):
        game = GameRecord(
            chat_id=-1000 - chat, status=Status.ACTIVE, variant=Variant.LONG,
            players=(Player(user_id=1, name="A", side=Side.WHITE),
                     Player(user_id=2 + chat, name="B", side=Side.BLACK)),
            options=TableOptions(time_control=3600), deadline=time.time() + 3600,
            engine={"n": 0, "position": "x" * 400},  # about the size of a real game
            game_id=f"bench{chat:04d}",
        )  # fmt: skip
        await store.games.save(game, 0)
    latencies: list[float] = []

    async def player(chat: int) -> None:
        key = game_key(-1000 - chat, f"bench{chat:04d}")
        for _ in range(cycles):
            start = time.perf_counter()
            await store.games.update(key, bump)
            latencies.append(time.perf_counter() - start)

    start = time.perf_counter()
    await asyncio.gather(*(player(chat) for chat in range(games)))
    return latencies, time.perf_counter() - start


async def clean(client: aioredis.Redis) -> None:
    keys = [key async for key in client.scan_iter(match=f"{PREFIX}:*", count=1000)]
    if keys:
        await client.delete(*keys)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=400, help="updates per game")
    cycles = parser.parse_args().cycles
    url = bench_redis_url()
    client = aioredis.Redis.from_url(url, max_connections=64)
    store = Store(client, prefix=PREFIX)
    print(f"store_bench: {url}, prefix {PREFIX}, {cycles} cycles per game")
    try:
        for games in (1, 50):
            await clean(client)
            n = cycles if games == 1 else max(1, cycles // 10)
            latencies, elapsed = await run(store, games, n)
            latencies.sort()
            p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
            print(
                f"{games:>3} concurrent game(s): {len(latencies):>5} cycles, "
                f"median {statistics.median(latencies) * 1000:.3f} ms, "
                f"p99 {p99 * 1000:.3f} ms, {len(latencies) / elapsed:,.0f} cycles/s"
            )
    finally:
        await clean(client)
        await client.aclose()


if __name__ == "__main__":
    asyncio.run(main())
