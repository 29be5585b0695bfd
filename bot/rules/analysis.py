"""Which game an analysis is of, and the job that analyses it.

Pure, like :mod:`bot.rules.computer`: :func:`analysable` says whether a
record can be analysed, :func:`job` turns it into what crosses to the
thinking pool's worker process (picklable: the engine's JSON and the match
score before the game), and :func:`analyse_job` runs there, calling
:func:`ai.analysis.analyse` (slow: seconds; the edge layer runs it off the
event loop, bot/edge/handlers/analysis.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ai.analysis import Analysis, analyse
from bot.rules.matchstate import MatchState, table_of, unpack_game
from bot.vocab.records import GameRecord, Status
from engine.game import Game
from engine.match import Standing


@dataclass(frozen=True)
class Job:
    """What the worker needs: the game's JSON (``Game.to_dict``) and the
    match score (White, Black) before the game."""

    game: dict[str, Any]
    score: tuple[int, int] = (0, 0)


def analysable(record: GameRecord) -> bool:
    """A finished game with a result (a cancelled one has none to judge)."""
    return (record.status is Status.FINISHED and bool(record.engine)
            and table_of(record).game.result is not None)


def score_before(table: MatchState) -> tuple[int, int]:
    """The match score before the table's game (its points taken off again;
    (0, 0) for a single game, whose score the cube never depends on).

    >>> from engine.game import GameOptions
    >>> score_before(MatchState(Game.new(GameOptions.long(match_length=5)), (3, 1)))
    (3, 1)
    >>> score_before(MatchState(Game.new(GameOptions.long()), (3, 1)))
    (0, 0)
    """
    game, score = table.game, list(table.score)
    if not table.match_length:
        return 0, 0
    if game.result is not None:
        score[game.result.winner] = max(0, score[game.result.winner] - game.result.points)
    return score[0], score[1]


def job(record: GameRecord) -> Job:
    table = table_of(record)
    return Job(table.game.to_dict(), score_before(table))


def earlier_jobs(record: GameRecord) -> list[tuple[int, Job]]:
    """The match's games before the record's (all finished), numbered as in
    the match, each with the score before it: what /export analyses
    besides the record's own game, when its file holds them."""
    table = table_of(record)
    if not table.match_length or len(table.earlier) != table.number - 1:
        return []
    standing, jobs = Standing(table.match_length), []
    for number, packed in enumerate(table.earlier, 1):
        game = unpack_game(packed)
        jobs.append((number, Job(game.to_dict(), standing.score)))
        standing = standing.counting(game)
    return jobs


def analyse_job(work: Job) -> Analysis:
    """The analysis (run in the thinking pool's worker)."""
    return analyse(Game.from_dict(work.game), score=work.score)
