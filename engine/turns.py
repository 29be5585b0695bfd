"""Legal turns and steps: the move generator for both variants.

STUB: the signatures below are the contract the rest of the project codes
against; the implementation is being written.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.position import Dice, Position, Step


@dataclass(frozen=True, slots=True)
class Turn:
    """One complete legal turn: its steps and the position they reach (the
    same side still to move; :func:`end_turn` hands the dice over)."""

    steps: tuple[Step, ...]
    position: Position


def legal_turns(position: Position, dice: Dice) -> list[Turn]:
    """Every distinct position reachable by one complete legal turn, each
    with one step sequence that reaches it, in a stable sorted order.  When
    nothing can be played: a single ``Turn((), position)``."""
    raise NotImplementedError


def apply_step(position: Position, step: Step) -> Position:
    """Move one checker (hitting in backgammon); the mover stays to move.
    Raises :class:`IllegalStepError` for a step the checkers do not allow
    (no checker there, a blocked point); rule-level legality (maximum rule,
    head rule, block rule) is :class:`TurnInProgress`'s business."""
    raise NotImplementedError


def end_turn(position: Position) -> Position:
    """Hand the dice to the opponent."""
    raise NotImplementedError


@dataclass(frozen=True)
class TurnInProgress:
    """A turn being played step by step, as a tap interface does it."""

    start: Position
    dice: Dice
    played: tuple[Step, ...] = ()

    @property
    def position(self) -> Position:
        raise NotImplementedError

    @property
    def legal_steps(self) -> frozenset[Step]:
        """Exactly the steps that begin some maximal legal turn from here."""
        raise NotImplementedError

    @property
    def is_complete(self) -> bool:
        """The steps played form a complete legal turn (may be confirmed)."""
        raise NotImplementedError

    def play(self, step: Step) -> TurnInProgress:
        raise NotImplementedError

    def undo(self) -> TurnInProgress:
        raise NotImplementedError

    def finish(self) -> Position:
        """The position after the turn with the opponent to move."""
        raise NotImplementedError
