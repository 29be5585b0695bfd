"""The computer player's interface and the two baseline players.

A :class:`Player` picks one of :func:`engine.legal_turns` for a roll, and
answers the cube and resignation offers.  Every player is deterministic for
its ``seed``: the same calls in the same order give the same answers.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ai.cube import CubeState, accept_resignation, money_double, money_take
from ai.long_features import INDEX, features
from engine import Dice, Game, Position, ResultKind, Side, Turn, Variant, legal_turns

ROLLS: tuple[tuple[Dice, float], ...] = tuple(
    (Dice(a, b), (1 if a == b else 2) / 36) for a in range(1, 7) for b in range(a, 7)
)
"""The 21 distinct rolls with their chances."""


class Level(enum.Enum):
    """How hard the computer plays (see docs/ai.md)."""

    EASY = "easy"
    MEDIUM = "medium"
    STRONG = "strong"
    BEST = "best"


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


@dataclass(frozen=True, slots=True)
class RankedTurn:
    """One legal turn and its value for the mover.

    ``equity``: cubeless equity in points per game (cube 1) from the
    mover's view, gammons and backgammons (long nardy: mars, and koks with
    the house rule) counted as the variant scores them: ``+1`` a sure single
    win, ``-2`` a sure gammon or mars loss.
    """

    turn: Turn
    equity: float


@dataclass(frozen=True, slots=True)
class Depth:
    """How deep a brain looks: every turn at its shallow depth, then the
    best ``candidates`` (those within ``margin`` of the best) one roll
    deeper; ``candidates`` 0: shallow only."""

    candidates: int = 0
    margin: float = 0.0


@dataclass(frozen=True, slots=True)
class Noise:
    """A level's human mistakes (docs/ai.md, "The mistake model").

    The player looks at every turn with its own shallow eye
    (:meth:`Player.shallow`) and never plays one more than ``cap`` worse
    than the best by that eye: no choice that looks broken.  Among the rest
    it picks at random, a turn's chance falling with its loss ``l`` as
    ``exp(-l / temperature)`` (a softmax: near-equal turns are a coin toss,
    a turn 0.1 worse is rarer by ``exp(-0.1 / temperature)``).  ``hunch``: the
    share of its choices made instead by a beginner's eye - the one-look
    heuristic of :class:`GreedyPlayer` (hit, make points, come home), its
    favourite within the cap - the real mistakes of a person who sees the
    board but not the equities.
    """

    temperature: float
    cap: float
    hunch: float = 0.0

    def __post_init__(self) -> None:
        if self.temperature <= 0 or self.cap < 0 or not 0 <= self.hunch <= 1:
            raise ValueError(f"bad noise {self}")


def choice_chances(values: np.ndarray, hunches: np.ndarray | None, noise: Noise) -> np.ndarray:
    """The chance of each turn under ``noise``, given the player's own
    equities ``values`` and the heuristic's scores ``hunches`` (needed only
    when ``noise.hunch``): what :meth:`Player.pick` draws from, and what a
    benchmark weighs losses by.

    >>> chances = choice_chances(np.array([0.5, 0.45, 0.1]), None, Noise(0.05, 0.3))
    >>> [round(float(c), 3) for c in chances]
    [0.731, 0.269, 0.0]
    """
    best = float(values.max())
    loss = best - values
    near = loss <= noise.cap + 1e-12
    weights = np.where(near, np.exp(-np.where(near, loss, 0.0) / noise.temperature), 0.0)
    chances: np.ndarray = (1 - noise.hunch) * weights / weights.sum()
    if noise.hunch:
        assert hunches is not None
        favourite = int(np.argmax(np.where(near, hunches, -np.inf)))
        chances[favourite] += noise.hunch
    return chances


class Player:
    """Chooses turns; answers cube and resignation offers.

    A brain that estimates equities implements :meth:`shallow` and
    :meth:`deepen` and sets :attr:`depth`; :meth:`rank` (its ranking of the
    turns) is then what :meth:`pick` plays and what :meth:`ranked` shows -
    one evaluation for playing, hints and analysis.  A level with
    :attr:`noise` (a :class:`Noise`, from its brain's per-level table) plays
    a person's mistakes instead (:meth:`pick`).
    """

    name = "player"
    depth = Depth()
    noise: Noise | None = None

    def __init__(self, variant: Variant, seed: int = 0, koks: bool = False) -> None:
        self.variant = variant
        self.koks = koks
        self.rng = random.Random(seed)

    def _start(self, state: Position | Game, dice: Dice | None) -> tuple[Position, Dice]:
        position, dice = position_and_dice(state, dice)
        if position.variant is not self.variant:
            raise AIError(f"this player plays {self.variant.value}")
        return position, dice

    def choose(self, state: Position | Game, dice: Dice | None = None) -> Turn:
        """One of ``legal_turns(position, dice)`` (the mover still to move)."""
        position, dice = self._start(state, dice)
        turns = legal_turns(position, dice)
        if len(turns) == 1:
            return turns[0]
        return self.pick(position, turns)

    def ranked(self, state: Position | Game, dice: Dice | None = None) -> list[RankedTurn]:
        """Every legal turn (one per distinct resulting position) with its
        equity for the mover at this player's depth, best first.

        The turns looked at deeper come first, ordered by their deeper
        equity, then the others by their shallow one (as GNU Backgammon
        lists moves); the first is the turn :meth:`choose` plays (for the
        easy level: before its noise).  A roll that cannot be played gives
        one turn without steps.  :class:`AIError` for a player that cannot
        estimate equities (the baselines).
        """
        position, dice = self._start(state, dice)
        return self.rank(position, legal_turns(position, dice), full=True)

    def hint_ranked(self, state: Position | Game, dice: Dice | None = None) -> list[RankedTurn]:
        """:meth:`ranked` as deep as a hint can afford (a player asks and
        waits a moment): the same by default; backgammon's looks at the
        best few again at 2-ply (:class:`ai.backgammon.GnubgPlayer`)."""
        return self.ranked(state, dice)

    def rank(
        self, position: Position, turns: Sequence[Turn], also: Sequence[int] = (),
        full: bool = False, judging: bool = False,
    ) -> list[RankedTurn]:
        """:meth:`ranked` of ``turns`` (all legal from ``position``).  The
        indices ``also`` are looked at deeper whatever their shallow equity
        (the turn a player played, in analysis); ``full``: the best turn too
        when it is the only candidate (its equity then has the same depth as
        the others'; playing does not need it); ``judging``: the ranking a
        game's analysis judges by, whose depth its luck shares (long nardy's
        third look, :data:`ai.long_player.THIRD`, is for playing only)."""
        values = self.shallow(position, turns)
        order = [int(i) for i in np.argsort(-values, kind="stable")]
        depth = self.depth
        deep: dict[int, float] = {}
        if depth.candidates:
            best = float(values[order[0]])
            chosen = [i for i in order[: depth.candidates] if values[i] >= best - depth.margin]
            chosen += [int(i) for i in also if int(i) not in chosen]
            if len(chosen) > 1 or full:
                deep = dict(zip(chosen, self.deepen(position, turns, chosen), strict=True))
        first = sorted(deep, key=lambda i: -deep[i])
        rest = [i for i in order if i not in deep]
        return [RankedTurn(turns[i], deep[i]) for i in first] + [
            RankedTurn(turns[i], float(values[i])) for i in rest
        ]

    def shallow(self, position: Position, turns: Sequence[Turn]) -> np.ndarray:
        """The mover's equity after each turn at this brain's first depth."""
        raise AIError(f"the {self.name} player does not estimate equities")

    def deepen(self, position: Position, turns: Sequence[Turn], indices: Sequence[int]
               ) -> list[float]:
        """The mover's equity after ``turns[i]`` for each of ``indices``,
        one roll deeper than :meth:`shallow`."""
        raise AIError(f"the {self.name} player does not look deeper")

    def roll_values(self, positions: Sequence[Position]) -> np.ndarray:
        """For each position, the equity of the side to roll after its best
        turn by :meth:`shallow` for each of the 21 rolls (:data:`ROLLS`):
        shape ``(N, 21)``.  What the dice can do: the luck of a roll in
        analysis is its value minus their average."""
        values = np.empty((len(positions), len(ROLLS)))
        for row, position in enumerate(positions):
            for column, (dice, _) in enumerate(ROLLS):
                turns = legal_turns(position, dice)
                values[row, column] = float(self.shallow(position, turns).max())
        return values

    def pick(self, position: Position, turns: Sequence[Turn]) -> Turn:
        """The choice among two or more legal turns: the best by
        :meth:`rank`; with :attr:`noise`, a draw from :func:`choice_chances`
        (one number from the seeded generator per choice)."""
        noise = self.noise
        if noise is None:
            return self.rank(position, turns)[0].turn
        return turns[self.draw(self.chances(position, turns))]

    def chances(self, position: Position, turns: Sequence[Turn]) -> np.ndarray:
        """The chance of each of ``turns`` being played (:attr:`noise`'s
        model; all on the best by :meth:`rank` without noise)."""
        noise = self.noise
        if noise is None:
            chances = np.zeros(len(turns))
            chances[turns.index(self.rank(position, turns)[0].turn)] = 1.0
            return chances
        hunches = heuristic_scores(position, turns) if noise.hunch else None
        return choice_chances(self.shallow(position, turns), hunches, noise)

    def draw(self, chances: np.ndarray) -> int:
        """An index drawn with ``chances`` (one uniform draw of :attr:`rng`)."""
        cumulative = np.cumsum(chances)
        index = int(np.searchsorted(cumulative, self.rng.random() * cumulative[-1], side="right"))
        return min(index, len(chances) - 1)

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
        scores = heuristic_scores(position, turns)
        best = np.flatnonzero(scores >= scores.max() - 1e-9)
        return turns[int(best[self.rng.randrange(len(best))])]


def heuristic_scores(position: Position, turns: Sequence[Turn]) -> np.ndarray:
    """The greedy player's one-look score of the position after each turn
    (higher is better for the mover): what a beginner's eye likes."""
    side = position.turn
    if position.variant is Variant.LONG:
        movers = np.array([t.position.board[side][:24] for t in turns])
        opponent = np.broadcast_to(np.array(position.board[side.opponent][:24]), movers.shape)
        return np.asarray(features(movers, opponent) @ _LONG_WEIGHTS, dtype=float)
    return np.array([backgammon_greedy_score(t.position, side) for t in turns])


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
