"""Tournaments in Redis: one record per tournament, changed by one compare-and-set
that books its prizes in the same script, and a queue of wake-ups.

Keys (bot/store/keys.py): the record ``nardy:{chat:<id>}:t:<tournament>``
(hash ``v``, ``d``, ``w`` like a game's), the chat's tournaments
(``:tournaments``, a zset of ids by creation, the open ones), the matches its
games play (``:tmatch``: a match's dice commitment -> the tournament, so that
the end of a match finds its tournament whatever game of the match ends it),
all in the chat's hash slot, so :meth:`Tournaments.save` writes the record,
the index, the map and the ledger entries of its prizes in one script: a
tournament's prizes are booked with its final standings or not at all, once
(the compare-and-set on the version makes a repeat a lost race).

The wake-up queue ``nardy:{tournaments}:due`` (another slot, so updated after
the save, as a hint: the record is the truth) holds each tournament that
waits for something of the bot - its start time, a round to post, a
deadline - by time; :meth:`Tournaments.claim` leases due ones to one process.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from redis.exceptions import ResponseError

from bot.store.client import RedisClient, as_text, idempotent
from bot.store.games import Games
from bot.store.keys import Keys
from bot.store.layout import CURRENT
from bot.store.ledger import ledger_field
from bot.vocab.records import (
    CorruptRecordError,
    RecordKey,
    VersionConflict,
    encode,
    write_token,
)
from bot.vocab.tournament import TournamentRecord

# KEYS: record, the chat's index, the ledger, the match map.  ARGV: expected
# version, JSON, tournament id, created at, (unused), the number of
# ledger pairs n, the number of match entries m, then n (field, amount) pairs,
# m (commitment) entries, and the write token last (CURRENT).
_SAVE = CURRENT + """
local new = tonumber(cur) + 1
redis.call('HSET', KEYS[1], 'v', new, 'd', ARGV[2], 'w', ARGV[#ARGV])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3])
local n, m = tonumber(ARGV[6]), tonumber(ARGV[7])
for i = 8, 7 + 2 * n, 2 do redis.call('HINCRBY', KEYS[3], ARGV[i], ARGV[i + 1]) end
for i = 8 + 2 * n, 7 + 2 * n + m do redis.call('HSET', KEYS[4], ARGV[i], ARGV[3]) end
return {1, new}
"""

# KEYS: the queue.  ARGV: now, lease end, limit.  The due members move to the
# lease end (handed out again then, if their process died) and are returned.
_CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, m in ipairs(due) do redis.call('ZADD', KEYS[1], ARGV[2], m) end
return due
"""


LOOKED_AT = 20
"""A chat's newest tournaments that are looked at for its open ones."""


class Tournaments:
    """Load, compare-and-set and wake tournaments (a part of :class:`bot.store.Store`)."""

    def __init__(self, redis: RedisClient, keys: Keys, games: Games) -> None:
        self.redis = redis
        self.keys = keys
        self.games = games
        self._save = redis.register_script(_SAVE)
        self._claim = redis.register_script(_CLAIM)

    async def load(self, chat_id: int, tournament_id: str) -> TournamentRecord | None:
        """The stored tournament (as any record is read: ``Games.load``)."""
        return await self.games.load(RecordKey(TournamentRecord, chat_id, tournament_id))

    async def save(self, record: TournamentRecord, expected_version: int, *,
                   ledger: Mapping[tuple[int, int], int] | None = None,
                   matches: tuple[str, ...] = ()) -> TournamentRecord:
        """Write ``record`` as version ``expected_version + 1`` (0: a new one);
        with it, in the same script, ``ledger`` ((winner, loser) -> what the
        loser pays, the format of a game's booking) and the ``matches`` (dice
        commitments) its games play.  :class:`VersionConflict` if it changed."""
        chat = record.chat_id
        name = self.keys.record(record.key)
        pairs: list[Any] = []
        for (winner, loser), amount in (ledger or {}).items():
            field, sign = ledger_field(winner, loser)
            pairs += [field, sign * amount]
        keys = [name, self.keys.chat(chat, "tournaments"), self.keys.chat(chat, "ledger"),
                self.keys.chat(chat, "tmatch")]
        args = [expected_version, encode(record), record.tournament_id, record.created_at,
                "1" if record.status.is_open else "0", len(pairs) // 2, len(matches),
                *pairs, *matches, write_token()]
        try:
            ok, version = await idempotent(lambda: self._save(keys=keys, args=args))
        except ResponseError as error:
            raise CorruptRecordError(name, f"not a hash ({error})") from None
        if not ok:
            raise VersionConflict(name, expected_version, as_text(version))
        return record.model_copy(update={"version": int(version)})

    async def of_match(self, chat_id: int, commitment: str) -> str | None:
        """The tournament whose game plays the match of this dice commitment."""
        found = await self.redis.hget(self.keys.chat(chat_id, "tmatch"), commitment)
        return None if found is None else as_text(found)

    async def open_ones(self, chat_id: int) -> list[TournamentRecord]:
        """The chat's lobbies and running tournaments, the oldest first (of
        its last :data:`LOOKED_AT`)."""
        ids = await self.redis.zrange(self.keys.chat(chat_id, "tournaments"), -LOOKED_AT, -1)
        records = [await self.load(chat_id, as_text(i)) for i in ids]
        return [r for r in records if r is not None and r.status.is_open]

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
