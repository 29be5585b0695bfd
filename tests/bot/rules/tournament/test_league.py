"""A season table of a chat's rated games."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.rules.tournament.league import (
    KEEP_SEASONS,
    LeagueGame,
    Season,
    SeasonError,
    ended,
    may_end,
    may_erase,
    may_start,
    month,
    month_named,
    named,
    ranked,
    season_name,
    started,
    table,
)
from bot.vocab.refusals import Refusal


def at(day: str) -> float:
    return dt.datetime.fromisoformat(day).replace(tzinfo=dt.UTC).timestamp()


def test_a_month_is_a_calendar_month_in_utc() -> None:
    season = month(at("2026-02-14T23:59:59"))
    assert (season.name, season.start, season.end) == ("2026-02", at("2026-02-01"),
                                                        at("2026-03-01"))
    assert month(at("2026-12-31T12:00")).end == at("2027-01-01")
    assert at("2026-03-01") not in season and at("2026-02-01") in season


def test_the_table_counts_points_wins_and_rating_changes_of_the_season() -> None:
    november = Season("autumn", at("2026-11-01"), at("2026-12-01"))
    games = [
        LeagueGame(at("2026-11-02"), winner=1, loser=2, points=2, changes=(8.0, 7.5)),
        LeagueGame(at("2026-11-03"), winner=2, loser=1, points=1, changes=(4.0, 4.5)),
        LeagueGame(at("2026-11-04"), winner=3, loser=1, points=7, changes=(20.0, 19.0)),
        LeagueGame(at("2026-10-31"), winner=2, loser=3, points=9),   # last season
        LeagueGame(at("2026-12-01"), winner=2, loser=3, points=9),   # next season
    ]
    rows = table(games, november)
    assert [(r.rank, r.user_id, r.points, r.games, r.wins, r.losses, r.rating_change)
            for r in rows] == [
        (1, 3, 7, 1, 1, 0, 20.0),
        (2, 2, -1, 2, 1, 1, -3.5),
        (3, 1, -6, 3, 1, 2, -15.5),
    ]


def test_equal_rows_share_a_rank_and_fewer_games_rank_higher() -> None:
    season = Season("s", 0.0, 100.0)
    games = [LeagueGame(1.0, 1, 2), LeagueGame(2.0, 2, 1), LeagueGame(3.0, 3, 4),
             LeagueGame(4.0, 4, 3)]
    assert [(r.rank, r.user_id) for r in table(games, season)] == [(1, 1), (1, 2), (1, 3),
                                                                    (1, 4)]
    # 5 and 6 both +2 with one win; 6 needed two games for it
    more = [LeagueGame(5.0, 5, 7, points=2), LeagueGame(6.0, 6, 7, points=3),
            LeagueGame(7.0, 8, 6, points=1)]
    assert [(r.rank, r.user_id, r.points, r.games) for r in table(more, season)][:2] == [
        (1, 5, 2, 1), (2, 6, 2, 2)]


def test_a_season_ends_after_it_starts() -> None:
    with pytest.raises(SeasonError):
        Season("x", 10.0, 10.0)


def test_a_month_is_named_yyyy_mm_and_nothing_else() -> None:
    assert month_named("2026-02") == month(at("2026-02-10"))
    for wrong in ("2026-13", "2026-1", "26-01", "Winter", "", "9999-12", "0001-01"):
        with pytest.raises(SeasonError):
            month_named(wrong)


def test_a_season_name_is_one_line_and_no_month_or_command_word() -> None:
    assert season_name(["  Winter\n", "cup"]) == "Winter cup"
    for words in ([], ["   "], ["2026-11"], ["End"], ["x" * 41]):
        with pytest.raises(Refusal):
            season_name(words)


def test_the_newest_season_of_a_name_is_found_and_nothing_kept_is_dropped() -> None:
    seasons = [ended(started(f"id{n:04d}", "Cup" if n % 2 else f"S{n}", 1, float(n)),
                     n + 0.5) for n in range(KEEP_SEASONS + 3)]
    assert named(seasons, " cup ") == seasons[KEEP_SEASONS + 1]
    assert named(seasons, "nothing") is None
    # a chat keeping KEEP_SEASONS starts no more until an admin erases one
    may_start(seasons[:KEEP_SEASONS - 1])
    with pytest.raises(Refusal):
        may_start(seasons[:KEEP_SEASONS])
    running = started("running", "Now", 7, 99.0)
    may_start([*seasons[:KEEP_SEASONS - 1], running])   # the running one is not kept yet
    may_end(running, 7, admin=False)
    may_end(running, 8, admin=True)
    with pytest.raises(Refusal):
        may_end(running, 8, admin=False)   # somebody else's season
    assert may_erase([*seasons, running], "cup", admin=True) == seasons[KEEP_SEASONS + 1]
    for name, admin in (("cup", False), ("Now", True), ("", True)):
        with pytest.raises(Refusal):
            may_erase([*seasons, running], name, admin)   # a member; the running one


def test_rows_that_read_the_same_share_the_rank() -> None:
    """Issue 36, point 9: two rows printed alike (+5 both) got ranks 1 and 2 by
    a hidden decimal of the rating change (5.4 against 5.2)."""
    rows = ranked({1: (2, 2, 2, 5_200), 2: (2, 2, 2, 5_400), 3: (2, 2, 2, 6_000)})
    assert [(r.rank, r.user_id, round(r.rating_change)) for r in rows] == [
        (1, 3, 6), (2, 1, 5), (2, 2, 5)]
