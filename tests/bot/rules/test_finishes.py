"""Whole-turn buttons after some steps (issue 24: a turn costs as few group
messages as it can): once a step is played, every distinct way to finish the
turn is offered as one button when there are 2..WHOLE_TURNS of them.  Pure
rules: the finishes are the engine's own (each is a complete legal turn from
the turn's start, and they reach exactly the results of the roll that the
steps played so far still allow), and a finish's tap plays only its rest."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest

from bot.rules.play import RUNS, WHOLE_TURNS, _whole_turn, offered_turns
from engine.choices import turn_choices
from engine.game import Game, GameOptions, Phase
from tests.engine.gameplay import play_random


def _mid_turns(options: GameOptions, seed: int) -> list[Game]:
    """Games of random play caught after a step, with steps left to play."""
    games = play_random(Game.new(options), random.Random(seed))
    return [g for g in games if g.phase is Phase.MOVE and g.turn is not None
            and g.turn.played and not g.turn.is_complete]


def _reachable(game: Game) -> set[object]:
    """Every result of the turn from here, by brute force over the engine's steps."""
    turn = game.turn
    assert turn is not None
    if turn.is_complete:
        return {turn.position}
    found: set[object] = set()
    for step in game.legal_steps:
        found |= _reachable(game.play_step(step))
    return found


@pytest.mark.parametrize("options", [GameOptions.long(), GameOptions.backgammon()],
                         ids=["long", "backgammon"])
def test_the_finishes_offered_after_a_step_are_the_engines(options: GameOptions) -> None:
    offered_somewhere = 0
    for seed in range(6):
        for game in _mid_turns(options, seed)[:40]:
            turn = game.turn
            assert turn is not None
            results = _reachable(game)
            offered = offered_turns(game)
            if not 2 <= len(results) <= WHOLE_TURNS:
                assert offered == ()
                continue
            offered_somewhere += 1
            assert {c.position for c in offered} == results
            starts = {c.position for c in turn_choices(turn.start, turn.dice)}
            for index, choice in enumerate(offered):
                assert choice.position in starts  # a result of the whole roll
                assert choice.steps[:len(turn.played)] == tuple(turn.played)
                done = _whole_turn(game, index)  # the tap plays the rest only
                assert done.turn is not None and done.turn.is_complete
                assert done.turn.position == choice.position
    assert offered_somewhere > 10  # the walk above really met such turns


def _turn_starts(options: GameOptions, seed: int) -> list[Game]:
    """Games of random play caught at the start of a roll's turn."""
    games = play_random(Game.new(options), random.Random(seed))
    return [g for g in games if g.phase is Phase.MOVE and g.turn is not None
            and not g.turn.played]


@pytest.mark.parametrize("options", [GameOptions.long(), GameOptions.backgammon()],
                         ids=["long", "backgammon"])
def test_a_roll_with_many_results_offers_its_runs(options: GameOptions) -> None:
    """At a turn's start: every result when there are 2..WHOLE_TURNS, else the
    first RUNS turns (in turn_choices order) that carry one checker by every
    die; each button's tap plays exactly its turn."""
    runs_offered = 0
    for seed in range(6):
        for game in _turn_starts(options, seed)[:90]:  # rolls of > WHOLE_TURNS results are rarer
            turn = game.turn
            assert turn is not None
            choices = turn_choices(turn.start, turn.dice)
            offered = offered_turns(game)
            if len(choices) <= WHOLE_TURNS:
                assert offered == (choices if len(choices) >= 2 else ())
                continue
            runs = [c for c in choices if len(c.steps) >= 2 and all(
                b.source == a.target for a, b in pairwise(c.steps))]
            assert offered == tuple(runs[:RUNS])
            runs_offered += bool(offered)
            for index, choice in enumerate(offered):
                done = _whole_turn(game, index)
                assert done.turn is not None and done.turn.is_complete
                assert done.turn.position == choice.position
    assert runs_offered > 10  # the walk above really met such rolls
