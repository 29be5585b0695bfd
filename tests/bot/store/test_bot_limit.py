"""One member cannot fill a chat with games against the computer (issue 37
item 6): ``/new long bot`` four times and ▶ Start on each made four, as the
per-person rule counted only started games.  A lobby with the computer seated
counts too, and the saving script checks it, so two at once cannot both pass."""

from __future__ import annotations

import asyncio

import pytest

from bot.store import Store
from bot.store.layout import BotLimit
from bot.vocab.records import COMPUTER_USER_IDS, GameRecord, Player, Status
from engine.position import Side
from tests.bot.store.test_store import ALICE, BOB, new_game


def _against_computer(person: int, thread: int | None = None) -> GameRecord:
    return new_game(thread=thread, status=Status.LOBBY, players=(
        Player(user_id=person, name="P", side=Side.WHITE),
        Player(user_id=COMPUTER_USER_IDS["easy"], name="Bot", side=Side.BLACK)))


async def test_two_lobbies_with_the_computer_at_once_make_one(store: Store) -> None:
    results = await asyncio.gather(*(store.games.save(_against_computer(ALICE), 0)
                                     for _ in range(4)), return_exceptions=True)
    assert sum(isinstance(r, GameRecord) for r in results) == 1, results
    assert all(isinstance(r, BotLimit) for r in results if not isinstance(r, GameRecord))


async def test_the_limit_is_per_person_and_topic(store: Store) -> None:
    first = await store.games.save(_against_computer(ALICE), 0)
    await store.games.save(_against_computer(BOB), 0)  # everyone has their own
    await store.games.save(_against_computer(ALICE, thread=7), 0)  # and in another topic
    with pytest.raises(BotLimit):
        await store.games.save(_against_computer(ALICE), 0)
    started = await store.games.save(first.model_copy(update={"status": Status.ACTIVE}),
                                     first.version)  # its Start: itself is not counted
    with pytest.raises(BotLimit):  # a started one counts as its lobby did
        await store.games.save(_against_computer(ALICE), 0)
    store.games.bots_per_person = 0  # no limit
    await store.games.save(_against_computer(ALICE), 0)
    assert started.status is Status.ACTIVE


async def test_a_lobby_between_people_is_not_held_back(store: Store) -> None:
    await store.games.save(_against_computer(ALICE), 0)
    await store.games.save(new_game(status=Status.LOBBY), 0)
