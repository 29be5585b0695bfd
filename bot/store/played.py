"""A player's games outside groups, for /stats in the private chat.

A private game (``/invite``) and an inline game each book their end, stats and
rating in their own slot, like a chat (:meth:`bot.store.ledger.Ledger.finish_game`):
no group's ``/stats`` or ``/top`` shows them.  To find them, the index upkeep
of every save of such a game (:meth:`bot.store.games.Games.reindex`) adds its chat
id to the player's ``nardy:{user:<uid>}:played`` set (a hint, re-asserted by
every save); :meth:`Played.stats` reads the player's stats in each.
"""

from __future__ import annotations

from bot.store.client import RedisClient, as_text
from bot.store.games import Games
from bot.store.keys import Keys
from bot.store.ledger import stats_field
from bot.vocab.records import GameRecord, PlayerStats, decode
from engine.position import Variant

ENDED_LOOKED_AT = 20
"""Private and inline games whose ended records a command in the private chat
looks at (:meth:`Played.ended_games`): a few reads, for the games one remembers."""


class Played:
    """A player's private and inline games (a part of :class:`bot.store.Store`:
    ``store.played``)."""

    def __init__(self, redis: RedisClient, keys: Keys, games: Games) -> None:
        self.redis = redis
        self.keys = keys
        self.games = games

    async def ended_games(self, user_id: int) -> list[GameRecord]:
        """The user's ended private and inline games (the newest one of each),
        so that /export or /verify in the private chat finds a finished game
        without a reply to its board."""
        found = []
        members = sorted(await self.redis.smembers(self.keys.played(user_id)), key=as_text)
        for member in members[-ENDED_LOOKED_AT:]:
            games = await self.games.chat_games(int(as_text(member)), None)
            found += [g for g in games if not g.is_live][:1]
        return found

    async def stats(self, user_id: int) -> list[PlayerStats]:
        """The user's stats in each private and inline game they played (against
        people; those games are never against the computer)."""
        found = []
        fields = [stats_field(variant, user_id) for variant in Variant]
        for member in sorted(await self.redis.smembers(self.keys.played(user_id)), key=as_text):
            name = self.keys.chat(int(as_text(member)), "stats")
            for field, raw in zip(fields, await self.redis.hmget(name, fields), strict=True):
                if raw is not None:
                    found.append(decode(PlayerStats, f"{name}[{field}]", raw))
        return found
