"""Games and matches as Jellyfish ``.mat`` text, the file GNU Backgammon
(``import mat``) and most backgammon programs read.

The layout is the one gnubg writes itself (``export match mat``)::

     7 point match

     Game 1
     Alice : 0                      Bob : 0
      1)                             31: 8/5 6/5
      2) 52: 13/8 13/11               Doubles => 2
      3)  Takes                      64: 24/18 13/9
     ...
                                      Wins 2 points

White is the left column, Black the right.  Each cell is one action of
that side: ``52: 13/8 13/11`` (dice, then each step in the order played,
points from the mover's side, the bar as 25, off as 0, ``*`` on hits), a
roll that cannot be played is just ``52:`` (so are dice rolled and not played
before a resignation or a timeout), and the cube actions are
`` Doubles => 4``, `` Takes`` and `` Drops``.  A beaver is written as gnubg
records it, a redouble by the doubled player while the double waits
(`` Doubles => 4``), followed by the doubler's `` Takes`` or `` Drops``:
gnubg's importer then knows the cube's value (a bare `` Beavers => 4``
with no take leaves it at 2 until the next roll, so a resignation right
after it scored 6 instead of 8).  A finished game ends with ``Wins N
point(s)`` in the winner's column (gnubg reads it as a resignation when the
moves do not end the game, which gives the right score for resignations and
timeouts); after a drop in the left column it stands on the drop's own line,
as gnubg writes it (alone on the next line gnubg read it as one more double
and stopped importing).  Resignation offers that were declined leave no
trace, as in gnubg.  Money play is a ``0 point match``.

Money play files start with ``; [Jacoby "On"]`` or ``; [Jacoby "Off"]`` and
the same for ``Beaver`` (the tags eXtremeGammon writes).  GNU Backgammon's
``import mat`` recognises these tags but takes the Jacoby rule from its own
setting, so set it (``set jacoby off``) before importing a game played
without Jacoby: a gammon at an unturned cube scores 2 only then.

Long nardy uses the same layout with a ``; [Variation "Long Nardy"]`` header
line; GNU Backgammon cannot read it, it is for people and our own tools.

>>> from engine.game import GameOptions
>>> print(format_game(Game.new(GameOptions.backgammon(match_length=5))), end="")
 5 point match
<BLANKLINE>
 Game 1
 White : 0                      Black : 0
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.game import Action, Game
from engine.match import Match, Standing, starter_of
from engine.notation import format_turn
from engine.position import EngineError, Position, Side, Variant, check_type
from engine.turns import apply_step, end_turn

LEFT_WIDTH = 27
"""gnubg writes ``%3d) %-27s `` for the left cell."""
RIGHT_COLUMN = 34
"""gnubg indents a right-column ``Wins`` line by 34 spaces."""
RIGHT_CELL = len("  1) ") + LEFT_WIDTH + 1
"""Where a right-column cell starts (it has a space of its own before a cube
action, so its ``Wins`` stands at :data:`RIGHT_COLUMN` too)."""


class MatFileError(EngineError):
    """Something that cannot be written as a ``.mat`` file."""


@dataclass
class _Row:
    left: str | None = None
    right: str | None = None


def _cells(game: Game, *, ended: bool = False) -> list[tuple[Side, str]]:
    """Each action of the game as (side, cell text), in order; ``ended``: the
    game stopped without a result (cancelled), its last dice are final."""
    cells: list[tuple[Side, str]] = []
    start = starter_of(game)
    position = Position.initial(game.variant, Side.WHITE if start is None else start)
    cube = 1
    roll = ""
    unplayed: tuple[Side, str] | None = None
    for event in game.events:
        side, action = event.side, event.action
        if action is Action.ROLL:
            assert event.dice is not None
            roll = f"{event.dice.first}{event.dice.second}:"
            unplayed = (side, roll)
        elif action is Action.MOVE:
            unplayed = None
            moves = format_turn(position, event.steps, compact=False, numbers=True)
            cells.append((side, f"{roll} {moves}".rstrip()))
            for step in event.steps:
                position = apply_step(position, step)
            if position.winner is None:
                position = end_turn(position)
        elif action is Action.DOUBLE:
            cells.append((side, f" Doubles => {cube * 2}"))
        elif action is Action.TAKE:
            cube *= 2
            cells.append((side, " Takes"))
        elif action is Action.BEAVER:
            # the doubler's take or drop follows as its own cell
            cells.append((side, f" Doubles => {cube * 4}"))
            cube *= 2
        elif action is Action.PASS:
            cells.append((side, " Drops"))
    if unplayed is not None and (game.result is not None or ended):
        # dice rolled and not played before a resignation or a timeout, as gnubg
        # writes them (it needs a roll to read a resignation before any move)
        cells.append(unplayed)
    return cells  # a turn still being played is not written: it may change


def _rows(cells: Sequence[tuple[Side, str]]) -> list[_Row]:
    rows: list[_Row] = []
    for side, text in cells:
        if side is Side.WHITE or not rows or rows[-1].right is not None:
            rows.append(_Row())
        if side is Side.WHITE:
            rows[-1].left = text
        else:
            rows[-1].right = text
    return rows


def turn_rows(game: Game) -> tuple[int, ...]:
    """The number of the row (`` 12) ...``, from 1) holding each turn of
    ``game`` in the lines :func:`game_lines` writes, in the order played:
    to point at a turn, as analysis comments do.

    >>> import random
    >>> from engine.choices import turn_choices
    >>> from engine.game import GameOptions
    >>> game, rng = Game.new(GameOptions.long(), starter=Side.BLACK), random.Random(1)
    >>> for _ in range(3):  # Black, White, Black: Black's column is the right one
    ...     game = game.roll(rng)
    ...     for step in turn_choices(game.turn_start, game.dice)[0].steps:
    ...         game = game.play_step(step)
    ...     game = game.confirm()
    >>> turn_rows(game)
    (1, 2, 2)
    """
    check_type(game, Game, "a game", MatFileError)
    rows = 0
    right_free = False
    numbers: list[int] = []
    moves = sum(event.action is Action.MOVE for event in game.events)
    for side, text in _cells(game):
        if side is Side.WHITE or not right_free:
            rows += 1
        right_free = side is Side.WHITE
        if text[:1].isdigit() and len(numbers) < moves:
            numbers.append(rows)
    return tuple(numbers)


NAME_BYTES = 31
"""The longest name GNU Backgammon keeps, in UTF-8 bytes (its buffer of 32
with the NUL; found by importing longer names into gnubg 1.1.0a16).  It cuts
a longer one at that byte, mid-character for a non-ASCII name, and its Python
module then fails to decode the match: names are cut for the file first."""
NAME_COLUMN = 31
"""The width of the left player's ``Name : score`` (gnubg's own layout)."""


def _check_name(name: str) -> str:
    """The name as the file holds it: cut to :data:`NAME_BYTES` on a
    character boundary.

    >>> _check_name("Ж" * 20), len(_check_name("Ж" * 20).encode())
    ('ЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖ', 30)
    """
    check_type(name, str, "a player name", MatFileError)
    if not name.strip() or any(char in name for char in ":\n\r"):
        raise MatFileError(f"a player name for a .mat file has no colon or newline: {name!r}")
    cut = name.strip().encode()[:NAME_BYTES].decode(errors="ignore")
    return cut.rstrip()


def player_line(names: tuple[str, str], score: tuple[int, int]) -> str:
    """The players and the score line of a game; the two always at least two
    spaces apart (a long left name ran into the right one, and readers split
    the line there).

    >>> player_line(("Alice", "Bob"), (0, 2))
    ' Alice : 0                      Bob : 2'
    >>> player_line(("A" * 40, "Bob"), (10, 2))
    ' AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA : 10  Bob : 2'
    """
    white, black = (_check_name(name) for name in names)
    left = f"{white} : {score[0]}"
    return f" {left:<{max(NAME_COLUMN, len(left) + 2)}}{black} : {score[1]}"


def game_lines(
    game: Game,
    *,
    number: int = 1,
    names: tuple[str, str] = ("White", "Black"),
    score: tuple[int, int] = (0, 0),
    wins_match: bool = False,
    ended: bool = False,
) -> list[str]:
    """The lines of one game: its title, the players with the score before
    it, the numbered moves and the result.  ``ended``: the game was stopped
    without a result (cancelled): dice rolled and not played are written as
    after a resignation, so the file holds every throw (the fair dice's check)."""
    check_type(game, Game, "a game", MatFileError)
    lines = [f" Game {number}", player_line(names, score)]
    rows = _rows(_cells(game, ended=ended))
    wins = ""
    if game.result is not None:
        points = game.result.points
        wins = f"Wins {points} point{'s' if points > 1 else ''}"
        if wins_match:
            wins += " and the match"
        if rows and rows[-1].left == " Drops" and rows[-1].right is None:
            # gnubg: `` Drops`` and the doubler's ``Wins`` on one line
            rows[-1].right, wins = " " * (RIGHT_COLUMN - RIGHT_CELL) + wins, ""
    for index, row in enumerate(rows, start=1):
        left = row.left or ""
        gap = " " if len(left) < LEFT_WIDTH else "  "  # keep the columns apart
        text = f"{index:3d}) {left:<{LEFT_WIDTH}}{gap}{row.right or ''}"
        # a row without a right cell keeps gnubg's padding ("%3d) %-27s "): gnubg
        # finds the right cell by a double space after column 15, and on a shorter
        # line without a colon (`` Takes``, `` Drops``) it read the previous
        # line's right cell again (a second double, and the import stopped)
        lines.append(text if row.right is None else text.rstrip())
    if wins:
        indent = 6 if game.result is not None and game.result.winner is Side.WHITE else RIGHT_COLUMN
        lines.append(" " * indent + wins)
    return lines


def header_lines(game: Game) -> list[str]:
    """The lines a ``.mat`` file starts with for ``game``'s rules: the tags
    (long nardy's variation, no cube, money play's Jacoby and beaver rules),
    then `` N point match`` and a blank line; :func:`game_lines` follow.

    >>> from engine.game import GameOptions
    >>> header_lines(Game.new(GameOptions.long(match_length=3)))
    ['; [Variation "Long Nardy"]', '', ' 3 point match', '']
    """
    check_type(game, Game, "a game", MatFileError)
    options = game.options
    lines = []
    if options.variant is Variant.LONG:
        lines.append('; [Variation "Long Nardy"]')
    elif not options.cube:
        lines.append('; [CubeLimit "1"]')
    elif not options.match_length:
        lines.append(f'; [Jacoby "{"On" if options.jacoby else "Off"}"]')
        lines.append(f'; [Beaver "{"On" if options.beavers else "Off"}"]')
    if lines:
        lines.append("")
    return [*lines, f" {options.match_length} point match", ""]


def format_game(game: Game, *, names: tuple[str, str] = ("White", "Black")) -> str:
    """A ``.mat`` file holding one game (finished or not)."""
    check_type(game, Game, "a game", MatFileError)
    return "\n".join([*header_lines(game), *game_lines(game, names=names)]) + "\n"


def format_match(match: Match, *, names: tuple[str, str] = ("White", "Black"),
                 ended: bool = False) -> str:
    """A ``.mat`` file of a whole match (its games so far); ``ended``: its last
    game was stopped without a result (see :func:`game_lines`)."""
    check_type(match, Match, "a match", MatFileError)
    if not match.games:
        raise MatFileError("the match has no games yet")
    lines = header_lines(match.games[0])
    before = Standing(match.length)
    for number, game in enumerate(match.games, start=1):
        after = before.counting(game)
        decided = after.is_over and not before.is_over
        lines += game_lines(
            game, number=number, names=names, score=before.score, wins_match=decided,
            ended=ended and number == len(match.games),
        )
        before = after
        lines.append("")
    return "\n".join(lines)
