"""Where everything lives in Redis: the key layout, built in one place (:class:`Keys`).

Prefix ``nardy``; ``{...}`` is the Redis Cluster hash tag, so all keys of one
chat live in one slot and a Lua script may touch several of them:

    nardy:{chat:<id>}:g:<game id>         hash {v: CAS version, d: GameRecord JSON,
                                          s:<chat>:<message>: the version that board
                                          message of the game shows}; an ended game's
                                          expires (bot/store/layout.py ENDED_TTL)
    nardy:{chat:<id>}:live                zset game id -> topic (0: none): the chat's
                                          lobbies, games played, matches between games
    nardy:{chat:<id>}:ended               zset game id -> last saved: its newest ended games
    nardy:{chat:<id>}:settings            hash {v, d: ChatSettings JSON}
    nardy:{chat:<id>}:slots               set of the suffixes of its other records
                                          ("settings"; "game:<topic>" of schema 1)
    nardy:{chat:<id>}:ledger              hash "<low uid>:<high uid>" -> balance of low
    nardy:{chat:<id>}:history             list of HistoryEntry JSON, newest first, capped
    nardy:{chat:<id>}:booked              zset of finished game ids (idempotent booking)
    nardy:{chat:<id>}:stats               hash "<variant>:<uid>" -> PlayerStats JSON (and
                                          "<variant>:bot-<level>:<uid>": vs the computer)
    nardy:{chat:<id>}:dice                hash "<variant>:<uid>" -> the 21 roll counts of
                                          the player's finished games, "3,0,5,..."
                                          (engine/dicestats.py DiceStats.to_text)
    nardy:{chat:<id>}:settle:<id>         a pending SettleRequest JSON, with expiry
    nardy:{chat:<id>}:imported            set of chat ids migrated into this chat
    nardy:{chat:<id>}:moved_to            new chat id after a supergroup migration
    nardy:{chat:<id>}:ping:<game id>      where the game's "your turn" ping is
    nardy:{chat:<id>}:views               hash: board message id in this private chat
                                          -> game ref (bot/store/board.py)
    nardy:{chat:<id>}:finished:<game>:analysis|:busy   a finished game's analysis as
                                          posted, an analysis in flight (expiring;
                                          bot/store/analysis.py; ``finished`` and
                                          ``finished:<game>``: releases before issue 23)
    nardy:{chat:<id>}:t:<tournament id>   hash {v, d: TournamentRecord JSON, w}
                                          (bot/store/tournament.py)
    nardy:{chat:<id>}:tournaments         zset: the chat's tournaments -> created
    nardy:{chat:<id>}:tmatch              hash: the dice commitment of a tournament game's
                                          match -> its tournament id (the end-of-game hook)
    nardy:{chat:<id>}:tlobbies            hash: a member -> the id of their open tournament
                                          lobby (one each, checked where a new one is saved)
    nardy:{chat:<id>}:tpost:<what>        "1" for 60 s: a worker is posting a tournament's
                                          round, a game's board or its end (first_to)
    nardy:{chat:<id>}:league              hash: season -> the running named season's id,
                                          s:<id> -> each kept NamedSeason JSON, n -> the
                                          history lines booked since the tables were kept
    nardy:{chat:<id>}:league:m:<YYYY-MM>  hash: a month's league table, per player
    nardy:{chat:<id>}:league:s:<season>   n:<uid> name, p: points, g: games, w: wins, r:
                                          rating change in thousandths (a named season's;
                                          a month's expires 24 months after it)
    nardy:{tournaments}:due               zset: "<chat>:<topic>:<tournament>" -> when the
                                          tournament wakes up next (its start, a deadline, a
                                          round to post), claimed by lease
    nardy:{chat:<id>}:sent                zset: the chat's flood-limit window, reservation ->
                                          the time its message may go (bot/edge/limits.py)
    nardy:{flood}:sent                    zset: the bot's flood-limit window, likewise
    nardy:{user:<uid>}:games              set of GameRefs of the user's open games
    nardy:{user:<uid>}:played             set of the chat ids of the user's private and
                                          inline games (their stats, bot/store/played.py)
    nardy:{user:<uid>}:prefs              hash: started, muted, lang (bot/store/prefs.py)
    nardy:{user:<uid>}:finished           zset of the user's last finished games' refs
    nardy:{user:<uid>}:auto               hash "<variant>" -> AutoStanding JSON: where the
                                          user stands on level=auto's ladder (rung, games,
                                          wins, the games that moved it: bot/store/computer.py)
    nardy:{user:<uid>}:pace:<kind>        the user's input-limit bucket for commands or
                                          taps (bot/edge/handlers/pace.py), expiring
    nardy:{invite:<token>}:offer / :used  an invitation; who redeemed it
    nardy:{deadlines:<shard>}:due / :processing  zsets of GameRefs by wake-up time (the
                                          deadline's first reminder, bot/vocab/clock.py) /
                                          lease end, in SHARDS shards by chat
    nardy:{deadlines}:due / :processing   the same, unsharded (before 2026-12): moved into
                                          the shards by the claimer (bot/store/shards.py)
    nardy:{deadlines}:stage:<ref>         the stage a deadline reached (bot/store/clock.py)
    nardy:{deadlines:<shard>}:pings / :pings:processing
                                          zsets of delayed "your turn" pings,
                                          ``<version>@<GameRef>`` by due time / lease end,
                                          in SHARDS shards by chat
    nardy:{deadlines}:pings / :pings:processing
                                          the same, unsharded (before 2026-12): still claimed
    nardy:{deadlines:<shard>}:ends / :ends:processing
                                          zsets of GameRefs whose end is being booked, by when
                                          the sweep runs what follows it if its worker did not
                                          (bot/store/clock.py) / lease end, SHARDS by chat
    nardy:{update:<id // 100>}:m          hash <id % 100>:<digest> -> de-duplication marker
                                          of each update (bot/store/markers.py): p:<n>:<lease
                                          end ms> being handled (attempt n), f:<n> failed n
                                          times, d done; expires a day after its last write
    nardy:update:<update id>:<digest>     the same marker, a key each (before 2026-12; read
                                          for a day after the upgrade)
    nardy:update:<update id>              the release before schema 2's marker (p:<n>,
                                          f:<n>, d), kept beside ours while both may run
                                          (p:1:<digest>, f:<n>, 1: bot/store/updates.py)
    nardy:{update:<id // 100>}:fx         hash <id % 100>:<digest>|<entry> -> the side effects
                                          an attempt of the update did, for its retry
                                          (bot/edge/effects.py); deleted when it is done
    nardy:{stats:<shard>}:open            set of GameRefs of open games, in SHARDS shards by
                                          chat (a hint: metrics, the start-up's redraws)
    nardy:{stats}:open                    the same, one set (before 2026-12): moved into the
                                          shards by their readers (bot/store/shards.py)
    nardy:schema                          the game schema every record is at, once it is
                                          (bot/store/schema.py)

>>> keys = Keys()
>>> keys.chat(-100123, "settings"), keys.user_games(42), keys.live(-100123)
('nardy:{chat:-100123}:settings', 'nardy:{user:42}:games', 'nardy:{chat:-100123}:live')
"""

from __future__ import annotations

import zlib
from typing import Any

from bot.vocab.records import GameRef, RecordKey

SHARDS = 16
"""Shards of the keys every save writes (the open games, the deadline queue): each
shard is its own hash slot, so no one cluster node takes every save's write."""


def shard_of(chat_id: int) -> int:
    """The shard of a chat's entries (the same in every process, unlike ``hash``).

    >>> shard_of(-100123), shard_of(42)
    (13, 8)
    """
    return zlib.crc32(str(chat_id).encode()) % SHARDS


class Keys:
    """The names of the bot's Redis keys under one prefix (see the module doc)."""

    def __init__(self, prefix: str = "nardy") -> None:
        self.prefix = prefix
        self.deadlines = [f"{prefix}:{{deadlines}}:due", f"{prefix}:{{deadlines}}:processing"]
        """The deadline queue before it was sharded: due, processing (read to move them)."""
        self.pings = [f"{prefix}:{{deadlines}}:pings", f"{prefix}:{{deadlines}}:pings:processing"]
        """The delayed turn pings before they were sharded: due, processing (still
        claimed from, so what an older worker queued there is sent)."""
        self.open_games = f"{prefix}:{{stats}}:open"
        """The open games before they were sharded (read to move them)."""
        self.deadline_shards = [[f"{prefix}:{{deadlines:{n}}}:{name}"
                                 for name in ("due", "processing")] for n in range(SHARDS)]
        """The deadline queue's shards, each due and processing (one slot)."""
        self.ping_shards = [[f"{prefix}:{{deadlines:{n}}}:{name}"
                             for name in ("pings", "pings:processing")] for n in range(SHARDS)]
        """The delayed turn pings' shards (bot/store/clock.py), each due and processing,
        beside the same shard's deadlines: every turn queues one, so one key would pin
        every turn to one cluster node."""
        self.ends_shards = [[f"{prefix}:{{deadlines:{n}}}:{name}"
                             for name in ("ends", "ends:processing")] for n in range(SHARDS)]
        """The booked ends whose follow-ups (bot/service/ending.py ``after_end``) are not
        known done, each shard pending and processing, beside the shard's deadlines
        (bot/store/clock.py ``Clock.ends_tick``)."""
        self.open_shards = [f"{prefix}:{{stats:{n}}}:open" for n in range(SHARDS)]
        self.flood_all = f"{prefix}:{{flood}}:sent"
        self.tournaments_due = f"{prefix}:{{tournaments}}:due"
        self.schema = f"{prefix}:schema"

    def deadline_shard(self, ref: GameRef | str) -> list[str]:
        """Due and processing of the shard that holds ``ref``'s deadline."""
        return self.deadline_shards[shard_of(_ref(ref).chat_id)]

    def ping_shard(self, ref: GameRef | str) -> list[str]:
        """Due and processing of the shard that holds ``ref``'s delayed pings."""
        return self.ping_shards[shard_of(_ref(ref).chat_id)]

    def ends_shard(self, ref: GameRef | str) -> list[str]:
        """Pending and processing of the shard that holds ``ref``'s booked end."""
        return self.ends_shards[shard_of(_ref(ref).chat_id)]

    def open_shard(self, ref: GameRef | str) -> str:
        """The open-games shard that holds ``ref``."""
        return self.open_shards[shard_of(_ref(ref).chat_id)]

    def chat(self, chat_id: int, name: str) -> str:
        """A key in the chat's hash slot, e.g. `nardy:{chat:-100123}:settings`."""
        return f"{self.prefix}:{{chat:{chat_id}}}:{name}"

    def league_month(self, chat_id: int, month: str) -> str:
        """The league table of a calendar month ``YYYY-MM`` of the chat."""
        return self.chat(chat_id, f"league:m:{month}")

    def league_season(self, chat_id: int, season_id: str) -> str:
        """The league table of a named season of the chat."""
        return self.chat(chat_id, f"league:s:{season_id}")

    def live(self, chat_id: int) -> str:
        return self.chat(chat_id, "live")

    def ended(self, chat_id: int) -> str:
        return self.chat(chat_id, "ended")

    def ping(self, chat_id: int, game_id: str) -> str:
        return self.chat(chat_id, f"ping:{game_id}")

    def refused_taps(self, chat_id: int, game_id: str) -> str:
        """A lobby's refused entropy taps (bot/rules/dice.py), until its game starts."""
        return self.chat(chat_id, f"refused:{game_id}")

    def legacy_game(self, chat_id: int, topic: int) -> str:
        """Schema 1: the one game of a chat or topic (bot/store/schema.py)."""
        return self.chat(chat_id, f"game:{topic}")

    def legacy_ping(self, chat_id: int, topic: int) -> str:
        return self.chat(chat_id, f"notify:{topic}")

    def record(self, key: RecordKey[Any]) -> str:
        return self.chat(key.chat_id, key.suffix)

    def user_games(self, user_id: int) -> str:
        return f"{self.prefix}:{{user:{user_id}}}:games"

    def played(self, user_id: int) -> str:
        """The chat ids of the user's private and inline games (bot/store/played.py)."""
        return f"{self.prefix}:{{user:{user_id}}}:played"

    def prefs(self, user_id: int) -> str:
        return f"{self.prefix}:{{user:{user_id}}}:prefs"

    def invite(self, token: str) -> list[str]:
        """An invitation's keys: the offer, who used it."""
        return [f"{self.prefix}:{{invite:{token}}}:{name}" for name in ("offer", "used")]

    def finished(self, chat_id: int, game_id: str | None = None, part: str = "") -> str:
        """The chat's kept finished games (``game_id`` None), one of them, or a
        ``part`` of it (``:analysis``, ``:busy``): bot/store/analysis.py."""
        return self.chat(chat_id, "finished" if game_id is None else f"finished:{game_id}{part}")

    def auto(self, user_id: int) -> str:
        """The user's standing at ``level=auto``, per variant (bot/store/computer.py)."""
        return f"{self.prefix}:{{user:{user_id}}}:auto"

    def user_finished(self, user_id: int) -> str:
        return f"{self.prefix}:{{user:{user_id}}}:finished"

    def stage(self, ref: GameRef) -> str:
        return f"{self.prefix}:{{deadlines}}:stage:{ref}"

    def settle(self, chat_id: int, request_id: str) -> str:
        return self.chat(chat_id, f"settle:{request_id}")

    def update(self, update: int | str) -> str:
        """The marker of an update, by its identity (bot/store/updates.py)."""
        return f"{self.prefix}:update:{update}"

    def pace(self, user_id: int, kind: str) -> str:
        """A user's input-limit bucket (``cmd`` or ``tap``), in the user's slot."""
        return f"{self.prefix}:{{user:{user_id}}}:pace:{kind}"

    def flood(self, chat_id: object) -> str:
        """The flood-limit window of a chat (any id Telegram takes: a number or a username)."""
        return f"{self.prefix}:{{chat:{chat_id}}}:sent"


def _ref(ref: GameRef | str) -> GameRef:
    return ref if isinstance(ref, GameRef) else GameRef.parse(ref)
