"""Dice statistics in the store: added in the game-end script, once per game
id, per chat, player and variant, as 21 counts (both back ends)."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.store import Store
from bot.vocab.records import GameRecord, HistoryEntry, Player, Status
from engine.dicestats import DiceStats
from engine.position import Side, Variant

CHAT, ALICE, BOB = -100700, 11, 22
PLAYERS = (Player(user_id=ALICE, name="Alice", side=Side.WHITE),
           Player(user_id=BOB, name="Bob", side=Side.BLACK))


async def _finish(store: Store, variant: Variant, dice: dict[tuple[Variant, int], DiceStats],
                  times: int = 1) -> None:
    game = await store.games.save(GameRecord(chat_id=CHAT, variant=variant, players=PLAYERS,
                                             status=Status.ACTIVE), 0)
    done = game.model_copy(update={"status": Status.FINISHED})
    entry = HistoryEntry(game_id=done.game_id, variant=variant, players=PLAYERS,
                         winner=Side.WHITE, result="single", points=1)
    await asyncio.gather(*[store.ledger.finish_game(done, game.version, entry, dice=dice)
                           for _ in range(times)])


async def test_dice_are_booked_once_per_game_and_add_up(store: Store) -> None:
    first = DiceStats.of([(6, 6), (2, 1), (1, 2)])
    second = DiceStats.of([(6, 6), (5, 3)])
    await _finish(store, Variant.LONG, {(Variant.LONG, ALICE): first,
                                        (Variant.LONG, BOB): DiceStats.of([(4, 4)])}, times=4)
    assert await store.ledger.dice_stats(CHAT, Variant.LONG, ALICE) == first
    # another game of the chat, another variant
    game = await store.games.save(GameRecord(chat_id=CHAT, variant=Variant.BACKGAMMON,
                                             players=PLAYERS, status=Status.ACTIVE), 0)
    done = game.model_copy(update={"status": Status.FINISHED})
    entry = HistoryEntry(game_id=done.game_id, variant=Variant.BACKGAMMON, players=PLAYERS,
                         winner=Side.BLACK, result="single", points=1)
    await store.ledger.finish_game(done, game.version, entry,
                                  dice={(Variant.BACKGAMMON, ALICE): second})
    assert await store.ledger.dice_stats(CHAT, Variant.LONG, ALICE) == first
    assert await store.ledger.dice_stats(CHAT, Variant.BACKGAMMON, ALICE) == second
    assert await store.ledger.dice_stats(CHAT, None, ALICE) == first.merged(second)
    assert await store.ledger.dice_stats(CHAT, None, BOB) == DiceStats.of([(4, 4)])
    assert await store.ledger.dice_stats(CHAT + 1, None, ALICE) == DiceStats()
    field = await store.redis.hget(store.keys.chat(CHAT, "dice"), f"long:{ALICE}")
    assert field in (first.to_text(), first.to_text().encode())  # 21 short counts


@settings(max_examples=15, deadline=None)
@given(st.lists(st.lists(st.tuples(st.integers(1, 6), st.integers(1, 6)), max_size=40),
                min_size=1, max_size=4))
def test_the_script_adds_what_the_pure_counts_add(games: list[list[tuple[int, int]]]) -> None:
    import fakeredis

    async def run() -> DiceStats:
        store = Store(fakeredis.FakeAsyncRedis())
        for rolls in games:  # each game of the chat under its own key
            game = await store.games.save(GameRecord(chat_id=CHAT, variant=Variant.LONG,
                                                     players=PLAYERS, status=Status.ACTIVE), 0)
            done = game.model_copy(update={"status": Status.FINISHED})
            entry = HistoryEntry(game_id=done.game_id, variant=Variant.LONG, players=PLAYERS,
                                 winner=Side.WHITE, result="oin", points=1)
            await store.ledger.finish_game(done, game.version, entry,
                                          dice={(Variant.LONG, ALICE): DiceStats.of(rolls)})
        return await store.ledger.dice_stats(CHAT, Variant.LONG, ALICE)

    expected = DiceStats()
    for rolls in games:
        expected = expected.added(rolls)
    assert asyncio.run(run()) == expected
