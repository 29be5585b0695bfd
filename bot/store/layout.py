"""The per-game keys' shared pieces: the chat's limit, how long an ended game
is kept, and the Lua that keeps a game's place in its chat's indexes
(:data:`PLACE`) as it is saved (:data:`SAVE_GAME`) or moved from schema 1
(bot/store/schema.py).  The layout itself: bot/store/games.py and
bot/store/keys.py.
"""

from __future__ import annotations

from typing import Any

from bot.vocab.records import COMPUTER_USER_IDS, GameRecord, Status, StoreError

ENDED_TTL = 30 * 24 * 3600
"""An ended game's record (finished, cancelled, or continued by a rematch, the
match's next game or a new lobby) is kept this long after its last change:
/export, /verify and its board's buttons work meanwhile."""
ENDED_KEEP = 20
"""Ended games a chat keeps (for /board, /export, /verify, their boards'
buttons); an older one is deleted (bot/store/games.py ``Games.prune``)."""
DEFAULT_MAX_LIVE = 10
"""Live games (lobbies included) a chat or forum topic may have at once
(``MAX_CHAT_GAMES``, bot/edge/config.py)."""


DEFAULT_BOTS_PER_PERSON = 1
"""Live games against the computer a person may have in a chat or topic
(``COMPUTER_GAMES_PER_PERSON``; bot/rules/computer.py ``PER_PERSON_DEFAULT``)."""


class BotLimit(StoreError):
    """A game against the computer would be one too many for its person here
    (lobbies with the computer seated count: issue 37)."""

    def __init__(self, key: str, count: int) -> None:
        super().__init__(f"{key}: its person plays the computer {count} times here already")
        self.count = count


class GameLimit(StoreError):
    """A new lobby or game would exceed the chat's (or topic's) limit of live games."""

    def __init__(self, key: str, live: int) -> None:
        super().__init__(f"{key} has {live} live games already")
        self.live = live


def topic_of(thread_id: int | None) -> int:
    """The live index's score of a game in ``thread_id`` (0: not in a forum topic)."""
    return thread_id or 0


def placement(record: GameRecord) -> list[Any]:
    """The :data:`PLACE` arguments of a saved record: where and its topic.
    An inline message's lobby is live but expires like an ended game (issue
    21: Join taps with made-up ``inline_message_id`` s stored lobbies that
    never expired); once its game starts it is kept.

    >>> from engine.position import Variant
    >>> placement(GameRecord(chat_id=1, thread_id=7, game_id="abcd", variant=Variant.LONG))
    ['l', 7]
    >>> placement(GameRecord(chat_id=1, game_id="abcd", variant=Variant.LONG,
    ...                      inline_message_id="AgAAAxyz"))
    ['t', 0]
    """
    if record.is_inline and record.status is Status.LOBBY:
        return ["t", topic_of(record.thread_id)]
    return ["l" if record.is_live else "e", topic_of(record.thread_id)]


CURRENT = """
-- The record's stored version `cur` ('0': none), or {0, stored} unless it is
-- ARGV[1].  A hash without `v` (not written by us) reports '?'.  The last ARGV
-- is the write's token, stored as `w`: version ARGV[1] + 1 written with this very
-- token is this write run again (its reply was lost and the client or the store
-- retried it: bot/store/client.py idempotent), {1, cur}: done, not a lost race.
local cur = redis.call('HGET', KEYS[1], 'v')
if not cur then
  if redis.call('EXISTS', KEYS[1]) == 1 then return {0, '?'} end
  cur = '0'
end
if cur ~= ARGV[1] then
  if tonumber(cur) == tonumber(ARGV[1]) + 1
      and redis.call('HGET', KEYS[1], 'w') == ARGV[#ARGV] then
    return {1, cur}
  end
  return {0, cur}
end
"""

PLACE = """
-- A game's place in its chat's indexes, set in the script that saves it.
-- where: 'l' live (no expiry), 't' live but expiring (an inline message's lobby:
-- anyone can make one with a made-up message id), 'e' ended (expires), 'd' deleted.
-- An index expires with the newest record that may still be in it.
local function place(key, live, ended, game_id, where, topic, now, ttl)
  if where == 'l' or where == 't' then
    redis.call('ZADD', live, topic, game_id)
    redis.call('ZREM', ended, game_id)
    if where == 'l' then
      redis.call('PERSIST', key)
      redis.call('PERSIST', live)
    else
      redis.call('EXPIRE', key, tonumber(ttl))
      redis.call('EXPIRE', live, tonumber(ttl))
    end
  elseif where == 'e' then
    redis.call('ZREM', live, game_id)
    redis.call('ZADD', ended, now, game_id)
    redis.call('EXPIRE', key, tonumber(ttl))
    redis.call('EXPIRE', ended, tonumber(ttl))
  else
    redis.call('ZREM', live, game_id)
    redis.call('ZREM', ended, game_id)
  end
  -- every save of a game is told, in the same step, to whoever follows the game
  -- live (the Mini App's open apps, bot/edge/live.py): "<key> <version>" ('0':
  -- deleted) on "<prefix>:changed" (a Redis Cluster passes a PUBLISH to every node)
  redis.call('PUBLISH', string.match(key, '^(.-):{') .. ':changed',
             key .. ' ' .. (redis.call('HGET', key, 'v') or '0'))
end
"""

# KEYS: record, live, ended[, previous record].  ARGV: expected version, JSON ('' deletes),
# game id, where, topic, now, ttl, limit (0: none)[, the previous record's expected
# version, JSON, game id, where, topic], a person and their limit of games against
# the computer (0: none), the ending flag, the write's token (CURRENT).  Returns
# {1, new version}, {0, stored version}, {2, live games of the topic} (a new record over
# the limit), {3, stored version of the previous record} or {5, the person's games
# against the computer} (one too many).  The previous record (a game
# continued by this new one: a rematch, the match's next game, a new lobby on its board)
# is saved in the same step.  A hash
# without `v` (not written by us) is never overwritten: it reports version '?'.
_COMPUTER = sorted(COMPUTER_USER_IDS.values())
SAVE_GAME = PLACE + CURRENT + f"""
local COMPUTER_LOW, COMPUTER_HIGH = {_COMPUTER[0]}, {_COMPUTER[-1]}
""" + """
-- ARGV[#ARGV - 1] '1': the record saved is finished or cancelled.  Over a game
-- still being played that is its end, which only the books' script writes,
-- with the booking (bot/store/ledger.py): {4, cur}, nothing written.  (JSON
-- escapes a quote inside a string, so only the record's own field matches.)
if ARGV[#ARGV - 1] == '1' and cur ~= '0' then
  local stored = redis.call('HGET', KEYS[1], 'd')
  if stored and string.find(stored, '"status":"active"', 1, true) then return {4, cur} end
end
if KEYS[4] then
  local before = redis.call('HGET', KEYS[4], 'v') or '0'
  if before ~= ARGV[9] then return {3, before} end
end
if cur == '0' and tonumber(ARGV[8]) > 0 then
  local n = redis.call('ZCOUNT', KEYS[2], ARGV[5], ARGV[5])
  if n >= tonumber(ARGV[8]) then return {2, n} end
end
-- ARGV[#ARGV - 3], ARGV[#ARGV - 2]: a person and how many live games against
-- the computer they may have in the topic, lobbies with the computer seated
-- included (0: no check): {5, how many} if this record would be one too many.
if tonumber(ARGV[#ARGV - 2]) > 0 then
  local person, n = tonumber(ARGV[#ARGV - 3]), 0
  local prefix = string.sub(KEYS[1], 1, #KEYS[1] - #ARGV[3])
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], ARGV[5], ARGV[5])) do
    local d = id ~= ARGV[3] and redis.call('HGET', prefix .. id, 'd')
    local ok, r = pcall(cjson.decode, d or '')
    if ok and type(r) == 'table' and type(r.players) == 'table' then
      local mine, bot = false, false
      for _, p in ipairs(r.players) do
        if p.user_id == person then mine = true end
        if p.user_id >= COMPUTER_LOW and p.user_id <= COMPUTER_HIGH then bot = true end
      end
      if mine and bot then n = n + 1 end
    end
  end
  if n >= tonumber(ARGV[#ARGV - 2]) then return {5, n} end
end
local new = tonumber(cur) + 1
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
  place(KEYS[1], KEYS[2], KEYS[3], ARGV[3], 'd', ARGV[5], ARGV[6], ARGV[7])
else
  redis.call('HSET', KEYS[1], 'v', new, 'd', ARGV[2], 'w', ARGV[#ARGV])
  place(KEYS[1], KEYS[2], KEYS[3], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7])
end
if KEYS[4] then
  redis.call('HSET', KEYS[4], 'v', tonumber(ARGV[9]) + 1, 'd', ARGV[10], 'w', ARGV[#ARGV])
  place(KEYS[4], KEYS[2], KEYS[3], ARGV[11], ARGV[12], ARGV[13], ARGV[6], ARGV[7])
end
return {1, new}
"""
