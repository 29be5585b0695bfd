"""A group upgraded to a supergroup: `migrate_chat` moves everything, and may be re-run."""

from __future__ import annotations

import pytest

from bot.store import Store
from bot.vocab.clock import first_wake
from bot.vocab.records import CorruptRecordError, GameRecord, Status, game_key
from engine.dicestats import DiceStats
from engine.position import Variant
from tests.bot.store.booked import end
from tests.bot.store.cluster import every_key
from tests.bot.store.test_store import ALICE, BOB, finished, new_game

OLD, NEW = -4001, -1004001
ROLLS = {(Variant.BACKGAMMON, ALICE): DiceStats.of([(6, 5), (3, 3)]),
         (Variant.BACKGAMMON, BOB): DiceStats.of([(2, 1)])}


async def populate(store: Store) -> tuple[GameRecord, GameRecord]:
    """An old chat with settings, an active game with a deadline and a finished one."""
    settings = await store.games.chat_settings(OLD)
    await store.games.save(settings.model_copy(update={"language": "ru"}), 0)
    active = await store.games.save(new_game(chat=OLD, deadline=50.0), 0)
    done = await store.games.save(new_game(chat=OLD, thread=9), 0)
    record, entry = finished(done)
    await store.ledger.finish_game(record, done.version, entry, {(ALICE, BOB): 7}, dice=ROLLS)
    return active, done


async def assert_moved(store: Store, active: GameRecord, done: GameRecord) -> None:
    moved = await store.games.load_game(NEW, active.game_id)
    assert moved == active.model_copy(update={"chat_id": NEW})
    assert [g.game_id for g in await store.games.chat_games(NEW)] == [active.game_id]
    assert [g.game_id for g in await store.games.chat_games(NEW, 9)] == [done.game_id]
    assert await store.redis.ttl(store.keys.record(game_key(NEW, done.game_id))) > 0
    assert (await store.games.chat_settings(NEW)).language == "ru"
    assert await store.ledger.balance(NEW, ALICE, BOB) == 7
    assert [e.game_id for e in await store.ledger.history(NEW)] == [done.game_id]
    for (variant, user), rolls in ROLLS.items():
        assert await store.ledger.dice_stats(NEW, variant, user) == rolls
    assert [g.ref for g in await store.games.user_games(BOB)] == [moved.ref]
    [claim] = await store.clock.claim_due(now=100.0)
    assert claim.ref == moved.ref and claim.due == first_wake(50.0, 3600)
    await store.clock.ack(claim.ref)
    # Nothing is left under the old id but the forwarding address.
    assert await every_key(store.redis, store.keys.chat(OLD, "*")) == [
        store.keys.chat(OLD, "moved_to").encode()
    ]
    assert await store.migration.moved_to(OLD) == NEW
    # The finished game stays booked in the new chat: a late final tap books nothing.
    record, entry = finished(done.model_copy(update={"chat_id": NEW}))
    late = await store.ledger.finish_game(record, 99, entry, {(ALICE, BOB): 7})
    assert not late.booked and await store.ledger.balance(NEW, ALICE, BOB) == 7


async def test_migrate_chat_moves_every_record(store: Store) -> None:
    active, done = await populate(store)
    assert await store.migration.migrate_chat(OLD, NEW) == []
    await assert_moved(store, active, done)
    # The moved game goes on with CAS on its old version.
    moved = await store.games.load_game(NEW, active.game_id)
    assert moved is not None
    await end(store, moved, active.version, Status.CANCELLED)


async def test_migrate_chat_twice_changes_nothing_more(store: Store) -> None:
    active, done = await populate(store)
    await store.migration.migrate_chat(OLD, NEW)
    assert await store.migration.migrate_chat(OLD, NEW) == []
    await assert_moved(store, active, done)


async def test_migration_interrupted_after_the_import_completes_on_rerun(store: Store) -> None:
    active, done = await populate(store)
    # Simulate a crash right after step 1: the import ran, nothing else did.
    records = [r for r in [await store.games.load_game(OLD, active.game_id),
                           await store.games.load_game(OLD, done.game_id)] if r]
    settings = await store.games.chat_settings(OLD)
    moved = [r.model_copy(update={"chat_id": NEW}) for r in [*records, settings]]
    await store.migration._import_chat(OLD, NEW, moved)
    await store.migration.migrate_chat(OLD, NEW)
    await assert_moved(store, active, done)


async def test_a_game_already_in_the_new_chat_is_kept(store: Store) -> None:
    old = await store.games.save(new_game(chat=OLD), 0)
    newer = await store.games.save(new_game(chat=NEW, engine={"n": 5}, game_id=old.game_id), 0)
    moved = await store.migration.migrate_chat(OLD, NEW)
    assert moved == [store.keys.record(game_key(NEW, old.game_id))]
    assert await store.games.load_game(NEW, old.game_id) == newer


async def test_a_corrupt_record_stops_migration_before_any_change(store: Store) -> None:
    await store.games.save(new_game(chat=OLD), 0)
    await store.redis.hset(store.keys.chat(OLD, "settings"), mapping={"v": "1", "d": "[]"})
    await store.redis.sadd(store.keys.chat(OLD, "slots"), "settings")
    before = sorted(await every_key(store.redis))
    with pytest.raises(CorruptRecordError, match="settings"):
        await store.migration.migrate_chat(OLD, NEW)
    assert sorted(await every_key(store.redis)) == before
