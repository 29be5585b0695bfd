"""What the table does by itself: rolling when rolling is the only choice,
and playing a turn that has only one result (issue 14: fewer taps).

The dice come from the caller (:func:`bot.rules.play.roll_table`, the
one place the bot rolls: the match's fair dice).  :func:`advance` is the
one auto-advance: every rule that changes a game
(a tap, the start of a game, a computer player's turn) calls it last, so a
player only ever sees the table where someone has a choice.

>>> import random
>>> from engine.game import Game, GameOptions
>>> dice = random.Random(3)
>>> game = advance(Game.new(GameOptions.long()), lambda g: g.roll(dice))
>>> game.phase.value, game.turn is not None and not game.turn.played
('move', True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.store.records import TableOptions
from engine.game import Action, Game

MAX_AUTOMATIC = 400
"""More automatic actions than a game can have in a row: a guard against a loop,
never reached (every action rolls or confirms a turn, and a game has a few
hundred at most)."""


def advance(game: Game, roll: Callable[[Game], Game], *, autoplay: bool = True) -> Game:
    """``game`` after everything nobody chooses: rolls when rolling is the only
    choice (the opening, long nardy always, backgammon when no double can be
    offered; ``roll(game)`` rolls) and, with ``autoplay``, forced turns (one distinct result, or
    nothing to play) and the rest of a begun turn when only one result is
    left (the turn then waits at Confirm), until a player has a choice or
    the game is over.

    Without ``autoplay`` (for purists) the player still plays a forced turn
    by hand; only the roll, which is no choice at all, is done for them.
    """
    for _ in range(MAX_AUTOMATIC):
        if game.is_over:
            return game
        action = game.only_action
        if action is Action.ROLL:
            game = roll(game)
        elif action is Action.MOVE and autoplay:
            game = game.play_forced()
        elif autoplay and game.turn is not None and game.turn.played and game.turn.forced_steps:
            for step in game.turn.forced_steps:
                game = game.play_step(step)
            return game  # Confirm is the player's (the undo window)
        else:
            return game
    return game  # pragma: no cover - see MAX_AUTOMATIC


def with_chat_autoplay(args: Sequence[str], options: TableOptions, default: bool) -> TableOptions:
    """``/new`` options with the chat's autoplay (``/settings``) unless ``autoplay=`` was given.

    >>> with_chat_autoplay(["long"], TableOptions(), False).autoplay
    False
    >>> with_chat_autoplay(["Autoplay=on"], TableOptions(), False).autoplay
    True
    """
    if any(arg.strip().lower().startswith("autoplay=") for arg in args):
        return options
    return options.model_copy(update={"autoplay": default})


def undo(game: Game, *, autoplay: bool = True) -> Game:
    """Undo the player's last step, and with ``autoplay`` the steps :func:`advance`
    played after it: back to the last state the player chose in (Undo is one tap)."""
    game = game.undo_step()
    while autoplay and game.turn is not None and game.turn.played and game.turn.forced_steps:
        game = game.undo_step()
    return game
