"""The league's tables in the store: added to by the script that books a game's
end, so each rated result counts once in its month's table and in the named
season's running when it was booked - however many results a month has, under
retried and racing bookings - and equal to the tables recomputed from the
results (bot/rules/tournament/league.py) (every back end)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping

import pytest

from bot.rules.tournament.league import (
    KEEP_SEASONS,
    LeagueGame,
    Season,
    ended,
    league_game,
    league_lines,
    month,
    ranked,
    started,
    table,
    tallies,
)
from bot.service import tournament as service
from bot.store import Store
from bot.store.ledger import StatsUpdate
from bot.vocab.records import (
    COMPUTER_USER_IDS,
    GameRecord,
    HistoryEntry,
    Player,
    PlayerStats,
    Status,
    encode,
)
from bot.vocab.refusals import Refusal
from engine.position import Side, Variant

CHAT = -100900
PEOPLE = (11, 22, 33, 44)
COMPUTER = COMPUTER_USER_IDS["easy"]
NOW = 1_790_000_000.0   # 2026-09-21
SEPTEMBER, AUGUST = month(NOW), month(NOW - 30 * 86400)


def _entry(rng: random.Random, game_id: str, finished_at: float) -> HistoryEntry:
    """A random finished game: people or the computer, a single game or a
    match's game (over or not), now and then cancelled."""
    white, black = rng.sample((*PEOPLE, *PEOPLE, COMPUTER), 2) if rng.random() < 0.2 \
        else rng.sample(PEOPLE, 2)
    if white == black:
        black = next(p for p in PEOPLE if p != white)
    players = (Player(user_id=white, name=f"P{white}", side=Side.WHITE),
               Player(user_id=black, name=f"P{black}", side=Side.BLACK))
    length = rng.choice((1, 1, 3))
    winner = None if rng.random() < 0.1 else rng.choice((Side.WHITE, Side.BLACK))
    score = None
    if length > 1 and winner is not None:
        won, other = rng.choice((3, 3, 2)), rng.randint(0, 2)
        score = (won, other) if winner is Side.WHITE else (other, won)
    return HistoryEntry(game_id=game_id, variant=Variant.LONG, players=players, winner=winner,
                        result="cancelled" if winner is None else "single",
                        points=rng.choice((1, 2, 3)), finished_at=finished_at,
                        match_length=length, score=score)


def _rated(entry: HistoryEntry, gain: float) -> StatsUpdate:
    """A stats update that moves both ratings of a rated result (so the line
    keeps its rating changes), and nothing else."""
    def update(current: Mapping[int, PlayerStats | None]) -> list[PlayerStats]:
        game = league_game(entry)
        if game is None:
            return []
        out = []
        for user_id, sign in ((game.winner, 1), (game.loser, -1)):
            old = current.get(user_id) or PlayerStats(user_id=user_id, variant=Variant.LONG)
            out.append(old.model_copy(update={"matches": old.matches + 1,
                                              "rating": old.rating + sign * gain}))
        return out
    return update


async def _book(store: Store, entry: HistoryEntry, times: int = 1) -> None:
    """Book the game of ``entry``'s end ``times`` at once (a retried final tap,
    racing workers), as bot/service/ending.py does."""
    game = await store.games.save(GameRecord(chat_id=CHAT, game_id=entry.game_id,
                                             variant=Variant.LONG, players=entry.players,
                                             status=Status.ACTIVE), 0, limited=False)
    done = game.model_copy(update={"status": Status.FINISHED})
    gain = 1.0 + int(entry.game_id[-4:]) % 7 / 3   # fractions, added in thousandths
    results = await asyncio.gather(*(
        store.ledger.finish_game(done, game.version, entry, stats=_rated(entry, gain),
                                league=league_lines) for _ in range(times)))
    assert sum(r.booked for r in results) == 1


def _games(entries: list[HistoryEntry]) -> list[LeagueGame]:
    return [g for g in map(league_game, entries) if g is not None]


async def _month(store: Store, season: Season) -> list[tuple[int, int, int, int, int, float]]:
    rows, _ = await service.month_table(store, CHAT, season)
    return [(r.rank, r.user_id, r.points, r.games, r.wins, r.rating_change) for r in rows]


def _rows(games: list[LeagueGame], season: Season) -> list[tuple[int, int, int, int, int,
                                                                  float]]:
    return [(r.rank, r.user_id, r.points, r.games, r.wins, r.rating_change)
            for r in table(games, season)]


@pytest.mark.parametrize("seed", [1, 2])
async def test_the_tables_equal_the_tables_of_the_results(store: Store, seed: int) -> None:
    rng = random.Random(seed)
    booked: list[HistoryEntry] = []
    in_season: list[HistoryEntry] = []
    cup = started("cup00001", "Cup", PEOPLE[0], NOW)
    for n in range(60):
        if n == 15:
            assert await service.start_season(store, CHAT, cup) == cup
        if n == 45:
            cup = await service.end_season(store, CHAT, PEOPLE[0], False, NOW)
        # a quarter of them in August, the rest in September
        when = (AUGUST if rng.random() < 0.25 else SEPTEMBER).start + rng.uniform(0, 86400 * 27)
        entry = _entry(rng, f"game{n:04d}", when)
        await _book(store, entry, times=rng.choice((1, 1, 3)))
        [line] = await store.ledger.history(CHAT, limit=1)
        booked.append(line)   # as booked: with its rating changes
        if 15 <= n < 45:
            in_season.append(line)
    assert any(line.rating_changes for line in booked)
    games = _games(booked)
    for season in (AUGUST, SEPTEMBER):
        assert await _month(store, season) == _rows(games, season)
        assert await _month(store, season)   # not empty: the test tests something
    rows, who = await service.season_table(store, CHAT, cup)
    assert rows == ranked(tallies(_games(in_season)))
    assert who == {r.user_id: f"P{r.user_id}" for r in rows}
    # the months' tables expire, the season's is kept
    assert await store.redis.ttl(store.keys.league_month(CHAT, SEPTEMBER.name)) > 0
    assert await store.redis.ttl(store.keys.league_season(CHAT, cup.season_id)) == -1


async def test_every_result_of_a_month_counts_past_the_history_cap(store: Store) -> None:
    rng = random.Random(7)
    entries = [_entry(rng, f"game{n:04d}", SEPTEMBER.start + n * 60) for n in range(320)]
    entries = [e for e in entries if league_game(e) is not None][:210]
    assert len(entries) == 210
    for entry in entries:
        await _book(store, entry)
    assert len(await store.ledger.history(CHAT)) == 200   # the history keeps its last 200
    rows = await _month(store, SEPTEMBER)
    assert sum(row[3] for row in rows) == 2 * 210
    assert [row[1:5] for row in rows] == [row[1:5] for row in _rows(_games(entries), SEPTEMBER)]


async def test_racing_bookings_and_a_season_start_count_each_result_once(store: Store) -> None:
    rng = random.Random(3)
    entries = [_entry(rng, f"game{n:04d}", SEPTEMBER.start + n) for n in range(40)]
    cup = started("cup00002", "Cup", PEOPLE[0], NOW)
    await asyncio.gather(*(_book(store, e, times=2) for e in entries[:20]),
                         service.start_season(store, CHAT, cup),
                         *(_book(store, e, times=2) for e in entries[20:]))
    later = [e for e in (_entry(rng, f"late{n:04d}", SEPTEMBER.start + 50 + n)
                         for n in range(20)) if league_game(e) is not None][:3]
    for entry in later:   # surely after the start
        await _book(store, entry)
    history = await store.ledger.history(CHAT)
    assert len(history) == 43
    assert await _month(store, SEPTEMBER) == _rows(_games(history), SEPTEMBER)
    # the season counts exactly the results booked after it started: the newest k
    rows, _ = await service.season_table(store, CHAT, cup)
    assert any(rows == ranked(tallies(_games(history[:k]))) for k in range(3, 44)), rows


async def test_results_booked_before_the_tables_come_from_the_history(store: Store) -> None:
    """An older release pushed history lines and kept no tables: the month's
    table adds those lines (still in the history), never twice."""
    rng = random.Random(5)
    old = [e for e in (_entry(rng, f"old{n:04d}", SEPTEMBER.start + n) for n in range(30))
           if league_game(e) is not None][:8]
    for entry in old:
        await store.redis.lpush(store.keys.chat(CHAT, "history"), encode(entry))
    new = [e for e in (_entry(rng, f"game{n:04d}", SEPTEMBER.start + 100 + n) for n in range(30))
           if league_game(e) is not None][:5]
    for entry in new:
        await _book(store, entry)
    booked = await store.ledger.history(CHAT)
    assert len(booked) == 13
    assert await _month(store, SEPTEMBER) == _rows(_games(booked), SEPTEMBER)


def _one_result(game_id: str, at: float) -> HistoryEntry:
    return _entry(random.Random(1), game_id, at).model_copy(
        update={"winner": Side.WHITE, "result": "single", "match_length": 1, "score": None,
                "players": (Player(user_id=11, name="A", side=Side.WHITE),
                            Player(user_id=22, name="B", side=Side.BLACK))})


async def test_one_season_at_a_time_and_none_with_results_is_dropped(store: Store) -> None:
    """A flood of empty seasons keeps nothing and erases nothing; seasons with
    results are kept until an admin erases one (issue 36: 13 junk seasons
    erased the named season "Winter cup")."""
    first = started("season00", "Winter cup", PEOPLE[0], NOW)
    assert await service.start_season(store, CHAT, first) == first
    assert await service.start_season(store, CHAT, first) == first   # a retry: started
    with pytest.raises(Refusal) as refused:
        await service.start_season(store, CHAT, started("season01", "Spring", 1, NOW))
    assert refused.value.values == {"name": "Winter cup"}
    await _book(store, _one_result("game0001", NOW))
    with pytest.raises(Refusal):   # somebody else's season
        await service.end_season(store, CHAT, 1, False, NOW + 10)
    done = await service.end_season(store, CHAT, PEOPLE[0], False, NOW + 10)
    assert done == ended(first, NOW + 10)
    with pytest.raises(Refusal):
        await service.end_season(store, CHAT, PEOPLE[0], True, NOW + 11)   # nothing runs
    table_key = store.keys.league_season(CHAT, first.season_id)
    assert await store.redis.exists(table_key)
    for n in range(1, 3 * KEEP_SEASONS):   # empty seasons: not kept, nothing dropped
        season = started(f"junk{n:04d}", f"J{n}", 1, NOW + 100 * n)
        await service.start_season(store, CHAT, season)
        await service.end_season(store, CHAT, 1, False, NOW + 100 * n + 50)
    running, kept, _ = await store.tournament.league.seasons(CHAT)
    assert running is None and kept == [done] and await store.redis.exists(table_key)
    for n in range(1, KEEP_SEASONS):   # seasons with results fill what is kept
        season = started(f"season{n:02d}", f"S{n}", 1, NOW + 10_000 * n)
        await service.start_season(store, CHAT, season)
        await _book(store, _one_result(f"game{n + 1:04d}", NOW + 10_000 * n + 1))
        await service.end_season(store, CHAT, 1, False, NOW + 10_000 * n + 50)
    _, kept, _ = await store.tournament.league.seasons(CHAT)
    assert [s.name for s in kept] == ["Winter cup", *(f"S{n}" for n in range(1, KEEP_SEASONS))]
    with pytest.raises(Refusal) as refused:
        await service.start_season(store, CHAT, started("season99", "More", 1, NOW * 2))
    assert refused.value.values == {"count": KEEP_SEASONS}
    with pytest.raises(Refusal):
        await service.erase_season(store, CHAT, "Winter cup", admin=False)
    assert await service.erase_season(store, CHAT, "winter CUP", admin=True) == done
    assert not await store.redis.exists(table_key)   # erased with its table
    with pytest.raises(Refusal):
        await service.erase_season(store, CHAT, "Winter cup", admin=True)   # gone
    more = started("season99", "More", 1, NOW * 2)
    assert await service.start_season(store, CHAT, more) == more


async def test_a_chat_that_becomes_a_supergroup_keeps_its_league(store: Store) -> None:
    rng = random.Random(9)
    cup = started("cup00003", "Cup", PEOPLE[0], NOW)
    entries = [e for e in (_entry(rng, f"game{n:04d}", SEPTEMBER.start + n) for n in range(40))
               if league_game(e) is not None][:12]
    for n, entry in enumerate(entries):
        if n == 4:
            await service.start_season(store, CHAT, cup)
        await _book(store, entry)
    month_before = await _month(store, SEPTEMBER)
    season_before, _ = await service.season_table(store, CHAT, cup)
    new = CHAT - 1_000_000_000
    for _ in range(2):   # a re-run (after a crash) adds nothing twice
        await store.migration.migrate_chat(CHAT, new)
    rows, _ = await service.month_table(store, new, SEPTEMBER)
    assert [(r.rank, r.user_id, r.points, r.games, r.wins, r.rating_change) for r in rows] \
        == month_before
    running, _, _ = await store.tournament.league.seasons(new)
    assert running == cup
    assert (await service.season_table(store, new, cup))[0] == season_before
    assert not await store.redis.exists(store.keys.chat(CHAT, "league"),
                                        store.keys.league_month(CHAT, SEPTEMBER.name),
                                        store.keys.league_season(CHAT, cup.season_id))
