"""Open games whose board messages may be behind their record, found at start-up.

A board redraw that failed (the Bot API answered 502) and was not retried
leaves its message showing an older version than the record (the version a
board shows is noted beside the record, ``s:<chat>:<message>``, see
:meth:`bot.store.Store.mark_shown`).  The bot repairs such a board when a tap
on it is refused; after a restart nobody may tap for a while, so the start-up
looks for them (:func:`bot.edge.handlers.board.startup_redraw_job`).

Cheap: one pipelined pass over the open games' versions and noted shown
versions (not their records); only the games that look behind are loaded,
and only the most recently changed ones are returned.
"""

from __future__ import annotations

from typing import Any

from bot.store import Store
from bot.store.client import as_text
from bot.store.shards import drain_open
from bot.vocab.records import GameRecord, GameRef, game_key

BATCH = 200
"""Open games looked at per pipelined round trip."""


def _looks_behind(version: Any, shown: dict[Any, Any]) -> bool:
    """Whether a record at ``version`` with these noted ``s:*`` fields may have
    a board behind it: none noted, or one noted below the version."""
    if version is None:
        return False  # gone
    return not shown or min(int(as_text(v)) for v in shown.values()) < int(as_text(version))


async def behind(store: Store, limit: int) -> list[GameRecord]:
    """Up to ``limit`` open games with a board message that does not show their
    version (or no chat board at all), the most recently changed first."""
    redis = store.redis
    await drain_open(redis, store.keys)
    refs = sorted({as_text(m) for shard in store.keys.open_shards
                   async for m in redis.sscan_iter(shard, count=1000)})
    candidates: list[GameRef] = []
    for start in range(0, len(refs), BATCH):
        batch = [GameRef.parse(ref) for ref in refs[start:start + BATCH]]
        pipe = redis.pipeline(transaction=False)
        for ref in batch:
            name = store.redis_key(game_key(ref.chat_id, ref.game_id))
            pipe.hget(name, "v")
            pipe.hscan(name, 0, match="s:*", count=1000)
        answers = await pipe.execute()
        gone = [ref for index, ref in enumerate(batch) if answers[2 * index] is None]
        if gone:  # its record expired (an inline lobby nobody joined): out of its shard too
            pipe = redis.pipeline(transaction=False)
            for ref in gone:
                pipe.srem(store.keys.open_shard(ref), str(ref))
            await pipe.execute()
        for index, ref in enumerate(batch):
            version, (_, shown) = answers[2 * index], answers[2 * index + 1]
            if _looks_behind(version, shown):
                candidates.append(ref)
    found = []
    for ref in candidates:
        record = await store.load_game(ref.chat_id, ref.game_id)
        if record is None or not record.status.is_open:
            continue
        shown_now = await store.shown(record)
        boards = store.boards_of(record)
        if (record.board_message_id is None and not record.is_private) or any(
                shown_now.get(board, -1) < record.version for board in boards):
            found.append(record)
    found.sort(key=lambda r: r.updated_at, reverse=True)
    return found[:limit]

