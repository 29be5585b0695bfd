"""Tournaments in Redis: one record per tournament, changed by one compare-and-set
that books its prizes in the same script, and a queue of wake-ups.

Keys (bot/store/keys.py): the record ``nardy:{chat:<id>}:t:<tournament>``
(hash ``v``, ``d``, ``w`` like a game's), the chat's tournaments
(``:tournaments``, a zset of ids by creation, the closed ones below the open
ones), the matches its games play (``:tmatch``: a match's dice commitment -> the tournament, so that
the end of a match finds its tournament whatever game of the match ends it),
all in the chat's hash slot, so :meth:`Tournaments.save` writes the record,
the index, the map and the ledger entries of its prizes in one script: a
tournament's prizes are booked with its final standings or not at all, once
(the compare-and-set on the version makes a repeat a lost race).

A chat's league (:class:`Leagues`): the tables of its months and named
seasons (``:league:m:<YYYY-MM>``, ``:league:s:<id>``), added to by the script
that books each game's end (bot/store/ledger.py ``_FINISH``), and its named
seasons in ``:league`` (which one runs, each kept one, and ``n``, the
history lines booked since the tables were kept).

The wake-up queue ``nardy:{tournaments}:due`` (another slot, so updated after
the save, as a hint: the record is the truth) holds each tournament that
waits for something of the bot - its start time, a round to post, a
deadline - by time; :meth:`Tournaments.claim` leases due ones to one process.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from pydantic import ValidationError
from redis.exceptions import ResponseError

from bot.store.client import RedisClient, as_text, corrupt_or_transient, idempotent
from bot.store.games import Games
from bot.store.keys import Keys
from bot.store.layout import CURRENT, ENDED_TTL
from bot.store.ledger import ledger_pairs
from bot.store.replicas import Replicas
from bot.vocab.records import (
    CorruptRecordError,
    RecordKey,
    Status,
    StoreError,
    VersionConflict,
    encode,
    write_token,
)
from bot.vocab.tournament import NamedSeason, Tally, TournamentRecord

# KEYS: record, the chat's index, the ledger, the match map, the chat's lobby
# makers.  ARGV: expected version, JSON, tournament id, created at, '1' if
# open, the number of ledger pairs n, the number of match entries m, then n
# (field, amount) pairs, m (commitment, tournament id) pairs (the id after '!' for
# a match its pairing's forfeit decided: bot/store/ledger.py ``_FINISH`` books no
# end of it any more), the creator, '1' if a lobby,
# the most open ones a new one may join (0: neither limit is checked), the
# seconds a closed one is kept, and the write token last (CURRENT).  Returns {1, new version},
# {0, stored version}, or for a new one over a limit (nothing written) {2, the
# creator's open lobby} or {3, the chat's open ones}: the limits are checked in
# the script that writes, so commands at once never pass them together.
FORFEIT = "!"
"""Before the tournament id in the match map: that match's pairing was decided
by forfeit (:meth:`Tournaments.save`'s ``forfeits``)."""

_SAVE = CURRENT + """
local creator, lobby, most = ARGV[#ARGV - 4], ARGV[#ARGV - 3], tonumber(ARGV[#ARGV - 2])
if cur == '0' and most > 0 then
  local held = redis.call('HGET', KEYS[5], creator)
  local score = held and redis.call('ZSCORE', KEYS[2], held)
  if lobby == '1' and score and tonumber(score) > 0 then return {2, held} end
  local open = redis.call('ZCOUNT', KEYS[2], '(0', '+inf')
  if open >= most then return {3, open} end
end
-- who has a lobby open: set with it, gone when it starts or closes
if lobby == '1' then redis.call('HSET', KEYS[5], creator, ARGV[3])
elseif redis.call('HGET', KEYS[5], creator) == ARGV[3] then redis.call('HDEL', KEYS[5], creator) end
local new = tonumber(cur) + 1
redis.call('HSET', KEYS[1], 'v', new, 'd', ARGV[2], 'w', ARGV[#ARGV])
-- open ones by creation, closed ones below every open one: a flood of closed
-- lobbies never pushes a running tournament out of the newest LOOKED_AT
redis.call('ZADD', KEYS[2], ARGV[5] == '1' and ARGV[4] or -tonumber(ARGV[4]), ARGV[3])
local n, m = tonumber(ARGV[6]), tonumber(ARGV[7])
for i = 8, 7 + 2 * n, 2 do redis.call('HINCRBY', KEYS[3], ARGV[i], ARGV[i + 1]) end
for i = 8 + 2 * n, 7 + 2 * n + 2 * m, 2 do redis.call('HSET', KEYS[4], ARGV[i], ARGV[i + 1]) end
-- a closed one is kept a while, as an ended game is; so are the index and
-- the match map of a chat with no open one (else they are kept)
local ttl = tonumber(ARGV[#ARGV - 1])
if ARGV[5] == '1' then redis.call('PERSIST', KEYS[1]) else redis.call('EXPIRE', KEYS[1], ttl) end
local created = -tonumber(redis.call('TIME')[1]) + ttl   -- closed ones made before then
redis.call('ZREMRANGEBYSCORE', KEYS[2], '(' .. created, '(0')
for _, key in ipairs({KEYS[2], KEYS[4], KEYS[5]}) do
  if redis.call('ZCOUNT', KEYS[2], 0, '+inf') == 0 then redis.call('EXPIRE', key, ttl)
  else redis.call('PERSIST', key) end
end
return {1, new}
"""

# KEYS: the queue.  ARGV: now, lease end, limit.  The due members move to the
# lease end (handed out again then, if their process died) and are returned.
_CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, m in ipairs(due) do redis.call('ZADD', KEYS[1], ARGV[2], m) end
return due
"""

# KEYS: the league's meta hash.  ARGV: the season's id, its JSON.  Returns the
# id of the season running now: this one's, unless another runs.
_START_SEASON = """
local running = redis.call('HGET', KEYS[1], 'season')
if running then return running end
redis.call('HSET', KEYS[1], 'season', ARGV[1], 's:' .. ARGV[1], ARGV[2])
return ARGV[1]
"""

# KEYS: the league's meta hash, the season's table.  ARGV: the season's id, its
# JSON as ended.  Returns 1, or 0 if that season is not the one running.  A
# season whose table is empty (no rated result) is not kept.
_END_SEASON = """
if redis.call('HGET', KEYS[1], 'season') ~= ARGV[1] then return 0 end
redis.call('HDEL', KEYS[1], 'season')
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HSET', KEYS[1], 's:' .. ARGV[1], ARGV[2])
else
  redis.call('HDEL', KEYS[1], 's:' .. ARGV[1])
end
return 1
"""

# KEYS: the league's meta hash, the season's table.  ARGV: the season's id.
# Returns 1, or 0 if it is running or not kept.
_ERASE_SEASON = """
if redis.call('HGET', KEYS[1], 'season') == ARGV[1] then return 0 end
if redis.call('HDEL', KEYS[1], 's:' .. ARGV[1]) == 0 then return 0 end
redis.call('DEL', KEYS[2])
return 1
"""

class TournamentLimit(StoreError):
    """A new tournament refused by the script that would write it: its creator
    has a lobby open (``lobby``: its id), or the chat has ``open`` open ones."""

    def __init__(self, key: str, lobby: str | None, open_ones: int) -> None:
        super().__init__(f"{key}: lobby {lobby} open" if lobby else f"{key}: {open_ones} open")
        self.lobby = lobby
        self.open = open_ones


POSTING = 60.0
"""Seconds a worker has to post what it was first to post (:meth:`Tournaments.first_to`)."""

LOOKED_AT = 20
"""A chat's newest tournaments that are looked at for its open ones."""

SHOWN = 30 * 86400.0
"""Seconds what a tournament's message shows is remembered (:meth:`Tournaments.shows`)."""


class Tournaments:
    """Load, compare-and-set and wake tournaments (a part of :class:`bot.store.Store`)."""

    def __init__(self, redis: RedisClient, keys: Keys, games: Games,
                 replicas: Replicas | None = None) -> None:
        self.redis = redis
        self.keys = keys
        self.games = games
        self.replicas = replicas or Replicas(redis)
        self._save = redis.register_script(_SAVE)
        self._claim = redis.register_script(_CLAIM)
        self.league = Leagues(redis, keys)
        """The chat's league tables and named seasons."""

    async def load(self, chat_id: int, tournament_id: str) -> TournamentRecord | None:
        """The stored tournament (as any record is read: ``Games.load``)."""
        return await self.games.load(RecordKey(TournamentRecord, chat_id, tournament_id))

    async def save(self, record: TournamentRecord, expected_version: int, *,
                   ledger: Mapping[tuple[int, int], int] | None = None,
                   matches: tuple[str, ...] = (), forfeits: tuple[str, ...] = (),
                   most_open: int = 0) -> TournamentRecord:
        """Write ``record`` as version ``expected_version + 1`` (0: a new one);
        with it, in the same script, ``ledger`` ((winner, loser) -> what the
        loser pays, the format of a game's booking) and the ``matches`` (dice
        commitments) its games play, and the ``forfeits`` (the matches of pairings
        this change decided by forfeit: their games' ends are booked no more,
        ``Ledger.finish_game``).  :class:`VersionConflict` if it changed.
        A new one: :class:`TournamentLimit` while its creator has a lobby open
        or the chat has ``most_open`` open ones (0: neither limit)."""
        chat = record.chat_id
        name = self.keys.record(record.key)
        pairs = ledger_pairs(ledger)
        keys = [name, self.keys.chat(chat, "tournaments"), self.keys.chat(chat, "ledger"),
                self.keys.chat(chat, "tmatch"), self.keys.chat(chat, "tlobbies")]
        args = [expected_version, encode(record), record.tournament_id, record.created_at,
                "1" if record.status.is_open else "0", len(pairs) // 2,
                len(matches) + len(forfeits), *pairs,
                *(part for m in matches for part in (m, record.tournament_id)),
                *(part for m in forfeits for part in (m, FORFEIT + record.tournament_id)),
                record.created_by,
                "1" if record.status is Status.LOBBY else "0", most_open, ENDED_TTL,
                write_token()]
        try:
            ok, version = await idempotent(lambda: self._save(keys=keys, args=args))
        except ResponseError as error:
            raise corrupt_or_transient(name, error) from None
        if ok in (2, 3):
            raise TournamentLimit(name, as_text(version) if ok == 2 else None,
                                  int(version) if ok == 3 else 0)
        if not ok:
            raise VersionConflict(name, expected_version, as_text(version))
        if pairs or not record.status.is_open:  # told its prizes, or its end
            await self.replicas.confirm(name)
        return record.model_copy(update={"version": int(version)})

    async def first_to(self, chat_id: int, what: str, ttl: float = POSTING) -> bool:
        """Whether this caller is the first to post ``what`` (a round's pairings,
        a game's board, the end) in the next ``ttl`` seconds: two workers that
        process one tournament at once (a button's and the wake-up's) post it
        once.  Whoever is first and dies before posting delays it by ``ttl``."""
        name = self.keys.chat(chat_id, f"tpost:{what}")
        return bool(await self.redis.set(name, "1", nx=True, px=int(ttl * 1000)))

    async def shows(self, chat_id: int, message_id: int, digest: str) -> bool:
        """Note that the message ``message_id`` is made to show ``digest`` (its
        text and buttons, hashed); False if the bot made it show that already,
        so an edit would be refused ("message is not modified")."""
        name = self.keys.chat(chat_id, f"shown:{message_id}")
        before = await self.redis.set(name, digest, px=int(SHOWN * 1000), get=True)
        return before is None or as_text(before) != digest

    async def shown(self, chat_id: int, message_id: int) -> bool:
        """Whether the bot noted what the message shows (:meth:`shows`): one of
        a tournament's own messages (its lobby, standings, a prompt)."""
        return bool(await self.redis.exists(self.keys.chat(chat_id, f"shown:{message_id}")))

    async def unshown(self, chat_id: int, message_id: int) -> None:
        """Forget what the message shows (its edit failed: the next one is sent)."""
        await self.redis.delete(self.keys.chat(chat_id, f"shown:{message_id}"))

    async def of_match(self, chat_id: int, commitment: str) -> str | None:
        """The tournament whose game plays the match of this dice commitment."""
        found = await self.redis.hget(self.keys.chat(chat_id, "tmatch"), commitment)
        return None if found is None else as_text(found).removeprefix(FORFEIT)

    async def open_ones(self, chat_id: int) -> list[TournamentRecord]:
        """The chat's lobbies and running tournaments, the oldest first (of
        its last :data:`LOOKED_AT`)."""
        ids = await self.redis.zrange(self.keys.chat(chat_id, "tournaments"), -LOOKED_AT, -1)
        records = [await self.load(chat_id, as_text(i)) for i in ids]
        return [r for r in records if r is not None and r.status.is_open]

    async def ended_ones(self, chat_id: int) -> list[TournamentRecord]:
        """The chat's tournaments that are over (finished or cancelled, kept
        until their records expire), the oldest first (of its last
        :data:`LOOKED_AT`)."""
        ids = await self.redis.zrange(self.keys.chat(chat_id, "tournaments"), -LOOKED_AT, -1)
        records = [await self.load(chat_id, as_text(i)) for i in ids]
        return [r for r in records if r is not None and not r.status.is_open]

    async def wake(self, record: TournamentRecord, when: float | None) -> None:
        """Wake ``record`` at ``when`` (never later than a wake-up already set),
        or never (None)."""
        if when is None:
            await self.redis.zrem(self.keys.tournaments_due, record.ref)
        else:
            await self.redis.zadd(self.keys.tournaments_due, {record.ref: when}, lt=True)

    async def reschedule(self, record: TournamentRecord, when: float | None) -> None:
        """Set the next wake-up of a tournament this process has just handled
        (a claim's lease replaced), or drop it."""
        if when is None:
            await self.redis.zrem(self.keys.tournaments_due, record.ref)
        else:
            await self.redis.zadd(self.keys.tournaments_due, {record.ref: when})

    async def forget(self, chat_id: int, tournament_id: str) -> None:
        """Drop the wake-ups of a tournament that is not stored (its chat moved
        to a supergroup while it was claimed), so that it is not handed out
        again every lease."""
        due = self.keys.tournaments_due
        async for member, _ in self.redis.zscan_iter(due, match=f"{chat_id}:*:{tournament_id}"):
            await self.redis.zrem(due, member)

    async def claim(self, now: float | None = None, lease: float = 120.0, limit: int = 20
                    ) -> list[tuple[int, str]]:
        """The due tournaments as (chat id, tournament id), each leased to this
        caller for ``lease`` seconds (handed out again after, unless rescheduled)."""
        now = time.time() if now is None else now
        due = await self._claim(keys=[self.keys.tournaments_due], args=[now, now + lease, limit])
        out = []
        for member in due:
            chat, _, tournament = as_text(member).split(":")
            out.append((int(chat), tournament))
        return out


class Leagues:
    """A chat's league tables and named seasons (``store.tournament.league``).

    The tables are only added to by the booking of a game's end
    (bot/store/ledger.py), so every rated result counts once; this reads them
    and starts and ends named seasons, each one script in the chat's slot.
    """

    def __init__(self, redis: RedisClient, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys
        self._start = redis.register_script(_START_SEASON)
        self._end = redis.register_script(_END_SEASON)
        self._erase = redis.register_script(_ERASE_SEASON)

    async def seasons(self, chat_id: int) -> tuple[NamedSeason | None, list[NamedSeason], int]:
        """The named season running (None: none), every kept one (the oldest
        first), and how many history lines were booked since the tables were kept."""
        name = self.keys.chat(chat_id, "league")
        meta = {as_text(k): as_text(v) for k, v in (await self.redis.hgetall(name)).items()}
        kept = sorted((_season(f"{name}[{field}]", value)
                       for field, value in meta.items() if field.startswith("s:")),
                      key=lambda s: (s.started_at, s.season_id))
        running = next((s for s in kept if s.season_id == meta.get("season")), None)
        return running, kept, int(meta.get("n", 0))

    async def table(self, name: str) -> tuple[dict[int, Tally], dict[int, str]]:
        """A table (a key of :meth:`Keys.league_month` or :meth:`Keys.league_season`):
        each player's line, and their names."""
        raw = {as_text(k): as_text(v) for k, v in (await self.redis.hgetall(name)).items()}
        lines: dict[int, Tally] = {}
        who: dict[int, str] = {}
        for field, value in raw.items():
            kind, _, user = field.partition(":")
            if kind == "n":
                who[int(user)] = value
            elif kind == "p":
                user_id = int(user)
                try:
                    lines[user_id] = (int(value), int(raw[f"g:{user}"]), int(raw[f"w:{user}"]),
                                      int(raw[f"r:{user}"]))
                except (KeyError, ValueError):
                    raise CorruptRecordError(f"{name}[{field}]", "a broken line") from None
        return lines, who

    async def start(self, chat_id: int, season: NamedSeason) -> str:
        """Start ``season`` unless a season runs; the id of the one running then
        (``season``'s: started, or started before by a retry)."""
        running = await idempotent(lambda: self._start(
            keys=[self.keys.chat(chat_id, "league")],
            args=[season.season_id, season.model_dump_json()]))
        return as_text(running)

    async def end(self, chat_id: int, season: NamedSeason) -> bool:
        """End the running ``season`` (``season.ended_at`` set; kept only if a
        rated result counted in it); False if it is not the one running (ended
        before, by a retry or by somebody else)."""
        if season.ended_at is None:
            raise ValueError("an ended season has its end")
        args = [season.season_id, season.model_dump_json()]
        keys = [self.keys.chat(chat_id, "league"),
                self.keys.league_season(chat_id, season.season_id)]
        done = await idempotent(lambda: self._end(keys=keys, args=args))
        return bool(done)

    async def erase(self, chat_id: int, season: NamedSeason) -> bool:
        """Forget an ended season and its table; False if it runs or is gone."""
        keys = [self.keys.chat(chat_id, "league"),
                self.keys.league_season(chat_id, season.season_id)]
        done = await idempotent(lambda: self._erase(keys=keys, args=[season.season_id]))
        return bool(done)


def _season(key: str, raw: str) -> NamedSeason:
    try:
        return NamedSeason.model_validate_json(raw)
    except ValidationError as error:
        raise CorruptRecordError(key, str(error.errors(include_url=False)[0]["msg"])) from None
