"""Helpers for tests that play games: scripted dice and random play."""

from __future__ import annotations

import random

from engine.game import Action, Game, Phase
from engine.scoring import resign_kinds


class Scripted:
    """A RandomSource that returns the given dice, in order."""

    def __init__(self, *values: int) -> None:
        self.values = list(values)

    def randint(self, a: int, b: int) -> int:
        value = self.values.pop(0)
        assert a <= value <= b
        return value


def play_random(game: Game, rng: random.Random, *, stop: int = 10_000) -> list[Game]:
    """Play random legal steps until the game ends (or ``stop`` actions);
    every intermediate game is returned."""
    seen = [game]
    while not game.is_over and len(seen) < stop:
        if game.phase in {Phase.OPENING, Phase.ROLL}:
            game = game.roll(rng)
        elif game.turn is not None and game.turn.is_complete:
            game = game.confirm()
        else:
            game = game.play_step(rng.choice(sorted(game.legal_steps, key=repr)))
        seen.append(game)
    return seen


def play_every_action(game: Game, rng: random.Random, *, stop: int = 400) -> list[Game]:
    """Like :func:`play_random`, but with every kind of action a player can
    take mixed in: doubles and their answers (beavers too), resignation
    offers in any phase that allows them (mid-turn ones included) and their
    answers, undone steps, turns taken back, and now and then a timeout.
    Every intermediate game is returned."""
    seen = [game]
    while not game.is_over and len(seen) < stop:
        side = game.to_act
        assert side is not None or game.phase is Phase.OPENING
        choices = []
        if game.phase in {Phase.OPENING, Phase.ROLL}:
            choices.append(lambda g: g.roll(rng))
        if game.phase is Phase.ROLL and side is not None and game.can_double(side):
            choices.append(lambda g: g.double(g.to_act))
        if game.phase is Phase.ROLL and game.events and game.events[-1].action is Action.MOVE:
            choices.append(lambda g: g.take_back_turn())
        if game.phase is Phase.MOVE:
            assert game.turn is not None
            if game.turn.is_complete:
                choices += [lambda g: g.confirm()] * 3
            else:
                choices += [lambda g: g.play_step(rng.choice(sorted(g.legal_steps, key=repr)))] * 3
            if game.turn.played:
                choices.append(lambda g: g.undo_step())
        if game.phase in {Phase.ROLL, Phase.MOVE} and side is not None:
            choices.append(lambda g: g.offer_resignation(
                rng.choice([g.to_act, g.to_act.opponent]),
                rng.choice(resign_kinds(g.variant, koks=g.options.koks))))
        if game.phase is Phase.RESIGNATION:
            choices += [lambda g: g.decline_resignation(g.to_act)] * 4
            choices.append(lambda g: g.accept_resignation(g.to_act))
        if game.phase is Phase.DOUBLE:
            assert game.cube is not None
            choices += [lambda g: g.take(g.to_act)] * 4
            choices.append(lambda g: g.pass_(g.to_act))
            if game.cube.why_not_beaver(side) is None:
                choices.append(lambda g: g.beaver(g.to_act))
        if side is not None and game.phase is not Phase.RESIGNATION and rng.random() < 0.01:
            choices = [lambda g: g.claim_timeout(g.to_act.opponent)]
        game = rng.choice(choices)(game)
        seen.append(game)
    return seen
