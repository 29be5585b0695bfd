"""Whole turns as choices: the distinct results of a roll, each with one
canonical text, for an interface that offers a turn as a single button.

:func:`turn_choices` lists one :class:`TurnChoice` per distinct position a
complete legal turn reaches (exactly the positions of
:func:`~engine.turns.legal_turns`).  A choice's :attr:`~TurnChoice.steps`
play it through :class:`~engine.turns.TurnInProgress` step by step, so a
whole-turn button goes the same legal path as taps do; its
:meth:`~TurnChoice.notation` is the standard text (``24/18 13/10``,
``8/5(2)``, ``bar/22``, ``6/off``, hits ``*``) in either side's numbering.
:func:`forced_turn` says when a roll leaves no choice at all.

>>> from engine import Variant
>>> start = Position.initial(Variant.BACKGAMMON)
>>> choices = turn_choices(start, Dice(6, 5))
>>> [choice.notation() for choice in choices][:3]
['24/13', '24/18 13/8', '24/18 8/3']
>>> choices[0].notation(numbering=Side.BLACK)  # the same turn on a board numbered for Black
'1/12'
>>> print(forced_turn(start, Dice(6, 5)))
None
>>> forced_turn(Position.initial(Variant.LONG), Dice(6, 5))
(Step(source=24, target=18, die=6), Step(source=18, target=13, die=5))
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.notation import format_turn
from engine.position import Dice, IllegalStepError, Position, Side, Step, check_type
from engine.turns import Turn, TurnInProgress, legal_turns


def text_order(steps: tuple[Step, ...]) -> tuple[Step, ...]:
    """``steps`` in the order the canonical text is written from: the
    rearmost checkers first (highest source, then highest target).

    Any legal turn's steps can be played in this order as far as the
    checkers go (a checker moving on has left a higher point first, the bar
    comes first, steps into home precede bearing off), and a turn's final
    position fixes its steps up to the order (each die moves a checker its
    own distance; bear-offs differ only in the die, which the text does not
    show), so equal positions get equal texts.
    """
    return tuple(sorted(steps, key=lambda step: (-step.source, -step.target)))


@dataclass(frozen=True, slots=True)
class TurnChoice:
    """One distinct result of a roll: where the turn starts and a legal turn
    reaching it."""

    start: Position
    turn: Turn

    def __post_init__(self) -> None:
        check_type(self.start, Position, "the start", IllegalStepError)
        check_type(self.turn, Turn, "the turn", IllegalStepError)

    @property
    def steps(self) -> tuple[Step, ...]:
        """Steps reaching :attr:`position`, in an order
        :meth:`TurnInProgress.play` accepts one by one."""
        return self.turn.steps

    @property
    def position(self) -> Position:
        """The position after the turn (the mover still to move, as
        :attr:`TurnInProgress.position` shows a complete turn)."""
        return self.turn.position

    def notation(self, numbering: Side | None = None, *, bar: str = "bar", off: str = "off"
                 ) -> str:
        """The turn's canonical text, points numbered for the mover or for
        ``numbering``, ``bar`` and ``off`` the words for those places;
        ``""`` when nothing can be played."""
        return format_turn(self.start, text_order(self.steps), numbering=numbering,
                           bar=bar, off=off)


def _order(turn: Turn) -> list[tuple[int, int]]:
    """The points of ``text_order(turn.steps)``, negated: a sort key."""
    return sorted([(-step.source, -step.target) for step in turn.steps])


def turn_choices(position: Position, dice: Dice) -> tuple[TurnChoice, ...]:
    """One choice per distinct position a complete legal turn reaches, the
    rearmost checkers' moves first (the order of their texts' points); a
    single choice without steps when nothing can be played.

    The order is the same for the same input, across runs (no two choices
    share a text), so an index into it names a choice in a button's data.
    """
    turns = sorted(legal_turns(position, dice), key=_order)
    return tuple(TurnChoice(position, turn) for turn in turns)


def forced_turn(position: Position, dice: Dice) -> tuple[Step, ...] | None:
    """The steps of the only result of the roll (``()`` when nothing can be
    played), or ``None`` when the player has a choice."""
    return TurnInProgress(position, dice).forced_steps

