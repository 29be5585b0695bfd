"""Record models: JSON round trips, refs, and explicit schema migrations."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.store import Store
from bot.vocab.records import (
    MIGRATIONS,
    ChatSettings,
    CorruptRecordError,
    GameRecord,
    GameRef,
    HistoryEntry,
    Player,
    Status,
    TableOptions,
    decode,
    encode,
    settings_key,
)
from engine.position import Side, Variant

ids = st.integers(min_value=-(2**52), max_value=2**52)
threads = st.none() | st.integers(min_value=1, max_value=2**31)
game_ids = st.text("abcXYZ019_-", min_size=4, max_size=12)
sides = st.none() | st.sampled_from(Side)
players = st.builds(Player, user_id=ids, name=st.text(max_size=20), side=sides)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)
games = st.builds(
    GameRecord,
    chat_id=ids,
    thread_id=threads,
    game_id=game_ids,
    status=st.sampled_from(Status),
    variant=st.sampled_from(Variant),
    players=st.lists(players, max_size=2).map(tuple),
    options=st.builds(
        TableOptions,
        stake_per_point=st.integers(0, 1000),
        match_length=st.integers(1, 25),
        time_control=st.none() | st.integers(1, 10**6),
    ),
    engine=st.dictionaries(st.text(max_size=8), json_values, max_size=4),
    board_message_id=st.none() | st.integers(1, 2**31),
    deadline=st.none() | st.floats(0, 2e9),
)


@given(games, st.integers(0, 10**6))
def test_game_json_round_trip(game: GameRecord, version: int) -> None:
    back = decode(GameRecord, "k", encode(game), version)
    assert back == game.model_copy(update={"version": version})


@given(ids, threads, game_ids)
def test_game_ref_parse_inverts_format(chat: int, thread: int | None, game_id: str) -> None:
    ref = GameRef(chat, thread, game_id)
    assert GameRef.parse(str(ref)) == ref == GameRef.parse(str(ref).encode())


@pytest.mark.parametrize("text", ["", "1:2", "a:0:x", "1:0:x:y"])
def test_game_ref_parse_rejects_garbage(text: str) -> None:
    with pytest.raises(ValueError, match="not a game ref"):
        GameRef.parse(text)


def test_history_entry_round_trip() -> None:
    entry = HistoryEntry(
        game_id="abcd", variant=Variant.BACKGAMMON, players=(Player(user_id=1, name="A"),),
        winner=Side.BLACK, result="gammon", points=4, stake=20, finished_at=5.0,
    )  # fmt: skip
    assert decode(HistoryEntry, "k", encode(entry)) == entry


def test_unknown_fields_are_corruption_not_ignored() -> None:
    raw = encode(ChatSettings(chat_id=1))[:-1] + ', "colour": "red"}'
    with pytest.raises(CorruptRecordError, match="colour: Extra inputs are not permitted"):
        decode(ChatSettings, "k", raw)


async def test_an_old_schema_is_migrated_on_read_and_left_as_stored(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    def rename_lang(data: dict[str, Any]) -> dict[str, Any]:
        data = dict(data)
        data["language"] = data.pop("lang")
        return data

    monkeypatch.setitem(MIGRATIONS, ("settings", 0), rename_lang)
    name = store.keys.record(settings_key(7))
    stored = {"v": "4", "d": '{"schema_version": 0, "chat_id": 7, "lang": "ru"}'}
    await store.redis.hset(name, mapping=stored)
    settings = await store.games.chat_settings(7)
    assert (settings.language, settings.schema_version, settings.version) == ("ru", 1, 4)
    assert await store.redis.hgetall(name) == {k.encode(): v.encode() for k, v in stored.items()}
    # The next save writes the current schema.
    await store.games.save(settings.model_copy(update={"board_style": "text"}), settings.version)
    assert (await store.games.chat_settings(7)).language == "ru"
