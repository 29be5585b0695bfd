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
    RenderError,
    format_last_turn,
    label_at,
    occupant,
    score_line,
    short_name,
)
from engine.position import BAR, Side, Variant

MARK = {Side.WHITE: "○", Side.BLACK: "●"}
ROWS = 5
"""Checkers shown per point; a taller stack shows its count in the last row."""
CELL = 3
WIDTH = 2 + 2 * HALF * CELL + 3 + 2
"""``|`` + six cells + ``|`` + bar + ``|`` + six cells + ``|``."""


def _stack(side: Side | None, count: int) -> list[str]:
    """The cells of one stack, from the board's edge towards the middle."""
    cells = [" " * CELL] * ROWS
    if side is None:
        return cells
    shown = min(count, ROWS)
    for row in range(shown):
        cells[row] = f" {MARK[side]} "
    if count > ROWS:
        cells[ROWS - 1] = f"{count:>2} "
    return cells


def _label(number: int) -> str:
    return f"{number:>2} "


def _grid(view: BoardView) -> list[str]:
    """The label rows, the frame and the checker rows of the board."""
    bar_name = (_narrow(view.labels.bar.upper())[:3].center(3) if view.variant is Variant.BACKGAMMON
                else "   ")
    halves = []  # per screen row: (left stacks, right stacks, bar stack)
    for row, bar_side in ((0, view.top), (1, view.bottom)):
        stacks = [_stack(*occupant(view, label_at(row, col))) for col in range(2 * HALF)]
        bar = _stack(bar_side, view.position.checkers(bar_side, BAR))
        halves.append((stacks, bar))

    def labels(row: int) -> str:
        cells = [_label(label_at(row, col)) for col in range(2 * HALF)]
        return " " + "".join(cells[:HALF]) + "     " + "".join(cells[HALF:]) + " "

    def line(stacks: list[list[str]], bar: list[str], depth: int) -> str:
        left = "".join(stack[depth] for stack in stacks[:HALF])
        right = "".join(stack[depth] for stack in stacks[HALF:])
        return f"|{left}|{bar[depth]}|{right}|"

    frame = "+" + "-" * (HALF * CELL) + "+---+" + "-" * (HALF * CELL) + "+"
    top_stacks, top_bar = halves[0]
    bottom_stacks, bottom_bar = halves[1]
    lines = [labels(0), frame]
    lines += [line(top_stacks, top_bar, depth) for depth in range(ROWS)]
    lines.append("|" + " " * (HALF * CELL) + f"|{bar_name}|" + " " * (HALF * CELL) + "|")
    lines += [line(bottom_stacks, bottom_bar, depth) for depth in reversed(range(ROWS))]
    lines += [frame, labels(1)]
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


def _player_line(view: BoardView, side: Side) -> str:
    arrow = ">" if side is view.turn and view.position.winner is None else " "
    labels = view.labels
    facts = f"{view.pips(side):>3} {labels.pips}  {labels.off} {view.borne_off(side):>2}"
    if view.cube is not None and view.cube_owner is side:
        facts += f"  {labels.cube.lower()} {view.cube}"
    facts = short_name(_narrow(facts), WIDTH - 10)
    room = WIDTH - len(facts) - 5
    return f"{arrow} {MARK[side]} {short_name(_narrow(view.names[side]), room):<{room}} {facts}"


def _info_lines(view: BoardView) -> list[str]:
    lines = []
    labels = view.labels
    if view.dice is not None:
        faces = "-".join(str(value) for value, _ in view.dice_faces()[:2])
        used = [value for value, is_used in view.dice_faces() if is_used]
        played = f" ({labels.played} {' '.join(map(str, used))})" if used else ""
        lines.append(f"{labels.dice} {faces}{played}")
    if view.cube is not None and view.cube_owner is None:
        lines.append(f"{labels.cube} {view.cube} ({labels.centred})")
    if view.last_turn is not None:
        name = short_name(view.names[view.last_turn.side], 16)
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
    lines = [_player_line(view, view.top), *_grid(view), _player_line(view, view.bottom)]
    lines += _info_lines(view)
    return "\n".join(line.ljust(WIDTH) for line in lines)
