"""What the table does by itself: rolling when rolling is the only choice
(or the only sensible one, :func:`double_offered`), and playing a turn that
has only one result (issue 14: fewer taps).

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

from bot.vocab.records import TableOptions
from engine.game import Action, Game, Phase
from engine.position import Position, Variant

MAX_AUTOMATIC = 400
"""More automatic actions than a game can have in a row: a guard against a loop,
never reached (every action rolls or confirms a turn, and a game has a few
hundred at most)."""


def clearly_behind(position: Position) -> bool:
    """Whether the backgammon side on roll is the underdog both in winning
    chances and in expected points by GNU Backgammon's 0-ply estimate
    (:func:`ai.cube.double_hopeless`): offering a double is then a mistake in
    money play.  The nets load on first use (about 40 MB, once per process).

    >>> from engine.position import Position, Variant
    >>> clearly_behind(Position.initial(Variant.BACKGAMMON))  # even, and on roll
    False
    """
    from ai.backgammon import on_roll_probs
    from ai.cube import double_hopeless

    return double_hopeless(on_roll_probs(position))


def double_offered(game: Game, score: tuple[int, int] = (0, 0), *,
                   judge: bool = True) -> bool:
    """Whether the side on roll gets **Double** beside **Roll** now: the
    engine allows a double (:meth:`engine.game.Game.can_double`: a cube, not
    the Crawford game, not the opponent's cube, below its limit), the cube
    is not dead (in a match, a player whose ``score`` plus the cube's value
    already reaches the match length wins the match with any win: a double
    only gives the opponent the cube) and, with ``judge`` in money play,
    the side is not :func:`clearly_behind` (:func:`bot.rules.play.judges_doubles`:
    autoplay on and no stake).  Otherwise the roll is no real
    choice and :func:`advance` makes it.

    >>> from engine.game import GameOptions as Options
    >>> from engine.position import Side
    >>> match = Game.new(Options.backgammon(match_length=5), starter=Side.WHITE)
    >>> double_offered(match, (3, 0)), double_offered(match, (4, 0))
    (True, False)
    """
    side = game.to_act
    if game.phase is not Phase.ROLL or side is None or not game.can_double(side):
        return False
    cube, length = game.cube, game.options.match_length
    assert cube is not None  # can_double
    if length and score[side] + cube.value >= length:
        return False
    return not (judge and not length and game.variant is Variant.BACKGAMMON
                and clearly_behind(game.position))


def advance(game: Game, roll: Callable[[Game], Game], *, autoplay: bool = True,
            score: tuple[int, int] = (0, 0), judge: bool | None = None) -> Game:
    """``game`` after everything nobody chooses: rolls when rolling is the only
    choice (the opening, long nardy always, backgammon when no double is
    offered, :func:`double_offered` with the match ``score``; ``roll(game)``
    rolls) and, with ``autoplay``, forced turns (one distinct result, or
    nothing to play) and the rest of a begun turn when only one result is
    left (the turn then waits at Confirm), until a player has a choice or
    the game is over.

    Without ``autoplay`` (for purists) the player still plays a forced turn
    by hand, and is offered every double the rules allow; only the roll,
    which is then no choice at all, is done for them.
    """
    for _ in range(MAX_AUTOMATIC):
        if game.is_over:
            return game
        action = game.only_action
        if action is None and game.phase is Phase.ROLL \
                and not double_offered(game, score,
                                       judge=autoplay if judge is None else judge):
            action = Action.ROLL
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
