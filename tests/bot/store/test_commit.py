"""The one commit loop (bot/store/commit.py) and its game form
(bot/service/saving.py ``commit_game``): a change lost to another writer is
applied again to the winner's record, never over it; a refusal saves
nothing; and no other module writes a retry loop of its own."""

from __future__ import annotations

import ast
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from bot.service.saving import commit_game
from bot.store import Store
from bot.vocab.records import GameRecord, Player, game_key
from bot.vocab.refusals import CHANGED, Refusal
from engine.position import Side, Variant

CHAT = -100321
GAME = "lobby001"
BOT = Path(__file__).resolve().parents[3] / "bot"


async def _lobby(store: Store) -> GameRecord:
    players = (Player(user_id=1, name="Ann", side=Side.WHITE),)
    return await store.games.save(GameRecord(chat_id=CHAT, game_id=GAME, variant=Variant.LONG,
                                             players=players, created_by=1), 0)


def _racing(store: Store, races: int
            ) -> tuple[list[int], Callable[[], Awaitable[GameRecord | None]]]:
    """A loader that lets another writer land after each of its first ``races`` loads."""
    loads: list[int] = []

    async def load() -> GameRecord | None:
        current = await store.games.load(game_key(CHAT, GAME))
        assert current is not None
        loads.append(current.version)
        if len(loads) <= races:  # someone else's save between this load and ours
            await store.games.save(current.model_copy(update={"rematch_by": len(loads)}),
                                   current.version)
        return current
    return loads, load


async def test_a_lost_race_applies_the_change_to_the_winners_record(store: Store) -> None:
    await _lobby(store)
    loads, load = _racing(store, races=2)
    seen: list[int] = []

    def change(record: GameRecord, now: float) -> GameRecord:
        seen.append(record.version)
        return record.model_copy(update={"cancel_by": 7})

    changed = await commit_game(store, load, change)
    assert changed is not None
    before, after = changed
    assert loads == seen == [1, 2, 3]  # each attempt changed what it had just loaded
    assert (before.version, after.version, after.cancel_by, after.rematch_by) == (3, 4, 7, 2)
    stored = await store.games.load(game_key(CHAT, GAME))
    assert stored == after  # the other writers' change kept, ours on top


async def test_too_many_lost_races_refuse_and_save_nothing(store: Store) -> None:
    await _lobby(store)
    loads, load = _racing(store, races=99)
    with pytest.raises(Refusal) as refused:
        await commit_game(store, load, lambda r, now: r.model_copy(update={"cancel_by": 7}),
                          retries=2)
    assert refused.value.message == CHANGED and len(loads) == 3
    stored = await store.games.load(game_key(CHAT, GAME))
    assert stored is not None and stored.cancel_by is None


async def test_a_refusal_or_no_change_saves_nothing_and_no_game_is_none(store: Store) -> None:
    saved = await _lobby(store)

    async def load() -> GameRecord | None:
        return await store.games.load(game_key(CHAT, GAME))

    def refuse(record: GameRecord, now: float) -> GameRecord:
        raise Refusal("no")

    with pytest.raises(Refusal, match="no"):
        await commit_game(store, load, refuse)
    assert await commit_game(store, load, lambda r, now: r) == (saved, saved)
    assert (await store.games.load(game_key(CHAT, GAME))) == saved

    async def nothing() -> GameRecord | None:
        return None

    assert await commit_game(store, nothing, refuse) is None


def _retry_loops(path: Path) -> list[int]:
    """Lines of loops whose body catches VersionConflict: a hand-written retry."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            for inner in ast.walk(node):
                if isinstance(inner, ast.ExceptHandler) and "VersionConflict" in ast.unparse(
                        inner.type or ast.Constant(None)):
                    found.append(node.lineno)
                    break
    return found


def test_no_module_writes_its_own_retry_loop() -> None:
    offenders = {}
    for path in sorted(BOT.rglob("*.py")):
        name = path.relative_to(BOT).as_posix()
        if name == "store/commit.py":
            continue
        loops = _retry_loops(path)
        if loops:
            offenders[name] = loops
    assert offenders == {}
