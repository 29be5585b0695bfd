"""Callback data of inline buttons: a small, versioned, parse/format pair.

Every button carries what it acts on and the version of that record it was
drawn for, so a tap on an outdated keyboard is recognised and refused instead
of being applied to a game that has moved on.  The text form is

``<kind>:<id>:<version>:<action>[:<int>...]``

where ``kind`` is ``g`` (a game), ``l`` (a lobby), ``s`` (a /settle request)
or ``k`` (a game's clock), ``id`` its id (letters, digits, ``_`` and ``-``),
``version`` the record version the keyboard was drawn for and ``action`` one
letter.  Telegram allows 64 bytes.  Buttons that act on no record carry their
own small payloads with the same parse/format pair (:class:`LanguageChoice`,
:class:`SettingChoice`, :class:`ShowGame`, :class:`PickGame`); the :class:`Kind` in
front of every payload routes it to its handler.

>>> data = Callback.game("k3Xa9", 12, ButtonAction.STEP, 13, 10, 3)
>>> data.format()
'g:k3Xa9:12:m:13:10:3'
>>> Callback.parse('g:k3Xa9:12:m:13:10:3') == data
True
>>> Callback.parse('l:lob1:0:j').action
<ButtonAction.JOIN: 'j'>
>>> Callback.settle("Qx7_a2Bc", ButtonAction.SETTLE_WITH, 2).format()
's:Qx7_a2Bc:0:w:2'
>>> Callback.parse('g:x:1:zz')
Traceback (most recent call last):
...
bot.vocab.callbacks.CallbackDataError: unknown action 'zz'
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import ClassVar, Self

MAX_BYTES = 64
"""Telegram's limit on ``callback_data``."""

_ID = re.compile(r"[A-Za-z0-9_-]{1,24}")  # fullmatch: "$" would let a final "\n" in
_NUMBER = re.compile(r"[0-9]{1,9}")
"""A version or an argument: ASCII digits only (``str.isdigit`` is true for
"²" and "١", which ``int`` reads differently or not at all)."""


class CallbackDataError(ValueError):
    """Callback data that this bot did not make (forged, truncated, old format)."""


class Kind(enum.StrEnum):
    """The first field of every button's data: which handler it is routed to
    (:attr:`pattern`), and which of the payload types below it parses into."""

    GAME = "g"
    LOBBY = "l"
    SETTLE = "s"  # a /settle request (bot/edge/handlers/settle.py)
    CLOCK = "k"  # a game's clock: timeout offer, pause, reminders (bot/edge/handlers/clock.py)
    LANGUAGE = "lang"  # /lang: LanguageChoice
    SETTING = "set"  # /settings: SettingChoice
    SHOW = "gv"  # /games: ShowGame
    VERIFY = "dv"  # 🎲 Verify on a result: VerifyDice
    PICK = "gp"  # a command's list of the chat's games: PickGame
    ANALYSIS = "an"  # 📊 Analysis on a result: AnalyseGame
    INLINE = "ij"  # Join on an inline lobby not stored yet: bot.present.inline.InlineJoin
    TOURNAMENT = "t"  # a tournament's lobby and standings (bot/edge/handlers/tournament.py)

    @property
    def pattern(self) -> str:
        """The ``CallbackQueryHandler`` pattern of this kind's buttons.

        >>> Kind.CLOCK.pattern, Kind.SHOW.pattern
        ('^k:', '^gv:')
        """
        return pattern(self)


RECORD_KINDS = frozenset({Kind.GAME, Kind.LOBBY, Kind.SETTLE, Kind.CLOCK, Kind.TOURNAMENT})
"""The kinds whose data is a :class:`Callback` (bound to a record version)."""


def pattern(*kinds: Kind) -> str:
    """The pattern matching the data of any of ``kinds``.

    >>> pattern(Kind.GAME, Kind.LOBBY)
    '^(?:g|l):'
    """
    if len(kinds) == 1:
        return f"^{re.escape(kinds[0].value)}:"
    return "^(?:" + "|".join(re.escape(kind.value) for kind in kinds) + "):"


OTHER = "^(?!(?:" + "|".join(re.escape(kind.value) for kind in Kind) + "):)"
"""The pattern of data of no kind (forged, or from an older bot): its
handler only tells the tapper the button does not work.

>>> bool(re.match(OTHER, "zz:1")), bool(re.match(OTHER, "gv:1:0:a"))
(True, False)
"""


class ButtonAction(enum.StrEnum):
    """What a button does.  The letters are part of the wire format."""

    # lobby
    JOIN = "j"
    LEAVE = "q"
    VARIANT = "v"  # arg: variant index (see VARIANTS)
    DROP = "X"  # creator closes the lobby
    COMPUTER = "H"  # the tapper plays the computer (bot/rules/computer.py)
    START = "S"  # the seated person starts a game against the computer: the tap is the entropy
    # game: before rolling
    ROLL = "r"
    DOUBLE = "d"
    DOUBLE_SURE = "D"  # a staked game asks once more before the double
    TAKE = "t"
    PASS = "p"
    PASS_SURE = "P"
    BEAVER = "B"  # the doubled player takes and redoubles at once (beavers=on)
    # game: moving
    SOURCE = "s"  # arg: source point (the mover's own number)
    BACK = "b"  # leave the source selection
    STEP = "m"  # args: source, target, die
    TURN = "h"  # arg: index of a whole turn in engine.choices.turn_choices (at a turn's start)
    HINT = "i"  # the best turns for the roll, as an alert (bot/rules/hints.py); changes nothing
    UNDO = "u"
    CONFIRM = "c"
    # offers
    MENU = "o"  # show the resign/cancel menu
    RESIGN = "R"  # arg: resignation level 1..3
    RESIGN_SURE = "G"  # arg: the level; a staked game asks once more before the offer
    ACCEPT = "a"  # accept a resign offer
    DECLINE = "x"  # decline a resign offer
    CANCEL = "C"  # propose or agree to cancel the game
    KEEP = "K"  # refuse a cancel proposal / close the menu
    # after the game
    REMATCH = "A"  # offer a rematch / the match's next game (ACCEPT / DECLINE answer it)
    WITHDRAW = "e"  # the offerer takes the offer back
    NEW = "N"
    # a /settle request
    SETTLE_WITH = "w"  # arg: index of the other player among the request's candidates
    SETTLE_PLAN = "f"  # arg: index of a transfer among the request's planned ones
    SETTLE_YES = "y"
    SETTLE_NO = "n"
    # a game's clock (kind CLOCK; the version field is unused, 0)
    CLAIM_WIN = "W"  # the time is up: the opponent takes the win
    MORE_TIME = "T"  # ... or gives one more period
    PAUSE = "Z"  # propose to pause the clock, or agree to the other player's proposal
    RESUME = "Y"  # the same for resuming
    PAUSE_NO = "z"  # refuse the pending proposal
    MUTE = "M"  # no more reminders for the tapper
    UNMUTE = "U"
    # a tournament (kind TOURNAMENT; also JOIN, LEAVE, START, DROP)
    QUIT = "Q"  # the tapper asks to withdraw from the running tournament
    QUIT_SURE = "O"  # arg: the entrant's index; that player (or an admin) confirms it
    END = "E"  # an admin confirms cancelling a tournament (/tournament cancel)
    STANDINGS = "F"  # show the standings as they are now


_ARITY: dict[ButtonAction, int] = {ButtonAction.VARIANT: 1, ButtonAction.SOURCE: 1,
                                   ButtonAction.STEP: 3, ButtonAction.RESIGN: 1,
                                   ButtonAction.RESIGN_SURE: 1,
                                   ButtonAction.SETTLE_WITH: 1, ButtonAction.TURN: 1,
                                   ButtonAction.SETTLE_PLAN: 1, ButtonAction.QUIT_SURE: 1}
_LOBBY_ACTIONS = frozenset({ButtonAction.JOIN, ButtonAction.LEAVE, ButtonAction.VARIANT,
                            ButtonAction.DROP, ButtonAction.COMPUTER,
                            ButtonAction.START})
_SETTLE_ACTIONS = frozenset({ButtonAction.SETTLE_WITH, ButtonAction.SETTLE_PLAN,
                             ButtonAction.SETTLE_YES, ButtonAction.SETTLE_NO})
_TOURNAMENT_ACTIONS = frozenset({ButtonAction.JOIN, ButtonAction.LEAVE, ButtonAction.START,
                                 ButtonAction.DROP, ButtonAction.QUIT, ButtonAction.STANDINGS,
                                 ButtonAction.END, ButtonAction.QUIT_SURE})
CLOCK_ACTIONS = frozenset({ButtonAction.CLAIM_WIN, ButtonAction.MORE_TIME, ButtonAction.PAUSE,
                           ButtonAction.RESUME, ButtonAction.PAUSE_NO, ButtonAction.MUTE,
                           ButtonAction.UNMUTE})


@dataclass(frozen=True, slots=True)
class Callback:
    """One button's payload."""

    kind: Kind
    id: str
    version: int
    action: ButtonAction
    args: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in RECORD_KINDS:
            raise CallbackDataError(f"{self.kind} buttons carry no record")
        if not isinstance(self.id, str) or not _ID.fullmatch(self.id):
            raise CallbackDataError(f"bad id {self.id!r}")
        if self.version < 0:
            raise CallbackDataError(f"bad version {self.version}")
        if self.kind is Kind.TOURNAMENT:
            if self.action not in _TOURNAMENT_ACTIONS:
                raise CallbackDataError(f"action {self.action.value!r} is no tournament's")
        elif (self.action in _LOBBY_ACTIONS | _TOURNAMENT_ACTIONS) != (self.kind is Kind.LOBBY) \
                or self.action in _TOURNAMENT_ACTIONS - _LOBBY_ACTIONS:
            raise CallbackDataError(f"action {self.action.value!r} does not belong to {self.kind}")
        if (self.action in _SETTLE_ACTIONS) != (self.kind is Kind.SETTLE):
            raise CallbackDataError(f"action {self.action.value!r} does not belong to {self.kind}")
        if (self.action in CLOCK_ACTIONS) != (self.kind is Kind.CLOCK):
            raise CallbackDataError(f"action {self.action.value!r} does not belong to {self.kind}")
        arity = _ARITY.get(self.action, 0)
        if len(self.args) != arity:
            raise CallbackDataError(f"action {self.action.value!r} takes {arity} args")
        if any(not 0 <= arg <= 99 for arg in self.args):
            raise CallbackDataError(f"argument out of range in {self.args}")
        if len(self.format().encode()) > MAX_BYTES:
            raise CallbackDataError("callback data longer than 64 bytes")

    @classmethod
    def game(cls, game_id: str, version: int, action: ButtonAction, *args: int) -> Callback:
        return cls(Kind.GAME, game_id, version, action, args)

    @classmethod
    def lobby(cls, lobby_id: str, version: int, action: ButtonAction, *args: int) -> Callback:
        return cls(Kind.LOBBY, lobby_id, version, action, args)

    @classmethod
    def tournament(cls, tournament_id: str, version: int, action: ButtonAction, *args: int
                   ) -> Callback:
        """A tournament's button: ``t:<id>:<version>:<action>``.

        >>> Callback.tournament("Ab3_x9Qz", 4, ButtonAction.JOIN).format()
        't:Ab3_x9Qz:4:j'
        """
        return cls(Kind.TOURNAMENT, tournament_id, version, action, args)

    @classmethod
    def settle(cls, request_id: str, action: ButtonAction, *args: int) -> Callback:
        return cls(Kind.SETTLE, request_id, 0, action, args)

    @classmethod
    def clock(cls, game_id: str, action: ButtonAction) -> Callback:
        """A clock button of a game: ``k:<game id>:0:<action>``.

        >>> Callback.clock("k3Xa9", ButtonAction.CLAIM_WIN).format()
        'k:k3Xa9:0:W'
        """
        return cls(Kind.CLOCK, game_id, 0, action)

    def format(self) -> str:
        return ":".join([self.kind.value, self.id, str(self.version), self.action.value]
                        + [str(arg) for arg in self.args])

    @classmethod
    def parse(cls, text: object) -> Callback:
        """Parse what :meth:`format` made; anything else raises :class:`CallbackDataError`."""
        if not isinstance(text, str) or len(text.encode()) > MAX_BYTES:
            raise CallbackDataError("not callback data of this bot")
        parts = text.split(":")
        if len(parts) < 4:
            raise CallbackDataError(f"too few fields in {text!r}")
        kind, ident, version, action, *args = parts
        try:
            kind_ = Kind(kind)
        except ValueError:
            raise CallbackDataError(f"unknown kind {kind!r}") from None
        try:
            action_ = ButtonAction(action)
        except ValueError:
            raise CallbackDataError(f"unknown action {action!r}") from None
        if not all(_NUMBER.fullmatch(n) for n in (version, *args)):
            raise CallbackDataError(f"non-numeric field in {text!r}")
        if len(version) > 9 or any(len(arg) > 2 for arg in args):
            raise CallbackDataError(f"number too long in {text!r}")
        if any(len(n) > 1 and n[0] == "0" for n in (version, *args)):
            raise CallbackDataError(f"leading zero in {text!r}")
        return cls(kind_, ident, int(version), action_, tuple(int(arg) for arg in args))


def _fields(text: object, kind: Kind, count: int) -> list[str]:
    """The ``count`` fields after ``kind`` in button data, else CallbackDataError."""
    if not isinstance(text, str) or len(text.encode()) > MAX_BYTES:
        raise CallbackDataError("not callback data of this bot")
    head, _, rest = text.partition(":")
    parts = rest.split(":", count - 1) if rest else []
    if head != kind.value or len(parts) != count:
        raise CallbackDataError(f"not {kind} data: {text!r}")
    return parts


_WORD = re.compile(r"^[a-z]{1,16}$")


@dataclass(frozen=True, slots=True)
class LanguageChoice:
    """A /lang button: ``lang:<code>`` (a language code, or ``auto``).

    >>> LanguageChoice.parse("lang:ru")
    LanguageChoice(language='ru')
    >>> LanguageChoice("auto").format()
    'lang:auto'
    """

    language: str

    def __post_init__(self) -> None:
        if not _WORD.match(self.language):
            raise CallbackDataError(f"bad language {self.language!r}")

    def format(self) -> str:
        return f"{Kind.LANGUAGE.value}:{self.language}"

    @classmethod
    def parse(cls, text: object) -> LanguageChoice:
        return cls(*_fields(text, Kind.LANGUAGE, 1))


@dataclass(frozen=True, slots=True)
class SettingChoice:
    """A /settings button: ``set:<setting>:<value>``.

    >>> SettingChoice.parse("set:view:white")
    SettingChoice(setting='view', value='white')
    >>> SettingChoice.parse("set:style")
    Traceback (most recent call last):
    ...
    bot.vocab.callbacks.CallbackDataError: not set data: 'set:style'
    """

    setting: str
    value: str

    def __post_init__(self) -> None:
        if not (_WORD.match(self.setting) and _WORD.match(self.value)):
            raise CallbackDataError(f"bad setting {self.setting!r}={self.value!r}")

    def format(self) -> str:
        return f"{Kind.SETTING.value}:{self.setting}:{self.value}"

    @classmethod
    def parse(cls, text: object) -> SettingChoice:
        return cls(*_fields(text, Kind.SETTING, 2))


@dataclass(frozen=True, slots=True)
class ShowGame:
    """A /games button: ``gv:<chat id>:<topic>:<game id>`` posts that game's board.

    >>> ShowGame(-1001234567890, 7, "k3Xa9_zQ").format()
    'gv:-1001234567890:7:k3Xa9_zQ'
    >>> ShowGame.parse("gv:-1001234567890:7:k3Xa9_zQ").game_id
    'k3Xa9_zQ'
    """

    chat_id: int
    thread_id: int
    game_id: str
    KIND: ClassVar[Kind] = Kind.SHOW

    def __post_init__(self) -> None:
        if not isinstance(self.game_id, str) or not _ID.fullmatch(self.game_id):
            raise CallbackDataError(f"bad id {self.game_id!r}")
        if len(self.format().encode()) > MAX_BYTES:
            raise CallbackDataError("callback data longer than 64 bytes")

    def format(self) -> str:
        return f"{self.KIND.value}:{self.chat_id}:{self.thread_id}:{self.game_id}"

    @classmethod
    def parse(cls, text: object) -> Self:
        chat, thread, game = _fields(text, cls.KIND, 3)
        if not re.fullmatch(r"-?[0-9]{1,20}", chat) or not re.fullmatch(r"[0-9]{1,12}", thread):
            raise CallbackDataError(f"non-numeric field in {text!r}")
        return cls(int(chat), int(thread), game)


@dataclass(frozen=True, slots=True)
class VerifyDice(ShowGame):
    """The 🎲 Verify button of a result: ``dv:<chat id>:<topic>:<game id>``
    answers with that game's dice (what /verify says).

    >>> VerifyDice.parse(VerifyDice(-100, 0, "k3Xa9_zQ").format())
    VerifyDice(chat_id=-100, thread_id=0, game_id='k3Xa9_zQ')
    """

    KIND: ClassVar[Kind] = Kind.VERIFY


_COMMAND = re.compile(r"[a-z]{1,8}")


@dataclass(frozen=True, slots=True)
class PickGame:
    """A button of the list a command answers with when the chat has several
    games it may mean: ``gp:<command>:<user id>:<game id>`` runs ``/<command>``
    on that game, for the user who sent the command (nobody else may pick).

    >>> PickGame("cancel", 123456789, "k3Xa9_zQ").format()
    'gp:cancel:123456789:k3Xa9_zQ'
    >>> PickGame.parse("gp:board:5:k3Xa9_zQ").user_id
    5
    >>> PickGame.parse("gp:board:x:k3Xa9_zQ")
    Traceback (most recent call last):
    ...
    bot.vocab.callbacks.CallbackDataError: non-numeric field in 'gp:board:x:k3Xa9_zQ'
    """

    command: str
    user_id: int
    game_id: str
    KIND: ClassVar[Kind] = Kind.PICK

    def __post_init__(self) -> None:
        if not isinstance(self.command, str) or not _COMMAND.fullmatch(self.command):
            raise CallbackDataError(f"bad command {self.command!r}")
        if not isinstance(self.game_id, str) or not _ID.fullmatch(self.game_id):
            raise CallbackDataError(f"bad id {self.game_id!r}")
        if len(self.format().encode()) > MAX_BYTES:
            raise CallbackDataError("callback data longer than 64 bytes")

    def format(self) -> str:
        return f"{self.KIND.value}:{self.command}:{self.user_id}:{self.game_id}"

    @classmethod
    def parse(cls, text: object) -> PickGame:
        command, user, game = _fields(text, cls.KIND, 3)
        if not re.fullmatch(r"[0-9]{1,16}", user):
            raise CallbackDataError(f"non-numeric field in {text!r}")
        return cls(command, int(user), game)


@dataclass(frozen=True, slots=True)
class AnalyseGame:
    """The 📊 Analysis button of a finished game: ``an:<game id>``.  Only the
    game's id: the chat is the tapped message's (or, for a board in a private
    chat, the game the bot noted for that message), so the button cannot name
    another chat's game.

    >>> AnalyseGame.parse("an:k3Xa9_zQ")
    AnalyseGame(game_id='k3Xa9_zQ')
    >>> AnalyseGame.parse("an:k3Xa9_zQ:1")
    Traceback (most recent call last):
    ...
    bot.vocab.callbacks.CallbackDataError: bad id 'k3Xa9_zQ:1'
    """

    game_id: str

    def __post_init__(self) -> None:
        if not isinstance(self.game_id, str) or not _ID.fullmatch(self.game_id):
            raise CallbackDataError(f"bad id {self.game_id!r}")

    def format(self) -> str:
        return f"{Kind.ANALYSIS.value}:{self.game_id}"

    @classmethod
    def parse(cls, text: object) -> AnalyseGame:
        return cls(*_fields(text, Kind.ANALYSIS, 1))
