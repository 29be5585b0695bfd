"""Everything the bot keeps in Redis, behind one facade: :class:`Store`.

``from bot.store import Store`` is the way in; the modules of this package
are the parts (records and their codec, the connection, user preferences,
private board index, invitations, deadline wake-ups).  No module outside
this package touches Redis directly.
"""

from bot.store.core import (
    RedisClient,
    Store,
    StoreError,
    VersionConflict,
    no_upkeep,
    stats_field,
)

__all__ = [
    "RedisClient",
    "Store",
    "StoreError",
    "VersionConflict",
    "no_upkeep",
    "stats_field",
]
