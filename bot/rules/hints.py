"""Hints: the best turns for the roll being played (issue 17), in practice games only.

Pure, like :mod:`bot.rules.play`.  A game has hints when it is not staked
and either the computer plays in it (unless created with ``hints=off``) or it
was created with ``hints=on`` (both players saw "hints on" in the lobby or the
invitation before joining).  A stake and hints never go together: ``/new``
refuses ``hints=on`` with ``stake=``, the chat's ``/stake`` does not apply to
such a game, and a staked game has no hints whatever its options say.

The 💡 Hint button (:func:`can_hint`) is the mover's while a roll with at
least two distinct results is being played; :func:`ask` checks a tap and
names what the brains must rank (:class:`HintQuestion`: the turn's start and
dice, so a hint is the same for every step of one turn); the ranking itself
runs off the event loop (:func:`bot.rules.computer.best_turns`).

>>> from bot.vocab.records import TableOptions
>>> hints_allowed(TableOptions(computer="easy")), hints_allowed(TableOptions())
(True, False)
>>> hints_allowed(TableOptions(hints=True))
True
>>> hints_allowed(TableOptions(hints=True, stake_per_point=5))  # never with a stake
False
>>> hints_allowed(TableOptions(computer="strong", hints=False))
False
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.rules.matchstate import MatchState, table_of
from bot.rules.seats import seat_of
from bot.vocab.i18n import N_
from bot.vocab.records import GameRecord, Status, TableOptions
from bot.vocab.refusals import NOT_PLAYING, NOT_YOUR_TURN, STALE, Refusal
from engine.choices import forced_turn
from engine.game import Phase
from engine.position import Dice, Position, Step, Variant

TOP = 3
"""Turns a hint shows, best first."""
HINTS_OFF = N_("This game has no hints: they are for games against the bot and for games "
               "created with hints=on, never for staked ones.")
GAME_OVER = N_("This game is over.")


def hints_allowed(options: TableOptions) -> bool:
    """Whether a game with ``options`` has hints (see the module doc)."""
    if options.stake_per_point:
        return False
    if options.hints is not None:
        return options.hints
    return options.computer is not None


def can_hint(record: GameRecord, table: MatchState) -> bool:
    """Whether the board shows the 💡 Hint button: the game has hints and its
    mover plays a roll with at least two distinct results (from the turn's
    start: steps already played may be undone)."""
    game = table.game
    turn = game.turn
    return (record.status is Status.ACTIVE and hints_allowed(record.options)
            and game.phase is Phase.MOVE and turn is not None
            and forced_turn(turn.start, turn.dice) is None)


@dataclass(frozen=True, slots=True)
class HintQuestion:
    """What to rank: a roll from the start of a turn (picklable, it crosses
    to the computer's worker process; hashable, it keys the cache of answers)."""

    variant: Variant
    koks: bool
    position: Position
    dice: Dice


@dataclass(frozen=True, slots=True)
class Ranked:
    """One of the best turns: its steps and its equity for the mover."""

    steps: tuple[Step, ...]
    equity: float


def ask(record: GameRecord, user_id: int) -> HintQuestion:
    """The hint a tap on 💡 Hint asks for, else :class:`Refusal`: only the
    player to move may ask (on the shared board and on their own), only in a
    game with hints, only while a roll with a choice is played."""
    if record.status is not Status.ACTIVE:
        raise Refusal(GAME_OVER)
    side = seat_of(record, user_id)
    if side is None:
        raise Refusal(NOT_PLAYING)
    table = table_of(record)
    game = table.game
    if game.to_act is not side:
        raise Refusal(NOT_YOUR_TURN)
    if not hints_allowed(record.options):
        raise Refusal(HINTS_OFF)
    if not can_hint(record, table):
        raise Refusal(STALE)  # no choice to hint at: the button is not on this board
    turn = game.turn
    assert turn is not None
    return HintQuestion(game.variant, game.options.koks, turn.start, turn.dice)
