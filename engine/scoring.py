"""How a finished game is scored: the kind of win, the cube, and why it ended.

A :class:`GameResult` is what a game ends with.  Its points are the kind's
multiplier times the cube value::

    long nardy   OIN 1 (the loser bore off at least one), MARS 2 (none),
                 KOKS 3 (house rule: none borne off and no checker home)
    backgammon   SINGLE 1, GAMMON 2 (the loser bore off none),
                 BACKGAMMON 3 (none borne off and a checker still on the bar
                 or in the winner's home board)

The Jacoby rule (money play) counts gammons and backgammons as singles while
the cube is still at 1.  It applies to resignations too: a resigned gammon at
an unturned cube is worth what the finished game would have been worth.

Resignations offer a kind: in backgammon SINGLE, GAMMON or BACKGAMMON; in long
nardy OIN or MARS (KOKS too when the house rule is on).  The resigner chooses
what to concede, the opponent accepts or declines: we keep it the same as in
backgammon rather than guessing what the position "would" score.

>>> from engine.position import Position, Side, Variant
>>> result = GameResult.resigned(Variant.BACKGAMMON, Side.BLACK, ResultKind.GAMMON, cube=2)
>>> result.winner, result.points
(<Side.WHITE: 0>, 4)
>>> str(result)
'White wins a gammon, 4 points (resigned)'
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from engine.position import EngineError, Position, Side, Variant, is_whole


class ScoringError(EngineError):
    """A result that cannot happen: a kind from the other variant, a game
    that is not over, a cube value that is not a power of two."""


class ResultKind(enum.Enum):
    """How big a win is (the multiplier before the cube)."""

    OIN = "oin"
    MARS = "mars"
    KOKS = "koks"
    SINGLE = "single"
    GAMMON = "gammon"
    BACKGAMMON = "backgammon"

    @property
    def multiplier(self) -> int:
        return _MULTIPLIERS[self]

    @property
    def variant(self) -> Variant:
        return Variant.LONG if self in _LONG_KINDS else Variant.BACKGAMMON


_MULTIPLIERS = {
    ResultKind.OIN: 1,
    ResultKind.MARS: 2,
    ResultKind.KOKS: 3,
    ResultKind.SINGLE: 1,
    ResultKind.GAMMON: 2,
    ResultKind.BACKGAMMON: 3,
}
_LONG_KINDS = frozenset({ResultKind.OIN, ResultKind.MARS, ResultKind.KOKS})


class EndReason(enum.Enum):
    """Why a game ended."""

    BORNE_OFF = "borne_off"
    RESIGNED = "resigned"
    DOUBLE_PASSED = "double_passed"
    TIMEOUT = "timeout"


def single_kind(variant: Variant) -> ResultKind:
    """The smallest win of a variant: what a pass or a timeout scores.

    >>> single_kind(Variant.LONG)
    <ResultKind.OIN: 'oin'>
    """
    return ResultKind.OIN if variant is Variant.LONG else ResultKind.SINGLE


def resign_kinds(variant: Variant, *, koks: bool = False) -> tuple[ResultKind, ...]:
    """The kinds a player may offer when resigning, smallest first.

    >>> [kind.value for kind in resign_kinds(Variant.LONG)]
    ['oin', 'mars']
    """
    if variant is Variant.LONG:
        return (ResultKind.OIN, ResultKind.MARS, ResultKind.KOKS)[: 3 if koks else 2]
    return (ResultKind.SINGLE, ResultKind.GAMMON, ResultKind.BACKGAMMON)


def classify(position: Position, *, koks: bool = False) -> ResultKind:
    """The kind of win in a position where one side has borne off all 15.

    >>> rows = [[0] * 25, [0] * 25]
    >>> rows[1][23] = 15
    >>> classify(Position.from_rows(Variant.LONG, rows), koks=True)
    <ResultKind.KOKS: 'koks'>
    """
    winner = position.winner
    if winner is None:
        raise ScoringError("the game is not over: nobody has borne off 15 checkers")
    loser = winner.opponent
    board = position.board[loser]
    if position.borne_off(loser) > 0:
        return single_kind(position.variant)
    if position.variant is Variant.LONG:
        if koks and not any(board[:6]):
            return ResultKind.KOKS
        return ResultKind.MARS
    # the winner's home board is the loser's own points 19..24; index 24 is the bar
    if any(board[18:]):
        return ResultKind.BACKGAMMON
    return ResultKind.GAMMON


def is_cube_value(value: object) -> bool:
    """A power of two, 1 or more (not a bool)."""
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and value >= 1
        and value & (value - 1) == 0
    )


@dataclass(frozen=True, slots=True)
class GameResult:
    """The end of a game: who won, how, and for how many points.

    ``multiplier`` is normally ``kind.multiplier`` (pass 0 to take it from
    the kind); the Jacoby rule can make it 1 for a gammon or backgammon at an
    unturned cube.
    """

    winner: Side
    kind: ResultKind
    reason: EndReason
    cube: int = 1
    multiplier: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.winner, Side):
            raise ScoringError(f"bad winner {self.winner!r}")
        if not isinstance(self.kind, ResultKind) or not isinstance(self.reason, EndReason):
            raise ScoringError(f"bad kind or reason {self.kind!r}, {self.reason!r}")
        if not is_cube_value(self.cube):
            raise ScoringError(f"cube value must be a power of two, got {self.cube!r}")
        if not is_whole(self.multiplier):
            raise ScoringError(f"a multiplier is a whole number, got {self.multiplier!r}")
        if self.multiplier == 0:
            object.__setattr__(self, "multiplier", self.kind.multiplier)
        if self.multiplier not in {1, self.kind.multiplier}:
            raise ScoringError(f"a {self.kind.value} cannot count {self.multiplier}")
        if self.reason in {EndReason.DOUBLE_PASSED, EndReason.TIMEOUT} and (
            self.kind is not single_kind(self.kind.variant)
        ):
            raise ScoringError(f"a {self.reason.value} game scores a single win")

    @property
    def points(self) -> int:
        return self.multiplier * self.cube

    @property
    def variant(self) -> Variant:
        return self.kind.variant

    @classmethod
    def borne_off(
        cls, position: Position, *, cube: int = 1, koks: bool = False, jacoby: bool = False
    ) -> GameResult:
        """The result of a game won by bearing off all 15 checkers."""
        kind = classify(position, koks=koks)
        winner = position.winner
        assert winner is not None  # classify checked it
        return cls(winner, kind, EndReason.BORNE_OFF, cube, _multiplier(kind, cube, jacoby))

    @classmethod
    def resigned(
        cls,
        variant: Variant,
        resigner: Side,
        kind: ResultKind,
        *,
        cube: int = 1,
        koks: bool = False,
        jacoby: bool = False,
    ) -> GameResult:
        """The result of an accepted resignation of ``kind`` by ``resigner``."""
        if kind not in resign_kinds(variant, koks=koks):
            raise ScoringError(f"cannot resign a {kind.value} in {variant.value}")
        multiplier = _multiplier(kind, cube, jacoby)
        return cls(resigner.opponent, kind, EndReason.RESIGNED, cube, multiplier)

    @classmethod
    def double_passed(cls, doubler: Side, cube: int) -> GameResult:
        """The doubler wins the current (not yet doubled) cube value."""
        return cls(doubler, ResultKind.SINGLE, EndReason.DOUBLE_PASSED, cube)

    @classmethod
    def timeout(cls, variant: Variant, winner: Side, *, cube: int = 1) -> GameResult:
        """A win claimed because the opponent ran out of time: a single game."""
        return cls(winner, single_kind(variant), EndReason.TIMEOUT, cube)

    def __str__(self) -> str:
        article = "an" if self.kind.value[0] in "aeiou" else "a"
        plural = "" if self.points == 1 else "s"
        return (
            f"{self.winner.name.title()} wins {article} {self.kind.value}, "
            f"{self.points} point{plural} ({self.reason.value.replace('_', ' ')})"
        )


def _multiplier(kind: ResultKind, cube: int, jacoby: bool) -> int:
    if jacoby and cube == 1 and kind.variant is Variant.BACKGAMMON:
        return 1
    return kind.multiplier


__all__ = [
    "EndReason",
    "GameResult",
    "ResultKind",
    "ScoringError",
    "classify",
    "is_cube_value",
    "resign_kinds",
    "single_kind",
]
