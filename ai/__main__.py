"""The computer player's command line: ``python -m ai choose`` and
``python -m ai analyse FILE``.

``choose [--level easy|medium|strong|best] [--seed N]`` reads the same JSON lines
as ``python -m engine legal`` (RULES.md, "Conformance format"; here
``first_turn`` may be left out and means false) and writes, per input line,
``{"position": board}`` - the position after the turn it chooses, one of the
positions ``engine legal`` lists, same layout (``board[1]`` still the
mover) - or ``{"error": "message"}``, and goes on.  Each answer is flushed
before the next line is read, so a driver can play whole games through one
running process.

``analyse FILE [--level strong|medium] [--annotate]`` reads a ``.mat``
file (our /export, or GNU Backgammon's ``export match mat``), analyses
every game (:mod:`ai.analysis`) and prints each player's figures and every
graded decision, one line each; with ``--annotate`` it prints the file
instead, the analysis added as comment lines GNU Backgammon reads
(:mod:`ai.annotate`).  A file that cannot be read or replayed: a message
on stderr and exit status 1.

>>> run_choose(['{"variant": "long", "dice": [6, 6]}'], print, Level.EASY)
{"error":"missing field 'board'"}
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ai import Level, Player, make_player
from engine import EngineError, Variant
from engine.conformance import parse_request, stream_lines


def _with_defaults(line: str | bytes) -> str | bytes:
    """``line`` with ``"first_turn": false`` added when it is left out (the
    rest of the checking is ``engine legal``'s)."""
    try:
        request = json.loads(line)
    except ValueError:
        return line
    if isinstance(request, dict) and "first_turn" not in request:
        request["first_turn"] = False
        return json.dumps(request)
    return line


class Chooser:
    """One player per variant, made on first use."""

    def __init__(self, level: Level, seed: int) -> None:
        self.level = level
        self.seed = seed
        self.players: dict[Variant, Player] = {}

    def answer(self, line: str | bytes) -> str:
        try:
            position, dice = parse_request(_with_defaults(line))
            player = self.players.get(position.variant)
            if player is None:
                player = make_player(position.variant, self.level, self.seed)
                self.players[position.variant] = player
            result: dict[str, Any] = {"position": player.choose(position, dice).position.to_gnubg()}
        except EngineError as error:
            result = {"error": str(error)}
        return json.dumps(result, separators=(",", ":"))


def run_choose(
    lines: Iterable[str | bytes], write: Callable[[str], object], level: Level, seed: int = 0
) -> None:
    chooser = Chooser(level, seed)
    for line in lines:
        write(chooser.answer(line))


def run_analyse(text: str, level: Level, annotate: bool) -> str:
    """What ``analyse`` prints for the ``.mat`` ``text``."""
    from ai.analysis import analyse
    from ai.annotate import comment_lines, export_with_analysis, totals_lines
    from ai.matgames import read_games

    replays = read_games(text)
    analysed = [(r.number, r.game, analyse(r.game, score=r.score, level=level)) for r in replays]
    names = replays[0].names if replays else ("White", "Black")
    if annotate:
        return export_with_analysis(text, analysed, names)
    lines: list[str] = []
    for index, (number, game, analysis) in enumerate(analysed):
        lines += [line[2:] for line in comment_lines(
            game, analysis, number=number, names=replays[index].names, header=index == 0)]
    lines += [line[2:] for line in totals_lines(analysed, names)]  # a match's totals
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ai", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    choose = commands.add_parser("choose", help="choose a turn for each JSON line on stdin")
    choose.add_argument("--level", choices=[level.value for level in Level], default="strong")
    choose.add_argument("--seed", type=int, default=0, help="for the easy level's noise")
    analyse = commands.add_parser("analyse", help="analyse the games of a .mat file")
    analyse.add_argument("file", help=".mat file (our /export or GNU Backgammon's)")
    analyse.add_argument("--level", choices=["strong", "medium"], default="strong")
    analyse.add_argument("--annotate", action="store_true",
                         help="print the file with the analysis as comment lines")
    args = parser.parse_args(argv)
    out = sys.stdout
    if args.command == "analyse":
        from ai.matgames import MatGameError

        try:
            with open(args.file, encoding="utf-8") as file:
                text = file.read()
            out.write(run_analyse(text, Level(args.level), args.annotate))
        except (OSError, UnicodeDecodeError, MatGameError, EngineError, ValueError) as error:
            print(f"python -m ai analyse: {error}", file=sys.stderr)
            return 1
        return 0

    def write(text: str) -> None:
        out.write(text + "\n")
        out.flush()

    run_choose(stream_lines(sys.stdin.fileno(), out.flush), write, Level(args.level), args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
