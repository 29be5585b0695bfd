"""The flood limiter's sliding windows (its policy: bot/edge/limits.py), shared
by every worker: reserving a message's time is one Lua call; and the input
limit's token buckets (bot/edge/handlers/pace.py).
"""

from __future__ import annotations

from bot.store.client import RedisClient, as_text
from bot.store.keys import Keys

# KEYS: a window's log (a sorted set: a reservation -> the time its message
# may go).  ARGV: limit, window seconds, now, not before (seconds), the
# reservation's name, penalty seconds (0: reserve one message).
# Books the earliest t >= not-before at which one more message keeps every
# `window` seconds (x - window, x] within `limit`: those holding t are the
# ones ending in [t, t + window), whose counts peak at t or at an entry in
# (t, t + window); t fits once a window's worth of entries has left, so the
# candidates are not-before and each entry + window.  A penalty (a 429)
# instead holds every message back until now + penalty (the member '!').
# Returns the seconds to wait before sending, as a string.
_RESERVE = """
local limit, window, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local start, penalty = tonumber(ARGV[4]), tonumber(ARGV[6])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local held_until = tonumber(redis.call('ZSCORE', KEYS[1], '!')) or now
local at = math.max(start, held_until)
if penalty > 0 then
  redis.call('ZADD', KEYS[1], math.max(held_until, now + penalty), '!')
else
  local raw = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
  local s = {}
  for i = 2, #raw, 2 do
    if raw[i - 1] ~= '!' then s[#s + 1] = tonumber(raw[i]) end
  end
  start = at
  local function count(x)
    local c = 0
    for _, v in ipairs(s) do
      if v > x - window and v <= x then c = c + 1 end
    end
    return c
  end
  local held = {}
  for i, v in ipairs(s) do held[i] = count(v) end
  local function fits(t)
    if count(t) >= limit then return false end
    for i, v in ipairs(s) do
      if v > t and v < t + window and held[i] >= limit then return false end
    end
    return true
  end
  if not fits(at) then
    for _, v in ipairs(s) do
      if v + window > start and fits(v + window) then at = v + window; break end
    end
  end
  redis.call('ZADD', KEYS[1], at, ARGV[5])
end
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(last[2]) - now + window) + 1)
if penalty > 0 then return '0' end
return tostring(at - now)
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
    """Sliding windows and token buckets in Redis (a part of :class:`bot.store.Store`)."""

    def __init__(self, redis: RedisClient, keys: Keys | None = None) -> None:
        self.keys = keys or Keys()
        self._redis = redis
        self._reserve = redis.register_script(_RESERVE)
        self._admit = redis.register_script(_ADMIT)

    async def reserve(self, key: str, limit: int, window: float, now: float, name: str, *,
                      not_before: float | None = None, penalty: float = 0) -> float:
        """Reserve, under ``name``, the earliest time from ``not_before`` (default
        ``now``) at which one more message keeps the log ``key`` within ``limit``
        messages in any ``window`` seconds; returns the seconds from ``now`` to
        wait.  ``penalty``: instead, nothing more for that many seconds (a 429)."""
        start = now if not_before is None else max(now, not_before)
        return float(await self._reserve(
            keys=[key], args=[limit, window, now, start, name, penalty]))

    async def release(self, key: str, name: str) -> None:
        """Give back a reservation whose message was not sent (its caller gave up)."""
        await self._redis.zrem(key, name)

    async def settle(self, key: str, name: str, at: float) -> None:
        """The message reserved under ``name`` came back at ``at``: its entry
        moves there (never earlier; not at all if it left the log), so the
        window counts it until ``at`` + window: the server saw it no later
        than ``at``, however late after its reserved time that was.  One
        ZADD (XX GT) per message."""
        await self._redis.zadd(key, {name: at}, xx=True, gt=True)

    async def admit(self, key: str, rate: float, burst: float, now: float,
                    warn_every: float) -> str:
        """Take one token of bucket ``key`` if it has one: ``ok``; else ``warn``
        (at most once per ``warn_every`` seconds) or ``quiet``.  Unlike
        :meth:`take` nothing is reserved: refused input costs nothing later."""
        verdict = await self._admit(keys=[key], args=[rate, burst, now, warn_every])
        return as_text(verdict)
