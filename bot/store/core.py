"""The bot's one async store API over Redis (redis.asyncio, fakeredis in tests):
:class:`Store`, a facade over the parts that do the work.

- :mod:`bot.store.keys`: where everything lives (the key layout);
- :mod:`bot.store.games`: records, one compare-and-set per change, a chat's
  several games and the indexes, the versions the board messages show, the
  "your turn" ping (the shared Lua and limits: :mod:`bot.store.layout`);
- :mod:`bot.store.schema`: stored games of an older schema moved to the current one;
- :mod:`bot.store.books`: a game's end booked in one script (ledger, history,
  stats, dice counts), their reading, settle requests;
- :mod:`bot.store.queue`: the deadline queue (wake-ups claimed by one process);
- :mod:`bot.store.updates`: each update once (markers, the effects journal);
- :mod:`bot.store.migration`: a chat that became a supergroup;
- :mod:`bot.store.flood`: the flood limiter's token buckets.

Callers use the facade's methods (``store.load_game``, ``store.finish_game``,
...); each is the method of the part named beside it below.
"""

from __future__ import annotations

import asyncio
from typing import Any

from redis.asyncio.cluster import RedisCluster

from bot.store import schema
from bot.store.books import HISTORY_CAP, Books
from bot.store.client import RedisClient
from bot.store.flood import FloodBuckets
from bot.store.games import Games
from bot.store.keys import Keys
from bot.store.layout import DEFAULT_MAX_LIVE
from bot.store.migration import Migration
from bot.store.queue import DeadlineQueue
from bot.store.tournament import Tournaments
from bot.store.updates import Updates
from bot.vocab.records import settings_key


class Store:
    """Load, compare-and-set, book and index the bot's records.  See the module doc."""

    def __init__(
        self, redis: RedisClient, prefix: str = "nardy", history_cap: int = HISTORY_CAP,
        max_live: int = DEFAULT_MAX_LIVE,
    ) -> None:
        self.redis = redis
        self.prefix = prefix
        self.history_cap = history_cap
        self.keys = keys = Keys(prefix)
        self.games = games = Games(redis, keys, max_live)
        self.books = books = Books(redis, keys, games, history_cap)
        self.queue = queue = DeadlineQueue(redis, keys)
        self.updates = updates = Updates(redis, keys)
        self.migration = migration = Migration(redis, keys, games, queue, history_cap)
        self.flood = FloodBuckets(redis, keys)
        self.tournaments = Tournaments(redis, keys)
        # key names
        self.chat_key = keys.chat
        self.redis_key = keys.record
        self.user_key = keys.user_games
        # records and games
        self.load = games.load
        self.save = games.save
        self.save_first = games.save_first
        self.delete = games.delete
        self.update = games.update
        self.load_game = games.load_game
        self.written_here = games.written_here
        self.chat_games = games.chat_games
        self.live_count = games.live_count
        self.lobbies = games.lobbies
        self.user_games = games.user_games
        self.reindex = games.reindex
        self.boards_of = games.boards_of
        self.mark_shown = games.mark_shown
        self.shown = games.shown
        self.chat_settings = games.chat_settings
        self.remember_notification = games.remember_notification
        self.take_notification = games.take_notification
        self.note_refused_tap = games.note_refused_tap
        self.refused_taps = games.refused_taps
        self.open_game_count = games.open_game_count
        # the books
        self.finish_game = books.finish_game
        self.ledger = books.ledger
        self.balance = books.balance
        self.history = books.history
        self.player_stats = books.player_stats
        self.dice_stats = books.dice_stats
        self.put_settle = books.put_settle
        self.load_settle = books.load_settle
        self.change_settle = books.change_settle
        self.settle = books.settle
        # deadlines
        self.schedule = queue.schedule
        self.unschedule = queue.unschedule
        self.claim_due = queue.claim_due
        self.ack = queue.ack
        self.ping_later = queue.ping_later
        self.claim_pings = queue.claim_pings
        self.ack_ping = queue.ack_ping
        # updates
        self.claim_update = updates.claim_update
        self.settle_update = updates.settle_update
        self.load_effects = updates.load_effects
        self.save_effects = updates.save_effects
        self.claim = updates.claim
        self.renew_update = updates.renew_update
        self.drop_effects = updates.drop_effects
        # supergroup migration
        self.moved_to = migration.moved_to
        self.migrate_chat = migration.migrate_chat

    @property
    def max_live(self) -> int:
        """Live games (lobbies included) a chat or forum topic may have at once
        (0: no limit; ``MAX_CHAT_GAMES``)."""
        return self.games.max_live

    @max_live.setter
    def max_live(self, value: int) -> None:
        self.games.max_live = value

    async def keep_chat(self, chat_id: int, ttl: int | None) -> None:
        """Let a chat's own records (its settings and their slots) expire in
        ``ttl`` seconds, or keep them (None).  For an inline message's chat,
        which anyone can make with a made-up message id (issue 21): its
        records expire while it holds only a lobby, and are kept once its game
        starts (the lobby itself expires by its placement, bot/store/layout.py)."""
        # one round trip; each step stands alone (no transaction: unsafe on an
        # async cluster client, tests/bot/store/test_unsafe_redis.py)
        pipe = self.redis.pipeline(transaction=False)
        for name in (self.keys.record(settings_key(chat_id)), self.keys.chat(chat_id, "slots")):
            if ttl is None:
                pipe.persist(name)
            else:
                pipe.expire(name, ttl)
        await pipe.execute()

    async def upgrade_schema(self) -> int:
        """Move every stored game of an older schema to the current one
        (:mod:`bot.store.schema`); returns how many moved."""
        return await schema.upgrade_all(self.redis, self.keys)

    async def ping(self, timeout: float = 1.0) -> bool:
        """True if Redis answers within ``timeout`` seconds: the server, or on a
        cluster every slot (games live on every master): :func:`cluster_reachable`."""
        try:
            if isinstance(self.redis, RedisCluster):
                return await asyncio.wait_for(cluster_reachable(self.redis), timeout)
            return bool(await asyncio.wait_for(self.redis.ping(), timeout))
        except Exception:
            return False


async def cluster_reachable(cluster: RedisCluster) -> bool:
    """Whether this client reaches every hash slot: each master of its slot map
    answers PING and the cluster says all slots are served (``cluster_state:ok``).
    One PING answered by some node (what ``/healthz`` asked before) said "healthy"
    through most of a partial outage (issue 22).  A master that does not answer
    makes the client learn the slot map again, so a replica that took over is
    found at the next probe."""
    try:
        await cluster.ping(target_nodes=RedisCluster.PRIMARIES)
    except Exception:
        await cluster.nodes_manager.initialize()  # stale after a failover: ask again
        return False
    info: Any = await cluster.cluster_info(target_nodes=RedisCluster.RANDOM)
    states = [info] if "cluster_state" in info else list(info.values())
    return bool(states) and all(state.get("cluster_state") == "ok" for state in states)
