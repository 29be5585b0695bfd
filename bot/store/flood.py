"""The flood limiter's token buckets (its policy: bot/edge/limits.py), shared
by every worker: taking a token is one Lua call that *reserves* it.
"""

from __future__ import annotations

from bot.store.client import RedisClient, as_text
from bot.store.keys import Keys

# KEYS: bucket.  ARGV: rate per second, burst, now (seconds), penalty seconds
# (0: take one token).  Returns the seconds to wait before sending, as a string.
_TAKE = """
local rate, burst, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local b = redis.call('HMGET', KEYS[1], 't', 'ts')
local tokens, ts = tonumber(b[1]) or burst, tonumber(b[2]) or now
if now > ts then tokens = math.min(burst, tokens + (now - ts) * rate); ts = now end
local penalty = tonumber(ARGV[4])
if penalty > 0 then tokens = math.min(tokens, -penalty * rate) else tokens = tokens - 1 end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'ts', tostring(ts))
redis.call('EXPIRE', KEYS[1], math.ceil((burst - tokens) / rate) + 1)
if tokens >= 0 or penalty > 0 then return '0' end
return tostring(-tokens / rate)
"""


# KEYS: bucket.  ARGV: rate per second, burst, now, seconds between two warnings.
# Takes a token if there is one ('ok'); else 'warn' once per warning interval,
# 'quiet' otherwise.  Nothing is reserved: ignored input does not dig deeper.
_ADMIT = """
local rate, burst, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local b = redis.call('HMGET', KEYS[1], 't', 'ts', 'w')
local tokens, ts = tonumber(b[1]) or burst, tonumber(b[2]) or now
if now > ts then tokens = math.min(burst, tokens + (now - ts) * rate); ts = now end
local verdict = 'quiet'
if tokens >= 1 then
  tokens = tokens - 1; verdict = 'ok'
elseif now - (tonumber(b[3]) or -1e18) >= tonumber(ARGV[4]) then
  verdict = 'warn'
  redis.call('HSET', KEYS[1], 'w', tostring(now))
end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'ts', tostring(ts))
redis.call('EXPIRE', KEYS[1], math.max(math.ceil((burst - tokens) / rate), tonumber(ARGV[4])) + 1)
return verdict
"""


class FloodBuckets:
    """Token buckets in Redis (a part of :class:`bot.store.Store`)."""

    def __init__(self, redis: RedisClient, keys: Keys | None = None) -> None:
        self.keys = keys or Keys()
        self._take = redis.register_script(_TAKE)
        self._admit = redis.register_script(_ADMIT)

    async def take(self, key: str, rate: float, burst: float, now: float,
                   penalty: float = 0) -> float:
        """Reserve one token of bucket ``key`` (refilled at ``rate`` a second up to
        ``burst``); returns the seconds to wait before sending.  ``penalty``:
        instead, empty the bucket for that many seconds (a 429)."""
        return float(await self._take(keys=[key], args=[rate, burst, now, penalty]))

    async def admit(self, key: str, rate: float, burst: float, now: float,
                    warn_every: float) -> str:
        """Take one token of bucket ``key`` if it has one: ``ok``; else ``warn``
        (at most once per ``warn_every`` seconds) or ``quiet``.  Unlike
        :meth:`take` nothing is reserved: refused input costs nothing later."""
        verdict = await self._admit(keys=[key], args=[rate, burst, now, warn_every])
        return as_text(verdict)
