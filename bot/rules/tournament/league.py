"""A chat's league: a season table of its rated games (``/league``).

A season is a span of time: a calendar month (UTC, :func:`month`), or a
named one a chat sets (:class:`Season`).  Its table counts every rated
result that ended in it - a single game, or a match once it is over - from
the chat's history (games against the computer are not rated and are left
out by whoever gathers the games):

* **points**: points won minus points lost (a gammon or mars 2, a
  backgammon or koks 3, times the cube; a match its length) - the ledger
  at a stake of 1;
* games, wins, losses;
* the rating change: the FIBS changes of those results, added up.

Sorted by points, then wins, then the rating change, then fewer games;
players equal on all of these share the rank.

>>> games = [LeagueGame(10.0, winner=1, loser=2, points=2, changes=(9.0, 9.0)),
...          LeagueGame(20.0, winner=2, loser=3, points=1, changes=(5.0, 5.0)),
...          LeagueGame(99.0, winner=3, loser=1, points=3)]   # after the season
>>> [(r.rank, r.user_id, r.points, r.wins, r.rating_change)
...  for r in table(games, Season("s", 0.0, 50.0))]
[(1, 1, 2, 1, 9.0), (2, 2, -1, 1, -4.0), (3, 3, -1, 0, -5.0)]
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass


class SeasonError(ValueError):
    """A season that ends before it starts."""


@dataclass(frozen=True, slots=True)
class Season:
    name: str
    start: float
    end: float
    """Exclusive: a game that ended at ``end`` is the next season's."""

    def __post_init__(self) -> None:
        if not self.start < self.end:
            raise SeasonError(f"season {self.name!r} ends before it starts")

    def __contains__(self, moment: float) -> bool:
        return self.start <= moment < self.end


def month(now: float) -> Season:
    """The calendar month (UTC) of ``now``, named ``YYYY-MM``.

    >>> season = month(1764547200.0)   # 2025-12-01 00:00 UTC
    >>> season.name, season.start == 1764547200.0, season.end - season.start == 31 * 86400
    ('2025-12', True, True)
    """
    day = dt.datetime.fromtimestamp(now, dt.UTC)
    first = day.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    after = first.replace(year=first.year + first.month // 12, month=first.month % 12 + 1)
    return Season(first.strftime("%Y-%m"), first.timestamp(), after.timestamp())


@dataclass(frozen=True, slots=True)
class LeagueGame:
    """One rated result: a single game, or a whole match."""

    finished_at: float
    winner: int
    loser: int
    points: int = 1
    changes: tuple[float, float] | None = None
    """(the winner's rating gain, the loser's loss), both positive; None: not known."""


@dataclass(frozen=True, slots=True)
class LeagueRow:
    rank: int
    user_id: int
    points: int
    games: int
    wins: int
    rating_change: float

    @property
    def losses(self) -> int:
        return self.games - self.wins


def table(games: Iterable[LeagueGame], season: Season) -> list[LeagueRow]:
    """The season's table, best first (see the module doc)."""
    rows: dict[int, list[float]] = {}   # points, games, wins, rating change
    for game in games:
        if game.finished_at not in season:
            continue
        gain, loss = game.changes or (0.0, 0.0)
        for player, sign, change in ((game.winner, 1, gain), (game.loser, -1, -loss)):
            row = rows.setdefault(player, [0, 0, 0, 0.0])
            row[0] += sign * game.points
            row[1] += 1
            row[2] += sign > 0
            row[3] += change
    key = {p: (row[0], row[2], round(row[3], 6), -row[1]) for p, row in rows.items()}
    order = sorted(rows, key=lambda p: (tuple(-k for k in key[p]), p))
    out: list[LeagueRow] = []
    for position, player in enumerate(order):
        shared = position and key[order[position - 1]] == key[player]
        points, played, wins, change = rows[player]
        out.append(LeagueRow(out[-1].rank if shared else position + 1, player, int(points),
                             int(played), int(wins), change))
    return out
