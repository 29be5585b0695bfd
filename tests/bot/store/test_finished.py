"""Finished games kept for their analysis (bot/store/finished.py), on every backend."""

from __future__ import annotations

from bot.store import Store, finished
from bot.vocab.records import GameRecord, Status
from tests.bot.store.test_store import ALICE, BOB, CHAT, new_game


def _done(game_id: str, thread: int | None = None, **changes: object) -> GameRecord:
    engine = {"game": {"x": 1}, "score": [0, 1], "number": 2, "earlier": ["packed"]}
    return new_game(thread=thread, status=Status.FINISHED, game_id=game_id, engine=engine,
                    version=7, **changes)


async def test_a_kept_game_loads_without_its_matchs_earlier_games(store: Store) -> None:
    record = _done("game0001")
    await finished.keep(store, record, now=100.0)
    kept = await finished.load(store, CHAT, "game0001")
    assert kept is not None and kept.version == 7
    assert kept.engine == {"game": {"x": 1}, "score": [0, 1], "number": 2}
    assert kept == finished.kept_copy(record)
    assert await finished.load(store, CHAT, "nothere1") is None
    assert await finished.load(store, CHAT + 1, "game0001") is None  # another chat's id
    ttl = await store.redis.ttl(store.chat_key(CHAT, "finished:game0001"))
    assert finished.TTL - 5 <= ttl <= finished.TTL


async def test_only_finished_games_are_kept(store: Store) -> None:
    await finished.keep(store, new_game(game_id="active01", status=Status.ACTIVE))
    await finished.keep(store, new_game(game_id="cancel01", status=Status.CANCELLED))
    assert await finished.recent(store, CHAT, any_topic=True) == []


async def test_the_last_game_per_topic_and_the_cap(store: Store) -> None:
    for n in range(finished.CAP + 3):
        await finished.keep(store, _done(f"game{n:04d}", thread=5 if n == 5 else None),
                            now=1000.0 + n)
    last = await finished.last(store, CHAT, None)
    assert last is not None and last.game_id == f"game{finished.CAP + 2:04d}"
    in_topic = await finished.last(store, CHAT, 5)
    assert in_topic is not None and in_topic.game_id == "game0005"
    kept = await finished.recent(store, CHAT, any_topic=True)
    assert len(kept) == finished.CAP
    assert kept[0].game_id == f"game{finished.CAP + 2:04d}" and kept[-1].game_id == "game0003"
    # the pushed out are gone, not only unlisted
    assert await finished.load(store, CHAT, "game0000") is None
    assert await finished.load(store, CHAT, "game0002") is None
    assert [r.game_id for r in await finished.recent(store, CHAT, 5)] == ["game0005"]


async def test_a_players_last_game_over_chats(store: Store) -> None:
    await finished.keep(store, _done("early001"), now=10.0)
    other = _done("later001", chat_id=-200)
    await finished.keep(store, other, now=20.0)
    last = await finished.last_of_user(store, ALICE)
    assert last is not None and (last.chat_id, last.game_id) == (-200, "later001")
    await store.redis.delete(store.chat_key(-200, "finished:later001"))  # expired
    last = await finished.last_of_user(store, BOB)
    assert last is not None and last.game_id == "early001"
    assert await finished.last_of_user(store, 999) is None


async def test_one_analysis_in_flight_and_what_was_posted(store: Store) -> None:
    assert await finished.claim(store, CHAT, "game0001")
    assert not await finished.claim(store, CHAT, "game0001")
    assert await finished.claim(store, CHAT, "game0002")  # another game is free
    await finished.release(store, CHAT, "game0001")
    assert await finished.claim(store, CHAT, "game0001")
    assert await finished.posted(store, CHAT, "game0001", "en:png") is None
    assert await finished.posted_at(store, CHAT, "game0001", 42) is None
    await finished.note_posted(store, CHAT, "game0001", "en:png", '{"photo": "F"}', 42,
                               now=123.5)
    assert await finished.posted(store, CHAT, "game0001", "en:png") == '{"photo": "F"}'
    assert await finished.posted(store, CHAT, "game0001", "ru:png") is None
    assert await finished.posted_at(store, CHAT, "game0001", 42) == 123.5
    assert await finished.posted_at(store, CHAT, "game0001", 43) is None


async def test_keeping_an_older_game_again_leaves_it_where_it_ended(store: Store) -> None:
    older = _done("older001", updated_at=100.0)
    await finished.keep(store, older)
    await finished.keep(store, _done("newer001", updated_at=200.0))
    await finished.keep(store, older)  # analysed later: kept again
    last = await finished.last(store, CHAT, None)
    assert last is not None and last.game_id == "newer001"
