"""Match play by match winning chances (MWC): GNU Backgammon's match
equity table and its cubeful match cube, through ``gnubg-nn``.

In a match a point is not worth a point: what counts is the chance to win
the match.  :func:`match_equity` is that chance at a score, from gnubg-nn's
table (``gnubg_nn.equities.value``, the pre-Crawford table; the
post-Crawford one read through its cube function, below).
:func:`outcome_mwc` values a game's five outcome probabilities at the
score and cube (gammons worth what they bring: nothing when a single win
already wins the match); :func:`cube_mwc` is gnubg-nn's cubeful "no
double", "double, take" and "double, pass" at the score
(``evaluate_cube_decision`` with our probabilities), Crawford and dead
cubes included.  :func:`to_emg` turns a MWC into GNU Backgammon's
*normalised* equity (EMG: "equivalent to money game"), so that errors in a
match read in the same units as money errors (docs/analysis.md).

gnubg-nn keeps the score process-wide; every function here sets it for
its one call and leaves money play (gnubg's start-up state) behind, as
:meth:`ai.backgammon.GnubgPlayer` needs.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import gnubg_nn

from ai.cube import CubeState
from engine import Side

Probs = Sequence[float]
_ANY_KEY = gnubg_nn.key_of_board(gnubg_nn.board_from_position_id("4HPwATDgc/ABMA"))
"""A position key for ``evaluate_cube_decision`` when the probabilities are
given (it then reads only them)."""


@dataclass(frozen=True, slots=True)
class Score:
    """Points to go for the side deciding (``me``) and its opponent, the
    cube, and where the match is: ``crawford`` this is the Crawford game,
    ``later`` a side was already one away before this game (a game after it
    at 1-away is post-Crawford)."""

    me: int
    them: int
    cube: int = 1
    crawford: bool = False
    later: bool = False


def score_of(cube: CubeState, side: Side) -> Score:
    """The :class:`Score` of ``side`` from the brains' cube state."""
    me = cube.match_length - cube.score[side]
    them = cube.match_length - cube.score[side.opponent]
    later = (me == 1 or them == 1) and not cube.crawford
    return Score(me, them, cube.value, cube.crawford, later)


def _set(me: int, them: int, crawford: bool, value: int) -> None:
    gnubg_nn.set.score(me, them, int(crawford))
    gnubg_nn.set.cube(value, b"X")


def _money() -> None:
    gnubg_nn.set.score(0, 0, 0)  # money play, gnubg's state at start-up
    gnubg_nn.set.cube(1, b"X")


@functools.cache
def _post_crawford(trailer: int) -> float:
    """The trailer's MWC ``trailer`` away against 1-away after the Crawford
    game: gnubg's "double, pass" at one more away, whose pass hands over
    one point (gnubg-nn has no call for the post-Crawford table itself)."""
    if trailer <= 1:
        return 0.5
    figures = _gnubg_cube(_SENTINEL, Score(trailer + 1, 1, 1, False, True))
    assert figures is not None, "gnubg-nn computes the trailer's double"
    return figures[2]


@functools.cache
def match_equity(me: int, them: int, post_crawford: bool = False) -> float:
    """The chance to win the match ``me`` points away against ``them``
    (a side at 0 or less has won); ``post_crawford``: a game after the
    Crawford game (only matters with one side one away).

    >>> match_equity(1, 1), match_equity(0, 3), round(match_equity(1, 2), 3)
    (0.5, 1.0, 0.685)
    >>> round(match_equity(2, 1, post_crawford=True), 3)
    0.485
    """
    if me <= 0:
        return 1.0
    if them <= 0:
        return 0.0
    if post_crawford and (me == 1) != (them == 1):
        return _post_crawford(me) if them == 1 else 1.0 - _post_crawford(them)
    return (1.0 + float(gnubg_nn.equities.value(me, them))) / 2


def _after(score: Score, mine: int, theirs: int) -> float:
    """The MWC once ``mine`` (or ``theirs``) points are won this game."""
    post = score.later or score.crawford
    return match_equity(score.me - mine, score.them - theirs, post)


def outcome_mwc(probs: Probs, score: Score) -> float:
    """The MWC of playing the game out at the current cube (cubeless): each
    of the five outcomes (gnubg's ``win, win_gammon, win_backgammon,
    lose_gammon, lose_backgammon`` for ``me``) worth the match chances it
    leaves."""
    win, wg, wbg, lg, lbg = probs
    cube = score.cube
    single, gammon, backgammon = win - wg, wg - wbg, wbg
    loss = 1.0 - win
    lsingle, lgammon, lbackgammon = loss - lg, lg - lbg, lbg
    return (single * _after(score, cube, 0) + gammon * _after(score, 2 * cube, 0)
            + backgammon * _after(score, 3 * cube, 0) + lsingle * _after(score, 0, cube)
            + lgammon * _after(score, 0, 2 * cube) + lbackgammon * _after(score, 0, 3 * cube))


def to_emg(mwc: float, score: Score) -> float:
    """GNU Backgammon's normalised equity of a MWC (its ``mwc2eq``): +1
    the MWC of winning the cube's points now, -1 of losing them."""
    win, lose = _after(score, score.cube, 0), _after(score, 0, score.cube)
    if win - lose < 1e-9:
        return 0.0
    return (2 * mwc - (win + lose)) / (win - lose)


def from_emg(emg: float, score: Score) -> float:
    """The MWC of a normalised equity: :func:`to_emg` turned round."""
    win, lose = _after(score, score.cube, 0), _after(score, 0, score.cube)
    return (emg * (win - lose) + win + lose) / 2


def emg_scale(score: Score) -> float:
    """EMG per unit of MWC at the score (errors: ``scale * mwc lost``)."""
    win, lose = _after(score, score.cube, 0), _after(score, 0, score.cube)
    return 2 / (win - lose) if win - lose > 1e-9 else 0.0


_SENTINEL = (0.5, 0.1, 0.0, 0.1, 0.0)
"""Probabilities of a call that always computes (5-away all, cube 1)."""


def _gnubg_cube(probs: Probs, score: Score) -> tuple[float, float, float] | None:
    """gnubg-nn's (no double, double/take, double/pass), or ``None`` where
    it does not compute them: it leaves the previous call's figures in
    place when the side on roll has no double worth giving (the leader
    after the Crawford game, a cube the trailer holds then...).  A call
    that always computes goes first, so stale figures are told apart."""
    _set(5, 5, False, 1)
    known = gnubg_nn.evaluate_cube_decision(_ANY_KEY, n=0, i=1, p=_SENTINEL)[3:]
    try:
        if score.cube == 1:  # naming the side (s) makes it skip post-Crawford doubles
            _set(score.me, score.them, score.crawford, 1)
            result = gnubg_nn.evaluate_cube_decision(_ANY_KEY, n=0, i=1, p=tuple(probs))
        else:
            # the side on roll holds the cube: it must be named, and then
            # gnubg-nn reads the score the other way round (its 3-away
            # against 5-away passing a cube of 2 gave 0.5, the MWC of
            # 3-away all; the score turned round gives 0.843, of 1-away
            # against 5-away)
            _set(score.them, score.me, score.crawford, score.cube)
            result = gnubg_nn.evaluate_cube_decision(_ANY_KEY, n=0, s=b"X", i=1,
                                                     p=tuple(probs))
    finally:
        _money()
    figures = (float(result[3]), float(result[4]), float(result[5]))
    return None if tuple(result[3:]) == tuple(known) else figures


def cube_mwc(probs: Probs, score: Score) -> tuple[float, float, float]:
    """The cubeful MWC for the side on roll (``probs`` its five
    probabilities; it holds the cube or the cube is centred) of no double,
    double/take, double/pass: gnubg-nn's figures; where gnubg-nn has none
    (no double worth giving) the outcomes valued at the score, the cube as
    it is and doubled (then dead), and the point(s) a pass gives.  Where
    the cube is dead after a take (:func:`dead_after_take`), double/take
    is exactly the outcomes at the score with the cube doubled, as GNU
    Backgammon values it, not gnubg-nn's shortcut."""
    figures = _gnubg_cube(probs, score)
    doubled = Score(score.me, score.them, 2 * score.cube, score.crawford, score.later)
    if figures is not None:
        if not dead_after_take(score):
            return figures
        # a dead cube: the game is played out at twice the cube, exactly
        # the outcomes at the score (gnubg-nn's shortcut left the doubler
        # 0.002-0.015 short with gammons and backgammons where the taker
        # is one away after the Crawford game and the doubler 5 or more:
        # it graded the free drop a take; issue 38)
        return figures[0], outcome_mwc(probs, doubled), figures[2]
    return (outcome_mwc(probs, score), outcome_mwc(probs, doubled),
            _after(score, score.cube, 0))


def dead_after_take(score: Score) -> bool:
    """Whether the cube is dead once the double is taken: the taker, its
    owner then, already wins the match by winning the doubled cube, so it
    never redoubles (the leader one away after the Crawford game; 2-away
    taking a cube of 2...).

    >>> dead_after_take(Score(6, 1, 1, later=True)), dead_after_take(Score(5, 5))
    (True, False)
    """
    return score.them <= 2 * score.cube


def cubeful_mwc(probs: Probs, score: Score, may_double: bool) -> float:
    """The cubeful MWC of the side on roll playing its best cube action
    (no double, or the opponent's better answer to a double) when it may
    double; the cubeless :func:`outcome_mwc` when it may not (a dead cube,
    Crawford, the opponent's cube)."""
    if not may_double:
        return outcome_mwc(probs, score)
    no_double, take, drop = cube_mwc(probs, score)
    return max(no_double, min(take, drop))


def match_double(probs: Probs, cube: CubeState, side: Side) -> bool:
    """Should ``side`` (on roll, ``probs`` its) double in a match?  When
    double/take or double/pass, whichever the opponent picks, beats no
    double (gnubg's rule, "too good" included)."""
    if not cube.may_double(side):
        return False
    no_double, take, drop = cube_mwc(probs, score_of(cube, side))
    return min(take, drop) > no_double


def match_take(probs: Probs, cube: CubeState, doubler: Side) -> bool:
    """Should the opponent of ``doubler`` (on roll, ``probs`` its) take?
    When taking leaves the doubler no more than a pass would."""
    _, take, drop = cube_mwc(probs, score_of(cube, doubler))
    return take <= drop
