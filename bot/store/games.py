"""Game records and every other record: load, compare-and-set, the indexes.

Every record change is one compare-and-set on its version (a Lua script run by
EVALSHA, falling back to EVAL).  The user index and the deadline set live in
other slots, so they are updated after the CAS, idempotently, and treated as
hints: readers check them against the game record (which is the truth), drop
stale entries, and every later save re-asserts them.  Beside a game record:
the version each of its board messages shows, and where its "your turn" ping is.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any

from redis.exceptions import ResponseError

from bot.rules.deadlines import first_wake
from bot.store.client import RedisClient, as_text, no_upkeep
from bot.store.commit import commit
from bot.store.keys import Keys
from bot.store.records import (
    ChatSettings,
    CorruptRecordError,
    GameRecord,
    GameRef,
    R,
    Record,
    RecordKey,
    Status,
    VersionConflict,
    decode,
    encode,
    game_key,
    model_for_suffix,
    settings_key,
)

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


NOTIFICATION_TTL = 7 * 24 * 3600
"""A "your turn" ping not cleared by a move is forgotten after a week."""


class Games:
    """Load, compare-and-set and index records (a part of :class:`bot.store.Store`)."""

    def __init__(self, redis: RedisClient, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys
        self._cas = redis.register_script(_CAS)
        self._shown = redis.register_script(_SHOWN)

    async def load(self, key: RecordKey[R]) -> R | None:
        """The stored record, None if there is none; `CorruptRecordError` if unreadable."""
        name = self.keys.record(key)
        try:
            version, raw = await self.redis.hmget(name, ["v", "d"])
        except ResponseError as error:
            raise CorruptRecordError(name, f"not a hash ({error})") from None
        if version is None and raw is None:
            return None
        try:
            number = int(as_text(version))
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
            return saved, functools.partial(self.index, saved)
        return saved, no_upkeep

    async def delete(self, record: Record) -> None:
        """Delete `record` if it is still at `record.version` (else `VersionConflict`)."""
        await self._compare_and_set(record.key, record.version, "")
        if isinstance(record, GameRecord):
            await self.index(record, keep=False)

    async def _compare_and_set(self, key: RecordKey[Any], expected: int, data: str) -> int:
        name = self.keys.record(key)
        slots = self.keys.chat(key.chat_id, "slots")
        try:
            ok, version = await self._cas(keys=[name, slots], args=[expected, data, key.suffix])
        except ResponseError as error:
            raise CorruptRecordError(name, f"not a hash ({error})") from None
        if not ok:
            raise VersionConflict(name, expected, as_text(version))
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

    async def load_game(self, chat_id: int, thread_id: int | None) -> GameRecord | None:
        """The game (or lobby: a game with status LOBBY) of a chat or forum topic."""
        return await self.load(game_key(chat_id, thread_id))

    async def chat_games(self, chat_id: int) -> list[GameRecord]:
        """Every game record of a chat, any status, ordered by topic."""
        suffixes = await self.redis.smembers(self.keys.chat(chat_id, "slots"))
        games = []
        for suffix in sorted(map(as_text, suffixes)):
            if model_for_suffix(suffix) is GameRecord:
                thread = int(suffix.split(":")[1]) or None
                game = await self.load_game(chat_id, thread)
                if game is not None:
                    games.append(game)
        return games

    async def lobbies(self, chat_id: int) -> list[GameRecord]:
        """The chat's games still waiting for players."""
        return [game for game in await self.chat_games(chat_id) if game.status is Status.LOBBY]

    async def user_games(self, user_id: int) -> list[GameRecord]:
        """The user's open (lobby or active) games, checked against the records.

        Entries whose game is gone, finished, replaced or no longer has the
        user are dropped from the index on the way (self-repair).
        """
        user = self.keys.user_games(user_id)
        games = []
        for member in sorted(map(as_text, await self.redis.smembers(user))):
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

    async def index(self, game: GameRecord, keep: bool = True) -> None:
        # Cross-slot, so not in the CAS script: idempotent SADD/SREM and ZADD/ZREM
        # that every later save repeats; readers verify against the game record.
        ref = str(game.ref)
        listed = keep and game.status.is_open
        pipe = self.redis.pipeline(transaction=False)
        for player in game.players:
            user = self.keys.user_games(player.user_id)
            pipe.sadd(user, ref) if listed else pipe.srem(user, ref)
            if game.is_private and len(game.players) == 2:  # where its stats are booked
                pipe.sadd(self.keys.played(player.user_id), game.chat_id)
        open_games = self.keys.open_games
        pipe.sadd(open_games, ref) if listed else pipe.srem(open_games, ref)
        due, _ = self.keys.deadlines
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
        await self.index(game)

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
        await self._shown(keys=[self.keys.record(game.key)],
                          args=[game.version, self._board_field(board), *fields])

    async def shown(self, game: GameRecord) -> dict[tuple[int, int], int]:
        """The version each of the game's board messages shows, as far as noted."""
        boards = self.boards_of(game)
        if not boards:
            return {}
        raws = await self.redis.hmget(self.keys.record(game.key),
                                      [self._board_field(b) for b in boards])
        return {b: int(raw) for b, raw in zip(boards, raws, strict=True) if raw is not None}

    async def chat_settings(self, chat_id: int) -> ChatSettings:
        """The chat's settings; the defaults (version 0) if it never changed any."""
        return await self.load(settings_key(chat_id)) or ChatSettings(chat_id=chat_id)


    async def remember_notification(self, chat_id: int, thread_id: int | None,
                                    message: str) -> None:
        """Remember where a game's "your turn" ping is (``<message id>``, or
        ``<chat id>:<message id>`` in a player's private chat), beside the record
        rather than in it: saving it would make the board's buttons stale."""
        await self.redis.set(self.keys.notification(chat_id, thread_id), message,
                             ex=NOTIFICATION_TTL)

    async def take_notification(self, chat_id: int, thread_id: int | None) -> str | None:
        """Where the game's ping is, forgetting it (None: there is none)."""
        old = await self.redis.getdel(self.keys.notification(chat_id, thread_id))
        return None if old is None else as_text(old)

    async def open_game_count(self) -> int:
        """Lobbies and games being played, over all chats (from the index: a hint)."""
        return int(await self.redis.scard(self.keys.open_games))
