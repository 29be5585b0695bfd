"""The store on fakeredis and the real Redis: records, CAS, indexes, ledger, deadlines."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.store import Store, UnbookedEnd
from bot.store.client import as_text
from bot.store.layout import GameLimit
from bot.vocab.clock import first_wake
from bot.vocab.records import (
    ChatSettings,
    CorruptRecordError,
    GameRecord,
    GameRef,
    HistoryEntry,
    Player,
    Status,
    TableOptions,
    VersionConflict,
    game_key,
    ids_done,
    ids_from,
    settings_key,
    written_here,
)
from engine.position import Side, Variant
from tests.bot.store.booked import end

CHAT = -100123
ALICE, BOB, CAROL = 11, 22, 33


def new_game(
    chat: int = CHAT, thread: int | None = None, status: Status = Status.ACTIVE, **changes: object
) -> GameRecord:
    fields: dict[str, object] = {
        "chat_id": chat,
        "thread_id": thread,
        "status": status,
        "variant": Variant.LONG,
        "players": (
            Player(user_id=ALICE, name="Alice", side=Side.WHITE),
            Player(user_id=BOB, name="Bob", side=Side.BLACK),
        ),
        "options": TableOptions(stake_per_point=5, time_control=3600),
        "engine": {"n": 0},
    }
    return GameRecord.model_validate({**fields, **changes})


def finished(game: GameRecord) -> tuple[GameRecord, HistoryEntry]:
    done = game.model_copy(update={"status": Status.FINISHED})
    entry = HistoryEntry(
        game_id=game.game_id, variant=game.variant, players=game.players,
        winner=Side.WHITE, result="mars", points=2, stake=10,
    )  # fmt: skip
    return done, entry


async def test_game_save_load_round_trip(store: Store) -> None:
    game = new_game(thread=7, board_message_id=5, deadline=123.5)
    assert await store.games.load_game(CHAT, game.game_id) is None
    saved = await store.games.save(game, 0)
    assert saved.version == 1
    assert await store.games.load_game(CHAT, game.game_id) == saved
    assert await store.games.load_game(-100124, game.game_id) is None  # another chat
    assert store.keys.record(saved.key) == f"nardy:{{chat:-100123}}:g:{game.game_id}"
    assert await store.games.chat_games(CHAT, 7) == [saved]
    assert await store.games.chat_games(CHAT, None) == []  # another topic


async def test_save_with_a_stale_version_is_refused_and_changes_nothing(store: Store) -> None:
    first = await store.games.save(new_game(), 0)
    with pytest.raises(VersionConflict) as caught:
        await store.games.save(new_game(engine={"n": 9}, game_id=first.game_id), 0)
    assert (caught.value.expected, caught.value.actual) == (0, "1")
    assert await store.games.load_game(CHAT, first.game_id) == first


async def test_chat_settings_default_then_saved(store: Store) -> None:
    defaults = await store.games.chat_settings(CHAT)
    assert defaults == ChatSettings(chat_id=CHAT) and defaults.version == 0
    changed = defaults.model_copy(update={"language": "ru", "board_style": "text"})
    saved = await store.games.save(changed, defaults.version)
    assert await store.games.chat_settings(CHAT) == saved
    assert saved.version == 1 and saved.board_style == "text"


async def test_a_chats_games_by_topic_and_their_count(store: Store) -> None:
    lobby = await store.games.save(new_game(status=Status.LOBBY, players=(), created_at=1.0), 0)
    game = await store.games.save(new_game(created_at=2.0), 0)
    await store.games.save(new_game(thread=3), 0)
    assert [g.game_id for g in await store.games.chat_games(CHAT)] == [lobby.game_id, game.game_id]
    assert await store.games.live_count(CHAT) == 2 and await store.games.live_count(CHAT, 3) == 1


async def test_user_index_lists_open_games_and_repairs_itself(store: Store) -> None:
    one = await store.games.save(new_game(thread=1), 0)
    two = await store.games.save(new_game(chat=555, thread=None), 0)
    assert {g.game_id for g in await store.games.user_games(ALICE)} == {one.game_id, two.game_id}
    # Cancelling removes it from both players' indexes.
    await end(store, two, two.version, Status.CANCELLED)
    assert [g.game_id for g in await store.games.user_games(BOB)] == [one.game_id]
    # A stale entry (game gone behind the index's back) is dropped on read.
    await store.redis.delete(store.keys.record(one.key))
    assert await store.games.user_games(ALICE) == []
    assert await store.redis.smembers(store.keys.user_games(ALICE)) == set()


async def test_delete_needs_the_current_version(store: Store) -> None:
    saved = await store.games.save(new_game(), 0)
    with pytest.raises(VersionConflict):
        await store.games.delete(saved.model_copy(update={"version": 0}))
    await store.games.delete(saved)
    assert await store.games.load_game(CHAT, saved.game_id) is None
    assert await store.games.user_games(ALICE) == [] and await store.games.chat_games(CHAT) == []


async def test_finish_books_ledger_and_history_once(store: Store) -> None:
    game = await store.games.save(new_game(), 0)
    done, entry = finished(game)
    result = await store.ledger.finish_game(done, game.version, entry, {(ALICE, BOB): 10})
    assert result.booked and result.record.version == 2
    # The retried final tap: same game id, any version -> nothing booked twice.
    again = await store.ledger.finish_game(done, game.version, entry, {(ALICE, BOB): 10})
    assert not again.booked and again.record == result.record
    assert await store.ledger.balance(CHAT, ALICE, BOB) == 10
    assert await store.ledger.balance(CHAT, BOB, ALICE) == -10
    assert await store.ledger.ledger(CHAT) == {(ALICE, BOB): 10}
    assert await store.ledger.history(CHAT) == [entry]
    assert await store.games.user_games(ALICE) == []


@pytest.mark.parametrize("end", [Status.FINISHED, Status.CANCELLED])
async def test_the_raw_save_refuses_to_end_a_game_being_played(store: Store, end: Status) -> None:
    """A game's end is written only with its booking (issue 23: saving a final
    tap through the raw compare-and-set gave a finished game, an empty ledger
    and no history); once booked, the ended record is saved as any other."""
    game = await store.games.save(new_game(), 0)
    done = game.model_copy(update={"status": end})
    with pytest.raises(UnbookedEnd):
        await store.games.save(done, game.version)
    assert await store.games.load_game(CHAT, game.game_id) == game  # nothing written
    assert await store.ledger.history(CHAT) == []
    _, entry = finished(game)
    booked = (await store.ledger.finish_game(done, game.version, entry, {(ALICE, BOB): 10})).record
    redrawn = await store.games.save(booked.model_copy(update={"board_message_id": 7}),
                                     booked.version)
    assert redrawn.version == booked.version + 1 and redrawn.status is end
    lobby = await store.games.save(new_game(status=Status.LOBBY), 0)  # a lobby closed books nothing
    closed = await store.games.save(lobby.model_copy(update={"status": Status.CANCELLED}),
                                    lobby.version)
    assert closed.status is Status.CANCELLED


async def test_finish_with_a_stale_version_books_nothing(store: Store) -> None:
    game = await store.games.save(new_game(), 0)
    await store.games.save(game.model_copy(update={"engine": {"n": 1}}), game.version)
    done, entry = finished(game)
    with pytest.raises(VersionConflict):
        await store.ledger.finish_game(done, game.version, entry, {(ALICE, BOB): 10})
    assert await store.ledger.ledger(CHAT) == {}
    assert await store.ledger.history(CHAT) == []


async def test_history_is_newest_first_and_capped(redis: object) -> None:
    store = Store(redis, history_cap=3)  # type: ignore[arg-type]
    ids = []
    for n in range(5):
        game = await store.games.save(new_game(thread=n + 1), 0)
        done, entry = finished(game)
        await store.ledger.finish_game(done, game.version, entry, {(BOB, ALICE): n})
        ids.append(game.game_id)
    assert [e.game_id for e in await store.ledger.history(CHAT)] == ids[::-1][:3]
    assert await store.ledger.balance(CHAT, BOB, ALICE) == 0 + 1 + 2 + 3 + 4


async def test_concurrent_writers_exactly_one_wins(store: Store) -> None:
    base = await store.games.save(new_game(), 0)
    attempts = [base.model_copy(update={"engine": {"n": n}}) for n in range(50)]
    results = await asyncio.gather(
        *(store.games.save(a, base.version) for a in attempts), return_exceptions=True
    )
    winners = [r for r in results if isinstance(r, GameRecord)]
    assert len(winners) == 1
    assert all(isinstance(r, VersionConflict) for r in results if r not in winners)
    stored = await store.games.load_game(CHAT, base.game_id)
    assert stored == winners[0] and stored.version == base.version + len(winners)


async def test_update_with_retries_loses_no_update(store: Store) -> None:
    base = await store.games.save(new_game(), 0)

    def bump(game: GameRecord | None) -> GameRecord:
        assert game is not None
        return game.model_copy(update={"engine": {"n": game.engine["n"] + 1}})

    await asyncio.gather(*(store.games.update(game_key(CHAT, base.game_id),
                                              bump) for _ in range(50)))
    stored = await store.games.load_game(CHAT, base.game_id)
    assert stored is not None and stored.engine == {"n": 50} and stored.version == 51


async def test_update_creates_and_skips_unchanged(store: Store) -> None:
    key = settings_key(CHAT)
    created = await store.games.update(key, lambda s: s or ChatSettings(chat_id=CHAT,
                                                                        language="de"))
    same = await store.games.update(key, lambda s: s or ChatSettings(chat_id=CHAT))
    assert created.version == same.version == 1 and same.language == "de"


async def test_an_update_is_claimed_once_and_a_failed_one_again(store: Store) -> None:
    assert await store.updates.claim_update(1000) == ("new", 1)
    assert await store.updates.claim_update(1000) == ("in_flight", 0)  # another worker has it
    await store.updates.settle_update(1000, 1, ok=False)
    assert await store.updates.claim_update(1000) == ("new", 2)  # Telegram's retry is handled
    await store.updates.settle_update(1000, 2, ok=True)
    assert await store.updates.claim_update(1000) == ("done", 0)
    assert 0 < await store.redis.ttl("nardy:{update:10}:m") <= 24 * 3600
    assert await store.updates.claim_update(1001) == ("new", 1)


async def test_saving_a_deadline_schedules_it(store: Store) -> None:
    game = await store.games.save(new_game(deadline=100.0), 0)
    # scheduled at the deadline's first wake-up: with one hour per move, the
    # last call a quarter of an hour before it (bot/vocab/clock.py)
    wake = first_wake(100.0, 3600)
    assert wake == 100.0 - 900
    assert await store.clock.claim_due(now=wake - 1) == []
    [claim] = await store.clock.claim_due(now=wake, lease=30)
    assert (claim.ref, claim.due, claim.lease_until) == (game.ref, wake, wake + 30)
    await store.clock.ack(claim.ref)
    # Finishing (or clearing the deadline) unschedules it.
    moved = await store.games.save(game.model_copy(update={"deadline": 200.0}), game.version)
    await store.games.save(moved.model_copy(update={"deadline": None}), moved.version)
    assert await store.clock.claim_due(now=1e12) == []


async def test_two_claimers_get_each_deadline_exactly_once(store: Store) -> None:
    refs = [GameRef(CHAT, n + 1, f"game{n:02d}") for n in range(40)]
    for n, ref in enumerate(refs):
        await store.clock.schedule(ref, 10.0 + n)
    first, second = await asyncio.gather(
        *(store.clock.claim_due(now=1000.0, lease=60, limit=25) for _ in range(2))
    )
    got_first, got_second = {c.ref for c in first}, {c.ref for c in second}
    assert not got_first & got_second
    assert got_first | got_second == set(refs)
    assert await store.clock.claim_due(now=1001.0) == []


async def test_an_unacked_lease_is_delivered_again_after_it_expires(store: Store) -> None:
    ref, other = GameRef(CHAT, None, "aaaa"), GameRef(CHAT, 2, "bbbb")
    await store.clock.schedule(ref, 5.0)
    await store.clock.schedule(other, 5.0)
    assert {c.ref for c in await store.clock.claim_due(now=10.0, lease=20)} == {ref, other}
    await store.clock.ack(other)  # handled; `ref`'s claimer died
    assert await store.clock.claim_due(now=29.0) == []  # still leased
    [again] = await store.clock.claim_due(now=31.0, lease=20)
    assert again.ref == ref
    await store.clock.ack(ref)
    assert await store.clock.claim_due(now=1000.0) == []


# -- corrupt and old records ---------------------------------------------------


@pytest.mark.parametrize(
    ("stored", "reason"),
    [
        ({"v": "1", "d": "{not json"}, "not JSON"),
        ({"v": "1", "d": '{"schema_version": 1, "chat_id": -100123}'}, "variant: Field required"),
        ({"v": "x", "d": "{}"}, "version is b'x'"),
        ({"v": "1", "d": '{"schema_version": 9}'}, "newer than this bot's 2"),
        ({"v": "1", "d": '{"schema_version": 0}'}, "too old and has no migration"),
        ({"d": "{}"}, "version is None"),
    ],
)
async def test_corrupt_record_is_reported_and_left_untouched(
    store: Store, stored: dict[str, str], reason: str
) -> None:
    name = store.keys.record(game_key(CHAT, "gone"))
    await store.redis.hset(name, mapping=stored)
    before = await store.redis.hgetall(name)
    with pytest.raises(CorruptRecordError) as caught:
        await store.games.load_game(CHAT, "gone")
    assert caught.value.key == name and reason in caught.value.reason
    with pytest.raises(CorruptRecordError):
        await store.games.update(game_key(CHAT, "gone"), lambda g: g or new_game(game_id="gone"))
    with pytest.raises(VersionConflict):  # not even a blind create overwrites it
        await store.games.save(new_game(game_id="gone"), 0)
    assert await store.redis.hgetall(name) == before


async def test_a_key_of_the_wrong_type_is_corrupt(store: Store) -> None:
    name = store.keys.record(settings_key(CHAT))
    await store.redis.set(name, "hello")
    with pytest.raises(CorruptRecordError, match="not a hash"):
        await store.games.chat_settings(CHAT)
    with pytest.raises(CorruptRecordError, match="not a hash"):
        await store.games.save(ChatSettings(chat_id=CHAT), 0)
    assert await store.redis.get(name) == b"hello"


async def test_a_record_under_the_wrong_key_is_corrupt(store: Store) -> None:
    saved = await store.games.save(new_game(thread=4), 0)
    raw = await store.redis.hgetall(store.keys.record(saved.key))
    await store.redis.hset(store.keys.record(game_key(CHAT, "other")), mapping=raw)
    with pytest.raises(CorruptRecordError, match="another chat or game"):
        await store.games.load_game(CHAT, "other")


async def test_a_corrupt_history_entry_names_its_index(store: Store) -> None:
    await store.redis.rpush(store.keys.chat(CHAT, "history"), '{"schema_version": 1}')
    with pytest.raises(CorruptRecordError, match=r"history\[0\]"):
        await store.ledger.history(CHAT)


async def test_the_version_a_board_shows_is_kept_beside_the_record(store: Store) -> None:
    from bot.vocab.records import BoardViewRef

    view = BoardViewRef(chat_id=ALICE, message_id=7)
    game = await store.games.save(new_game(board_message_id=5, views=(view,)), 0)
    main, private = (CHAT, 5), (ALICE, 7)
    assert await store.games.shown(game) == {}
    await store.games.mark_shown(game, main)
    assert await store.games.shown(game) == {main: 1}
    moved = await store.games.save(game, 1)  # the version moves on; the board stays at 1
    assert await store.games.shown(moved) == {main: 1}
    assert (await store.games.load(game.key)) == moved  # the record itself did not change
    await store.games.mark_shown(moved, private)
    await store.games.mark_shown(game, main)  # a late, older redraw does not lower it
    await store.games.mark_shown(moved, main)
    assert await store.games.shown(moved) == {main: 2, private: 2}
    # a board the record no longer has is forgotten with the next mark
    reposted = await store.games.save(moved.model_copy(update={"board_message_id": 9}), 2)
    await store.games.mark_shown(reposted, (CHAT, 9))
    raw = await store.redis.hgetall(store.keys.record(game.key))
    fields = sorted(map(as_text, raw))
    assert fields == sorted(["d", f"s:{ALICE}:7", f"s:{CHAT}:9", "v", "w"])
    # a deleted record takes them along, and a late mark does not bring the key back
    await store.games.delete(reposted.model_copy(update={"version": 3}))
    await store.games.mark_shown(reposted, (CHAT, 9))
    assert not await store.redis.exists(store.keys.record(game.key))
    assert (await store.games.save(new_game(), 0)).version == 1


async def test_a_failed_attempts_side_effects_are_kept_for_the_retry(store: Store) -> None:
    journals = "nardy:{update:0}:fx"  # beside the markers of updates 0-99
    assert await store.updates.load_effects(42) == {}
    await store.updates.save_effects(42, {})
    assert not await store.redis.exists(journals)
    await store.updates.save_effects(42, {"answer:1": '{"ok":true}', "tap": "x"}, ttl=100)
    await store.updates.save_effects(42, {"tap": "y"})
    await store.updates.save_effects("42:other", {"tap": "z"})  # another update with that id
    await store.updates.save_effects(4, {"tap": "w"})
    assert await store.updates.load_effects(42) == {"answer:1": '{"ok":true}', "tap": "y"}
    assert 0 < await store.redis.ttl(journals) <= 24 * 3600
    # failed: kept for the retry; done: deleted in the same step, and only its own
    state, claim = await store.updates.claim(42)
    assert state == "new" and claim is not None
    await store.updates.settle_update(42, claim.attempt, ok=False)
    assert await store.updates.load_effects(42) == {"answer:1": '{"ok":true}', "tap": "y"}
    state, claim = await store.updates.claim(42)
    assert state == "new" and claim is not None
    await store.updates.settle_update(42, claim.attempt, ok=True)
    assert await store.updates.load_effects(42) == {}
    assert await store.updates.load_effects("42:other") == {"tap": "z"}
    assert await store.updates.load_effects(4) == {"tap": "w"}
    for other in ("42:other", 4):
        state, claim = await store.updates.claim(other)
        assert state == "new" and claim is not None
        await store.updates.settle_update(other, claim.attempt, ok=True)
    assert not await store.redis.exists(journals)


async def test_the_turn_ping_is_remembered_beside_the_record_and_taken_once(
        store: Store) -> None:
    assert await store.games.take_notification(CHAT, "game1") is None
    await store.games.remember_notification(CHAT, "game1", "42")
    await store.games.remember_notification(CHAT, "game2", "-5:43")
    assert await store.games.take_notification(CHAT, "game1") == "42"
    assert await store.games.take_notification(CHAT, "game1") is None  # taken: forgotten
    assert await store.games.take_notification(CHAT, "game2") == "-5:43"
    assert await store.ping()



# -- several games in a chat -----------------------------------------------------


async def test_a_chat_keeps_several_games_each_under_its_own_key(store: Store) -> None:
    one = await store.games.save(new_game(created_at=1.0), 0)
    two = await store.games.save(new_game(created_at=2.0, players=()), 0)
    elsewhere = await store.games.save(new_game(thread=5), 0)
    assert [g.game_id for g in await store.games.chat_games(CHAT)] == [one.game_id, two.game_id]
    assert [g.game_id for g in await store.games.chat_games(CHAT, 5)] == [elsewhere.game_id]
    # an ended game: listed after the live ones, and its record expires
    done, entry = finished(one)
    await store.ledger.finish_game(done, one.version, entry)
    assert [g.game_id for g in await store.games.chat_games(CHAT)] == [two.game_id, one.game_id]
    assert [g.game_id for g in await store.games.chat_games(CHAT, None,
                                                            ended=False)] == [two.game_id]
    assert 29 * 24 * 3600 < await store.redis.ttl(store.keys.record(one.key)) <= 30 * 24 * 3600
    assert await store.redis.ttl(store.keys.record(two.key)) == -1
    assert await store.games.live_count(CHAT) == 1
    # an ended record gone (expired) leaves the list and the index
    await store.redis.delete(store.keys.record(one.key))
    assert [g.game_id for g in await store.games.chat_games(CHAT)] == [two.game_id]
    assert await store.redis.zrange(store.keys.chat(CHAT, "ended"), 0, -1) == []


async def test_a_match_between_two_games_stays_live(store: Store) -> None:
    match = new_game(options=TableOptions(match_length=5), engine={"score": [2, 1]})
    saved = await end(store, match, 0, Status.FINISHED)
    assert saved.is_live and await store.games.live_count(CHAT) == 1
    over = saved.model_copy(update={"engine": {"score": [5, 1]}})
    await store.games.save(over, saved.version)
    assert await store.games.live_count(CHAT) == 0


async def test_new_games_stop_at_the_limit_of_each_chat_or_topic(store: Store) -> None:
    store.max_live = 3
    games = await asyncio.gather(*(store.games.save(new_game(), 0) for _ in range(5)),
                                 return_exceptions=True)
    assert sum(isinstance(g, GameRecord) for g in games) == 3
    refused = [g for g in games if isinstance(g, GameLimit)]
    assert len(refused) == 2 and {g.live for g in refused} == {3}
    assert await store.games.live_count(CHAT) == 3
    assert len(await store.games.chat_games(CHAT)) == 3
    # another topic, another chat: their own limits; a change of a game is no new game
    await store.games.save(new_game(thread=8), 0)
    await store.games.save(new_game(chat=-100999), 0)
    first = next(g for g in games if isinstance(g, GameRecord))
    await store.games.save(first.model_copy(update={"engine": {"n": 1}}), first.version)
    # an ended one makes room
    await end(store, first, first.version + 1, Status.CANCELLED)
    assert (await store.games.save(new_game(), 0)).version == 1


async def test_a_game_continued_by_a_new_one_is_saved_with_it(store: Store) -> None:
    store.max_live = 1
    old = await store.games.save(new_game(), 0)
    done, entry = finished(old)
    ended = (await store.ledger.finish_game(done, old.version, entry)).record
    other = await store.games.save(new_game(), 0)  # the chat is full now
    rematch = new_game()
    closed = ended.model_copy(update={"next_game": rematch.game_id})
    # the old game changed meanwhile: neither is saved
    with pytest.raises(VersionConflict):
        await store.games.save(rematch, 0, closes=closed.model_copy(update={"version": 1}))
    assert await store.games.load_game(CHAT, rematch.game_id) is None
    saved = await store.games.save(rematch, 0, closes=closed)  # a continuation is never refused
    assert saved.version == 1
    stored = await store.games.load_game(CHAT, ended.game_id)
    assert stored == closed.model_copy(update={"version": ended.version + 1})
    assert await store.games.live_count(CHAT) == 2
    assert {g.game_id for g in await store.games.user_games(ALICE)} == {other.game_id,
                                                                        saved.game_id}


async def test_a_chat_keeps_its_newest_ended_games_only(store: Store) -> None:
    ended = []
    for n in range(23):
        game = await store.games.save(new_game(created_at=float(n)), 0)
        done, entry = finished(game)
        ended.append((await store.ledger.finish_game(done, game.version, entry)).record)
        await asyncio.sleep(0.002)  # (the index orders ended games by when they ended)
    kept = [g.game_id for g in await store.games.chat_games(CHAT)]
    assert kept == [g.game_id for g in ended[::-1][:20]]
    for gone in ended[:3]:
        assert await store.games.load_game(CHAT, gone.game_id) is None
    assert len(await store.ledger.history(CHAT)) == 23  # the books keep every game

async def test_open_games_with_a_board_behind_are_found_newest_first(store: Store) -> None:
    """What the start-up redraws (bot/store/board.py): open games whose
    board shows an older version, or that have no chat board, newest first,
    at most the limit; a board up to date, or a finished game, is not."""

    async def game(thread: int, updated: float, *, message: int | None = None,
                   status: Status = Status.ACTIVE, moved: bool = True) -> GameRecord:
        saved = await store.games.save(new_game(thread=thread, status=status, updated_at=updated,
                                                board_message_id=message), 0)
        if message is not None:
            await store.games.mark_shown(saved, (CHAT, message))
        return await store.games.save(saved,
                                      1) if moved else saved  # the redraw of version 2 failed

    await game(1, 100.0, message=11, moved=False)  # up to date
    old = await game(2, 200.0, message=12)
    new = await game(3, 300.0, message=13)
    unposted = await game(4, 250.0)
    await game(5, 400.0, message=15, status=Status.FINISHED)  # not open
    found = await store.board.behind(10)
    assert [g.thread_id for g in found] == [3, 4, 2]
    assert found == [new, unposted, old]
    assert [g.thread_id for g in await store.board.behind(2)] == [3, 4]


async def test_an_expired_open_record_leaves_the_open_games_when_looked_for(
        store: Store) -> None:
    """An inline lobby nobody joined expires with its record; the start-up's look
    for stale boards takes it out of its open-games shard, so the count is true."""

    kept = await store.games.save(new_game(thread=1), 0)
    expired = await store.games.save(new_game(thread=2), 0)
    await store.redis.delete(store.keys.record(game_key(expired.chat_id, expired.game_id)))
    assert await store.games.open_game_count() == 2  # the index is a hint
    assert await store.board.behind(10) == [kept]  # no board posted yet
    assert await store.games.open_game_count() == 1


async def test_every_write_of_a_game_carries_its_updates_token(store: Store) -> None:
    """Whichever script writes a game record (a save, a continuation with the
    game it continues, the booked end), the record's ``w`` names the update
    that wrote it (bot/vocab/records.py ``write_token``): a retry of that update
    tells its own first attempt's write from another's (bot/edge/handlers/buttons.py
    ``_applied_before``).  The booked end once kept the token of the write
    before it, so a final tap whose attempt failed after booking was told
    "catching up" on its retry (issue 22's fault mode)."""
    async def written_by(update: str, record: GameRecord) -> bool:
        mark = ids_from(update)
        try:
            token = await store.redis.hget(store.keys.record(record.key), "w")
            return written_here(None if token is None else as_text(token))
        finally:
            ids_done(mark)

    async def as_update(update: str, write: Any) -> Any:
        mark = ids_from(update)
        try:
            return await write()
        finally:
            ids_done(mark)

    game = await as_update("1:a", lambda: store.games.save(new_game(), 0))
    assert await written_by("1:a", game)
    moved = await as_update("2:b", lambda: store.games.save(
        game.model_copy(update={"engine": {"n": 1}}), game.version))
    assert await written_by("2:b", moved) and not await written_by("1:a", moved)
    done, entry = finished(moved)
    ended = (await as_update("3:c", lambda: store.ledger.finish_game(
        done, moved.version, entry))).record
    assert await written_by("3:c", ended) and not await written_by("2:b", ended)
    first = await as_update("4:d", lambda: store.games.save(new_game(), 0))
    closed = first.model_copy(update={"status": Status.CANCELLED})
    rematch = await as_update("5:e", lambda: store.games.save(new_game(), 0, closes=closed))
    assert await written_by("5:e", rematch)
    assert await written_by("5:e", closed) and not await written_by("4:d", closed)
