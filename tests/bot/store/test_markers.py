"""Update markers stored compactly (bot/store/markers.py): dedupe as before, a
claim's lease in its value, a hash per run of ids, the old keys still read."""

from __future__ import annotations

import dataclasses

from bot.store import Store
from bot.store.markers import BUCKET, LEGACY_WINDOW, Markers, locate


async def test_markers_dedupe_by_identity_with_attempts_and_leases(store: Store) -> None:
    tap, other = "4242:0123456789abcdef", "4242:fedcba9876543210"  # one id, two contents
    assert await store.updates.claim_update(tap) == ("new", 1)
    assert await store.updates.claim_update(tap) == ("in_flight", 0)
    assert await store.updates.claim_update(other) == ("new", 1)  # not a duplicate of `tap`
    await store.updates.settle_update(tap, 1, ok=False)
    assert await store.updates.claim_update(tap) == ("new", 2)
    await store.updates.settle_update(tap, 2, ok=True)
    assert await store.updates.claim_update(tap) == ("done", 0)
    assert await store.updates.claim_update(other) == ("in_flight", 0)


async def test_a_claim_whose_lease_ended_is_handed_out_again(store: Store) -> None:
    assert await store.updates.claim_update("77:aa", lease=0) == ("new", 1)  # a worker died at once
    assert await store.updates.claim_update("77:aa") == ("new", 2)  # taken over: the next attempt
    assert await store.updates.claim_update("77:aa") == ("in_flight", 0)


async def test_the_markers_of_a_run_of_ids_share_one_expiring_hash(store: Store) -> None:
    first = 10 * BUCKET
    for update in range(first, first + 3 * BUCKET):
        assert await store.updates.claim_update(f"{update}:0123456789abcdef") == ("new", 1)
        await store.updates.settle_update(f"{update}:0123456789abcdef", 1, ok=True)
    keys = [key async for key in store.redis.scan_iter(match="nardy:{update:*")]
    assert len(keys) == 3  # three buckets (the release before's markers: below)
    bucket, field = locate(store.keys, f"{first + 5}:0123456789abcdef")
    assert await store.redis.hget(bucket, field) == b"d"
    assert 0 < await store.redis.ttl(bucket) <= 24 * 3600
    assert await store.updates.claim_update(f"{first + 5}:0123456789abcdef") == ("done", 0)


async def test_markers_of_the_old_layout_are_read_for_a_day(store: Store) -> None:
    now = [1_000_000.0]
    store.updates.markers = Markers(store.redis, store.keys, clock=lambda: now[0])
    await store.redis.set("nardy:update:9:done", "d", ex=3600)
    await store.redis.set("nardy:update:9:failed", "f:2", ex=3600)
    await store.redis.set("nardy:update:9:taken", "p:1", ex=3600)
    assert await store.updates.claim_update("9:done") == ("done", 0)  # handled before the deploy
    assert await store.updates.claim_update("9:failed") == ("new", 3)
    assert await store.updates.claim_update("9:taken") == ("in_flight", 0)
    now[0] += LEGACY_WINDOW  # every old marker expired by now: they are not looked at
    assert await store.updates.claim_update("9:taken") == ("new", 1)
    await store.redis.set("nardy:update:10:done", "d", ex=3600)
    assert await store.updates.claim_update("10:done") == ("new", 1)


async def test_a_claim_is_renewed_only_by_the_attempt_that_holds_it(store: Store) -> None:
    state, claim = await store.updates.claim("88:bb", lease=0)
    assert state == "new" and claim is not None
    assert await store.updates.renew_update(claim, 60)  # still its worker's: now leased a minute
    assert await store.updates.claim_update("88:bb") == ("in_flight", 0)
    other = dataclasses.replace(claim, owner="someone else")
    assert not await store.updates.renew_update(other)  # another claimer's renewal
    await store.updates.settle_update("88:bb", claim.attempt, ok=True)
    assert not await store.updates.renew_update(claim)  # settled: nothing to renew
    assert await store.updates.claim_update("88:bb") == ("done", 0)
    assert not await store.updates.renew_update(dataclasses.replace(claim, update="89:cc"))  # never


async def test_the_release_befores_markers_are_kept_only_in_the_upgrade_window(
        store: Store) -> None:
    # Workers of the release before schema 2 dedupe by ``nardy:update:<id>``:
    # kept beside ours while they may run (docs/operations.md, "Mixed deploys"),
    # but a key a tap would undo the compact markers, so only for that window
    now = [1_000_000.0]
    store.updates.markers = Markers(store.redis, store.keys, clock=lambda: now[0])
    assert await store.updates.claim_update("500:aa") == ("new", 1)
    await store.updates.settle_update("500:aa", 1, ok=True)
    assert await store.redis.get("nardy:update:500") == b"1"
    now[0] += LEGACY_WINDOW
    assert await store.updates.claim_update("501:bb") == ("new", 1)
    await store.updates.settle_update("501:bb", 1, ok=True)
    assert await store.redis.get("nardy:update:501") is None
    assert await store.updates.claim_update("501:bb") == ("done", 0)


async def test_markers_all_done_are_kept_minutes_and_others_a_day(store: Store) -> None:
    """Issue 37 item 9: a day of every tap's marker was most of an active game's
    memory at 100 000 games.  A bucket whose updates are all done lives
    ``DONE_TTL`` after its last one; one with an update in flight or failed
    (it may come again for a day) lives ``UPDATE_TTL``."""
    from bot.store.updates import DONE_TTL, UPDATE_TTL

    ids = [f"{4200 + n}:d{n}" for n in range(3)]  # one bucket
    key = locate(store.keys, ids[0])[0]
    claims = [(await store.updates.claim(update))[1] for update in ids]
    for claim in claims[:2]:
        assert claim is not None
        await store.updates.settle_update(claim.update, claim.attempt, ok=True)
    assert await store.redis.ttl(key) > DONE_TTL  # the third one is still in flight
    third = claims[2]
    assert third is not None
    await store.updates.settle_update(third.update, third.attempt, ok=False)
    assert await store.redis.ttl(key) > DONE_TTL  # failed: Telegram sends it again
    state, again = await store.updates.claim(third.update)
    assert state == "new" and again is not None
    await store.updates.settle_update(again.update, again.attempt, ok=True)
    assert 0 < await store.redis.ttl(key) <= DONE_TTL < UPDATE_TTL
    assert (await store.updates.claim(ids[0]))[0] == "done"  # still known meanwhile
