"""Game actions: who may do what, and the record each tap turns into.

The pure part, :func:`apply`, takes the stored :class:`GameRecord`, the
tapping user and the button's :class:`Callback`, and returns the next record
or raises :class:`Refusal` (with a message id to show as an alert); nothing
is written.  :func:`perform` wraps it in one compare-and-set on the record
version the button was drawn for, so an outdated keyboard, a duplicated
update or two taps at once can never apply twice.

The engine's :class:`engine.game.Game` is kept in ``record.engine`` as
``{"game": Game.to_dict(), "score": [white, black], "crawford_done": bool}``
(the match score lives beside the game of the match being played).  Replaying
a stored game is not free, so decoded games are cached per (game id, version).
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import functools
import json
import re
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from bot.present.callbacks import Action, Callback, Kind
from bot.present.i18n import N_
from bot.present.usertext import ARGUMENT_LIMIT, clean
from bot.rules import deadlines
from bot.rules.autoplay import advance, undo
from bot.rules.booking import Outcome, booking, updated_stats
from bot.rules.fairplay import Dealer, committed, dice_booking, with_tap
from bot.rules.fairplay import roll as fair_roll
from bot.store import Store, VersionConflict, finished, no_upkeep
from bot.store.commit import commit
from bot.store.records import GameOptions, GameRecord, Player, Status
from engine.choices import TurnChoice, turn_choices
from engine.game import Game, GameError, Phase
from engine.game import GameOptions as EngineOptions
from engine.match import Standing
from engine.position import EngineError, Side, Step, Variant
from engine.scoring import ResultKind, resign_kinds

VARIANTS = (Variant.LONG, Variant.BACKGAMMON)
"""Variant order of the lobby buttons (the callback carries the index)."""


class Refusal(Exception):
    """A tap or command that changes nothing; ``message`` is a msgid to translate."""

    def __init__(self, message: str, **values: object) -> None:
        super().__init__(message)
        self.message = message
        self.values = values


FUTURE_WAITS = 25
"""Times (20 ms apart) a tap on a just-posted message waits for its record."""
STALE = N_("This board is out of date; use the newest message.")
NOT_PLAYING = N_("You are not playing in this game.")
NOT_YOUR_TURN = N_("It is not your turn.")
THEIR_BUTTONS = N_("It is not your turn: these buttons are your opponent's. To resign, wait for "
                   "your turn or use your own board (/games); /cancel proposes to cancel.")
MATCH_IN_PROGRESS = N_("A match is being played here: its players go on with Next game. /cancel "
                       "ends it (both players agree, or an admin decides).")
PROPOSED = N_("You proposed it; waiting for your opponent.")
# ---------------------------------------------------------------- options


class OptionError(Refusal):
    """A /new option that does not parse."""


_BOOL = {"on": True, "off": False, "yes": True, "no": False, "1": True, "0": False}
VARIANT_WORDS = {
    "long": Variant.LONG, "nardy": Variant.LONG, "l": Variant.LONG,
    "backgammon": Variant.BACKGAMMON, "bg": Variant.BACKGAMMON, "short": Variant.BACKGAMMON,
    "b": Variant.BACKGAMMON,
}
OPTION_NAMES = ("stake", "match", "cube", "koks", "jacoby", "beavers", "time", "level",
                "autoplay")
COMPUTER_WORDS = frozenset({"bot", "computer", "ai"})
LEVEL_WORDS = ("easy", "medium", "strong")
COMPUTER_UNSTAKED = N_("Games against the bot are never staked and have no clock: leave out "
                       "stake= and time=.")
MAX_MATCH = 25
MAX_STAKE = 1_000_000


def parse_new_args(args: Sequence[str]) -> tuple[Variant | None, GameOptions]:
    """``/new`` arguments: an optional variant word and ``name=value`` options.

    >>> parse_new_args(["backgammon", "match=7", "cube=off"])
    (<Variant.BACKGAMMON: 'backgammon'>, GameOptions(stake_per_point=0, match_length=7, \
cube=False, koks=False, jacoby=False, beavers=False, time_control=None, computer=None, \
autoplay=True))
    >>> parse_new_args(["long", "bot", "level=strong"])[1].computer
    'strong'
    >>> parse_new_args(["speed=9"])
    Traceback (most recent call last):
    ...
    bot.rules.actions.OptionError: Unknown option {option}. Valid options: {valid}.
    """
    variant: Variant | None = None
    values: dict[str, Any] = {"koks": False}
    for arg in args:
        word = arg.strip().lower()
        if word in VARIANT_WORDS and "=" not in word:
            variant = VARIANT_WORDS[word]
            continue
        if word in COMPUTER_WORDS:
            values.setdefault("computer", "medium")
            continue
        name, sep, value = word.partition("=")
        if not sep or name not in OPTION_NAMES:
            raise OptionError(N_("Unknown option {option}. Valid options: {valid}."),
                              option=clean(arg, ARGUMENT_LIMIT), valid=", ".join(
                                  ["long", "backgammon", "bot"] + [f"{n}=…" for n in OPTION_NAMES]))
        if name in ("stake", "match"):
            limit = MAX_STAKE if name == "stake" else MAX_MATCH
            if not re.fullmatch(r"[0-9]{1,7}", value) or not (name == "stake" or int(value) >= 1) \
                    or int(value) > limit:
                raise OptionError(N_("{option} needs a whole number from {low} to {high}, "
                                     "for example {example}."),
                                  option=name, low=0 if name == "stake" else 1, high=limit,
                                  example="stake=10" if name == "stake" else "match=5")
            values["stake_per_point" if name == "stake" else "match_length"] = int(value)
        elif name == "level":
            if value not in LEVEL_WORDS:
                raise OptionError(N_("level is easy, medium or strong."))
            values["computer"] = value
        elif name == "time":
            try:
                values["time_control"] = deadlines.parse_time_control(value)
            except deadlines.TimeControlError:
                raise OptionError(N_("time is the limit per move, 1h to 14d: time=12h, time=1d, "
                                     "time=3d or time=none.")) from None
        else:
            if value not in _BOOL:
                raise OptionError(N_("{option} is on or off."), option=name)
            values[name] = _BOOL[value]
    if "computer" in values and any(a.strip().lower().startswith(("stake=", "time="))
                                    for a in args):
        raise OptionError(COMPUTER_UNSTAKED)
    return variant, GameOptions(**values)


def with_chat_clock(args: Sequence[str], options: GameOptions, default: int | None
                    ) -> GameOptions:
    """``/new`` options with the chat's time control (``/clock``) unless ``time=`` was given.

    >>> with_chat_clock(["long"], GameOptions(), 86400).time_control
    86400
    >>> with_chat_clock(["time=none"], GameOptions(), 86400).time_control is None
    True
    """
    if any(arg.strip().lower().startswith("time=") for arg in args):
        return options
    return options.model_copy(update={"time_control": default})


def engine_options(variant: Variant, options: GameOptions) -> EngineOptions:
    """The engine's rules for a lobby's options; raises :class:`OptionError` for
    combinations the rules do not have."""
    match = options.match_length if options.match_length > 1 else 0
    try:
        if variant is Variant.LONG:
            if options.jacoby or options.beavers:
                raise OptionError(N_("Jacoby and beavers are backgammon cube rules."))
            return EngineOptions.long(koks=options.koks, match_length=match)
        if options.koks:
            raise OptionError(N_("Koks is a long nardy rule."))
        if (options.jacoby or options.beavers) and match:
            raise OptionError(N_("Jacoby and beavers are for single games, not matches."))
        if (options.jacoby or options.beavers) and not options.cube:
            raise OptionError(N_("Jacoby and beavers need the cube."))
        return EngineOptions.backgammon(cube=options.cube, jacoby=options.jacoby,
                                        beavers=options.beavers, match_length=match)
    except GameError as error:  # pragma: no cover - the checks above come first
        raise OptionError(N_("These options do not go together: {reason}"),
                          reason=str(error)) from None


# ---------------------------------------------------------------- the engine state


@dataclasses.dataclass(frozen=True)
class MatchState:
    """What ``record.engine`` holds: the game being played and the match score."""

    game: Game
    score: tuple[int, int] = (0, 0)
    crawford_done: bool = False
    number: int = 1
    """The game's number in its match."""
    earlier: tuple[str, ...] = ()
    """The match's finished games, packed (:func:`pack_game`) for /export;
    they are not decoded with the record."""

    def to_dict(self) -> dict[str, Any]:
        data = {"game": self.game.to_dict(), "score": list(self.score),
                "crawford_done": self.crawford_done, "number": self.number}
        return {**data, "earlier": list(self.earlier)} if self.earlier else data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchState:
        score = data["score"]
        return cls(Game.from_dict(data["game"]), (int(score[0]), int(score[1])),
                   bool(data["crawford_done"]), int(data.get("number", 1)),
                   tuple(str(packed) for packed in data.get("earlier", ())))

    def games(self) -> tuple[Game, ...]:
        """Every game of the match so far, the current one last."""
        return (*(unpack_game(packed) for packed in self.earlier), self.game)

    @property
    def match_length(self) -> int:
        return self.game.options.match_length

    @property
    def standing(self) -> Standing:
        """The match's score and Crawford state: the engine's match rules ask it."""
        return Standing(self.match_length, self.score, self.crawford_done)

    @property
    def match_over(self) -> bool:
        """No later game belongs to this one (a single game, or a match won)."""
        return self.standing.is_settled

    def scored(self) -> MatchState:
        """The score after the game's result (call once, when it ends)."""
        if self.game.result is None:
            return self
        return dataclasses.replace(self, score=self.standing.counting(self.game).score)

    def next_game(self) -> MatchState:
        """The following game of the match (the same players and sides)."""
        standing, game = self.standing.next_game(self.game)
        return MatchState(game, standing.score, standing.crawford_done, self.number + 1,
                          (*self.earlier, pack_game(self.game)))


def pack_game(game: Game) -> str:
    """A finished game in a line of text: its JSON, zlib, base64 (a
    whole long nardy game is ~10 KB of JSON, ~1.4 KB packed)."""
    data = json.dumps(game.to_dict(), separators=(",", ":")).encode()
    return base64.b64encode(zlib.compress(data, 9)).decode()


def unpack_game(packed: str) -> Game:
    return Game.from_dict(json.loads(zlib.decompress(base64.b64decode(packed))))


_STORED: OrderedDict[str, dict[int, MatchState]] = OrderedDict()
"""Tables of the newest stored versions of each game (the 512 games used
last), by game id and version: a tap loads its record from Redis and finds
the table here instead of replaying the game.  Only the last few versions
are kept (an update still holds the record it started from after saving
the next one); older ones are no use, and every table kept is objects the
garbage collector walks."""
_STORED_GAMES = 512
_STORED_VERSIONS = 3
_FRESH: OrderedDict[int, tuple[dict[str, Any], MatchState]] = OrderedDict()
"""Tables of records made here and not saved yet, by the identity of their
``engine`` dict (pydantic's ``model_copy`` keeps the same dict object).
Such a record lives for one update, so a few dozen entries are plenty;
each keeps its ``engine`` JSON alive (~200 lists and dicts), and 512 of
them made every young-generation collection walk ~80 000 objects (10-35
ms with every tap waiting)."""
_FRESH_RECORDS = 64


_CACHE_LOCK = threading.Lock()
"""Guards the two caches against callers in several threads (the bot itself
reads tables on its event loop only; the lock costs next to nothing)."""


def _bounded(cache: OrderedDict[Any, Any], key: Any, value: Any, size: int) -> None:
    with _CACHE_LOCK:
        cache[key] = value
        cache.move_to_end(key)
        while len(cache) > size:
            cache.popitem(last=False)


def remember_table(record: GameRecord, table: MatchState) -> None:
    """``table`` is the table of the stored ``record``."""
    with _CACHE_LOCK:
        versions = _STORED.pop(record.game_id, {})
        versions[record.version] = table
        if len(versions) > _STORED_VERSIONS:
            versions = {v: versions[v] for v in sorted(versions)[-_STORED_VERSIONS:]}
        _STORED[record.game_id] = versions
        while len(_STORED) > _STORED_GAMES:
            _STORED.popitem(last=False)


def table_of(record: GameRecord) -> MatchState:
    """The record's engine state, decoded from JSON once per record version."""
    with _CACHE_LOCK:
        fresh = _FRESH.get(id(record.engine))
        table = _STORED.get(record.game_id, {}).get(record.version)
    if fresh is not None and fresh[0] is record.engine:
        return fresh[1]
    if table is None:  # decoded outside the lock: two threads may both decode, harmlessly
        table = MatchState.from_dict(record.engine)
        remember_table(record, table)
    return table


def engine_dict(table: MatchState) -> dict[str, Any]:
    """``table`` as ``record.engine``, remembered so it is not decoded again."""
    data = table.to_dict()
    _bounded(_FRESH, id(data), (data, table), _FRESH_RECORDS)
    return data


def with_table(record: GameRecord, table: MatchState, **changes: Any) -> GameRecord:
    return record.model_copy(update={"engine": engine_dict(table), "updated_at": time.time(),
                                     **changes})


# ---------------------------------------------------------------- seats


def seat_of(record: GameRecord, user_id: int) -> Side | None:
    for player in record.players:
        if player.user_id == user_id:
            return player.side
    return None


def player_on(record: GameRecord, side: Side) -> Player:
    return next(p for p in record.players if p.side is side)


def resign_options(table: MatchState) -> list[ResultKind]:
    return list(resign_kinds(table.game.variant, koks=table.game.options.koks))


# ---------------------------------------------------------------- lobby


def new_lobby(chat_id: int, thread_id: int | None, variant: Variant, options: GameOptions,
              creator: int, dealer: Dealer) -> GameRecord:
    """A lobby, committed to its dice seed before anyone sees it (bot/rules/fairplay.py)."""
    engine_options(variant, options)  # refuse bad combinations before posting anything
    return GameRecord(chat_id=chat_id, thread_id=thread_id, variant=variant, options=options,
                      created_by=creator, dice=committed(dealer))


def roll_table(record: GameRecord, table: MatchState) -> Game:
    """The one roll of the bot: the table's game rolled with the match's fair
    dice (a record from before fair dice gets its seed now)."""
    state = record.dice if record.dice is not None else committed(Dealer())
    return fair_roll(table.game, state, table.number)


def start_game(record: GameRecord, dealer: Dealer) -> GameRecord:
    """Two players are seated: fix the dice's entropy with the starting tap,
    make the game, roll the opening and play on to the first choice
    (:func:`bot.rules.autoplay.advance`)."""
    state = with_tap(record.dice if record.dice is not None else committed(dealer),
                     dealer.tap_id)
    record = record.model_copy(update={"dice": state})
    table = MatchState(Game.new(engine_options(record.variant, record.options)))
    return with_table(record, advanced(table, record), status=Status.ACTIVE)


def advanced(table: MatchState, record: GameRecord) -> MatchState:
    """``table`` with its game advanced to the next choice (the record's autoplay
    option; every roll with the match's fair dice, :func:`roll_table`)."""
    game = advance(table.game, lambda g: roll_table(record, dataclasses.replace(table, game=g)),
                   autoplay=record.options.autoplay)
    return table if game is table.game else dataclasses.replace(table, game=game)


def needs_double_confirmation(record: GameRecord) -> bool:
    """A double in a staked game is money: it asks once more, as Pass does."""
    return record.options.stake_per_point > 0


def apply_lobby(record: GameRecord, user_id: int, name: str, data: Callback,
                dealer: Dealer) -> GameRecord:
    if record.status is not Status.LOBBY:
        raise Refusal(STALE)
    seated = any(p.user_id == user_id for p in record.players)
    if data.action is Action.JOIN:
        if seated:
            raise Refusal(N_("You have joined already; waiting for a second player."))
        side = Side(len(record.players))
        players = (*record.players, Player(user_id=user_id, name=name[:64], side=side))
        joined = record.model_copy(update={"players": players, "updated_at": time.time()})
        return start_game(joined, dealer) if len(players) == 2 else joined
    if data.action is Action.LEAVE:
        if not seated:
            raise Refusal(N_("You have not joined this game."))
        players = tuple(p for p in record.players if p.user_id != user_id)
        players = tuple(p.model_copy(update={"side": Side(i)}) for i, p in enumerate(players))
        return record.model_copy(update={"players": players})
    if data.action is Action.VARIANT:
        if not seated and user_id != record.created_by:
            raise Refusal(N_("Only the players or whoever opened the lobby may change it."))
        if data.args[0] >= len(VARIANTS):
            raise Refusal(STALE)
        variant = VARIANTS[data.args[0]]
        if variant is record.variant:
            return record
        try:
            engine_options(variant, record.options)
        except OptionError as error:
            raise Refusal(error.message, **error.values) from None
        # whoever joined joined the other game: they join again if they want this one
        kept = tuple(p.model_copy(update={"side": Side.WHITE})
                     for p in record.players if p.user_id == user_id)
        return record.model_copy(update={"variant": variant, "players": kept})
    if data.action is Action.DROP:
        if not seated and user_id != record.created_by:
            raise Refusal(N_("Only the players or whoever opened the lobby may close it."))
        return record.model_copy(update={"status": Status.CANCELLED})
    raise Refusal(STALE)


# ---------------------------------------------------------------- game


UI_ONLY = frozenset({Action.SOURCE, Action.BACK, Action.MENU, Action.PASS})
"""Buttons that only redraw the keyboard for the tapper; no record change."""


def ui_only(record: GameRecord, action: Action) -> bool:
    """Whether ``action`` only redraws the keyboard of this record (Double
    asks to confirm in a staked game, see :func:`needs_double_confirmation`)."""
    return action in UI_ONLY or (action is Action.DOUBLE and needs_double_confirmation(record))
ANSWERS = frozenset({Action.ACCEPT, Action.DECLINE, Action.TAKE, Action.PASS, Action.PASS_SURE})
"""Answers to an offer: :func:`_answering` says who gives them."""
MENU_ACTIONS = frozenset({Action.MENU, Action.BACK, Action.SOURCE, Action.RESIGN, Action.CANCEL})


def apply_game(record: GameRecord, user_id: int, data: Callback, *,
               own_board: bool = False) -> GameRecord:
    """The record after a game button; ``record`` itself for keyboard-only buttons.

    A change is followed by everything nobody chooses (the next roll when
    it is the only choice, forced turns with the autoplay option): see
    :func:`bot.rules.autoplay.advance`.

    The chat's board is shared: its buttons belong to the player the game
    waits for, and the other player's taps on them (even the menu, whose
    state is the keyboard everybody sees) are refused; only the answers to
    a cancel proposal are either player's.  ``own_board``: the tap is on a
    player's own board (a view in their private chat), where the waiting
    player may open the menu and resign or propose to cancel.

    Raises :class:`Refusal` for anything not allowed to this user now.
    """
    new = _apply_game(record, user_id, data, own_board=own_board)
    if new is record or new.status is not Status.ACTIVE:
        return new
    table = table_of(new)
    following = advanced(table, new)
    if following is table:
        return new
    return _play(new, table, lambda _: following.game)


def _apply_game(record: GameRecord, user_id: int, data: Callback, *,
                own_board: bool) -> GameRecord:
    if record.status is not Status.ACTIVE:
        raise Refusal(N_("This game is over."))
    side = seat_of(record, user_id)
    if side is None:
        raise Refusal(NOT_PLAYING)
    table = table_of(record)
    game = table.game
    action = data.action
    if action is Action.KEEP:
        if record.cancel_by is None:
            return record
        return record.model_copy(update={"cancel_by": None})
    if action is Action.CANCEL and record.cancel_by is not None:
        return _cancel(record, user_id)  # agreeing: the proposer's opponent
    if not own_board and action not in ANSWERS and game.to_act is not side:
        raise Refusal(THEIR_BUTTONS if action in MENU_ACTIONS else NOT_YOUR_TURN)
    if action is Action.CANCEL:
        return _cancel(record, user_id)
    if action is Action.RESIGN:
        kinds = resign_options(table)
        if not 1 <= data.args[0] <= len(kinds):
            raise Refusal(STALE)
        if game.phase not in (Phase.ROLL, Phase.MOVE):
            raise Refusal(N_("Answer the pending offer first."))
        return _play(record, table, lambda g: g.offer_resignation(side, kinds[data.args[0] - 1]))
    if action in (Action.ACCEPT, Action.DECLINE):
        _answering(game, side, Phase.RESIGNATION)
        if action is Action.ACCEPT:
            return _play(record, table, lambda g: g.accept_resignation(side))
        return _play(record, table, lambda g: g.decline_resignation(side))
    if action in (Action.TAKE, Action.PASS, Action.PASS_SURE, Action.BEAVER):
        _answering(game, side, Phase.DOUBLE)
        if action is Action.TAKE:
            return _play(record, table, lambda g: g.take(side))
        if action is Action.BEAVER:
            return _play(record, table, lambda g: g.beaver(side))
        if action is Action.PASS:
            return record
        return _play(record, table, lambda g: g.pass_(side))
    if action is Action.MENU:
        return record
    if action is Action.BACK:
        if game.phase is Phase.DOUBLE:
            _answering(game, side, Phase.DOUBLE)
        return record  # out of the menu or a source point: only the tapper's keyboard
    if game.to_act is not side:
        raise Refusal(NOT_YOUR_TURN)
    if action in (Action.ROLL, Action.DOUBLE, Action.DOUBLE_SURE):
        if game.phase is not Phase.ROLL:
            raise Refusal(STALE)
        if action is Action.ROLL:
            return _play(record, table, lambda g: roll_table(record, table),
                         notify_message_id=None)
        if not game.can_double(side):
            raise Refusal(N_("You cannot double now."))
        if action is Action.DOUBLE and needs_double_confirmation(record):
            return record  # the keyboard asks "Yes, double"
        if action is Action.DOUBLE_SURE and not needs_double_confirmation(record):
            raise Refusal(STALE)
        return _play(record, table, lambda g: g.double(side))
    if game.phase is not Phase.MOVE:
        raise Refusal(STALE)
    if action is Action.SOURCE:
        if not any(s.source == data.args[0] for s in game.legal_steps):
            raise Refusal(STALE)
        return record
    if action is Action.STEP:
        try:
            step = Step(*data.args)
        except EngineError:
            raise Refusal(STALE) from None
        if step not in game.legal_steps:
            raise Refusal(STALE)
        return _play(record, table, lambda g: g.play_step(step))
    if action is Action.TURN:
        return _play(record, table, lambda g: _whole_turn(g, data.args[0]))
    if action is Action.UNDO:
        if game.turn is None or not game.turn.played:
            raise Refusal(STALE)
        return _play(record, table, lambda g: undo(g, autoplay=record.options.autoplay))
    if action is Action.CONFIRM:
        if game.turn is None or not game.turn.is_complete:
            raise Refusal(N_("The turn is not complete yet."))
        return _play(record, table, lambda g: g.confirm())
    raise Refusal(STALE)


WHOLE_TURNS = 8
"""Up to this many distinct results of a roll are offered as whole-turn buttons."""


def offered_turns(game: Game) -> tuple[TurnChoice, ...]:
    """The whole turns offered as one-tap buttons: at the start of a turn
    (nothing played yet) when the roll has 2..:data:`WHOLE_TURNS` distinct
    results, in :func:`engine.choices.turn_choices` order (a button carries
    its index); none otherwise."""
    turn = game.turn
    if game.phase is not Phase.MOVE or turn is None or turn.played:
        return ()
    choices = turn_choices(turn.start, turn.dice)
    return choices if 2 <= len(choices) <= WHOLE_TURNS else ()


def _whole_turn(game: Game, index: int) -> Game:
    """Play the steps of the offered whole turn ``index`` (the turn waits at Confirm)."""
    offered = offered_turns(game)
    if not 0 <= index < len(offered):
        raise Refusal(STALE)
    for step in offered[index].steps:
        game = game.play_step(step)
    return game


_ANSWERS = {
    Phase.DOUBLE: N_("Only the doubled player answers the double."),
    Phase.RESIGNATION: N_("Only the opponent answers a resignation offer."),
}


def _answering(game: Game, side: Side, phase: Phase) -> None:
    """Refuse unless the game waits for ``side``'s answer to an offer of ``phase``."""
    if game.phase is not phase:
        raise Refusal(STALE)
    if game.to_act is not side:
        raise Refusal(_ANSWERS[phase])


def cancel_vote(record: GameRecord, user_id: int) -> GameRecord:
    """A player's vote to cancel (/cancel or the menu's button): the first
    proposes it, the opponent's vote cancels the game (or the match between
    two of its games) and books nothing."""
    if record.cancel_by is None:
        return record.model_copy(update={"cancel_by": user_id})
    if record.cancel_by == user_id:
        raise Refusal(PROPOSED)
    return record.model_copy(update={"status": Status.CANCELLED, "cancel_by": None,
                                     "rematch_by": None})


_cancel = cancel_vote  # the name the play functions call it by


def _play(record: GameRecord, table: MatchState, step: Any, **changes: Any) -> GameRecord:
    try:
        game = step(table.game)
    except EngineError:
        raise Refusal(STALE) from None
    new = dataclasses.replace(table, game=game)
    if game.is_over:
        new = new.scored()
        changes.setdefault("status", Status.FINISHED)
    return with_table(record, new, cancel_by=None, **changes)


def match_in_progress(record: GameRecord) -> bool:
    """A game of a match ended and the match did not: the record waits for
    its next game (or for both players, or an admin, to end the match)."""
    return (record.status is Status.FINISHED and bool(record.engine)
            and not table_of(record).match_over)


def after_game(record: GameRecord, user_id: int, data: Callback, dealer: Dealer
               ) -> GameRecord:
    """The record after a button of a finished (or cancelled) game.

    A new lobby (New game: anyone, not in a private game and not between
    two games of a match), or a step of the offer of the next game: the
    next game of the match, or a rematch of the same two players.  One
    player offers (Rematch / Next game), the other accepts or declines, the
    offerer may withdraw; the game starts only when both have tapped, so a
    staked or timed game never starts on one player's tap.  Between two
    games of a match the players may also answer a proposal to end the
    match (``/cancel``).  The boards in private chats stay the game's views.
    """
    if record.status not in (Status.FINISHED, Status.CANCELLED):
        raise Refusal(STALE)
    action = data.action
    if action is Action.NEW:
        if record.is_private:
            raise Refusal(STALE)  # no chat to open a lobby in; the button is not offered
        if match_in_progress(record):
            raise Refusal(MATCH_IN_PROGRESS)
        return new_lobby(record.chat_id, record.thread_id, record.variant, record.options,
                         user_id, dealer).model_copy(update={"board_message_id": None})
    if seat_of(record, user_id) is None:
        raise Refusal(NOT_PLAYING)
    if record.status is Status.CANCELLED:
        raise Refusal(STALE)
    if action in (Action.CANCEL, Action.KEEP):
        if not match_in_progress(record) or record.cancel_by is None:
            raise Refusal(STALE)
        if action is Action.CANCEL:
            return _cancel(record, user_id)
        return record.model_copy(update={"cancel_by": None})
    offerer = record.rematch_by
    if action is Action.REMATCH and offerer is None:
        # a rematch is a new match: its seed is committed with the offer
        fresh = committed(dealer) if table_of(record).match_over else None
        return record.model_copy(update={"rematch_by": user_id, "next_dice": fresh})
    if offerer is None or action not in (Action.REMATCH, Action.ACCEPT, Action.DECLINE,
                                         Action.WITHDRAW):
        raise Refusal(STALE)
    if action is Action.WITHDRAW:
        if offerer != user_id:
            raise Refusal(N_("Only the player who made the offer can withdraw it."))
        return record.model_copy(update={"rematch_by": None, "next_dice": None})
    if offerer == user_id:
        raise Refusal(PROPOSED)
    if action is Action.DECLINE:
        return record.model_copy(update={"rematch_by": None, "next_dice": None})
    return _following(record, dealer)  # the other player accepts (or offered the same)


def _following(record: GameRecord, dealer: Dealer) -> GameRecord:
    """The next game of the match (the match's dice, the next game number),
    or a rematch: a new match with the seed committed on the offer and the
    accepting tap's entropy."""
    table = table_of(record)
    if table.match_over:
        following = MatchState(Game.new(table.game.options))
        state = with_tap(record.next_dice or committed(dealer), dealer.tap_id)
    else:
        following = table.next_game()
        state = record.dice if record.dice is not None else committed(dealer)
    new = GameRecord(chat_id=record.chat_id, thread_id=record.thread_id, variant=record.variant,
                     options=record.options, players=record.players, status=Status.ACTIVE,
                     engine={}, created_by=record.created_by, views=record.views, dice=state)
    return new.model_copy(update={"engine": engine_dict(advanced(following, new))})


# ---------------------------------------------------------------- history


def outcome(record: GameRecord) -> Outcome:
    """What the ledger and the stats need of a finished or cancelled game (see
    bot/rules/booking.py)."""
    table = table_of(record) if record.engine else None
    result = None
    if record.status is Status.FINISHED and table is not None:
        result = table.game.result
    return Outcome(record.game_id, record.variant, record.players, result,
                   record.options.stake_per_point, table.match_length if table else 0,
                   table.score if table else (0, 0), record.thread_id)


# ---------------------------------------------------------------- the clock


def waiting_side(record: GameRecord) -> Side | None:
    """The side the record waits for: the player to act, after the end the
    one to answer an offer of the next game (None in a lobby, or nobody)."""
    if record.status is Status.FINISHED and record.rematch_by is not None:
        offerer = seat_of(record, record.rematch_by)
        return None if offerer is None else offerer.opponent
    if record.status is not Status.ACTIVE:
        return None
    return table_of(record).game.to_act


def waiting_user(record: GameRecord) -> int | None:
    """The user id the record waits for (see :func:`waiting_side`)."""
    side = waiting_side(record)
    return None if side is None else player_on(record, side).user_id


def with_deadline(old: GameRecord, new: GameRecord, now: float) -> GameRecord:
    """``new`` with its clock's deadline: a fresh period whenever the game
    starts waiting for someone else, none while paused or over (bot/rules/deadlines.py)."""
    restart = new.game_id != old.game_id or waiting_user(old) != waiting_user(new)
    deadline = deadlines.new_deadline(new.deadline, new.options.time_control, now,
                                  running=new.status is Status.ACTIVE and new.paused_at is None,
                                  restart=restart)
    return new if deadline == new.deadline else new.model_copy(update={"deadline": deadline})


NO_CLOCK = N_("This game has no clock.")


def _timed_out_opponent(record: GameRecord, user_id: int, now: float) -> Side:
    """The tapper's side if they may claim a win on time or give more time."""
    side = seat_of(record, user_id)
    if record.status is not Status.ACTIVE:
        raise Refusal(N_("This game is over."))
    if side is None:
        raise Refusal(NOT_PLAYING)
    if record.deadline is None or record.paused_at is not None or now < record.deadline:
        raise Refusal(N_("The time is not up: the clock was reset, paused or extended."))
    if table_of(record).game.to_act is side:
        raise Refusal(N_("Only your opponent can claim the win on time."))
    return side


def claim_timeout(record: GameRecord, user_id: int, now: float) -> GameRecord:
    """The opponent of a player whose time ran out wins a single game (times
    the cube); not a player whose own resignation offer waits for the answer."""
    side = _timed_out_opponent(record, user_id, now)
    offer = table_of(record).game.resign_offer
    if offer is not None and offer.side is side:
        # the time that ran out is the opponent's time to answer this very offer
        raise Refusal(N_("You offered to resign and your opponent has not answered: you "
                         "cannot claim the win on time. Give them more time, or wait."))
    return _play(record, table_of(record), lambda g: g.claim_timeout(side))


def more_time(record: GameRecord, user_id: int, now: float) -> GameRecord:
    """The opponent gives the late player one more period, from now."""
    _timed_out_opponent(record, user_id, now)
    limit = record.options.time_control
    if limit is None:
        raise Refusal(NO_CLOCK)
    return record.model_copy(update={"deadline": now + limit, "updated_at": now})


def pause_request(record: GameRecord, user_id: int, now: float, *, pause: bool) -> GameRecord:
    """/pause or /resume by a player (or agreeing to the other's proposal).

    Pausing needs both players: the first proposes, the other agrees.
    Resuming: the player the game waits for resumes at once (it is their
    clock that starts again, with a full period); the other player proposes
    it and the player to move agrees.  Returns ``record`` itself when it is
    already so.
    """
    if record.status is not Status.ACTIVE:
        raise Refusal(N_("This game is over."))
    if seat_of(record, user_id) is None:
        raise Refusal(NOT_PLAYING)
    if record.options.time_control is None:
        raise Refusal(NO_CLOCK)
    paused = record.paused_at is not None
    if paused is pause:
        return record
    agreed = record.pause_by is not None and record.pause_by != user_id
    if pause and not agreed:
        if record.pause_by == user_id:
            raise Refusal(PROPOSED)
        return record.model_copy(update={"pause_by": user_id})
    if not pause and not agreed and waiting_user(record) != user_id:
        if record.pause_by == user_id:
            raise Refusal(PROPOSED)
        return record.model_copy(update={"pause_by": user_id})
    return record.model_copy(update={"pause_by": None, "paused_at": now if pause else None,
                                     "updated_at": now})


def drop_pause_request(record: GameRecord, user_id: int) -> GameRecord:
    """Either player says no to a pending pause (or resume) proposal."""
    if seat_of(record, user_id) is None:
        raise Refusal(NOT_PLAYING)
    if record.pause_by is None:
        raise Refusal(STALE)
    return record.model_copy(update={"pause_by": None})


# ---------------------------------------------------------------- the compare-and-set


async def save(store: Store, old: GameRecord, new: GameRecord, now: float | None = None
               ) -> GameRecord:
    """Write ``new`` over ``old`` (one CAS on ``old.version``); the end of a
    game is booked atomically with the ledger and history, and the clock's
    deadline follows the game (:func:`with_deadline`).  Raises
    :class:`VersionConflict` when the record changed meanwhile."""
    saved, upkeep = await save_first(store, old, new, now)
    await upkeep()
    return saved


async def save_first(store: Store, old: GameRecord, new: GameRecord, now: float | None = None
                     ) -> tuple[GameRecord, Callable[[], Awaitable[None]]]:
    """:func:`save` up to the CAS; the index upkeep is left to the caller
    (:meth:`Store.save_first`: a tap is answered before it runs)."""
    new = with_deadline(old, new, deadlines.now() if now is None else now)
    ends = (old.status is Status.ACTIVE and new.game_id == old.game_id
            and new.status in (Status.FINISHED, Status.CANCELLED))
    upkeep: Callable[[], Awaitable[None]] = no_upkeep
    if ends:
        ended = outcome(new)
        entry, ledger = booking(ended)
        stats = functools.partial(updated_stats, ended)
        dice = dice_booking(new, table_of(new).game) if new.engine else None
        saved = (await store.finish_game(new, old.version, entry, ledger, stats,
                                         dice=dice)).record
        if saved.status is Status.FINISHED:  # kept for its analysis (bot/store/finished.py)
            upkeep = functools.partial(finished.keep, store, saved)
    else:
        saved, upkeep = await store.save_first(new, old.version)
    if saved.engine:
        remember_table(saved, table_of(new))
    return saved, upkeep


CHANGED = N_("The game changed meanwhile; please try again.")


async def commit_game(store: Store, load: Callable[[], Awaitable[GameRecord | None]],
                      change: Callable[[GameRecord, float], GameRecord], *, retries: int = 2
                      ) -> tuple[GameRecord, GameRecord] | None:
    """Load a game, apply the pure ``change(record, now)`` and :func:`save` it
    with one compare-and-set at ``now``; on a lost race all again (the one
    loop, :func:`bot.store.commit.commit`).  Returns (before, after), the
    same record twice when ``change`` returned it unchanged, or None when
    ``load`` found no game.  ``change`` may raise :class:`Refusal`; after
    ``retries`` lost races: :class:`Refusal` (:data:`CHANGED`)."""
    now = deadlines.now()

    def step(record: GameRecord | None) -> GameRecord | None:
        nonlocal now
        if record is None:
            return None
        now = deadlines.now()  # the same moment for the change and its deadline
        return change(record, now)

    async def write(old: GameRecord | None, new: GameRecord | None) -> GameRecord:
        assert old is not None and new is not None  # ``step`` made ``new`` of ``old``
        return await save(store, old, new, now)

    try:
        before, after = await commit(load, step, write, retries=retries)
    except VersionConflict:
        raise Refusal(CHANGED) from None
    return None if before is None or after is None else (before, after)


async def load_for(store: Store, chat_id: int, thread_id: int | None, data: Callback
                   ) -> GameRecord:
    """The record a button acts on, at the version it was drawn for, else :class:`Refusal`.

    A freshly posted message is drawn for the version its own save is about
    to create (see :func:`bot.edge.handlers.board.repost`); a tap that arrives
    before that save lands waits for it a moment instead of being refused.
    """
    for _ in range(FUTURE_WAITS):
        record = await store.load_game(chat_id, thread_id)
        if record is None or record.game_id != data.id or record.version >= data.version:
            break
        await asyncio.sleep(0.02)
    if record is None or record.game_id != data.id or record.version != data.version:
        raise Refusal(STALE)
    expected = Kind.LOBBY if record.status is Status.LOBBY else Kind.GAME
    if data.kind is not expected:
        raise Refusal(STALE)
    return record

