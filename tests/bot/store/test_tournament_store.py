"""Tournament records in Redis (fakeredis, a local cluster, the real server):
one compare-and-set per change, the prizes booked with the change that ends
the tournament and never twice, the match map, and the leased wake-ups."""

from __future__ import annotations

import asyncio
import time

import pytest

from bot.rules import tournament as rules
from bot.service.tournament import commit_tournament
from bot.store import Forfeited, Store, VersionConflict
from bot.store.layout import ENDED_TTL
from bot.vocab import clock
from bot.vocab.records import GameRecord, HistoryEntry, Player, Status, TableOptions
from bot.vocab.tournament import Decision, Format, Result, TournamentRecord
from engine.position import Side, Variant

CHAT = -100777


def lobby(players: int, stake: int = 10) -> TournamentRecord:
    record = rules.create(CHAT, None, 1, Variant.LONG, TableOptions(),
                          rules.Setup(format=Format.KNOCKOUT, entry_stake=stake), 1000.0)
    for user in range(1, players + 1):
        record = rules.join(record, user, f"p{user}", 1000.0)
    return record


async def ledger_nets(store: Store) -> dict[int, int]:
    nets: dict[int, int] = {}
    for (low, high), balance in (await store.ledger.ledger(CHAT)).items():
        nets[low] = nets.get(low, 0) + balance
        nets[high] = nets.get(high, 0) - balance
    return {user: net for user, net in nets.items() if net}


async def test_a_record_is_saved_by_compare_and_set(store: Store) -> None:
    record = lobby(2)
    saved = await store.tournament.save(record, 0)
    assert saved.version == 1
    assert await store.tournament.load(CHAT, record.tournament_id) == saved
    with pytest.raises(VersionConflict):
        await store.tournament.save(record, 0)
    again = await store.tournament.save(saved.model_copy(update={"updated_at": 1001.0}), 1)
    assert again.version == 2
    with pytest.raises(VersionConflict):   # a writer that loaded version 1 loses
        await store.tournament.save(saved, 1)
    assert [t.tournament_id for t in await store.tournament.open_ones(CHAT)] == [
        record.tournament_id]
    assert await store.tournament.load(CHAT, "nothing1") is None


async def test_the_prizes_are_booked_with_the_end_and_only_once(store: Store) -> None:
    """A 2-player knockout with an entry of 10: the winner's +10 and the
    loser's -10 land in the ledger in the write that ends it; racing writers
    of the same end book it once."""
    record = await store.tournament.save(lobby(2), 0)
    started = await commit_tournament(store, CHAT, record.tournament_id,
                                      lambda r, now: rules.start(r, 1, {}, now))
    assert started is not None and started[1].status is Status.ACTIVE
    assert await ledger_nets(store) == {}
    won = Result(decision=Decision.PLAYED, winner=2, points=1)

    def finish(r: TournamentRecord, now: float) -> TournamentRecord:
        board = next((p.board for p in r.rounds[-1].pairings if p.result is None), None)
        return r if board is None else rules.record_result(r, board, won, now)

    results = await asyncio.gather(*(commit_tournament(store, CHAT, record.tournament_id, finish)
                                     for _ in range(4)))
    final = await store.tournament.load(CHAT, record.tournament_id)
    assert final is not None and final.status is Status.FINISHED
    assert [r[1].status for r in results if r] == [Status.FINISHED] * 4
    assert await ledger_nets(store) == {2: 10, 1: -10}


async def test_a_cancelled_tournament_books_nothing(store: Store) -> None:
    record = await store.tournament.save(lobby(4), 0)
    await commit_tournament(store, CHAT, record.tournament_id,
                            lambda r, now: rules.start(r, 1, {}, now))
    await commit_tournament(store, CHAT, record.tournament_id,
                            lambda r, now: rules.cancel(r, 9, True, now))
    final = await store.tournament.load(CHAT, record.tournament_id)
    assert final is not None and final.status is Status.CANCELLED
    assert await ledger_nets(store) == {}
    assert await store.tournament.open_ones(CHAT) == []


async def test_a_match_finds_its_tournament(store: Store) -> None:
    record = lobby(2)
    await store.tournament.save(record, 0, matches=("ab" * 32,))
    assert await store.tournament.of_match(CHAT, "ab" * 32) == record.tournament_id
    assert await store.tournament.of_match(CHAT, "cd" * 32) is None


async def test_wake_ups_are_leased_to_one_claimer(store: Store) -> None:
    record = lobby(2)
    now = clock.now()
    await store.tournament.wake(record, now + 50)
    await store.tournament.wake(record, now + 100)   # never later than one set
    assert await store.tournament.claim(now + 60, lease=30) == [(CHAT, record.tournament_id)]
    assert await store.tournament.claim(now + 61, lease=30) == []   # leased
    assert await store.tournament.claim(now + 91, lease=30) == [   # its claimer died
        (CHAT, record.tournament_id)]
    await store.tournament.reschedule(record, now + 500)
    assert await store.tournament.claim(now + 200) == []
    await store.tournament.wake(record, now + 300)   # a change wants it sooner
    assert await store.tournament.claim(now + 300) == [(CHAT, record.tournament_id)]
    await store.tournament.reschedule(record, None)
    assert await store.tournament.claim(now + 10**6) == []


async def test_a_closed_tournament_is_kept_a_while_and_an_open_one_for_good(store: Store) -> None:
    """Closed tournaments (a cancelled lobby any member can make) were kept
    for ever, with the chat's index and match map: they expire as an ended
    game does once nothing in the chat is open."""
    now = time.time()
    record = await store.tournament.save(lobby(2).model_copy(update={"created_at": now}), 0,
                                         matches=("c1",))
    names = [store.keys.record(record.key), store.keys.chat(CHAT, "tournaments"),
             store.keys.chat(CHAT, "tmatch")]
    assert [await store.redis.ttl(name) for name in names] == [-1, -1, -1]
    other = await store.tournament.save(lobby(3).model_copy(update={"created_at": now}), 0)
    other = await store.tournament.save(other.model_copy(update={"status": Status.CANCELLED}),
                                        other.version)
    assert 0 < await store.redis.ttl(store.keys.record(other.key)) <= ENDED_TTL
    assert [await store.redis.ttl(name) for name in names] == [-1, -1, -1]   # one is open
    closed = await store.tournament.save(record.model_copy(update={"status": Status.CANCELLED}),
                                         record.version)
    assert all([0 < await store.redis.ttl(name) <= ENDED_TTL for name in names])
    assert await store.tournament.load(CHAT, closed.tournament_id) == closed
    # a closed one made longer ago than that leaves the index with its next save
    old = lobby(2).model_copy(update={"tournament_id": "oldone01", "created_at": 1000.0,
                                      "status": Status.CANCELLED})
    await store.tournament.save(old, 0)
    ids = await store.redis.zrange(store.keys.chat(CHAT, "tournaments"), 0, -1)
    assert sorted(i.decode() if isinstance(i, bytes) else i for i in ids) == sorted(
        [record.tournament_id, other.tournament_id])


async def test_a_forfeited_match_books_no_finished_end_but_may_close(store: Store) -> None:
    """The save that decides a pairing by forfeit marks its match; from then
    the booking script refuses a finished end of it (a resignation between a
    withdrawal and its game's close), nothing written, and takes its close
    (cancelled, unrated).  The match still leads to its tournament."""
    record = await store.tournament.save(lobby(2), 0, matches=("m1", "m2"))
    record = await store.tournament.save(record, record.version, forfeits=("m1",))
    assert await store.tournament.of_match(CHAT, "m1") == record.tournament_id
    assert await store.tournament.of_match(CHAT, "m2") == record.tournament_id
    players = (Player(user_id=1, name="p1", side=Side.WHITE),
               Player(user_id=2, name="p2", side=Side.BLACK))
    game = await store.games.save(GameRecord(chat_id=CHAT, variant=Variant.LONG,
                                             players=players, status=Status.ACTIVE), 0)
    done = game.model_copy(update={"status": Status.FINISHED})
    won = HistoryEntry(game_id=game.game_id, variant=Variant.LONG, players=players,
                       winner=Side.WHITE, result="single", points=1)
    with pytest.raises(Forfeited):
        await store.ledger.finish_game(done, game.version, won, match="m1")
    assert await store.games.load_game(CHAT, game.game_id) == game
    assert not await store.ledger.history(CHAT)
    other = await store.games.save(game.model_copy(update={"game_id": "g2", "version": 0}), 0)
    assert (await store.ledger.finish_game(   # another match of it is booked as ever
        other.model_copy(update={"status": Status.FINISHED}), other.version,
        won.model_copy(update={"game_id": "g2"}), match="m2")).booked
    closed = game.model_copy(update={"status": Status.CANCELLED})
    cancelled = HistoryEntry(game_id=game.game_id, variant=Variant.LONG, players=players,
                             result="cancelled")
    assert (await store.ledger.finish_game(closed, game.version, cancelled, match="m1")).booked
