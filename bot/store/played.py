"""A player's games outside groups, for /stats in the private chat.

A private game (``/invite``) and an inline game each book their end, stats and
rating in their own slot, like a chat (:meth:`bot.store.Store.finish_game`):
no group's ``/stats`` or ``/top`` shows them.  To find them, the index upkeep
of every save of such a game (:meth:`bot.store.Store.reindex`) adds its chat
id to the player's ``nardy:{user:<uid>}:played`` set (a hint, re-asserted by
every save); :func:`played_stats` reads the player's stats in each.
"""

from __future__ import annotations

from bot.store import Store, stats_field
from bot.store.client import as_text
from bot.vocab.records import GameRecord, PlayerStats, decode
from engine.position import Variant

ENDED_LOOKED_AT = 20
"""Private and inline games whose ended records a command in the private chat
looks at (:func:`ended_games`): a few reads, for the games one remembers."""


async def ended_games(store: Store, user_id: int) -> list[GameRecord]:
    """The user's ended private and inline games (the newest one of each),
    so that /export or /verify in the private chat finds a finished game
    without a reply to its board."""
    found = []
    members = sorted(await store.redis.smembers(store.keys.played(user_id)), key=as_text)
    for member in members[-ENDED_LOOKED_AT:]:
        games = await store.chat_games(int(as_text(member)), None)
        found += [g for g in games if not g.is_live][:1]
    return found


async def played_stats(store: Store, user_id: int) -> list[PlayerStats]:
    """The user's stats in each private and inline game they played (against
    people; those games are never against the computer)."""
    found = []
    fields = [stats_field(variant, user_id) for variant in Variant]
    for member in sorted(await store.redis.smembers(store.keys.played(user_id)), key=as_text):
        name = store.chat_key(int(as_text(member)), "stats")
        for field, raw in zip(fields, await store.redis.hmget(name, fields), strict=True):
            if raw is not None:
                found.append(decode(PlayerStats, f"{name}[{field}]", raw))
    return found
