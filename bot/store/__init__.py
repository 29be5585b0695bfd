"""Everything the bot keeps in Redis, behind one facade: :class:`Store`.

``from bot.store import Store`` is the way in; the modules of this package
are the parts: the key layout (``keys``), game records and their indexes
(``games``), the books (``books``), the deadline queue (``queue``), update
markers (``updates``), supergroup migration (``migration``), flood buckets
(``flood``), composed by ``core``; beside them records and their codec
(``records``), the connection, user preferences, the private board index,
invitations, deadline wake-ups, and a game saved as the rules see it
(``saving``).  No module outside this package touches Redis directly.
"""

from bot.store.books import PlanChanged, stats_field
from bot.store.client import RedisClient, no_upkeep
from bot.store.core import Store
from bot.store.records import StoreError, VersionConflict

__all__ = [
    "PlanChanged",
    "RedisClient",
    "Store",
    "StoreError",
    "VersionConflict",
    "no_upkeep",
    "stats_field",
]
