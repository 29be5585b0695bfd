"""What the bot remembers about a user across chats: whether they started
the bot in a private chat (so it may write to them there) and whether they
muted move reminders.

Kept in one small hash per user, ``nardy:{user:<uid>}:prefs``, beside the
user's game index (same hash slot).  These are preferences, not game state:
no compare-and-set, the last write wins.

Call :meth:`Prefs.note_started` whenever a user writes to the bot in a
private chat (``/start``, with or without an invitation token, or anything
else): only then may the bot message them privately.
"""

from __future__ import annotations

from bot.store.client import RedisClient, as_text
from bot.store.keys import Keys

STARTED = "started"
MUTED = "muted"
LANGUAGE = "lang"


class Prefs:
    """A user's preferences (a part of :class:`bot.store.Store`: ``store.prefs``)."""

    def __init__(self, redis: RedisClient, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys

    async def note_started(self, user_id: int) -> None:
        """The user wrote to the bot in private: private messages reach them now."""
        await self.redis.hset(self.keys.prefs(user_id), STARTED, 1)

    async def forget_started(self, user_id: int) -> None:
        """A private message failed (the user blocked the bot or deleted the chat)."""
        await self.redis.hdel(self.keys.prefs(user_id), STARTED)

    async def has_started(self, user_id: int) -> bool:
        return bool(await self.redis.hget(self.keys.prefs(user_id), STARTED))

    async def set_muted(self, user_id: int, muted: bool) -> None:
        """Mute (or unmute) the user's move reminders, in every chat."""
        if muted:
            await self.redis.hset(self.keys.prefs(user_id), MUTED, 1)
        else:
            await self.redis.hdel(self.keys.prefs(user_id), MUTED)

    async def is_muted(self, user_id: int) -> bool:
        return bool(await self.redis.hget(self.keys.prefs(user_id), MUTED))

    async def set_language(self, user_id: int, code: str | None) -> None:
        """The user's Telegram language, noted from their updates
        (bot/edge/handlers/common.py ``note_language``), for the messages
        addressed to them (``addressee_translator``)."""
        if code:
            await self.redis.hset(self.keys.prefs(user_id), LANGUAGE, code[:16])

    async def language(self, user_id: int) -> str | None:
        raw = await self.redis.hget(self.keys.prefs(user_id), LANGUAGE)
        return None if raw is None else as_text(raw)
