"""An update's claim is a short lease renewed by a heartbeat (issue 22 item 2):
a dead worker's claim runs out in seconds and the next delivery takes it over
as the next attempt (which reads the journal); a live worker's renewed claim
is not taken.  The leases run on an injected clock."""

from __future__ import annotations

from bot.store import Store
from bot.store.markers import locate
from bot.store.updates import UPDATE_LEASE

T = 1_800_000_000.0


def _at(store: Store, now: float) -> None:
    store.updates.clock = lambda: now


async def test_a_claim_runs_out_after_its_lease_and_is_taken_over(store: Store) -> None:
    _at(store, T)
    state, claim = await store.updates.claim("7:a")
    assert state == "new" and claim is not None and claim.attempt == 1
    _at(store, T + UPDATE_LEASE - 1)
    assert await store.updates.claim_update("7:a") == ("in_flight", 0)
    _at(store, T + UPDATE_LEASE + 1)  # its worker died: no heartbeat came
    assert await store.updates.claim_update("7:a") == ("new",
                                                       2)  # the retry reads attempt 1's journal
    assert not await store.updates.renew_update(claim)  # the dead worker's claim is not renewed
    assert await store.updates.claim_update("7:a") == ("in_flight", 0)  # attempt 2's claim holds
    assert 0 < await store.redis.ttl(locate(store.keys, "7:a")[0]) <= 24 * 3600


async def test_a_renewed_claim_holds(store: Store) -> None:
    _at(store, T)
    _, claim = await store.updates.claim("8:a")
    assert claim is not None
    for beat in range(1, 10):  # a slow update, its heartbeat every 3 s
        _at(store, T + 3 * beat)
        assert await store.updates.renew_update(claim)
        assert await store.updates.claim_update("8:a") == ("in_flight", 0)
    _at(store, T + 27 + UPDATE_LEASE + 1)
    assert await store.updates.claim_update("8:a") == ("new", 2)


async def test_settled_updates_and_an_older_workers_claim(store: Store) -> None:
    _at(store, T)
    _, claim = await store.updates.claim("9:a")
    assert claim is not None
    await store.updates.settle_update("9:a", claim.attempt, ok=True)
    assert not await store.updates.renew_update(claim)  # done: a late heartbeat changes nothing
    _at(store, T + 3600)
    assert await store.updates.claim_update("9:a") == ("done", 0)
    await store.redis.set(store.keys.update("10:a"), "p:1", ex=120)  # before issue 22
    assert await store.updates.claim_update("10:a") == ("in_flight", 0)  # lives by its key's expiry
