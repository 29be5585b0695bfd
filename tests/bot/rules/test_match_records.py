"""Records of matches between two games, written before the match rules moved
into the engine (engine/match.py ``Standing``), still load and play on.

``old_match_records.json`` holds such records exactly as that code stored
them (``encode``), and the ``engine`` dict of the game it started next when
both players tapped for it (with the case's seed).  The moved rules must
read the same bytes and start the very same next game: the Crawford game,
the post-Crawford game, long nardy's alternating starter, a single game's
rematch with the opening roll.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.rules.aftergame import after_game
from bot.rules.dice import Dealer
from bot.rules.matchstate import MatchState, table_of
from bot.rules.play import apply_game
from bot.service.saving import save
from bot.store import Store
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.records import GameRecord, Status, decode, game_key
from engine.game import Phase
from engine.position import Side

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "old_match_records.json").read_text())


@pytest.mark.parametrize("case", CASES, ids=[case["case"] for case in CASES])
async def test_an_old_match_record_loads_and_plays_on(store: Store, case: dict[str, Any]) -> None:
    old: GameRecord = decode(GameRecord, "old", case["stored"], case["version"])
    stored_engine = json.loads(case["stored"])["engine"]
    # the stored dict format is unchanged: decoding and encoding gives the same bytes
    assert MatchState.from_dict(stored_engine).to_dict() == stored_engine
    record = await store.games.save(old, 0)
    loaded = await store.games.load(game_key(record.chat_id, record.game_id))
    assert loaded is not None and loaded.engine == stored_engine
    dealer = Dealer.for_tests(case["seed"])
    offer = Callback.game(loaded.game_id, loaded.version, ButtonAction.REMATCH)
    offered = await save(store, loaded, after_game(loaded, 101, offer, dealer))
    accept = Callback.game(offered.game_id, offered.version, ButtonAction.ACCEPT)
    following = await save(store, offered, after_game(offered, 202, accept, dealer))
    assert following.status is Status.ACTIVE
    # the same next game as the old code started; only its dice differ now (fair dice,
    # and rolls and forced turns that play themselves)
    expected, got = case["next_engine"], following.engine
    assert {k: v for k, v in got.items() if k != "game"} == {
        k: v for k, v in expected.items() if k != "game"}
    for field in ("crawford", "options", "starter"):
        assert got["game"][field] == expected["game"][field], field
    # and the new game plays on: the player to act resigns a single game, the other accepts
    game = table_of(following).game
    assert game.phase in (Phase.ROLL, Phase.MOVE) and game.to_act is not None
    users = {Side.WHITE: 101, Side.BLACK: 202}
    sure = ButtonAction.RESIGN_SURE if following.options.stake_per_point else ButtonAction.RESIGN
    resign = Callback.game(following.game_id, following.version, sure, 1)  # staked: confirmed
    offered = await save(store, following, apply_game(following, users[game.to_act], resign))
    accept = Callback.game(offered.game_id, offered.version, ButtonAction.ACCEPT)
    ended = await save(store, offered, apply_game(offered, users[game.to_act.opponent], accept))
    score = list(case["next_engine"]["score"])
    score[game.to_act.opponent] += 1
    assert ended.status is Status.FINISHED and table_of(ended).score == tuple(score)
