"""Board messages in the store: which game a board message belongs to, and
the open games whose boards may be behind their record.

**Which game a message is** (in a private chat, and a group's boards: a
command sent as a reply to one acts on its game, bot/edge/handlers/which.py).
A game's boards in private chats (:class:`bot.vocab.records.BoardViewRef`)
carry the same ``g:<game id>:<version>:...`` buttons as its chat's board, but
a tap there arrives from the private chat, not from the game's chat.  The
bot remembers, per private chat, board message id -> :class:`GameRef` (a
hash in the chat's slot, ``nardy:{chat:<id>}:views``); the button handler
looks the tapped message up and then applies the usual checks (the message
must still be one of the record's views, the version and the seat must
match), so an entry left behind can only lead to a refusal.

**Boards behind their record**, found at start-up (:meth:`Board.behind`).  A
board redraw that failed (the Bot API answered 502) and was not retried
leaves its message showing an older version than the record (the version a
board shows is noted beside the record, ``s:<chat>:<message>``, see
:meth:`bot.store.games.Games.mark_shown`).  The bot repairs such a board when
a tap on it is refused; after a restart nobody may tap for a while, so the
start-up looks for them (:func:`bot.edge.handlers.board.startup_redraw_job`).
Cheap: one pipelined pass over the open games' versions and noted shown
versions (not their records); only the games that look behind are loaded,
and only the most recently changed ones are returned.
"""

from __future__ import annotations

from typing import Any

from bot.store.client import RedisClient, as_text, hset_expiring
from bot.store.games import Games
from bot.store.keys import Keys
from bot.store.migration import Migration
from bot.store.shards import drain_open
from bot.vocab.records import GameRecord, GameRef, game_key

VIEWS_TTL = 180 * 24 * 3600
"""A private chat's map expires half a year after its last new board."""
BATCH = 200
"""Open games looked at per pipelined round trip (:meth:`Board.behind`)."""


def _looks_behind(version: Any, shown: dict[Any, Any]) -> bool:
    """Whether a record at ``version`` with these noted ``s:*`` fields may have
    a board behind it: none noted, or one noted below the version."""
    if version is None:
        return False  # gone
    return not shown or min(int(as_text(v)) for v in shown.values()) < int(as_text(version))


class Board:
    """Board messages (a part of :class:`bot.store.Store`: ``store.board``)."""

    def __init__(self, redis: RedisClient, keys: Keys, games: Games,
                 migration: Migration) -> None:
        self.redis = redis
        self.keys = keys
        self.games = games
        self.migration = migration

    def _views(self, chat_id: int) -> str:
        return self.keys.chat(chat_id, "views")

    async def remember(self, chat_id: int, message_id: int, ref: GameRef) -> None:
        await hset_expiring(self.redis, self._views(chat_id), {str(message_id): str(ref)},
                            VIEWS_TTL)

    async def link(self, ref: GameRef, chat_id: int, message_id: int, label: str) -> None:
        """Message ``message_id`` in chat ``chat_id`` has a button ``label``
        linking to the game's board: it follows the board when it is posted anew."""
        await hset_expiring(self.redis, self.keys.chat(ref.chat_id, f"links:{ref.game_id}"),
                            {f"{chat_id}:{message_id}": label}, VIEWS_TTL)

    async def links(self, ref: GameRef) -> list[tuple[int, int, str]]:
        """(chat, message, label) of the messages linking to the game's board."""
        raw = await self.redis.hgetall(self.keys.chat(ref.chat_id, f"links:{ref.game_id}"))
        out = []
        for field, label in raw.items():
            chat, _, message = as_text(field).partition(":")
            out.append((int(chat), int(message), as_text(label)))
        return out

    async def forget(self, chat_id: int, message_id: int) -> None:
        await self.redis.hdel(self._views(chat_id), str(message_id))

    async def game_of(self, chat_id: int, message_id: int) -> GameRef | None:
        """The game whose board ``message_id`` in private chat ``chat_id`` is, if any.

        Follows a group's migration to a supergroup (its games moved)."""
        raw = await self.redis.hget(self._views(chat_id), str(message_id))
        if raw is None:
            return None
        ref = GameRef.parse(raw)
        moved = await self.migration.moved_to(ref.chat_id)
        return ref if moved is None else GameRef(moved, ref.thread_id, ref.game_id)

    async def behind(self, limit: int) -> list[GameRecord]:
        """Up to ``limit`` open games with a board message that does not show their
        version (or no chat board at all), the most recently changed first."""
        redis = self.redis
        await drain_open(redis, self.keys)
        refs = sorted({as_text(m) for shard in self.keys.open_shards
                       async for m in redis.sscan_iter(shard, count=1000)})
        candidates: list[GameRef] = []
        for start in range(0, len(refs), BATCH):
            batch = [GameRef.parse(ref) for ref in refs[start:start + BATCH]]
            pipe = redis.pipeline(transaction=False)
            for ref in batch:
                name = self.keys.record(game_key(ref.chat_id, ref.game_id))
                pipe.hget(name, "v")
                pipe.hscan(name, 0, match="s:*", count=1000)
            answers = await pipe.execute()
            gone = [ref for index, ref in enumerate(batch) if answers[2 * index] is None]
            if gone:  # its record expired (an inline lobby nobody joined): out of its shard too
                pipe = redis.pipeline(transaction=False)
                for ref in gone:
                    pipe.srem(self.keys.open_shard(ref), str(ref))
                await pipe.execute()
            for index, ref in enumerate(batch):
                version, (_, shown) = answers[2 * index], answers[2 * index + 1]
                if _looks_behind(version, shown):
                    candidates.append(ref)
        found = []
        for ref in candidates:
            record = await self.games.load_game(ref.chat_id, ref.game_id)
            if record is None or not record.status.is_open:
                continue
            shown_now = await self.games.shown(record)
            boards = self.games.boards_of(record)
            if (record.board_message_id is None and not record.is_private) or any(
                    shown_now.get(board, -1) < record.version for board in boards):
                found.append(record)
        found.sort(key=lambda r: r.updated_at, reverse=True)
        return found[:limit]
