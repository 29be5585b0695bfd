"""What waiting for a replica costs a booking (issue 37 item 3, bot/store/replicas.py).

A local Redis Cluster of 3 masters with a replica each (tests/bot/store/cluster.py)
on loopback; the same games are ended (``store.ledger.finish_game``: the
booking a player is told about) with ``WAIT 1`` after the booking and with
no wait (``REPLICA_WAIT_MS=0``), alternating, and the medians and 95th
percentiles are printed side by side.  Bounded: ``--games`` per side (default
200).  Run: ``nice -n 10 .venv/bin/python -m benchmarks.replica_bench``."""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from bot.store import Store
from bot.store.connection import client_for_url
from tests.bot.store.cluster import LocalCluster
from tests.bot.store.test_store import ALICE, BOB, finished, new_game


async def _bookings(store: Store, games: int, chat: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"wait": [], "no wait": []}
    for n in range(games * 2):
        side = "wait" if n % 2 == 0 else "no wait"
        store.ledger.replicas.wait_ms = 1000 if side == "wait" else 0
        game = await store.games.save(new_game(chat=chat - n), 0)
        done, entry = finished(game)
        start = time.perf_counter()
        await store.ledger.finish_game(done, game.version, entry, {(ALICE, BOB): 1})
        times[side].append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args()
    cluster = LocalCluster.start(Path(tempfile.mkdtemp(prefix="nardy-replica-")), replicas=1)
    try:
        store = Store(client_for_url(cluster.url, cluster=True))
        times = asyncio.run(_bookings(store, args.games, -100_000_000))
    finally:
        cluster.stop()
    print(f"{args.games} bookings each, 3 masters + 3 replicas on loopback")
    for side, values in times.items():
        values.sort()
        p95 = values[int(0.95 * (len(values) - 1))]
        print(f"  {side:8} median {statistics.median(values) * 1000:6.2f} ms"
              f"  p95 {p95 * 1000:6.2f} ms")
    extra = statistics.median(times["wait"]) - statistics.median(times["no wait"])
    print(f"  WAIT adds {extra * 1000:.2f} ms to the median booking; "
          f"{store.replicas.waits} waits, {store.replicas.unacknowledged} unacknowledged")


if __name__ == "__main__":
    main()
