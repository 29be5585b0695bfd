"""Our analysis against GNU Backgammon's own, at equal depth (0-ply: our
medium level), money and match.

``gnubg_analysed/`` holds sessions our computer players played (White's
cube actions now and then the wrong way round), as ``.mat`` files, and what
GNU Backgammon 1.1.0a16 itself made of them (``set threads 1``, ``import
mat``, ``analyse match`` at 0-ply, ``export match text``), condensed to
``.json`` by ``gnubg_analysed/make.py`` (which made both; run it again to
remake them): per game and player its statistics, and every move's error.
In all: 3 matches (3, 5 and 7 points; 9 games, 18 player-games, 331
moves) and a money session (6 games, 226 moves).

The tolerances (docs/analysis.md, "Checked against GNU Backgammon") hold
with room on these files; measured when they were made:

* every move: within 0.02 of GNU Backgammon's error for 98% of moves
  (money 98.7%, match 100%), never more than 0.05 (0.026); the same verdict
  (best move or not) for 98% or more (100%, 99.4%);
* per player and game: chequer play's error total correlated >= 0.99
  (0.997, 0.999) and within 0.06 (0.051, 0.028); the cube's >= 0.95 (0.984,
  0.986) and within 0.25 in a match (0.099; 0.20 on six more matches
  drawn the same way, docs/analysis.md; money, where we judge by
  Janowski's model and gnubg by its cubeful evaluation, 0.6: 0.556);
  Snowie's error rate correlated >= 0.98 (0.996, 0.999); the luck >= 0.95
  in money (0.987: ours is cubeless, GNU Backgammon's cubeful) and >= 0.98
  in a match (0.997; 0.989 while the starter got the whole opening roll,
  as GNU Backgammon's; 0.970 judged by money equity); the number of
  decisions within 2 a game in a match (1) and 5 in money (4).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from ai import Level
from ai.analysis import Analysis, DecisionKind, analyse
from ai.matgames import read_games

HERE = Path(__file__).parent / "gnubg_analysed"
NAMES = ("Ann", "Bob")
FAMILIES = {"money": ["money"], "match": ["match-3", "match-5", "match-7"]}


@dataclass
class Compared:
    """Ours and GNU Backgammon's figures side by side: per player-game rows
    (ours, theirs) and per move pairs (our loss, their error)."""

    chequer: list[tuple[float, float]]
    cube: list[tuple[float, float]]
    snowie: list[tuple[float, float]]
    luck: list[tuple[float, float]]
    decisions: list[tuple[int, int]]
    moves: list[tuple[float, float]]


def _stat(stats: dict[str, list[float]], prefix: str) -> float:
    [key] = [key for key in stats if key.startswith(prefix)]
    return stats[key][0]


def _pair_moves(analysis: Analysis, moves: list[list[object]]) -> list[tuple[float, float]]:
    """Our move decisions against GNU Backgammon's moves, in order (it
    lists forced moves too: they pair with nothing of ours)."""
    ours = [d for d in analysis.decisions if d.kind is DecisionKind.MOVE]
    pairs, at = [], 0
    for _, who, dice, error in moves:
        if at < len(ours):
            mine = ours[at]
            assert mine.dice is not None
            if (NAMES[mine.side] == who
                    and sorted(str(dice)) == sorted(f"{mine.dice.first}{mine.dice.second}")):
                pairs.append((mine.loss, -float(error)))  # type: ignore[arg-type]
                at += 1
    assert at == len(ours), "every move decision of ours is one of GNU Backgammon's"
    return pairs


@pytest.fixture(scope="module", params=list(FAMILIES))
def compared(request: pytest.FixtureRequest) -> tuple[str, Compared]:
    family = request.param
    out = Compared([], [], [], [], [], [])
    for name in FAMILIES[family]:
        replays = read_games((HERE / f"{name}.mat").read_text())
        games = json.loads((HERE / f"{name}.json").read_text())["games"]
        for replay, found in zip(replays, games, strict=True):
            analysis = analyse(replay.game, score=replay.score, level=Level.MEDIUM)
            assert analysis.match_score is (family == "match")
            for side, name_ in enumerate(NAMES):
                mine, theirs = analysis.players[side], found["stats"][name_]
                out.chequer.append((mine.moves_error,
                                    abs(_stat(theirs, "chequerplay: Error total"))))
                out.cube.append((mine.error_total - mine.moves_error,
                                 abs(_stat(theirs, "cube: Error total"))))
                out.snowie.append((mine.snowie_error_rate,
                                   abs(_stat(theirs, "overall: Snowie error rate"))))
                out.luck.append((mine.luck, _stat(theirs, "luck: Luck total")))
                out.decisions.append((mine.decisions, int(
                    _stat(theirs, "chequerplay: Unforced moves")
                    + _stat(theirs, "cube: Close or actual cube decisions"))))
            out.moves += _pair_moves(analysis, found["moves"])
    return family, out


def _corr(rows: list[tuple[float, float]]) -> float:
    values = np.array(rows)
    return float(np.corrcoef(values[:, 0], values[:, 1])[0, 1])


def _gap(rows: list[tuple[float, float]] | list[tuple[int, int]]) -> float:
    values = np.array(rows, dtype=float)
    return float(np.abs(values[:, 0] - values[:, 1]).max())


def test_every_move_is_judged_as_gnubg_judges_it(compared: tuple[str, Compared]) -> None:
    _, figures = compared
    moves = np.array(figures.moves)
    gaps = np.abs(moves[:, 0] - moves[:, 1])
    assert len(moves) > 200
    assert np.mean(gaps <= 0.02) >= 0.98
    assert gaps.max() <= 0.05
    assert np.mean((moves[:, 0] > 0.001) == (moves[:, 1] > 0.001)) >= 0.98


def test_each_players_errors_match_gnubgs(compared: tuple[str, Compared]) -> None:
    family, figures = compared
    assert _corr(figures.chequer) >= 0.99 and _gap(figures.chequer) <= 0.06
    assert _corr(figures.cube) >= 0.95
    assert _gap(figures.cube) <= (0.25 if family == "match" else 0.6)
    assert _corr(figures.snowie) >= 0.98
    assert _gap(figures.decisions) <= (2 if family == "match" else 5)


def test_the_luck_matches_gnubgs(compared: tuple[str, Compared]) -> None:
    family, figures = compared
    assert _corr(figures.luck) >= (0.98 if family == "match" else 0.95)


def test_the_fixtures_hold_cube_errors_of_every_kind_and_dead_gammons() -> None:
    """What the files are for: wrong doubles and takes, passes, and a
    3-point match (a cube of 2 at 1-away: gammons dead)."""
    labels = set()
    for path in HERE.glob("*.json"):
        for game in json.loads(path.read_text())["games"]:
            for stats in game["stats"].values():
                labels |= {key.split(" (")[0] for key, value in stats.items()
                           if key.startswith(("cube: Wrong", "cube: Missed")) and value[0] > 0}
    assert {"cube: Wrong doubles below DP", "cube: Wrong takes"} <= labels
    assert "Doubles => 2" in (HERE / "match-3.mat").read_text()
