"""Sample boards of both games, for ``python -m bot.present.render``, the golden
tests and the benchmark: the start, a backgammon game with hits and checkers
on the bar, a backgammon bear-off with the cube, dice and a step already
played, and a long nardy mid-game with the last turn marked, numbered for
either player (the checkers stay where they are).

>>> sorted(SAMPLES)[:2]
['backgammon-bearoff', 'backgammon-hits']
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.present.render.view import BoardView, LastTurn
from engine.position import BAR, Dice, Position, Side, Step, Variant


def board(
    variant: Variant, white: Mapping[int, int], black: Mapping[int, int], turn: Side
) -> Position:
    """A position from ``{own point: count}`` per side (``BAR`` = 25)."""
    rows = [[0] * 25, [0] * 25]
    for side, points in ((Side.WHITE, white), (Side.BLACK, black)):
        for point, count in points.items():
            rows[side][point - 1] = count
    return Position.from_rows(variant, rows, turn)


BG, LONG = Variant.BACKGAMMON, Variant.LONG
NAMES = ("Алиса", "Jonas Žemaitis")

_hits_start = board(
    BG, {24: 2, 13: 4, 8: 3, 6: 4, 5: 2}, {24: 2, 13: 4, 8: 2, 7: 1, 6: 5, 4: 1}, Side.WHITE
)
_long_start = board(
    LONG,
    {24: 10, 20: 1, 17: 1, 15: 1, 13: 1, 10: 1},
    {24: 10, 21: 2, 16: 1, 14: 2},
    Side.BLACK,
)
_long_after = board(
    LONG,
    {24: 10, 20: 1, 17: 1, 15: 1, 13: 1, 10: 1},
    {24: 9, 21: 2, 19: 1, 16: 1, 14: 1, 11: 1},
    Side.WHITE,
)

SAMPLES: dict[str, BoardView] = {
    "backgammon-start": BoardView(
        Position.initial(BG),
        Side.WHITE,
        NAMES,
        dice=Dice(3, 1),
        cube=1,
        status="Алиса to move",
    ),
    "backgammon-hits": BoardView(
        board(
            BG,
            {21: 1, 18: 1, 13: 4, 8: 3, 6: 4, 5: 2},
            {BAR: 2, 24: 2, 13: 4, 8: 2, 6: 5},
            Side.BLACK,
        ),
        Side.BLACK,
        NAMES,
        dice=Dice(4, 2),
        cube=2,
        cube_owner=Side.BLACK,
        score=(2, 0),
        match_length=5,
        last_turn=LastTurn(Side.WHITE, (Step(24, 18, 6), Step(24, 21, 3)), _hits_start,
                           Dice(6, 3)),
        status="Jonas to move · 23h 59m left",
    ),
    "backgammon-bearoff": BoardView(
        board(BG, {6: 2, 5: 3, 4: 2, 3: 2, 2: 1}, {6: 2, 5: 2, 4: 2, 3: 2, 1: 1}, Side.WHITE),
        Side.WHITE,
        ("Alice", "Борис 🎲"),
        dice=Dice(6, 4),
        used=(6,),
        current=(Step(6, 0, 6),),
        cube=4,
        cube_owner=Side.BLACK,
        score=(3, 4),
        match_length=7,
        last_turn=LastTurn(Side.BLACK, (Step(5, 0, 5), Step(4, 0, 4)), dice=Dice(5, 4)),
        status="2 min left",
    ),
    "long-start": BoardView(Position.initial(LONG), Side.WHITE, NAMES, dice=Dice(6, 5)),
    "long-midgame": BoardView(
        _long_after,
        Side.WHITE,
        NAMES,
        dice=Dice(6, 2),
        last_turn=LastTurn(Side.BLACK, (Step(24, 19, 5), Step(14, 11, 3)), _long_start,
                           Dice(5, 3)),
        score=(1, 2),
        match_length=7,
    ),
}
# the next turn: the checkers stay (White at the bottom), the numbers are
# Black's, who has played one step of 5-3 (marked in the second colour)
SAMPLES["long-midgame-black"] = BoardView(
    board(LONG, {24: 10, 20: 1, 17: 1, 15: 1, 13: 1, 10: 1},
          {24: 8, 21: 2, 19: 2, 14: 2, 11: 1}, Side.BLACK),
    Side.WHITE,
    NAMES,
    dice=Dice(5, 3),
    used=(5,),
    current=(Step(24, 19, 5),),
    numbering=Side.BLACK,
    score=(1, 2),
    match_length=7,
)
