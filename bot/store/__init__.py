"""Everything the bot keeps in Redis: :class:`Store`, made of parts.

``from bot.store import Store`` is the way in; each part is the object of
one module of this package and named after it (``store.games``,
``store.ledger``, ``store.clock``, ``store.analysis``, ...: :mod:`bot.store.core`
lists them); beside them the connection, the client's helpers and the one
retry loop (``commit``).  The records it keeps are :mod:`bot.vocab.records`;
a game saved as the rules see it is :mod:`bot.service.saving`.  No module
outside this package touches Redis directly.
"""

from bot.store.client import RedisClient, no_upkeep
from bot.store.core import Store
from bot.store.ledger import Forfeited, PlanChanged, stats_field
from bot.vocab.records import StoreError, UnbookedEnd, VersionConflict

__all__ = [
    "Forfeited",
    "PlanChanged",
    "RedisClient",
    "Store",
    "StoreError",
    "UnbookedEnd",
    "VersionConflict",
    "no_upkeep",
    "stats_field",
]
