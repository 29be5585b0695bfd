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
) -> tuple[bytes, bytes, bytes, bytes, bytes, bytes]: ...
def features(me: _Bytes, opponent: _Bytes, out: _Bytes, /) -> None: ...
def own(rows: _Bytes, out: _Bytes, /) -> None: ...
def pairs(
    me: _Bytes, me_index: _Bytes, opponent: _Bytes, opp_index: _Bytes, me_gate: _Bytes,
    opp_gate: _Bytes, me_first: _Bytes, opp_first: _Bytes, cross: _Bytes, second: _Bytes,
    bias: _Bytes, out: _Bytes, /
) -> None: ...
def shares(rows: _Bytes, weights: _Bytes, bias: _Bytes, out: _Bytes, /) -> None: ...

MOST_HIDDEN: int
