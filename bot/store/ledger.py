"""The ledger of a chat (``store.ledger``): a game's end booked in one script (ledger, history,
stats, dice counts), the ledger and history read back, and settle requests.
"""

from __future__ import annotations

import asyncio
import functools
import random
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from bot.store.client import RedisClient, as_text, idempotent
from bot.store.clock import Clock
from bot.store.games import Games
from bot.store.keys import Keys
from bot.store.layout import ENDED_TTL, PLACE, placement
from bot.store.replicas import Replicas
from bot.vocab import clock
from bot.vocab.records import (
    CorruptRecordError,
    GameRecord,
    HistoryEntry,
    PlayerStats,
    SettleRequest,
    Status,
    StoreError,
    VersionConflict,
    decode,
    encode,
    planned_payment,
    versus_computer,
    write_token,
)
from bot.vocab.tournament import LeagueLines
from engine.dicestats import DiceStats
from engine.position import Variant

HISTORY_CAP = 200


BOOKED_CAP = 10_000  # game ids remembered per chat against double booking


SETTLE_TTL = 24 * 3600  # an unanswered /settle request expires


StatsUpdate = Callable[[Mapping[int, PlayerStats | None]], Iterable[PlayerStats]]
"""Pure: the players' stats in the game's variant (by user id) -> the new ones."""

LeagueUpdate = Callable[[HistoryEntry], LeagueLines | None]
"""Pure: the history line as booked -> what it adds to the league's tables
(bot/rules/tournament/league.py ``league_lines``)."""


# KEYS: game, ledger, history, booked, stats, dice, live, ended, the league's meta
# hash, the result's month table, the running named season's table (the month's
# again when none runs), the chat's tournament match map (bot/store/tournament.py
# ``:tmatch``).  ARGV: expected, JSON, where (bot/store/layout.py PLACE),
# game id, history JSON, history cap, booked cap, now, #ledger pairs, #stats,
# #dice, topic, ended TTL, the write's token (stored as the record's `w`, as every
# write of it: bot/vocab/records.py write_token), #league lines, the named season
# read running ('' none), when the month table expires, the match commitment of a
# finished game ('' for a cancelled one or none), then ledger field/delta
# pairs, then league lines (user id, name, points, games, wins, rating change in
# thousandths: bot/vocab/tournament.py Tally), then dice (field, the 21 roll counts
# to add, comma separated: engine/dicestats.py), then stats (field, JSON read
# before or '', new JSON).  Returns {1, new version}, {0, stored version}, {2,
# stored version} (booked before) or {3, stored version} (a player's stats, or the
# running named season, changed since read) or {4, stored version} (its match's
# pairing was decided by forfeit: nothing written).  The league's `n` counts the history
# lines pushed since the tables were kept: older lines are not in them.
_FINISH = PLACE + """
local cur = redis.call('HGET', KEYS[1], 'v') or '0'
if redis.call('ZSCORE', KEYS[4], ARGV[4]) then return {2, cur} end
if cur ~= ARGV[1] then return {0, cur} end
-- a tournament's forfeit marks its match ('!' before the tournament id) in the
-- same write that decides it: no result of that match is booked after it
if ARGV[18] ~= '' and string.sub(redis.call('HGET', KEYS[12], ARGV[18]) or '', 1, 1) == '!' then
  return {4, cur}
end
if (redis.call('HGET', KEYS[9], 'season') or '') ~= ARGV[16] then return {3, cur} end
local l = 19 + 2 * tonumber(ARGV[9])
local d = l + 6 * tonumber(ARGV[15])
local s = d + 2 * tonumber(ARGV[11])
for i = s, #ARGV, 3 do
  if (redis.call('HGET', KEYS[5], ARGV[i]) or '') ~= ARGV[i + 1] then return {3, cur} end
end
local new = tonumber(cur) + 1
redis.call('HSET', KEYS[1], 'v', new, 'd', ARGV[2], 'w', ARGV[14])
place(KEYS[1], KEYS[7], KEYS[8], ARGV[4], ARGV[3], ARGV[12], ARGV[8], ARGV[13])
for i = 19, l - 1, 2 do redis.call('HINCRBY', KEYS[2], ARGV[i], ARGV[i + 1]) end
local tables = {KEYS[10]}
if ARGV[16] ~= '' then tables[2] = KEYS[11] end
for i = l, d - 1, 6 do
  for _, t in ipairs(tables) do
    redis.call('HSET', t, 'n:' .. ARGV[i], ARGV[i + 1])
    redis.call('HINCRBY', t, 'p:' .. ARGV[i], ARGV[i + 2])
    redis.call('HINCRBY', t, 'g:' .. ARGV[i], ARGV[i + 3])
    redis.call('HINCRBY', t, 'w:' .. ARGV[i], ARGV[i + 4])
    redis.call('HINCRBY', t, 'r:' .. ARGV[i], ARGV[i + 5])
  end
end
if l < d then
  redis.call('EXPIREAT', KEYS[10], ARGV[17])
  redis.call('HSET', KEYS[9], 'm:' .. string.match(KEYS[10], ':league:m:(.*)$'), ARGV[17])
end
redis.call('HINCRBY', KEYS[9], 'n', 1)
for i = d, s - 1, 2 do
  local had = {}
  for n in string.gmatch(redis.call('HGET', KEYS[6], ARGV[i]) or '', '%d+') do
    had[#had + 1] = tonumber(n)
  end
  local sum, j = {}, 0
  for n in string.gmatch(ARGV[i + 1], '%d+') do
    j = j + 1
    sum[j] = string.format('%d', (had[j] or 0) + tonumber(n))
  end
  redis.call('HSET', KEYS[6], ARGV[i], table.concat(sum, ','))
end
for i = s, #ARGV, 3 do redis.call('HSET', KEYS[5], ARGV[i], ARGV[i + 2]) end
redis.call('LPUSH', KEYS[3], ARGV[5])
redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[6]) - 1)
redis.call('ZADD', KEYS[4], ARGV[8], ARGV[4])
redis.call('ZREMRANGEBYRANK', KEYS[4], 0, -tonumber(ARGV[7]) - 1)
return {1, new}
"""


# KEYS: settle request, ledger.  ARGV: the request JSON read before, its new JSON
# ('' deletes it), ledger field ('' for none), the balance expected there, the
# balance it becomes, then for a payment of the settle-up plan its debtor, creditor
# and amount ('' for none).  Returns {1}, {0} (the request changed or expired),
# {2, balance} (the balance changed; nothing written) or {3} (the payment is no
# longer one the plan allows, the ledger as it is now: the debtor's net must
# still owe and the creditor's still be owed at least the amount, as
# bot/rules/settle.py still_planned says; the request is dropped).
_SETTLE = """
if (redis.call('GET', KEYS[1]) or '') ~= ARGV[1] then return {0} end
if ARGV[3] ~= '' then
  local bal = redis.call('HGET', KEYS[2], ARGV[3]) or '0'
  if bal ~= ARGV[4] then return {2, bal} end
  if (ARGV[8] or '') ~= '' then
    local owes, owed, flat = 0, 0, redis.call('HGETALL', KEYS[2])
    for i = 1, #flat, 2 do
      local low, high = string.match(flat[i], '^(-?%d+):(-?%d+)$')
      local v = tonumber(flat[i + 1])
      if low == ARGV[6] then owes = owes - v elseif high == ARGV[6] then owes = owes + v end
      if low == ARGV[7] then owed = owed + v elseif high == ARGV[7] then owed = owed - v end
    end
    local amount = tonumber(ARGV[8])
    if owes < amount or owed < amount then
      redis.call('DEL', KEYS[1])
      return {3}
    end
  end
  if ARGV[5] == '0' then redis.call('HDEL', KEYS[2], ARGV[3])
  else redis.call('HSET', KEYS[2], ARGV[3], ARGV[5]) end
end
if ARGV[2] == '' then redis.call('DEL', KEYS[1])
else redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') end
return {1}
"""


class Forfeited(StoreError):
    """A game's end was not booked: its tournament decided its match by
    forfeit (a withdrawal) before it; nothing was written."""


class PlanChanged(StoreError):
    """A planned payment's request is outdated: the ledger no longer owes it
    (another request booked it, or a game changed the nets).  The request is gone."""


@dataclass(frozen=True)
class FinishResult:
    """What `finish_game` did: booked now (`booked`), or found it booked before."""

    record: GameRecord
    booked: bool


def ledger_field(a: int, b: int) -> tuple[str, int]:
    """The ledger field of a pair and the sign that turns it into a's balance.

    >>> ledger_field(7, 3), ledger_field(3, 7)
    (('3:7', -1), ('3:7', 1))
    """
    if a == b:
        raise ValueError("a ledger pair needs two different users")
    low, high = sorted((a, b))
    return f"{low}:{high}", 1 if a == low else -1


def ledger_pairs(ledger: Mapping[tuple[int, int], int] | None) -> list[Any]:
    """A booking's ledger changes, ``(winner, loser) -> what the loser pays``,
    as a script's (field, amount for the low id) arguments.

    >>> ledger_pairs({(7, 3): 5})
    ['3:7', -5]
    """
    pairs: list[Any] = []
    for (winner, loser), amount in (ledger or {}).items():
        field, sign = ledger_field(winner, loser)
        pairs += [field, sign * amount]
    return pairs


def stats_field(variant: Variant, user_id: int, versus: str = "") -> str:
    """The field of a player's stats in the chat's `stats` hash (``versus``:
    their games against the computer, kept apart).

    >>> stats_field(Variant.LONG, 42), stats_field(Variant.LONG, 42, "bot-easy")
    ('long:42', 'long:bot-easy:42')
    """
    return f"{variant.value}:{versus}:{user_id}" if versus else f"{variant.value}:{user_id}"


START_RATING: float = PlayerStats.model_fields["rating"].default
"""The rating of a player with no stats yet."""


class Ledger:
    """Book a game's end, read the ledger, history and stats, settle balances
    (a part of :class:`bot.store.Store`)."""

    def __init__(self, redis: RedisClient, keys: Keys, games: Games,
                 history_cap: int = HISTORY_CAP, replicas: Replicas | None = None,
                 ends: Clock | None = None) -> None:
        self.redis = redis
        self.replicas = replicas or Replicas(redis)
        self.ends = ends or Clock(redis, keys, games)
        self.keys = keys
        self.games = games
        self.history_cap = history_cap
        self._finish = redis.register_script(_FINISH)
        self._settle = redis.register_script(_SETTLE)

    async def finish_game(
        self,
        record: GameRecord,
        expected_version: int,
        history: HistoryEntry,
        ledger: Mapping[tuple[int, int], int] | None = None,
        stats: StatsUpdate | None = None,
        retries: int = 30,
        dice: Mapping[tuple[Variant, int], DiceStats] | None = None,
        league: LeagueUpdate | None = None,
        match: str | None = None,
    ) -> FinishResult:
        """End a game: CAS the record, book the ledger, push history - atomically.

        `ledger` maps (winner id, loser id) to the amount the loser pays.
        `stats` (pure) gets the players' current `PlayerStats` in the game's
        variant (None if they have none) and returns the new ones; they are
        written in the same script, which re-checks that they did not change
        since read (another topic's game may end at the same moment: then
        they are read again, up to `retries` times).  Idempotent by
        game id: if this game was booked before, nothing is written and the
        stored record comes back with `booked=False` (a retried final tap).
        `dice` maps (variant, user id) to the rolls the player threw in
        this game: added to their dice statistics in the same script.
        `league` (pure) gets the history line as it is booked (with its rating
        changes) and says what it adds to the chat's league tables: its month's,
        and the named season's running at the moment of the script (read with
        the stats and re-checked by the script, like them), so a result counts
        once in each, with its booking (bot/store/tournament.py ``Leagues``).
        `match` (the dice commitment of a tournament game's match): a finished
        game of a match its tournament decided by forfeit is refused in the
        script (:class:`Forfeited`), so a resignation accepted between a
        withdrawal's save and its game's close books nothing.
        Before the script the game goes into the pending ends
        (bot/store/clock.py ``Clock.ending``): if what follows the booking is
        never done (the worker died), the clock's sweep does it.
        Raises `VersionConflict` if the game changed since `expected_version`.
        """
        if record.status not in (Status.FINISHED, Status.CANCELLED):
            raise ValueError(f"finish_game needs a finished or cancelled game, not {record.status}")
        if history.game_id != record.game_id:
            raise ValueError("history entry is for another game")
        chat = record.chat_id
        pairs = ledger_pairs(ledger)
        rolls: list[Any] = []
        for (variant, user_id), counted in (dice or {}).items():
            if counted.rolls:
                rolls += [stats_field(variant, user_id), counted.to_text()]
        names = ("ledger", "history", "booked", "stats", "dice", "live", "ended", "league")
        keys = [self.keys.record(record.key)] + [self.keys.chat(chat, name) for name in names]
        where, topic = placement(record)
        # the update's own token: its retry tells the end it booked from another's
        token = write_token()
        for attempt in range(retries + 1):
            triples, changes, season = await self._stats_args(record, stats)
            entry = history if changes is None else history.model_copy(
                update={"rating_changes": changes})
            lines = None if league is None else league(entry)
            month, kept, rows = self._league_args(chat, entry, lines)
            tables = [month, self.keys.league_season(chat, season) if season else month,
                      self.keys.chat(chat, "tmatch")]
            args = [
                expected_version, encode(record), where, record.game_id,
                encode(entry), self.history_cap, BOOKED_CAP, time.time(), len(pairs) // 2,
                len(triples) // 3, len(rolls) // 2, topic, ENDED_TTL, token,
                len(rows) // 6, season, kept,
                (match or "") if record.status is Status.FINISHED else "",
                *pairs, *rows, *rolls, *triples,
            ]  # fmt: skip
            # a repeat (its reply lost) finds the game booked
            code, version = await idempotent(functools.partial(
                self._finish, keys=keys + tables, args=args))
            if code != 3:
                break
            if attempt == retries:
                raise VersionConflict(keys[4], expected_version, "stats or season changed")
            await asyncio.sleep(random.uniform(0, min(0.05, 0.0005 * 2**attempt)))
        if code == 0:
            raise VersionConflict(keys[0], expected_version, as_text(version))
        if code == 4:
            raise Forfeited(f"{keys[0]}: its match was decided by forfeit")
        # told ended: kept if this master dies now, and so is the pending end
        # (written first, bot/store/clock.py) that follows it up if this worker dies
        await self.replicas.confirm_each(keys[0], self.keys.ends_shard(record.ref)[0])
        if code == 2:
            stored = await self.games.load(record.key)
            return FinishResult(stored or record, booked=False)
        saved = record.model_copy(update={"version": int(version)})
        await self.games.index(saved)
        return FinishResult(saved, booked=True)

    def _league_args(self, chat_id: int, entry: HistoryEntry, lines: LeagueLines | None
                     ) -> tuple[str, int, list[Any]]:
        """The month table's key, when it expires, and (user id, name, points,
        games, wins, rating change) of each line, flat; the meta key, 0 and []
        for a result that counts in no table."""
        if lines is None or not lines.lines:
            return self.keys.chat(chat_id, "league"), 0, []
        names = {p.user_id: p.name for p in entry.players}
        rows: list[Any] = []
        for user_id, tally in sorted(lines.lines.items()):
            rows += [user_id, names.get(user_id, ""), *tally]
        return self.keys.league_month(chat_id, lines.month), lines.kept_until, rows

    async def _stats_args(self, record: GameRecord, stats: StatsUpdate | None
                          ) -> tuple[list[str], tuple[float, float] | None, str]:
        """(field, JSON as read or '', new JSON) for each player `stats` changes,
        what their ratings moved by, in the order of the record's players
        (None when no rating moved: unrated, or against the computer), and the
        id of the chat's running named season ('' none), read in one round trip
        that also puts the game in the pending ends."""
        pipe = self.redis.pipeline(transaction=False)
        # the end goes into the pending ends first (bot/store/clock.py ``ending``)
        self.ends.ending(pipe, record.ref, clock.now())
        pipe.hget(self.keys.chat(record.chat_id, "league"), "season")
        name = self.keys.chat(record.chat_id, "stats")
        ids = [player.user_id for player in record.players]
        fields = [stats_field(record.variant, uid, versus_computer(record.players, uid))
                  for uid in ids]
        if stats is not None and fields:
            pipe.hmget(name, fields)
        _, read_season, *read_stats = await pipe.execute()
        season = "" if read_season is None else as_text(read_season)
        if stats is None or not record.players:
            return [], None, season
        raws = [None if raw is None else as_text(raw) for raw in read_stats[0]]
        current = {
            uid: None if raw is None else decode(PlayerStats, f"{name}[{field}]", raw)
            for uid, field, raw in zip(ids, fields, raws, strict=True)
        }
        read = dict(zip(fields, raws, strict=True))
        out: list[str] = []
        moved: dict[int, float] = {}
        for new in stats(current):
            field = stats_field(new.variant, new.user_id, new.versus)
            if field not in read:
                raise ValueError(f"stats of {field} are not this game's players'")
            out += [field, read[field] or "", encode(new)]
            old = current.get(new.user_id)
            if new.matches != (old.matches if old is not None else 0):  # rated now
                before = old.rating if old is not None else START_RATING
                moved[new.user_id] = new.rating - before
        if len(moved) != len(ids):
            return out, None, season
        first, second = (moved[uid] for uid in ids)
        return out, (first, second), season

    async def dice_stats(self, chat_id: int, variant: Variant | None, user_id: int) -> DiceStats:
        """The rolls a player threw in the chat's finished games, in one variant or all."""
        name = self.keys.chat(chat_id, "dice")
        variants = [variant] if variant is not None else list(Variant)
        total = DiceStats()
        for raw in await self.redis.hmget(name, [stats_field(v, user_id) for v in variants]):
            if raw is not None:
                try:
                    total = total.merged(DiceStats.parse(as_text(raw)))
                except ValueError:
                    raise CorruptRecordError(f"{name}[{user_id}]", "not 21 roll counts") from None
        return total

    async def player_stats(self, chat_id: int) -> list[PlayerStats]:
        """Every player's stats in the chat, all variants."""
        name = self.keys.chat(chat_id, "stats")
        raw = await self.redis.hgetall(name)
        return [decode(PlayerStats, f"{name}[{as_text(field)}]", value)
                for field, value in sorted(raw.items())]


    async def put_settle(self, request: SettleRequest, ttl: int = SETTLE_TTL) -> None:
        """Store a new settle request (it expires after `ttl` seconds)."""
        key = self.keys.settle(request.chat_id, request.request_id)
        await self.redis.set(key, encode(request), ex=ttl, nx=True)

    async def load_settle(self, chat_id: int, request_id: str) -> SettleRequest | None:
        key = self.keys.settle(chat_id, request_id)
        raw = await self.redis.get(key)
        return None if raw is None else decode(SettleRequest, key, raw)

    async def change_settle(self, old: SettleRequest, new: SettleRequest | None) -> bool:
        """Replace (or with None drop) a request if it is still `old`; False if not."""
        code, *_ = await self._settle(
            keys=[self.keys.settle(old.chat_id, old.request_id), self.keys.chat(old.chat_id,
                                                                              "ledger")],
            args=[encode(old), "" if new is None else encode(new), "", 0])
        return bool(code)

    async def settle(self, request: SettleRequest) -> int | None:
        """Zero the balance of the request's pair if it is still `request.amount`
        (a planned transfer, `request.change` set: add that to it instead).

        One script: the request must be unchanged (not answered or expired)
        and the balance exactly the one the other player confirms; a planned
        payment must also still be one the plan allows on the ledger as it is
        at that moment (the debtor still owes, the creditor is still owed at
        least the amount, net), so a payment planned from an older ledger
        cannot be booked twice.  Returns None when settled (the request is
        gone), else the current balance (what `other` owes the requester) and
        nothing changed.  Raises `PlanChanged` (the request is dropped) for an
        outdated planned payment, `StoreError` if the request was answered or
        expired.
        """
        if request.other is None:
            raise ValueError("the request names nobody to settle with")
        field, sign = ledger_field(request.requester, request.other)
        planned: list[Any] = []
        if request.change:
            planned = list(planned_payment(request.requester, request.other, request.change))
        code, *rest = await self._settle(
            keys=[self.keys.settle(request.chat_id, request.request_id),
                  self.keys.chat(request.chat_id, "ledger")],
            args=[encode(request), "", field, sign * request.amount,
                  sign * (request.amount + request.change) if request.change else 0,
                  *planned])
        if code == 0:
            raise StoreError("the settle request was answered or expired")
        if code == 3:
            raise PlanChanged("the planned payment is no longer owed")
        if code == 2:
            return sign * int(rest[0])
        await self.replicas.confirm(self.keys.chat(request.chat_id, "ledger"))  # told settled
        return None

    async def ledger(self, chat_id: int) -> dict[tuple[int, int], int]:
        """Every non-zero balance of the chat: (a, b) with a < b -> what b owes a."""
        raw = await self.redis.hgetall(self.keys.chat(chat_id, "ledger"))
        out = {}
        for field, value in raw.items():
            low, high = map(int, as_text(field).split(":"))
            if int(value):
                out[(low, high)] = int(value)
        return out

    async def balance(self, chat_id: int, a: int, b: int) -> int:
        """What b owes a in this chat (negative: a owes b)."""
        field, sign = ledger_field(a, b)
        value = await self.redis.hget(self.keys.chat(chat_id, "ledger"), field)
        return sign * int(value or 0)

    async def history(self, chat_id: int, limit: int = HISTORY_CAP) -> list[HistoryEntry]:
        """The chat's finished games, newest first."""
        name = self.keys.chat(chat_id, "history")
        raws = await self.redis.lrange(name, 0, limit - 1)
        return [decode(HistoryEntry, f"{name}[{i}]", raw) for i, raw in enumerate(raws)]
