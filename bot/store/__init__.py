"""Everything the bot keeps in Redis, behind one facade: :class:`Store`.

``from bot.store import Store`` is the way in; the modules of this package
are the parts: the key layout (``keys``), game records and their indexes
(``games``), the books (``books``), the deadline queue (``queue``), update
markers (``updates``), supergroup migration (``migration``), flood buckets
(``flood``), composed by ``core``; beside them the connection, user
preferences, the private board index, invitations and deadline wake-ups.
The records it keeps are :mod:`bot.vocab.records`; a game saved as the
rules see it is :mod:`bot.service.saving`.  No module outside this package
touches Redis directly.
"""

from bot.store.books import PlanChanged, stats_field
from bot.store.client import RedisClient, no_upkeep
from bot.store.core import Store
from bot.vocab.records import StoreError, UnbookedEnd, VersionConflict

__all__ = [
    "PlanChanged",
    "RedisClient",
    "Store",
    "StoreError",
    "UnbookedEnd",
    "VersionConflict",
    "no_upkeep",
    "stats_field",
]
