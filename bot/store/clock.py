"""The clock in the store: when each game with a running clock wakes up next,
claimed by one process at a time, and what a claimed wake-up does (the
deadline queue, its stage markers, the delayed turn pings).

The queue is :data:`bot.store.keys.SHARDS` pairs of sorted sets (due,
processing), a pair by chat in one hash slot, so the claiming script stays
on one slot and saves spread over a cluster's nodes; a claim goes round the
shards (the old unsharded pair is first moved in: bot/store/shards.py).

Every game with a running clock has one entry in the store's wake-up set
(``nardy:{deadlines:<shard>}:due``, sorted sets by time): each save puts it at the
deadline's first event (:func:`bot.vocab.clock.first_wake`).  Every process runs
:meth:`Clock.tick` every few seconds (a PTB repeating job; nothing lives in
process memory between ticks):

1. ``claim_due`` atomically moves the due entries to ``processing`` with a
   lease, so each is handed to one process; if that process dies, the lease
   runs out and the entry is handed out again.
2. For each, :meth:`Clock.wake` reads the game record (the truth: the entry is a
   hint), works out the stage that is due (:func:`bot.vocab.clock.due_stage`) and
   advances the deadline's *stage marker* (``nardy:{deadlines}:stage:<ref>``,
   ``<game id>:<deadline>:<stage>``) by compare-and-set.  Only the process
   whose compare-and-set wins acts (sends the reminder or the timeout
   offer), so even a wake-up delivered twice (a save re-adding the entry
   while it was claimed, an expired lease) acts once.  If acting fails, the
   marker is set back and the entry is not acked: it is retried after its
   lease.
3. The next stage's time is scheduled (never later than an entry a
   concurrent save just wrote), and the claim acked.

A new deadline (a move, more time, a resume) has a new marker value, so its
stages start from the beginning by themselves.

**Delayed turn pings** ride the same machinery: a change that makes a game wait
for a player who has not started the bot queues a "your turn" ping for the
record's version (``nardy:{deadlines}:pings``, due a while later,
``TURN_PING_DELAY``); :meth:`Clock.ping_tick` claims the due ones with the same lease
and sends each only if the game is still at that version, i.e. nobody acted
meanwhile (a live game of two present players sends none).  Being in Redis, a
queued ping survives a restart.

**What follows a booked end** (bot/service/ending.py ``after_end``: the game kept
for its analysis, a ``level=auto`` standing moved, a tournament's result) runs
after the booking, outside its script, so a worker that dies (or whose Redis
fails over) between the two would lose it wherever no retried update runs it
again (the Mini App, the computer's turns, the clock's and a tournament's
deadlines).  So :meth:`Clock.ending` puts the game in its shard's pending ends
(``nardy:{deadlines:<shard>}:ends``) *before* the booking script (with its read
of the stats), due
:data:`ENDS_GRACE` later; :meth:`Clock.followed` takes it out once every
follow-up ran; :meth:`Clock.ends_tick` (every tick) claims the entries left
past their time with the same lease and runs them for the game as stored: a
booked end (finished or cancelled) is followed up, anything else (the booking
was refused, or it is not there yet) is dropped.  The follow-ups are idempotent,
so a slow worker and the sweep both running them do no harm.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from bot.store.client import RedisClient, as_text
from bot.store.games import Games
from bot.store.keys import SHARDS, Keys
from bot.store.shards import drain_deadlines
from bot.vocab import clock
from bot.vocab.records import GameRecord, GameRef, Status

log = logging.getLogger(__name__)

LEASE = 120.0
"""Seconds a claimed wake-up stays with the process that took it."""
STAGE_TTL = 30 * 24 * 3600
"""Stage markers expire (the longest period is 14 days)."""

# KEYS: the marker.  ARGV: value expected ('' for none), new value, TTL.
_ADVANCE = """
if (redis.call('GET', KEYS[1]) or '') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', tonumber(ARGV[3]))
return 1
"""

Act = Callable[[GameRecord, int], Awaitable[None]]
"""Does what a stage means (remind, offer the win) for a game record."""
Ping = Callable[[GameRecord], Awaitable[None]]
"""Sends the "your turn" ping of a game record (still at the ping's version)."""
Follow = Callable[[GameRecord], Awaitable[None]]
"""What follows a booked end, for the record as stored (bot/service/ending.py)."""

ENDS_GRACE = 60.0
"""Seconds a booked end's follow-ups are left to the worker that booked it
before the sweep runs them: they follow the tap's answer, which waits for the
flood limiter at most a few seconds (a second run is harmless, only wasted)."""


# KEYS: due, processing.  ARGV: now, lease end, limit.  Expired leases go back
# to `due` first (a claimer died), then up to `limit` due items move to
# `processing` until the lease end.  Returns member, due, member, due, ...
_CLAIM = """
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])) do
  redis.call('ZREM', KEYS[2], m)
  redis.call('ZADD', KEYS[1], 'NX', ARGV[1], m)
end
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0,
                       tonumber(ARGV[3]))
for i = 1, #due, 2 do
  redis.call('ZREM', KEYS[1], due[i])
  redis.call('ZADD', KEYS[2], ARGV[2], due[i])
end
return due
"""


@dataclass(frozen=True)
class Claim:
    """A deadline handed to one scheduler until `lease_until`; `ack` it when handled."""

    ref: GameRef
    due: float
    lease_until: float


def marker(record: GameRecord, stage: int) -> str:
    """The stage marker of the record's current deadline.

    >>> from engine.position import Variant
    >>> game = GameRecord(chat_id=1, game_id="abcd", variant=Variant.LONG, deadline=7200.5)
    >>> marker(game, 2), done_stage("abcd:7200.5:2", game), done_stage("abcd:3600.0:2", game)
    ('abcd:7200.5:2', 2, 0)
    """
    return f"{record.game_id}:{record.deadline!r}:{stage}"


def done_stage(value: str, record: GameRecord) -> int:
    """The stages done for the record's current deadline (0 for an older deadline's marker)."""
    head, _, stage = value.rpartition(":")
    return int(stage) if head == marker(record, 0).rpartition(":")[0] else 0


def timed(record: GameRecord | None, ref: GameRef) -> int | None:
    """The time control of ``ref``'s game if its clock is running now, else None."""
    if (record is None or record.game_id != ref.game_id or record.status is not Status.ACTIVE
            or record.deadline is None or record.paused_at is not None):
        return None
    return record.options.time_control



class Clock:
    """Schedule and claim games' wake-ups and act on them (a part of
    :class:`bot.store.Store`: ``store.clock``)."""

    def __init__(self, redis: RedisClient, keys: Keys, games: Games) -> None:
        self.redis = redis
        self.keys = keys
        self.games = games
        self._claim = redis.register_script(_CLAIM)
        self._advance_script = redis.register_script(_ADVANCE)
        self._next_shard = 0
        self._next_ping = 0
        self._next_end = 0

    async def schedule(self, ref: GameRef, due: float, *, lower_only: bool = False) -> None:
        """Set (or move) the next wake-up of a game.  `save` does this from
        `deadline`; `lower_only` never moves an entry later (ZADD LT), so a
        scheduler cannot push back a wake-up a concurrent save just set."""
        await self.redis.zadd(self.keys.deadline_shard(ref)[0], {str(ref): due}, lt=lower_only)

    async def claim_due(
        self, now: float | None = None, lease: float = 60.0, limit: int = 100
    ) -> list[Claim]:
        """Atomically take due deadlines, each leased to this caller for `lease` seconds.

        An item whose lease ran out without `ack` (the claimer died) is handed
        out again.  Delivery is at-least-once: handlers re-check the game record
        and change it by CAS, so a second delivery cannot act twice.
        """
        now = time.time() if now is None else now
        await drain_deadlines(self.redis, self.keys)
        start, self._next_shard = self._next_shard, (self._next_shard + 1) % SHARDS
        claims: list[Claim] = []
        for n in range(SHARDS):  # from a different shard first each time: none starves
            shard = self.keys.deadline_shards[(start + n) % SHARDS]
            flat = await self._claim(keys=shard, args=[now, now + lease, limit - len(claims)])
            claims += [Claim(GameRef.parse(flat[i]), float(flat[i + 1]), now + lease)
                       for i in range(0, len(flat), 2)]
            if len(claims) >= limit:
                break
        return claims

    async def ack(self, ref: GameRef) -> None:
        """Done with a claimed deadline: drop its lease (a new due time stays)."""
        await self.redis.zrem(self.keys.deadline_shard(ref)[1], str(ref))

    async def ping_later(self, ref: GameRef, version: int, due: float) -> None:
        """A "your turn" ping for ``ref``'s game at ``version``, due at ``due``
        (:meth:`ping_tick` sends it only if the game is still
        at that version: nobody acted meanwhile)."""
        await self.redis.zadd(self.keys.ping_shard(ref)[0], {f"{version}@{ref}": due})

    async def claim_pings(self, now: float, lease: float, limit: int = 100
                          ) -> list[tuple[GameRef, int]]:
        """Atomically take the due pings, each leased to this caller (the claim
        of :meth:`claim_due`, shard by shard, from a different one first each
        time, then the unsharded pair an older worker may still fill): (game,
        version) pairs; :meth:`ack_ping` each."""
        start, self._next_ping = self._next_ping, (self._next_ping + 1) % SHARDS
        pairs = [self.keys.ping_shards[(start + n) % SHARDS] for n in range(SHARDS)]
        pings: list[tuple[GameRef, int]] = []
        for pair in [*pairs, self.keys.pings]:
            flat = await self._claim(keys=pair, args=[now, now + lease, limit - len(pings)])
            for member in flat[::2]:
                version, _, ref = as_text(member).partition("@")
                pings.append((GameRef.parse(ref), int(version)))
            if len(pings) >= limit:
                break
        return pings

    async def ack_ping(self, ref: GameRef, version: int) -> None:
        """Done with a claimed ping (from its shard, or from the unsharded pair)."""
        member = f"{version}@{ref}"
        if not await self.redis.zrem(self.keys.ping_shard(ref)[1], member):
            await self.redis.zrem(self.keys.pings[1], member)

    def ending(self, pipe: Any, ref: GameRef, now: float) -> None:
        """``ref``'s end is about to be booked: unless :meth:`followed` says its
        follow-ups ran by ``now`` + :data:`ENDS_GRACE`, :meth:`ends_tick` runs them.
        Queued on ``pipe``, a pipeline the booking runs before its script (its
        read of the stats: no round trip of its own), so no booked end is
        without it; an entry whose booking never came is dropped by the sweep."""
        pipe.zadd(self.keys.ends_shard(ref)[0], {str(ref): now + ENDS_GRACE})

    async def followed(self, ref: GameRef) -> None:
        """What follows ``ref``'s booked end ran: nothing is pending for it."""
        pipe = self.redis.pipeline(transaction=False)
        for key in self.keys.ends_shard(ref):
            pipe.zrem(key, str(ref))
        await pipe.execute()

    async def pending_ends(self) -> list[GameRef]:
        """Every booked end not known followed up, pending or claimed (for tests
        and the operator)."""
        pipe = self.redis.pipeline(transaction=False)
        for pair in self.keys.ends_shards:
            for key in pair:
                pipe.zrange(key, 0, -1)
        return sorted({GameRef.parse(as_text(member))
                       for members in await pipe.execute() for member in members}, key=str)

    async def ends_tick(self, now: float, follow: Follow, *, lease: float = LEASE,
                        limit: int = 100) -> list[GameRef]:
        """Claim up to ``limit`` ends left pending past their time (:meth:`ending`)
        and run ``follow`` for each game that is booked as ended; returns those.  One
        whose follow-up failed stays claimed and is handed out again after its
        lease; a game gone or not ended is dropped."""
        start = self._next_end
        self._next_end = (start + 1) % SHARDS
        done: list[GameRef] = []
        claimed = 0
        for n in range(SHARDS):  # from a different shard first each time: none starves
            if claimed >= limit:
                break
            shard = self.keys.ends_shards[(start + n) % SHARDS]
            flat = await self._claim(keys=shard, args=[now, now + lease, limit - claimed])
            claimed += len(flat) // 2
            for member in flat[::2]:
                ref = GameRef.parse(as_text(member))
                record = await self.games.load_game(ref.chat_id, ref.game_id)
                if record is not None and record.status in (Status.FINISHED, Status.CANCELLED):
                    try:
                        await follow(record)
                    except Exception:
                        log.exception("what follows the end of %s failed; it is retried "
                                      "after its lease", ref)
                        continue
                    done.append(ref)
                await self.followed(ref)
        return done

    async def rename(self, old: str, new: str) -> None:
        """Move a game's entries (due and claimed) to its new ref, keeping their
        times: its deadline's and its pending end's (:meth:`ending`: a sweep
        would find no game under the old ref and drop it); idempotent (a chat's
        migration: the new chat may be in another shard, so the entry is added
        there before it is removed here)."""
        await drain_deadlines(self.redis, self.keys)  # an old entry is renamed too
        pairs = [*zip(self.keys.deadline_shard(old), self.keys.deadline_shard(new), strict=True),
                 *zip(self.keys.ends_shard(old), self.keys.ends_shard(new), strict=True)]
        for source, target in pairs:
            score = await self.redis.zscore(source, old)
            if score is not None:
                await self.redis.zadd(target, {new: score})
                await self.redis.zrem(source, old)

    async def _advance(self, key: str, expected: str, new: str) -> bool:
        return bool(await self._advance_script(keys=[key], args=[expected, new, STAGE_TTL]))


    async def wake(self, ref: GameRef, now: float, act: Act) -> int | None:
        """Handle one claimed wake-up; returns the stage acted on (None: nothing was due,
        or another process acted)."""
        record = await self.games.load_game(ref.chat_id, ref.game_id)
        limit = timed(record, ref)
        if record is None or limit is None or record.deadline is None:
            return None  # over, paused, replaced: the next save schedules again
        key = self.keys.stage(ref)
        raw = await self.redis.get(key)
        before = "" if raw is None else as_text(raw)
        done = done_stage(before, record)
        stage = clock.due_stage(record.deadline, limit, done, now)
        acted = None
        if stage is not None:
            after = marker(record, stage)
            if not await self._advance(key, before, after):
                return None  # another process took this stage; it schedules the next
            try:
                await act(record, stage)
            except BaseException:
                await self._advance(key, after, before)  # let the retry act again
                raise
            done = acted = stage
        next_at = clock.next_wake(record.deadline, limit, done)
        if next_at is not None:
            await self.schedule(ref, next_at, lower_only=True)
        return acted


    async def tick(self, now: float, act: Act, *, lease: float = LEASE) -> list[int]:
        """Claim what is due and handle it; returns the stages acted on (for logs and tests)."""
        acted = []
        for claim in await self.claim_due(now=now, lease=lease):
            try:
                stage = await self.wake(claim.ref, now, act)
            except Exception:
                log.exception("clock of %s failed; it is retried after its lease", claim.ref)
                continue
            await self.ack(claim.ref)
            if stage is not None:
                acted.append(stage)
        return acted


    async def ping_tick(self, now: float, ping: Ping, *, lease: float = LEASE
                        ) -> list[GameRef]:
        """Claim the due turn pings and send those whose game is still at the
        version they were queued for; returns the games pinged.  A ping whose
        sending failed stays claimed and is handed out again after its lease."""
        sent = []
        for ref, version in await self.claim_pings(now=now, lease=lease):
            record = await self.games.load_game(ref.chat_id, ref.game_id)
            if record is not None and record.version == version and record.status.is_open:
                try:
                    await ping(record)
                except Exception:
                    log.exception("turn ping of %s failed; it is retried after its lease", ref)
                    continue
                sent.append(ref)
            await self.ack_ping(ref, version)
        return sent
