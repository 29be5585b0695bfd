"""A chat's league: a season table of its rated games (``/league``).

A season is a calendar month (UTC, :func:`month`), or a named one a chat
starts and ends (``/league start Winter cup``,
:class:`~bot.vocab.tournament.NamedSeason`).  Its table counts every rated
result of the season - a single game, or a match once it is over (games
against the computer are not rated and are left out: :func:`league_game`):

* **points**: points won minus points lost (a gammon or mars 2, a
  backgammon or koks 3, times the cube; a match its length) - the ledger
  at a stake of 1;
* games, wins, losses;
* the rating change: the FIBS changes of those results, added up.

The store keeps each season's table added up (:func:`league_lines`, written in
the script that books the game's end, so once); :func:`table` adds it up
from the results themselves, the same numbers.  Sorted by points, then wins,
then the rating change (in whole points, as shown: rows that read the same
are equal), then fewer games; players equal on all of these share the rank.

>>> games = [LeagueGame(10.0, winner=1, loser=2, points=2, changes=(9.0, 9.0)),
...          LeagueGame(20.0, winner=2, loser=3, points=1, changes=(5.0, 5.0)),
...          LeagueGame(99.0, winner=3, loser=1, points=3)]   # after the season
>>> [(r.rank, r.user_id, r.points, r.wins, r.rating_change)
...  for r in table(games, Season("s", 0.0, 50.0))]
[(1, 1, 2, 1, 9.0), (2, 2, -1, 1, -4.0), (3, 3, -1, 0, -5.0)]
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from bot.vocab.i18n import N_
from bot.vocab.records import HistoryEntry, computer_level
from bot.vocab.refusals import Refusal
from bot.vocab.tournament import LeagueLines, NamedSeason, Tally
from bot.vocab.usertext import clean
from engine.match import Standing

SEASON_NAME = 40
"""The longest season name."""
KEEP_MONTHS = 24
"""Months whose tables are kept (each expires that long after its month ends)."""
KEEP_SEASONS = 12
"""Ended named seasons with results a chat keeps: while it keeps this many, a
new one starts only after a chat admin erased one (``/league erase``).  An
ended season without a rated result is not kept (nothing in it to lose), so a
flood of empty seasons erases nothing."""
MONTH = re.compile(r"[0-9]{4}-[0-9]{2}")
WORDS = ("start", "end", "erase")
"""``/league start <name>``, ``/league end``, ``/league erase <name>``: not season names."""


BAD_NAME = N_("A season needs a name of 1 to {most} characters that is not a month: "
               "/league start Winter cup.")
SEASON_RUNS = N_("The season {name} is running: /league end ends it first.")
NO_SEASON = N_("No named season is running: /league start Winter cup starts one.")
SEASONS_FULL = N_("This chat keeps {count} seasons already: a chat admin erases one first "
                   "(/league erase Winter cup).")
END_NOT_YOURS = N_("Only whoever started the season {name} or a chat admin may end it.")
ERASE_ADMINS = N_("Only chat admins erase a season.")
ERASE_WHICH = N_("/league erase Winter cup erases that ended season and its table.")
ERASED = N_("The season {name} and its table were erased.")
NO_SUCH_SEASON = N_("No season here is called {name}. /league 2026-11 shows a month; "
                    "the seasons kept: {names}.")


class SeasonError(ValueError):
    """A season that ends before it starts, or a month that is none."""


def season_name(words: Iterable[str]) -> str:
    """The name ``/league start`` gives a season: on one line, 1 to
    :data:`SEASON_NAME` characters, not a month's ``YYYY-MM`` (that would
    name the month) nor a word of ``/league``.

    >>> season_name(["Winter", " cup "])
    'Winter cup'
    """
    name = clean(" ".join(words), 1000)
    if not 0 < len(name) <= SEASON_NAME or MONTH.fullmatch(name) or name.lower() in WORDS:
        raise Refusal(BAD_NAME, most=SEASON_NAME)
    return name


def named(seasons: Iterable[NamedSeason], name: str) -> NamedSeason | None:
    """The newest kept season of that name (letter case aside)."""
    wanted = clean(name, 1000).casefold()
    found = [s for s in seasons if s.name.casefold() == wanted]
    return max(found, key=lambda s: s.started_at) if found else None


def started(season_id: str, name: str, user_id: int, now: float) -> NamedSeason:
    return NamedSeason(season_id=season_id, name=name, started_at=now, started_by=user_id)


def ended(season: NamedSeason, now: float) -> NamedSeason:
    return season.model_copy(update={"ended_at": now})


def may_start(kept: Iterable[NamedSeason]) -> None:
    """A season may start (whoever may create tournaments: the caller asks)
    unless the chat keeps :data:`KEEP_SEASONS` ended ones: nothing kept is
    ever dropped to make room, only erased by an admin (:func:`may_erase`)."""
    if sum(s.ended_at is not None for s in kept) >= KEEP_SEASONS:
        raise Refusal(SEASONS_FULL, count=KEEP_SEASONS)


def may_end(season: NamedSeason, user_id: int, admin: bool) -> None:
    """The running season is ended by whoever started it or a chat admin."""
    if user_id != season.started_by and not admin:
        raise Refusal(END_NOT_YOURS, name=season.name)


def may_erase(kept: Iterable[NamedSeason], name: str, admin: bool) -> NamedSeason:
    """The ended season ``/league erase <name>`` erases (the newest of the
    name): only a chat admin erases, and never the season running."""
    if not admin:
        raise Refusal(ERASE_ADMINS)
    if not clean(name, 1000):
        raise Refusal(ERASE_WHICH)
    season = named((s for s in kept if s.ended_at is not None), name)
    if season is None:
        raise Refusal(NO_SUCH_SEASON, name=clean(name, SEASON_NAME),
                      names=", ".join(s.name for s in kept) or "—")
    return season


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


def month_named(name: str) -> Season:
    """The month ``YYYY-MM``; :class:`SeasonError` for anything else.

    >>> month_named("2026-11").name
    '2026-11'
    """
    if not MONTH.fullmatch(name) or not "1970" <= name[:4] <= "9998":  # a month with an end
        raise SeasonError(name)
    try:
        first = dt.datetime.strptime(name, "%Y-%m").replace(tzinfo=dt.UTC)
    except ValueError:
        raise SeasonError(name) from None
    return month(first.timestamp())


def kept_until(season: Season) -> int:
    """When a month's table is dropped: :data:`KEEP_MONTHS` after it ends."""
    return int(season.end) + KEEP_MONTHS * 31 * 86400


@dataclass(frozen=True, slots=True)
class LeagueGame:
    """One rated result: a single game, or a whole match."""

    finished_at: float
    winner: int
    loser: int
    points: int = 1
    changes: tuple[float, float] | None = None
    """(the winner's rating gain, the loser's loss), both positive; None: not known."""


def league_game(entry: HistoryEntry) -> LeagueGame | None:
    """The rated result a history line ends, if it ends one: a single game or
    the last game of a match, between people, not cancelled."""
    rated = entry.winner is not None and entry.result != "cancelled" and (
        entry.score is None or Standing(entry.match_length, entry.score).is_settled)
    if not rated or len(entry.players) != 2 or any(
            computer_level(p.user_id) is not None for p in entry.players):
        return None   # a game of a match going on, or against the computer
    winner = next(p.user_id for p in entry.players if p.side is entry.winner)
    loser = next(p.user_id for p in entry.players if p.side is not entry.winner)
    points = entry.match_length if entry.match_length > 1 else entry.points
    moved = None if entry.rating_changes is None else dict(
        zip((p.user_id for p in entry.players), entry.rating_changes, strict=True))
    changes = None if moved is None else (moved[winner], -moved[loser])
    return LeagueGame(entry.finished_at, winner, loser, points, changes)


def tallies(games: Iterable[LeagueGame]) -> dict[int, Tally]:
    """Each player's line, added up (:data:`~bot.vocab.tournament.Tally`)."""
    out: dict[int, Tally] = {}
    for game in games:
        gain, loss = game.changes or (0.0, 0.0)
        for player, sign, change in ((game.winner, 1, gain), (game.loser, -1, -loss)):
            points, played, wins, milli = out.get(player, (0, 0, 0, 0))
            out[player] = (points + sign * game.points, played + 1, wins + (sign > 0),
                           milli + round(change * 1000))
    return out


def league_lines(entry: HistoryEntry) -> LeagueLines | None:
    """What a booked history line adds to its month's table and the running
    named season's (None if it ends no rated result): what the store adds in
    the script that books the game (bot/store/ledger.py)."""
    game = league_game(entry)
    if game is None:
        return None
    season = month(entry.finished_at)
    return LeagueLines(season.name, kept_until(season), tallies([game]))


def added(*parts: Mapping[int, Tally]) -> dict[int, Tally]:
    """Tallies of the same players added up."""
    out: dict[int, Tally] = {}
    for part in parts:
        for player, tally in part.items():
            have = out.get(player, (0, 0, 0, 0))
            out[player] = (have[0] + tally[0], have[1] + tally[1], have[2] + tally[2],
                           have[3] + tally[3])
    return out


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


def ranked(lines: Mapping[int, Tally]) -> list[LeagueRow]:
    """The table of added-up lines, best first (see the module doc)."""
    def key(player: int) -> tuple[int, int, int, int]:   # the rating change as shown
        points, played, wins, milli = lines[player]
        return points, wins, round(milli / 1000), -played

    order = sorted((p for p in lines if lines[p][1]), key=lambda p: (tuple(-k for k in key(p)), p))
    out: list[LeagueRow] = []
    for position, player in enumerate(order):
        shared = position and key(order[position - 1]) == key(player)
        points, played, wins, milli = lines[player]
        out.append(LeagueRow(out[-1].rank if shared else position + 1, player, points,
                             played, wins, milli / 1000))
    return out


def table(games: Iterable[LeagueGame], season: Season) -> list[LeagueRow]:
    """The season's table from its results (see the module doc)."""
    return ranked(tallies(g for g in games if g.finished_at in season))
