"""Reading back what :mod:`engine.matfile` writes: the header tags and, per
game, who rolled which dice.  Enough to check the dice of an exported game
(:mod:`engine.dice`); moves are not replayed.

Header tags are comment lines before the ``N point match`` line, in gnubg's
form ``; [Key "Value"]`` (a ``"`` or ``\\`` inside the value is escaped with a
backslash).  A move row is ``NNN) <White's cell> <Black's cell>``: White's
cell starts right after ``) ``, and an empty White cell shows as a run of
spaces.  The cells are two or more spaces apart, but for a White cell of 27
characters or more: GNU Backgammon's own ``export match mat`` writes
``%-27s `` and so one space after it, where Black's cell starts with its
dice (``61:``) or a cube or result word.  Inside a cell, GNU Backgammon
writes two spaces between unplayed dice and a resignation (``42:  Wins 1
point``).

>>> text = '''; [Variation "Long Nardy"]
...
...  0 point match
...
...  Game 1
...  Ann : 0                        Bob : 0
...   1)                             31: 24/21 24/23
...   2) 64: 24/18 24/20             Doubles => 2
...   3)  Takes                      55:
... '''
>>> record = read_mat(text)
>>> record.tag("Variation"), record.match_length, record.games[0].number
('Long Nardy', 0, 1)
>>> record.games[0].rolls
(Cell(side=<Side.BLACK: 1>, dice=(3, 1)), Cell(side=<Side.WHITE: 0>, dice=(6, 4)), \
Cell(side=<Side.BLACK: 1>, dice=(5, 5)))
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.position import EngineError, Side, Variant


class MatReadError(EngineError):
    """Text that is not a ``.mat`` file as :mod:`engine.matfile` writes it."""


_TAG = re.compile(r';\s*\[(?P<key>[^"\]]+?)\s+"(?P<value>(?:[^"\\]|\\.)*)"\]\s*')
_MATCH = re.compile(r"\s*(?P<length>\d+) point match\s*")
_GAME = re.compile(r"\s*Game (?P<number>\d+)\s*")
_ROW = re.compile(r"\s*\d+\)(?P<rest>.*)")
_PLAYERS = re.compile(
    r"\s*(?P<white>[^:]*?)\s*:\s*(?P<ws>\d+)\s+(?P<black>[^:]*?)\s*:\s*(?P<bs>\d+)\s*"
)
_ROLL = re.compile(r"(?P<first>[1-6])(?P<second>[1-6]):(?:\s|$)")
_WINS_LINE = re.compile(r"(?P<indent> +)(?P<wins>Wins \d+ points?\b.*)")
"""A game's last line when its last row does not hold it: ``Wins N points``
under the winner's column (White's indented 6, Black's 34)."""
_RIGHT_CELL = re.compile(r" (?=[1-6][1-6]:(?:\s|$)|(?:Doubles|Beavers|Takes|Drops|Wins)\b)")
"""Where Black's cell starts one space after a long White cell of moves."""


def escape_tag_value(value: str) -> str:
    r"""A header tag value with ``\`` and ``"`` escaped.

    >>> escape_tag_value('say "hi" \\o/')
    'say \\"hi\\" \\\\o/'
    """
    return value.replace("\\", "\\\\").replace('"', '\\"')


def unescape_tag_value(value: str) -> str:
    r"""The inverse of :func:`escape_tag_value`.

    >>> unescape_tag_value(escape_tag_value('a "b" \\ c')) == 'a "b" \\ c'
    True
    """
    return re.sub(r"\\(.)", r"\1", value)


def format_tag(key: str, value: str) -> str:
    """One header line: ``; [Key "Value"]``.

    >>> format_tag("Dice seed", "ab")
    '; [Dice seed "ab"]'
    """
    return f'; [{key} "{escape_tag_value(value)}"]'


@dataclass(frozen=True, slots=True)
class Cell:
    """A roll in the file: who rolled (White's column or Black's) and the
    dice in the order written (``52`` is ``(5, 2)``)."""

    side: Side
    dice: tuple[int, int]


@dataclass(frozen=True, slots=True)
class MatGame:
    """One ``Game N`` section: its number and its rolls in the order played;
    also every non-empty cell's text with its column, in order (``52: 13/8
    13/11``, `` Doubles => 2``..., and the winner's ``Wins 1 point`` whether
    in a row or on the line after the rows), and the players' names and
    score from its first line."""

    number: int
    rolls: tuple[Cell, ...]
    cells: tuple[tuple[Side, str], ...] = ()
    names: tuple[str, str] = ("White", "Black")
    score: tuple[int, int] = (0, 0)


@dataclass(frozen=True, slots=True)
class MatRecord:
    """The header tags (in file order), the match length and the games."""

    tags: tuple[tuple[str, str], ...]
    match_length: int
    games: tuple[MatGame, ...]

    def tag(self, key: str) -> str | None:
        """The value of the first tag named ``key``, if any."""
        return next((value for name, value in self.tags if name == key), None)

    def tag_values(self, key: str) -> list[str]:
        """Every value of tags named ``key``, in file order."""
        return [value for name, value in self.tags if name == key]

    @property
    def variant(self) -> Variant:
        return Variant.LONG if self.tag("Variation") == "Long Nardy" else Variant.BACKGAMMON


def _cells(rest: str) -> tuple[str, str]:
    """White's and Black's cell of a row (``rest`` is what follows ``N)``)."""
    text = rest[1:] if rest.startswith(" ") else rest
    if text.startswith("  ") or not text.strip():
        return "", text.strip()  # White's cell is empty
    start = 1 if text.startswith(" ") else 0  # a cube cell starts with a space
    gap = text.find("  ", start)
    if _ROLL.match(text, start):  # moves: a long cell may be one space from Black's
        later = _RIGHT_CELL.search(text, start + 3, len(text) if gap < 0 else gap)
        gap = gap if later is None else later.start()
    if gap < 0:
        return text.strip(), ""
    return text[:gap].strip(), text[gap:].strip()


def _roll(cell: str, side: Side) -> Cell | None:
    found = _ROLL.match(cell)
    if found is None:
        return None
    return Cell(side, (int(found["first"]), int(found["second"])))


def read_mat(text: str) -> MatRecord:
    """The tags, match length and rolls of a ``.mat`` text; :class:`MatReadError`
    if it has no ``N point match`` line."""
    tags: list[tuple[str, str]] = []
    length: int | None = None
    games: list[MatGame] = []
    game: MatGame | None = None
    rolls: list[Cell] = []
    cells: list[tuple[Side, str]] = []
    for line in text.splitlines():
        if length is None:
            tag = _TAG.fullmatch(line)
            if tag is not None:
                tags.append((tag["key"].strip(), unescape_tag_value(tag["value"])))
            elif (match := _MATCH.fullmatch(line)) is not None:
                length = int(match["length"])
            continue
        if (title := _GAME.fullmatch(line)) is not None:
            if game is not None:
                games.append(_section(game, rolls, cells))
            game, rolls, cells = MatGame(int(title["number"]), ()), [], []
        elif game is not None and (row := _ROW.fullmatch(line)) is not None:
            for side, cell in zip(Side, _cells(row["rest"]), strict=True):
                roll = _roll(cell, side)
                if roll is not None:
                    rolls.append(roll)
                if cell:
                    cells.append((side, cell))
        elif game is not None and (wins := _WINS_LINE.fullmatch(line)) is not None:
            cells.append((Side.WHITE if len(wins["indent"]) < 20 else Side.BLACK,
                          wins["wins"].strip()))
        elif game is not None and not cells and (players := _PLAYERS.fullmatch(line)):
            game = MatGame(game.number, (), (), (players["white"], players["black"]),
                           (int(players["ws"]), int(players["bs"])))
    if length is None:
        raise MatReadError("not a .mat file: no 'N point match' line")
    if game is not None:
        games.append(_section(game, rolls, cells))
    return MatRecord(tuple(tags), length, tuple(games))


def _section(game: MatGame, rolls: list[Cell], cells: list[tuple[Side, str]]) -> MatGame:
    return MatGame(game.number, tuple(rolls), tuple(cells), game.names, game.score)
