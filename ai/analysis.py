"""After the game: every decision of both players judged by the computer
player's evaluation, with the luck of the dice (docs/analysis.md).

>>> import random
>>> from ai import Level, make_player
>>> from ai.arena import play_recorded
>>> players = [make_player(Variant.LONG, Level.MEDIUM, seed) for seed in (1, 2)]
>>> report = analyse(play_recorded(players, random.Random(4)), level=Level.MEDIUM)
>>> round(report.players[Side.WHITE].error_rate, 1), report.players[Side.BLACK].rating
(21.1, <Rating.ADVANCED: 'advanced'>)

:func:`analyse` takes a finished :class:`engine.Game` (what the bot stores:
``GameRecord.engine`` decoded, the game of ``bot.rules.matchstate.table_of``)
and returns an :class:`Analysis`: per side a :class:`PlayerReport` (error
rate, rating word, counts of doubtful / bad / very bad decisions, luck and
the worst three decisions), every :class:`Decision` in order, and the
equity and win chance after each turn for a graph.

Units: equities are in points per game at cube 1 (cubeless for moves and
luck; cube decisions in the cubeful units of the cube they are about, as
GNU Backgammon normalises them), from the named side's view.  Error rates
are in *millipoints* per decision (GNU Backgammon's mEMG for money play):
1000 times the average loss.

The result is plain frozen data (positions, steps, numbers and enums): it
pickles, so a worker process can compute it off the bot's event loop.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ai.cube import CubeState, janowski
from ai.matchequity import (
    cube_mwc,
    cubeful_mwc,
    emg_scale,
    from_emg,
    match_equity,
    score_of,
    to_emg,
)
from ai.player import ROLLS, Level, Player
from engine import (
    Action,
    Dice,
    Game,
    Position,
    Side,
    Step,
    Turn,
    Variant,
    apply_step,
    end_turn,
    format_turn,
    legal_turns,
    text_order,
)
from engine.match import starter_of
from engine.scoring import classify

DEFAULT_LEVEL = Level.STRONG
"""The depth analysis judges at: the strong player's (docs/ai.md)."""


class AnalysisError(ValueError):
    """A game that cannot be analysed (not started, another variant...)."""


class DecisionKind(enum.Enum):
    """What was decided."""

    MOVE = "move"
    """Which turn to play for a roll (only rolls with two or more distinct
    results: a forced turn is no decision)."""
    DOUBLE = "double"
    """Whether to double before rolling (backgammon with the cube): every
    double given, and the positions where not doubling was a close call
    (see :data:`CLOSE_CUBE`)."""
    TAKE = "take"
    """Whether to take or pass a double."""


class CubeAction(enum.Enum):
    """The words of a cube decision's :attr:`Decision.played` and
    :attr:`Decision.best` (the bot translates them)."""

    NO_DOUBLE = "no double"
    DOUBLE = "double"
    TAKE = "take"
    PASS = "pass"


class Grade(enum.Enum):
    """How bad a decision was: its loss against :data:`THRESHOLDS`."""

    DOUBTFUL = "doubtful"
    BAD = "bad"
    VERY_BAD = "very_bad"


class Rating(enum.Enum):
    """GNU Backgammon's words for an error rate, worst first (their upper
    bounds in :data:`RATINGS`)."""

    AWFUL = "awful"
    BEGINNER = "beginner"
    CASUAL = "casual"
    INTERMEDIATE = "intermediate"
    ADVANCED = "advanced"
    EXPERT = "expert"
    WORLD_CLASS = "world_class"
    SUPERNATURAL = "supernatural"


THRESHOLDS: dict[Variant, tuple[float, float, float]] = {
    Variant.BACKGAMMON: (0.04, 0.08, 0.16),
    Variant.LONG: (0.05, 0.10, 0.20),
}
"""A decision losing more than these (points) is doubtful, bad, very bad.
Backgammon: GNU Backgammon's defaults (``arSkillLevel`` in its gnubg.c);
long nardy: a quarter higher, above our own net's noise (docs/analysis.md)."""

RATINGS: tuple[tuple[float, Rating], ...] = (
    (0.002, Rating.SUPERNATURAL),
    (0.005, Rating.WORLD_CLASS),
    (0.008, Rating.EXPERT),
    (0.012, Rating.ADVANCED),
    (0.018, Rating.INTERMEDIATE),
    (0.026, Rating.CASUAL),
    (0.035, Rating.BEGINNER),
)
"""GNU Backgammon's table: an error rate (points per decision) below the
bound earns the word; :attr:`Rating.AWFUL` from 0.035 on."""

CLOSE_CUBE = 0.16
"""A position where the side on roll did not double counts as a cube
decision when doubling would have been at most this much worse than not
doubling (GNU Backgammon's rule for close cube decisions)."""

WORST = 3
"""How many of a player's biggest mistakes a report keeps."""


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision and its verdict.

    ``ply``: the index of the turn it belongs to among the game's turns
    (:attr:`Analysis.equity` has one value per turn); a cube decision
    belongs to the turn it came before.  ``side``: who decided.  ``dice``:
    the roll of a move, ``None`` for the cube.

    ``played`` and ``best``: for a move, the turn in the usual notation
    from the mover's side (``24/18 13/10*``, as :meth:`TurnChoice.notation`
    writes it; :attr:`played_steps` and :attr:`best_steps` give the steps
    to write it another way, e.g. ``format_turn(position,
    text_order(steps), numbering=...)``); for the cube, a
    :class:`CubeAction` value (``"double"``, ``"no double"``, ``"take"``,
    ``"pass"``).

    ``equity_played`` and ``equity_best``: the decider's equity after its
    choice and after the best one; ``loss = equity_best - equity_played``
    (``>= 0``).  ``grade``: ``None`` below the doubtful threshold.

    ``position``: the board the decision was made on, the decider's side
    to move (for a take: the doubler still on roll, as before its roll);
    ``played_position`` and ``best_position``: after the played and the
    best turn (the mover still to move, as :attr:`engine.Turn.position`);
    for the cube both are ``position``.  ``cube``: the cube's value when
    deciding.
    """

    ply: int
    side: Side
    kind: DecisionKind
    dice: Dice | None
    played: str
    best: str
    equity_played: float
    equity_best: float
    loss: float
    grade: Grade | None
    position: Position
    played_position: Position
    best_position: Position
    played_steps: tuple[Step, ...] = ()
    best_steps: tuple[Step, ...] = ()
    cube: int = 1


@dataclass(frozen=True, slots=True)
class Tally:
    """How many decisions of a kind went wrong and the points they lost."""

    count: int = 0
    loss: float = 0.0

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.count + other.count, self.loss + other.loss)


@dataclass(frozen=True, slots=True)
class PlayerReport:
    """One player's figures.

    ``decisions``: moves with a choice and cube decisions counted;
    ``error_rate``: millipoints lost per decision (0 without decisions);
    ``rating``: the word for it (``None`` without decisions); ``doubtful``,
    ``bad``, ``very_bad``: how many decisions got each grade; ``luck``:
    points the dice gave versus the average roll, summed over the player's
    rolls (positive: lucky); ``worst``: up to three graded decisions, the
    biggest loss first.
    """

    side: Side
    decisions: int
    error_rate: float
    rating: Rating | None
    doubtful: int
    bad: int
    very_bad: int
    luck: float
    worst: tuple[Decision, ...]
    error_total: float = 0.0
    """Points lost over all decisions."""
    moves_error: float = 0.0
    """Of :attr:`error_total`, what the moves lost (the rest: the cube)."""
    cube_decisions: int = 0
    """Of :attr:`decisions`, the cube's."""
    rolls: int = 0
    """The player's rolls: its turns (forced ones and those that could not
    be played included) and a last roll the game ended before it was
    played (:attr:`Analysis.unplayed`)."""
    both_rolls: int = 0
    """Both players' turns: Snowie's denominator."""
    result: float = 0.0
    """Points the player won (+) or lost (-) in the game(s)."""
    luck_cubed: float = 0.0
    """The luck with each roll's value times the cube then in play."""
    missed_doubles: Tally = field(default_factory=Tally)
    """Rolls without doubling where doubling was better (count, points)."""
    wrong_doubles: Tally = field(default_factory=Tally)
    """Doubles where not doubling was better (too early or too good)."""
    wrong_takes: Tally = field(default_factory=Tally)
    wrong_passes: Tally = field(default_factory=Tally)
    games: int = 1
    """Games the figures are of (:func:`totals` adds a match's up)."""
    opponent_luck_cubed: float = 0.0

    @property
    def performance_rating(self) -> float:
        """XG's performance rating (PR): 500 times the average loss per
        decision in points, i.e. half the error rate (docs/analysis.md)."""
        return self.error_rate / 2

    @property
    def snowie_error_rate(self) -> float:
        """Snowie's error rate: millipoints lost per move of *both*
        players (forced moves counted), as GNU Backgammon prints it."""
        return 1000 * self.error_total / self.both_rolls if self.both_rolls else 0.0

    @property
    def luck_rate(self) -> float:
        """Millipoints of luck per roll."""
        return 1000 * self.luck / self.rolls if self.rolls else 0.0

    @property
    def luck_adjusted(self) -> float:
        """The result with the luck taken out: points won minus the luck
        of one's own rolls plus the opponent's (each roll's luck times the
        cube then in play)."""
        return self.result - self.luck_cubed + self.opponent_luck_cubed

    @property
    def cube_errors(self) -> int:
        """How many cube decisions were wrong (any loss)."""
        return (self.missed_doubles.count + self.wrong_doubles.count + self.wrong_takes.count
                + self.wrong_passes.count)


@dataclass(frozen=True, slots=True)
class Analysis:
    """A whole game's analysis.

    ``players``: indexed by :class:`Side` (``players[Side.WHITE]``).
    ``decisions``: all of both players', in the order made.  Per turn of
    the game (index = :attr:`Decision.ply`): ``movers`` (who played it),
    ``equity`` (White's equity after it, in points), ``win_chance``
    (White's chance to win after it, 0..1) and ``luck`` (the mover's luck
    of its roll, points).
    """

    variant: Variant
    level: Level
    players: tuple[PlayerReport, PlayerReport]
    decisions: tuple[Decision, ...]
    movers: tuple[Side, ...]
    equity: tuple[float, ...]
    win_chance: tuple[float, ...]
    luck: tuple[float, ...]
    match_score: bool = False
    """Judged by match winning chances at the score (a backgammon match
    game); else by money equity."""
    start: float = 0.0
    """What the game was worth to White before its first roll, by the
    analysis's roll values: when an opening roll (the lot) decided who
    starts, the average over who starts (0: the two starts are worth the
    same) - what winning the lot was worth, the starter's equity on roll
    minus that, is luck, half to each player's figure (+ to the starter, -
    to the other) and in no roll's; else the starter's equity on roll,
    turned to White's view (a long nardy game whose starter the rules
    chose)."""
    lot: float = 0.0
    """What the opening roll that decided who starts gave White (the
    starter's equity on roll minus :attr:`start`, + when White starts; in
    backgammon the starter's equity on roll is the average of the 15 rolls
    without doubles it may play): luck of neither's dice, half of it in
    each player's :attr:`PlayerReport.luck` (White's +half, Black's
    -half)."""
    drift: tuple[float, ...] = ()
    """Per turn, in White's view: what the analysis's equities changed
    their mind by, beyond the roll's luck - the best turn's equity at the
    analysis depth minus what the previous turn left, minus the roll's
    luck (which is measured against the average roll at one depth: see
    :func:`roll_lucks`).  0 for an evaluation whose depths agree; it closes
    the luck + skill identity (:class:`Balance`)."""
    unplayed: tuple[Side, float] | None = None
    """A last roll whose turn was not played (the game ended by a
    resignation or a timeout between the roll and its move, or the turn is
    under way): its roller and its luck, which is in that player's
    :attr:`PlayerReport.luck` and :attr:`PlayerReport.rolls` but in no
    turn's (a bad roll its roller resigned on is still the dice's)."""


@dataclass(frozen=True, slots=True)
class Balance:
    """A game's luck + skill identity, from White's view, in points:
    ``result = start + luck - error + drift`` up to :attr:`residual`
    (docs/analysis.md, "Luck and skill add up").

    ``result``: the points White won (signed); ``start``:
    :attr:`Analysis.start`; ``luck``: White's luck minus Black's (each roll
    times the cube then in play); ``error``: the points White's decisions
    lost minus Black's; ``drift``: the sum of :attr:`Analysis.drift`, what
    the evaluation changed its mind by between its depths (neither dice
    nor players).
    """

    result: float
    start: float
    luck: float
    error: float
    drift: float = 0.0

    @property
    def residual(self) -> float:
        """``result - start - luck + error - drift``: 0 (up to rounding)
        for a cubeless game that ended on the board."""
        return self.result - self.start - self.luck + self.error - self.drift


def balance(analysis: Analysis) -> Balance:
    """The luck + skill identity of ``analysis`` (see :class:`Balance`).

    >>> from engine import GameOptions
    >>> balance(analyse(Game.new(GameOptions.long()))).residual
    0.0
    """
    white, black = analysis.players
    return Balance(result=white.result, start=analysis.start,
                   luck=white.luck_cubed - black.luck_cubed,
                   error=white.error_total - black.error_total,
                   drift=float(np.sum(analysis.drift)))


def grade(variant: Variant, loss: float) -> Grade | None:
    """The grade of a decision losing ``loss`` points.

    >>> grade(Variant.BACKGAMMON, 0.05), grade(Variant.BACKGAMMON, 0.2), grade(Variant.LONG, 0.05)
    (<Grade.DOUBTFUL: 'doubtful'>, <Grade.VERY_BAD: 'very_bad'>, None)
    """
    doubtful, bad, very_bad = THRESHOLDS[variant]
    if loss > very_bad:
        return Grade.VERY_BAD
    if loss > bad:
        return Grade.BAD
    if loss > doubtful:
        return Grade.DOUBTFUL
    return None


def rating(error_rate: float) -> Rating:
    """GNU Backgammon's word for an error rate in millipoints per decision.

    >>> rating(0.0), rating(4.9), rating(20.0), rating(35.0)
    (<Rating.SUPERNATURAL: 'supernatural'>, <Rating.WORLD_CLASS: 'world_class'>, \
<Rating.CASUAL: 'casual'>, <Rating.AWFUL: 'awful'>)
    """
    for bound, word in RATINGS:
        if error_rate < 1000 * bound:
            return word
    return Rating.AWFUL


# -- walking through a game ---------------------------------------------------


@dataclass
class _Ply:
    """One turn as played: the position before it, the roll, the steps."""

    side: Side
    position: Position
    dice: Dice
    steps: tuple[Step, ...]
    opening: bool
    """The game's first roll in backgammon: the opening roll (no doubles)."""
    cube: CubeState = field(default_factory=CubeState)
    """The cube (and the match score) while the turn was played."""


@dataclass
class _Cube:
    """A cube action with what it was about."""

    ply: int
    side: Side
    action: Action
    position: Position
    value: int
    owner: Side | None
    state: CubeState = field(default_factory=CubeState)


@dataclass
class _Chance:
    """A side on roll that could have doubled and did not."""

    ply: int
    side: Side
    position: Position
    value: int
    owner: Side | None
    state: CubeState = field(default_factory=CubeState)


@dataclass
class _Walk:
    """A game taken apart by :func:`_walk`."""

    plies: list[_Ply] = field(default_factory=list)
    """The turns played."""
    cubes: list[_Cube] = field(default_factory=list)
    chances: list[_Chance] = field(default_factory=list)
    """The points where the side on roll could have doubled (a live cube:
    :meth:`CubeState.may_double`) and rolled instead."""
    pending: _Ply | None = None
    """A last roll whose turn was not played (the game ended by a
    resignation or a timeout between the roll and its move, or the turn is
    under way): no turn, but its roller's roll all the same."""
    first: _Ply | None = None
    """The starter on roll before the game's first roll (its dice are the
    first roll's, or any while there is none yet); ``None`` before the
    opening."""

    @property
    def rolls(self) -> list[_Ply]:
        """Every roll: the turns', then the one not played."""
        return [*self.plies, self.pending] if self.pending is not None else self.plies


def _walk(game: Game, score: tuple[int, int]) -> _Walk:
    """The game's turns, its cube actions and rolls (:class:`_Walk`)."""
    start = starter_of(game)
    if start is None:
        return _Walk()
    options = game.options
    position = Position.initial(game.variant, start)
    plies: list[_Ply] = []
    cubes: list[_Cube] = []
    chances: list[_Chance] = []
    value, owner = 1, None
    dice: Dice | None = None
    # the starter plays the lot's two dice (no doubles): backgammon's opening roll
    opening_roll = (game.variant is Variant.BACKGAMMON and not options.opening_reroll
                    and game.opening is not None)
    pending: _Ply | None = None
    doubled = beavered = False

    def state(value: int, owner: Side | None) -> CubeState:
        return CubeState(value, owner, options.match_length, score, game.crawford,
                         options.jacoby, options.max_cube)

    for event in game.events:
        side, action = event.side, event.action
        if action is Action.ROLL:
            assert event.dice is not None
            dice = event.dice
            cube = state(value, owner)
            if options.cube and plies and not doubled and cube.may_double(side):
                chances.append(_Chance(len(plies), side, position, value, owner, cube))
            doubled = False
            pending = _Ply(side, position, dice, (), opening_roll and not plies, cube)
        elif action is Action.MOVE:
            assert dice is not None
            plies.append(_Ply(side, position, dice, event.steps, opening_roll and not plies,
                              state(value, owner)))
            pending = None
            position = _after(position, event.steps)
            if position.winner is None:
                position = end_turn(position)
        elif action in (Action.DOUBLE, Action.TAKE, Action.PASS, Action.BEAVER):
            cubes.append(_Cube(len(plies), side, action, position, value, owner,
                               state(value, owner)))
            doubled = True
            if action is Action.BEAVER:
                value, owner, beavered = value * 2, side, True
            elif action is Action.TAKE:
                value, owner, beavered = value * 2, owner if beavered else side, False
    walk = _Walk(plies, cubes, chances, pending)
    walk.first = walk.rolls[0] if walk.rolls else _Ply(
        start, Position.initial(game.variant, start), Dice(1, 2), (), opening_roll,
        state(1, None))
    return walk


# -- the analysis ---------------------------------------------------------------

_CHANCES = np.array([chance for _, chance in ROLLS])
_INDEX = {dice: index for index, (dice, _) in enumerate(ROLLS)}
_BATCH = 16
"""Positions whose rolls are evaluated in one batch (long nardy: about 400
replies each)."""
EPSILON = 1e-9
"""Losses below this are rounding (the same equity computed in another
batch), not mistakes."""


def _after(position: Position, steps: Sequence[Step]) -> Position:
    for step in steps:
        position = apply_step(position, step)
    return position


def _notation(position: Position, steps: Sequence[Step]) -> str:
    return format_turn(position, text_order(tuple(steps)))


def _played_index(turns: Sequence[Turn], after: Position) -> int:
    for index, turn in enumerate(turns):
        if turn.position == after:
            return index
    raise AnalysisError("a recorded turn is not legal: the game record is inconsistent")


def roll_lucks(player: Player, positions: Sequence[Position], *, opening: bool = False
               ) -> np.ndarray:
    """The luck of each of the 21 :data:`ROLLS` for the side on roll in
    each position, shape ``(N, 21)``: the equity after the roll's best turn
    minus the average of that over the rolls (36 weighted), both by
    :meth:`Player.roll_values` (the best turn by the player's first depth:
    GNU Backgammon's 0-ply in backgammon, the net's 1 ply in long nardy).
    Weighted by the rolls' chances, each position's row sums to 0: the dice
    favour nobody on average.  ``opening``: backgammon's opening roll,
    whose average is over the 15 rolls without doubles (:data:`OPENING`)."""
    values = player.roll_values(positions)
    weights = OPENING if opening else _CHANCES
    return np.asarray(values - (values @ weights)[:, None], dtype=float)


OPENING = np.array([0.0 if dice.is_double else 1 / 15 for dice, _ in ROLLS])
"""The chances of the rolls in backgammon's opening roll once it is known
who starts: the starter's die is the higher one, so each of the 15 rolls
without doubles is one of its 15 equally likely outcomes."""


def _weights(ply: _Ply) -> np.ndarray:
    return OPENING if ply.opening else _CHANCES


def _roll_table(player: Player, rolls: Sequence[_Ply], in_match: bool) -> np.ndarray:
    """What each of the 21 rolls would have made each of ``rolls`` worth
    to its roller, shape ``(N, 21)``: by :meth:`Player.roll_values` (the
    equity after the roll's best turn at one depth: the same at every
    analysis level), or at the match score (:func:`_match_values`).  A
    roll's luck is its column minus the row's average (:func:`_weights`):
    0 on average in every position, whatever the evaluation."""
    if in_match:
        return np.array([_match_values(player, ply) for ply in rolls]).reshape(-1, len(ROLLS))
    rows = [player.roll_values([ply.position for ply in rolls[first : first + _BATCH]])
            for first in range(0, len(rolls), _BATCH)]
    return np.concatenate(rows) if rows else np.empty((0, len(ROLLS)))


def _roll_index(dice: Dice) -> int:
    """The column of ``dice`` in :data:`ROLLS`."""
    return _INDEX[Dice(min(dice.first, dice.second), max(dice.first, dice.second))]


_LUCK_TURNS = 3
"""A match roll's value: the best of its best turns by money at 0-ply,
valued at the score."""


def _match_values(player: Player, ply: _Ply) -> np.ndarray:
    """A match roll's 21 values in EMG: each roll's best turn (of the
    :data:`_LUCK_TURNS` best by money at 0-ply) at the score at 0-ply,
    cubeful as :func:`_match_turn_emg`."""
    side, cube = ply.side, ply.cube
    values = np.empty(len(ROLLS))
    for column, (dice, _) in enumerate(ROLLS):
        turns = legal_turns(ply.position, dice)
        shallow = player.shallow(ply.position, turns)
        best = [int(i) for i in np.argsort(-shallow, kind="stable")[:_LUCK_TURNS]]
        values[column] = max(_match_turn_emg(turns[i], cube, side, 0) for i in best)
    return values


def _lot(player: Player, first: _Ply, value: float, in_match: bool) -> tuple[float, float]:
    """(start, lot) of a game whose opening roll decided who starts, from
    White's view: what the game was worth to White before it (the average
    over who starts: 0 when the two starts are worth the same) and what it
    gave White (+ when White starts), from ``value``, the starter's worth
    on roll, and the other side's had it started.  Over the lot's outcomes
    White's (and Black's) share of it averages exactly 0."""
    other = first.side.opponent
    theirs = replace(first, side=other, position=Position.initial(first.position.variant, other))
    weights = _weights(first)
    their_value = float(_roll_table(player, [theirs], in_match)[0] @ weights)
    white = first.side is Side.WHITE
    if not in_match:
        before = (value - their_value) / 2
        return (before, value - before) if white else (-before, before - value)
    # in match winning chances, then in White's EMG
    chance = from_emg(value, score_of(first.cube, first.side))
    before = (chance + 1 - from_emg(their_value, score_of(first.cube, other))) / 2
    if not white:
        chance, before = 1 - chance, 1 - before
    score = score_of(first.cube, Side.WHITE)
    return to_emg(before, score), emg_scale(score) * (chance - before)


def _move_decision(player: Player, index: int, ply: _Ply) -> tuple[Decision | None, float]:
    """The decision of a turn (``None`` when forced) and the mover's equity
    after the turn played."""
    turns = legal_turns(ply.position, ply.dice)
    after = _after(ply.position, ply.steps)
    played = _played_index(turns, after)
    if len(turns) == 1:
        # no decision; its equity at the analysis depth all the same (the
        # next roll's luck starts from it)
        return None, player.rank(ply.position, turns, full=True, judging=True)[0].equity
    ranking = player.rank(ply.position, turns, also=(played,), full=True, judging=True)
    mine = next(entry for entry in ranking if entry.turn.position == after)
    best = ranking[0]
    loss = best.equity - mine.equity
    loss = loss if loss > EPSILON else 0.0
    decision = Decision(
        ply=index,
        side=ply.side,
        kind=DecisionKind.MOVE,
        dice=ply.dice,
        played=_notation(ply.position, ply.steps),
        best=_notation(ply.position, best.turn.steps) if loss > 0 else
        _notation(ply.position, ply.steps),
        equity_played=mine.equity,
        equity_best=best.equity if loss > 0 else mine.equity,
        loss=loss,
        grade=grade(ply.position.variant, loss),
        position=ply.position,
        played_position=after,
        best_position=best.turn.position if loss > 0 else after,
        played_steps=ply.steps,
        best_steps=best.turn.steps if loss > 0 else ply.steps,
    )
    return decision, mine.equity


def _cube_equities(player: Player, position: Position, owner: Side | None, jacoby: bool
                   ) -> tuple[float, float]:
    """(no double, double) for the side on roll: cubeful equities per cube
    unit (Janowski's money model, :mod:`ai.cube`); "double" is what the
    opponent's best answer leaves (take or pass)."""
    probs = player.probabilities(position)
    assert probs is not None
    mine = owner is position.turn
    centred = owner is None
    no_double = janowski(probs, "me" if mine else "centre", gammons=not (jacoby and centred))
    double = min(2 * janowski(probs, "opponent"), 1.0)
    return no_double, double


def _cube_decision(ply: int, side: Side, position: Position, value: int, kind: DecisionKind,
                   played: CubeAction, values: dict[CubeAction, float]) -> Decision:
    best = max(values, key=lambda action: values[action])
    loss = values[best] - values[played]
    loss = loss if loss > EPSILON else 0.0
    return Decision(
        ply=ply, side=side, kind=kind, dice=None, played=played.value,
        best=(best if loss > 0 else played).value, equity_played=values[played],
        equity_best=max(values[best], values[played]), loss=loss,
        grade=grade(position.variant, loss), position=position, played_position=position,
        best_position=position, cube=value,
    )


def _cube_decisions(player: Player, game: Game, cubes: Sequence[_Cube],
                    chances: Sequence[_Chance]) -> list[Decision]:
    jacoby = game.options.jacoby
    decisions: list[Decision] = []
    for chance in chances:
        no_double, double = _cube_equities(player, chance.position, chance.owner, jacoby)
        if double - no_double > -CLOSE_CUBE:
            values = {CubeAction.NO_DOUBLE: no_double, CubeAction.DOUBLE: double}
            decisions.append(_cube_decision(chance.ply, chance.side, chance.position,
                                            chance.value, DecisionKind.DOUBLE,
                                            CubeAction.NO_DOUBLE, values))
    for cube in cubes:
        if cube.action is Action.DOUBLE:
            no_double, double = _cube_equities(player, cube.position, cube.owner, jacoby)
            values = {CubeAction.NO_DOUBLE: no_double, CubeAction.DOUBLE: double}
            decisions.append(_cube_decision(cube.ply, cube.side, cube.position, cube.value,
                                            DecisionKind.DOUBLE, CubeAction.DOUBLE, values))
        elif cube.action in (Action.TAKE, Action.PASS, Action.BEAVER):
            probs = player.probabilities(cube.position)
            assert probs is not None
            taken = -2 * janowski(probs, "opponent")
            values = {CubeAction.TAKE: taken, CubeAction.PASS: -1.0}
            played = CubeAction.PASS if cube.action is Action.PASS else CubeAction.TAKE
            decisions.append(_cube_decision(cube.ply, cube.side, cube.position, cube.value,
                                            DecisionKind.TAKE, played, values))
    return decisions


# -- matches: match winning chances at the score (ai/matchequity.py) ----------


def _in_match(player: Player, game: Game) -> bool:
    """Whether ``game`` is judged by match winning chances: backgammon in a
    match, by GNU Backgammon's nets."""
    from ai.backgammon import GnubgPlayer

    return bool(game.options.match_length) and isinstance(player, GnubgPlayer)


def _plies(player: Player) -> int:
    return 1 if player.depth.candidates else 0


def _match_turn_emg(turn: Turn, cube: CubeState, mover: Side, plies: int) -> float:
    """The mover's normalised equity (EMG) after ``turn`` at the match
    score: the opponent on roll with its best cube action when it may
    double (cubeful), the outcomes valued at the score when it may not."""
    from ai.backgammon import after_turn_probs

    mine = score_of(cube, mover)
    after = turn.position
    if after.winner is not None:
        points = classify(after).multiplier * cube.value
        won = after.winner is mover
        mwc = match_equity(mine.me - (points if won else 0), mine.them - (0 if won else points),
                           mine.later or mine.crawford)
        return to_emg(mwc, mine)
    win, wg, wbg, lg, lbg = after_turn_probs(after, plies)
    theirs = (1 - win, lg, lbg, wg, wbg)
    opponent = mover.opponent
    if cube.owner is mover and cube.may_double(mover):
        # the mover keeps its cube: its "no double" as if it were to
        # double next (the value of redoubling later, as gnubg's cubeful
        # evaluation counts it)
        no_double, _, _ = cube_mwc((win, wg, wbg, lg, lbg), mine)
        return to_emg(no_double, mine)
    mwc = 1 - cubeful_mwc(theirs, score_of(cube, opponent), cube.may_double(opponent))
    return to_emg(mwc, mine)


def _match_move_decision(player: Player, index: int, ply: _Ply) -> tuple[Decision | None, float]:
    """:func:`_move_decision` at the match score, in EMG: every turn by
    gnubg's 0-ply valued by match winning chances; at the strong level the
    best 8 within 0.16 (and the turn played) again at 1-ply, as
    :meth:`Player.rank` does for money."""
    turns = legal_turns(ply.position, ply.dice)
    after = _after(ply.position, ply.steps)
    played = _played_index(turns, after)
    cube, side = ply.cube, ply.side
    if len(turns) == 1:
        return None, _match_turn_emg(turns[0], cube, side, _plies(player))
    values = {i: _match_turn_emg(turn, cube, side, 0) for i, turn in enumerate(turns)}
    depth = player.depth
    if depth.candidates:
        order = sorted(values, key=lambda i: -values[i])
        top = values[order[0]]
        chosen = [i for i in order[: depth.candidates] if values[i] >= top - depth.margin]
        chosen += [] if played in chosen else [played]
        values = {i: _match_turn_emg(turns[i], cube, side, 1) for i in chosen}
    mine = values[played]
    best = max(values, key=lambda i: (values[i], i == played))
    loss = values[best] - mine
    loss = loss if loss > EPSILON else 0.0
    best_turn = turns[best] if loss > 0 else turns[played]
    decision = Decision(
        ply=index, side=side, kind=DecisionKind.MOVE, dice=ply.dice,
        played=_notation(ply.position, ply.steps),
        best=_notation(ply.position, best_turn.steps),
        equity_played=mine, equity_best=mine + loss, loss=loss,
        grade=grade(ply.position.variant, loss), position=ply.position, played_position=after,
        best_position=best_turn.position, played_steps=ply.steps,
        best_steps=best_turn.steps, cube=cube.value,
    )
    return decision, mine


def _match_cube_decisions(player: Player, cubes: Sequence[_Cube], chances: Sequence[_Chance]
                          ) -> list[Decision]:
    """Doubles, takes and passes judged by gnubg's cubeful match equities
    at the score (:func:`ai.matchequity.cube_mwc`), the rule the computer
    doubles and takes by in a match, in EMG of the cube decided on."""
    decisions: list[Decision] = []

    def doubling(position: Position, state: CubeState) -> dict[CubeAction, float]:
        probs = player.probabilities(position)
        assert probs is not None
        mine = score_of(state, position.turn)
        no_double, take, drop = cube_mwc(probs, mine)
        return {CubeAction.NO_DOUBLE: to_emg(no_double, mine),
                CubeAction.DOUBLE: to_emg(min(take, drop), mine)}

    for chance in chances:
        values = doubling(chance.position, chance.state)
        if values[CubeAction.DOUBLE] - values[CubeAction.NO_DOUBLE] > -CLOSE_CUBE:
            decisions.append(_cube_decision(chance.ply, chance.side, chance.position,
                                            chance.value, DecisionKind.DOUBLE,
                                            CubeAction.NO_DOUBLE, values))
    for cube in cubes:
        if cube.action is Action.DOUBLE:
            values = doubling(cube.position, cube.state)
            decisions.append(_cube_decision(cube.ply, cube.side, cube.position, cube.value,
                                            DecisionKind.DOUBLE, CubeAction.DOUBLE, values))
        elif cube.action in (Action.TAKE, Action.PASS):
            probs = player.probabilities(cube.position)
            assert probs is not None
            doubler = cube.position.turn
            _, take, drop = cube_mwc(probs, score_of(cube.state, doubler))
            taker = score_of(cube.state, cube.side)
            values = {CubeAction.TAKE: to_emg(1 - take, taker),
                      CubeAction.PASS: to_emg(1 - drop, taker)}
            played = CubeAction.PASS if cube.action is Action.PASS else CubeAction.TAKE
            decisions.append(_cube_decision(cube.ply, cube.side, cube.position, cube.value,
                                            DecisionKind.TAKE, played, values))
    return decisions


def _win_chance(player: Player, after: Position) -> float:
    """The mover's chance to win after its turn (``after``: the mover still
    to move)."""
    if after.winner is not None:
        return 1.0 if after.winner is after.turn else 0.0
    probs = player.probabilities(end_turn(after))
    assert probs is not None
    return 1.0 - probs[0]


def _cube_tally(mine: Sequence[Decision], kind: DecisionKind, played: CubeAction) -> Tally:
    wrong = [d for d in mine if d.kind is kind and d.played == played.value and d.loss > 0]
    return Tally(len(wrong), sum(d.loss for d in wrong))


def _report(side: Side, decisions: Sequence[Decision], luck: float, *, rolls: int = 0,
            both_rolls: int = 0, result: float = 0.0, luck_cubed: float = 0.0,
            opponent_luck_cubed: float = 0.0) -> PlayerReport:
    mine = [d for d in decisions if d.side is side]
    total = sum(d.loss for d in mine)
    rate = 1000 * total / len(mine) if mine else 0.0
    graded = sorted((d for d in mine if d.grade is not None), key=lambda d: -d.loss)
    return PlayerReport(
        side=side,
        decisions=len(mine),
        error_rate=rate,
        rating=rating(rate) if mine else None,
        doubtful=sum(d.grade is Grade.DOUBTFUL for d in mine),
        bad=sum(d.grade is Grade.BAD for d in mine),
        very_bad=sum(d.grade is Grade.VERY_BAD for d in mine),
        luck=luck,
        worst=tuple(graded[:WORST]),
        error_total=total,
        moves_error=sum(d.loss for d in mine if d.kind is DecisionKind.MOVE),
        cube_decisions=sum(d.kind is not DecisionKind.MOVE for d in mine),
        rolls=rolls,
        both_rolls=both_rolls,
        result=result,
        luck_cubed=luck_cubed,
        missed_doubles=_cube_tally(mine, DecisionKind.DOUBLE, CubeAction.NO_DOUBLE),
        wrong_doubles=_cube_tally(mine, DecisionKind.DOUBLE, CubeAction.DOUBLE),
        wrong_takes=_cube_tally(mine, DecisionKind.TAKE, CubeAction.TAKE),
        wrong_passes=_cube_tally(mine, DecisionKind.TAKE, CubeAction.PASS),
        opponent_luck_cubed=opponent_luck_cubed,
    )


def totals(reports: Sequence[PlayerReport]) -> PlayerReport:
    """One player's figures over several games (a match): sums, and the
    rates of the sums (not the average of the games' rates).

    >>> one = PlayerReport(Side.WHITE, 10, 5.0, Rating.WORLD_CLASS, 0, 0, 0, 0.5, (),
    ...                    error_total=0.05, rolls=20, both_rolls=40)
    >>> two = PlayerReport(Side.WHITE, 30, 15.0, Rating.INTERMEDIATE, 1, 0, 0, -0.25, (),
    ...                    error_total=0.45, rolls=30, both_rolls=60)
    >>> both = totals([one, two])
    >>> both.decisions, both.error_rate, both.performance_rating, both.snowie_error_rate, both.games
    (40, 12.5, 6.25, 5.0, 2)
    """
    if not reports:
        raise ValueError("totals of no games")
    first = reports[0]
    decisions = sum(r.decisions for r in reports)
    total = sum(r.error_total for r in reports)
    rate = 1000 * total / decisions if decisions else 0.0
    worst = sorted((d for r in reports for d in r.worst), key=lambda d: -d.loss)[:WORST]

    def tally(name: str) -> Tally:
        return sum((getattr(r, name) for r in reports), Tally())

    return replace(
        first, decisions=decisions, error_rate=rate,
        rating=rating(rate) if decisions else None,
        doubtful=sum(r.doubtful for r in reports), bad=sum(r.bad for r in reports),
        very_bad=sum(r.very_bad for r in reports), luck=sum(r.luck for r in reports),
        worst=tuple(worst), error_total=total, moves_error=sum(r.moves_error for r in reports),
        cube_decisions=sum(r.cube_decisions for r in reports),
        rolls=sum(r.rolls for r in reports), both_rolls=sum(r.both_rolls for r in reports),
        result=sum(r.result for r in reports), luck_cubed=sum(r.luck_cubed for r in reports),
        opponent_luck_cubed=sum(r.opponent_luck_cubed for r in reports),
        missed_doubles=tally("missed_doubles"), wrong_doubles=tally("wrong_doubles"),
        wrong_takes=tally("wrong_takes"), wrong_passes=tally("wrong_passes"),
        games=sum(r.games for r in reports),
    )


def analyse(game: Game, *, score: tuple[int, int] = (0, 0), level: Level = DEFAULT_LEVEL,
            player: Player | None = None) -> Analysis:
    """Analyse ``game`` (finished, or its turns so far; a turn being
    played is left out) at ``level``'s depth.

    ``score``: in a match, the points (White, Black) before this game
    (``MatchState.score`` minus this game's result once it is counted).  A
    backgammon match game is judged by match winning chances at that score
    (:mod:`ai.matchequity`: gammons worth what they bring, Crawford and dead
    cubes, cube decisions by gnubg's cubeful match equities, losses in
    normalised EMG); money games by cubeless equity and the money cube of
    :mod:`ai.cube`.  ``player``: an evaluating player of the game's variant
    to use instead of a new one (tests).
    """
    from ai import make_player

    if not isinstance(game, Game):
        raise AnalysisError(f"analyse needs an engine Game, got {type(game).__name__}")
    variant = game.variant
    player = player or make_player(variant, level, koks=game.options.koks)
    if player.variant is not variant:
        raise AnalysisError(f"a {player.variant.value} player cannot analyse {variant.value}")
    walk = _walk(game, score)
    plies, pending = walk.plies, walk.pending
    in_match = _in_match(player, game)
    decide = _match_move_decision if in_match else _move_decision
    decisions: list[Decision] = []
    equity: list[float] = []
    chance: list[float] = []
    # every roll's luck against the average of its position's rolls at one
    # depth (_roll_table: 0 on average for each position, the same at every
    # level); what the analysis depth's equities say beyond it is the
    # evaluation's drift (Balance.drift)
    rolls = walk.rolls
    table = _roll_table(player, rolls, in_match)
    averages = [float(row @ _weights(ply)) for ply, row in zip(rolls, table, strict=True)]
    lucks = [float(row[_roll_index(ply.dice)]) - average
             for ply, row, average in zip(rolls, table, averages, strict=True)]
    luck = lucks[: len(plies)]
    start = lot = on_roll = 0.0
    if walk.first is not None:
        # what being on roll at the start was worth to the starter, by the
        # same roll values: a lot (the opening roll) that decided who
        # starts is luck shared by both, else nobody's
        first = walk.first
        on_roll = averages[0] if rolls else float(
            _roll_table(player, [first], in_match)[0] @ _weights(first))
        if game.opening is not None:
            start, lot = _lot(player, first, on_roll, in_match)
        else:  # (long nardy: no match game is judged at the score)
            start = on_roll if first.side is Side.WHITE else -on_roll
    # the roller's equity before the roll: what the previous turn left
    before = on_roll
    drift: list[float] = []
    for index, ply in enumerate(plies):
        decision, mine = decide(player, index, ply)
        if decision is not None:
            decisions.append(decision)
        best = mine + (decision.loss if decision is not None else 0.0)
        drift.append(best - before - luck[index])
        before = -mine
        white = ply.side is Side.WHITE
        equity.append(mine if white else -mine)
        win = _win_chance(player, _after(ply.position, ply.steps))
        chance.append(win if white else 1.0 - win)
    if game.options.cube:
        decisions.extend(_match_cube_decisions(player, walk.cubes, walk.chances) if in_match
                         else _cube_decisions(player, game, walk.cubes, walk.chances))
        decisions.sort(key=lambda d: (d.ply, d.kind is DecisionKind.MOVE))
    # every roll in its roller's figures, a last one not played included
    shares = {Side.WHITE: lot / 2, Side.BLACK: -lot / 2}
    own = {side: [(v, p) for v, p in zip(lucks, rolls, strict=True) if p.side is side]
           for side in Side}
    total = {side: shares[side] + float(np.sum([v for v, _ in own[side]])) for side in Side}
    cubed = {side: shares[side] + float(np.sum([v * p.cube.value for v, p in own[side]]))
             for side in Side}
    result = game.result
    reports = tuple(
        _report(side, decisions, total[side], rolls=len(own[side]),
                both_rolls=len(plies),
                result=0.0 if result is None else
                float(result.points if result.winner is side else -result.points),
                luck_cubed=cubed[side], opponent_luck_cubed=cubed[side.opponent])
        for side in (Side.WHITE, Side.BLACK))
    return Analysis(
        variant=variant, level=player.level if hasattr(player, "level") else level,
        players=(reports[0], reports[1]), decisions=tuple(decisions),
        movers=tuple(p.side for p in plies), equity=tuple(equity), win_chance=tuple(chance),
        luck=tuple(luck), match_score=in_match, start=start, lot=lot,
        unplayed=None if pending is None else (pending.side, lucks[-1]),
        drift=tuple(d if m is Side.WHITE else -d
                    for d, m in zip(drift, (p.side for p in plies), strict=True)),
    )
