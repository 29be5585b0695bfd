"""The bot's one async store API over Redis (redis.asyncio, fakeredis in tests).

Keys (prefix `nardy`; `{...}` is the Redis Cluster hash tag, so all keys of one
chat live in one slot and a Lua script may touch several of them):

    nardy:{chat:<id>}:game:<thread or 0>  hash {v: CAS version, d: GameRecord JSON,
                                          s:<chat>:<message>: the version that board
                                          message of the game shows}
    nardy:{chat:<id>}:settings            hash {v, d: ChatSettings JSON}
    nardy:{chat:<id>}:slots               set of the record suffixes above
    nardy:{chat:<id>}:ledger              hash "<low uid>:<high uid>" -> balance of low
    nardy:{chat:<id>}:history             list of HistoryEntry JSON, newest first, capped
    nardy:{chat:<id>}:booked              zset of finished game ids (idempotent booking)
    nardy:{chat:<id>}:stats               hash "<variant>:<uid>" -> PlayerStats JSON (and
                                          "<variant>:bot-<level>:<uid>": vs the computer)
    nardy:{chat:<id>}:dice                hash "<variant>:<uid>" -> the 21 roll counts of
                                          the player's finished games, "3,0,5,..."
                                          (engine/dicestats.py DiceStats.to_text)
    nardy:{chat:<id>}:settle:<id>         a pending SettleRequest JSON, with expiry
    nardy:{chat:<id>}:imported            set of chat ids migrated into this chat
    nardy:{chat:<id>}:moved_to            new chat id after a supergroup migration
    nardy:{user:<uid>}:games              set of GameRefs of the user's open games
    nardy:{user:<uid>}:played             set of the chat ids of the user's private and
                                          inline games (their stats, bot/store/played.py)
    nardy:{deadlines}:due / :processing   zsets of GameRefs by wake-up time (the deadline's
                                          first reminder, bot/rules/deadlines.py) / lease end
    nardy:update:<update id>              de-duplication marker with expiry: p:<n> being
                                          handled (attempt n, leased), f:<n> failed n times,
                                          d (or 1) done
    nardy:update:<update id>:fx           hash: the side effects of a failed attempt
                                          of the update, for its retry (bot/edge/effects.py)
    nardy:{stats}:open                    set of GameRefs of open games (a hint, for metrics)

Every record change is one compare-and-set on its version (a Lua script run by
EVALSHA, falling back to EVAL).  The user index and the deadline set live in
other slots, so they are updated after the CAS, idempotently, and treated as
hints: readers check them against the game record (which is the truth), drop
stale entries, and every later save re-asserts them.
"""

from __future__ import annotations

import asyncio
import functools
import random
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ResponseError

from bot.rules.deadlines import first_wake
from bot.store.commit import commit
from bot.store.records import (
    ChatSettings,
    CorruptRecordError,
    GameRecord,
    GameRef,
    HistoryEntry,
    PlayerStats,
    R,
    Record,
    RecordKey,
    SettleRequest,
    Status,
    StoreError,
    VersionConflict,
    decode,
    encode,
    game_key,
    model_for_suffix,
    settings_key,
    versus_computer,
)
from engine.dicestats import DiceStats
from engine.position import Variant

HISTORY_CAP = 200
BOOKED_CAP = 10_000  # game ids remembered per chat against double booking
UPDATE_TTL = 24 * 3600  # Telegram keeps undelivered updates for 24 hours
SETTLE_TTL = 24 * 3600  # an unanswered /settle request expires

StatsUpdate = Callable[[Mapping[int, PlayerStats | None]], Iterable[PlayerStats]]
"""Pure: the players' stats in the game's variant (by user id) -> the new ones."""
RedisClient: TypeAlias = aioredis.Redis | RedisCluster
"""One Redis server or a Redis Cluster (bot/store/connection.py, REDIS_CLUSTER)."""
UPDATE_LEASE = 120  # seconds an update stays claimed by a worker that may have died

# KEYS: marker.  ARGV: lease seconds.  Returns {'done'|'in_flight', 0} or {'new', attempt}.
_CLAIM_UPDATE = """
local v = redis.call('GET', KEYS[1])
if v == 'd' or v == '1' then return {'done', 0} end
if v and string.sub(v, 1, 2) == 'p:' then return {'in_flight', 0} end
local n = 1
if v and string.sub(v, 1, 2) == 'f:' then n = tonumber(string.sub(v, 3)) + 1 end
redis.call('SET', KEYS[1], 'p:' .. n, 'EX', tonumber(ARGV[1]))
return {'new', n}
"""

# KEYS: record.  ARGV: version, the board's field, then the fields of every board
# of the record (others are dropped).  Raises the board's shown version to
# `version`; nothing when the record is gone (a hash without `v` would block it).
_SHOWN = """
if not redis.call('HGET', KEYS[1], 'v') then return 0 end
local keep = {}
for i = 2, #ARGV do keep[ARGV[i]] = true end
for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(f, 1, 2) == 's:' and not keep[f] then redis.call('HDEL', KEYS[1], f) end
end
local old = tonumber(redis.call('HGET', KEYS[1], ARGV[2]) or '-1')
if tonumber(ARGV[1]) > old then redis.call('HSET', KEYS[1], ARGV[2], ARGV[1]) end
return 1
"""

# KEYS: record, slots.  ARGV: expected version, JSON ('' deletes), suffix.
# Returns {1, new version} or {0, stored version}.  A hash without `v` (not
# written by us) is never overwritten: it reports version '?'.
_CAS = """
local cur = redis.call('HGET', KEYS[1], 'v')
if not cur then
  if redis.call('EXISTS', KEYS[1]) == 1 then return {0, '?'} end
  cur = '0'
end
if cur ~= ARGV[1] then return {0, cur} end
local new = tonumber(cur) + 1
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
  redis.call('SREM', KEYS[2], ARGV[3])
else
  redis.call('HSET', KEYS[1], 'v', new, 'd', ARGV[2])
  redis.call('SADD', KEYS[2], ARGV[3])
end
return {1, new}
"""

# KEYS: game, slots, ledger, history, booked, stats, dice.  ARGV: expected, JSON,
# suffix, game id, history JSON, history cap, booked cap, now, #ledger pairs, #stats,
# #dice, then ledger field/delta pairs, then dice (field, the 21 roll counts to add,
# comma separated: engine/dicestats.py), then stats (field, JSON read before or '',
# new JSON).  Returns {1, new version}, {0, stored version}, {2, stored version}
# (booked before) or {3, stored version} (a player's stats changed since read).
_FINISH = """
local cur = redis.call('HGET', KEYS[1], 'v') or '0'
if redis.call('ZSCORE', KEYS[5], ARGV[4]) then return {2, cur} end
if cur ~= ARGV[1] then return {0, cur} end
local d = 12 + 2 * tonumber(ARGV[9])
local s = d + 2 * tonumber(ARGV[11])
for i = s, #ARGV, 3 do
  if (redis.call('HGET', KEYS[6], ARGV[i]) or '') ~= ARGV[i + 1] then return {3, cur} end
end
local new = tonumber(cur) + 1
redis.call('HSET', KEYS[1], 'v', new, 'd', ARGV[2])
redis.call('SADD', KEYS[2], ARGV[3])
for i = 12, d - 1, 2 do redis.call('HINCRBY', KEYS[3], ARGV[i], ARGV[i + 1]) end
for i = d, s - 1, 2 do
  local had = {}
  for n in string.gmatch(redis.call('HGET', KEYS[7], ARGV[i]) or '', '%d+') do
    had[#had + 1] = tonumber(n)
  end
  local sum, j = {}, 0
  for n in string.gmatch(ARGV[i + 1], '%d+') do
    j = j + 1
    sum[j] = string.format('%d', (had[j] or 0) + tonumber(n))
  end
  redis.call('HSET', KEYS[7], ARGV[i], table.concat(sum, ','))
end
for i = s, #ARGV, 3 do redis.call('HSET', KEYS[6], ARGV[i], ARGV[i + 2]) end
redis.call('LPUSH', KEYS[4], ARGV[5])
redis.call('LTRIM', KEYS[4], 0, tonumber(ARGV[6]) - 1)
redis.call('ZADD', KEYS[5], ARGV[8], ARGV[4])
redis.call('ZREMRANGEBYRANK', KEYS[5], 0, -tonumber(ARGV[7]) - 1)
return {1, new}
"""

# KEYS: settle request, ledger.  ARGV: the request JSON read before, its new JSON
# ('' deletes it), ledger field ('' for none), the balance expected there, the
# balance it becomes.  Returns {1}, {0} (the request changed or expired) or
# {2, balance} (the balance changed; nothing written).
_SETTLE = """
if (redis.call('GET', KEYS[1]) or '') ~= ARGV[1] then return {0} end
if ARGV[3] ~= '' then
  local bal = redis.call('HGET', KEYS[2], ARGV[3]) or '0'
  if bal ~= ARGV[4] then return {2, bal} end
  if ARGV[5] == '0' then redis.call('HDEL', KEYS[2], ARGV[3])
  else redis.call('HSET', KEYS[2], ARGV[3], ARGV[5]) end
end
if ARGV[2] == '' then redis.call('DEL', KEYS[1])
else redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') end
return {1}
"""

# KEYS: due, processing.  ARGV: now, lease end, limit.  Expired leases go back
# to `due` first (a claimer died), then up to `limit` due items move to
# `processing` until the lease end.  Returns member, due, member, due, ...
_CLAIM = """
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])) do
  redis.call('ZREM', KEYS[2], m)
  redis.call('ZADD', KEYS[1], 'NX', ARGV[1], m)
end
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0,
                       tonumber(ARGV[3]))
for i = 1, #due, 2 do
  redis.call('ZREM', KEYS[1], due[i])
  redis.call('ZADD', KEYS[2], ARGV[2], due[i])
end
return due
"""

# KEYS: due, processing.  ARGV: old member, new member.  Renames a deadline entry
# in both sets keeping its score; idempotent.
_RENAME_DEADLINE = """
for i = 1, 2 do
  local score = redis.call('ZSCORE', KEYS[i], ARGV[1])
  if score then
    redis.call('ZADD', KEYS[i], score, ARGV[2])
    redis.call('ZREM', KEYS[i], ARGV[1])
  end
end
return 1
"""

# KEYS: slots, imported, ledger, history, booked, then the record keys.
# ARGV: old chat id, history cap, #records, #ledger pairs, #history, #booked pairs,
# then per record (suffix, version, JSON), ledger (field, delta), history JSON,
# booked (score, id).  Runs once per old chat id (the `imported` set remembers).
_IMPORT = """
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then return 0 end
local n_rec, n_led, n_his, n_book = tonumber(ARGV[3]), tonumber(ARGV[4]),
                                    tonumber(ARGV[5]), tonumber(ARGV[6])
local a = 7
for i = 1, n_rec do
  local key = KEYS[5 + i]
  -- a record the new chat already has (started there meanwhile) is newer: keep it
  if redis.call('EXISTS', key) == 0 then
    redis.call('HSET', key, 'v', ARGV[a + 1], 'd', ARGV[a + 2])
    redis.call('SADD', KEYS[1], ARGV[a])
  end
  a = a + 3
end
for i = 1, n_led do redis.call('HINCRBY', KEYS[3], ARGV[a], ARGV[a + 1]); a = a + 2 end
-- the old chat's games are older than any in the new chat: append at the end
for i = 1, n_his do redis.call('RPUSH', KEYS[4], ARGV[a]); a = a + 1 end
redis.call('LTRIM', KEYS[4], 0, tonumber(ARGV[2]) - 1)
for i = 1, n_book do redis.call('ZADD', KEYS[5], ARGV[a], ARGV[a + 1]); a = a + 2 end
redis.call('SADD', KEYS[2], ARGV[1])
return 1
"""


@dataclass(frozen=True)
class Claim:
    """A deadline handed to one scheduler until `lease_until`; `ack` it when handled."""

    ref: GameRef
    due: float
    lease_until: float


@dataclass(frozen=True)
class FinishResult:
    """What `finish_game` did: booked now (`booked`), or found it booked before."""

    record: GameRecord
    booked: bool


def ledger_field(a: int, b: int) -> tuple[str, int]:
    """The ledger field of a pair and the sign that turns it into a's balance.

    >>> ledger_field(7, 3), ledger_field(3, 7)
    (('3:7', -1), ('3:7', 1))
    """
    if a == b:
        raise ValueError("a ledger pair needs two different users")
    low, high = sorted((a, b))
    return f"{low}:{high}", 1 if a == low else -1


def stats_field(variant: Variant, user_id: int, versus: str = "") -> str:
    """The field of a player's stats in the chat's `stats` hash (``versus``:
    their games against the computer, kept apart).

    >>> stats_field(Variant.LONG, 42), stats_field(Variant.LONG, 42, "bot-easy")
    ('long:42', 'long:bot-easy:42')
    """
    return f"{variant.value}:{versus}:{user_id}" if versus else f"{variant.value}:{user_id}"


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)

async def no_upkeep() -> None:
    """The upkeep of a save that has none (see `Store.save_first`)."""


NOTIFICATION_TTL = 7 * 24 * 3600
"""A "your turn" ping not cleared by a move is forgotten after a week."""


class Store:
    """Load, compare-and-set, and index the bot's records.  See the module doc."""

    def __init__(
        self, redis: RedisClient, prefix: str = "nardy", history_cap: int = HISTORY_CAP
    ) -> None:
        self.redis = redis
        self.prefix = prefix
        self.history_cap = history_cap
        self._cas = redis.register_script(_CAS)
        self._finish = redis.register_script(_FINISH)
        self._claim = redis.register_script(_CLAIM)
        self._rename_deadline = redis.register_script(_RENAME_DEADLINE)
        self._import = redis.register_script(_IMPORT)
        self._claim_update = redis.register_script(_CLAIM_UPDATE)
        self._settle = redis.register_script(_SETTLE)
        self._shown = redis.register_script(_SHOWN)

    # -- key names -------------------------------------------------------------

    def chat_key(self, chat_id: int, name: str) -> str:
        """A key in the chat's hash slot, e.g. `nardy:{chat:-100123}:game:0`."""
        return f"{self.prefix}:{{chat:{chat_id}}}:{name}"

    def redis_key(self, key: RecordKey[Any]) -> str:
        return self.chat_key(key.chat_id, key.suffix)

    def user_key(self, user_id: int) -> str:
        return f"{self.prefix}:{{user:{user_id}}}:games"

    def played_key(self, user_id: int) -> str:
        """The chat ids of the user's private and inline games (bot/store/played.py)."""
        return f"{self.prefix}:{{user:{user_id}}}:played"

    @property
    def _deadline_keys(self) -> list[str]:
        return [f"{self.prefix}:{{deadlines}}:due", f"{self.prefix}:{{deadlines}}:processing"]

    # -- records: load, compare-and-set, update --------------------------------

    async def load(self, key: RecordKey[R]) -> R | None:
        """The stored record, None if there is none; `CorruptRecordError` if unreadable."""
        name = self.redis_key(key)
        try:
            version, raw = await self.redis.hmget(name, ["v", "d"])
        except ResponseError as error:
            raise CorruptRecordError(name, f"not a hash ({error})") from None
        if version is None and raw is None:
            return None
        try:
            number = int(_text(version))
        except ValueError:
            raise CorruptRecordError(name, f"version is {version!r}, not an integer") from None
        record: R = decode(key.model, name, raw, number)
        if (record.chat_id, getattr(record, "thread_id", None)) != (key.chat_id, key.thread_id):
            raise CorruptRecordError(name, "record names another chat or topic")
        return record

    async def save(self, record: R, expected_version: int) -> R:
        """Write `record` as version expected+1 if the stored version is `expected_version`.

        0 means "there is no record yet".  Raises `VersionConflict` otherwise;
        returns the record as saved (with its new version).
        """
        saved, upkeep = await self.save_first(record, expected_version)
        await upkeep()
        return saved

    async def save_first(self, record: R, expected_version: int
                         ) -> tuple[R, Callable[[], Awaitable[None]]]:
        """`save` up to the CAS: the saved record and the index upkeep still to run.

        For a caller with an urgent reply (a tap's answer): it replies, then
        awaits ``upkeep()``, whose errors it lets through as `save`'s would.
        The upkeep is idempotent and every later save repeats it.
        """
        new = await self._compare_and_set(record.key, expected_version, encode(record))
        saved = record.model_copy(update={"version": new})
        if isinstance(saved, GameRecord):
            return saved, functools.partial(self._index, saved)
        return saved, no_upkeep

    async def delete(self, record: Record) -> None:
        """Delete `record` if it is still at `record.version` (else `VersionConflict`)."""
        await self._compare_and_set(record.key, record.version, "")
        if isinstance(record, GameRecord):
            await self._index(record, keep=False)

    async def _compare_and_set(self, key: RecordKey[Any], expected: int, data: str) -> int:
        name = self.redis_key(key)
        slots = self.chat_key(key.chat_id, "slots")
        try:
            ok, version = await self._cas(keys=[name, slots], args=[expected, data, key.suffix])
        except ResponseError as error:
            raise CorruptRecordError(name, f"not a hash ({error})") from None
        if not ok:
            raise VersionConflict(name, expected, _text(version))
        return int(version)

    async def update(
        self,
        key: RecordKey[R],
        fn: Callable[[R | None], R],
        retries: int = 30,
    ) -> R:
        """Load, apply the pure `fn`, CAS-save; on a conflict re-read and try again.

        `fn` gets the current record (None if missing) and returns the new one;
        returning the very same object saves nothing.  After `retries` lost
        races the last `VersionConflict` is raised.  Corrupt records raise
        `CorruptRecordError` before `fn` runs.
        """
        async def save(current: R | None, new: R | None) -> R:
            assert new is not None  # ``fn`` returns a record
            return await self.save(new, current.version if current else 0)

        _, after = await commit(functools.partial(self.load, key), fn, save, retries=retries)
        assert after is not None
        return after

    # -- games, lobbies and the per-user index ----------------------------------

    async def load_game(self, chat_id: int, thread_id: int | None) -> GameRecord | None:
        """The game (or lobby: a game with status LOBBY) of a chat or forum topic."""
        return await self.load(game_key(chat_id, thread_id))

    async def chat_games(self, chat_id: int) -> list[GameRecord]:
        """Every game record of a chat, any status, ordered by topic."""
        suffixes = await self.redis.smembers(self.chat_key(chat_id, "slots"))
        games = []
        for suffix in sorted(map(_text, suffixes)):
            if model_for_suffix(suffix) is GameRecord:
                thread = int(suffix.split(":")[1]) or None
                game = await self.load_game(chat_id, thread)
                if game is not None:
                    games.append(game)
        return games

    async def lobbies(self, chat_id: int) -> list[GameRecord]:
        """The chat's games still waiting for players."""
        return [game for game in await self.chat_games(chat_id) if game.status is Status.LOBBY]

    async def _index(self, game: GameRecord, keep: bool = True) -> None:
        # Cross-slot, so not in the CAS script: idempotent SADD/SREM and ZADD/ZREM
        # that every later save repeats; readers verify against the game record.
        ref = str(game.ref)
        listed = keep and game.status.is_open
        pipe = self.redis.pipeline(transaction=False)
        for player in game.players:
            user = self.user_key(player.user_id)
            pipe.sadd(user, ref) if listed else pipe.srem(user, ref)
            if game.is_private and len(game.players) == 2:  # where its stats are booked
                pipe.sadd(self.played_key(player.user_id), game.chat_id)
        open_games = f"{self.prefix}:{{stats}}:open"
        pipe.sadd(open_games, ref) if listed else pipe.srem(open_games, ref)
        due, _ = self._deadline_keys
        # the first wake-up of the deadline: its first reminder (bot/rules/deadlines.py)
        wake = first_wake(game.deadline, game.options.time_control)
        if listed and wake is not None:
            pipe.zadd(due, {ref: wake})
        else:
            pipe.zrem(due, ref)
        await pipe.execute()

    async def reindex(self, game: GameRecord) -> None:
        """Repeat a save's index upkeep (idempotent): a retried update whose save
        landed before cannot know whether its upkeep did."""
        await self._index(game)

    # -- what the board messages show ----------------------------------------------

    @staticmethod
    def _board_field(board: tuple[int, int]) -> str:
        return f"s:{board[0]}:{board[1]}"

    @staticmethod
    def boards_of(game: GameRecord) -> list[tuple[int, int]]:
        """The game's board messages: (chat id, message id) of its chat's and its views
        (an inline game's message is (its chat id, 0): it has no message id)."""
        main = [] if game.board_message_id is None else [(game.chat_id, game.board_message_id)]
        if game.inline_message_id is not None:
            main = [(game.chat_id, 0)]
        return main + [(view.chat_id, view.message_id) for view in game.views]

    async def mark_shown(self, game: GameRecord, board: tuple[int, int]) -> None:
        """Note that ``board`` now shows ``game`` at its version (beside the record:
        saving it would move the version and make the board's buttons stale)."""
        fields = [self._board_field(b) for b in self.boards_of(game)]
        await self._shown(keys=[self.redis_key(game.key)],
                          args=[game.version, self._board_field(board), *fields])

    async def shown(self, game: GameRecord) -> dict[tuple[int, int], int]:
        """The version each of the game's board messages shows, as far as noted."""
        boards = self.boards_of(game)
        if not boards:
            return {}
        raws = await self.redis.hmget(self.redis_key(game.key),
                                      [self._board_field(b) for b in boards])
        return {b: int(raw) for b, raw in zip(boards, raws, strict=True) if raw is not None}

    async def user_games(self, user_id: int) -> list[GameRecord]:
        """The user's open (lobby or active) games, checked against the records.

        Entries whose game is gone, finished, replaced or no longer has the
        user are dropped from the index on the way (self-repair).
        """
        user = self.user_key(user_id)
        games = []
        for member in sorted(map(_text, await self.redis.smembers(user))):
            ref = GameRef.parse(member)
            game = await self.load_game(ref.chat_id, ref.thread_id)
            if (
                game is not None
                and game.game_id == ref.game_id
                and game.status.is_open
                and any(p.user_id == user_id for p in game.players)
            ):
                games.append(game)
            else:
                await self.redis.srem(user, member)
        return games

    async def finish_game(
        self,
        record: GameRecord,
        expected_version: int,
        history: HistoryEntry,
        ledger: Mapping[tuple[int, int], int] | None = None,
        stats: StatsUpdate | None = None,
        retries: int = 30,
        dice: Mapping[tuple[Variant, int], DiceStats] | None = None,
    ) -> FinishResult:
        """End a game: CAS the record, book the ledger, push history - atomically.

        `ledger` maps (winner id, loser id) to the amount the loser pays.
        `stats` (pure) gets the players' current `PlayerStats` in the game's
        variant (None if they have none) and returns the new ones; they are
        written in the same script, which re-checks that they did not change
        since read (another topic's game may end at the same moment: then
        they are read again, up to `retries` times).  Idempotent by
        game id: if this game was booked before, nothing is written and the
        stored record comes back with `booked=False` (a retried final tap).
        `dice` maps (variant, user id) to the rolls the player threw in
        this game: added to their dice statistics in the same script.
        Raises `VersionConflict` if the game changed since `expected_version`.
        """
        if record.status not in (Status.FINISHED, Status.CANCELLED):
            raise ValueError(f"finish_game needs a finished or cancelled game, not {record.status}")
        if history.game_id != record.game_id:
            raise ValueError("history entry is for another game")
        chat = record.chat_id
        pairs: list[Any] = []
        for (winner, loser), amount in (ledger or {}).items():
            field, sign = ledger_field(winner, loser)
            pairs += [field, sign * amount]
        rolls: list[Any] = []
        for (variant, user_id), counted in (dice or {}).items():
            if counted.rolls:
                rolls += [stats_field(variant, user_id), counted.to_text()]
        names = ("slots", "ledger", "history", "booked", "stats", "dice")
        keys = [self.redis_key(record.key)] + [self.chat_key(chat, name) for name in names]
        for attempt in range(retries + 1):
            triples = await self._stats_args(record, stats)
            args = [
                expected_version, encode(record), record.key.suffix, record.game_id,
                encode(history), self.history_cap, BOOKED_CAP, time.time(), len(pairs) // 2,
                len(triples) // 3, len(rolls) // 2, *pairs, *rolls, *triples,
            ]  # fmt: skip
            code, version = await self._finish(keys=keys, args=args)
            if code != 3:
                break
            if attempt == retries:
                raise VersionConflict(keys[5], expected_version, "stats changed")
            await asyncio.sleep(random.uniform(0, min(0.05, 0.0005 * 2**attempt)))
        if code == 0:
            raise VersionConflict(keys[0], expected_version, _text(version))
        if code == 2:
            stored = await self.load(record.key)
            return FinishResult(stored or record, booked=False)
        saved = record.model_copy(update={"version": int(version)})
        await self._index(saved)
        return FinishResult(saved, booked=True)

    async def _stats_args(self, record: GameRecord, stats: StatsUpdate | None) -> list[str]:
        """(field, JSON as read or '', new JSON) for each player `stats` changes."""
        if stats is None or not record.players:
            return []
        name = self.chat_key(record.chat_id, "stats")
        ids = [player.user_id for player in record.players]
        fields = [stats_field(record.variant, uid, versus_computer(record.players, uid))
                  for uid in ids]
        raws = [None if raw is None else _text(raw) for raw in await self.redis.hmget(name, fields)]
        current = {
            uid: None if raw is None else decode(PlayerStats, f"{name}[{field}]", raw)
            for uid, field, raw in zip(ids, fields, raws, strict=True)
        }
        read = dict(zip(fields, raws, strict=True))
        out: list[str] = []
        for new in stats(current):
            field = stats_field(new.variant, new.user_id, new.versus)
            if field not in read:
                raise ValueError(f"stats of {field} are not this game's players'")
            out += [field, read[field] or "", encode(new)]
        return out

    async def dice_stats(self, chat_id: int, variant: Variant | None, user_id: int) -> DiceStats:
        """The rolls a player threw in the chat's finished games, in one variant or all."""
        name = self.chat_key(chat_id, "dice")
        variants = [variant] if variant is not None else list(Variant)
        total = DiceStats()
        for raw in await self.redis.hmget(name, [stats_field(v, user_id) for v in variants]):
            if raw is not None:
                try:
                    total = total.merged(DiceStats.parse(_text(raw)))
                except ValueError:
                    raise CorruptRecordError(f"{name}[{user_id}]", "not 21 roll counts") from None
        return total

    async def player_stats(self, chat_id: int) -> list[PlayerStats]:
        """Every player's stats in the chat, all variants."""
        name = self.chat_key(chat_id, "stats")
        raw = await self.redis.hgetall(name)
        return [decode(PlayerStats, f"{name}[{_text(field)}]", value)
                for field, value in sorted(raw.items())]

    # -- settling a balance ------------------------------------------------------

    def _settle_key(self, chat_id: int, request_id: str) -> str:
        return self.chat_key(chat_id, f"settle:{request_id}")

    async def put_settle(self, request: SettleRequest, ttl: int = SETTLE_TTL) -> None:
        """Store a new settle request (it expires after `ttl` seconds)."""
        key = self._settle_key(request.chat_id, request.request_id)
        await self.redis.set(key, encode(request), ex=ttl, nx=True)

    async def load_settle(self, chat_id: int, request_id: str) -> SettleRequest | None:
        key = self._settle_key(chat_id, request_id)
        raw = await self.redis.get(key)
        return None if raw is None else decode(SettleRequest, key, raw)

    async def change_settle(self, old: SettleRequest, new: SettleRequest | None) -> bool:
        """Replace (or with None drop) a request if it is still `old`; False if not."""
        code, *_ = await self._settle(
            keys=[self._settle_key(old.chat_id, old.request_id), self.chat_key(old.chat_id,
                                                                              "ledger")],
            args=[encode(old), "" if new is None else encode(new), "", 0])
        return bool(code)

    async def settle(self, request: SettleRequest) -> int | None:
        """Zero the balance of the request's pair if it is still `request.amount`
        (a planned transfer, `request.change` set: add that to it instead).

        One script: the request must be unchanged (not answered or expired)
        and the balance exactly the one the other player confirms.  Returns
        None when settled (the request is gone), else the current balance
        (what `other` owes the requester) and nothing changed.  Raises
        `StoreError` if the request was answered or expired.
        """
        if request.other is None:
            raise ValueError("the request names nobody to settle with")
        field, sign = ledger_field(request.requester, request.other)
        code, *rest = await self._settle(
            keys=[self._settle_key(request.chat_id, request.request_id),
                  self.chat_key(request.chat_id, "ledger")],
            args=[encode(request), "", field, sign * request.amount,
                  sign * (request.amount + request.change) if request.change else 0])
        if code == 0:
            raise StoreError("the settle request was answered or expired")
        if code == 2:
            return sign * int(rest[0])
        return None

    # -- chat settings -----------------------------------------------------------

    async def chat_settings(self, chat_id: int) -> ChatSettings:
        """The chat's settings; the defaults (version 0) if it never changed any."""
        return await self.load(settings_key(chat_id)) or ChatSettings(chat_id=chat_id)

    # -- ledger and history --------------------------------------------------------

    async def ledger(self, chat_id: int) -> dict[tuple[int, int], int]:
        """Every non-zero balance of the chat: (a, b) with a < b -> what b owes a."""
        raw = await self.redis.hgetall(self.chat_key(chat_id, "ledger"))
        out = {}
        for field, value in raw.items():
            low, high = map(int, _text(field).split(":"))
            if int(value):
                out[(low, high)] = int(value)
        return out

    async def balance(self, chat_id: int, a: int, b: int) -> int:
        """What b owes a in this chat (negative: a owes b)."""
        field, sign = ledger_field(a, b)
        value = await self.redis.hget(self.chat_key(chat_id, "ledger"), field)
        return sign * int(value or 0)

    async def history(self, chat_id: int, limit: int = HISTORY_CAP) -> list[HistoryEntry]:
        """The chat's finished games, newest first."""
        name = self.chat_key(chat_id, "history")
        raws = await self.redis.lrange(name, 0, limit - 1)
        return [decode(HistoryEntry, f"{name}[{i}]", raw) for i, raw in enumerate(raws)]

    # -- deadlines ---------------------------------------------------------------

    async def schedule(self, ref: GameRef, due: float, *, lower_only: bool = False) -> None:
        """Set (or move) the next wake-up of a game.  `save` does this from
        `deadline`; `lower_only` never moves an entry later (ZADD LT), so a
        scheduler cannot push back a wake-up a concurrent save just set."""
        await self.redis.zadd(self._deadline_keys[0], {str(ref): due}, lt=lower_only)

    async def unschedule(self, ref: GameRef) -> None:
        await self.redis.zrem(self._deadline_keys[0], str(ref))

    async def claim_due(
        self, now: float | None = None, lease: float = 60.0, limit: int = 100
    ) -> list[Claim]:
        """Atomically take due deadlines, each leased to this caller for `lease` seconds.

        An item whose lease ran out without `ack` (the claimer died) is handed
        out again.  Delivery is at-least-once: handlers re-check the game record
        and change it by CAS, so a second delivery cannot act twice.
        """
        now = time.time() if now is None else now
        flat = await self._claim(keys=self._deadline_keys, args=[now, now + lease, limit])
        return [
            Claim(GameRef.parse(flat[i]), float(flat[i + 1]), now + lease)
            for i in range(0, len(flat), 2)
        ]

    async def ack(self, ref: GameRef) -> None:
        """Done with a claimed deadline: drop its lease (a new due time stays)."""
        await self.redis.zrem(self._deadline_keys[1], str(ref))

    # -- the "your turn" ping ------------------------------------------------------

    def _notification_key(self, chat_id: int, thread_id: int | None) -> str:
        return self.chat_key(chat_id, f"notify:{thread_id or 0}")

    async def remember_notification(self, chat_id: int, thread_id: int | None,
                                    message: str) -> None:
        """Remember where a game's "your turn" ping is (``<message id>``, or
        ``<chat id>:<message id>`` in a player's private chat), beside the record
        rather than in it: saving it would make the board's buttons stale."""
        await self.redis.set(self._notification_key(chat_id, thread_id), message,
                             ex=NOTIFICATION_TTL)

    async def take_notification(self, chat_id: int, thread_id: int | None) -> str | None:
        """Where the game's ping is, forgetting it (None: there is none)."""
        old = await self.redis.getdel(self._notification_key(chat_id, thread_id))
        return None if old is None else _text(old)

    # -- health ----------------------------------------------------------------------

    async def ping(self, timeout: float = 1.0) -> bool:
        """True if Redis answers PING within ``timeout`` seconds."""
        try:
            return bool(await asyncio.wait_for(self.redis.ping(), timeout))
        except Exception:
            return False

    # -- update de-duplication ------------------------------------------------------

    async def claim_update(self, update_id: int, lease: int = UPDATE_LEASE) -> tuple[str, int]:
        """Take an update for handling across workers: ``("new", attempt)`` if the
        caller should handle it (attempt 1, or n after n-1 failures), ``("done", 0)``
        if it was handled before, ``("in_flight", 0)`` while another worker handles it
        (its claim expires after ``lease`` seconds, should that worker die).  Settle
        it with :meth:`settle_update`."""
        state, attempt = await self._claim_update(
            keys=[f"{self.prefix}:update:{update_id}"], args=[lease])
        return _text(state), int(attempt)

    async def settle_update(self, update_id: int, attempt: int, *, ok: bool,
                            ttl: int = UPDATE_TTL) -> None:
        """Mark a claimed update done, or failed (its retry is handled again)."""
        value = "d" if ok else f"f:{attempt}"
        await self.redis.set(f"{self.prefix}:update:{update_id}", value, ex=ttl)

    def _effects_key(self, update_id: int) -> str:
        return f"{self.prefix}:update:{update_id}:fx"

    async def load_effects(self, update_id: int) -> dict[str, str]:
        """The side effects earlier attempts of an update noted (bot/edge/effects.py)."""
        raw = await self.redis.hgetall(self._effects_key(update_id))
        return {_text(name): _text(value) for name, value in raw.items()}

    async def save_effects(self, update_id: int, effects: Mapping[str, str],
                           ttl: int = UPDATE_TTL) -> None:
        """Keep a failed attempt's side effects for the update's retry."""
        if not effects:
            return
        key = self._effects_key(update_id)
        pipe = self.redis.pipeline(transaction=True)
        mapping: dict[Any, Any] = dict(effects)
        pipe.hset(key, mapping=mapping)
        pipe.expire(key, ttl)
        await pipe.execute()

    async def open_game_count(self) -> int:
        """Lobbies and games being played, over all chats (from the index: a hint)."""
        return int(await self.redis.scard(f"{self.prefix}:{{stats}}:open"))

    # -- supergroup migration ----------------------------------------------------

    async def moved_to(self, chat_id: int) -> int | None:
        """The chat's new id if it was migrated to a supergroup."""
        value = await self.redis.get(self.chat_key(chat_id, "moved_to"))
        return int(value) if value is not None else None

    async def migrate_chat(self, old_id: int, new_id: int) -> list[str]:
        """Move a chat's records to its new id; idempotent, safe to re-run.

        The two chats' keys are in different cluster slots, so this is
        copy-then-delete, each step idempotent: (1) one Lua script imports
        everything into the new chat's slot, at most once per old id;
        (2) user-index and deadline entries are re-pointed (add new, then
        remove old); (3) the old keys are deleted; (4) `moved_to` is set.  A
        crash anywhere is healed by running it again.  A record the new chat
        already has is kept; the old one is dropped and its key returned.
        Raises `CorruptRecordError` (before any change) if an old record is
        unreadable.
        """
        slots = sorted(map(_text, await self.redis.smembers(self.chat_key(old_id, "slots"))))
        records: list[Record] = []
        for suffix in slots:
            key = RecordKey(model_for_suffix(suffix), old_id, _thread_of(suffix))
            record = await self.load(key)
            if record is not None:
                records.append(record)
        moved = [r.model_copy(update={"chat_id": new_id}) for r in records]
        dropped: list[str] = []
        if not await self.redis.sismember(self.chat_key(new_id, "imported"), str(old_id)):
            targets = [self.redis_key(r.key) for r in moved]
            dropped = [name for name in targets if await self.redis.exists(name)]
        await self._import_chat(old_id, new_id, moved)
        # stats and dice counts: a player the new chat knows already keeps the
        # new chat's (HSETNX: a re-run after a crash writes nothing twice)
        for name in ("stats", "dice"):
            for field, value in (await self.redis.hgetall(self.chat_key(old_id, name))).items():
                await self.redis.hsetnx(self.chat_key(new_id, name), field, value)
        for old, new in zip(records, moved, strict=True):
            if isinstance(old, GameRecord) and isinstance(new, GameRecord):
                await self._repoint(old, new)
        names = [self.redis_key(r.key) for r in records] + [
            self.chat_key(old_id, name)
            for name in ("slots", "ledger", "history", "booked", "stats", "dice")
        ]
        await self.redis.delete(*names)
        await self.redis.set(self.chat_key(old_id, "moved_to"), new_id)
        return dropped

    async def _import_chat(self, old_id: int, new_id: int, moved: Iterable[Record]) -> None:
        records = [(self.redis_key(r.key), r.key.suffix, r.version, encode(r)) for r in moved]
        ledger = await self.redis.hgetall(self.chat_key(old_id, "ledger"))
        history = await self.redis.lrange(self.chat_key(old_id, "history"), 0, -1)
        booked: list[Any] = await self.redis.zrange(
            self.chat_key(old_id, "booked"), 0, -1, withscores=True
        )
        names = ("slots", "imported", "ledger", "history", "booked")
        keys = [self.chat_key(new_id, name) for name in names]
        args: list[Any] = [old_id, self.history_cap]
        args += [len(records), len(ledger), len(history), len(booked)]
        for _, suffix, version, data in records:
            args += [suffix, version, data]
        for field, value in ledger.items():
            args += [field, value]
        args += history
        for member, score in booked:
            args += [score, member]
        await self._import(keys=keys + [record[0] for record in records], args=args)

    async def _repoint(self, old: GameRecord, new: GameRecord) -> None:
        old_ref, new_ref = str(old.ref), str(new.ref)
        for player in old.players:
            user = self.user_key(player.user_id)
            if await self.redis.sismember(user, old_ref):
                await self.redis.sadd(user, new_ref)
                await self.redis.srem(user, old_ref)
        await self._rename_deadline(keys=self._deadline_keys, args=[old_ref, new_ref])


def _thread_of(suffix: str) -> int | None:
    parts = suffix.split(":")
    return int(parts[1]) or None if len(parts) > 1 else None


__all__ = [
    "Claim",
    "CorruptRecordError",
    "FinishResult",
    "Store",
    "StoreError",
    "VersionConflict",
]
