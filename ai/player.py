"""The computer player's interface and the two baseline players.

A :class:`Player` picks one of :func:`engine.legal_turns` for a roll, and
answers the cube and resignation offers.  Every player is deterministic for
its ``seed``: the same calls in the same order give the same answers.
"""

from __future__ import annotations

import enum
import random
from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np

from ai.cube import CubeState, accept_resignation, money_double, money_take
from ai.long_features import INDEX, features
from engine import Dice, Game, Position, ResultKind, Side, Turn, Variant, legal_turns


class Level(enum.Enum):
    """How hard the computer plays (see docs/ai.md)."""

    EASY = "easy"
    MEDIUM = "medium"
    STRONG = "strong"


class AIError(ValueError):
    """A request the computer player cannot answer (no dice, game over...)."""


def position_and_dice(state: Position | Game, dice: Dice | None) -> tuple[Position, Dice]:
    """The position to move from and the dice: a :class:`Game` in its move
    phase brings both (its turn start: steps already tapped are replayed)."""
    if isinstance(state, Game):
        if state.turn is None:
            raise AIError("the game is not waiting for a move")
        return state.turn_start, state.turn.dice
    if dice is None:
        raise AIError("a position needs dice")
    return state, dice


class Player(ABC):
    """Chooses turns; answers cube and resignation offers."""

    name = "player"

    def __init__(self, variant: Variant, seed: int = 0, koks: bool = False) -> None:
        self.variant = variant
        self.koks = koks
        self.rng = random.Random(seed)

    def choose(self, state: Position | Game, dice: Dice | None = None) -> Turn:
        """One of ``legal_turns(position, dice)`` (the mover still to move)."""
        position, dice = position_and_dice(state, dice)
        if position.variant is not self.variant:
            raise AIError(f"this player plays {self.variant.value}")
        turns = legal_turns(position, dice)
        if len(turns) == 1:
            return turns[0]
        return self.pick(position, turns)

    @abstractmethod
    def pick(self, position: Position, turns: Sequence[Turn]) -> Turn:
        """The choice among two or more legal turns."""

    def noisy_pick(self, turns: Sequence[Turn], values: np.ndarray, noise: float, margin: float
                   ) -> Turn:
        """The easy levels: the best of the turns within ``margin`` of the best
        equity after Gaussian noise of ``noise`` (plausible mistakes, never
        a turn worse than ``margin``)."""
        best = float(values.max())
        near = np.flatnonzero(values >= best - margin)
        noisy = values[near] + np.array([self.rng.gauss(0, noise) for _ in near])
        return turns[int(near[int(np.argmax(noisy))])]

    def probabilities(self, position: Position) -> tuple[float, ...] | None:
        """Outcome probabilities for the side on roll (see :mod:`ai.cube`);
        ``None`` for players that cannot estimate them."""
        return None

    # -- cube (backgammon) ------------------------------------------------

    def should_double(self, position: Position, cube: CubeState) -> bool:
        """Double before rolling?  ``position.turn`` is this player."""
        if position.variant is not Variant.BACKGAMMON or not cube.may_double(position.turn):
            return False
        probs = self.probabilities(position)
        if probs is None:
            return False
        return money_double(probs, cube.owner is position.turn, cube.jacoby)

    def should_take(self, position: Position, cube: CubeState) -> bool:
        """Take the double the side on roll (``position.turn``) offers?
        (Never beaver.)"""
        probs = self.probabilities(position)
        if probs is None:
            return True
        return money_take(probs)

    # -- resignation ------------------------------------------------------

    def accepts_resignation(
        self, position: Position, me: Side, kind: ResultKind, cube: CubeState | None = None
    ) -> bool:
        """Accept the opponent's offer to resign with ``kind`` (points =
        ``kind.multiplier`` times the cube)?"""
        cube = cube or CubeState()
        probs = self.probabilities(position)
        if probs is None:
            return True
        if position.turn is not me:
            probs = _flip(probs)
        gammons = not (cube.jacoby and cube.owner is None and cube.value == 1)
        if self.variant is Variant.LONG and not self.koks:
            probs = (*probs[:2], 0.0, probs[3], 0.0)
        return accept_resignation(probs, kind.multiplier, cube.value, gammons)


def _flip(probs: Sequence[float]) -> tuple[float, ...]:
    win, wg, wbg, lg, lbg = probs
    return (1 - win, lg, lbg, wg, wbg)


class RandomPlayer(Player):
    """Any legal turn, uniformly: the weakest baseline."""

    name = "random"

    def pick(self, position: Position, turns: Sequence[Turn]) -> Turn:
        return turns[self.rng.randrange(len(turns))]


# Hand weights of the long nardy greedy player on the features of the
# position after its turn (mine = the mover's): bear off, come home, hold
# points in a row and in the opponent's way, leave the head, take away the
# opponent's moves, do not stack.
_LONG_GREEDY = {
    "me_off": 15.0,
    "me_home": 4.0,
    "me_run": 6.0,
    "me_spread": 3.0,
    "me_their_home": 2.0,
    "me_head": -4.0,
    "me_stack": -3.0,
    **{f"opp_mobility_{d}": -1.5 for d in range(1, 7)},
    **{f"me_mobility_{d}": 0.5 for d in range(1, 7)},
}
_LONG_WEIGHTS = np.zeros(len(INDEX))
for _name, _weight in _LONG_GREEDY.items():
    _LONG_WEIGHTS[INDEX[_name]] = _weight


class GreedyPlayer(Player):
    """A one-look heuristic (pips, safety, blocks), no search, no learning:
    the baseline the brains must beat."""

    name = "greedy"

    def pick(self, position: Position, turns: Sequence[Turn]) -> Turn:
        side = position.turn
        if self.variant is Variant.LONG:
            movers = np.array([t.position.board[side][:24] for t in turns])
            opponent = np.broadcast_to(np.array(position.board[side.opponent][:24]), movers.shape)
            scores = features(movers, opponent) @ _LONG_WEIGHTS
        else:
            scores = np.array([backgammon_greedy_score(t.position, side) for t in turns])
        best = np.flatnonzero(scores >= scores.max() - 1e-9)
        return turns[int(best[self.rng.randrange(len(best))])]


def backgammon_greedy_score(position: Position, me: Side) -> float:
    """Hits, safe checkers, made points and primes, the race."""
    mine = position.board[me]
    theirs = position.board[me.opponent]
    # the opponent's checkers by my point numbers (its point q is my 25 - q)
    their_on_mine = [0] * 26
    for q in range(1, 25):
        their_on_mine[25 - q] = theirs[q - 1]
    their_bar = theirs[24]
    score = 2.0 * their_bar + 1.5 * (15 - sum(mine))
    run = longest = 0
    for p in range(1, 25):
        count = mine[p - 1]
        if count >= 2:
            score += 0.8 if p <= 6 else 0.4 if p <= 11 else 0.1
            run += 1
            longest = max(longest, run)
        else:
            run = 0
        if count == 1:
            # a blot is exposed to opponent checkers behind it (lower points of
            # mine: they move towards my 24), or on the bar
            shooters = their_bar + sum(their_on_mine[1:p])
            if shooters:
                score -= 1.0 + (0.05 * (25 - p) if any(their_on_mine[max(1, p - 6) : p]) else 0)
    score += 0.3 * longest
    pips = position.pips(me)
    their_pips = position.pips(me.opponent)
    return score + 0.01 * (their_pips - pips)
