"""Game records and every other record: load, compare-and-set, the indexes.

Every record change is one compare-and-set on its version (a Lua script run by
EVALSHA, falling back to EVAL).  The user index and the deadline set live in
other slots, so they are updated after the CAS, idempotently, and treated as
hints: readers check them against the game record (which is the truth), drop
stale entries, and every later save re-asserts them.  Beside a game record:
the version each of its board messages shows, and where its "your turn" ping is.

A chat may have several games at once (issue 18).  Each is a hash under its
own id, ``nardy:{chat:<id>}:g:<game id>``, in the chat's hash slot with two
indexes of the chat (bot/store/keys.py):

- ``live``: game id -> topic (0 outside forum topics): its lobbies, games
  being played and matches between two of their games;
- ``ended``: game id -> when it was last saved: its newest ended games (at
  most :data:`ENDED_KEEP`; older ones are deleted, :meth:`Games.prune`).

A game's place in them follows it in the very script that saves it
(:data:`PLACE`): live while :attr:`GameRecord.is_live`, else ended, and an
ended record expires after :data:`ENDED_TTL` (its game is booked; its board
keeps the result).  The live index's score is the topic, so the number of
live games of one chat or topic is one ``ZCOUNT``: a new lobby or game is
refused there when the chat has :attr:`Games.max_live` already
(:class:`GameLimit`), atomically with its creation.  A game continued by a
new one (the match's next game, a rematch, a new lobby from its board) is
saved in the same script as the new one.

Chats stored before this (schema 1: one game per chat or topic, at
``game:<topic or 0>``) are moved by :mod:`bot.store.schema`: at start-up,
and here before a chat's games are looked up while that has not finished.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable
from typing import Any

from redis.exceptions import ResponseError

from bot.store import schema
from bot.store.client import (
    RedisClient,
    as_text,
    corrupt_or_transient,
    idempotent,
    no_upkeep,
    raise_transient,
)
from bot.store.commit import commit
from bot.store.keys import Keys
from bot.store.layout import (
    CURRENT,
    DEFAULT_BOTS_PER_PERSON,
    DEFAULT_MAX_LIVE,
    ENDED_KEEP,
    ENDED_TTL,
    SAVE_GAME,
    BotLimit,
    GameLimit,
    placement,
    topic_of,
)
from bot.store.shards import drain_open
from bot.vocab.clock import first_wake
from bot.vocab.records import (
    MAX_REFUSED,
    ChatSettings,
    CorruptRecordError,
    GameRecord,
    GameRef,
    R,
    Record,
    RecordKey,
    Status,
    UnbookedEnd,
    VersionConflict,
    computer_level,
    decode,
    encode,
    game_key,
    settings_key,
    write_token,
    written_here,
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


# KEYS: record, slots.  ARGV: expected version, JSON ('' deletes), suffix, token (CURRENT).
# Returns {1, new version} or {0, stored version}.  A hash without `v` (not
# written by us) is never overwritten: it reports version '?'.
_CAS = CURRENT + """
local new = tonumber(cur) + 1
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
  redis.call('SREM', KEYS[2], ARGV[3])
else
  redis.call('HSET', KEYS[1], 'v', new, 'd', ARGV[2], 'w', ARGV[4])
  redis.call('SADD', KEYS[2], ARGV[3])
end
return {1, new}
"""


# KEYS: the chat's ended index, then the records to delete.  ARGV: their game ids.
_PRUNE = """
redis.call('ZREM', KEYS[1], unpack(ARGV))
redis.call('DEL', unpack(KEYS, 2))
"""


def _against_computer(record: GameRecord) -> int | None:
    """The person of a lobby with the computer seated (``/new … bot``, 🤖 Play the
    bot: a game against it once started), whose number of such games the
    saving script checks; None for any other record (a started game was
    checked as its lobby)."""
    if record.status is not Status.LOBBY:
        return None
    people = [p.user_id for p in record.players if computer_level(p.user_id) is None]
    robots = len(record.players) - len(people)
    return people[0] if robots and people else None


NOTIFICATION_TTL = 7 * 24 * 3600
"""A "your turn" ping not cleared by a move is forgotten after a week."""


class Games:
    """Load, compare-and-set and index records (a part of :class:`bot.store.Store`).

    ``max_live``: the live games a chat or topic may have at once (0: no limit)."""

    def __init__(self, redis: RedisClient, keys: Keys, max_live: int = DEFAULT_MAX_LIVE) -> None:
        self.redis = redis
        self.keys = keys
        self.max_live = max_live
        self.bots_per_person = DEFAULT_BOTS_PER_PERSON
        """Live games against the computer a person may have in a chat or topic,
        lobbies with it seated included (0: no limit): checked in the saving
        script when a lobby with the computer seated is saved (:class:`BotLimit`)."""
        self._cas = redis.register_script(_CAS)
        self._save_game = redis.register_script(SAVE_GAME)
        self._shown = redis.register_script(_SHOWN)
        self._prune = redis.register_script(_PRUNE)

    async def load(self, key: RecordKey[R]) -> R | None:
        """The stored record, None if there is none; `CorruptRecordError` if unreadable."""
        name = self.keys.record(key)
        try:
            version, raw = await idempotent(lambda: self.redis.hmget(name, ["v", "d"]))
        except ResponseError as error:
            raise corrupt_or_transient(name, error) from None
        return self._decoded(key, version, raw)

    async def load_with_settings(self, chat_id: int, game_id: str
                                 ) -> tuple[GameRecord | None, ChatSettings, bool]:
        """:meth:`load_game` and :meth:`chat_settings` of the game's chat in one round
        trip (a tap needs both; both keys are in the chat's slot, and the pipeline
        is not a transaction: safe on a cluster client, tests/bot/store/test_unsafe_redis.py),
        and whether the game's last write was made by the update being handled
        (:meth:`written_here`)."""
        game, chat = game_key(chat_id, game_id), settings_key(chat_id)
        names = (self.keys.record(game), self.keys.record(chat))

        async def read() -> list[Any]:
            pipe = self.redis.pipeline(transaction=False)
            pipe.hmget(names[0], ["v", "d", "w"])
            pipe.hmget(names[1], ["v", "d"])
            return raise_transient(list(await pipe.execute(raise_on_error=False)))

        game_read, settings_read = await idempotent(read)
        for name, value in zip(names, (game_read, settings_read), strict=True):
            if isinstance(value, ResponseError):
                raise corrupt_or_transient(name, value)
            if isinstance(value, Exception):
                raise value
        record = self._decoded(game, *game_read[:2])
        settings = self._decoded(chat, *settings_read) or ChatSettings(chat_id=chat_id)
        token = game_read[2]
        if record is None:  # one stored by the release before schema 2?
            return await self.load_game(chat_id, game_id), settings, False
        return record, settings, written_here(None if token is None else as_text(token))

    def _decoded(self, key: RecordKey[R], version: Any, raw: Any) -> R | None:
        """The record read as ``version`` and ``raw`` (None for neither)."""
        name = self.keys.record(key)
        if version is None and raw is None:
            return None
        try:
            number = int(as_text(version))
        except ValueError:
            raise CorruptRecordError(name, f"version is {version!r}, not an integer") from None
        record: R = decode(key.model, name, raw, number)
        if record.chat_id != key.chat_id or record.record_name != key.name:
            raise CorruptRecordError(name, "record names another chat or game")
        return record

    async def save(self, record: R, expected_version: int, *,
                   closes: GameRecord | None = None, limited: bool = True) -> R:
        """Write `record` as version expected+1 if the stored version is `expected_version`.

        0 means "there is no record yet".  Raises `VersionConflict` otherwise;
        returns the record as saved (with its new version).  A new game over
        the chat's limit raises :class:`GameLimit`; ``closes``: see
        :meth:`save_first`.
        """
        saved, upkeep = await self.save_first(record, expected_version, closes=closes,
                                              limited=limited)
        await upkeep()
        return saved

    async def save_first(self, record: R, expected_version: int, *,
                         closes: GameRecord | None = None, limited: bool = True
                         ) -> tuple[R, Callable[[], Awaitable[None]]]:
        """`save` up to the CAS: the saved record and the index upkeep still to run.

        For a caller with an urgent reply (a tap's answer): it replies, then
        awaits ``upkeep()``, whose errors it lets through as `save`'s would.
        The upkeep is idempotent and every later save repeats it.

        ``closes``: the game a new game ``record`` continues, as it is to be
        saved (at ``closes.version`` + 1, if still stored at ``closes.version``),
        in the same script: a continuation never counts against the limit.
        ``limited`` False: a new game the chat's limit does not hold back (a
        tournament's round, bot/service/tournament.py: its games are not the
        chat members' own).
        """
        if not isinstance(record, GameRecord):
            if closes is not None:
                raise ValueError("only a game continues another")
            new = await self._compare_and_set(record.key, expected_version, encode(record))
            return record.model_copy(update={"version": new}), no_upkeep
        new = await self._write_game(record, expected_version, encode(record), closes,
                                     limited)
        saved = record.model_copy(update={"version": new})
        if closes is None:
            return saved, functools.partial(self.index, saved)
        closed = closes.model_copy(update={"version": closes.version + 1})

        async def upkeep() -> None:
            await self.index(closed)
            await self.index(saved)

        return saved, upkeep

    async def delete(self, record: Record) -> None:
        """Delete `record` if it is still at `record.version` (else `VersionConflict`)."""
        if isinstance(record, GameRecord):
            await self._write_game(record, record.version, "", None)
            await self.index(record, keep=False)
        else:
            await self._compare_and_set(record.key, record.version, "")

    async def _write_game(self, record: GameRecord, expected: int, data: str,
                          closes: GameRecord | None, limited: bool = True) -> int:
        chat = record.chat_id
        name = self.keys.record(record.key)
        keys = [name, self.keys.live(chat), self.keys.ended(chat)]
        limit = self.max_live if expected == 0 and closes is None and limited else 0
        args: list[Any] = [expected, data, record.game_id, *placement(record), time.time(),
                           ENDED_TTL, limit]
        if closes is not None:
            if closes.chat_id != chat:
                raise ValueError("a game continues one of its own chat")
            keys.append(self.keys.record(closes.key))
            args += [closes.version, encode(closes), closes.game_id, *placement(closes)]
        ending = record.status in (Status.FINISHED, Status.CANCELLED)
        person = _against_computer(record) if limited and data else None
        args += [person or 0, self.bots_per_person if person else 0]
        args += ["1" if ending else "0", write_token()]
        try:
            code, value = await idempotent(lambda: self._save_game(keys=keys, args=args))
        except ResponseError as error:
            raise corrupt_or_transient(name, error) from None
        if code == 2:
            raise GameLimit(name, int(value))
        if code == 5:
            raise BotLimit(name, int(value))
        if code == 4:
            raise UnbookedEnd(name)
        if code == 3:
            raise VersionConflict(keys[3], closes.version if closes else 0, as_text(value))
        if code != 1:
            raise VersionConflict(name, expected, as_text(value))
        return int(value)

    async def _compare_and_set(self, key: RecordKey[Any], expected: int, data: str) -> int:
        name = self.keys.record(key)
        slots = self.keys.chat(key.chat_id, "slots")
        args: list[Any] = [expected, data, key.suffix, write_token()]
        try:
            ok, version = await idempotent(lambda: self._cas(keys=[name, slots], args=args))
        except ResponseError as error:
            raise corrupt_or_transient(name, error) from None
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

    # -- a chat's games ------------------------------------------------------------

    async def upgrade_chat(self, chat_id: int) -> None:
        """Move the chat's schema 1 games first (:mod:`bot.store.schema`).

        Every time, even in a chat (or a store) moved before: a worker of the
        release before schema 2, in a mixed deploy or after a rollback, may
        have written one since, and nothing else would ever move it
        (docs/storage.md, "Mixed deploys").  With none, this costs one
        ``SMEMBERS`` of the chat's small ``slots`` set, the round trip that
        asking ``nardy:schema`` cost before.  A record that cannot move is
        logged and left: the chat's other games work."""
        try:
            await schema.upgrade_chat(self.redis, self.keys, chat_id)
        except CorruptRecordError:
            return  # logged by schema.upgrade_chat; tried again next time

    async def written_here(self, record: Record) -> bool:
        """Whether the stored record's last write was made by the update being
        handled, in an earlier attempt (:func:`bot.vocab.records.written_here`):
        its worker died after the compare-and-set, before it noted the step."""
        token = await idempotent(lambda: self.redis.hget(self.keys.record(record.key), "w"))
        return written_here(None if token is None else as_text(token))

    @property
    def changes(self) -> str:
        """The channel every save of a game is told on, in the saving script itself
        (``PLACE`` in bot/store/layout.py): ``"<record key> <version>"``."""
        return f"{self.keys.prefix}:changed"

    def name_of(self, chat_id: int, game_id: str) -> str:
        """A game's record key, as :attr:`changes` names it."""
        return self.keys.record(game_key(chat_id, game_id))

    def subscription(self) -> Any:
        """A pub/sub client of its own connection (not one of the pool's), for
        :attr:`changes`; on a Redis Cluster any node hears every node's PUBLISH."""
        return self.redis.pubsub()

    async def versions(self, names: list[str]) -> list[int]:
        """The stored version of each game record named (0: none), in one round trip."""
        if not names:
            return []

        async def read() -> list[Any]:
            pipe = self.redis.pipeline(transaction=False)
            for name in names:
                pipe.hget(name, "v")
            return list(await pipe.execute())

        return [0 if v is None else int(as_text(v)) for v in await idempotent(read)]

    async def load_game(self, chat_id: int, game_id: str) -> GameRecord | None:
        """A game (or lobby: a game with status LOBBY) of a chat, by its id."""
        key = game_key(chat_id, game_id)
        record = await self.load(key)
        if record is None:
            await self.upgrade_chat(chat_id)  # one stored by the release before schema 2?
            record = await self.load(key)
        return record

    async def chat_games(self, chat_id: int, thread_id: int | None = None, *,
                         ended: bool = True) -> list[GameRecord]:
        """The games of a chat or forum topic: the live ones, oldest first,
        then (``ended``) the newest ended ones, newest first.  Index entries
        whose record expired are dropped on the way."""
        await self.upgrade_chat(chat_id)
        topic = topic_of(thread_id)
        live_key, ended_key = self.keys.live(chat_id), self.keys.ended(chat_id)
        live = [as_text(m) for m in await self.redis.zrangebyscore(live_key, topic, topic)]
        gone = [as_text(m) for m in await self.redis.zrevrange(ended_key, 0, -1)] if ended else []
        games: list[GameRecord] = []
        for index, game_ids in ((live_key, live), (ended_key, gone)):
            found = []
            for game_id in game_ids:
                record = await self.load(game_key(chat_id, game_id))
                if record is None:
                    await self.redis.zrem(index, game_id)
                elif topic_of(record.thread_id) == topic:
                    found.append(record)
            if index == live_key:
                found.sort(key=lambda record: (record.created_at, record.game_id))
            games += found
        return games

    async def live_count(self, chat_id: int, thread_id: int | None = None) -> int:
        """Live games of a chat or forum topic (what :attr:`max_live` counts)."""
        await self.upgrade_chat(chat_id)
        topic = topic_of(thread_id)
        return int(await self.redis.zcount(self.keys.live(chat_id), topic, topic))

    async def user_games(self, user_id: int) -> list[GameRecord]:
        """The user's open (lobby or active) games, checked against the records.

        Entries whose game is gone, finished, replaced or no longer has the
        user are dropped from the index on the way (self-repair).
        """
        user = self.keys.user_games(user_id)
        games = []
        for member in sorted(map(as_text, await self.redis.smembers(user))):
            ref = GameRef.parse(member)
            game = await self.load_game(ref.chat_id, ref.game_id)
            if (
                game is not None
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
        # the shards of the chat (bot/store/shards.py): no one slot takes every save
        open_games = self.keys.open_shard(game.ref)
        pipe.sadd(open_games, ref) if listed else pipe.srem(open_games, ref)
        due, _ = self.keys.deadline_shard(game.ref)
        # the first wake-up of the deadline: its first reminder (bot/vocab/clock.py)
        wake = first_wake(game.deadline, game.options.time_control)
        if listed and wake is not None:
            pipe.zadd(due, {ref: wake})
        else:
            pipe.zrem(due, ref)
        await pipe.execute()
        if keep and not game.is_live:
            await self.prune(game.chat_id)

    async def prune(self, chat_id: int) -> None:
        """Delete the chat's ended games beyond its newest :data:`ENDED_KEEP`
        (their end is booked; a late tap on one is refused as out of date), so
        a chat's games take as much room as its limit allows and no more."""
        ended = self.keys.ended(chat_id)
        old = [as_text(m) for m in await self.redis.zrange(ended, 0, -ENDED_KEEP - 1)]
        if old:
            records = [self.keys.record(game_key(chat_id, game_id)) for game_id in old]
            await self._prune(keys=[ended, *records], args=old)  # one slot: the chat's

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

    async def forget_shown(self, game: GameRecord, board: tuple[int, int]) -> None:
        """Forget what ``board`` shows (its redraw, :meth:`shown` missing it, is due):
        a board found drawn for a version its record never reached, whose save was
        lost with a Redis master (issue 37), is redrawn from the record."""
        await idempotent(lambda: self.redis.hdel(self.keys.record(game.key),
                                                 self._board_field(board)))

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

    async def remember_notification(self, chat_id: int, game_id: str, message: str) -> None:
        """Remember where a game's "your turn" ping is (``<message id>``, or
        ``<chat id>:<message id>`` in a player's private chat), beside the record
        rather than in it: saving it would make the board's buttons stale."""
        await self.redis.set(self.keys.ping(chat_id, game_id), message, ex=NOTIFICATION_TTL)

    async def take_notification(self, chat_id: int, game_id: str) -> str | None:
        """Where the game's ping is, forgetting it (None: there is none)."""
        old = await self.redis.getdel(self.keys.ping(chat_id, game_id))
        return None if old is None else as_text(old)

    async def note_refused_tap(self, chat_id: int, game_id: str, item: str) -> None:
        """Log an entropy-bearing tap refused on a game not started yet
        (``label=id``), beside the record: saving it would make the board's
        buttons stale.  The oldest :data:`MAX_REFUSED` are kept; the start
        copies them into the record's dice (``DiceState.refused``)."""
        key = self.keys.refused_taps(chat_id, game_id)
        # one round trip, no transaction (unsafe on an async cluster client): a
        # concurrent refusal between the push and the trim still leaves at most
        # MAX_REFUSED, the oldest
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.rpush(key, item)
            pipe.ltrim(key, 0, MAX_REFUSED - 1)
            pipe.expire(key, NOTIFICATION_TTL)
            await pipe.execute()

    async def refused_taps(self, chat_id: int, game_id: str) -> tuple[str, ...]:
        """The refused entropy taps logged for a game not started yet, oldest first."""
        items = await self.redis.lrange(self.keys.refused_taps(chat_id, game_id), 0, -1)
        return tuple(as_text(item) for item in items)

    async def open_game_count(self) -> int:
        """Lobbies and games being played, over all chats (from the index: a hint)."""
        await drain_open(self.redis, self.keys)
        pipe = self.redis.pipeline(transaction=False)
        for shard in self.keys.open_shards:
            pipe.scard(shard)
        return sum(map(int, await pipe.execute()))
