"""How update markers are stored: a field in a small hash per run of update ids.

A marker used to be a key of its own, ``nardy:update:<id>:<digest>`` (156 bytes
of Redis a tap, kept a day: three quarters of an active game's memory).  Now
the markers of :data:`BUCKET` consecutive update ids share one hash,
``nardy:{update:<id // BUCKET>}:m``, field ``<id % BUCKET>:<digest>``: Redis
keeps a hash this small as one listpack (about 25 bytes an entry,
``hash-max-listpack-entries`` 128 by default), and Telegram's ids run on, so
a bucket fills within minutes and expires a day after its last write.

A field cannot expire by itself (``HEXPIRE`` needs Redis 7.4), so a claim's
lease is written into its value: ``p:<attempt>:<lease end, ms>:<owner>``
(bot/store/updates.py renews it by a heartbeat); a claim whose lease ended is
taken over as the next attempt.  ``f:<n>`` (failed n times) and ``d`` (done) are as before.

Markers written by the code before (``nardy:update:<identity>``) are still
read for :data:`LEGACY_WINDOW` after the first start of this code (a
redelivery after a deploy must still be seen as a duplicate); after that the
old keys have expired and are no longer looked at.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable

from bot.store.client import RedisClient, as_text
from bot.store.keys import Keys

BUCKET = 100
"""Update ids per marker hash (below Redis's listpack limit of 128 entries,
with room for an id that comes twice with different content)."""

LEGACY_WINDOW = 24 * 3600
"""How long after this layout's first start the old marker keys are read too
(their expiry: ``UPDATE_TTL``)."""

# KEYS: the bucket.  ARGV: field, now (ms), lease (ms), owner, bucket TTL, the
# legacy marker's value ('' for none).  Returns {'done'|'in_flight', 0} or
# {'new', attempt}.  An in-flight claim is "p:<attempt>:<until ms>:<owner>"; one
# whose time ran out (its worker died or hangs) is taken over as the next
# attempt, so the retry reads the journal the first attempt kept; the same
# owner claiming again (a retry of a claim whose reply was lost) gets its own
# claim back.  "p:<n>" (no time: an older worker's claim, in an old-layout
# key) lives by that key's expiry.
_CLAIM = """
local v = redis.call('HGET', KEYS[1], ARGV[1]) or ARGV[6]
if v == 'd' or v == '1' then return {'done', 0} end
local n = 1
if string.sub(v, 1, 2) == 'p:' then
  local attempt, untl, owner = string.match(v, '^p:(%d+):(%d+):?(.*)$')
  if owner ~= nil and owner ~= '' and owner == ARGV[4] then return {'new', tonumber(attempt)} end
  if not untl or tonumber(untl) > tonumber(ARGV[2]) then return {'in_flight', 0} end
  n = tonumber(attempt) + 1
elseif string.sub(v, 1, 2) == 'f:' then
  n = tonumber(string.sub(v, 3)) + 1
end
redis.call('HSET', KEYS[1], ARGV[1],
           'p:' .. n .. ':' .. (tonumber(ARGV[2]) + tonumber(ARGV[3])) .. ':' .. ARGV[4])
if redis.call('TTL', KEYS[1]) < tonumber(ARGV[5]) then
  redis.call('EXPIRE', KEYS[1], ARGV[5])
end
return {'new', n}
"""

# KEYS: the bucket.  ARGV: field, attempt, owner, now (ms), lease (ms).  Returns 1
# if the claim is still this owner's (renewed), else 0 (settled, or taken over
# after it ran out).
_RENEW = """
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return 0 end
local attempt, owner = string.match(v, '^p:(%d+):%d+:(.*)$')
if attempt ~= ARGV[2] or owner ~= ARGV[3] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1],
           'p:' .. attempt .. ':' .. (tonumber(ARGV[4]) + tonumber(ARGV[5])) .. ':' .. owner)
return 1
"""

# KEYS: the bucket, its journals.  ARGV: field, value, TTL (never shortens the
# bucket's), the TTL of a bucket whose updates are all done.  Done ('d'): the
# update's journal (its entries in the journals' hash, named '<field>|<entry>')
# is deleted too: nobody will read it; and once every marker of the bucket is
# done (none claimed or failed: their updates may still come again for a day)
# the bucket lives only the last ARGV[4] seconds (a done update is acknowledged
# and is not delivered again but for a reply lost on the way: issue 37, a day
# of every tap's marker was ~58 GB at 100 000 games).
_SETTLE = """
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if redis.call('TTL', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('EXPIRE', KEYS[1], ARGV[3])
end
if ARGV[2] == 'd' then
  local prefix = ARGV[1] .. '|'
  for _, name in ipairs(redis.call('HKEYS', KEYS[2])) do
    if string.sub(name, 1, #prefix) == prefix then redis.call('HDEL', KEYS[2], name) end
  end
  local short = tonumber(ARGV[4] or '0')
  if short > 0 and redis.call('TTL', KEYS[1]) > short then
    for _, v in ipairs(redis.call('HVALS', KEYS[1])) do
      if v ~= 'd' and v ~= '1' then return 1 end
    end
    redis.call('EXPIRE', KEYS[1], short)
  end
end
return 1
"""


def journal_of(keys: Keys, update: int | str) -> tuple[str, str]:
    """The hash that holds an update's journal of side effects (bot/edge/effects.py)
    and the prefix of its entries' names: beside the update's marker, in its
    slot, so that settling the update done deletes its journal in the same step.

    >>> journal_of(Keys(), "123456:0badc0ffee")
    ('nardy:{update:1234}:fx', '56:0badc0ffee|')
    """
    bucket, field = locate(keys, update)
    return f"{bucket.removesuffix(':m')}:fx", f"{field}|"


def locate(keys: Keys, update: int | str) -> tuple[str, str]:
    """The hash and field of an update's marker, by its identity ``<id>[:<digest>]``
    (an identity that does not start with a number is placed by its CRC).

    >>> locate(Keys(), "123456:0badc0ffee")
    ('nardy:{update:1234}:m', '56:0badc0ffee')
    >>> locate(Keys(), 7)
    ('nardy:{update:0}:m', '7')
    """
    head, sep, digest = str(update).partition(":")
    number = int(head) if head.isdigit() else zlib.crc32(head.encode())
    return (f"{keys.prefix}:{{update:{number // BUCKET}}}:m",
            f"{number % BUCKET}{sep}{digest}")


class Markers:
    """Claim and settle update markers (for :class:`bot.store.updates.Updates`)."""

    def __init__(self, redis: RedisClient, keys: Keys,
                 clock: Callable[[], float] = time.time) -> None:
        self.redis = redis
        self.keys = keys
        self.clock = clock
        self._claim = redis.register_script(_CLAIM)
        self._settle = redis.register_script(_SETTLE)
        self._renew = redis.register_script(_RENEW)
        self._legacy_until: float | None = None

    async def claim(self, update: int | str, now_ms: int, lease_ms: int, owner: str,
                    ttl: int) -> tuple[str, int]:
        key, field = locate(self.keys, update)
        legacy = await self._legacy(update)
        state, attempt = await self._claim(
            keys=[key], args=[field, now_ms, lease_ms, owner, ttl, legacy])
        return as_text(state), int(attempt)

    async def settle(self, update: int | str, value: str, ttl: int, done_ttl: int = 0) -> None:
        """Mark the update ``value`` (``d``: done, its journal deleted; ``f:<n>``);
        ``done_ttl``: how long a bucket all of whose updates are done is kept (0:
        as long as ``ttl``)."""
        key, field = locate(self.keys, update)
        await self._settle(keys=[key, journal_of(self.keys, update)[0]],
                           args=[field, value, ttl, done_ttl])

    async def renew(self, update: int | str, attempt: int, owner: str, now_ms: int,
                    lease_ms: int) -> bool:
        """Extend a claim's lease to ``lease_ms`` from ``now_ms`` (a heartbeat of the
        worker handling it); False if that attempt no longer holds the claim."""
        key, field = locate(self.keys, update)
        return bool(await self._renew(keys=[key], args=[field, attempt, owner, now_ms,
                                                        lease_ms]))

    async def legacy_window(self) -> bool:
        """Whether workers of an older release may still run beside this one: the
        first :data:`LEGACY_WINDOW` after this layout's first start."""
        if self._legacy_until is None:
            mark = f"{self.keys.prefix}:update:legacy-until"
            await self.redis.set(mark, self.clock() + LEGACY_WINDOW, nx=True,
                                 ex=2 * LEGACY_WINDOW)
            self._legacy_until = float(as_text(await self.redis.get(mark) or 0))
        return self.clock() < self._legacy_until

    async def _legacy(self, update: int | str) -> str:
        """The old layout's marker of the update, while such markers may exist."""
        if not await self.legacy_window():
            return ""
        return as_text(await self.redis.get(self.keys.update(update)) or "")
