"""The conformance format (``RULES.md``, "Conformance format"): requests and answers.

``python -m engine legal`` (:mod:`engine.__main__`) runs :func:`run_legal` on stdin;
``python -m ai choose`` reads the same requests.

A request is one JSON object per line from stdin (the format at the end of
``RULES.md``)::

    {"variant": "long" | "backgammon", "board": [[25 ints], [25 ints]],
     "dice": [d1, d2], "first_turn": false}

``board[0]`` is the opponent and ``board[1]`` the player to move (GNU
Backgammon's layout; index 24 is the bar).  ``variant``, ``board`` and
``dice`` are required; ``first_turn`` (a JSON boolean, used by long nardy's
head rule) may be left out, for either variant, and is then false; other
fields are ignored.  Errors name the sides as the input does (``board[0]``,
``board[1]``).  For each line it writes one line, in input order:

* ``{"positions": [board, ...]}`` - every distinct position after one
  complete legal turn, in the same layout (``board[1]`` is still the mover),
  sorted as lists, lexicographically (Python's list order: the opponent's
  row first, then the mover's); ``[input board]`` when nothing can be played;
* ``{"error": "message"}`` for a line that is not such an object (bad JSON,
  a missing field, wrong lengths, impossible checkers, dice outside 1..6,
  an unknown variant, a blank line, ...), then it goes on with the next line.

A blank line is an error too, so the output always has exactly one line per
input line.  Input is streamed; output is flushed whenever the input runs
dry, so both a pipe of many thousand lines and a line-by-line dialogue work.

>>> run_legal(['{"variant": "long", "dice": [6, 6]}', "", "[6, 6]"], print)
{"error":"missing field 'board'"}
{"error":"blank line"}
{"error":"a line must hold a JSON object"}
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from engine.position import POINTS, Dice, EngineError, Position, Side, Variant, check_board
from engine.turns import legal_turns

Board = list[list[int]]


class ConformanceError(EngineError):
    """A conformance input line that is not a valid request."""


def parse_request(line: str | bytes) -> tuple[Position, Dice]:
    """The position (mover = White) and dice one input line asks about.

    >>> line = {"variant": "backgammon", "board": [[0] * 25, [1] + [0] * 24],
    ...         "dice": [3, 1], "first_turn": False}
    >>> position, dice = parse_request(json.dumps(line))
    >>> position.checkers(Side.WHITE, 1), dice
    (1, Dice(first=3, second=1))
    >>> parse_request('{"variant": "short"}')
    Traceback (most recent call last):
    ...
    engine.conformance.ConformanceError: missing field 'board'
    """
    if not line.strip():
        raise ConformanceError("blank line")
    try:
        request = json.loads(line)
    except ValueError as error:
        raise ConformanceError(f"not JSON: {error}") from None
    if not isinstance(request, dict):
        raise ConformanceError("a line must hold a JSON object")
    for name in ("variant", "board", "dice"):
        if name not in request:
            raise ConformanceError(f"missing field {name!r}")
    try:
        variant = Variant(request["variant"])
    except ValueError:
        raise ConformanceError(f"unknown variant {request['variant']!r}") from None
    board = request["board"]
    if not _is_list(board, 2) or not all(_is_list(row, POINTS + 1) for row in board):
        raise ConformanceError("board must be two lists of 25 checker counts")
    dice = request["dice"]
    if not _is_list(dice, 2):
        raise ConformanceError("dice must be a list of two dice")
    first_turn = request.get("first_turn", False)
    if not isinstance(first_turn, bool):
        raise ConformanceError("first_turn must be true or false")
    # the mover (board[1]) plays White: check with the input's names for the sides
    check_board(variant, (board[1], board[0]), names=("board[1]", "board[0]"))
    return Position.from_gnubg(variant, board, Side.WHITE, first_turn), Dice(*dice)


def _is_list(value: Any, length: int) -> bool:
    return isinstance(value, list) and len(value) == length


def legal_boards(position: Position, dice: Dice) -> list[Board]:
    """The boards after every legal turn, in the request's layout, sorted."""
    return sorted(turn.position.to_gnubg() for turn in legal_turns(position, dice))


def answer(line: str | bytes) -> str:
    """The output line (without newline) for one input line."""
    try:
        result: dict[str, Any] = {"positions": legal_boards(*parse_request(line))}
    except EngineError as error:
        result = {"error": str(error)}
    return json.dumps(result, separators=(",", ":"))


def run_legal(lines: Iterable[str | bytes], write: Callable[[str], object]) -> None:
    """Answer each of ``lines``, in order."""
    for line in lines:
        write(answer(line))


def stream_lines(fd: int, before_waiting: Callable[[], object]) -> Iterator[bytes]:
    """Lines from the file descriptor ``fd`` as they arrive; ``before_waiting``
    runs whenever every line received so far was handed out (so the answers
    go out before a dialogue partner waits for them)."""
    pending = b""
    while True:
        before_waiting()
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        *lines, pending = (pending + chunk).split(b"\n")
        yield from lines
    if pending:
        yield pending
