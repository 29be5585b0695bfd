"""The last finished games of a chat and of a player, for their analysis
(/analyze, 📊), and the analyses as posted.

A chat's finished games are its ended games (bot/store/games.py: the chat's
``ended`` index and each game's own record, written by the very script that
saves the game, the newest :data:`bot.store.layout.ENDED_KEEP` for
:data:`bot.store.layout.ENDED_TTL`) that were played to their end.  What
only this part keeps, beside the chat's other keys:

    nardy:{chat:<id>}:finished:<game id>:analysis   hash "<language>:<style>" -> the
                                           analysis as posted (opaque JSON), and
                                           "at:<chat id>" -> when it was last posted there
    nardy:{chat:<id>}:finished:<game id>:busy       string with expiry: being analysed
    nardy:{user:<uid>}:finished            zset of the player's finished game refs -> at

(a private chat finds its player's games by the last).  All of it expires;
nothing here is the truth of a game (the ledger and the history are booked
by :meth:`bot.store.ledger.Ledger.finish_game`), so a lost entry only means an
old game can no longer be analysed.

Releases before issue 23 kept a copy of each finished record and an index of
their own (``nardy:{chat:<id>}:finished`` and ``:finished:<game id>``,
expiring after :data:`KEEP_DAYS` days): a game whose record is gone is still
read from such a copy while it lasts (:meth:`Analysis.load`); nothing writes
them any more.
"""

from __future__ import annotations

import time

from bot.store.client import RedisClient, as_text, hset_expiring, zadd_capped
from bot.store.games import Games
from bot.store.keys import Keys
from bot.store.layout import topic_of
from bot.vocab.records import GameRecord, GameRef, Status, decode, game_key

KEEP_DAYS = 30
TTL = KEEP_DAYS * 24 * 3600
CAP = 20
"""Finished games kept per player."""
BUSY_LEASE = 120
"""Seconds an analysis in flight holds its game: a worker that died while
analysing frees it after this."""


def kept_copy(record: GameRecord) -> GameRecord:
    """What is analysed of a finished record: all but its match's earlier games
    (only /export reads those, from the live record)."""
    engine = {key: value for key, value in record.engine.items() if key != "earlier"}
    return record.model_copy(update={"engine": engine})


def _analysable(record: GameRecord) -> bool:
    return record.status is Status.FINISHED and bool(record.engine)


class Analysis:
    """Finished games for their analysis (a part of :class:`bot.store.Store`:
    ``store.analysis``)."""

    def __init__(self, redis: RedisClient, keys: Keys, games: Games) -> None:
        self.redis = redis
        self.keys = keys
        self.games = games

    def _entry(self, chat_id: int, game_id: str, part: str = "") -> str:
        return self.keys.finished(chat_id, game_id, part)

    async def keep(self, record: GameRecord, now: float | None = None) -> None:
        """Note a finished game for its players (idempotent: noting it again
        refreshes the note; ordered by when it ended, ``now`` or its last change).
        The record itself stays with the chat's ended games."""
        if not _analysable(record):
            return
        now = record.updated_at if now is None else now
        ref = str(record.ref)
        for player in record.players:
            if player.user_id <= 0:  # the computer has no private chat to ask in
                continue
            await zadd_capped(self.redis, self.keys.user_finished(player.user_id), ref, now,
                              CAP, TTL)

    async def load(self, chat_id: int, game_id: str) -> GameRecord | None:
        """A finished game of the chat as it is analysed (:func:`kept_copy`), None
        if it is not kept (never finished, expired, or pushed out by newer games)."""
        record = await self.games.load_game(chat_id, game_id)
        if record is not None and _analysable(record):
            return kept_copy(record)
        name = self._entry(chat_id, game_id)  # a copy kept by a release before issue 23
        version, raw = await self.redis.hmget(name, ["v", "d"])
        if raw is None:
            return None
        kept: GameRecord = decode(GameRecord, name, raw, int(as_text(version or b"0")))
        return kept if (kept.chat_id, kept.game_id) == (chat_id, game_id) else None

    async def recent(self, chat_id: int, thread_id: int | None = None, *,
                     any_topic: bool = False) -> list[GameRecord]:
        """The chat's finished games, newest first: of one topic, or of all with ``any_topic``."""
        await self.games.upgrade_chat(chat_id)  # (as every read of a chat's games)
        found = []
        for member in await self.redis.zrevrange(self.keys.ended(chat_id), 0, -1):
            record = await self.games.load(game_key(chat_id, as_text(member)))
            if record is not None and _analysable(record) and (
                    any_topic or topic_of(record.thread_id) == topic_of(thread_id)):
                found.append(kept_copy(record))
        return found

    async def last(self, chat_id: int, thread_id: int | None) -> GameRecord | None:
        """The newest finished game of a chat's topic (or of the chat outside topics)."""
        return next(iter(await self.recent(chat_id, thread_id)), None)

    async def last_of_user(self, user_id: int) -> GameRecord | None:
        """The newest finished game the user played, in any chat (for a private
        chat: a private game's boards live in the players' chats)."""
        user = self.keys.user_finished(user_id)
        for member in map(as_text, await self.redis.zrevrange(user, 0, -1)):
            ref = GameRef.parse(member)
            record = await self.load(ref.chat_id, ref.game_id)
            if record is not None and any(p.user_id == user_id for p in record.players):
                return record
            await self.redis.zrem(user, member)  # expired or pushed out: drop the ref
        return None

    # -- the analysis of a finished game ------------------------------------------

    async def claim(self, chat_id: int, game_id: str, lease: int = BUSY_LEASE) -> bool:
        """Take the game for analysing; False while another analysis of it is in
        flight (in any worker).  :meth:`release` it when done."""
        name = self._entry(chat_id, game_id, ":busy")
        return bool(await self.redis.set(name, "1", nx=True, ex=lease))

    async def release(self, chat_id: int, game_id: str) -> None:
        await self.redis.delete(self._entry(chat_id, game_id, ":busy"))

    async def posted(self, chat_id: int, game_id: str, form: str) -> str | None:
        """The analysis of the game as posted before in ``form`` (a language and
        a style, e.g. ``"ru:png"``): the caller's opaque JSON, None if none."""
        raw = await self.redis.hget(self._entry(chat_id, game_id, ":analysis"), form)
        return None if raw is None else as_text(raw)

    async def note_posted(self, chat_id: int, game_id: str, form: str, value: str,
                          where: int, now: float | None = None) -> None:
        """Remember the analysis as posted in ``form`` and when it was posted in chat ``where``."""
        name = self._entry(chat_id, game_id, ":analysis")
        await hset_expiring(self.redis, name, {
            form: value, f"at:{where}": time.time() if now is None else now}, TTL)

    async def posted_at(self, chat_id: int, game_id: str, where: int) -> float | None:
        """When the game's analysis was last posted in chat ``where``, if ever."""
        raw = await self.redis.hget(self._entry(chat_id, game_id, ":analysis"),
                                    f"at:{where}")
        return None if raw is None else float(as_text(raw))
