"""Legal turns and steps: the move generator for both variants.

:func:`legal_turns` lists every distinct position one complete legal turn can
reach; :class:`TurnInProgress` lets a player build such a turn one step at a
time, never offering a step that leads to a dead end or breaks the maximum
rule.  The search itself lives in :mod:`engine._movegen`.

>>> start = Position.initial(Variant.LONG)
>>> [turn.steps for turn in legal_turns(start, Dice(6, 6))]
[(Step(source=24, target=18, die=6), Step(source=24, target=18, die=6))]
>>> tip = TurnInProgress(start, Dice(6, 5)).play(Step(24, 18, 6))
>>> sorted(tip.legal_steps, key=lambda step: step.source)
[Step(source=18, target=13, die=5)]
>>> tip.play(Step(18, 13, 5)).finish().turn
<Side.BLACK: 1>
"""

from __future__ import annotations

import copy
from collections.abc import Hashable
from dataclasses import FrozenInstanceError, dataclass, field

from engine._movegen import (
    _CODE_BYTES,
    BAR,
    OFF,
    Code,
    Generator,
    Path,
    Row,
    final_states,
    long_key,
)
from engine.position import (
    Dice,
    IllegalStepError,
    Position,
    Side,
    Step,
    Variant,
    check_type,
)


def _check_start(position: object, dice: object) -> None:
    check_type(position, Position, "the position", IllegalStepError)
    check_type(dice, Dice, "the dice", IllegalStepError)


class Turn:
    """One complete legal turn: its steps and the position they reach (the
    same side still to move; :func:`end_turn` hands the dice over).

    An immutable value like a frozen dataclass: equal and hashed by
    ``(steps, position)``.  The turns :func:`legal_turns` lists build their
    position on first use: most callers pick one turn of many.

    >>> start = Position.initial(Variant.LONG)
    >>> lazy, built = legal_turns(start, Dice(6, 6))[0], legal_turns(start, Dice(6, 6))[0]
    >>> eager = Turn(built.steps, built.position)
    >>> lazy == eager, hash(lazy) == hash(eager), lazy == Turn((), start)
    (True, True, False)
    >>> lazy.steps = ()
    Traceback (most recent call last):
    dataclasses.FrozenInstanceError: cannot assign to field 'steps'
    >>> import pickle  # it crosses to a worker process and back (hints, analysis)
    >>> pickle.loads(pickle.dumps(lazy)) == lazy
    True
    """

    __slots__ = ("_origin", "_position", "steps")
    steps: tuple[Step, ...]
    _position: Position
    _origin: tuple[Position, Generator, Code] | None
    """Where a position not built yet comes from: the start, its search and
    the state; ``None`` once built."""

    def __init__(self, steps: tuple[Step, ...], position: Position) -> None:
        _set_steps(self, steps)
        _set_position(self, position)
        _set_origin(self, None)

    @property
    def position(self) -> Position:
        origin = self._origin
        if origin is None:
            return self._position
        start, gen, code = origin
        position = _position_at(start, *gen.rows_of(code))
        _set_position(self, position)
        _set_origin(self, None)
        return position

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Turn:
            return NotImplemented
        assert isinstance(other, Turn)
        return self.steps == other.steps and self.position == other.position

    def __hash__(self) -> int:
        return hash((self.steps, self.position))

    def __repr__(self) -> str:
        return f"Turn(steps={self.steps!r}, position={self.position!r})"

    def __reduce__(self) -> tuple[type[Turn], tuple[tuple[Step, ...], Position]]:
        return Turn, (self.steps, self.position)

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")


_new = object.__new__
_set_variant, _set_board, _set_turn, _set_first_turn = (
    getattr(Position, name).__set__ for name in ("variant", "board", "turn", "first_turn")
)
_set_steps, _set_position, _set_origin = (
    getattr(Turn, name).__set__ for name in ("steps", "_position", "_origin")
)


PACKED_BYTES = _CODE_BYTES
"""The length of one of :func:`packed_results`' rows."""


def packed_results(position: Position, dice: Dice) -> list[bytes]:
    """The mover's points after each distinct legal turn, packed as the move
    generator's state codes (:data:`PACKED_BYTES` each; byte ``p`` is the
    number of the mover's checkers on their point ``p``, 1..24), one per
    result of :func:`legal_turns`, in the generator's order; the position
    itself when nothing can be played.  The fast core without a
    :class:`Position` per turn, for searches that meet hundreds of them."""
    gen = _generator(position, dice)
    codes = sorted(final_states(gen, (dice.first, dice.second))) or [gen.code]
    return [code.to_bytes(_CODE_BYTES, "little") for code in codes]


def results_key(position: Position) -> Hashable:
    """What :func:`packed_results` depends on besides the roll: two
    positions with equal keys have the same packed results for every roll.
    In long nardy the opponent's checkers count only by the points they
    hold and the rearmost of them (:func:`engine._movegen.long_key`), so a
    search that meets the same mover against many replies of its opponent
    generates its turns once; in backgammon, where a hit changes the
    opponent, the key is the whole position."""
    if position.variant is not Variant.LONG:
        return position
    opponent, mover = position.board if position.turn else position.board[::-1]
    return long_key(mover, opponent, position.first_turn)


def _generator(position: Position, dice: Dice, strict: bool = True) -> Generator:
    opponent, mover = position.board if position.turn else position.board[::-1]
    return Generator(
        position.variant is Variant.LONG,
        mover,
        opponent,
        position.first_turn,
        (dice.first, dice.second),
        strict,
    )


def _position_at(start: Position, mover: Row, opponent: Row) -> Position:
    """``start`` with the mover's and the opponent's rows replaced.

    Built without the value object's checks (through the slot descriptors,
    as a frozen dataclass's own ``__init__`` does): legal steps from a valid
    position cannot make an invalid one, and the checks would cost more than
    the whole search.
    """
    position: Position = _new(Position)
    _set_variant(position, start.variant)
    _set_board(position, (mover, opponent) if start.turn is Side.WHITE else (opponent, mover))
    _set_turn(position, start.turn)
    _set_first_turn(position, start.first_turn)
    return position


def _turns(start: Position, gen: Generator, paths: dict[Code, Path]) -> list[Turn]:
    """Turns reaching the generator states ``paths`` from ``start`` (the
    mover still to move), sorted by state code: a stable order.  Their
    positions are built when first read."""
    found = []
    for code in sorted(paths):
        turn: Turn = _new(Turn)
        _set_steps(turn, paths[code])
        _set_origin(turn, (start, gen, code))
        found.append(turn)
    return found


def legal_turns(position: Position, dice: Dice) -> list[Turn]:
    """Every distinct position reachable by one complete legal turn, each
    with one step sequence that reaches it.  When nothing can be played: a
    single ``Turn((), position)``.

    The order is stable (the same for the same input, across runs): turns
    without hits first, then ascending in the mover's checker counts read
    from the back (bar, 24, 23, ..., 1), so turns that moved the rearmost
    checkers come first.  (That is the order of the packed search states,
    free to sort by; ``python -m engine legal`` sorts by board instead.)

    >>> turns = legal_turns(Position.initial(Variant.BACKGAMMON), Dice(3, 1))
    >>> len(turns), turns[0].steps
    (16, (Step(source=24, target=21, die=3), Step(source=24, target=23, die=1)))
    """
    _check_start(position, dice)
    gen = _generator(position, dice)
    finals = final_states(gen, (dice.first, dice.second))
    if not finals:
        return [Turn((), position)]
    return _turns(position, gen, finals)


def apply_step(position: Position, step: Step) -> Position:
    """Move one checker (hitting in backgammon); the mover stays to move.
    Raises :class:`IllegalStepError` for a step the checkers do not allow
    (no checker there, a blocked point, checkers left on the bar, bearing off
    too early or with a too small die); rule-level legality (maximum rule,
    head rule, block rule) is :class:`TurnInProgress`'s business.

    >>> after = apply_step(Position.initial(Variant.BACKGAMMON), Step(13, 7, 6))
    >>> after.checkers(Side.WHITE, 7), after.turn
    (1, <Side.WHITE: 0>)
    """
    check_type(position, Position, "the position", IllegalStepError)
    check_type(step, Step, "a step", IllegalStepError)
    gen = _generator(position, Dice(step.die, step.die), strict=False)
    for move in gen.moves(step.die):
        if move[2] == step:
            return _position_at(position, *gen.rows_of(gen.child(move)))
    row = position.board[position.turn]
    if not row[step.source - 1]:
        reason = f"no checker on {step.source}"
    elif row[BAR - 1] and step.source != BAR:
        reason = "checkers on the bar must enter first"
    elif step.target == OFF:
        reason = "cannot bear off now"
    else:
        reason = f"point {step.target} is closed"
    raise IllegalStepError(f"step {step.source}/{step.target} with a {step.die}: {reason}")


def end_turn(position: Position) -> Position:
    """Hand the dice to the opponent (its first turn is re-derived).

    >>> end_turn(Position.initial(Variant.LONG)).turn
    <Side.BLACK: 1>
    """
    check_type(position, Position, "the position", IllegalStepError)
    return Position.from_rows(position.variant, position.board, position.turn.opponent)


Dice_ = tuple[int, ...]
"""Dice still to play, larger first."""
Node = tuple[Code, Dice_]
"""A state inside a turn: generator state code and the dice still to play."""


class _TurnTree:
    """The legal step sequences of one turn, explored lazily and memoised.

    Every state reached is a :data:`Node`; ``depth`` is how many more dice can
    be played from it.  A step is legal when it leads to a node from which the
    turn can still be completed with the maximum number of dice.
    """

    def __init__(self, position: Position, dice: Dice) -> None:
        self.gen = _generator(position, dice)
        self.root: Node = (self.gen.code, dice.steps)
        self.double = dice.is_double
        self._children: dict[Node, list[tuple[Step, Node]]] = {}
        self._depth: dict[Node, int] = {}
        self._finals: dict[Node, frozenset[Code]] = {}
        self.longest = self.depth(self.root)

    def children(self, node: Node) -> list[tuple[Step, Node]]:
        found = self._children.get(node)
        if found is None:
            key, dice = node
            gen = self.gen
            gen.reset(key)
            found = []
            for i, die in enumerate(dice):
                if die in dice[:i]:
                    continue
                rest = dice[:i] + dice[i + 1 :]
                found.extend((move[2], (gen.child(move), rest)) for move in gen.moves(die))
            self._children[node] = found
        return found

    def depth(self, node: Node) -> int:
        found = self._depth.get(node)
        if found is None:
            found = 0
            for _, child in self.children(node):
                found = max(found, 1 + self.depth(child))
                if found == len(node[1]):
                    break
            self._depth[node] = found
        return found

    def next_steps(self, node: Node, played: int) -> dict[Step, Node]:
        """Steps that begin a maximal completion of a turn at ``node`` after
        ``played`` steps, with the node each leads to."""
        need = self.longest - played
        steps = {
            step: child
            for step, child in self.children(node)
            if need > 0 and 1 + self.depth(child) == need
        }
        if self.longest == 1 and not self.double:
            # only one die can be played: the larger one if possible
            larger = {step: child for step, child in steps.items() if step.die == node[1][0]}
            return larger or steps
        return steps

    def played_at(self, node: Node) -> int:
        """How many steps were played to reach ``node`` (its dice tell)."""
        return len(self.root[1]) - len(node[1])

    def finals(self, node: Node) -> frozenset[Code]:
        """The states of the complete legal turns that go through ``node``."""
        found = self._finals.get(node)
        if found is None:
            played = self.played_at(node)
            if played >= self.longest:
                found = frozenset((node[0],))
            else:
                found = frozenset().union(
                    *(self.finals(child) for child in self.next_steps(node, played).values())
                )
            self._finals[node] = found
        return found

    def single_final(self, node: Node) -> Code | None:
        """The one state every legal completion from ``node`` reaches, or
        ``None`` when there are two or more (found without listing them all:
        the search stops at the second)."""
        found: Code | None = None
        seen: set[Node] = set()
        stack = [node]
        while stack:
            here = stack.pop()
            if here in seen:
                continue
            seen.add(here)
            played = self.played_at(here)
            if played >= self.longest:
                if found is None:
                    found = here[0]
                elif found != here[0]:
                    return None
                continue
            stack.extend(self.next_steps(here, played).values())
        return found

    def groups(self, node: Node) -> dict[Step, frozenset[Step]]:
        """The legal next steps at ``node`` grouped by identical result, by
        each group's representative (the step using the larger die).

        Two steps have an identical result when they reach the same position
        *and* the same set of complete turns from there.  The position alone
        is not enough in general: the steps may leave different dice to play.
        (Under these rules it is: two steps reach one position only by
        bearing off the same checker with two dice both at least the highest
        point, and then either remaining die can only bear off from the
        highest point too; the definition does not lean on that.)
        """
        options = self.next_steps(node, self.played_at(node))
        by_code: dict[Code, list[Step]] = {}
        for step, child in options.items():
            by_code.setdefault(child[0], []).append(step)
        grouped: list[list[Step]] = []
        for steps in by_code.values():
            if len({options[step] for step in steps}) == 1:
                grouped.append(steps)
                continue
            by_finals: dict[frozenset[Code], list[Step]] = {}
            for step in steps:
                by_finals.setdefault(self.finals(options[step]), []).append(step)
            grouped.extend(by_finals.values())
        return {max(steps, key=_larger_die): frozenset(steps) for steps in grouped}


def _larger_die(step: Step) -> tuple[int, int, int]:
    return step.die, step.source, step.target




@dataclass(frozen=True)
class TurnInProgress:
    """A turn being played step by step, as a tap interface does it.

    :meth:`play` and :meth:`undo` share the turn's search (built lazily,
    ~30 µs to start); building one from ``(start, dice, played)`` starts a
    new search.  ``played`` must follow the rules, else
    :class:`IllegalStepError`.

    >>> tip = TurnInProgress(Position.initial(Variant.BACKGAMMON), Dice(6, 5))
    >>> tip.is_complete, len(tip.legal_steps)
    (False, 5)
    >>> tip.play(Step(24, 18, 6)).play(Step(18, 13, 5)).is_complete
    True
    """

    start: Position
    dice: Dice
    played: tuple[Step, ...] = ()
    _tree: _TurnTree = field(init=False, repr=False, compare=False)
    _node: Node = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_start(self.start, self.dice)
        if not isinstance(self.played, tuple):
            raise IllegalStepError(f"the steps played are a tuple, got {self.played!r}")
        for step in self.played:
            check_type(step, Step, "a step", IllegalStepError)
        object.__setattr__(self, "_tree", _TurnTree(self.start, self.dice))
        self._walk()

    def _walk(self) -> None:
        tree = self._tree
        node = tree.root
        for done, step in enumerate(self.played):
            options = tree.next_steps(node, done)
            if step not in options:
                raise IllegalStepError(self._refusal(step, done))
            node = options[step]
        object.__setattr__(self, "_node", node)

    def _with_played(self, played: tuple[Step, ...]) -> TurnInProgress:
        """This turn with ``played`` instead, sharing the search (no cache
        needed: a cache of searches kept hundreds of dead turns' trees alive
        for the garbage collector to walk)."""
        turn = copy.copy(self)
        object.__setattr__(turn, "played", played)
        turn._walk()
        return turn

    def _refusal(self, step: Step, done: int) -> str:
        tree = self._tree
        move = f"{step.source}/{step.target} with a {step.die}"
        if done >= tree.longest:
            return f"{move}: the turn is complete"
        return f"{move} is not legal here"

    @property
    def position(self) -> Position:
        """Where the steps played so far lead (the mover still to move)."""
        return _position_at(self.start, *self._tree.gen.rows_of(self._node[0]))

    @property
    def legal_steps(self) -> frozenset[Step]:
        """Exactly the steps that begin some maximal legal turn from here."""
        return frozenset(self._tree.next_steps(self._node, len(self.played)))

    @property
    def distinct_steps(self) -> frozenset[Step]:
        """One step per distinct result among :attr:`legal_steps`: steps
        reaching the same position with the same complete turns still
        possible are one choice (``1/off`` with a 6 or with a 3, everything
        on point 1).  Each stands for :meth:`equivalent_steps`; the one
        shown is the step using the larger die.

        >>> home = [3] + [0] * 24
        >>> tip = TurnInProgress(Position.from_rows(Variant.BACKGAMMON, [home, home]), Dice(6, 3))
        >>> sorted(tip.legal_steps, key=lambda step: step.die)
        [Step(source=1, target=0, die=3), Step(source=1, target=0, die=6)]
        >>> tip.distinct_steps
        frozenset({Step(source=1, target=0, die=6)})
        """
        return frozenset(self._tree.groups(self._node))

    def equivalent_steps(self, step: Step) -> frozenset[Step]:
        """The legal steps with the same result as the legal ``step`` (itself
        included); :class:`IllegalStepError` for a step not legal here."""
        check_type(step, Step, "a step", IllegalStepError)
        for group in self._tree.groups(self._node).values():
            if step in group:
                return group
        raise IllegalStepError(self._refusal(step, len(self.played)))

    @property
    def forced_steps(self) -> tuple[Step, ...] | None:
        """The steps that complete the turn when only one result is left
        from here (``()`` when it is complete, or when nothing can be
        played), else ``None``.  Played through :meth:`play`, they reach it.

        >>> first = TurnInProgress(Position.initial(Variant.LONG), Dice(1, 5))
        >>> first.forced_steps  # long nardy's first turn: one checker leaves the head
        (Step(source=24, target=19, die=5), Step(source=19, target=18, die=1))
        >>> print(TurnInProgress(Position.initial(Variant.BACKGAMMON), Dice(1, 5)).forced_steps)
        None
        """
        tree = self._tree
        if tree.single_final(self._node) is None:
            return None
        steps: list[Step] = []
        node, played = self._node, len(self.played)
        while played < tree.longest:
            # every completion reaches the one result: any step will do
            options = tree.next_steps(node, played)
            step = max(options, key=_larger_die)
            steps.append(step)
            node, played = options[step], played + 1
        return tuple(steps)

    @property
    def is_complete(self) -> bool:
        """The steps played form a complete legal turn (may be confirmed)."""
        return len(self.played) == self._tree.longest

    def play(self, step: Step) -> TurnInProgress:
        check_type(step, Step, "a step", IllegalStepError)
        return self._with_played((*self.played, step))

    def undo(self) -> TurnInProgress:
        if not self.played:
            raise IllegalStepError("no step to undo")
        return self._with_played(self.played[:-1])

    def finish(self) -> Position:
        """The position after the turn with the opponent to move."""
        if not self.is_complete:
            left = self._tree.longest - len(self.played)
            raise IllegalStepError(f"the turn is not complete: {left} more to play")
        return end_turn(self.position)
