"""After the game: every decision of both players judged by the computer
player's evaluation, with the luck of the dice (docs/analysis.md).

>>> import random
>>> from ai import Level, make_player
>>> from ai.arena import play_recorded
>>> players = [make_player(Variant.LONG, Level.MEDIUM, seed) for seed in (1, 2)]
>>> report = analyse(play_recorded(players, random.Random(4)), level=Level.MEDIUM)
>>> report.players[Side.WHITE].error_rate, report.players[Side.BLACK].rating
(0.0, <Rating.SUPERNATURAL: 'supernatural'>)

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
from dataclasses import dataclass

import numpy as np

from ai.cube import CubeState, janowski
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


@dataclass
class _Cube:
    """A cube action with what it was about."""

    ply: int
    side: Side
    action: Action
    position: Position
    value: int
    owner: Side | None


@dataclass
class _Chance:
    """A side on roll that could have doubled and did not."""

    ply: int
    side: Side
    position: Position
    value: int
    owner: Side | None


def _walk(game: Game, score: tuple[int, int]) -> tuple[list[_Ply], list[_Cube], list[_Chance]]:
    """The game's turns, its cube actions, and the points where the side on
    roll could have doubled (a live cube: :meth:`CubeState.may_double`) and
    rolled instead."""
    start = starter_of(game)
    if start is None:
        return [], [], []
    options = game.options
    position = Position.initial(game.variant, start)
    plies: list[_Ply] = []
    cubes: list[_Cube] = []
    chances: list[_Chance] = []
    value, owner = 1, None
    dice: Dice | None = None
    opening_roll = game.variant is Variant.BACKGAMMON and not options.opening_reroll
    doubled = beavered = False
    for event in game.events:
        side, action = event.side, event.action
        if action is Action.ROLL:
            assert event.dice is not None
            dice = event.dice
            cube = CubeState(value, owner, options.match_length, score, game.crawford,
                             options.jacoby, options.max_cube)
            if options.cube and plies and not doubled and cube.may_double(side):
                chances.append(_Chance(len(plies), side, position, value, owner))
            doubled = False
        elif action is Action.MOVE:
            assert dice is not None
            plies.append(_Ply(side, position, dice, event.steps, opening_roll and not plies))
            position = _after(position, event.steps)
            if position.winner is None:
                position = end_turn(position)
        elif action in (Action.DOUBLE, Action.TAKE, Action.PASS, Action.BEAVER):
            cubes.append(_Cube(len(plies), side, action, position, value, owner))
            doubled = True
            if action is Action.BEAVER:
                value, owner, beavered = value * 2, side, True
            elif action is Action.TAKE:
                value, owner, beavered = value * 2, owner if beavered else side, False
    return plies, cubes, chances


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


def _lucks(player: Player, plies: Sequence[_Ply]) -> list[float]:
    """Each roll's luck for its roller: its equity after the best turn
    with the roll it got minus the average over all rolls, at the player's
    shallow depth (as GNU Backgammon, which judges luck at 0 ply).  The
    backgammon opening roll's average is 0: it also decides who moves, and
    the starting position is the same for both (GNU Backgammon's rule)."""
    lucks: list[float] = []
    for first in range(0, len(plies), _BATCH):
        batch = plies[first : first + _BATCH]
        values = player.roll_values([ply.position for ply in batch])
        for ply, row in zip(batch, values, strict=True):
            high, low = max(ply.dice.first, ply.dice.second), min(ply.dice.first, ply.dice.second)
            average = 0.0 if ply.opening else float(row @ _CHANCES)
            lucks.append(float(row[_INDEX[Dice(low, high)]]) - average)
    return lucks


def _move_decision(player: Player, index: int, ply: _Ply) -> tuple[Decision | None, float]:
    """The decision of a turn (``None`` when forced) and the mover's equity
    after the turn played."""
    turns = legal_turns(ply.position, ply.dice)
    after = _after(ply.position, ply.steps)
    played = _played_index(turns, after)
    if len(turns) == 1:
        return None, float(player.shallow(ply.position, turns)[0])
    ranking = player.rank(ply.position, turns, also=(played,), full=True)
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


def _win_chance(player: Player, after: Position) -> float:
    """The mover's chance to win after its turn (``after``: the mover still
    to move)."""
    if after.winner is not None:
        return 1.0 if after.winner is after.turn else 0.0
    probs = player.probabilities(end_turn(after))
    assert probs is not None
    return 1.0 - probs[0]


def _report(side: Side, decisions: Sequence[Decision], luck: float) -> PlayerReport:
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
    )


def analyse(game: Game, *, score: tuple[int, int] = (0, 0), level: Level = DEFAULT_LEVEL,
            player: Player | None = None) -> Analysis:
    """Analyse ``game`` (finished, or its turns so far; a turn being
    played is left out) at ``level``'s depth.

    ``score``: in a match, the points (White, Black) before this game
    (``MatchState.score`` minus this game's result once it is counted); it
    only tells when the cube is dead.  Cube decisions (backgammon with the
    cube) are judged by the money rules of :mod:`ai.cube` (also in
    matches).  ``player``: an evaluating
    player of the game's variant to use instead of a new one (tests).
    """
    from ai import make_player

    if not isinstance(game, Game):
        raise AnalysisError(f"analyse needs an engine Game, got {type(game).__name__}")
    variant = game.variant
    player = player or make_player(variant, level, koks=game.options.koks)
    if player.variant is not variant:
        raise AnalysisError(f"a {player.variant.value} player cannot analyse {variant.value}")
    plies, cubes, chances = _walk(game, score)
    decisions: list[Decision] = []
    equity: list[float] = []
    chance: list[float] = []
    luck = _lucks(player, plies)
    for index, ply in enumerate(plies):
        decision, mine = _move_decision(player, index, ply)
        if decision is not None:
            decisions.append(decision)
        white = ply.side is Side.WHITE
        equity.append(mine if white else -mine)
        win = _win_chance(player, _after(ply.position, ply.steps))
        chance.append(win if white else 1.0 - win)
    if game.options.cube:
        decisions.extend(_cube_decisions(player, game, cubes, chances))
        decisions.sort(key=lambda d: (d.ply, d.kind is DecisionKind.MOVE))
    lucks = {side: float(np.sum([v for v, p in zip(luck, plies, strict=True) if p.side is side]))
             for side in Side}
    reports = (_report(Side.WHITE, decisions, lucks[Side.WHITE]),
               _report(Side.BLACK, decisions, lucks[Side.BLACK]))
    return Analysis(
        variant=variant, level=player.level if hasattr(player, "level") else level,
        players=reports, decisions=tuple(decisions), movers=tuple(p.side for p in plies),
        equity=tuple(equity), win_chance=tuple(chance), luck=tuple(luck),
    )
