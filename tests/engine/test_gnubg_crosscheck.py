"""Backgammon turns agree with GNU Backgammon's own move generator."""

from __future__ import annotations

import pytest

from engine import Variant, legal_turns
from tests.engine.strategies import random_game_positions

gnubg_nn = pytest.importorskip("gnubg_nn")

Board = tuple[tuple[int, ...], tuple[int, ...]]


def gnubg_boards(board: list[list[int]], first: int, second: int) -> set[Board]:
    keys = gnubg_nn.moves(board, first, second)
    if not keys:  # no legal move: the position stays
        return {(tuple(board[0]), tuple(board[1]))}
    return {tuple(map(tuple, gnubg_nn.board_from_position_key(key))) for key in keys}  # type: ignore[misc]


def test_same_positions_as_gnubg_over_random_games() -> None:
    checked = 0
    for position, dice in random_game_positions(Variant.BACKGAMMON, seed=1, count=2000):
        ours = {
            (tuple(after[0]), tuple(after[1]))
            for after in (turn.position.to_gnubg() for turn in legal_turns(position, dice))
        }
        assert ours == gnubg_boards(position.to_gnubg(), dice.first, dice.second), (position, dice)
        checked += 1
    assert checked == 2000
