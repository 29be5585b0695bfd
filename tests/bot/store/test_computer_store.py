"""Each person's standing at ``level=auto`` (bot/store/computer.py): a game's end
moves it once, however often and however many workers at once deliver it,
and no two games' moves are lost to each other."""

from __future__ import annotations

import asyncio
import functools

import pytest

from bot.rules import computer
from bot.store import Store
from bot.store.computer import MOVED_BY_KEPT, AutoMove
from bot.vocab.records import CorruptRecordError
from engine.position import Variant

ALICE = 42


def _moved(won: bool, variant: Variant = Variant.LONG) -> AutoMove:
    return functools.partial(computer.auto_moved, user_id=ALICE, variant=variant,
                             person_won=won)


async def test_one_games_end_delivered_at_once_by_many_moves_it_once(store: Store) -> None:
    moved = await asyncio.gather(*(
        store.computer.move(ALICE, Variant.LONG, "-100:0:game1", _moved(False))
        for _ in range(8)))
    assert sorted(moved) == [False] * 7 + [True]
    standing = await store.computer.standing(ALICE, Variant.LONG)
    assert standing is not None
    assert (standing.rung, standing.games, standing.wins) == (
        computer.AUTO_START - computer.AUTO_STEP, 1, 0)
    # delivered again later (a retried update): nothing more
    assert not await store.computer.move(ALICE, Variant.LONG, "-100:0:game1",
                                         _moved(False))
    assert await store.computer.standing(ALICE, Variant.LONG) == standing


async def test_ends_of_different_games_at_once_all_count(store: Store) -> None:
    """Two chats' games ending at the same moment: each read-change-write
    loses no other's (the compare-and-set on the JSON read)."""
    results = [True, False, True, True, False, True]
    moved = await asyncio.gather(*(
        store.computer.move(ALICE, Variant.BACKGAMMON, f"-{n}:0:g{n}",
                            _moved(won, Variant.BACKGAMMON))
        for n, won in enumerate(results, start=1)))
    assert all(moved)
    standing = await store.computer.standing(ALICE, Variant.BACKGAMMON)
    assert standing is not None
    assert (standing.games, standing.wins) == (6, 4)
    assert standing.rung == computer.AUTO_START + 2 * computer.AUTO_STEP  # 4 up, 2 down
    assert len(set(standing.moved_by)) == 6
    assert await store.computer.standing(ALICE, Variant.LONG) is None  # variants apart
    assert [s.variant for s in await store.computer.standings(ALICE)] == [Variant.BACKGAMMON]


async def test_the_last_games_are_remembered_against_a_second_move(store: Store) -> None:
    games = [f"-100:0:g{n}" for n in range(MOVED_BY_KEPT + 8)]
    for game in games:
        await store.computer.move(ALICE, Variant.LONG, game, _moved(True))
    standing = await store.computer.standing(ALICE, Variant.LONG)
    assert standing is not None and standing.moved_by == tuple(games[-MOVED_BY_KEPT:])
    assert standing.rung == computer.AUTO_TOP  # on top of the ladder, and stays there
    for game in games[-MOVED_BY_KEPT:]:
        assert not await store.computer.move(ALICE, Variant.LONG, game,
                                             _moved(False))
    assert await store.computer.standing(ALICE, Variant.LONG) == standing


async def test_a_corrupt_standing_is_reported_and_left_as_it_is(store: Store) -> None:
    key = store.keys.auto(ALICE)
    await store.redis.hset(key, "long", "{not json")
    with pytest.raises(CorruptRecordError):
        await store.computer.move(ALICE, Variant.LONG, "-100:0:g", _moved(True))
    assert await store.redis.hget(key, "long") in (b"{not json", "{not json")
