"""The last finished games of a chat, kept for their analysis (/analyze, 📊).

Written when a chat kept one game record (replaced by the next lobby or
the match's next game).  Since schema 2 every game has its own record and
the chat's ``ended`` index keeps the newest 20 for 30 days too
(bot/store/games.py), so the record copy here overlaps it and could give way
to it; what only this module has is the per-player refs (a private chat
finds its player's games), the posted analyses and the in-flight marker.
When a game ends its record is kept here, beside the chat's other keys, for
:data:`KEEP_DAYS` days, the newest :data:`CAP` per chat (and the newest
:data:`CAP` refs per player):

    nardy:{chat:<id>}:finished             zset "<topic or 0>:<game id>" -> finished at
    nardy:{chat:<id>}:finished:<game id>   hash {v, d}: the GameRecord at its end (its
                                           match's earlier games left out)
    nardy:{chat:<id>}:finished:<game id>:analysis   hash "<language>:<style>" -> the
                                           analysis as posted (opaque JSON), and
                                           "at:<chat id>" -> when it was last posted there
    nardy:{chat:<id>}:finished:<game id>:busy       string with expiry: being analysed
    nardy:{user:<uid>}:finished            zset of the player's finished game refs -> at

All of it expires; nothing here is the truth of a game (the ledger and the
history are booked by :meth:`bot.store.Store.finish_game`), so a lost entry
only means an old game can no longer be analysed.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

from bot.store import Store
from bot.store.client import as_text, hset_expiring, zadd_capped
from bot.vocab.records import GameRecord, GameRef, Status, decode, encode

KEEP_DAYS = 30
TTL = KEEP_DAYS * 24 * 3600
CAP = 20
"""Finished games kept per chat (and refs per player)."""
BUSY_LEASE = 120
"""Seconds an analysis in flight holds its game: a worker that died while
analysing frees it after this."""

# KEYS: the chat's index, the game's entry.  ARGV: version, kept JSON, index member,
# finished at, cap, seconds kept.  Returns the members pushed out of the index.
# One script on the chat's slot (never a MULTI/EXEC pipeline: bot/store/client.py).
_KEEP = """
redis.call('HSET', KEYS[2], 'v', ARGV[1], 'd', ARGV[2])
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[6]))
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[3])
local cap = tonumber(ARGV[5])
local evicted = redis.call('ZRANGE', KEYS[1], 0, -cap - 1)
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -cap - 1)
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[6]))
return evicted
"""


def _index(store: Store, chat_id: int) -> str:
    return store.keys.finished(chat_id)


def _entry(store: Store, chat_id: int, game_id: str, part: str = "") -> str:
    return store.keys.finished(chat_id, game_id, part)


def _user(store: Store, user_id: int) -> str:
    return store.keys.user_finished(user_id)


def _member(record: GameRecord) -> str:
    return f"{record.thread_id or 0}:{record.game_id}"


def kept_copy(record: GameRecord) -> GameRecord:
    """What is kept of a finished record: all but its match's earlier games
    (only /export reads those, from the live record)."""
    engine = {key: value for key, value in record.engine.items() if key != "earlier"}
    return record.model_copy(update={"engine": engine})


async def keep(store: Store, record: GameRecord, now: float | None = None) -> None:
    """Keep a finished game (idempotent: keeping it again refreshes its
    expiry; it is ordered by when it ended, ``now`` or its last change)."""
    if record.status is not Status.FINISHED or not record.engine:
        return
    now = record.updated_at if now is None else now
    chat = record.chat_id
    keys = [_index(store, chat), _entry(store, chat, record.game_id)]
    evicted = await store.redis.register_script(_KEEP)(keys=keys, args=[
        record.version, encode(kept_copy(record)), _member(record), now, CAP, TTL])
    if evicted:  # they would expire anyway; a crash before this only delays it
        games = [as_text(member).partition(":")[2] for member in evicted]
        await store.redis.delete(*[_entry(store, chat, game, part) for game in games
                                   for part in ("", ":analysis", ":busy")])
    ref = str(record.ref)
    for player in record.players:
        if player.user_id <= 0:  # the computer has no private chat to ask in
            continue
        await zadd_capped(store.redis, _user(store, player.user_id), ref, now, CAP, TTL)


async def load(store: Store, chat_id: int, game_id: str) -> GameRecord | None:
    """The kept record of a finished game of the chat, None if it is not kept
    (never was, expired, or pushed out by newer games).  A finished game whose
    copy is missing (see :func:`repair`) is kept now from its record."""
    name = _entry(store, chat_id, game_id)
    version, raw = await store.redis.hmget(name, ["v", "d"])
    if raw is None:
        game = await store.load_game(chat_id, game_id)
        if game is None or game.status is not Status.FINISHED or not game.engine:
            return None
        await keep(store, game)
        return kept_copy(game)
    record: GameRecord = decode(GameRecord, name, raw, int(as_text(version or b"0")))
    if record.chat_id != chat_id or record.game_id != game_id:
        return None
    return record


async def repair(store: Store, chat_id: int) -> None:
    """Keep the finished games of the chat's ended index (bot/store/games.py) that
    are not kept here: the booking and this copy are two steps (the index
    upkeep after a tap's answer), and a worker may die between them."""
    ended = [as_text(m) for m in await store.redis.zrevrange(store.keys.ended(chat_id), 0, CAP - 1)]
    if not ended:
        return
    kept = {as_text(m).partition(":")[2] for m in await store.redis.zrange(
        _index(store, chat_id), 0, -1)}
    for game_id in ended:
        if game_id not in kept:
            record = await store.load_game(chat_id, game_id)
            if record is not None:
                await keep(store, record)  # (not finished, or no engine: nothing kept)


async def _kept(store: Store, chat_id: int, thread_id: int | None, any_topic: bool
                ) -> AsyncIterator[GameRecord]:
    await repair(store, chat_id)
    members = await store.redis.zrevrange(_index(store, chat_id), 0, -1)
    for member in map(as_text, members):
        thread, _, game_id = member.partition(":")
        if any_topic or int(thread or 0) == (thread_id or 0):
            record = await load(store, chat_id, game_id)
            if record is not None:
                yield record


async def recent(store: Store, chat_id: int, thread_id: int | None = None, *,
                 any_topic: bool = False) -> list[GameRecord]:
    """The chat's kept games, newest first: of one topic, or of all with ``any_topic``."""
    return [record async for record in _kept(store, chat_id, thread_id, any_topic)]


async def last(store: Store, chat_id: int, thread_id: int | None) -> GameRecord | None:
    """The newest kept game of a chat's topic (or of the chat outside topics)."""
    async for record in _kept(store, chat_id, thread_id, False):
        return record
    return None


async def last_of_user(store: Store, user_id: int) -> GameRecord | None:
    """The newest kept game the user played, in any chat (for a private
    chat: a private game's boards live in the players' chats)."""
    user = _user(store, user_id)
    for member in map(as_text, await store.redis.zrevrange(user, 0, -1)):
        ref = GameRef.parse(member)
        record = await load(store, ref.chat_id, ref.game_id)
        if record is not None and any(p.user_id == user_id for p in record.players):
            return record
        await store.redis.zrem(user, member)  # expired or pushed out: drop the ref
    return None


# -- the analysis of a kept game -------------------------------------------------


async def claim(store: Store, chat_id: int, game_id: str, lease: int = BUSY_LEASE) -> bool:
    """Take the game for analysing; False while another analysis of it is in
    flight (in any worker).  :func:`release` it when done."""
    name = _entry(store, chat_id, game_id, ":busy")
    return bool(await store.redis.set(name, "1", nx=True, ex=lease))


async def release(store: Store, chat_id: int, game_id: str) -> None:
    await store.redis.delete(_entry(store, chat_id, game_id, ":busy"))


async def posted(store: Store, chat_id: int, game_id: str, form: str) -> str | None:
    """The analysis of the game as posted before in ``form`` (a language and
    a style, e.g. ``"ru:png"``): the caller's opaque JSON, None if none."""
    raw = await store.redis.hget(_entry(store, chat_id, game_id, ":analysis"), form)
    return None if raw is None else as_text(raw)


async def note_posted(store: Store, chat_id: int, game_id: str, form: str, value: str,
                      where: int, now: float | None = None) -> None:
    """Remember the analysis as posted in ``form`` and when it was posted in chat ``where``."""
    name = _entry(store, chat_id, game_id, ":analysis")
    await hset_expiring(store.redis, name, {
        form: value, f"at:{where}": time.time() if now is None else now}, TTL)


async def posted_at(store: Store, chat_id: int, game_id: str, where: int) -> float | None:
    """When the game's analysis was last posted in chat ``where``, if ever."""
    raw = await store.redis.hget(_entry(store, chat_id, game_id, ":analysis"), f"at:{where}")
    return None if raw is None else float(as_text(raw))
