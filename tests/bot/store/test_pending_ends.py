"""What follows a booked end is never lost with its worker: the booking leaves
the game in its shard's pending ends until ``followed`` says its follow-ups
ran, and the clock's sweep (``Clock.ends_tick``) runs them for an end left
pending past its grace, once, for a game booked as ended; an entry whose
booking never came is dropped (bot/store/clock.py)."""

from __future__ import annotations

import asyncio

from bot.store import Store
from bot.store.clock import ENDS_GRACE, LEASE
from bot.vocab import clock
from bot.vocab.records import GameRecord, GameRef, Status, VersionConflict
from tests.bot.store.booked import end
from tests.bot.store.test_store import finished, new_game


class Follower:
    """What follows an end, counted per game (``fail`` times raising first)."""

    def __init__(self, fail: int = 0) -> None:
        self.runs: list[GameRef] = []
        self.fail = fail

    async def __call__(self, record: GameRecord) -> None:
        if self.fail:
            self.fail -= 1
            raise RuntimeError("the follow-up failed")
        self.runs.append(record.ref)


async def test_a_booked_end_stays_pending_until_followed_then_the_sweep_runs_it_once(
        store: Store) -> None:
    game = await store.games.save(new_game(), 0)
    done, entry = finished(game)
    booked = (await store.ledger.finish_game(done, game.version, entry)).record
    assert await store.clock.pending_ends() == [booked.ref]
    follow = Follower()
    now = clock.now()
    assert await store.clock.ends_tick(now, follow) == []  # within its grace: its worker's
    assert follow.runs == []
    later = now + ENDS_GRACE + 1  # the worker died before what follows
    assert await store.clock.ends_tick(later, follow) == [booked.ref]
    assert follow.runs == [booked.ref]
    assert await store.clock.pending_ends() == []
    assert await store.clock.ends_tick(later + LEASE + 1, follow) == []  # once
    assert follow.runs == [booked.ref]


async def test_an_end_followed_by_its_worker_leaves_nothing_pending(store: Store) -> None:
    game = await store.games.save(new_game(), 0)
    cancelled = await end(store, game, game.version)
    await store.clock.followed(cancelled.ref)  # what after_end says last
    assert await store.clock.pending_ends() == []
    follow = Follower()
    assert await store.clock.ends_tick(clock.now() + ENDS_GRACE + 1, follow) == []
    assert follow.runs == []


async def test_an_end_whose_booking_was_refused_is_dropped_unfollowed(store: Store) -> None:
    game = await store.games.save(new_game(), 0)
    done, entry = finished(game)
    try:  # another change came first: nothing booked
        await store.ledger.finish_game(done, game.version - 1, entry)
    except VersionConflict:
        pass
    else:
        raise AssertionError("a stale version was booked")
    assert await store.clock.pending_ends() == [game.ref]
    follow = Follower()
    assert await store.clock.ends_tick(clock.now() + ENDS_GRACE + 1, follow) == []
    assert follow.runs == [] and await store.clock.pending_ends() == []
    stored = await store.games.load_game(game.chat_id, game.game_id)
    assert stored is not None and stored.status is Status.ACTIVE


async def test_a_failed_follow_up_is_handed_out_again_after_its_lease(store: Store) -> None:
    game = await store.games.save(new_game(), 0)
    booked = await end(store, game, game.version, Status.FINISHED)
    follow = Follower(fail=1)
    later = clock.now() + ENDS_GRACE + 1
    assert await store.clock.ends_tick(later, follow) == []
    assert await store.clock.pending_ends() == [booked.ref]  # claimed, kept
    assert await store.clock.ends_tick(later + 1, follow) == []  # its lease holds
    assert await store.clock.ends_tick(later + LEASE + 1, follow) == [booked.ref]
    assert follow.runs == [booked.ref] and await store.clock.pending_ends() == []


async def test_two_sweepers_at_once_run_an_end_once(store: Store) -> None:
    games = [await store.games.save(new_game(chat=-100 - n), 0) for n in range(5)]
    booked = [await end(store, g, g.version, Status.FINISHED) for g in games]
    follow = Follower()
    later = clock.now() + ENDS_GRACE + 1
    first, second = await asyncio.gather(store.clock.ends_tick(later, follow),
                                          store.clock.ends_tick(later, follow))
    assert sorted(map(str, first + second)) == sorted(str(b.ref) for b in booked)
    assert sorted(map(str, follow.runs)) == sorted(str(b.ref) for b in booked)
