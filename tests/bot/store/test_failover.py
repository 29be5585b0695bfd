"""A Redis Cluster master dies while the store works (issue 22 item 1): no step
hangs (each is bounded), steps resume once its replica has taken over, no step
is lost or applied twice, and the health check says "unhealthy" while slots
are unserved.

A local 6-node cluster (3 masters, 3 replicas, ``cluster-node-timeout`` 2 s:
tests/bot/store/cluster.py) and the bot's own client (bot/store/connection.py).
Tasks run the store's kinds of Redis work at once: compare-and-set saves with
their index upkeep (a non-transactional cross-slot pipeline), update claims and
settles, the /analyze copy, write-through journals.  Before issue 22 the
transaction pipelines among them stopped a worker for good in about one
failover of four; bounded here by ``STEP_BOUND`` per step, so a hang fails the
test instead of hanging it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.store import Store
from bot.store.connection import client_for_url
from bot.vocab.records import GameRecord, Status, game_key
from tests.bot.store.cluster import LocalCluster, available
from tests.bot.store.test_store import new_game

STEP_BOUND = 45.0
"""Seconds one store step may take at most (idempotent's budget is 20 s): a
step past it is a hang."""
TASKS = 12
GAMES_PER_TASK = 3


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    if not available():
        pytest.skip("redis-server and redis-cli are not installed: no local Redis Cluster")
    started = LocalCluster.start(tmp_path, replicas=1, node_timeout=2000)
    try:
        yield started
    finally:
        started.stop()


@dataclass
class Tally:
    done: dict[str, int] = field(default_factory=dict)
    """Saves that reported success, by game id."""
    unknown: dict[str, int] = field(default_factory=dict)
    """Saves that failed: landed or not (a reply lost for longer than the retries)."""
    hangs: int = 0
    errors: int = 0
    after_failover: int = 0


async def _work(store: Store, games: list[GameRecord], tally: Tally, stop: asyncio.Event,
                failed_over: asyncio.Event, n: int) -> None:
    step = 0
    while not stop.is_set():
        step += 1
        game = games[step % len(games)]
        try:
            await asyncio.wait_for(_one_step(store, game, f"{n}:{step}"), STEP_BOUND)
        except TimeoutError:
            tally.hangs += 1
        except Exception:
            tally.errors += 1
            tally.unknown[game.game_id] = tally.unknown.get(game.game_id, 0) + 1
        else:
            tally.done[game.game_id] = tally.done.get(game.game_id, 0) + 1
            tally.after_failover += failed_over.is_set()
        await asyncio.sleep(0.01)


async def _one_step(store: Store, game: GameRecord, update: str) -> None:
    state, claim = await store.updates.claim(update)
    assert state == "new" and claim is not None
    await store.updates.save_effects(update, {"answer:1": "{}"})
    current = await store.games.load_game(game.chat_id, game.game_id)
    assert current is not None
    moved = current.model_copy(update={"engine": {"n": current.engine.get("n", 0) + 1}})
    saved = await store.games.save(moved, current.version)  # compare-and-set, then the index upkeep
    kept = saved.model_copy(update={"status": Status.FINISHED})
    await store.analysis.keep(kept)
    await store.updates.settle_update(update, claim.attempt, ok=True)


HANG_BOUND = 120.0
"""Seconds a failover may take before the test calls it a hang (a loaded machine's bound)."""


async def _until(ready: Callable[[], Any]) -> None:
    """Poll ``ready`` (a plain or async predicate) until it holds."""
    while True:
        answer = ready()
        if asyncio.iscoroutine(answer):
            answer = await answer
        if answer:
            return
        await asyncio.sleep(0.2)


async def test_a_master_killed_mid_work_stops_nothing_for_good(cluster: LocalCluster) -> None:
    client = client_for_url(cluster.url, cluster=True)
    store = Store(client)
    try:
        games = [[await store.games.save(new_game(chat=-1000 - 10 * task - i, engine={"n": 0}), 0)
                  for i in range(GAMES_PER_TASK)] for task in range(TASKS)]
        tally, stop, failed_over = Tally(), asyncio.Event(), asyncio.Event()
        tasks = [asyncio.create_task(_work(store, mine, tally, stop, failed_over, n))
                 for n, mine in enumerate(games)]
        await asyncio.sleep(1.0)
        killed = cluster.kill_master()
        probes = [await store.ping()]  # its slots are unserved now
        # the failover takes Redis's own time (cluster-node-timeout): the bound only
        # guards against a hang, it is no speed limit
        await asyncio.wait_for(_until(lambda: len(cluster.masters()) == 3
                                      and cluster.healthy()), HANG_BOUND)
        failed_over.set()
        await asyncio.wait_for(_until(store.ping), HANG_BOUND)  # the client learns the map
        await asyncio.sleep(2.0)
        stop.set()
        await asyncio.wait_for(asyncio.gather(*tasks), STEP_BOUND + 5)  # every task ends
        assert probes == [False], f"healthy with master {killed} dead"
        assert tally.hangs == 0
        assert tally.after_failover >= TASKS  # work resumed on the new master
        for game in (g for mine in games for g in mine):
            stored = await store.games.load(game_key(game.chat_id, game.game_id))
            assert stored is not None
            done, unknown = tally.done.get(game.game_id, 0), tally.unknown.get(game.game_id, 0)
            # every reported save landed once; a failed one at most once
            assert done <= stored.engine["n"] <= done + unknown, (done, unknown, stored.engine)
            assert stored.version == 1 + stored.engine["n"]
    finally:
        await client.aclose()
