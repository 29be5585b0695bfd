"""The bot's Redis work beyond the Store facade, on every back end (conftest.py: fakeredis,
a local 3-master Redis Cluster, REDIS_URL), and the REDIS_CLUSTER connection itself.

Each module keeps the keys of one script or transaction in one hash slot; on
the cluster a slip shows up as a CROSSSLOT error here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisClusterException, ResponseError

from bot.edge.limits import SharedRateLimiter, Window
from bot.store import Store
from bot.store import invite as invites
from bot.store.connection import open_redis
from bot.vocab.records import GameRecord, GameRef
from tests.bot.store.cluster import LocalCluster
from tests.bot.store.test_store import ALICE, BOB, CHAT, new_game


async def test_open_redis_with_cluster_speaks_the_cluster_protocol(
    redis_cluster: LocalCluster, tmp_path: Path
) -> None:
    async with open_redis(redis_cluster.url, tmp_path, cluster=True) as client:
        assert isinstance(client, RedisCluster) and len(client.get_primaries()) == 3
        await client.flushall(target_nodes=RedisCluster.PRIMARIES)
        store = Store(client)
        saved = await store.games.save(new_game(), 0)
        # the chat's keys and the per-user index live on different masters
        nodes = {client.get_node_from_key(key).name
                 for key in (store.keys.record(saved.key), store.keys.user_games(ALICE),
                             store.keys.user_games(BOB), store.keys.chat(CHAT + 1, "slots"))}
        assert len(nodes) > 1
        assert await store.games.load_game(CHAT, saved.game_id) == saved
        assert [game.game_id for game in await store.games.user_games(BOB)] == [saved.game_id]
        await client.flushall(target_nodes=RedisCluster.PRIMARIES)
    assert not list(tmp_path.iterdir())  # no embedded Redis was started


async def test_the_cluster_refuses_a_script_across_slots(redis_cluster: LocalCluster) -> None:
    # What every script here avoids; proves the back end really is a cluster.
    client = await redis_cluster.client()
    try:
        script = client.register_script("return redis.call('GET', KEYS[2])")
        keys = ["nardy:{chat:1}:ledger", "nardy:{chat:2}:ledger"]
        with pytest.raises((RedisClusterException, ResponseError), match=r"(?i)slot"):
            await script(keys=keys)
    finally:
        await client.aclose()


async def test_invitations_offer_and_redeem_once(store: Store) -> None:
    token = invites.new_token()
    invitation = invites.Invitation(token=token, inviter=ALICE, name="Alice", variant="long")
    await store.invite.offer(invitation)
    first = await store.invite.redeem(token, BOB)
    assert (first.outcome, first.invitation) == (invites.RedeemOutcome.OK, invitation)
    again = await store.invite.redeem(token, 99)
    assert (again.outcome, again.used_by) == (invites.RedeemOutcome.USED, BOB)


async def test_views_user_prefs_and_update_claims(store: Store) -> None:
    ref = GameRef(CHAT, None, "abcd")
    await store.board.remember(ALICE, 7, ref)
    assert await store.board.game_of(ALICE, 7) == ref
    await store.prefs.note_started(ALICE)
    await store.prefs.set_language(ALICE, "lt")
    assert (await store.prefs.has_started(ALICE), await store.prefs.language(ALICE)) == (
        True, "lt")
    assert await store.updates.claim_update(500) == ("new", 1)
    assert await store.updates.claim_update(500) == ("in_flight", 0)
    await store.updates.settle_update(500, 1, ok=True)
    assert await store.updates.claim_update(500) == ("done", 0)
    assert await store.ping()


async def test_flood_buckets_of_a_chat_and_of_the_bot(store: Store) -> None:
    limiter = SharedRateLimiter(group=Window(2, 1.0), margin=0, clock=lambda: 1000.0)
    limiter.attach(store.flood)
    waits = [await limiter.acquire(CHAT) for _ in range(3)]
    assert waits[:2] == [0.0, 0.0] and waits[2] == pytest.approx(1.0)
    await limiter.penalize(CHAT, 5.0)
    assert await limiter.acquire(CHAT) == pytest.approx(5.0)
    assert await limiter.acquire(CHAT + 1) == 0.0  # another chat's bucket is untouched


async def test_scheduler_claims_and_marks_a_due_stage_once(store: Store) -> None:
    deadline = 10_000.0
    game = await store.games.save(new_game(deadline=deadline), 0)
    acted: list[tuple[str, int]] = []

    async def act(record: GameRecord, stage: int) -> None:
        acted.append((record.game_id, stage))

    stages = await store.clock.tick(deadline + 1, act)
    assert len(stages) == 1 and acted == [(game.game_id, stages[0])]
    await store.clock.schedule(game.ref,
                               deadline)  # delivered again: the stage marker stops a repeat
    assert await store.clock.tick(deadline + 2, act) == []
    assert len(acted) == 1
