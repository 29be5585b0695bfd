"""Matches: score, the Crawford rule, who starts the next game, the end, and
the stored form."""

from __future__ import annotations

import copy
import json
import random

import pytest

from engine.cube import CubeError
from engine.game import Game, GameDataError, GameOptions, Phase
from engine.match import Match, MatchError, starter_of
from engine.position import Side, Step
from engine.scoring import ResultKind
from tests.engine.gameplay import Scripted, play_random

W, B = Side.WHITE, Side.BLACK


def win(match: Match, winner: Side, kind: ResultKind, opening: tuple[int, int] = (3, 1)) -> Match:
    """Start the next game and let ``winner`` win it by a resignation."""
    match = match.next_game()
    game = match.current
    assert game is not None
    if game.phase is Phase.OPENING:
        game = game.roll(Scripted(*opening))
    game = game.offer_resignation(winner.opponent, kind).accept_resignation(winner)
    return match.update(game)


def test_crawford_then_post_crawford() -> None:
    match = win(Match.new(GameOptions.backgammon(match_length=3)), W, ResultKind.GAMMON)
    assert match.score == (2, 0) and not match.is_over
    match = match.next_game()
    crawford = match.current
    assert crawford is not None and crawford.crawford
    game = crawford.roll(Scripted(1, 3))  # Black opens
    assert game.to_act is B
    game = game.offer_resignation(W, ResultKind.SINGLE).accept_resignation(B)
    match = match.update(game)
    assert match.score == (2, 1)
    match = match.next_game()
    post = match.current
    assert post is not None and not post.crawford
    assert post.cube is not None and not post.cube.crawford
    game = post.roll(Scripted(4, 2))
    game = game.offer_resignation(W, ResultKind.GAMMON).accept_resignation(B)
    match = match.update(game)
    assert (match.score, match.winner, match.is_over, match.current) == ((2, 3), B, True, None)
    with pytest.raises(MatchError, match="over"):
        match.next_game()


def test_no_doubling_in_the_crawford_game() -> None:
    match = win(Match.new(GameOptions.backgammon(match_length=2)), B, ResultKind.SINGLE)
    match = match.next_game()
    game = match.current
    assert game is not None and game.crawford
    game = game.roll(Scripted(3, 1))
    game = game.play_step(Step(8, 5, 3)).play_step(Step(6, 5, 1)).confirm()
    with pytest.raises(CubeError, match="Crawford"):
        game.double(B)


def test_only_one_crawford_game() -> None:
    match = Match.new(GameOptions.backgammon(match_length=5))
    match = win(match, W, ResultKind.GAMMON)  # 2-0
    match = win(match, W, ResultKind.GAMMON)  # 4-0: next is Crawford
    match = win(match, B, ResultKind.SINGLE)
    assert [game.crawford for game in match.games] == [False, False, True]
    match = win(match, B, ResultKind.BACKGAMMON)  # 4-4
    assert not match.games[-1].crawford
    match = match.next_game()
    assert match.current is not None and not match.current.crawford


def test_long_nardy_the_second_player_starts_the_next_game() -> None:
    match = Match.new(GameOptions.long(match_length=7))
    match = win(match, W, ResultKind.MARS, opening=(2, 5))  # Black started
    assert starter_of(match.games[0]) is B
    match = match.next_game()
    second = match.current
    assert second is not None
    assert (second.phase, second.to_act, second.opening, second.starter) == (
        Phase.ROLL,
        W,
        None,
        W,
    )
    match = match.update(second.offer_resignation(B, ResultKind.OIN).accept_resignation(W))
    match = match.next_game()
    assert match.current is not None and match.current.starter is B
    assert match.score == (3, 0)


def test_long_nardy_match_winner() -> None:
    match = Match.new(GameOptions.long(match_length=3))
    match = win(match, B, ResultKind.MARS, opening=(6, 1))
    match = win(match, B, ResultKind.OIN)
    assert (match.score, match.winner) == ((0, 3), B)


def test_money_play_never_ends() -> None:
    match = Match.new(GameOptions.backgammon(jacoby=True))
    for _ in range(3):
        match = win(match, W, ResultKind.BACKGAMMON)
    assert match.score == (3, 0)  # Jacoby: unturned cube, singles
    assert match.winner is None and not match.is_over
    assert not any(game.crawford for game in match.games)


def test_update_refuses_other_games() -> None:
    match = Match.new(GameOptions.backgammon(match_length=3))
    with pytest.raises(MatchError, match="no game"):
        match.update(Game.new(match.options))
    match = match.next_game()
    with pytest.raises(MatchError, match="not finished"):
        match.next_game()
    with pytest.raises(MatchError, match="does not continue"):
        match.update(Game.new(GameOptions.backgammon(match_length=5)))
    started = match.current.roll(Scripted(3, 1))  # type: ignore[union-attr]
    match = match.update(started)
    with pytest.raises(MatchError, match="does not continue"):
        match.update(Game.new(match.options).roll(Scripted(1, 3)))


def test_random_match_round_trip() -> None:
    rng = random.Random(5)
    match = Match.new(GameOptions.long(match_length=3))
    while not match.is_over:
        match = match.next_game()
        assert match.current is not None
        match = match.update(play_random(match.current, rng)[-1])
    assert match.winner is not None and max(match.score) >= 3
    record = json.loads(json.dumps(match.to_dict()))
    assert Match.from_dict(record) == match


def test_corrupt_match_records() -> None:
    match = win(Match.new(GameOptions.backgammon(match_length=3)), W, ResultKind.GAMMON)
    match = match.next_game()
    record = match.to_dict()
    assert Match.from_dict(record) == match
    bad = copy.deepcopy(record)
    bad["games"][1]["crawford"] = False
    with pytest.raises(GameDataError, match="does not continue"):
        Match.from_dict(bad)
    bad = copy.deepcopy(record)
    bad["options"]["match_length"] = 5
    with pytest.raises(GameDataError, match="does not continue"):
        Match.from_dict(bad)
    with pytest.raises(GameDataError, match="version"):
        Match.from_dict({**record, "version": 9})
    with pytest.raises(GameDataError, match="lists its games"):
        Match.from_dict({**record, "games": None})
    bad = copy.deepcopy(record)
    bad["games"].append(bad["games"][1])
    with pytest.raises(GameDataError, match="not finished"):
        Match.from_dict(bad)


def test_a_one_point_match_has_no_crawford_game() -> None:
    """GNU Backgammon applies Crawford only to matches longer than one point:
    at 0-0 of a 1-point match both players are N - 1 away, not one of them."""
    match = Match.new(GameOptions.backgammon(match_length=1)).next_game()
    game = match.current
    assert game is not None and not game.crawford
    assert game.cube is not None and not game.cube.crawford
    game = game.roll(Scripted(3, 1))
    game = game.play_step(Step(8, 5, 3)).play_step(Step(6, 5, 1)).confirm()
    assert game.double(B).take(W).cube_value == 2
    # two points: the game after 1-0 is the Crawford game
    two = win(Match.new(GameOptions.backgammon(match_length=2)), W, ResultKind.SINGLE)
    first = two.games[0]
    assert not first.crawford and two.next_game().current.crawford  # type: ignore[union-attr]
