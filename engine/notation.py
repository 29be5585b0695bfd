"""Steps and turns in the usual text notation: ``24/18 13/10*``, ``bar/22``,
``6/off``, ``8/5(2)``, ``24/18/13``.

Points are counted from the mover's side (24 down to 1), ``bar`` is 25 and
``off`` is 0 (the numbers are accepted too).  ``*`` marks a hit; it is
computed from the position when formatting and never required when parsing.
A turn with no possible move is the empty string.

:func:`format_turn` writes the compact form (a checker moving on is one
path, identical moves are counted) unless ``compact=False``, which writes each
step in the order played, the way Jellyfish ``.mat`` files do.
:func:`parse_turn` reads either form (and mixtures) and resolves it against
the legal turns, so the text only has to name the checkers' paths.

>>> format_step(Step(25, 22, 3)), format_step(Step(6, OFF, 6), hit=False)
('bar/22', '6/off')
>>> parse_step("13/10*")
Step(source=13, target=10, die=3)
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from engine.position import (
    BAR,
    OFF,
    POINTS,
    Dice,
    EngineError,
    IllegalStepError,
    Position,
    Side,
    Step,
    Variant,
    check_type,
    opponent_point,
)
from engine.turns import Turn, apply_step, legal_turns


class NotationError(EngineError):
    """Text that is not well-formed notation, or not a legal turn here."""


_POINT = r"(?:bar|off|[0-9]{1,2})"
_TOKEN = re.compile(rf"({_POINT})((?:/{_POINT}\*?)+)(?:\(([0-9])\))?", re.IGNORECASE)
_LANDING = re.compile(rf"/({_POINT})(\*?)", re.IGNORECASE)


def format_point(point: int, *, numbers: bool = False, bar: str = "bar", off: str = "off") -> str:
    """``bar`` for 25, ``off`` for 0, else the number (all numbers with
    ``numbers``, as Jellyfish files write them).  ``bar`` and ``off`` are the
    words written for them: a board in another language passes its own
    (such text is for showing; :func:`parse_point` reads the English words).

    >>> format_point(25, bar="бар"), format_point(0), format_point(0, numbers=True)
    ('бар', 'off', '0')
    """
    if numbers:
        return str(point)
    if point == BAR:
        return bar
    if point == OFF:
        return off
    return str(point)


def parse_point(text: str) -> int:
    """The point number of ``bar``, ``off`` or ``0``..``25``."""
    word = text.lower()
    if word == "bar":
        return BAR
    if word == "off":
        return OFF
    if not (word.isascii() and word.isdigit()) or int(word) > BAR:  # not "²", not "١"
        raise NotationError(f"no such point {text!r}")
    return int(word)


def format_step(step: Step, *, hit: bool = False, numbers: bool = False) -> str:
    """``13/10*`` (``hit`` adds the star).

    >>> format_step(Step(13, 10, 3), hit=True), format_step(Step(25, 22, 3), numbers=True)
    ('13/10*', '25/22')
    """
    return _step_text(step.source, step.target, hit, numbers)


def _step_text(source: int, target: int, hit: bool, numbers: bool, bar: str = "bar",
               off: str = "off") -> str:
    star = "*" if hit else ""
    first = format_point(source, numbers=numbers, bar=bar, off=off)
    return f"{first}/{format_point(target, numbers=numbers, bar=bar, off=off)}{star}"


def parse_step(text: str, *, die: int | None = None) -> Step:
    """One step ``source/target``.  A bear-off step takes its die from
    ``die`` if given (``3/off`` played with a 5), else the exact number.

    >>> parse_step("3/off", die=5)
    Step(source=3, target=0, die=5)
    """
    check_type(text, str, "a step's text", NotationError)
    match = re.fullmatch(rf"({_POINT})/({_POINT})\*?", text.strip(), re.IGNORECASE)
    if match is None:
        raise NotationError(f"a step looks like 13/10 or bar/22 or 6/off, not {text!r}")
    source, target = parse_point(match[1]), parse_point(match[2])
    if target == OFF:
        used = source if die is None else die
    else:
        used = source - target
        if die is not None and die != used:
            raise NotationError(f"{text!r} does not move {die} pips")
    try:
        return Step(source, target, used)
    except EngineError as error:
        raise NotationError(f"{text!r}: {error}") from error


def _hits(position: Position, step: Step) -> bool:
    """Whether ``step`` (of the side to move) lands on an opponent's blot."""
    if position.variant is not Variant.BACKGAMMON or step.target == OFF:
        return False
    theirs = opponent_point(position.variant, step.target)
    return position.checkers(position.turn.opponent, theirs) == 1


def hits(position: Position, steps: Sequence[Step]) -> tuple[bool, ...]:
    """For each step played in order from ``position``: does it hit?"""
    flags = []
    for step in steps:
        flags.append(_hits(position, step))
        position = apply_step(position, step)
    return tuple(flags)


def _renumbering(position: Position, numbering: Side | None) -> Callable[[int], int]:
    """Turns the mover's point numbers into those of ``numbering`` (the bar
    and off stay as they are)."""
    if numbering is None:
        return _same
    check_type(numbering, Side, "the numbering", NotationError)
    if numbering == position.turn:
        return _same
    variant = position.variant
    return lambda point: point if point in (BAR, OFF) else opponent_point(variant, point)


def _same(point: int) -> int:
    return point


def format_turn(
    position: Position,
    steps: Sequence[Step],
    *,
    compact: bool = True,
    numbers: bool = False,
    numbering: Side | None = None,
    bar: str = "bar",
    off: str = "off",
) -> str:
    """The text of ``steps`` played from ``position`` (hits computed).

    Compact form: one path per checker (``24/13``, ``24/18*/13`` when it hits
    on the way), repeated paths counted (``8/5(2)``), highest source first.
    Otherwise each step in the order played; ``numbers`` writes the bar as 25
    and off as 0 (plain form only).  Points are numbered from the mover's
    side, or from the side ``numbering`` names (a board numbered for the
    other player; a text to show: :func:`parse_turn` reads the mover's
    numbers); the paths keep the mover's order either way.  ``bar`` and
    ``off`` are the words for those places (:func:`format_point`).

    >>> start = Position.initial(Variant.BACKGAMMON)
    >>> steps = [Step(24, 18, 6), Step(13, 10, 3)]
    >>> format_turn(start, steps), format_turn(start, steps, numbering=Side.BLACK)
    ('24/18 13/10', '1/7 12/15')
    """
    check_type(position, Position, "the position", NotationError)
    shown = _renumbering(position, numbering)
    flags = hits(position, steps)
    if not compact:
        return " ".join(
            _step_text(shown(step.source), shown(step.target), hit, numbers, bar, off)
            for step, hit in zip(steps, flags, strict=True)
        )
    paths: list[list[tuple[int, bool]]] = []
    for step, hit in zip(steps, flags, strict=True):
        for path in paths:
            if path[-1][0] == step.source and step.source != OFF:
                path.append((step.target, hit))
                break
        else:
            paths.append([(step.source, False), (step.target, hit)])
    paths.sort(key=lambda path: (-path[0][0], -path[-1][0]))
    texts = []
    for path in paths:
        marked = [path[0]] + [point for point in path[1:-1] if point[1]] + [path[-1]]
        texts.append("/".join(format_point(shown(p), bar=bar, off=off) + ("*" if hit else "")
                              for p, hit in marked))
    counts = Counter(texts)
    out = []
    for text in dict.fromkeys(texts):
        out.append(text if counts[text] == 1 else f"{text}({counts[text]})")
    return " ".join(out)


@dataclass(frozen=True, slots=True)
class _Segment:
    source: int
    target: int
    starred: bool


def _tokens(text: str, variant: Variant) -> list[_Segment]:
    segments: list[_Segment] = []
    for token in text.replace(",", " ").split():
        match = _TOKEN.fullmatch(token)
        if match is None:
            raise NotationError(f"cannot read {token!r}: write moves like 13/10 bar/22 6/off")
        repeat = int(match[3]) if match[3] else 1
        if not 1 <= repeat <= 4:
            raise NotationError(f"{token!r}: a move repeats 1 to 4 times")
        path = [(parse_point(match[1]), False)]
        path += [(parse_point(p), star == "*") for p, star in _LANDING.findall(match[2])]
        for (source, _), (target, _) in itertools.pairwise(path):
            if source == OFF or target == BAR or (source != BAR and source > POINTS):
                raise NotationError(f"{token!r}: no move from {source} to {target}")
            if target != OFF and target >= source:
                raise NotationError(f"{token!r}: checkers move from high points to low")
            if source == BAR and variant is Variant.LONG:
                raise NotationError("long nardy has no bar")
        segments += [
            _Segment(source, target, starred)
            for (source, _), (target, starred) in itertools.pairwise(path)
        ] * repeat
    return segments


@dataclass(frozen=True, slots=True)
class _Candidate:
    steps: tuple[Step, ...]
    starred: frozenset[int]
    """indexes of steps whose landing the text marks as a hit"""
    implied: frozenset[int]
    """indexes of steps whose landing the text leaves out (``24/13``)"""


def _splits(source: int, target: int, dice: tuple[int, ...]) -> Iterator[tuple[Step, ...]]:
    """Ways to go from ``source`` to ``target`` with some of ``dice`` in order."""
    for count in range(1, len(dice) + 1):
        for order in set(itertools.permutations(dice, count)):
            point, steps = source, []
            try:
                for index, die in enumerate(order):
                    last = index == count - 1
                    if last and target == OFF:
                        steps.append(Step(point, OFF, die))
                        point = OFF
                    else:
                        steps.append(Step(point, point - die, die))
                        point -= die
                        if point < 1:
                            raise IllegalStepError("past the edge")
            except EngineError:
                continue
            if point == target:
                yield tuple(steps)


def _candidates(segments: list[_Segment], dice: tuple[int, ...]) -> Iterator[_Candidate]:
    if not segments:
        yield _Candidate((), frozenset(), frozenset())
        return
    first, rest = segments[0], segments[1:]
    for steps in _splits(first.source, first.target, dice):
        remaining = list(dice)
        for step in steps:
            remaining.remove(step.die)
        for tail in _candidates(rest, tuple(remaining)):
            shift = len(steps)
            starred = {len(steps) - 1} if first.starred else set()
            yield _Candidate(
                steps + tail.steps,
                frozenset(starred | {i + shift for i in tail.starred}),
                frozenset(set(range(len(steps) - 1)) | {i + shift for i in tail.implied}),
            )


def parse_turn(position: Position, dice: Dice, text: str) -> Turn:
    """The legal turn that ``text`` describes for ``dice`` in ``position``.

    Returns the engine's :class:`Turn` (its own step order); raises
    :class:`NotationError` for malformed text, an illegal turn, or text that
    fits two different legal turns equally well.
    """
    check_type(text, str, "a turn's text", NotationError)
    segments = _tokens(text, position.variant)
    turns = legal_turns(position, dice)
    by_position = {turn.position: turn for turn in turns}
    length = len(turns[0].steps)
    # each reachable legal position -> the fewest hit marks the text gets wrong
    matches: dict[Position, int] = {}
    for candidate in _candidates(segments, dice.steps):
        if len(candidate.steps) != length:
            continue
        for order in set(itertools.permutations(range(length))):
            reached, score = _play(position, candidate, order)
            if reached in by_position:
                matches[reached] = min(score, matches.get(reached, score))
    if not matches:
        raise NotationError(f"{text.strip() or 'no move'!r} is not a legal turn with {dice}")
    best = min(matches.values())
    found = [reached for reached, score in matches.items() if score == best]
    if len(found) > 1:
        raise NotationError(f"{text.strip()!r} is ambiguous with {dice}: mark the hits with *")
    return by_position[found[0]]


def _play(
    position: Position, candidate: _Candidate, order: tuple[int, ...]
) -> tuple[Position | None, int]:
    """Play the candidate's steps in ``order``; the score counts text that
    disagrees with the hits made (a star without a hit, a hit on a point the
    text skipped)."""
    score = 0
    try:
        for index in order:
            step = candidate.steps[index]
            hit = _hits(position, step)
            if index in candidate.starred and not hit:
                score += 1
            if index in candidate.implied and hit:
                score += 1
            position = apply_step(position, step)
    except EngineError:
        return None, 0
    return position, score
