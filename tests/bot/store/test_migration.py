"""A group upgraded to a supergroup: `migrate_chat` moves everything, and may be re-run."""

from __future__ import annotations

import time

import pytest

from bot.rules import tournament as tournaments
from bot.service.tournament import commit_tournament
from bot.store import Store
from bot.store.layout import ENDED_TTL
from bot.vocab.clock import first_wake
from bot.vocab.records import CorruptRecordError, GameRecord, Status, TableOptions, game_key
from bot.vocab.tournament import Format, TournamentRecord
from engine.dicestats import DiceStats
from engine.position import Variant
from tests.bot.store.booked import end
from tests.bot.store.cluster import every_key
from tests.bot.store.test_store import ALICE, BOB, finished, new_game

OLD, NEW = -4001, -1004001
ROLLS = {(Variant.BACKGAMMON, ALICE): DiceStats.of([(6, 5), (3, 3)]),
         (Variant.BACKGAMMON, BOB): DiceStats.of([(2, 1)])}


async def lobby(store: Store) -> TournamentRecord:
    """A tournament lobby of the old chat with two players, a match it
    plays, and a wake-up at 60."""
    record = tournaments.create(OLD, None, ALICE, Variant.LONG, TableOptions(),
                                tournaments.Setup(format=Format.KNOCKOUT, entry_stake=5), 10.0)
    for user in (ALICE, BOB):
        record = tournaments.join(record, user, str(user), 10.0)
    record = await store.tournament.save(record, 0, matches=("dice-commitment",))
    await store.tournament.wake(record, 60.0)
    return record


async def populate(store: Store) -> tuple[GameRecord, GameRecord]:
    """An old chat with settings, an active game with a deadline, a finished
    one and a tournament."""
    await lobby(store)
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
    [tournament] = await store.tournament.open_ones(NEW)
    assert tournament.chat_id == NEW and [e.user_id for e in tournament.entrants] == [ALICE, BOB]
    assert await store.tournament.of_match(NEW, "dice-commitment") == tournament.tournament_id
    assert await store.tournament.claim(now=100.0) == [(NEW, tournament.tournament_id)]
    await store.tournament.reschedule(tournament, None)
    # Nothing is left under the old id but the forwarding address.
    assert await every_key(store.redis, store.keys.chat(OLD, "*")) == [
        store.keys.chat(OLD, "moved_to").encode()
    ]
    assert await store.migration.moved_to(OLD) == NEW
    # The finished game stays booked in the new chat: a late final tap books nothing.
    record, entry = finished(done.model_copy(update={"chat_id": NEW}))
    late = await store.ledger.finish_game(record, 99, entry, {(ALICE, BOB): 7})
    assert not late.booked and await store.ledger.balance(NEW, ALICE, BOB) == 7
    # The tournament goes on in the new chat (its compare-and-set on its old
    # version) and books its prize there.
    started = await commit_tournament(store, NEW, tournament.tournament_id,
                                      lambda r, now: tournaments.start(r, ALICE, {}, now))
    assert started is not None and started[1].version == tournament.version + 1


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


async def test_a_tournament_claimed_while_its_chat_moved_is_woken_once_in_the_new_chat(
        store: Store) -> None:
    record = await lobby(store)
    assert await store.tournament.claim(now=100.0) == [(OLD, record.tournament_id)]
    await store.migration.migrate_chat(OLD, NEW)
    # the old worker's run finds nothing under the old id and drops its wake-up
    assert await store.tournament.load(OLD, record.tournament_id) is None
    await store.tournament.forget(OLD, record.tournament_id)
    assert await store.tournament.claim(now=1000.0) == [(NEW, record.tournament_id)]
    assert await store.tournament.claim(now=2000.0) == [(NEW, record.tournament_id)]


async def test_a_game_already_in_the_new_chat_is_kept(store: Store) -> None:
    old = await store.games.save(new_game(chat=OLD), 0)
    newer = await store.games.save(new_game(chat=NEW, engine={"n": 5}, game_id=old.game_id), 0)
    moved = await store.migration.migrate_chat(OLD, NEW)
    assert moved == [store.keys.record(game_key(NEW, old.game_id))]
    assert await store.games.load_game(NEW, old.game_id) == newer


async def test_a_corrupt_tournament_stops_migration_before_any_change(store: Store) -> None:
    await store.games.save(new_game(chat=OLD), 0)
    record = await lobby(store)
    await store.redis.hset(store.keys.record(record.key), "d", "[]")
    before = sorted(await every_key(store.redis))
    with pytest.raises(CorruptRecordError, match=record.tournament_id):
        await store.migration.migrate_chat(OLD, NEW)
    assert sorted(await every_key(store.redis)) == before


async def test_a_corrupt_record_stops_migration_before_any_change(store: Store) -> None:
    await store.games.save(new_game(chat=OLD), 0)
    await store.redis.hset(store.keys.chat(OLD, "settings"), mapping={"v": "1", "d": "[]"})
    await store.redis.sadd(store.keys.chat(OLD, "slots"), "settings")
    before = sorted(await every_key(store.redis))
    with pytest.raises(CorruptRecordError, match="settings"):
        await store.migration.migrate_chat(OLD, NEW)
    assert sorted(await every_key(store.redis)) == before


async def test_a_closed_tournament_moves_with_its_expiry(store: Store) -> None:
    record = await lobby(store)
    closed = await store.tournament.save(record.model_copy(update={
        "status": Status.CANCELLED, "created_at": time.time()}), record.version)
    await store.migration.migrate_chat(OLD, NEW)
    moved = closed.model_copy(update={"chat_id": NEW})
    assert await store.tournament.load(NEW, closed.tournament_id) == moved
    assert 0 < await store.redis.ttl(store.keys.record(moved.key)) <= ENDED_TTL


async def test_a_private_notice_linking_to_a_moved_game_follows_it(store: Store) -> None:
    """A tournament player's private notice links to its game's board
    (``store.board.link``); after the chat moved, a new board of the game must
    still find it to relink it, with the link's expiry kept."""
    active, _ = await populate(store)
    await store.board.link(active.ref, ALICE, 77, "Board")
    await store.migration.migrate_chat(OLD, NEW)
    moved = await store.games.load_game(NEW, active.game_id)
    assert moved is not None
    assert await store.board.links(moved.ref) == [(ALICE, 77, "Board")]
    assert await store.board.links(active.ref) == []
    assert await store.redis.ttl(store.keys.chat(NEW, f"links:{active.game_id}")) > 0
    await store.migration.migrate_chat(OLD, NEW)  # a re-run moves nothing twice
    assert await store.board.links(moved.ref) == [(ALICE, 77, "Board")]


async def test_a_pending_end_follows_its_game_to_the_new_chat(store: Store) -> None:
    """An end whose follow-ups are still pending (its worker died,
    bot/store/clock.py ``ending``) keeps its time under the game's new ref:
    under the old one the sweep would find no game and drop it."""
    active, _ = await populate(store)
    pipe = store.redis.pipeline(transaction=False)
    store.clock.ending(pipe, active.ref, 1000.0)
    await pipe.execute()
    old = store.keys.ends_shard(active.ref)[0]
    due = await store.redis.zscore(old, str(active.ref))
    assert due is not None
    for _ in range(2):   # a re-run moves nothing twice
        await store.migration.migrate_chat(OLD, NEW)
        moved = await store.games.load_game(NEW, active.game_id)
        assert moved is not None
        assert await store.redis.zscore(store.keys.ends_shard(moved.ref)[0],
                                        str(moved.ref)) == due
        assert await store.redis.zscore(old, str(active.ref)) is None
