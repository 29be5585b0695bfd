"""Finished games for their analysis (bot/store/analysis.py), on every backend: a
chat's are its ended games played to their end (no copy and no index of their
own any more), a player's are noted by :meth:`Analysis.keep`."""

from __future__ import annotations

from bot.store import Store
from bot.store.analysis import TTL, kept_copy
from bot.store.layout import ENDED_KEEP
from bot.vocab.records import GameRecord, Status, encode, game_key
from tests.bot.store.booked import end
from tests.bot.store.test_store import ALICE, BOB, CHAT, new_game


async def _done(store: Store, game_id: str, thread: int | None = None,
                **changes: object) -> GameRecord:
    """A game of the chat played to its end (booked, as only the books end one)."""
    engine = {"game": {"x": 1}, "score": [0, 1], "number": 2, "earlier": ["packed"]}
    game = await store.games.save(new_game(thread=thread, game_id=game_id, engine=engine,
                                           **changes), 0)
    return await end(store, game, game.version, Status.FINISHED)


async def test_a_finished_game_loads_without_its_matchs_earlier_games(store: Store) -> None:
    record = await _done(store, "game0001")
    kept = await store.analysis.load(CHAT, "game0001")
    assert kept is not None and kept.version == record.version
    assert kept.engine == {"game": {"x": 1}, "score": [0, 1], "number": 2}
    assert kept == kept_copy(record)
    assert await store.analysis.load(CHAT, "nothere1") is None
    assert await store.analysis.load(CHAT + 1, "game0001") is None  # another chat's id


async def test_only_finished_games_are_analysed(store: Store) -> None:
    await store.games.save(new_game(game_id="active01"), 0)
    cancelled = await store.games.save(new_game(game_id="cancel01"), 0)
    await end(store, cancelled, cancelled.version, Status.CANCELLED)
    assert await store.analysis.recent(CHAT, any_topic=True) == []
    assert await store.analysis.load(CHAT, "active01") is None
    assert await store.analysis.load(CHAT, "cancel01") is None


async def test_the_last_game_per_topic_and_the_cap(store: Store) -> None:
    for n in range(ENDED_KEEP + 3):
        await _done(store, f"game{n:04d}", thread=5 if n == 5 else None)
    last = await store.analysis.last(CHAT, None)
    assert last is not None and last.game_id == f"game{ENDED_KEEP + 2:04d}"
    in_topic = await store.analysis.last(CHAT, 5)
    assert in_topic is not None and in_topic.game_id == "game0005"
    kept = await store.analysis.recent(CHAT, any_topic=True)
    assert len(kept) == ENDED_KEEP
    assert kept[0].game_id == f"game{ENDED_KEEP + 2:04d}" and kept[-1].game_id == "game0003"
    # the pushed out are gone, not only unlisted
    assert await store.analysis.load(CHAT, "game0000") is None
    assert await store.analysis.load(CHAT, "game0002") is None
    assert [r.game_id for r in await store.analysis.recent(CHAT, 5)] == ["game0005"]


async def test_a_players_last_game_over_chats(store: Store) -> None:
    early = await _done(store, "early001")
    await store.analysis.keep(early, now=10.0)
    later = await store.games.save(new_game(chat=-200, game_id="later001"), 0)
    later = await end(store, later, later.version, Status.FINISHED)
    await store.analysis.keep(later, now=20.0)
    last = await store.analysis.last_of_user(ALICE)
    assert last is not None and (last.chat_id, last.game_id) == (-200, "later001")
    await store.redis.delete(store.keys.record(game_key(-200, "later001")))  # expired
    last = await store.analysis.last_of_user(BOB)
    assert last is not None and last.game_id == "early001"
    assert await store.analysis.last_of_user(999) is None
    ttl = await store.redis.ttl(store.keys.user_finished(ALICE))
    assert TTL - 5 <= ttl <= TTL


async def test_one_analysis_in_flight_and_what_was_posted(store: Store) -> None:
    assert await store.analysis.claim(CHAT, "game0001")
    assert not await store.analysis.claim(CHAT, "game0001")
    assert await store.analysis.claim(CHAT, "game0002")  # another game is free
    await store.analysis.release(CHAT, "game0001")
    assert await store.analysis.claim(CHAT, "game0001")
    assert await store.analysis.posted(CHAT, "game0001", "en:png") is None
    assert await store.analysis.posted_at(CHAT, "game0001", 42) is None
    await store.analysis.note_posted(CHAT, "game0001", "en:png", '{"photo": "F"}', 42,
                                     now=123.5)
    assert await store.analysis.posted(CHAT, "game0001", "en:png") == '{"photo": "F"}'
    assert await store.analysis.posted(CHAT, "game0001", "ru:png") is None
    assert await store.analysis.posted_at(CHAT, "game0001", 42) == 123.5
    assert await store.analysis.posted_at(CHAT, "game0001", 43) is None


async def test_keeping_an_older_game_again_leaves_it_where_it_ended(store: Store) -> None:
    older = await _done(store, "older001")
    await _done(store, "newer001")
    await store.analysis.keep(older)  # analysed later: kept again
    last = await store.analysis.last(CHAT, None)
    assert last is not None and last.game_id == "newer001"


async def test_a_copy_kept_by_an_earlier_release_is_still_read(store: Store) -> None:
    """Releases before issue 23 kept a copy of each finished record: a game whose
    record is gone is read from it while it lasts."""
    copy = kept_copy(new_game(game_id="old00001", status=Status.FINISHED, version=7,
                              engine={"game": {"x": 1}}))
    await store.redis.hset(store.keys.finished(CHAT, "old00001"),
                           mapping={"v": 7, "d": encode(copy)})
    assert await store.analysis.load(CHAT, "old00001") == copy
    await store.redis.hset(store.keys.finished(CHAT + 1, "old00001"),
                           mapping={"v": 7, "d": encode(copy)})  # under another chat's key
    assert await store.analysis.load(CHAT + 1, "old00001") is None
