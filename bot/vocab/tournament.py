"""What the store keeps of a tournament: one record, changed by one compare-and-set.

Pure data (the rules are in :mod:`bot.rules.tournament`).  A tournament
record holds its setup, its entrants (with the rating and deviation each had
at the start, which fixed the seeding), its rounds with their pairings and
results, and, once over, the final standings the prizes were booked from.
Scores and tie-breaks are never stored while it runs: they are computed from
the results (:mod:`bot.rules.tournament.standings`), so they cannot drift.

>>> from engine.position import Variant
>>> record = TournamentRecord(chat_id=-100123, format=Format.SWISS, rounds_planned=5,
...                           variant=Variant.LONG, created_by=7)
>>> back = TournamentRecord.model_validate_json(record.model_dump_json())
>>> back == record, back.status.value, back.format.value
(True, 'lobby', 'swiss')
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from bot.vocab import clock
from bot.vocab.records import Record, RecordKey, Status, TableOptions, new_game_id
from engine.position import Variant

GAME_ID = re.compile(r"t[A-Za-z0-9_-]{4,32}-[1-9][0-9]*-[1-9][0-9]*")
"""A tournament game's id, ``t<tournament>-<round>-<board>``
(bot/service/tournament.py ``game_id_of``); every other game id is 8
characters, too short to match."""


def is_tournament_game(game_id: str) -> bool:
    """Whether ``game_id`` is a game the bot made for a tournament's pairing:
    its seats are the pairing's, and no player may close it alone.

    >>> is_tournament_game("tAb3_x9Qz-3-12"), is_tournament_game("k3Xa9_zQ")
    (True, False)
    """
    return GAME_ID.fullmatch(game_id) is not None


def tournament_of_game(game_id: str) -> str | None:
    """The id of the tournament whose pairing a game plays (None: no such game).

    >>> tournament_of_game("tAb3_x9Qz-3-12"), tournament_of_game("k3Xa9_zQ")
    ('Ab3_x9Qz', None)
    """
    return game_id[1:].rsplit("-", 2)[0] if is_tournament_game(game_id) else None


class _Frozen(BaseModel):
    # forbid: an unknown field means corruption or a newer schema, never "ignore"
    model_config = ConfigDict(extra="forbid", frozen=True)


class Format(enum.StrEnum):
    ROUND_ROBIN = "round_robin"
    SWISS = "swiss"
    KNOCKOUT = "knockout"


class Stage(enum.StrEnum):
    """Which part of the tournament a game belongs to."""

    MAIN = "main"
    CONSOLATION = "consolation"
    """A knockout's second bracket, of the players who lost their first-round game."""
    PLAYOFF = "playoff"
    """A round robin's play-off for first place (players still tied after the tie-breaks)."""


class Decision(enum.StrEnum):
    """How a pairing got its result."""

    PLAYED = "played"
    """The game was played to its end (resigned, borne off, or won on time)."""
    FORFEIT = "forfeit"
    """One player never showed, or withdrew: the other wins without a game."""
    DOUBLE_FORFEIT = "double_forfeit"
    """Neither player showed: both lose (a knockout still sends one through)."""
    BYE = "bye"
    """No opponent: the odd player out of a round."""


class Result(_Frozen):
    """A pairing's result."""

    decision: Decision
    winner: int | None = Field(default=None, description="user id; None: a double forfeit, "
                               "or a round robin's bye (which scores nothing)")
    points: int = Field(default=0, ge=0, description="the points the game was won by (a "
                        "gammon 2 ...; a match's length); 0 for a game not played")


class Pairing(_Frozen):
    """One game of a round, or a bye (``second`` None)."""

    board: int = Field(ge=1, description="its number in the round, over every stage")
    first: int
    second: int | None = None
    stage: Stage = Stage.MAIN
    game_id: str | None = Field(default=None, description="the bot's game played for it")
    result: Result | None = None
    match_length: int | None = Field(default=None, ge=1, description="its game's match "
                                     "length (the round's, or the final's); None: the "
                                     "tournament's options'")

    @property
    def players(self) -> tuple[int, ...]:
        return (self.first,) if self.second is None else (self.first, self.second)

    def opponent(self, user_id: int) -> int | None:
        return self.second if user_id == self.first else self.first


class Round(_Frozen):
    number: int = Field(ge=1)
    started_at: float
    deadline: float | None = Field(default=None, description="games not over by then are "
                                   "decided by their clocks; None: no deadline")
    pairings: tuple[Pairing, ...] = ()

    @property
    def done(self) -> bool:
        return all(p.result is not None for p in self.pairings)


class Entrant(_Frozen):
    user_id: int
    name: str = Field(max_length=64)
    rating: float = Field(default=1500.0, description="at the start (seeding, Swiss groups)")
    deviation: float = Field(default=350.0, ge=0, description="the rating's deviation at the "
                             "start (bot/rules/ratings.py)")
    seed: int | None = Field(default=None, ge=1, description="1 = the top seed; set at the start")
    withdrawn: int | None = Field(default=None, ge=1, description="the round in which the "
                                  "player withdrew (or was withdrawn); None: still playing")
    no_shows: int = Field(default=0, ge=0, description="games lost by not showing up")


class Place(_Frozen):
    """One line of the final standings."""

    rank: int = Field(ge=1, description="players tied after every tie-break share a rank")
    user_id: int
    points: int
    games: int = Field(description="games with a result against an opponent, forfeits too")
    wins: int
    tiebreaks: tuple[int, ...] = Field(default=(), description="round robin: head-to-head, "
                                       "Sonneborn-Berger; Swiss: Buchholz cut-1, "
                                       "Sonneborn-Berger; knockout: rounds won, consolation "
                                       "rounds won")


class TournamentRecord(Record):
    """A tournament of a chat or forum topic, from its lobby to its end."""

    kind: ClassVar[str] = "tournament"
    tournament_id: str = Field(default_factory=new_game_id, pattern=r"^[A-Za-z0-9_-]{4,32}$")
    thread_id: int | None = None
    status: Status = Status.LOBBY
    format: Format
    rounds_planned: int = Field(default=0, ge=0, description="Swiss: its rounds; else 0")
    double: bool = Field(default=False, description="a round robin played twice")
    consolation: bool = Field(default=False, description="a knockout with a consolation "
                              "bracket")
    variant: Variant
    options: TableOptions = TableOptions()
    entry_stake: int = Field(default=0, ge=0, description="each entrant's share of the pot")
    prize_split: tuple[int, ...] = Field(default=(), description="percent per place; (): the "
                                         "default for the number of entrants")
    max_entrants: int = Field(default=16, ge=2)
    round_length: int = Field(default=7 * 86400, gt=0, description="seconds from a round's "
                              "start to its deadline")
    round_matches: tuple[int, ...] = Field(default=(), description="each round's match length, "
                                           "the last for the rounds after; (): options'")
    final_match: int = Field(default=0, ge=0, description="a knockout's final: a match of "
                             "this length; 0: as its round")
    start_at: float | None = Field(default=None, description="starts by itself then")
    created_by: int
    created_at: float = Field(default_factory=clock.now)
    updated_at: float = Field(default_factory=clock.now)
    started_at: float | None = None
    entrants: tuple[Entrant, ...] = ()
    rounds: tuple[Round, ...] = ()
    final: tuple[Place, ...] = Field(default=(), description="the standings at the end")
    message_id: int | None = Field(default=None, description="the lobby message (edited as "
                                   "players join, and when it starts or is cancelled)")
    announced: int = Field(default=0, ge=0, description="the last round whose pairings the "
                           "chat was told")
    closed: bool = Field(default=False, description="the end (the final standings, or the "
                         "cancel) was posted")

    @property
    def key(self) -> RecordKey[TournamentRecord]:
        return RecordKey(TournamentRecord, self.chat_id, self.tournament_id)

    @property
    def record_name(self) -> str:
        return self.tournament_id

    @property
    def ref(self) -> str:
        """``<chat>:<topic>:<id>``: the tournament's entry in the wake-up queue."""
        return f"{self.chat_id}:{self.thread_id or 0}:{self.tournament_id}"


class NamedSeason(_Frozen):
    """A chat's named league season (``/league start Winter cup``): every rated
    result booked while it runs counts in its table (bot/store/tournament.py)."""

    season_id: str = Field(pattern=r"^[A-Za-z0-9_-]{4,32}$")
    name: str = Field(min_length=1, max_length=64)
    started_at: float
    started_by: int
    ended_at: float | None = Field(default=None, description="None: it runs")


Tally = tuple[int, int, int, int]
"""A player's line of a league table, added up: points (won minus lost), games,
wins, rating change in thousandths of a point (whole numbers, so that a table
added up in Redis equals one added up from the results, to the last digit)."""


@dataclass(frozen=True)
class LeagueLines:
    """What one booked result adds to the chat's league tables: its month's
    (``YYYY-MM``, kept until ``kept_until``) and the named season's running."""

    month: str
    kept_until: int
    lines: Mapping[int, Tally]
    """User id -> what their line gains (:data:`Tally`)."""
