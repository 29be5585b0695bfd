"""The store's side of the ledger: stats booked with the game's end exactly once,
re-read when they change meanwhile, and /settle's compare-and-zero (both back ends)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

import pytest

from bot.store import Store, StoreError, VersionConflict, stats_field
from bot.store.ledger import Ledger
from bot.vocab.records import (
    CorruptRecordError,
    GameRecord,
    HistoryEntry,
    Player,
    PlayerStats,
    SettleRequest,
    Status,
)
from engine.position import Side, Variant

CHAT, ALICE, BOB = -100500, 11, 22


def _game(thread: int | None = None) -> GameRecord:
    players = (Player(user_id=ALICE, name="Alice", side=Side.WHITE),
               Player(user_id=BOB, name="Bob", side=Side.BLACK))
    return GameRecord(chat_id=CHAT, thread_id=thread, variant=Variant.LONG, players=players,
                      status=Status.ACTIVE)


def _count_game(current: Mapping[int, PlayerStats | None]) -> list[PlayerStats]:
    """A stats update: one more game for each player."""
    out = []
    for uid in (ALICE, BOB):
        old = current.get(uid) or PlayerStats(user_id=uid, variant=Variant.LONG)
        out.append(old.model_copy(update={"games": old.games + 1}))
    return out


async def _finish(store: Store, thread: int | None = None, amount: int = 10,
                  stats=_count_game):  # type: ignore[no-untyped-def]
    game = await store.games.save(_game(thread), 0)
    done = game.model_copy(update={"status": Status.FINISHED})
    entry = HistoryEntry(game_id=done.game_id, variant=Variant.LONG, players=done.players,
                         winner=Side.WHITE, result="oin", points=1, stake=amount)
    return game, done, entry, await store.ledger.finish_game(done, game.version, entry,
                                                            {(ALICE, BOB): amount}, stats)


async def _games(store: Store) -> dict[int, int]:
    return {s.user_id: s.games for s in await store.ledger.player_stats(CHAT)}


async def test_stats_are_booked_once_with_the_game(store: Store) -> None:
    game, done, entry, result = await _finish(store)
    assert result.booked
    assert await _games(store) == {ALICE: 1, BOB: 1}
    # a retried final tap: the same game again books nothing, stats included
    again = await store.ledger.finish_game(done, game.version, entry, {(ALICE, BOB): 10},
                                          _count_game)
    assert not again.booked
    assert await _games(store) == {ALICE: 1, BOB: 1}
    assert await store.ledger.balance(CHAT, ALICE, BOB) == 10


async def test_concurrent_final_taps_book_once(store: Store) -> None:
    game = await store.games.save(_game(), 0)
    done = game.model_copy(update={"status": Status.FINISHED})
    entry = HistoryEntry(game_id=done.game_id, variant=Variant.LONG, players=done.players,
                         winner=Side.WHITE, result="mars", points=2, stake=20)
    results = await asyncio.gather(*[
        store.ledger.finish_game(done, game.version, entry, {(ALICE, BOB): 20}, _count_game)
        for _ in range(8)])
    assert sum(r.booked for r in results) == 1
    assert await store.ledger.balance(CHAT, ALICE, BOB) == 20
    assert await _games(store) == {ALICE: 1, BOB: 1}
    assert len(await store.ledger.history(CHAT)) == 1


async def test_games_ending_at_once_in_two_topics_both_count(store: Store) -> None:
    await asyncio.gather(*[_finish(store, thread) for thread in (None, 5, 6, 7)])
    assert await _games(store) == {ALICE: 4, BOB: 4}
    assert await store.ledger.balance(CHAT, ALICE, BOB) == 40


class RacedLedger(Ledger):
    """Ledger where another booking changes Alice's stats right after each read
    (``races`` times): the moment a concurrent game in another topic could land."""

    races = 0
    written = 0

    async def _stats_args(self, record, stats):  # type: ignore[no-untyped-def]
        args = await super()._stats_args(record, stats)
        if self.races:
            self.races -= 1
            self.written += 5
            other = PlayerStats(user_id=ALICE, variant=Variant.LONG, games=self.written)
            await self.redis.hset(self.keys.chat(CHAT, "stats"),
                                  stats_field(Variant.LONG, ALICE), other.model_dump_json())
        return args


def _raced(store: Store, races: int) -> Store:
    """A store on the same Redis whose ledger is a :class:`RacedLedger`."""
    raced = Store(store.redis)
    ledger = RacedLedger(store.redis, raced.keys, raced.games)
    ledger.races = races
    raced.ledger = ledger
    return raced


async def test_stats_changed_between_read_and_write_are_read_again(store: Store) -> None:
    raced = _raced(store, 1)
    seen: list[int] = []

    def counting(current: Mapping[int, PlayerStats | None]) -> list[PlayerStats]:
        before = current.get(ALICE)
        seen.append(before.games if before else 0)
        return _count_game(current)

    await _finish(raced, stats=counting)
    assert seen == [0, 5]  # the first write lost and changed nothing; the second built on 5
    assert await _games(store) == {ALICE: 6, BOB: 1}
    assert await store.ledger.balance(CHAT, ALICE, BOB) == 10


async def test_stats_that_keep_changing_give_up_without_writing(store: Store) -> None:
    raced = _raced(store, 3)
    game = await raced.games.save(_game(), 0)
    done = game.model_copy(update={"status": Status.FINISHED})
    entry = HistoryEntry(game_id=done.game_id, variant=Variant.LONG, players=done.players,
                         winner=Side.WHITE, result="oin", points=1, stake=10)
    with pytest.raises(VersionConflict):
        await raced.ledger.finish_game(done, game.version, entry, {(ALICE, BOB): 10}, _count_game,
                                      retries=2)
    assert await store.ledger.balance(CHAT, ALICE, BOB) == 0
    assert await store.ledger.history(CHAT) == []
    assert (await store.games.load_game(CHAT, game.game_id)).status is Status.ACTIVE  # type: ignore[union-attr]


async def test_stats_of_someone_else_are_refused(store: Store) -> None:
    def stranger(_current: Mapping[int, PlayerStats | None]) -> list[PlayerStats]:
        return [PlayerStats(user_id=99, variant=Variant.LONG)]

    with pytest.raises(ValueError, match="not this game's players"):
        await _finish(store, stats=stranger)
    assert await store.ledger.balance(CHAT, ALICE, BOB) == 0


async def test_corrupt_stats_name_their_field(store: Store) -> None:
    await store.redis.hset(store.keys.chat(CHAT, "stats"), "long:11", "{nope")
    with pytest.raises(CorruptRecordError, match=r"stats\[long:11\]"):
        await store.ledger.player_stats(CHAT)


# ---------------------------------------------------------------- settle


async def _request(store: Store, amount: int) -> SettleRequest:
    request = SettleRequest(chat_id=CHAT, requester=ALICE, other=BOB, amount=amount,
                            names={ALICE: "Alice", BOB: "Bob"})
    await store.ledger.put_settle(request)
    return request


async def test_settle_zeroes_exactly_the_confirmed_balance(store: Store) -> None:
    await _finish(store, amount=30)  # Bob owes Alice 30
    request = await _request(store, 30)
    assert await store.ledger.load_settle(CHAT, request.request_id) == request
    assert await store.ledger.settle(request) is None
    assert await store.ledger.balance(CHAT, ALICE, BOB) == 0
    assert await store.ledger.ledger(CHAT) == {}
    assert await store.ledger.load_settle(CHAT, request.request_id) is None
    with pytest.raises(StoreError):  # a second confirm tap
        await store.ledger.settle(request)


async def test_settle_from_the_debtors_side(store: Store) -> None:
    await _finish(store, amount=30)
    request = SettleRequest(chat_id=CHAT, requester=BOB, other=ALICE, amount=-30)
    await store.ledger.put_settle(request)
    assert await store.ledger.settle(request) is None
    assert await store.ledger.balance(CHAT, ALICE, BOB) == 0


async def test_settle_refuses_a_balance_that_changed(store: Store) -> None:
    await _finish(store, amount=30)
    request = await _request(store, 30)
    await _finish(store, thread=3, amount=5)  # another game ends before Bob confirms
    assert await store.ledger.settle(request) == 35
    assert await store.ledger.balance(CHAT, ALICE, BOB) == 35
    assert await store.ledger.load_settle(CHAT, request.request_id) == request  # still open


async def test_a_request_changes_only_from_what_was_read(store: Store) -> None:
    request = SettleRequest(chat_id=CHAT, requester=ALICE, candidates=(BOB,))
    await store.ledger.put_settle(request)
    chosen = request.model_copy(update={"other": BOB, "amount": 7})
    assert await store.ledger.change_settle(request, chosen)
    assert not await store.ledger.change_settle(request, None)  # read before the change
    assert await store.ledger.change_settle(chosen, None)
    assert await store.ledger.load_settle(CHAT, request.request_id) is None
    assert await store.redis.ttl(store.keys.chat(CHAT, f"settle:{request.request_id}")) == -2


async def test_a_request_expires(store: Store) -> None:
    request = SettleRequest(chat_id=CHAT, requester=ALICE, candidates=(BOB,))
    await store.ledger.put_settle(request, ttl=100)
    ttl = await store.redis.ttl(store.keys.chat(CHAT, f"settle:{request.request_id}"))
    assert 0 < ttl <= 100
    chosen = request.model_copy(update={"other": BOB, "amount": 7})
    await store.ledger.change_settle(request, chosen)  # keeps the expiry
    assert await store.redis.ttl(store.keys.chat(CHAT, f"settle:{request.request_id}")) > 0


async def test_stats_move_with_a_migrated_chat(store: Store) -> None:
    await _finish(store)
    await store.migration.migrate_chat(CHAT, CHAT - 1)
    assert await store.ledger.player_stats(CHAT) == []
    moved = await store.ledger.player_stats(CHAT - 1)
    assert {s.user_id: s.games for s in moved} == {ALICE: 1, BOB: 1}
    await store.migration.migrate_chat(CHAT, CHAT - 1)  # idempotent
    assert len(await store.ledger.player_stats(CHAT - 1)) == 2
