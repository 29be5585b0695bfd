"""The engine state of a game record: :class:`MatchState`, its codec and caches.

The engine's :class:`engine.game.Game` is kept in ``record.engine`` as
``{"game": Game.to_dict(), "score": [white, black], "crawford_done": bool,
"number": int, "earlier": [packed games]}`` (the match score lives beside
the game of the match being played).  Replaying a stored game is not free,
so decoded games are cached per (game id, version): :func:`table_of`.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import threading
import zlib
from collections import OrderedDict
from typing import Any

from bot.vocab import clock
from bot.vocab.records import GameRecord, Status
from engine.game import Game
from engine.match import Standing


@dataclasses.dataclass(frozen=True)
class MatchState:
    """What ``record.engine`` holds: the game being played and the match score."""

    game: Game
    score: tuple[int, int] = (0, 0)
    crawford_done: bool = False
    number: int = 1
    """The game's number in its match."""
    earlier: tuple[str, ...] = ()
    """The match's finished games, packed (:func:`pack_game`) for /export;
    they are not decoded with the record."""

    def to_dict(self) -> dict[str, Any]:
        data = {"game": self.game.to_dict(), "score": list(self.score),
                "crawford_done": self.crawford_done, "number": self.number}
        return {**data, "earlier": list(self.earlier)} if self.earlier else data

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, after: MatchState | None = None) -> MatchState:
        """``after``: an earlier table of the same match, which the game's replay
        may go on from (``Game.from_dict``)."""
        score = data["score"]
        number = int(data.get("number", 1))
        earlier = after.game if after is not None and after.number == number else None
        return cls(Game.from_dict(data["game"], after=earlier), (int(score[0]), int(score[1])),
                   bool(data["crawford_done"]), number,
                   tuple(str(packed) for packed in data.get("earlier", ())))

    def games(self) -> tuple[Game, ...]:
        """Every game of the match so far, the current one last."""
        return (*(unpack_game(packed) for packed in self.earlier), self.game)

    @property
    def match_length(self) -> int:
        return self.game.options.match_length

    @property
    def standing(self) -> Standing:
        """The match's score and Crawford state: the engine's match rules ask it."""
        return Standing(self.match_length, self.score, self.crawford_done)

    @property
    def match_over(self) -> bool:
        """No later game belongs to this one (a single game, or a match won)."""
        return self.standing.is_settled

    def scored(self) -> MatchState:
        """The score after the game's result (call once, when it ends)."""
        if self.game.result is None:
            return self
        return dataclasses.replace(self, score=self.standing.counting(self.game).score)

    def next_game(self) -> MatchState:
        """The following game of the match (the same players and sides)."""
        standing, game = self.standing.next_game(self.game)
        return MatchState(game, standing.score, standing.crawford_done, self.number + 1,
                          (*self.earlier, pack_game(self.game)))


def pack_game(game: Game) -> str:
    """A finished game in a line of text: its JSON, zlib, base64 (a
    whole long nardy game is ~10 KB of JSON, ~1.4 KB packed)."""
    data = json.dumps(game.to_dict(), separators=(",", ":")).encode()
    return base64.b64encode(zlib.compress(data, 9)).decode()


def unpack_game(packed: str) -> Game:
    return Game.from_dict(json.loads(zlib.decompress(base64.b64decode(packed))))


_STORED: OrderedDict[str, dict[int, tuple[Any, MatchState]]] = OrderedDict()
"""Tables of the newest stored versions of each game (the 512 games used
last), by game id and version, each with its record's :func:`_mark`: a tap
loads its record from Redis and finds the table here instead of replaying
the game.  Only the last few versions are kept (an update still holds the
record it started from after saving the next one); older ones are no use,
and every table kept is objects the garbage collector walks."""
_STORED_GAMES = 512
_STORED_VERSIONS = 3
_FRESH: OrderedDict[int, tuple[dict[str, Any], MatchState]] = OrderedDict()
"""Tables of records made here and not saved yet, by the identity of their
``engine`` dict (pydantic's ``model_copy`` keeps the same dict object).
Such a record lives for one update, so a few dozen entries are plenty;
each keeps its ``engine`` JSON alive (~200 lists and dicts), and 512 of
them made every young-generation collection walk ~80 000 objects (10-35
ms with every tap waiting)."""
_FRESH_RECORDS = 64


_CACHE_LOCK = threading.Lock()
"""Guards the two caches against callers in several threads (the bot itself
reads tables on its event loop only; the lock costs next to nothing)."""


def _bounded(cache: OrderedDict[Any, Any], key: Any, value: Any, size: int) -> None:
    with _CACHE_LOCK:
        cache[key] = value
        cache.move_to_end(key)
        while len(cache) > size:
            cache.popitem(last=False)


def _mark(engine: dict[str, Any]) -> Any:
    """What tells two records of one game and version apart, cheaply: a save
    acknowledged here can be lost with its master in a failover (Redis
    replicates asynchronously), and another worker's save then takes its
    version with other events (dice rolled again, another step)."""
    game = engine.get("game") or {}
    events = game.get("events") or []
    return (engine.get("number"), engine.get("score"), len(events), events[-1:],
            game.get("played"), game.get("position"), game.get("result"))


def remember_table(record: GameRecord, table: MatchState) -> None:
    """``table`` is the table of the stored ``record``."""
    with _CACHE_LOCK:
        versions = _STORED.pop(record.game_id, {})
        versions[record.version] = (_mark(record.engine), table)
        if len(versions) > _STORED_VERSIONS:
            versions = {v: versions[v] for v in sorted(versions)[-_STORED_VERSIONS:]}
        _STORED[record.game_id] = versions
        while len(_STORED) > _STORED_GAMES:
            _STORED.popitem(last=False)


def table_of(record: GameRecord) -> MatchState:
    """The record's engine state, decoded from JSON once per record version; a
    version decoded here for the first time (another worker saved it) is
    replayed on from the newest earlier one kept, not from the first roll."""
    with _CACHE_LOCK:
        fresh = _FRESH.get(id(record.engine))
        versions = _STORED.get(record.game_id, {})
        kept = versions.get(record.version)
        earlier = max((v for v in versions if v < record.version), default=None)
        after = None if earlier is None else versions[earlier][1]
    if fresh is not None and fresh[0] is record.engine:
        return fresh[1]
    # a kept table of another record of this version (a lost save's) is not this one's
    table = kept[1] if kept is not None and kept[0] == _mark(record.engine) else None
    if table is None:  # decoded outside the lock: two threads may both decode, harmlessly
        table = MatchState.from_dict(record.engine, after=after)
        remember_table(record, table)
    return table


def engine_dict(table: MatchState) -> dict[str, Any]:
    """``table`` as ``record.engine``, remembered so it is not decoded again."""
    data = table.to_dict()
    _bounded(_FRESH, id(data), (data, table), _FRESH_RECORDS)
    return data


def with_table(record: GameRecord, table: MatchState, **changes: Any) -> GameRecord:
    return record.model_copy(update={"engine": engine_dict(table), "updated_at": clock.now(),
                                     **changes})


def match_in_progress(record: GameRecord) -> bool:
    """A game of a match ended and the match did not: the record waits for
    its next game (or for both players, or an admin, to end the match)."""
    return (record.status is Status.FINISHED and bool(record.engine)
            and not table_of(record).match_over)
