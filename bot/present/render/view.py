"""What a board picture shows, and where: :class:`BoardView` and its geometry.

Both renderers (:mod:`bot.present.render.text`, :mod:`bot.present.render.png`) draw a
:class:`BoardView` and share the geometry below, so the text board, the
picture and the move buttons (:func:`point_label`) always print the same
numbers.

Layout.  The checkers stay where they are for the whole game: ``viewer`` is
the side drawn at the bottom (fixed by the bot), and only the numbers change,
printed for ``numbering`` (the player to act), so the buttons match them.
Seen from the bottom side's numbering: the viewer's points 1..12 run along the bottom
from right to left, 13..24 along the top from left to right, so the viewer
moves counterclockwise and bears off at the bottom right.  In backgammon this
is the standard board with the viewer's home at the bottom right.  In long
nardy both sides move counterclockwise; the viewer's head (own point 24)
is the top-right corner and the opponent's head (the viewer's 12) the
bottom-left corner, the conventional long nardy picture ("both players
move counterclockwise", Lithuanian rules).  Opponent checkers are drawn on
the viewer's numbers via :func:`engine.opponent_point`.

>>> view = BoardView(Position.initial(Variant.BACKGAMMON), viewer=Side.WHITE)
>>> view.pips(Side.WHITE), view.top, view.bottom
(167, <Side.BLACK: 1>, <Side.WHITE: 0>)
>>> point_label(Variant.BACKGAMMON, Side.BLACK, Side.WHITE, 24)
'1'
>>> cell_of(13), cell_of(12), cell_of(1)
((0, 0), (1, 0), (1, 11))
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields

from engine import notation
from engine.position import (
    BAR,
    OFF,
    POINTS,
    Dice,
    EngineError,
    Position,
    Side,
    Step,
    Variant,
    opponent_point,
)

HALF = 6
"""Points per quarter; a row (top or bottom) is two quarters split by the bar."""
MAX_CUBE = 4096


class RenderError(ValueError):
    """A :class:`BoardView` that cannot be drawn: wrong types or values."""


def _check_side(name: str, value: object) -> Side:
    if not isinstance(value, Side):
        raise RenderError(f"{name} must be a Side, got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class LastTurn:
    """The steps one side just played, in the mover's own numbering.

    ``start`` is the position before the turn; with it a backgammon hit can
    be told (the target held a single opponent checker), without it hits are
    not marked.  ``dice`` is the roll the turn played, named wherever the
    turn is written ("Last: Bob (6-1) 24/18 13/12").
    """

    side: Side
    steps: tuple[Step, ...]
    start: Position | None = None
    dice: Dice | None = None

    def __post_init__(self) -> None:
        _check_side("LastTurn.side", self.side)
        if not isinstance(self.steps, Sequence) or isinstance(self.steps, str):
            raise RenderError(f"LastTurn.steps must be a sequence of Step, got {self.steps!r}")
        object.__setattr__(self, "steps", tuple(self.steps))
        for step in self.steps:
            if not isinstance(step, Step):
                raise RenderError(f"LastTurn.steps must hold Step objects, got {step!r}")
        if self.dice is not None and not isinstance(self.dice, Dice):
            raise RenderError(f"LastTurn.dice must be Dice or None, got {self.dice!r}")
        if self.start is not None:
            if not isinstance(self.start, Position):
                raise RenderError(f"LastTurn.start must be a Position, got {self.start!r}")
            if self.start.turn is not self.side:
                raise RenderError("LastTurn.start must have LastTurn.side to move")
            try:
                notation.hits(self.start, self.steps)
            except EngineError as error:
                raise RenderError(f"LastTurn.steps cannot be played from start: {error}") from error

    def hits(self) -> tuple[bool, ...]:
        """For each step, whether it hit an opponent blot (all ``False``
        without ``start``).

        >>> rows = [[0] * 25, [0] * 25]
        >>> rows[0][12], rows[0][7], rows[1][14] = 14, 1, 1   # Black blot on White's 10
        >>> start = Position.from_rows(Variant.BACKGAMMON, rows)
        >>> LastTurn(Side.WHITE, [Step(13, 10, 3)], start).hits()
        (True,)
        """
        if self.start is None:
            return tuple(False for _ in self.steps)
        return notation.hits(self.start, self.steps)

    def net_moves(self) -> tuple[Counter[int], Counter[int]]:
        """``(departed, arrived)``: per own point of the mover (``BAR``,
        ``OFF`` included), how many checkers left it or landed on it for good;
        a stop in the middle of one checker's journey cancels out.

        >>> LastTurn(Side.WHITE, [Step(24, 18, 6), Step(18, 13, 5)]).net_moves()
        (Counter({24: 1}), Counter({13: 1}))
        """
        flow: Counter[int] = Counter()
        for step in self.steps:
            flow[step.source] -= 1
            flow[step.target] += 1
        departed = Counter({point: -n for point, n in flow.items() if n < 0})
        arrived = Counter({point: n for point, n in flow.items() if n > 0})
        return departed, arrived


def english_pips(count: int) -> str:
    """``"1 pip"``, ``"167 pips"``: :attr:`BoardLabels.pip_count` in English."""
    return f"{count} pip" if count == 1 else f"{count} pips"


@dataclass(frozen=True, slots=True)
class BoardLabels:
    """The words a board prints, English by default; the bot fills them from
    its translations so a board is in the chat's language.  ``match_to`` has
    a ``{n}`` placeholder; ``pip_count`` writes a pip count with the right
    plural form (Russian and Lithuanian have three).

    >>> BoardLabels().match_to.format(n=7), BoardLabels().pip_count(1)
    ('Match to 7', '1 pip')
    """

    pips: str = "pips"
    off: str = "off"
    bar: str = "bar"
    dice: str = "Dice"
    played: str = "played"
    cube: str = "Cube"
    centred: str = "centred"
    last: str = "Last:"
    no_move: str = "no move"
    score: str = "Score"
    score_of: str = "score"
    match_to: str = "Match to {n}"
    to_move: str = "to move"
    pip_count: Callable[[int], str] = field(default=english_pips, compare=False)

    def __post_init__(self) -> None:
        for one in fields(self):
            if one.name != "pip_count" and not isinstance(getattr(self, one.name), str):
                raise RenderError(f"BoardLabels.{one.name} must be a string")
        if not callable(self.pip_count):
            raise RenderError("BoardLabels.pip_count must be callable")
        if "{n}" not in self.match_to:
            raise RenderError("BoardLabels.match_to needs the {n} placeholder")


ENGLISH = BoardLabels()


@dataclass(frozen=True, slots=True)
class BoardView:
    """Everything one board picture shows.

    ``viewer`` is the side drawn at the bottom whose numbering is printed.
    ``names`` are indexed by :class:`Side`.  ``used`` lists the die values
    already played this turn (a multiset of ``dice.steps``).  ``cube`` is the
    doubling cube's value (``None`` when there is no cube, always in long
    nardy) and ``cube_owner`` its owner (``None``: centred).  ``score`` is
    indexed by side; ``match_length`` is ``None`` for money or unlimited
    play.  ``status`` is a free line (a deadline, "Black wins 2 points").
    ``labels`` are the board's own words (English unless given).
    ``numbering`` is the side whose point numbers are printed (``viewer``
    when not given): the checkers stay put, only the numbers change.
    ``to_act`` is whoever must act now (the answerer of a double or a
    resignation offer; the side to move when not given, nobody after the
    end).  ``current`` are the steps already played in the turn in progress
    (by the side to move, in its own numbering), marked on the board.
    Pip counts and borne-off counts come from the position.

    ``over``: the game has ended, however it ended (borne off, a resignation
    accepted, a double passed, on time, cancelled).  An ended board is
    drawn one way whatever ended it: nobody to act (no band, no ``>``), no
    dice and no turn in progress; :meth:`ended` says so, and a view built
    with ``over`` drops its dice, used dice, current steps and ``to_act``.
    A position with a winner is over by itself.
    """

    position: Position
    viewer: Side
    names: tuple[str, str] = ("White", "Black")
    dice: Dice | None = None
    used: tuple[int, ...] = ()
    cube: int | None = None
    cube_owner: Side | None = None
    score: tuple[int, int] | None = None
    match_length: int | None = None
    last_turn: LastTurn | None = None
    status: str = ""
    labels: BoardLabels = ENGLISH
    numbering: Side | None = None
    to_act: Side | None = None
    current: tuple[Step, ...] = ()
    over: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.labels, BoardLabels):
            raise RenderError(f"labels must be BoardLabels, got {self.labels!r}")
        if not isinstance(self.position, Position):
            raise RenderError(f"position must be a Position, got {self.position!r}")
        _check_side("viewer", self.viewer)
        if (
            not isinstance(self.names, tuple)
            or len(self.names) != 2
            or not all(isinstance(name, str) for name in self.names)
        ):
            raise RenderError(f"names must be a tuple of two strings, got {self.names!r}")
        self._check_dice()
        self._check_cube()
        self._check_score()
        if self.last_turn is not None and not isinstance(self.last_turn, LastTurn):
            raise RenderError(f"last_turn must be a LastTurn, got {self.last_turn!r}")
        if not isinstance(self.status, str):
            raise RenderError(f"status must be a string, got {self.status!r}")
        if self.numbering is not None:
            _check_side("numbering", self.numbering)
        if self.to_act is not None:
            _check_side("to_act", self.to_act)
        if not isinstance(self.current, tuple) or not all(
                isinstance(step, Step) for step in self.current):
            raise RenderError(f"current must be a tuple of Step, got {self.current!r}")
        if not isinstance(self.over, bool):
            raise RenderError(f"over must be a bool, got {self.over!r}")
        if self.ended:  # the one end-of-game state: nothing left to act on
            for name, empty in (("dice", None), ("used", ()), ("current", ()), ("to_act", None)):
                object.__setattr__(self, name, empty)

    def _check_dice(self) -> None:
        if self.dice is not None and not isinstance(self.dice, Dice):
            raise RenderError(f"dice must be Dice or None, got {self.dice!r}")
        if not isinstance(self.used, tuple):
            raise RenderError(f"used must be a tuple of die values, got {self.used!r}")
        available = Counter(self.dice.steps if self.dice else ())
        if Counter(self.used) - available:
            raise RenderError(f"used dice {self.used} are not part of the roll {self.dice}")

    def _check_cube(self) -> None:
        if self.cube is None:
            if self.cube_owner is not None:
                raise RenderError("cube_owner given without a cube")
            return
        if self.position.variant is Variant.LONG:
            raise RenderError("long nardy has no doubling cube")
        value = self.cube
        if not isinstance(value, int) or isinstance(value, bool):
            raise RenderError(f"cube must be an int, got {value!r}")
        if not 1 <= value <= MAX_CUBE or value & (value - 1):
            raise RenderError(f"cube must be a power of two 1..{MAX_CUBE}, got {value}")
        if self.cube_owner is not None:
            _check_side("cube_owner", self.cube_owner)

    def _check_score(self) -> None:
        if self.score is not None and (
            not isinstance(self.score, tuple)
            or len(self.score) != 2
            or not all(
                isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in self.score
            )
        ):
            raise RenderError(f"score must be two non-negative ints, got {self.score!r}")
        if self.match_length is not None:
            length = self.match_length
            if not isinstance(length, int) or isinstance(length, bool) or length < 1:
                raise RenderError(f"match_length must be a positive int, got {length!r}")
            if self.score is None:
                raise RenderError("match_length given without a score")

    @property
    def variant(self) -> Variant:
        return self.position.variant

    @property
    def turn(self) -> Side:
        return self.position.turn

    @property
    def numbered_for(self) -> Side:
        """The side whose point numbers the board prints."""
        return self.viewer if self.numbering is None else self.numbering

    @property
    def ended(self) -> bool:
        """Whether the game is over (``over``, or a position with a winner)."""
        return self.over or self.position.winner is not None

    @property
    def actor(self) -> Side | None:
        """Whoever must act now (the "to move" band): ``to_act`` if given,
        else the side to move; nobody once the game is over, however it ended.

        >>> BoardView(Position.initial(Variant.LONG), Side.WHITE, dice=Dice(6, 5),
        ...           over=True).actor is None
        True
        """
        if self.ended:
            return None
        return self.turn if self.to_act is None else self.to_act

    def number_at(self, label: int) -> int:
        """The number printed for the viewer's point ``label`` (a screen cell,
        :func:`label_at`): the same point in :attr:`numbered_for`'s numbering.

        >>> view = BoardView(Position.initial(Variant.LONG), Side.WHITE, numbering=Side.BLACK)
        >>> view.number_at(24), view.number_at(1)
        (12, 13)
        """
        return viewer_point(self.variant, self.viewer, self.numbered_for, label)

    def current_turn(self) -> LastTurn | None:
        """The steps played so far in the turn in progress, as a
        :class:`LastTurn` of the side to move (``None`` when none)."""
        if not self.current:
            return None
        return LastTurn(self.turn, self.current)

    @property
    def top(self) -> Side:
        """The side drawn at the top (the viewer's opponent)."""
        return self.viewer.opponent

    @property
    def bottom(self) -> Side:
        return self.viewer

    def pips(self, side: Side) -> int:
        return self.position.pips(side)

    def borne_off(self, side: Side) -> int:
        return self.position.borne_off(side)

    def dice_faces(self) -> list[tuple[int, bool]]:
        """The dice to draw as ``(value, used)``: two for a plain roll, four
        for a double; used dice are the first ones of each value.

        >>> BoardView(Position.initial(Variant.LONG), Side.WHITE,
        ...           dice=Dice(3, 3), used=(3,)).dice_faces()
        [(3, True), (3, False), (3, False), (3, False)]
        """
        if self.dice is None:
            return []
        values = (
            [self.dice.first, self.dice.second]
            if not self.dice.is_double
            else list(self.dice.steps)
        )
        left = Counter(self.used)
        faces = []
        for value in values:
            used = left[value] > 0
            left[value] -= used
            faces.append((value, used))
        return faces

    def viewer_point(self, side: Side, point: int) -> int:
        """The number printed on the board for ``side``'s own ``point``."""
        return viewer_point(self.variant, side, self.viewer, point)


def viewer_point(variant: Variant, side: Side, viewer: Side, point: int) -> int:
    """``side``'s own ``point`` (1..24) in ``viewer``'s numbering."""
    return point if side is viewer else opponent_point(variant, point)


def point_label(view_or_variant: BoardView | Variant, mover: Side, viewer: Side, point: int,
                labels: BoardLabels = ENGLISH) -> str:
    """The label printed on the board for the mover's own ``point`` in the
    numbering of ``viewer`` (the side the board is numbered for, its
    :attr:`BoardView.numbered_for`): a number, or ``labels``' word for the
    bar or off.  Move buttons use it so their numbers match the board.

    >>> point_label(Variant.LONG, Side.BLACK, Side.WHITE, 24)
    '12'
    >>> point_label(Variant.LONG, Side.WHITE, Side.WHITE, 0)
    'off'
    >>> point_label(Variant.BACKGAMMON, Side.WHITE, Side.BLACK, 25, BoardLabels(bar="бар"))
    'бар'
    """
    if isinstance(view_or_variant, BoardView):
        variant = view_or_variant.variant
    elif isinstance(view_or_variant, Variant):
        variant = view_or_variant
    else:
        raise RenderError(f"expected a BoardView or Variant, got {view_or_variant!r}")
    _check_side("mover", mover)
    _check_side("viewer", viewer)
    if not isinstance(point, int) or not OFF <= point <= BAR:
        raise RenderError(f"point must be 0..25, got {point!r}")
    if point == BAR:
        return labels.bar
    if point == OFF:
        return labels.off
    return str(viewer_point(variant, mover, viewer, point))


def cell_of(label: int) -> tuple[int, int]:
    """``(row, column)`` on screen of the viewer's point ``label``: row 0 is
    the top, 1 the bottom; columns 0..11 from left to right, the bar between
    columns 5 and 6."""
    if label > POINTS // 2:
        return 0, label - POINTS // 2 - 1
    return 1, POINTS // 2 - label


def label_at(row: int, column: int) -> int:
    """The viewer's point number at a screen cell (inverse of :func:`cell_of`).

    >>> all(label_at(*cell_of(p)) == p for p in range(1, 25))
    True
    """
    return POINTS // 2 + 1 + column if row == 0 else POINTS // 2 - column


def occupant(view: BoardView, label: int) -> tuple[Side | None, int]:
    """Which side has checkers on the viewer's point ``label``, and how many."""
    for side in Side:
        own = label if side is view.viewer else opponent_point(view.variant, label)
        count = view.position.checkers(side, own)
        if count:
            return side, count
    return None, 0


def score_line(view: BoardView, width: int = 80) -> str:
    """The score with names, viewer first: ``"Match to 7 · Alice 2, Bob 1"``;
    empty without a score.  Names are cut (to 12 characters at most) so the
    line fits ``width`` when it can.

    >>> view = BoardView(Position.initial(Variant.LONG), Side.WHITE,
    ...                  ("Aleksandras", "Bob"), score=(2, 1), match_length=7)
    >>> score_line(view), score_line(view, 26)
    ('Match to 7 · Aleksandras 2, Bob 1', 'Match to 7 · Ale… 2, Bob 1')
    """
    if view.score is None:
        return ""
    labels = view.labels
    head = labels.score if view.match_length is None else labels.match_to.format(
        n=view.match_length)
    for room in range(12, 1, -1):
        parts = [f"{short_name(view.names[side], room)} {view.score[side]}"
                 for side in (view.bottom, view.top)]
        line = f"{head} · {', '.join(parts)}"
        if len(line) <= width:
            break
    return line


def short_name(name: str, width: int) -> str:
    """``name`` cut to ``width`` characters, with an ellipsis when cut.

    >>> short_name("Aleksandras", 6)
    'Aleks…'
    """
    return name if len(name) <= width else name[: width - 1] + "…"


def format_last_turn(view: BoardView) -> str:
    """The last turn's roll (when known) and its steps in standard notation
    (:func:`engine.notation.format_turn`, ``*`` for a hit when ``start`` is
    known) in the numbers the board shows and the board's words for bar and
    off, or ``labels.no_move``.

    >>> last = LastTurn(Side.BLACK, [Step(24, 18, 6), Step(6, 0, 6)], dice=Dice(6, 6))
    >>> view = BoardView(Position.initial(Variant.BACKGAMMON), Side.WHITE, last_turn=last)
    >>> format_last_turn(view)
    '(6-6) 1/7 19/off'
    """
    last = view.last_turn
    if last is None:
        return ""
    roll = f"({last.dice.first}-{last.dice.second}) " if last.dice is not None else ""
    if not last.steps:
        return roll + view.labels.no_move
    return roll + format_steps(view, last)


def format_steps(view: BoardView, turn: LastTurn) -> str:
    """``turn``'s steps as the board shows them: in :attr:`BoardView.numbered_for`'s
    numbers, with the board's bar and off words; the compact notation when
    the start is known, else each step in the order played."""
    if turn.start is not None:
        return notation.format_turn(turn.start, turn.steps, numbering=view.numbered_for,
                                    bar=view.labels.bar, off=view.labels.off)

    def shown(point: int) -> str:
        return point_label(view.variant, turn.side, view.numbered_for, point, view.labels)

    return " ".join(f"{shown(step.source)}/{shown(step.target)}" for step in turn.steps)
