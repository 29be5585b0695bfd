"""The bot's one async store API over Redis (redis.asyncio, fakeredis in tests):
:class:`Store`, made of parts, each an object of one module of this package
and named after it: ``store.games.load_game(...)``, ``store.analysis.keep(record)``.

- ``keys`` (:mod:`bot.store.keys`): where everything lives (the key layout);
- ``games`` (:mod:`bot.store.games`): records, one compare-and-set per change, a
  chat's several games and the indexes, the versions the board messages show,
  the "your turn" ping (the shared Lua and limits: :mod:`bot.store.layout`;
  stored games of an older schema: :mod:`bot.store.schema`);
- ``ledger`` (:mod:`bot.store.ledger`): a game's end booked in one script (ledger,
  history, stats, dice counts), their reading, settle requests;
- ``clock`` (:mod:`bot.store.clock`): the deadline queue, its wake-ups claimed
  by one process, the stage markers, the delayed turn pings, the booked ends
  whose follow-ups are pending;
- ``updates`` (:mod:`bot.store.updates`): each update once (markers, the effects journal);
- ``migration`` (:mod:`bot.store.migration`): a chat that became a supergroup;
- ``flood`` (:mod:`bot.store.flood`): the flood limiter's token buckets;
- ``prefs`` (:mod:`bot.store.prefs`): a user's preferences (started, muted, language);
- ``board`` (:mod:`bot.store.board`): which game a board message is, boards behind;
- ``invite`` (:mod:`bot.store.invite`): invitation links;
- ``analysis`` (:mod:`bot.store.analysis`): finished games for their analysis;
- ``inline`` (:mod:`bot.store.inline`): an inline message's game;
- ``played`` (:mod:`bot.store.played`): a player's private and inline games;
- ``tournament`` (:mod:`bot.store.tournament`): tournaments, their prizes and wake-ups;
- ``computer`` (:mod:`bot.store.computer`): each person's standing at ``level=auto``;
- ``replicas`` (:mod:`bot.store.replicas`): a told booking waits for a replica.

One style for every part (docs/architecture.md, "The store"):
``tests/bot/store/test_layers.py`` checks that every part is its module's
object and that no module outside this package touches Redis.
"""

from __future__ import annotations

import asyncio
from typing import Any

from redis.asyncio.cluster import RedisCluster

from bot.store import schema
from bot.store.analysis import Analysis
from bot.store.board import Board
from bot.store.client import RedisClient
from bot.store.clock import Clock
from bot.store.computer import Computer
from bot.store.flood import FloodBuckets
from bot.store.games import Games
from bot.store.inline import Inline
from bot.store.invite import Invites
from bot.store.keys import Keys
from bot.store.layout import DEFAULT_MAX_LIVE
from bot.store.ledger import HISTORY_CAP, Ledger
from bot.store.migration import Migration
from bot.store.played import Played
from bot.store.prefs import Prefs
from bot.store.replicas import Replicas
from bot.store.tournament import Tournaments
from bot.store.updates import Updates
from bot.vocab.records import settings_key


class Store:
    """Everything the bot keeps in Redis, part by part.  See the module doc."""

    def __init__(
        self, redis: RedisClient, prefix: str = "nardy", history_cap: int = HISTORY_CAP,
        max_live: int = DEFAULT_MAX_LIVE,
    ) -> None:
        self.redis = redis
        self.prefix = prefix
        self.history_cap = history_cap
        self.keys = keys = Keys(prefix)
        self.games = games = Games(redis, keys, max_live)
        self.replicas = replicas = Replicas(redis)
        self.clock = clock = Clock(redis, keys, games)
        self.ledger = Ledger(redis, keys, games, history_cap, replicas, clock)
        self.updates = Updates(redis, keys)
        self.migration = migration = Migration(redis, keys, games, clock, history_cap)
        self.flood = FloodBuckets(redis, keys)
        self.prefs = Prefs(redis, keys)
        self.board = Board(redis, keys, games, migration)
        self.invite = Invites(redis, keys)
        self.analysis = Analysis(redis, keys, games)
        self.inline = Inline(games)
        self.played = Played(redis, keys, games)
        self.tournament = Tournaments(redis, keys, games, replicas)
        self.computer = Computer(redis, keys)

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
