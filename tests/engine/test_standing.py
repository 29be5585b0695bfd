"""The match rules in one place (engine/match.py ``Standing``): the score after
a game, the end of a match, the Crawford game and who starts the next game.

Hand-checked cases first (the rules written out), then properties over
random series of results that tie ``Standing`` to ``Match``, which folds its
games into one."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.game import Game, GameOptions, Phase
from engine.match import Match, MatchError, Standing
from engine.position import Side, Variant
from engine.scoring import ResultKind
from tests.engine.gameplay import Scripted

W, B = Side.WHITE, Side.BLACK
BG = Variant.BACKGAMMON


def _won(game: Game, winner: Side, kind: ResultKind) -> Game:
    if game.phase is Phase.OPENING:
        game = game.roll(Scripted(3, 1))
    return game.offer_resignation(winner.opponent, kind).accept_resignation(winner)


# ---------------------------------------------------------------- hand-checked


@pytest.mark.parametrize(("length", "score", "done", "crawford"), [
    (1, (0, 0), False, False),  # a 1-point match: both at N - 1 = 0, no Crawford game
    (2, (0, 0), False, False),
    (2, (1, 0), False, True),   # first to N - 1 = 1: the Crawford game
    (2, (1, 1), True, False),   # after it: post-Crawford, doubling again
    (3, (0, 2), False, True),
    (3, (1, 1), False, False),
    (3, (2, 1), True, False),   # post-Crawford: still N - 1, never a second one
    (5, (4, 4), True, False),
    (7, (6, 0), False, True),
    (0, (6, 0), False, False),  # money play has no Crawford game
])
def test_the_crawford_game(length: int, score: tuple[int, int], done: bool,
                           crawford: bool) -> None:
    standing = Standing(length, score, done)
    assert standing.next_is_crawford(BG) is crawford
    assert not standing.next_is_crawford(Variant.LONG)  # long nardy: no cube rule
    last = Game.new(GameOptions.backgammon(match_length=length))
    after, game = standing.next_game(last)
    assert game.crawford is crawford and after.crawford_done is (done or crawford)
    assert game.cube is not None and game.cube.crawford is crawford
    assert after.score == score and game.phase is Phase.OPENING


@pytest.mark.parametrize(("length", "score", "winner", "over", "settled"), [
    (0, (0, 0), None, False, True),   # money play: each game settled by itself, never over
    (0, (9, 3), None, False, True),
    (1, (0, 0), None, False, False),
    (1, (0, 2), B, True, True),       # a gammon in a 1-point match: 2 points, over
    (3, (2, 2), None, False, False),
    (3, (3, 2), W, True, True),
    (5, (1, 8), B, True, True),
])
def test_the_end_of_a_match(length: int, score: tuple[int, int], winner: Side | None,
                            over: bool, settled: bool) -> None:
    standing = Standing(length, score)
    assert (standing.winner, standing.is_over, standing.is_settled) == (winner, over, settled)


def test_the_score_after_a_game() -> None:
    game = Game.new(GameOptions.backgammon(match_length=7))
    standing = Standing(7, (1, 2))
    assert standing.counting(game) == standing  # not finished: nothing scores
    cubed = game.roll(Scripted(3, 1))
    assert standing.counting(_won(cubed, B, ResultKind.GAMMON)).score == (1, 4)
    assert standing.counting(_won(game, W, ResultKind.BACKGAMMON)).score == (4, 2)


def test_long_nardy_the_second_player_starts_and_it_alternates() -> None:
    options = GameOptions.long(match_length=5)
    first = _won(Game.new(options).roll(Scripted(2, 5)), W, ResultKind.OIN)  # Black opened
    standing = Standing(5).counting(first)
    standing, second = standing.next_game(first)
    assert (second.starter, second.opening, second.phase, second.to_act) == (W, None,
                                                                             Phase.ROLL, W)
    standing = standing.counting(_won(second, B, ResultKind.MARS))
    standing, third = standing.next_game(_won(second, B, ResultKind.MARS))
    assert third.starter is B and standing.score == (1, 2)
    # backgammon: every game opens with the opening roll
    bg = Game.new(GameOptions.backgammon(match_length=5)).roll(Scripted(5, 2))
    assert Standing.next_starter(bg) is None
    assert Standing(5).next_game(_won(bg, W, ResultKind.SINGLE))[1].phase is Phase.OPENING


def test_no_game_after_the_end_nor_of_another_match() -> None:
    last = Game.new(GameOptions.backgammon(match_length=3))
    with pytest.raises(MatchError, match="over"):
        Standing(3, (3, 0)).next_game(last)
    with pytest.raises(MatchError, match="not of this match"):
        Standing(5).next_game(last)


@pytest.mark.parametrize("bad", [
    {"length": -1}, {"length": True}, {"score": (1,)}, {"score": (1, -2)}, {"score": [0, 0]},
    {"crawford_done": 1},
])
def test_a_standing_is_checked(bad: dict[str, object]) -> None:
    with pytest.raises(MatchError):
        Standing(**bad)  # type: ignore[arg-type]


# ---------------------------------------------------------------- properties

_KINDS = {Variant.LONG: (ResultKind.OIN, ResultKind.MARS),
          Variant.BACKGAMMON: (ResultKind.SINGLE, ResultKind.GAMMON, ResultKind.BACKGAMMON)}


@given(variant=st.sampled_from([Variant.LONG, BG]), length=st.integers(0, 7),
       results=st.lists(st.tuples(st.sampled_from([W, B]), st.integers(0, 2)), max_size=12))
def test_a_match_is_its_standing(variant: Variant, length: int,
                                 results: list[tuple[Side, int]]) -> None:
    """Playing a match game by game through ``Match`` and through a bare
    ``Standing`` (what the bot stores) gives the same games and the same
    score; the rules hold at every step."""
    options = (GameOptions.long(match_length=length) if variant is Variant.LONG
               else GameOptions.backgammon(match_length=length, cube=True))
    match = Match.new(options)
    standing = Standing(length)
    last: Game | None = None
    crawfords = 0
    for winner, level in results:
        if match.is_over:
            assert standing.is_over and standing.is_settled
            with pytest.raises(MatchError):
                standing.next_game(match.games[-1])
            break
        match = match.next_game()
        game = match.current
        assert game is not None
        if last is not None:
            before = standing
            standing, mine = standing.next_game(last)
            assert mine == game
            # Crawford: backgammon, N > 1, first game after a player reaches N - 1
            assert game.crawford is (variant is BG and length > 1 and not before.crawford_done
                                     and length - 1 in before.score)
            if variant is Variant.LONG:  # the second player of the last game starts
                first = last.starter if last.opening is None else last.opening.starter
                assert first is not None and game.starter is first.opponent
        crawfords += game.crawford
        kinds = _KINDS[variant]
        last = _won(game, winner, kinds[level % len(kinds)])
        match = match.update(last)
        points = last.result.points  # type: ignore[union-attr]
        expected = list(standing.score)
        expected[winner] += points
        standing = standing.counting(last)
        assert standing.score == tuple(expected) == match.score == match.standing.score
        assert standing == match.standing
        assert standing.winner == match.winner
        assert standing.is_over is (bool(length) and max(standing.score) >= length)
        assert standing.is_settled is (not length or standing.is_over)
    assert crawfords <= 1
