"""The monospace text board, for a pre-formatted Telegram message.

Only characters that every monospace font draws one cell wide are used in
the grid (ASCII, ``●`` and ``○``, both in the WGL4 set that phone and desktop
monospace fonts cover), and every line is padded to the same length, so the
board stays aligned in any client.  Player names and the status line are
free text and may hold anything; they sit on lines of their own, outside
the grid, cut to the board's width and stripped of wide characters (emoji).

>>> from engine.position import Position, Side, Variant
>>> board = render_text(BoardView(Position.initial(Variant.LONG), Side.WHITE))
>>> len({len(line) for line in board.splitlines()})
1
"""

from __future__ import annotations

import textwrap
import unicodedata

from bot.present.render.view import (
    HALF,
    BoardView,
    LastTurn,
    RenderError,
    format_last_turn,
    format_steps,
    label_at,
    occupant,
    score_line,
    short_name,
)
from engine.position import BAR, OFF, Side, Variant

MARK = {Side.WHITE: "○", Side.BLACK: "●"}
ARRIVED, DEPARTED = "+", "·"
"""Marks of the last turn: ``+`` beside a checker that arrived, ``·`` where one left."""
ARRIVED_NOW, DEPARTED_NOW = "#", ":"
"""Marks of the steps already played in the turn in progress (the picture's
blue rings): ``#`` beside a checker that arrived, ``:`` where one left."""
ROWS = 5
"""Checkers shown per point; a taller stack shows its count in the last row."""
CELL = 2
"""A point's column: a mark and the checker; two-digit numbers take both."""
WIDTH = 2 + 2 * HALF * CELL + 3 + 2
"""``|`` + six cells + ``|`` + bar + ``|`` + six cells + ``|``: 31 characters,
so the board fits a phone's message bubble (about 32 monospace cells)."""


def _stack(side: Side | None, count: int, marks: dict[int, str] | None = None) -> list[str]:
    """The cells of one stack, from the board's edge towards the middle;
    ``marks`` puts a last-turn mark at a depth (before a checker, or alone
    in an empty slot)."""
    cells = [" " * CELL] * ROWS
    if side is not None:
        for row in range(min(count, ROWS)):
            cells[row] = f" {MARK[side]}"
    for depth, mark in (marks or {}).items():
        if depth < ROWS:
            cells[depth] = mark + cells[depth][1:] if cells[depth].strip() else f" {mark}"
    if side is not None and count > ROWS:
        cells[ROWS - 1] = f"{count:>2}"
    return cells


def _turn_marks(view: BoardView) -> dict[int, dict[int, str]]:
    """Per viewer's point label: the marks by depth (like the picture's
    rings) of the last turn and, over them, of the steps already played in
    the turn in progress."""
    found: dict[int, dict[int, str]] = {}
    for turn, marks in ((view.last_turn, (ARRIVED, DEPARTED)),
                        (view.current_turn(), (ARRIVED_NOW, DEPARTED_NOW))):
        for label, depths in _marks_of(view, turn, *marks).items():
            found.setdefault(label, {}).update(depths)
    return found


def _marks_of(view: BoardView, turn: LastTurn | None, arrived_mark: str,
              departed_mark: str) -> dict[int, dict[int, str]]:
    """Per own point of ``turn``'s mover, in the viewer's labels: where its
    checkers left (``departed_mark``) and arrived for good (``arrived_mark``)."""
    found: dict[int, dict[int, str]] = {}
    if turn is None:
        return found
    departed, arrived = turn.net_moves()
    for point, n in departed.items():
        if point in (BAR, OFF):
            continue
        here = view.position.checkers(turn.side, point)
        label = view.viewer_point(turn.side, point)
        found.setdefault(label, {}).update(dict.fromkeys(range(here, here + n), departed_mark))
    for point, n in arrived.items():
        if point in (BAR, OFF):
            continue
        here = view.position.checkers(turn.side, point)
        label = view.viewer_point(turn.side, point)
        found.setdefault(label, {}).update(
            dict.fromkeys(range(max(here - n, 0), here), arrived_mark))
    return found


def _labels(view: BoardView, row: int) -> list[str]:
    """The two lines of point numbers over (row 0) or under (row 1) a row of
    points: every other number on each line, so two-digit numbers in
    two-character columns stay apart; the line of the odd columns is nearer
    the board."""
    lines = []
    for parity in ((0, 1) if row == 0 else (1, 0)):
        cells = [f"{view.number_at(label_at(row, col)):>2}" if col % 2 == parity else "  "
                 for col in range(2 * HALF)]
        lines.append(" " + "".join(cells[:HALF]) + "     " + "".join(cells[HALF:]) + " ")
    return lines


def _grid(view: BoardView) -> list[str]:
    """The label rows, the frame and the checker rows of the board."""
    marks = _turn_marks(view)
    halves = []  # per screen row: (stacks, bar stack)
    for row, bar_side in ((0, view.top), (1, view.bottom)):
        stacks = [_stack(*occupant(view, label_at(row, col)), marks.get(label_at(row, col)))
                  for col in range(2 * HALF)]
        bar = [f"{cell} " for cell in _stack(bar_side, view.position.checkers(bar_side, BAR))]
        halves.append((stacks, bar))

    def line(stacks: list[list[str]], bar: list[str], depth: int) -> str:
        left = "".join(stack[depth] for stack in stacks[:HALF])
        right = "".join(stack[depth] for stack in stacks[HALF:])
        return f"|{left}|{bar[depth]}|{right}|"

    frame = "+" + "-" * (HALF * CELL) + "+---+" + "-" * (HALF * CELL) + "+"
    middle = "|" + " " * (HALF * CELL) + "|   |" + " " * (HALF * CELL) + "|"
    if view.variant is Variant.BACKGAMMON:  # the bar's whole word across the middle line
        word = f" {_narrow(view.labels.bar.upper())[: WIDTH - 6]} "
        start = (WIDTH - len(word)) // 2
        middle = middle[:start] + word + middle[start + len(word):]
    top_stacks, top_bar = halves[0]
    bottom_stacks, bottom_bar = halves[1]
    lines = [*_labels(view, 0), frame]
    lines += [line(top_stacks, top_bar, depth) for depth in range(ROWS)]
    lines.append(middle)
    lines += [line(bottom_stacks, bottom_bar, depth) for depth in reversed(range(ROWS))]
    lines += [frame, *_labels(view, 1)]
    return lines


ZERO_OR_WIDE = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Mn", "Me")
"""Unicode categories that take no cell (controls, format characters,
combining marks), break a line, or may not be in the font."""


def _narrow(text: str) -> str:
    """``text`` (NFC) without characters that do not take exactly one cell
    of a monospace grid: wide ones (emoji, CJK), controls, line breaks and
    leftover combining marks.

    >>> _narrow("Борис 🎲 Ąž\x1e")
    'Борис  Ąž'
    """
    return "".join(
        char
        for char in unicodedata.normalize("NFC", text)
        if unicodedata.east_asian_width(char) not in "WF"
        and unicodedata.category(char) not in ZERO_OR_WIDE
    )


def _player_lines(view: BoardView, side: Side) -> list[str]:
    """``> ○ Name  167 pips  off 0``: the name, then the pip count, the
    borne-off count and an owned cube; on a second line when the name
    would get less than ten characters.  ``>`` marks whoever must act."""
    arrow = ">" if side is view.actor else " "
    labels = view.labels
    facts = f"{labels.pip_count(view.pips(side))}  {labels.off} {view.borne_off(side)}"
    if view.cube is not None and view.cube_owner is side:
        facts += f"  {labels.cube.lower()} {view.cube}"
    facts = short_name(_narrow(facts), WIDTH - 4)
    name = _narrow(view.names[side]).strip()
    room = WIDTH - len(facts) - 5
    if room >= min(len(name), 10):
        return [f"{arrow} {MARK[side]} {short_name(name, room):<{room}} {facts}"]
    return [f"{arrow} {MARK[side]} {short_name(name, WIDTH - 4)}", f"    {facts}"]


def _info_lines(view: BoardView) -> list[str]:
    lines = []
    labels = view.labels
    if view.dice is not None:
        faces = "-".join(str(value) for value, _ in view.dice_faces()[:2])
        current = view.current_turn()
        if current is not None:  # the steps played so far, as the board numbers them
            played = f" ({labels.played} {format_steps(view, current)})"
        else:
            used = [value for value, is_used in view.dice_faces() if is_used]
            played = f" ({labels.played} {' '.join(map(str, used))})" if used else ""
        lines.append(f"{labels.dice} {faces}{played}")
    if view.cube is not None and view.cube_owner is None:
        lines.append(f"{labels.cube} {view.cube} ({labels.centred})")
    if view.last_turn is not None:
        name = short_name(_narrow(view.names[view.last_turn.side]).strip(), 16)
        lines.append(f"{labels.last} {name} {format_last_turn(view)}")
    if view.score is not None:
        lines.append(score_line(view, WIDTH))
    if view.status:
        lines.append(view.status)
    wrapped = []
    for text in lines:
        wrapped += textwrap.wrap(_narrow(text), WIDTH) or [""]
    return wrapped


def render_text(view: BoardView) -> str:
    """The board as plain monospace text; every line has the same length.

    The caller escapes it and wraps it in ``<pre>``.
    """
    if not isinstance(view, BoardView):
        raise RenderError(f"render_text needs a BoardView, got {view!r}")
    lines = [*_player_lines(view, view.top), *_grid(view), *_player_lines(view, view.bottom)]
    lines += _info_lines(view)
    return "\n".join(line.ljust(WIDTH) for line in lines)
