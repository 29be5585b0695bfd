"""Did a player show up in a game?  Whether they ever chose anything.

The bot plays by itself what is no choice: rolls, and turns with one
possible result (bot/rules/autoplay.py).  So a player who never came may
still have "moved" in the record.  A player showed if some action of theirs
was a choice: a turn that had another possible result, a double, a take, a
pass, a resignation and its answer.  :func:`chose` replays the game with the
engine's public rules, the dice as they fell, to tell forced turns from
chosen ones.

>>> import random
>>> from engine.game import Game, GameOptions
>>> from engine.position import Side
>>> dice = random.Random(5)
>>> game = Game.new(GameOptions.long()).roll(dice)
>>> chose(game, Side.WHITE), chose(game, Side.BLACK)
(False, False)
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.game import Action, Event, Game, Phase
from engine.position import Side


class _Dice:
    """A random source that gives the dice as they fell, one die a call."""

    def __init__(self, faces: Iterator[int]) -> None:
        self.faces = faces

    def randint(self, a: int, b: int) -> int:
        face = next(self.faces, None)
        if face is None:  # pragma: no cover - see chose
            raise ValueError("the record's dice ran out")
        return face


def chose(game: Game, side: Side) -> bool:
    """Whether ``side`` made a choice in ``game`` (see the module doc).  A
    record the replay cannot follow counts every turn of ``side`` as chosen."""
    try:
        return any(event.side is side for event in _choices(game))
    except ValueError:  # pragma: no cover - a record the engine replays differently
        # (engine errors are ValueErrors); a bug of ours is raised, not taken for a choice
        return any(e.side is side and e.action is not Action.ROLL for e in game.events)


def _choices(game: Game) -> Iterator[Event]:
    """The events of ``game`` that were a choice of their side."""
    replay = Game.new(game.options, crawford=game.crawford, starter=game.starter)
    if replay.phase is Phase.OPENING and game.opening is not None:
        replay = replay.roll(_Dice(face for roll in game.opening.rolls for face in roll))
    while len(replay.events) < len(game.events):
        event = game.events[len(replay.events)]
        if event.action is Action.MOVE:
            if replay.turn is None:  # pragma: no cover - see chose
                raise ValueError("a move where the replay has no turn")
            if replay.turn.forced_steps is None:
                yield event
            for step in event.steps:
                replay = replay.play_step(step)
            replay = replay.confirm()
            continue
        if event.action is not Action.ROLL:
            yield event  # a double, take, pass, beaver, resignation or its answer, a claim
        replay = _apply(replay, event)
    in_turn = game.turn is not None and bool(game.turn.played)
    if not in_turn and replay.position != game.position:  # pragma: no cover - see chose
        raise ValueError("the replay did not follow the record")


def _apply(game: Game, event: Event) -> Game:
    side, action = event.side, event.action
    if action is Action.ROLL:
        assert event.dice is not None
        return game.roll(_Dice(iter((event.dice.first, event.dice.second))))
    if action is Action.DOUBLE:
        return game.double(side)
    if action is Action.TAKE:
        return game.take(side)
    if action is Action.BEAVER:
        return game.beaver(side)
    if action is Action.PASS:
        return game.pass_(side)
    if action is Action.RESIGN:
        assert event.kind is not None
        return game.offer_resignation(side, event.kind)
    if action is Action.ACCEPT:
        return game.accept_resignation(side)
    if action is Action.DECLINE:
        return game.decline_resignation(side)
    return game.claim_timeout(side)
