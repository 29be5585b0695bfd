"""Positions, sides, variants, dice and steps: the value objects of the engine.

A :class:`Position` is an immutable, hashable snapshot of the checkers of both
sides and whose turn it is.  Each side counts the points from its own side:
it moves from 24 down to 1 and bears off past point 1.  ``board[side]`` is a
25-tuple where index ``i`` holds that side's checkers on its own point
``i + 1`` and index 24 is its bar (always 0 in long nardy).  Checkers that are
not on the board are borne off.

>>> pos = Position.initial(Variant.BACKGAMMON)
>>> pos.pips(Side.WHITE), pos.turn
(167, <Side.WHITE: 0>)
>>> Position.initial(Variant.LONG).checkers(Side.BLACK, 24)
15
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeGuard

CHECKERS = 15
POINTS = 24
BAR = 25
"""Point number of the bar in steps and notation (``bar/22``)."""
OFF = 0
"""Point number of "borne off" in steps and notation (``6/off``)."""
HEAD = 24
"""The long nardy head: each side's own point 24."""


class EngineError(ValueError):
    """Base class of every error the engine raises for bad input."""


class InvalidPositionError(EngineError):
    """A board that cannot occur: wrong counts, shared points, bad layout."""


class InvalidDiceError(EngineError):
    """Dice outside 1..6, or not two of them."""


class IllegalStepError(EngineError):
    """A step or turn that the rules do not allow in this position."""


def is_whole(value: object) -> TypeGuard[int]:
    """An ``int`` that is not a ``bool`` (``True`` is no die, ``3.0`` no count)."""
    return isinstance(value, int) and not isinstance(value, bool)


def check_type(value: object, kind: type, what: str, error: type[EngineError]) -> None:
    """Raise ``error`` unless ``value`` is a ``kind`` (public entry points
    check their arguments, so a wrong type is an :class:`EngineError`, never
    a ``TypeError`` or ``AttributeError`` from deep inside)."""
    if kind is int:
        if not is_whole(value):
            raise error(f"{what} must be a whole number, got {value!r}")
    elif kind is bool:
        if not isinstance(value, bool):
            raise error(f"{what} must be true or false, got {value!r}")
    elif not isinstance(value, kind):
        raise error(f"{what} must be a {kind.__name__}, got {value!r}")


class Variant(enum.Enum):
    """The two games the engine knows."""

    LONG = "long"
    BACKGAMMON = "backgammon"


class Side(enum.IntEnum):
    """A player.  White moves first in long nardy's notation; in both games
    the opening roll decides who actually starts."""

    WHITE = 0
    BLACK = 1

    @property
    def opponent(self) -> Side:
        return Side(1 - self)


def opponent_point(variant: Variant, point: int) -> int:
    """The number the opponent uses for the mover's ``point`` (1..24).

    >>> opponent_point(Variant.LONG, 24), opponent_point(Variant.LONG, 1)
    (12, 13)
    >>> opponent_point(Variant.BACKGAMMON, 24)
    1
    """
    if not 1 <= point <= POINTS:
        raise ValueError(f"point must be 1..24, got {point}")
    if variant is Variant.LONG:
        return (point + 11) % POINTS + 1
    return POINTS + 1 - point


class RandomSource(Protocol):
    """What the engine needs from a random generator (``random.Random``,
    ``secrets.SystemRandom``)."""

    def randint(self, a: int, b: int) -> int: ...


@dataclass(frozen=True, slots=True)
class Dice:
    """The two dice of one roll.  Doubles are played four times.

    >>> Dice(6, 6).steps
    (6, 6, 6, 6)
    >>> Dice(2, 5).steps
    (5, 2)
    """

    first: int
    second: int

    def __post_init__(self) -> None:
        for die in (self.first, self.second):
            if not is_whole(die) or not 1 <= die <= 6:
                raise InvalidDiceError(f"a die must be an integer 1..6, got {die!r}")

    @classmethod
    def roll(cls, rng: RandomSource) -> Dice:
        return cls(rng.randint(1, 6), rng.randint(1, 6))

    @property
    def is_double(self) -> bool:
        return self.first == self.second

    @property
    def steps(self) -> tuple[int, ...]:
        """The die values to play, larger first (four for a double)."""
        if self.is_double:
            return (self.first,) * 4
        return (max(self.first, self.second), min(self.first, self.second))

    def __str__(self) -> str:
        return f"{self.first}-{self.second}"


@dataclass(frozen=True, slots=True)
class Step:
    """One checker moved by one die: ``source`` is the mover's own point
    (1..24, or :data:`BAR`), ``target`` its own point (1..24, or :data:`OFF`).
    The die is kept because bearing off with a higher die (``3/off`` played
    with a 5) uses a different die than the distance shows."""

    source: int
    target: int
    die: int

    def __post_init__(self) -> None:
        if not is_whole(self.die) or not 1 <= self.die <= 6:
            raise InvalidDiceError(f"a die must be an integer 1..6, got {self.die!r}")
        for point in (self.source, self.target):
            check_type(point, int, "a step's point", IllegalStepError)
        if not 1 <= self.source <= BAR or not OFF <= self.target <= POINTS:
            raise IllegalStepError(f"no such step {self.source}/{self.target}")
        if self.target != OFF and self.source - self.target != self.die:
            raise IllegalStepError(
                f"step {self.source}/{self.target} does not match die {self.die}"
            )
        if self.target == OFF and self.source == BAR:
            raise IllegalStepError("a checker cannot bear off from the bar")
        if self.target == OFF and self.source > self.die:
            # bearing off needs a die at least the point's number
            raise IllegalStepError(f"cannot bear off from {self.source} with a {self.die}")


def check_board(
    variant: Variant,
    board: Sequence[Sequence[object]],
    names: tuple[str, str] = ("White", "Black"),
) -> None:
    """Raise :class:`InvalidPositionError` unless ``board`` (indexed by side,
    25 counts each, in each side's own numbering) can occur; messages call
    the sides ``names`` (``python -m engine legal`` uses the input's words)."""
    if len(board) != 2:
        raise InvalidPositionError("a board has two sides")
    for name, row in zip(names, board, strict=True):
        if len(row) != POINTS + 1:
            raise InvalidPositionError(f"{name} needs 25 counts, got {len(row)}")
        counts = [count for count in row if is_whole(count) and count >= 0]
        if len(counts) != len(row):
            bad = next(c for c in row if not (is_whole(c) and c >= 0))
            raise InvalidPositionError(f"{name}: bad checker count {bad!r}")
        total = sum(counts)
        if total > CHECKERS:
            raise InvalidPositionError(f"{name} has {total} checkers, more than 15")
        if variant is Variant.LONG and row[POINTS]:
            raise InvalidPositionError(f"{name}: long nardy has no bar")
    first, second = board
    for point in range(1, POINTS + 1):
        if first[point - 1] and second[opponent_point(variant, point) - 1]:
            raise InvalidPositionError(f"both sides on {names[0]}'s point {point}")


def _rows(rows: object) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Two sequences of counts as a tuple of two tuples (counts unchecked)."""
    if not isinstance(rows, Sequence) or isinstance(rows, str) or len(rows) != 2:
        raise InvalidPositionError("a board has two sides")
    if not all(isinstance(row, Sequence) and not isinstance(row, str) for row in rows):
        raise InvalidPositionError("each side of a board is a sequence of 25 counts")
    return tuple(rows[0]), tuple(rows[1])


def _empty() -> tuple[int, ...]:
    return (0,) * (POINTS + 1)


@dataclass(frozen=True, slots=True)
class Position:
    """Checkers of both sides and the side to move.

    ``first_turn`` tells that the side to move has not yet made a turn in this
    game; only long nardy's head rule looks at it.  Positions made by the
    engine set it themselves.
    """

    variant: Variant
    board: tuple[tuple[int, ...], tuple[int, ...]]
    turn: Side = Side.WHITE
    first_turn: bool = field(default=False)

    def __post_init__(self) -> None:
        if not isinstance(self.variant, Variant):
            raise InvalidPositionError(f"unknown variant {self.variant!r}")
        check_type(self.turn, Side, "turn", InvalidPositionError)
        check_type(self.first_turn, bool, "first_turn", InvalidPositionError)
        if not isinstance(self.board, tuple) or not all(isinstance(r, tuple) for r in self.board):
            raise InvalidPositionError("a board is a tuple of two tuples of counts")
        check_board(self.variant, self.board)

    @classmethod
    def from_rows(
        cls,
        variant: Variant,
        rows: Sequence[Sequence[int]],
        turn: Side = Side.WHITE,
        first_turn: bool | None = None,
    ) -> Position:
        """Build from two sequences of 25 counts, indexed by side.

        ``first_turn`` defaults to what the checkers show: in long nardy a
        side's first turn is exactly when all 15 of its checkers are still on
        the head (no roll can leave a first turn unplayed, and a checker that
        left the head never returns).
        """
        board = _rows(rows)
        if first_turn is None:
            first_turn = variant is Variant.LONG and board[turn][HEAD - 1] == CHECKERS
        return cls(variant, board, turn, first_turn)

    @classmethod
    def initial(cls, variant: Variant, turn: Side = Side.WHITE) -> Position:
        row = list(_empty())
        if variant is Variant.LONG:
            row[HEAD - 1] = CHECKERS
        else:
            for point, count in ((24, 2), (13, 5), (8, 3), (6, 5)):
                row[point - 1] = count
        return cls.from_rows(variant, (row, row), turn)

    @classmethod
    def from_gnubg(
        cls,
        variant: Variant,
        board: Sequence[Sequence[int]],
        turn: Side = Side.WHITE,
        first_turn: bool | None = None,
    ) -> Position:
        """From GNU Backgammon's layout: ``board[0]`` the opponent, ``board[1]``
        the side to move (``turn``)."""
        board = _rows(board)
        check_type(turn, Side, "turn", InvalidPositionError)
        rows = [board[0], board[0]]
        rows[turn] = board[1]
        rows[turn.opponent] = board[0]
        return cls.from_rows(variant, rows, turn, first_turn)

    def to_gnubg(self) -> list[list[int]]:
        """GNU Backgammon's layout: ``[opponent, mover]``."""
        return [list(self.board[self.turn.opponent]), list(self.board[self.turn])]

    def checkers(self, side: Side, point: int) -> int:
        """Checkers of ``side`` on its own ``point`` (1..24, or :data:`BAR`)."""
        if not 1 <= point <= BAR:
            raise ValueError(f"point must be 1..25, got {point}")
        return self.board[side][point - 1]

    def borne_off(self, side: Side) -> int:
        return CHECKERS - sum(self.board[side])

    def pips(self, side: Side) -> int:
        """Pips ``side`` still has to travel (a checker on the bar counts 25)."""
        return sum(count * (index + 1) for index, count in enumerate(self.board[side]))

    @property
    def winner(self) -> Side | None:
        """The side that has borne off all 15 checkers, if any."""
        for side in Side:
            if self.borne_off(side) == CHECKERS:
                return side
        return None

    def with_turn(self, turn: Side) -> Position:
        """The same checkers with ``turn`` to move (first turn re-derived)."""
        return Position.from_rows(self.variant, self.board, turn)
