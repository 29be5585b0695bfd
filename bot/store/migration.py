"""A group that became a supergroup: its records move to the new chat id."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from bot.store import schema
from bot.store.client import RedisClient, as_text, hset_expiring
from bot.store.clock import Clock
from bot.store.games import Games
from bot.store.keys import Keys
from bot.store.layout import ENDED_TTL, PLACE, placement
from bot.vocab.records import (
    GameRecord,
    Record,
    RecordKey,
    encode,
    game_key,
    settings_key,
)
from bot.vocab.tournament import TournamentRecord

# KEYS: slots, imported, ledger, history, booked, live, ended, then the record keys.
# ARGV: old chat id, history cap, #records, #ledger pairs, #history, #booked pairs, now,
# ended TTL, then per record (suffix, version, JSON, where ('' for a record
# that is not a game: it goes into `slots`; else bot/store/layout.py PLACE), topic,
# game id), ledger (field, delta), history JSON, booked (score, id).  Runs once per old
# chat id (the `imported` set remembers).
_IMPORT = PLACE + """
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then return 0 end
local n_rec, n_led, n_his, n_book = tonumber(ARGV[3]), tonumber(ARGV[4]),
                                    tonumber(ARGV[5]), tonumber(ARGV[6])
local a = 9
for i = 1, n_rec do
  local key = KEYS[7 + i]
  -- a record the new chat already has (started there meanwhile) is newer: keep it
  if redis.call('EXISTS', key) == 0 then
    redis.call('HSET', key, 'v', ARGV[a + 1], 'd', ARGV[a + 2])
    if ARGV[a + 3] == '' then
      redis.call('SADD', KEYS[1], ARGV[a])
    else
      place(key, KEYS[6], KEYS[7], ARGV[a + 5], ARGV[a + 3], ARGV[a + 4], ARGV[7], ARGV[8])
    end
  end
  a = a + 6
end
for i = 1, n_led do redis.call('HINCRBY', KEYS[3], ARGV[a], ARGV[a + 1]); a = a + 2 end
-- the old chat's games are older than any in the new chat: append at the end
for i = 1, n_his do redis.call('RPUSH', KEYS[4], ARGV[a]); a = a + 1 end
redis.call('LTRIM', KEYS[4], 0, tonumber(ARGV[2]) - 1)
for i = 1, n_book do redis.call('ZADD', KEYS[5], ARGV[a], ARGV[a + 1]); a = a + 2 end
redis.call('SADD', KEYS[2], ARGV[1])
return 1
"""


# KEYS: imported, the new chat's league hash, then the new chat's tables.  ARGV:
# the old chat id, the history lines it moved that its tables counted, #tables,
# #meta fields, then per table (its expiry or 0, #fields, field/value pairs), then
# the old league hash's field/value pairs.  Once per old chat (`imported` holds
# "league:<old id>"): tables add up, a kept season or month stays, a running
# season moves unless the new chat runs one.
_IMPORT_LEAGUE = """
if redis.call('SISMEMBER', KEYS[1], 'league:' .. ARGV[1]) == 1 then return 0 end
local a = 5
for t = 1, tonumber(ARGV[3]) do
  local key, expiry, n = KEYS[2 + t], tonumber(ARGV[a]), tonumber(ARGV[a + 1])
  a = a + 2
  for i = a, a + 2 * n - 1, 2 do
    if string.sub(ARGV[i], 1, 2) == 'n:' then redis.call('HSET', key, ARGV[i], ARGV[i + 1])
    else redis.call('HINCRBY', key, ARGV[i], ARGV[i + 1]) end
  end
  a = a + 2 * n
  if expiry > 0 then redis.call('EXPIREAT', key, expiry) end
end
for i = a, a + 2 * tonumber(ARGV[4]) - 1, 2 do
  if ARGV[i] ~= 'n' then redis.call('HSETNX', KEYS[2], ARGV[i], ARGV[i + 1]) end
end
redis.call('HINCRBY', KEYS[2], 'n', ARGV[2])
redis.call('SADD', KEYS[1], 'league:' .. ARGV[1])
return 1
"""


# KEYS: imported, the new chat's tournament index, its match map, then the
# records' keys.  ARGV: the old chat id, #records, #match entries, the
# seconds a closed one is kept, then per record (version, JSON, id, index
# score: below 0 for a closed one), then the match map's (commitment,
# tournament id) pairs.  Once per old chat (`imported` holds
# "tournaments:<old id>"); a tournament the new chat has already is kept.
_IMPORT_TOURNAMENTS = """
if redis.call('SISMEMBER', KEYS[1], 'tournaments:' .. ARGV[1]) == 1 then return 0 end
local n, m = tonumber(ARGV[2]), tonumber(ARGV[3])
local a = 5
for i = 1, n do
  if redis.call('EXISTS', KEYS[3 + i]) == 0 then
    redis.call('HSET', KEYS[3 + i], 'v', ARGV[a], 'd', ARGV[a + 1])
    if tonumber(ARGV[a + 3]) < 0 then redis.call('EXPIRE', KEYS[3 + i], ARGV[4]) end
    redis.call('ZADD', KEYS[2], ARGV[a + 3], ARGV[a + 2])
  end
  a = a + 4
end
for i = 1, m do redis.call('HSETNX', KEYS[3], ARGV[a], ARGV[a + 1]); a = a + 2 end
redis.call('SADD', KEYS[1], 'tournaments:' .. ARGV[1])
return 1
"""


class Migration:
    """Move a chat's records to its new id (a part of :class:`bot.store.Store`)."""

    def __init__(self, redis: RedisClient, keys: Keys, games: Games, clock: Clock,
                 history_cap: int) -> None:
        self.redis = redis
        self.keys = keys
        self.games = games
        self.clock = clock
        self.history_cap = history_cap
        self._import = redis.register_script(_IMPORT)
        self._import_league = redis.register_script(_IMPORT_LEAGUE)
        self._import_tournaments = redis.register_script(_IMPORT_TOURNAMENTS)

    async def moved_to(self, chat_id: int) -> int | None:
        """The chat's new id if it was migrated to a supergroup."""
        value = await self.redis.get(self.keys.chat(chat_id, "moved_to"))
        return int(value) if value is not None else None

    async def migrate_chat(self, old_id: int, new_id: int) -> list[str]:
        """Move a chat's records to its new id; idempotent, safe to re-run.

        The two chats' keys are in different cluster slots, so this is
        copy-then-delete, each step idempotent: (1) one Lua script imports
        everything into the new chat's slot, at most once per old id (and
        one each its league and its tournaments);
        (2) user-index, deadline and tournament wake-up entries are re-pointed (add new, then
        remove old); (3) the old keys are deleted; (4) `moved_to` is set.  A
        crash anywhere is healed by running it again.  A record the new chat
        already has is kept; the old one is dropped and its key returned.
        Raises `CorruptRecordError` (before any change) if an old record is
        unreadable.
        """
        await schema.upgrade_chat(self.redis, self.keys, old_id)  # its games by their ids
        records: list[Record] = []
        if await self.redis.sismember(self.keys.chat(old_id, "slots"), "settings"):
            settings = await self.games.load(settings_key(old_id))
            records += [settings] if settings is not None else []
        for index in (self.keys.live(old_id), self.keys.ended(old_id)):
            for game_id in sorted(map(as_text, await self.redis.zrange(index, 0, -1))):
                game = await self.games.load(game_key(old_id, game_id))
                if game is not None:
                    records.append(game)
        tournaments = await self._tournaments_of(old_id)
        moved = [r.model_copy(update={"chat_id": new_id}) for r in records]
        dropped: list[str] = []
        if not await self.redis.sismember(self.keys.chat(new_id, "imported"), str(old_id)):
            targets = [self.keys.record(r.key) for r in moved]
            dropped = [name for name in targets if await self.redis.exists(name)]
        history = await self.redis.llen(self.keys.chat(old_id, "history"))
        await self._import_chat(old_id, new_id, moved)
        league = await self._import_league_of(old_id, new_id, history)
        await self._import_tournaments_of(old_id, new_id, tournaments)
        # stats and dice counts: a player the new chat knows already keeps the
        # new chat's (HSETNX: a re-run after a crash writes nothing twice)
        for name in ("stats", "dice", "tlobbies"):  # tlobbies: members' open tournaments
            for field, value in (await self.redis.hgetall(self.keys.chat(old_id, name))).items():
                await self.redis.hsetnx(self.keys.chat(new_id, name), field, value)
        for old, new in zip(records, moved, strict=True):
            if isinstance(old, GameRecord) and isinstance(new, GameRecord):
                await self._repoint(old, new)
        old_records = [*records, *(record for record, _ in tournaments)]
        names = [self.keys.record(r.key) for r in old_records] + league + [
            self.keys.chat(old_id, name)
            for name in ("slots", "live", "ended", "ledger", "history", "booked", "stats", "dice",
                         "league", "tournaments", "tmatch", "tlobbies")
        ]
        await self.redis.delete(*names)
        await self.redis.set(self.keys.chat(old_id, "moved_to"), new_id)
        return dropped

    async def _import_chat(self, old_id: int, new_id: int, moved: Iterable[Record]) -> None:
        records = [(self.keys.record(r.key), r.key.suffix, r.version, encode(r),
                    *(placement(r) if isinstance(r, GameRecord) else ("", 0)),
                    getattr(r, "game_id", "")) for r in moved]
        ledger = await self.redis.hgetall(self.keys.chat(old_id, "ledger"))
        history = await self.redis.lrange(self.keys.chat(old_id, "history"), 0, -1)
        booked: list[Any] = await self.redis.zrange(
            self.keys.chat(old_id, "booked"), 0, -1, withscores=True
        )
        names = ("slots", "imported", "ledger", "history", "booked", "live", "ended")
        keys = [self.keys.chat(new_id, name) for name in names]
        args: list[Any] = [old_id, self.history_cap]
        args += [len(records), len(ledger), len(history), len(booked)]
        args += [time.time(), ENDED_TTL]
        for _, *fields in records:
            args += fields
        for field, value in ledger.items():
            args += [field, value]
        args += history
        for member, score in booked:
            args += [score, member]
        await self._import(keys=keys + [record[0] for record in records], args=args)

    async def _import_league_of(self, old_id: int, new_id: int, history: int) -> list[str]:
        """Add the old chat's league tables into the new chat's, and keep its
        seasons (once: bot/store/ledger.py keeps them); the old tables' keys.
        The moved history lines its tables counted are counted in the new
        chat's too (its ``n``), so that no line counts twice."""
        meta = {as_text(k): v for k, v in
                (await self.redis.hgetall(self.keys.chat(old_id, "league"))).items()}
        suffixes = [(f"league:m:{f[2:]}", int(float(v))) for f, v in meta.items()
                    if f.startswith("m:")]
        suffixes += [(f"league:s:{f[2:]}", 0) for f in meta if f.startswith("s:")]
        args: list[Any] = [old_id, min(int(meta.get("n", 0)), history), len(suffixes),
                           len(meta)]
        for suffix, expiry in suffixes:
            fields = await self.redis.hgetall(self.keys.chat(old_id, suffix))
            args += [expiry, len(fields)]
            for field, value in fields.items():
                args += [field, value]
        for field, value in meta.items():
            args += [field, value]
        keys = [self.keys.chat(new_id, "imported"), self.keys.chat(new_id, "league"),
                *(self.keys.chat(new_id, suffix) for suffix, _ in suffixes)]
        await self._import_league(keys=keys, args=args)
        return [self.keys.chat(old_id, suffix) for suffix, _ in suffixes]

    async def _tournaments_of(self, old_id: int) -> list[tuple[TournamentRecord, float]]:
        """The old chat's tournaments with their index scores (lobbies,
        running and ended ones).  Raises `CorruptRecordError` if one is unreadable."""
        index: list[Any] = await self.redis.zrange(self.keys.chat(old_id, "tournaments"), 0, -1,
                                                   withscores=True)
        found: list[tuple[TournamentRecord, float]] = []
        for member, score in index:
            record = await self.games.load(RecordKey(TournamentRecord, old_id, as_text(member)))
            if record is not None:
                found.append((record, float(score)))
        return found

    async def _import_tournaments_of(self, old_id: int, new_id: int,
                                     found: list[tuple[TournamentRecord, float]]) -> None:
        """Move the old chat's tournaments, with their versions (a change in
        flight meets a compare-and-set), their index and the match map (a
        tournament game that ends in the new chat finds its tournament),
        then their wake-ups."""
        matches = await self.redis.hgetall(self.keys.chat(old_id, "tmatch"))
        args: list[Any] = [old_id, len(found), len(matches), ENDED_TTL]
        for record, score in found:
            moved = record.model_copy(update={"chat_id": new_id})
            args += [record.version, encode(moved), record.tournament_id, score]
        for commitment, tournament_id in matches.items():
            args += [commitment, tournament_id]
        keys = [self.keys.chat(new_id, name) for name in ("imported", "tournaments", "tmatch")]
        keys += [self.keys.record(RecordKey(TournamentRecord, new_id, r.tournament_id))
                 for r, _ in found]
        await self._import_tournaments(keys=keys, args=args)
        # the wake-ups are in another slot: add the new entry, then drop the old one
        due = self.keys.tournaments_due
        for record, _ in found:
            when = await self.redis.zscore(due, record.ref)
            if when is not None:
                moved = record.model_copy(update={"chat_id": new_id})
                await self.redis.zadd(due, {moved.ref: when}, lt=True)
                await self.redis.zrem(due, record.ref)

    async def _repoint(self, old: GameRecord, new: GameRecord) -> None:
        old_ref, new_ref = str(old.ref), str(new.ref)
        for player in old.players:
            user = self.keys.user_games(player.user_id)
            if await self.redis.sismember(user, old_ref):
                await self.redis.sadd(user, new_ref)
                await self.redis.srem(user, old_ref)
        await self.clock.rename(old_ref, new_ref)
        # private notices whose button follows the board (bot/store/board.py `link`):
        # keyed by the game's chat, so they move with it or would never be relinked
        links = self.keys.chat(old.chat_id, f"links:{old.game_id}")
        fields, ttl = await self.redis.hgetall(links), await self.redis.ttl(links)
        if fields:  # the same expiry (a re-run after a crash finds the old key gone)
            await hset_expiring(self.redis, self.keys.chat(new.chat_id, f"links:{new.game_id}"),
                                {as_text(k): v for k, v in fields.items()}, max(int(ttl), 1))
            await self.redis.delete(links)
