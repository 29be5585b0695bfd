"""What the store keeps: pydantic records, their JSON form and their schema versions.

Pure: no Redis here.  A record is serialised with `encode` and read back with
`decode`; `decode` checks the JSON against the model and the `schema_version`,
runs registered migrations for old versions and otherwise raises
`CorruptRecordError` naming the key and the reason (the stored value is never
replaced by a default).

The CAS `version` is not part of the JSON: the store keeps it next to the JSON
(field `v` of the record's hash) so Lua can compare it without parsing JSON.

>>> game = GameRecord(chat_id=-100123, thread_id=None, game_id="abcdefgh", variant=Variant.LONG,
...                   created_at=1.0, updated_at=1.0)
>>> back = decode(GameRecord, "k", encode(game), version=3)
>>> back.version, back.game_id, back.status.value, str(back.ref)
(3, 'abcdefgh', 'lobby', '-100123:0:abcdefgh')
"""

from __future__ import annotations

import base64
import contextvars
import dataclasses
import enum
import hashlib
import json
import re
import secrets
import time
from collections.abc import Callable
from typing import Any, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.vocab import clock
from engine.match import Standing
from engine.position import Side, Variant

SCHEMA_VERSION = 1
"""The schema of every record kind but games (see ``current_schema``)."""
GAME_SCHEMA = 2
"""Game records: 2 since several games may share a chat (issue 18): each is
stored under its own id (``g:<game id>``) and may name the game that
continued it (``next_game``); schema 1 records lived at ``game:<topic>``, one
per chat or topic, and are moved by :mod:`bot.store.schema`."""


class StoreError(Exception):
    """Base class of the store's errors."""


class CorruptRecordError(StoreError):
    """A stored value does not parse; it is reported and left as it is."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(f"corrupt record at {key}: {reason}")
        self.key = key
        self.reason = reason


class UnbookedEnd(StoreError, ValueError):
    """The raw compare-and-set was asked to end a game being played: a game's
    end is written only with its booking, by :func:`bot.service.saving.save`
    (the store's ``finish_game``); nothing was written."""

    def __init__(self, key: str) -> None:
        super().__init__(f"{key}: a game's end is saved with its booking (bot.service.saving)")
        self.key = key


class VersionConflict(StoreError):
    """A compare-and-set lost: the stored version is not the expected one."""

    def __init__(self, key: str, expected: int, actual: str | int | None) -> None:
        super().__init__(f"version conflict at {key}: expected {expected}, found {actual}")
        self.key = key
        self.expected = expected
        self.actual = actual


@dataclasses.dataclass
class _IdSource:
    seed: str
    attempt: int = 1
    made: int = 0
    written: int = 0


_ids: contextvars.ContextVar[_IdSource | None] = contextvars.ContextVar(
    "nardy_ids", default=None)


def ids_from(seed: str, attempt: int = 1) -> contextvars.Token[_IdSource | None]:
    """Make the ids :func:`new_game_id` hands out in this task follow from ``seed``
    (the update being handled, bot/edge/ops.py) until :func:`ids_done`: a retry
    of the update (after a failure, or after its worker died between saving and
    settling) makes the same lobby, game or request again, which its
    compare-and-set on "no record yet" then refuses instead of storing twice.
    ``attempt``: which attempt at the update this is (:func:`retrying`)."""
    return _ids.set(_IdSource(seed, attempt))


def retrying() -> bool:
    """Whether the update being handled was tried before (a record it finds may
    be its own earlier attempt's: :func:`written_here`)."""
    source = _ids.get()
    return source is not None and source.attempt > 1


def ids_done(token: contextvars.Token[_IdSource | None]) -> None:
    _ids.reset(token)


def new_game_id() -> str:
    """An id of 8 URL-safe characters: random, or the n-th of the update being
    handled (:func:`ids_from`: the same on each attempt, unpredictable without
    the update's content).

    >>> len(new_game_id()), new_game_id() != new_game_id()
    (8, True)
    >>> token = ids_from("7:abc")
    >>> first = [new_game_id(), new_game_id()]
    >>> ids_done(token)
    >>> token = ids_from("7:abc")
    >>> first == [new_game_id(), new_game_id()] and first[0] != first[1]
    True
    >>> ids_done(token)
    """
    source = _ids.get()
    if source is None:
        return secrets.token_urlsafe(6)
    source.made += 1
    digest = hashlib.sha256(f"{source.seed}:{source.made}".encode()).digest()
    return base64.urlsafe_b64encode(digest[:6]).decode()


def write_token() -> str:
    """A write's own name, stored as the record's ``w`` (bot/store/layout.py
    CURRENT: its repeat after a lost reply knows itself): random, or, while an
    update is handled (:func:`ids_from`), the update's mark and the write's
    number, so that a retry of the update can tell a record its dead first
    attempt wrote (:func:`written_here`) from one somebody else wrote.

    >>> len(write_token())
    8
    >>> token = ids_from("7:abc")
    >>> mine = write_token()
    >>> written_here(mine), written_here(secrets.token_hex(4))
    (True, False)
    >>> ids_done(token)
    """
    source = _ids.get()
    if source is None:
        return secrets.token_hex(4)
    source.written += 1
    return f"{_update_mark(source)}{source.written}"


def written_here(token: str | None) -> bool:
    """Whether a record's write token ``w`` is of a write of the update being handled
    (any attempt of it); False outside an update."""
    source = _ids.get()
    return source is not None and token is not None and token.startswith(
        _update_mark(source)) and token[len(_update_mark(source)):].isdigit()


def _update_mark(source: _IdSource) -> str:
    return "u" + hashlib.sha256(f"{source.seed}:w".encode()).hexdigest()[:10] + ":"


@dataclasses.dataclass(frozen=True, order=True)
class GameRef:
    """Points at one game: the user index and the deadline set hold these as strings.

    The game id is part of the ref so that an entry left behind by an older game
    in the same chat/topic can never be mistaken for the current one.

    >>> GameRef.parse("-100123:0:x_Y-z")
    GameRef(chat_id=-100123, thread_id=None, game_id='x_Y-z')
    >>> str(GameRef(5, 12, "abc"))
    '5:12:abc'
    """

    chat_id: int
    thread_id: int | None
    game_id: str

    def __str__(self) -> str:
        return f"{self.chat_id}:{self.thread_id or 0}:{self.game_id}"

    @classmethod
    def parse(cls, text: str | bytes) -> GameRef:
        if isinstance(text, bytes):
            text = text.decode()
        found = _GAME_REF.fullmatch(text)  # ASCII digits: int() also reads "١", " 1", "1_0"
        if found is None:
            raise ValueError(f"not a game ref: {text!r}")
        chat, thread, game_id = found.groups()
        return cls(int(chat), int(thread) or None, game_id)


_GAME_REF = re.compile(r"(-?[0-9]{1,20}):([0-9]{1,12}):([A-Za-z0-9_-]{1,32})")


class Status(enum.StrEnum):
    LOBBY = "lobby"
    ACTIVE = "active"
    FINISHED = "finished"
    CANCELLED = "cancelled"

    @property
    def is_open(self) -> bool:
        """Lobby or active: the game is listed in its players' indexes."""
        return self in (Status.LOBBY, Status.ACTIVE)


class _Model(BaseModel):
    # forbid: an unknown field means corruption or a newer schema, never "ignore".
    model_config = ConfigDict(extra="forbid", frozen=True)


COMPUTER_USER_IDS: dict[str, int] = {"easy": -1_601, "medium": -1_602, "strong": -1_603,
                                     "best": -1_604}
"""The computer opponent's seats, one user id per level (bot/rules/computer.py).
Telegram user ids are positive, so these never meet a person; a chat id is
never taken for a user id here (the computer has no private chat).  Its
index of open games (``nardy:{user:<id>}:games``) is how a restarted bot
finds the games that wait for it."""


def computer_level(user_id: int) -> str | None:
    """The level of the computer seated as ``user_id``, None for a person.

    >>> computer_level(COMPUTER_USER_IDS["strong"]), computer_level(42)
    ('strong', None)
    """
    return next((level for level, uid in COMPUTER_USER_IDS.items() if uid == user_id), None)


def versus_computer(players: tuple[Player, ...], user_id: int) -> str:
    """``"bot-<level>"`` if ``user_id``'s opponent among ``players`` is the
    computer, else ``""``: a person's stats against the computer are kept
    apart from their stats against people, per level."""
    for player in players:
        level = computer_level(player.user_id)
        if player.user_id != user_id and level is not None:
            return f"bot-{level}"
    return ""


class Player(_Model):
    user_id: int
    name: str
    side: Side | None = None


class TableOptions(_Model):
    """The options a game is played with (and a chat's defaults for new games)."""

    stake_per_point: int = Field(default=0, ge=0)
    match_length: int = Field(default=1, ge=1)
    cube: bool = True
    koks: bool = True
    jacoby: bool = False
    beavers: bool = False
    time_control: int | None = Field(default=None, gt=0, description="seconds per move")
    computer: Literal["easy", "medium", "strong", "best", "auto"] | None = Field(
        default=None, description="the opponent is the computer at this level; ``auto``: at "
        "the level the person's standing gave when it sat down (AutoStanding; the seat's "
        "user id says which), kept so that a rematch is at auto again")
    autoplay: bool = Field(default=True, description="forced turns are played by themselves")
    hints: bool | None = Field(
        default=None, description="the 💡 Hint button: None is on against the computer and "
        "off between people; never in a staked game (bot/rules/hints.py)")


class Record(_Model):
    """A record the store saves with compare-and-set, one per Redis key."""

    kind: ClassVar[str]
    current_schema: ClassVar[int] = SCHEMA_VERSION
    """The schema version this code writes (and reads without migrating)."""
    schema_version: int = SCHEMA_VERSION
    version: int = Field(default=0, ge=0)
    chat_id: int

    @property
    def key(self) -> RecordKey[Any]:
        raise NotImplementedError

    @property
    def record_name(self) -> str | None:
        """Its name among its chat's records (a game's id; None: one of its kind)."""
        return None


PRIVATE_CHAT_BASE = -(2**52)
"""Private games (an accepted /invite) live under a synthetic chat id at or
below this: no Telegram chat has one (real ids have at most 52 bits), and
down to -(2**52 + 2**48) they stay exact as doubles (Lua, JSON)."""


INLINE_CHAT_BASE = PRIVATE_CHAT_BASE - 2**48
"""Inline games (played on a message sent "via @bot") live under a synthetic
chat id at or below this, made from their ``inline_message_id``
(:func:`bot.store.inline.inline_chat_id`): below the private games'
range and, down to -(2**52 + 2**49), still exact as doubles."""


def is_private_game_chat(chat_id: int) -> bool:
    """Whether ``chat_id`` is a synthetic one of a game without a group chat: a
    private game's (made from its invitation: :func:`bot.store.invite.game_chat_id`)
    or an inline game's (:data:`INLINE_CHAT_BASE`).

    >>> is_private_game_chat(PRIVATE_CHAT_BASE - 2**47), is_private_game_chat(-1001234567890)
    (True, False)
    >>> is_private_game_chat(INLINE_CHAT_BASE - 5)
    True
    """
    return chat_id <= PRIVATE_CHAT_BASE


class BoardViewRef(_Model):
    """One more board message of a game besides its chat's own: in a
    player's private chat (a private game's boards, or a group game opened
    with /games), drawn from `viewer`'s side in `language` unless that chat
    fixed one."""

    chat_id: int
    message_id: int
    viewer: Side | None = None
    photo: bool = Field(default=False, description="the message is a photo")
    language: str | None = Field(default=None, pattern=r"^[a-z]{2,3}(_[A-Z]{2})?$")


MAX_REFUSED = 32
"""Refused entropy taps a record keeps (:class:`DiceState`); later ones are counted."""


class DiceState(_Model):
    """The provably fair dice of the match a record plays (engine/dice.py).

    ``seed`` is the server seed's 64 hex digits: secret until the match is
    over or cancelled (kept out of ``repr``; only the store and the reveal
    read it).  ``entropy`` are the ``label=value`` items mixed in after the
    commitment, in order; ``fixed`` once the first roll is thrown (no more
    ``/seed`` words after that).  ``refused``: the entropy-bearing taps the
    bot refused or could not save before the entropy was fixed (``label=id``,
    the oldest first, at most :data:`MAX_REFUSED`), shown by /verify and in
    the export, so that a bot refusing taps until one gives dice it likes
    leaves a trace (docs/fair-dice.md)."""

    seed: str = Field(repr=False, pattern=r"^[0-9a-f]{64}$")
    entropy: tuple[str, ...] = ()
    fixed: bool = False
    refused: tuple[str, ...] = ()


class GameRecord(Record):
    """One game of a chat or forum topic (a chat may have several), from lobby to its end.

    `engine` is the engine's `Game.to_dict()`: opaque to the store.  A
    private game has a synthetic `chat_id` (see `bot.store.invite.game_chat_id`), no
    board message of its own and one view per player.
    """

    kind: ClassVar[str] = "game"
    current_schema: ClassVar[int] = GAME_SCHEMA
    schema_version: int = GAME_SCHEMA
    game_id: str = Field(default_factory=new_game_id, pattern=r"^[A-Za-z0-9_-]{4,32}$")
    thread_id: int | None = None
    status: Status = Status.LOBBY
    variant: Variant
    players: tuple[Player, ...] = ()
    options: TableOptions = TableOptions()
    engine: dict[str, Any] = Field(default_factory=dict)
    board_message_id: int | None = None
    board_photo: bool = Field(default=False, description="the board message is a photo")
    notify_message_id: int | None = None
    created_by: int | None = Field(default=None, description="user who opened the lobby")
    cancel_by: int | None = Field(default=None, description="player proposing to cancel "
                                  "(the game, or between two games the match)")
    rematch_by: int | None = Field(default=None, description="after the end: the player "
                                   "offering a rematch or the match's next game")
    takeback_by: int | None = Field(default=None, description="the player whose whole turn "
                                    "was handed over without Confirm: they may take it back "
                                    "until the opponent acts (bot/rules/play.py)")
    created_at: float = Field(default_factory=clock.now)
    updated_at: float = Field(default_factory=clock.now)
    deadline: float | None = Field(default=None, description="when the player to move "
                                   "runs out of time (bot/vocab/clock.py); None: no clock "
                                   "running")
    paused_at: float | None = Field(default=None, description="clock paused since (both agreed)")
    pause_by: int | None = Field(default=None, description="player proposing to pause (or, "
                                 "when paused, to resume) the clock")
    views: tuple[BoardViewRef, ...] = Field(
        default=(), description="board messages in private chats, each updated on a change")
    dice: DiceState | None = Field(default=None, description="the match's fair dice "
                                   "(None: a record from before them)")
    next_dice: DiceState | None = Field(default=None, description="after the end, while a "
                                        "rematch is offered: the new match's committed seed")
    next_game: str | None = Field(default=None, description="after the end: the game that "
                                  "continued this one on its board (a rematch, the match's next "
                                  "game, a new lobby); this one's buttons are gone")
    inline_message_id: str | None = Field(
        default=None, min_length=1, max_length=256,
        description="an inline game's board: the message sent via the bot, edited by this id")

    @property
    def key(self) -> RecordKey[GameRecord]:
        return game_key(self.chat_id, self.game_id)

    @property
    def record_name(self) -> str:
        return self.game_id

    @property
    def is_live(self) -> bool:
        """A lobby, a game being played, or a match waiting for its next game
        (not continued yet): what counts against a chat's limit of games.

        >>> from engine.position import Variant
        >>> GameRecord(chat_id=1, variant=Variant.LONG).is_live
        True
        """
        if self.status.is_open:
            return True
        if self.status is not Status.FINISHED or self.next_game is not None or not self.engine:
            return False
        length = self.options.match_length if self.options.match_length > 1 else 0
        white, black = self.engine.get("score", (0, 0))
        return not Standing(length, (int(white), int(black))).is_settled

    @property
    def is_private(self) -> bool:
        """A game without a group chat (no board of a chat to post in, no chat
        ledger): a private game between two private chats, or an inline game."""
        return is_private_game_chat(self.chat_id)

    @property
    def is_inline(self) -> bool:
        """A game played on an inline message (``inline_message_id``)."""
        return self.inline_message_id is not None

    @property
    def ref(self) -> GameRef:
        return GameRef(self.chat_id, self.thread_id, self.game_id)


class ChatSettings(Record):
    """Per-chat preferences and the default options of new games."""

    kind: ClassVar[str] = "settings"
    language: str | None = Field(default=None, pattern=r"^[a-z]{2,3}(_[A-Z]{2})?$")
    board_language: str | None = Field(
        default=None, pattern=r"^[a-z]{2,3}(_[A-Z]{2})?$",
        description="the boards' language while none is fixed: the first game's, kept so a "
                    "board does not change language with whoever taps")
    board_style: Literal["png", "text"] = "png"
    orientation: Literal["follow", "white", "black"] = Field(
        default="follow", description="whose side the board is drawn from")
    variant: Variant = Variant.LONG
    options: TableOptions = TableOptions()
    autoplay: bool = Field(default=True, description="new games play forced turns by themselves")
    confirm_turns: Literal["staked", "always", "never"] = Field(
        default="never", description="whether a whole-turn button waits for Confirm: in staked "
        "games only, always, never (else the completed turn hands the dice over: the opponent's "
        "roll made by itself confirms it, and where that roll is their tap the mover may take "
        "the turn back until then; issue 35)")
    tournaments: Literal["anyone", "admins"] = Field(
        default="anyone", description="who may create a tournament here (/tournament)")

    @property
    def key(self) -> RecordKey[ChatSettings]:
        return settings_key(self.chat_id)


class HistoryEntry(_Model):
    """One finished game in a chat's history list (newest first)."""

    schema_version: int = SCHEMA_VERSION
    game_id: str
    thread_id: int | None = None
    variant: Variant
    players: tuple[Player, ...]
    winner: Side | None = None
    result: str = Field(description="e.g. single, gammon, backgammon, mars, koks, resign")
    points: int = 0
    stake: int = Field(default=0, description="amount the loser paid the winner")
    finished_at: float = Field(default_factory=time.time)
    reason: str | None = Field(default=None, description="borne_off, resigned, double_passed")
    match_length: int = Field(default=1, ge=1)
    score: tuple[int, int] | None = Field(default=None, description="match score after it")
    rating_changes: tuple[float, float] | None = Field(
        default=None, description="what the result changed the players' ratings by, in the "
        "order of `players` (a rated result; None: unrated, or booked before this was kept)")


class PlayerStats(_Model):
    """A player's games, results and FIBS rating in one chat and variant (bot/rules/ratings.py)."""

    kind: ClassVar[str] = "stats"
    schema_version: int = SCHEMA_VERSION
    user_id: int
    variant: Variant
    versus: str = Field(default="", pattern=r"^(bot-[a-z]+)?$", description="'bot-<level>': "
                        "games against the computer at that level (kept apart)")
    name: str = ""
    rating: float = 1500.0
    experience: int = Field(default=0, ge=0, description="sum of finished match lengths")
    games: int = Field(default=0, ge=0)
    wins: int = Field(default=0, ge=0)
    gammons_won: int = Field(default=0, ge=0, description="mars or gammon and more")
    gammons_lost: int = Field(default=0, ge=0)
    triples_won: int = Field(default=0, ge=0, description="koks or backgammon")
    triples_lost: int = Field(default=0, ge=0)
    matches: int = Field(default=0, ge=0, description="matches (or single games) rated")
    match_wins: int = Field(default=0, ge=0)
    streak: int = Field(default=0, description="games won (+) or lost (-) in a row")
    deviation: float | None = Field(default=None, ge=0, description="the rating's deviation "
                                    "(bot/rules/ratings.py); None: kept before deviations, "
                                    "read as its experience implies")
    rated_at: float | None = Field(default=None, description="when its last rated match ended")


class AutoStanding(_Model):
    """Where a person stands on ``level=auto``'s ladder in one variant, in every
    chat (bot/rules/computer.py ``auto_rung``), and their games at auto."""

    kind: ClassVar[str] = "auto"
    schema_version: int = SCHEMA_VERSION
    user_id: int
    variant: Variant
    rung: float = Field(description="the ladder's rung: two a level, easy from 0 "
                        "(bot/rules/computer.py auto_level)")
    games: int = Field(default=0, ge=0, description="finished games at auto")
    wins: int = Field(default=0, ge=0)
    moved_by: tuple[str, ...] = Field(
        default=(), description="the refs of the last games that moved the rung, newest "
        "last: a game moves it once, however often its end is delivered (bot/store/computer.py)")


def planned_payment(requester: int, other: int, change: int) -> tuple[int, int, int]:
    """``(debtor, creditor, amount)`` of a settle request's planned change of
    the pair's balance (``change`` > 0: the requester pays).  Here, below the
    settle-up rules, because the store re-checks it inside its atomic write.

    >>> planned_payment(1, 3, -10), planned_payment(3, 1, 10)
    ((3, 1, 10), (3, 1, 10))
    """
    if change > 0:
        return requester, other, change
    return other, requester, -change


class SettleRequest(_Model):
    """A pending /settle: the requester picks the other player, who confirms."""

    schema_version: int = SCHEMA_VERSION
    request_id: str = Field(default_factory=new_game_id, pattern=r"^[A-Za-z0-9_-]{4,24}$")
    chat_id: int
    requester: int
    names: dict[int, str] = Field(default_factory=dict)
    candidates: tuple[int, ...] = ()
    other: int | None = None
    amount: int = Field(default=0, description="what `other` owed the requester when asked")
    planned: tuple[tuple[int, int], ...] = Field(
        default=(), description="the settle-up plan's transfers of the requester offered: "
        "(other player, what the requester's balance with them changes by)")
    change: int | None = Field(default=None, description="a chosen planned transfer: what "
                               "the pair's balance changes by; None: it becomes 0")
    created_at: float = Field(default_factory=time.time)


R = TypeVar("R", bound=Record)


@dataclasses.dataclass(frozen=True)
class RecordKey(Generic[R]):
    """Which record: its model, chat and (a game) its id.  `suffix` names it inside the chat.

    >>> game_key(-100123, "k3Xa9_zQ").suffix, settings_key(1).suffix
    ('g:k3Xa9_zQ', 'settings')
    """

    model: type[R]
    chat_id: int
    name: str | None = None

    @property
    def suffix(self) -> str:
        if self.model.kind == "settings":
            return "settings"
        if self.model.kind == "tournament":  # bot/vocab/tournament.py
            return f"t:{self.name}"
        return f"g:{self.name}"


def game_key(chat_id: int, game_id: str) -> RecordKey[GameRecord]:
    """A game's key: its chat and its id (bot/store/games.py)."""
    return RecordKey(GameRecord, chat_id, game_id)


def settings_key(chat_id: int) -> RecordKey[ChatSettings]:
    return RecordKey(ChatSettings, chat_id, None)


# Explicit migrations: (kind, from_version) -> function turning the JSON dict of
# that version into the next version's.  Versions without an entry are rejected.
Migration = Callable[[dict[str, Any]], dict[str, Any]]


def _game_1_to_2(data: dict[str, Any]) -> dict[str, Any]:
    """A schema 1 game's JSON is a valid schema 2 one (``next_game`` is new and
    unset); what changes is where it is stored, which :mod:`bot.store.schema`
    moves with it."""
    return data


MIGRATIONS: dict[tuple[str, int], Migration] = {("game", 1): _game_1_to_2}


def encode(record: _Model) -> str:
    """The JSON stored for a record (without the CAS version) or a history entry."""
    return record.model_dump_json(exclude={"version"})


def decode(model: type[Any], key: str, raw: str | bytes | None, version: int = 0) -> Any:
    """Parse what `encode` wrote, migrating old schema versions; see the module doc.

    >>> decode(ChatSettings, "nardy:{chat:1}:settings", '{"schema_version": 1, "chat_id": "x"}')
    Traceback (most recent call last):
    ...
    bot.vocab.records.CorruptRecordError: corrupt record at nardy:{chat:1}:settings: chat_id: \
Input should be a valid integer, unable to parse string as an integer
    """
    if raw is None:
        raise CorruptRecordError(key, "no JSON stored")
    try:
        data = json.loads(raw)
    except ValueError as error:
        raise CorruptRecordError(key, f"not JSON ({error})") from None
    if not isinstance(data, dict):
        raise CorruptRecordError(key, f"JSON {type(data).__name__}, expected an object")
    kind = getattr(model, "kind", "history")
    latest = getattr(model, "current_schema", SCHEMA_VERSION)
    schema = data.get("schema_version")
    if not isinstance(schema, int):
        raise CorruptRecordError(key, f"schema_version is {schema!r}, expected an integer")
    if schema > latest:
        raise CorruptRecordError(
            key, f"schema_version {schema} is newer than this bot's {latest}"
        )
    while schema < latest:
        migrate = MIGRATIONS.get((kind, schema))
        if migrate is None:
            raise CorruptRecordError(
                key, f"schema_version {schema} is too old and has no migration to {schema + 1}"
            )
        data = {**migrate(data), "schema_version": schema + 1}
        schema += 1
    if issubclass(model, Record):
        data["version"] = version
    try:
        return model.model_validate(data)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
        raise CorruptRecordError(key, f"{where}: {first['msg']}{more}") from None
