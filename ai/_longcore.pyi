# Types of the C module ai/_longcore.c (the search's long nardy core).
from typing import Any

from numpy.typing import NDArray
from typing_extensions import Buffer

_Bytes = Buffer | NDArray[Any]

def results(
    mover: _Bytes, opponent: _Bytes, first_turn: bool, die1: int, die2: int, /
) -> bytes: ...
def replies(
    movers: _Bytes, opponents: _Bytes, first_turns: _Bytes, rolls: _Bytes, /
) -> tuple[bytes, bytes, bytes, bytes, bytes, bytes, bytes]: ...
def features(me: _Bytes, opponent: _Bytes, out: _Bytes, /) -> None: ...
def own(rows: _Bytes, out: _Bytes, /) -> None: ...
def cross(me: _Bytes, opponent: _Bytes, out: _Bytes, /) -> None: ...
