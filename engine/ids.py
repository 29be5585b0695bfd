"""Short text IDs of positions: GNU Backgammon Position IDs and our long
nardy IDs.

Both pack checker counts the way gnubg does: for every point in order, as
many 1 bits as checkers and then a 0 bit, least significant bit of each byte
first; 80 bits are 10 bytes, 14 base64 characters without padding.

* :func:`position_id` / :func:`position_from_id`: the GNU Backgammon Position
  ID that gnubg and eXtreme Gammon users paste.  It covers the 25 points
  (bar last) of the player *not* on roll, then of the player on roll, so it
  does not say which colour is on roll: the parser takes ``turn``.
* :func:`long_id` / :func:`position_from_long_id`: long nardy.  Bit 0 is the
  side to move (1: Black), bit 1 ``first_turn``, then White's 24 points and
  Black's 24 points (each side's own numbering, 1 to 24): at most
  2 + 2 * (24 + 15) = 80 bits, written in URL-safe base64 (``-``, ``_``),
  which also tells the two kinds of ID apart.

>>> position_id(Position.initial(Variant.BACKGAMMON))
'4HPwATDgc/ABMA'
>>> long_id(Position.initial(Variant.LONG))
'AgAA_v8AAAD_fw'
>>> position_from_long_id('AgAA_v8AAAD_fw') == Position.initial(Variant.LONG)
True
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Sequence

from engine.position import CHECKERS, POINTS, EngineError, Position, Side, Variant

ID_BYTES = 10
ID_LENGTH = 14


class InvalidIdError(EngineError):
    """Text that is not a valid position ID."""


def _pack(flags: Iterable[bool], rows: Iterable[Sequence[int]]) -> bytes:
    bits = list(flags)
    for row in rows:
        for count in row:
            bits += [True] * count + [False]
    value = sum(1 << index for index, bit in enumerate(bits) if bit)
    return value.to_bytes(ID_BYTES, "little")


def _unpack(data: bytes, flags: int, points: int) -> tuple[list[bool], list[list[int]]]:
    """Inverse of :func:`_pack` for ``flags`` leading bits and two rows of
    ``points`` counts; rejects overfull rows and stray bits."""
    value = int.from_bytes(data, "little")
    bits = [bool(value >> index & 1) for index in range(8 * ID_BYTES)]
    head, position = bits[:flags], flags
    rows: list[list[int]] = []
    for _ in range(2):
        row: list[int] = []
        while len(row) < points:
            count = 0
            while position < len(bits) and bits[position]:
                count += 1
                position += 1
            if position == len(bits):
                raise InvalidIdError("the ID ends in the middle of the board")
            position += 1
            row.append(count)
        if sum(row) > CHECKERS:
            raise InvalidIdError(f"a side has {sum(row)} checkers, more than 15")
        rows.append(row)
    if any(bits[position:]):
        raise InvalidIdError("the ID has bits after the board")
    return head, rows


def _decode(text: str, altchars: bytes) -> bytes:
    alphabet = "A-Za-z0-9" + re.escape(altchars.decode())
    if not isinstance(text, str) or not re.fullmatch(f"[{alphabet}]{{{ID_LENGTH}}}", text):
        raise InvalidIdError(f"an ID is {ID_LENGTH} base64 characters, not {text!r}")
    try:
        data = base64.b64decode(text + "==", altchars=altchars, validate=True)
    except binascii.Error as error:  # pragma: no cover - the pattern above prevents it
        raise InvalidIdError(f"bad base64 in {text!r}") from error
    if base64.b64encode(data, altchars=altchars).decode()[:ID_LENGTH] != text:
        raise InvalidIdError(f"{text!r} has stray bits in its last character")
    return data


def position_id(position: Position) -> str:
    """The GNU Backgammon Position ID, seen from the side to move."""
    if position.variant is not Variant.BACKGAMMON:
        raise InvalidIdError("GNU Backgammon Position IDs are for backgammon")
    data = _pack((), position.to_gnubg())
    return base64.b64encode(data).decode()[:ID_LENGTH]


def position_from_id(text: str, turn: Side = Side.WHITE) -> Position:
    """The backgammon position of a GNU Backgammon Position ID with ``turn``
    on roll.

    >>> position_from_id('4HPwATDgc/ABMA', Side.BLACK).turn
    <Side.BLACK: 1>
    """
    _, rows = _unpack(_decode(text.strip(), b"+/"), 0, POINTS + 1)
    try:
        return Position.from_gnubg(Variant.BACKGAMMON, rows, turn)
    except EngineError as error:
        raise InvalidIdError(f"{text!r}: {error}") from error


def long_id(position: Position) -> str:
    """Our ID of a long nardy position (see the module docstring)."""
    if position.variant is not Variant.LONG:
        raise InvalidIdError("long nardy IDs are for long nardy positions")
    rows = (row[:POINTS] for row in position.board)
    data = _pack((position.turn is Side.BLACK, position.first_turn), rows)
    return base64.urlsafe_b64encode(data).decode()[:ID_LENGTH]


def position_from_long_id(text: str) -> Position:
    """The long nardy position of an ID made by :func:`long_id`."""
    (black, first_turn), rows = _unpack(_decode(text.strip(), b"-_"), 2, POINTS)
    try:
        return Position(
            Variant.LONG,
            ((*rows[0], 0), (*rows[1], 0)),
            Side.BLACK if black else Side.WHITE,
            first_turn,
        )
    except EngineError as error:
        raise InvalidIdError(f"{text!r}: {error}") from error
