"""Make the fixtures of tests/ai/test_against_gnubg.py (run once; the
outputs are committed):

    .venv/bin/python tests/ai/gnubg_analysed/make.py

Plays a few sessions between our computer players (the cube decided at the
match score, with one player's cube actions sometimes turned round so that
there are cube errors to find), writes each as a ``.mat`` file
(engine/matfile.py), has GNU Backgammon itself (PyPI ``gnubg``, a test
extra; in a subprocess: its state is global) analyse it at 0-ply
(``set threads 1``, ``import mat``, ``analyse match``, ``export match
text``) and keeps of its text export what the test compares, as
``<name>.json``: per game and player the statistics GNU Backgammon prints
(moves, errors of the chequer play, the cube and overall, luck, Snowie's
error rate, the cube errors split) and every move's error (the starred
line's figure).  The exports themselves (about 40 kB a game, boards
drawn) are not kept.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from ai import Level, make_player  # noqa: E402
from ai.arena import play_recorded  # noqa: E402
from ai.backgammon import GnubgPlayer  # noqa: E402
from ai.cube import CubeState  # noqa: E402
from engine import GameOptions, Position  # noqa: E402
from engine.match import Match  # noqa: E402
from engine.matfile import format_match  # noqa: E402

NAMES = ("Ann", "Bob")
SESSIONS = {
    # name: (options, White's level, Black's level, seed, games for money)
    "match-3": (GameOptions.backgammon(match_length=3), Level.EASY, Level.MEDIUM, 30, 0),
    "match-5": (GameOptions.backgammon(match_length=5), Level.EASY, Level.MEDIUM, 29, 0),
    "match-7": (GameOptions.backgammon(match_length=7), Level.EASY, Level.MEDIUM, 26, 0),
    "money": (GameOptions.backgammon(), Level.EASY, Level.MEDIUM, 3, 6),
}
WILD = 0.15
"""How often White's cube action is turned round."""


class Wild(GnubgPlayer):
    """A player whose cube actions are now and then the wrong way round."""

    def __init__(self, level: Level, seed: int) -> None:
        super().__init__(level, seed)
        self.wild = random.Random(seed)

    def should_double(self, position: Position, cube: CubeState) -> bool:
        right = super().should_double(position, cube)
        if cube.may_double(position.turn) and self.wild.random() < WILD:
            return not right
        return right

    def should_take(self, position: Position, cube: CubeState) -> bool:
        right = super().should_take(position, cube)
        return not right if self.wild.random() < WILD else right


def play(options: GameOptions, white: Level, black: Level, seed: int, games: int) -> Match:
    rng = random.Random(seed)
    players = [Wild(white, seed), make_player(options.variant, black, seed + 1)]
    match = Match.new(options)
    while not match.is_over and (options.match_length or len(match.games) < games):
        match = match.next_game()
        assert match.current is not None
        game = match.current
        game = game.roll(rng) if game.to_act is None else game  # the opening roll
        match = match.update(play_recorded(players, rng, start=game, score=match.score))
    return match


GNUBG = """
import sys, gnubg
src, out, jacoby = sys.argv[1], sys.argv[2], sys.argv[3]
for command in ["set threads 1", "set display off", "set jacoby " + jacoby,
                "set analysis chequerplay evaluation plies 0",
                "set analysis cubedecision evaluation plies 0",
                "import mat " + src, "analyse match", "export match text " + out]:
    gnubg.command(command)
"""

_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
_MOVE = re.compile(r"^Move number (\d+):\s+(.+?) to play (\d)(\d)")
_STARRED = re.compile(r"^\*\s+\d+\. .*Eq\.:\s*[-+][\d.]+(?: \((-[\d.]+)\))?")


def _column(text: str) -> list[float]:
    """The numbers of one player's column: the figure, then (for the cube
    errors) the EMG lost in brackets; percentages left out."""
    return [float(n) for n in _NUMBER.findall(re.sub(r"[-+]?[\d.]+%", "", text))]


def _stats(part: str, names: tuple[str, str]) -> dict[str, dict[str, list[float]]]:
    section, stats = "", {name: {} for name in names}
    columns = (0, 0)
    for line in part.splitlines():
        if line.startswith("Player "):
            columns = (line.index(names[0], 6), line.index(names[1], line.index(names[0], 6)
                                                            + len(names[0])))
            continue
        if line.endswith("statistics") and not line.startswith(" "):
            section = line.split()[0].lower()
            continue
        if not section or not line.strip() or columns == (0, 0):
            continue
        label = f"{section}: {line[:columns[0]].strip()}"
        if label.startswith(f"{section}: Output"):
            continue
        stats[names[0]][label] = _column(line[columns[0]:columns[1]])
        stats[names[1]][label] = _column(line[columns[1]:])
    return stats


def condense(texts: list[str], names: tuple[str, str]) -> list[dict[str, object]]:
    """Per game (one text file each): the statistics per player (name:
    label: numbers) and every move's error."""
    games = []
    for text in texts:
        game_part, _, rest = text.partition("Game statistics for game ")
        number = int(rest.split()[0])
        game_stats = re.split(r"^(?:Match|Session) statistics", rest, flags=re.M)[0]
        stats = _stats("Game statistics for game " + game_stats, names)
        moves, current = [], None
        for line in game_part.splitlines():
            head = _MOVE.match(line)
            if head:
                current = [int(head[1]), head[2], f"{head[3]}{head[4]}"]
                continue
            starred = _STARRED.match(line)
            if starred and current is not None:
                moves.append([*current, float(starred[1] or 0.0)])
                current = None
        games.append({"game": number, "stats": stats, "moves": moves})
    return games


def main() -> None:
    for name, (options, white, black, seed, games) in SESSIONS.items():
        match = play(options, white, black, seed, games)
        mat = format_match(match, names=NAMES)
        (HERE / f"{name}.mat").write_text(mat)
        with tempfile.TemporaryDirectory() as tmp:
            src, out = Path(tmp) / f"{name}.mat", Path(tmp) / f"{name}.txt"
            src.write_text(mat)
            subprocess.run([sys.executable, "-c", GNUBG, str(src), str(out),
                            "on" if options.jacoby else "off"],
                           check=True, capture_output=True, timeout=1800)
            texts = [path.read_text() for path in sorted(Path(tmp).glob(f"{name}*.txt"))]
        games = condense(texts, NAMES)
        (HERE / f"{name}.json").write_text(  # a game a line: small, and diffs by game
            '{"gnubg": "1.1.0a16, 0-ply, set threads 1", "games": [\n'
            + ",\n".join(json.dumps(game) for game in games) + "\n]}\n")
        print(name, len(match.games), "games", match.score)


if __name__ == "__main__":
    main()
