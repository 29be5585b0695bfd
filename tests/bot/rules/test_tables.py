"""The engine-table caches of bot/rules/matchstate.py: each record's table is decoded
once, only a few versions per game are kept, and unsaved records' JSON is
not kept for long (both feed the garbage collector's walks)."""

from __future__ import annotations

import random

from bot.rules import matchstate
from bot.rules.matchstate import MatchState, engine_dict, remember_table, table_of
from bot.vocab.records import GameRecord, Player
from engine.game import Game, GameOptions, Phase
from engine.position import Side, Variant
from tests.engine.gameplay import play_random


def _records(count: int) -> list[GameRecord]:
    """Stored versions 1..count of one game, each a step further."""
    games = play_random(Game.new(GameOptions.backgammon()), random.Random(7))[1:count + 1]
    players = (Player(user_id=1, name="A", side=Side.WHITE),
               Player(user_id=2, name="B", side=Side.BLACK))
    base = GameRecord(chat_id=-5, variant=Variant.BACKGAMMON, players=players)
    return [base.model_copy(update={"version": n, "engine": MatchState(g).to_dict()})
            for n, g in enumerate(games, start=1)]


def test_only_the_newest_versions_of_a_game_are_kept() -> None:
    records = _records(6)
    for record in records:
        remember_table(record, MatchState.from_dict(record.engine))
    kept = matchstate._STORED[records[0].game_id]
    assert sorted(kept) == [4, 5, 6] == list(range(7 - matchstate._STORED_VERSIONS, 7))
    assert table_of(records[-1]) is kept[6][1]  # found, not decoded again
    # an old version is decoded (correctly) and does not push a newer one out
    old = table_of(records[0])
    assert old.to_dict() == records[0].engine
    assert sorted(matchstate._STORED[records[0].game_id]) == [4, 5, 6]


def test_a_record_made_here_finds_its_table_until_it_is_forgotten() -> None:
    record = _records(1)[0]
    table = MatchState.from_dict(record.engine)
    fresh = record.model_copy(update={"engine": engine_dict(table), "version": 99})
    assert table_of(fresh) is table  # by the identity of its engine dict
    for _ in range(matchstate._FRESH_RECORDS):
        engine_dict(table)
    assert len(matchstate._FRESH) == matchstate._FRESH_RECORDS
    assert table_of(fresh) is not table and table_of(fresh).to_dict() == fresh.engine


def test_a_version_saved_elsewhere_is_replayed_on_from_an_earlier_one(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A record another worker saved is decoded from the newest earlier version
    kept here: the same table a whole replay gives, and the replay is handed
    that earlier game (a later or another game's table is never used)."""
    records = _records(40)
    remember_table(records[9], MatchState.from_dict(records[9].engine))
    remember_table(records[30], MatchState.from_dict(records[30].engine))  # later: not used
    given = []
    replay = Game.from_dict

    def counted(data, *, after=None):  # type: ignore[no-untyped-def]
        given.append(after)
        return replay(data, after=after)

    monkeypatch.setattr(Game, "from_dict", counted)
    for record in (records[20], records[25], records[39]):
        table = table_of(record)
        assert table == MatchState.from_dict(record.engine)
        assert table.to_dict() == record.engine
    first, second, third = given[0], given[2], given[4]  # (each checked by a whole replay)
    assert first == MatchState.from_dict(records[9].engine).game
    assert second == MatchState.from_dict(records[20].engine).game  # the newest kept below
    assert third == MatchState.from_dict(records[30].engine).game


def test_a_version_kept_here_but_lost_in_a_failover_is_not_taken_for_another() -> None:
    """A save acknowledged here and lost with its master (Redis replicates
    asynchronously): another worker saves a different record under the same
    game id and version.  Its table is its own, not the one kept here, and a
    table made of it is not taken for the lost one either."""
    records = _records(30)
    index = next(n for n, r in enumerate(records[:-1])  # a version saved by a roll
                 if MatchState.from_dict(r.engine).game.phase is Phase.ROLL)
    before, lost = records[index], records[index + 1]
    seeds = (MatchState.from_dict(before.engine).game.roll(random.Random(seed))
             for seed in range(100))
    other = next(g for g in seeds if g != MatchState.from_dict(lost.engine).game)
    remember_table(lost, MatchState.from_dict(lost.engine))
    saved = lost.model_copy(update={"engine": MatchState(other).to_dict()})
    assert saved.version == lost.version and saved.game_id == lost.game_id
    assert table_of(saved).to_dict() == saved.engine
    assert table_of(saved).game == other
    assert table_of(lost).to_dict() == lost.engine
