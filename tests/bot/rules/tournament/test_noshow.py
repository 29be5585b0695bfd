"""Whether a player showed up: a choice of theirs, not the turns the bot
played for them because they were forced."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules.tournament.noshow import chose
from engine.game import Game, GameOptions, Phase
from engine.position import Side
from engine.scoring import ResultKind


def played(seed: int, backgammon: bool, chooser: Side | None, moves: int
           ) -> tuple[Game, dict[Side, bool]]:
    """A game of ``moves`` actions at most: forced turns played by themselves
    (as autoplay does), the others by a random pick of ``chooser``'s (any
    side's when None; the other side resigns at its first real choice, so it
    never chooses a turn).  Returns the game and, as the driver saw it, which
    side made a choice."""
    rng = random.Random(seed)
    game = Game.new(GameOptions.backgammon(cube=False) if backgammon else GameOptions.long())
    made = {Side.WHITE: False, Side.BLACK: False}
    for _ in range(moves):
        if game.is_over:
            break
        if game.phase in (Phase.OPENING, Phase.ROLL):
            game = game.roll(rng)
        elif game.phase is Phase.MOVE:
            assert game.turn is not None and game.to_act is not None
            if game.turn.forced_steps is not None:
                game = game.play_forced()
                continue
            side = game.to_act
            if chooser is not None and side is not chooser:
                return game.offer_resignation(side, ResultKind.SINGLE if backgammon
                                              else ResultKind.OIN), {**made, side: True}
            made[side] = True
            while game.phase is Phase.MOVE and game.turn is not None \
                    and game.turn.forced_steps is None:
                game = game.play_step(rng.choice(sorted(game.legal_steps,
                                                        key=lambda s: (s.source, s.target, s.die))))
            if game.phase is Phase.MOVE:
                game = game.play_forced()
        else:
            break
    return game, made


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.booleans(), st.sampled_from([None, Side.WHITE, Side.BLACK]),
       st.integers(1, 120))
def test_a_choice_is_told_from_a_forced_turn(seed: int, backgammon: bool,
                                              chooser: Side | None, moves: int) -> None:
    game, made = played(seed, backgammon, chooser, moves)
    assert {side: chose(game, side) for side in Side} == made


def test_a_player_whose_only_turns_were_forced_did_not_show() -> None:
    """Found by search: a long nardy game where Black's only turn so far was
    forced (the bot played it) while White chose."""
    for seed in range(2000):
        game, made = played(seed, False, Side.WHITE, 6)
        black_moved = any(e.side is Side.BLACK and e.action.value == "move" for e in game.events)
        if made[Side.WHITE] and not made[Side.BLACK] and black_moved:
            assert chose(game, Side.WHITE) and not chose(game, Side.BLACK)
            return
    raise AssertionError("no such game in 2000 seeds")
