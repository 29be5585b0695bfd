"""The options of a game table: ``/new`` arguments parsed, the chat's clock
added, and the engine's rules they ask for (or :class:`OptionError`).

Every option is one row of :data:`OPTIONS`: its word, the ``TableOptions``
field it sets, how its value is written, the engine's rule it becomes, its
bit in an inline Join, its captions and its part of ``/help``, and what a
game against the computer does with it.  The parser, the inline codec
(:class:`bot.present.inline.InlineJoin`), the captions
(:func:`bot.present.lobby.options_line`), ``/help``
(:func:`bot.present.help.help_text`) and the computer
(:func:`bot.rules.computer.computer_options`) read that table and list no
option of their own (docs/architecture.md, "Adding a game option").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from bot.vocab import clock
from bot.vocab.i18n import N_
from bot.vocab.records import TableOptions
from bot.vocab.refusals import Refusal
from bot.vocab.usertext import ARGUMENT_LIMIT, clean
from engine.game import GameError, GameOptions
from engine.position import Variant


class OptionError(Refusal):
    """A /new option that does not parse."""


class Kind(Enum):
    """How an option's value is written after its ``word=``."""

    ON_OFF = "on|off"  # also yes/no, 1/0
    NUMBER = "N"  # a whole number from Option.low to Option.high
    TIME = "time"  # a time per move: 12h, 1d, none (bot/vocab/clock.py)
    LEVEL = "level"  # the computer's level: easy, medium, strong, best, auto


class VsComputer(Enum):
    """What a game against the computer does with an option."""

    KEPT = "kept"  # as asked
    REFUSED = "refused"  # asking for it is refused (COMPUTER_UNSTAKED); the game has the default
    DROPPED = "dropped"  # the computer does not play it: the game has the default whatever asked


@dataclass(frozen=True, slots=True)
class Option:
    """One ``/new`` option, as everything that reads options sees it."""

    word: str
    """What ``/new`` calls it: ``cube`` in ``cube=off``."""
    field: str
    """The :class:`TableOptions` field it sets."""
    kind: Kind
    low: int = 0
    high: int = 0
    """A number's range."""
    example: str = ""
    """A number's example in its error message."""
    invalid: str = ""
    """The msgid for a value that does not parse (a time, a level; on/off and
    numbers have their kind's)."""
    unasked: bool | None = None
    """The value ``/new`` gives when the option is not asked for, when that is
    not the field's default (koks: off in new games, on in records saved
    before it was an option); None: the field's default."""
    variant: Variant | None = None
    """The only variant it belongs to: its engine rule and captions are that
    variant's alone (None: both)."""
    elsewhere: str | None = None
    """The msgid refusing it when on in the other variant (None: ignored there)."""
    engine: str | None = None
    """The :class:`GameOptions` keyword it becomes (None: not an engine rule)."""
    bit: int | None = None
    """An on/off option's bit in an inline Join's flags (``ij:…``).  Joins
    already posted carry these bits: never move or reuse one; a new option
    takes the next free bit."""
    inline_off: bool | None = False
    """What a Join's cleared bit decodes to (hints: None, the default, which
    between people is off)."""
    inline_refusal: str | None = None
    """The msgid refusing it in an inline game (asked for, or not its
    default); None: it travels in the Join (a bit, or its own part)."""
    invite_refusal: str | None = None
    """The msgid refusing it in an invitation (``/invite``: a private game
    between two people), asked for or not its default; None: the invitation
    carries it."""
    on: str | None = None
    """The msgid of its caption when on (an on/off option), or when not its
    default (a number: ``{n}``, a time: ``{time}``)."""
    off: str | None = None
    """The msgid of an on/off option's caption when off."""
    mark: str = ""
    """Put before its ``on`` caption."""
    usual: Callable[[TableOptions], bool] | None = None
    """The value an on/off option has unless asked otherwise, which its
    captions leave out (None: it shows either value it has a caption for)."""
    leads_caption: bool = False
    """Its caption comes before the others' (the match length)."""
    help: str | None = None
    """The msgid of its part of ``/help``'s list of options (``word=values (note)``)."""
    help_line: str | None = None
    """The msgid of a ``/help`` line of its own, after the list."""
    computer: VsComputer = VsComputer.KEPT
    """What a game against the computer does with it."""

    def __post_init__(self) -> None:
        if self.kind is Kind.ON_OFF and self.bit is None and self.inline_refusal is None:
            raise ValueError(f"option {self.word}: an on/off option needs its inline bit "
                             "(or a reason inline games refuse it)")
        if self.bit is not None and self.kind is not Kind.ON_OFF:
            raise ValueError(f"option {self.word}: only on/off options have an inline bit")
        if self.help is not None and not self.help.startswith(f"{self.word}="):
            raise ValueError(f"option {self.word}: its help starts {self.word}=")

    @property
    def default(self) -> Any:
        """The field's default (what a game has that never asked)."""
        return TableOptions.model_fields[self.field].default

    def asked(self, args: Sequence[str]) -> bool:
        """Whether ``args`` (``/new``'s words) give this option a value."""
        return any(arg.strip().lower().startswith(f"{self.word}=") for arg in args)


def check_table(table: Sequence[Option]) -> None:
    """``ValueError`` unless each option of ``table`` has a word, a field and
    an inline bit of its own."""
    for what in ("word", "field", "bit"):
        taken = [getattr(o, what) for o in table if getattr(o, what) is not None]
        if len(taken) != len(set(taken)):
            raise ValueError(f"two options have the same {what}: {taken}")


def _hints_usual(options: TableOptions) -> bool:
    return options.computer is not None  # on against the computer, off between people


NO_STAKE = N_("Inline games have no chat ledger, so they are never staked. Play for stakes "
              "with /new in a group with the bot.")
NO_COMPUTER = N_("To play the bot, send /new bot in our private chat.")
NO_PRIVATE_STAKE = N_("A private game has no stakes: they are booked in a group's ledger. "
                      "Play for stakes with /new in a group.")
INVITE_PERSON = N_("An invitation is for a person: to play the bot, send /new bot.")
MAX_MATCH = 25
MAX_STAKE = 1_000_000
BACKGAMMON_CUBE_RULES = N_("Jacoby and beavers are backgammon cube rules.")

OPTIONS: tuple[Option, ...] = (
    Option("stake", "stake_per_point", Kind.NUMBER, low=0, high=MAX_STAKE, example="stake=10",
           inline_refusal=NO_STAKE, invite_refusal=NO_PRIVATE_STAKE, on=N_("stake {n} per point"),
           help=N_("stake=N (per point)"), computer=VsComputer.REFUSED),
    Option("match", "match_length", Kind.NUMBER, low=1, high=MAX_MATCH, example="match=5",
           on=N_("match to {n}"), leads_caption=True, help=N_("match=N (points)")),
    Option("cube", "cube", Kind.ON_OFF, variant=Variant.BACKGAMMON, engine="cube", bit=0,
           on=N_("cube on"), off=N_("cube off"), help=N_("cube=on|off")),
    Option("koks", "koks", Kind.ON_OFF, unasked=False, variant=Variant.LONG,
           elsewhere=N_("Koks is a long nardy rule."), engine="koks", bit=1,
           on=N_("koks counts triple"), help=N_("koks=on|off (long nardy)")),
    Option("jacoby", "jacoby", Kind.ON_OFF, variant=Variant.BACKGAMMON,
           elsewhere=BACKGAMMON_CUBE_RULES, engine="jacoby", bit=2, on=N_("Jacoby rule"),
           help=N_("jacoby=on|off")),
    Option("beavers", "beavers", Kind.ON_OFF, variant=Variant.BACKGAMMON,
           elsewhere=BACKGAMMON_CUBE_RULES, engine="beavers", bit=3, on=N_("beavers"),
           help=N_("beavers=on|off (backgammon)"), computer=VsComputer.DROPPED),
    Option("time", "time_control", Kind.TIME,
           invalid=N_("time is the limit per move, 1h to 14d: time=12h, time=1d, time=3d or "
                      "time=none."),
           on=N_("{time} per move"), computer=VsComputer.REFUSED),
    Option("level", "computer", Kind.LEVEL,
           invalid=N_("level is easy, medium, strong, best or auto (it follows your results)."),
           inline_refusal=NO_COMPUTER, invite_refusal=INVITE_PERSON),
    Option("autoplay", "autoplay", Kind.ON_OFF, bit=4, off=N_("forced turns by hand")),
    Option("hints", "hints", Kind.ON_OFF, bit=5, inline_off=None, on=N_("hints on"), mark="💡 ",
           off=N_("no hints"), usual=_hints_usual,
           help_line=N_("💡 hints=on: the player to move may ask for the best turns (joining "
                        "such a game is agreeing to it; never with a stake). Games against the "
                        "bot have hints unless hints=off.")),
)
"""Every ``/new`` option, in the order ``/help`` and the list of valid options
name them.  Adding one: docs/architecture.md, "Adding a game option"."""
check_table(OPTIONS)


_BOOL = {"on": True, "off": False, "yes": True, "no": False, "1": True, "0": False}
VARIANT_WORDS = {
    "long": Variant.LONG, "nardy": Variant.LONG, "l": Variant.LONG,
    "backgammon": Variant.BACKGAMMON, "bg": Variant.BACKGAMMON, "short": Variant.BACKGAMMON,
    "b": Variant.BACKGAMMON,
}
OPTION_NAMES = tuple(option.word for option in OPTIONS)
COMPUTER_WORDS = frozenset({"bot", "computer", "ai"})
AUTO = "auto"
LEVEL_WORDS = ("easy", "medium", "strong", "best", AUTO)
"""What ``level=`` takes (and, after ``bot``, a word alone: ``/new long bot auto``):
the computer's levels, and :data:`AUTO`, the level that follows the person's
results (bot/rules/computer.py ``auto_rung``)."""
COMPUTER_UNSTAKED = N_("Games against the bot are never staked and have no clock: leave out "
                       "stake= and time=.")
HINTS_UNSTAKED = N_("A game with hints is practice and is never staked: leave out stake= or "
                    "hints=on.")


def parse_new_args(args: Sequence[str]) -> tuple[Variant | None, TableOptions]:
    """``/new`` arguments: an optional variant word and ``name=value`` options.

    >>> variant, options = parse_new_args(["backgammon", "match=7", "cube=off"])
    >>> variant, options.match_length, options.cube, options.koks, options.stake_per_point
    (<Variant.BACKGAMMON: 'backgammon'>, 7, False, False, 0)
    >>> parse_new_args(["long", "bot", "level=strong"])[1].computer
    'strong'
    >>> parse_new_args(["long", "bot", "auto"])[1].computer
    'auto'
    >>> parse_new_args(["speed=9"])
    Traceback (most recent call last):
    ...
    bot.rules.options.OptionError: Unknown option {option}. Valid options: {valid}.
    """
    variant, values = parse_words(args)
    return variant, TableOptions(**values)


def parse_words(args: Sequence[str], table: Sequence[Option] = OPTIONS
                ) -> tuple[Variant | None, dict[str, Any]]:
    """:func:`parse_new_args` with the options of ``table``: the variant and
    the fields the words set (the rest keep their defaults)."""
    by_word = {option.word: option for option in table}
    variant: Variant | None = None
    values: dict[str, Any] = {o.field: o.unasked for o in table if o.unasked is not None}
    for arg in args:
        word = arg.strip().lower()
        if word in VARIANT_WORDS and "=" not in word:
            variant = VARIANT_WORDS[word]
            continue
        if word in COMPUTER_WORDS:
            values.setdefault("computer", "medium")
            continue
        if word in LEVEL_WORDS:  # a level alone plays the bot: /new long bot auto
            values["computer"] = word
            continue
        name, sep, value = word.partition("=")
        if not sep or name not in by_word:
            raise OptionError(N_("Unknown option {option}. Valid options: {valid}."),
                              option=clean(arg, ARGUMENT_LIMIT), valid=", ".join(
                                  ["long", "backgammon", "bot"] + [f"{o.word}=…" for o in table]))
        option = by_word[name]
        values[option.field] = _value(option, value)
    if variant is not None:
        check_asked(args, variant, table)
    if "computer" in values and any(o.asked(args) for o in table
                                    if o.computer is VsComputer.REFUSED):
        raise OptionError(COMPUTER_UNSTAKED)
    if values.get("hints") and values.get("stake_per_point"):
        raise OptionError(HINTS_UNSTAKED)
    return variant, values


NOT_A_RULE_OF = {
    Variant.LONG: N_("{option}= is not a rule of long nardy (it has no doubling cube): "
                     "leave it out, or play backgammon."),
    Variant.BACKGAMMON: N_("{option}= is not a rule of backgammon: leave it out, or play "
                           "long nardy."),
}
"""Refusing an option asked for in a variant it is no rule of (cube=on in long
nardy was taken and ignored: issue 37)."""


def check_asked(args: Sequence[str], variant: Variant, table: Sequence[Option] = OPTIONS
                ) -> None:
    """:class:`OptionError` when ``args`` (``/new``'s words) give a value to an
    option of the other variant than ``variant`` (the one the game is of, once
    known: the word, or the chat's default), whatever the value: it would be
    ignored, and the player would think it set.

    >>> check_asked(["cube=off"], Variant.BACKGAMMON)
    >>> check_asked(["long", "cube=on"], Variant.LONG)
    Traceback (most recent call last):
    ...
    bot.rules.options.OptionError: {option}= is not a rule of long nardy (it has no doubling \
cube): leave it out, or play backgammon.
    """
    for option in table:
        if option.variant not in (None, variant) and option.asked(args):
            raise OptionError(option.elsewhere or NOT_A_RULE_OF[variant], option=option.word)


def _value(option: Option, value: str) -> object:
    """The value ``option=value`` sets, or :class:`OptionError`."""
    if option.kind is Kind.NUMBER:
        if not re.fullmatch(r"[0-9]{1,7}", value) or not option.low <= int(value) <= option.high:
            raise OptionError(N_("{option} needs a whole number from {low} to {high}, "
                                 "for example {example}."),
                              option=option.word, low=option.low, high=option.high,
                              example=option.example)
        return int(value)
    if option.kind is Kind.LEVEL:
        if value not in LEVEL_WORDS:
            raise OptionError(option.invalid)
        return value
    if option.kind is Kind.TIME:
        try:
            return clock.parse_time_control(value)
        except clock.TimeControlError:
            raise OptionError(option.invalid) from None
    if value not in _BOOL:
        raise OptionError(N_("{option} is on or off."), option=option.word)
    return _BOOL[value]


def with_chat_clock(args: Sequence[str], options: TableOptions, default: int | None
                    ) -> TableOptions:
    """``/new`` options with the chat's time control (``/clock``) unless ``time=`` was given.

    >>> with_chat_clock(["long"], TableOptions(), 86400).time_control
    86400
    >>> with_chat_clock(["time=none"], TableOptions(), 86400).time_control is None
    True
    """
    if any(arg.strip().lower().startswith("time=") for arg in args):
        return options
    return options.model_copy(update={"time_control": default})


def engine_options(variant: Variant, options: TableOptions) -> GameOptions:
    """The engine's rules for a lobby's options; raises :class:`OptionError` for
    combinations the rules do not have."""
    match = options.match_length if options.match_length > 1 else 0
    try:
        return GameOptions(variant, match_length=match, **engine_rules(variant, options))
    except GameError as error:  # pragma: no cover - engine_rules checks first
        raise OptionError(N_("These options do not go together: {reason}"),
                          reason=str(error)) from None


def engine_rules(variant: Variant, options: TableOptions, table: Sequence[Option] = OPTIONS
                 ) -> dict[str, Any]:
    """The :class:`GameOptions` keywords ``options`` ask for in ``variant``
    (but the match length); :class:`OptionError` for an option of the other
    variant, or for rules that do not go together."""
    for option in table:
        if option.elsewhere and option.variant is not variant and getattr(options, option.field):
            raise OptionError(option.elsewhere)
    rules = {o.engine: getattr(options, o.field) for o in table
             if o.engine is not None and o.variant in (None, variant)}
    if rules.get("jacoby") or rules.get("beavers"):
        if options.match_length > 1:
            raise OptionError(N_("Jacoby and beavers are for single games, not matches."))
        if not rules.get("cube"):
            raise OptionError(N_("Jacoby and beavers need the cube."))
    return rules


def inline_flags(options: TableOptions, table: Sequence[Option] = OPTIONS) -> int:
    """The on/off options of ``options`` as an inline Join's flags (each its
    :attr:`Option.bit`)."""
    return sum(1 << o.bit for o in table if o.bit is not None and getattr(options, o.field))


def from_inline_flags(digits: str, table: Sequence[Option] = OPTIONS) -> dict[str, Any] | None:
    """The fields an inline Join's flags (``digits``, as :func:`inline_flags`
    wrote them) set: every on/off option of ``table``; None for flags no
    Join of ``table`` has (a bit no option has, or too many digits).

    >>> {field: on for field, on in from_inline_flags("17").items() if on}
    {'cube': True, 'autoplay': True}
    >>> from_inline_flags(str(1 << 40)) is None, from_inline_flags("0" * 40 + "1") is None
    (True, True)
    """
    known = sum(1 << o.bit for o in table if o.bit is not None)
    if not re.fullmatch(r"[0-9]+", digits) or len(digits) > len(str(known)) or int(digits) & ~known:
        return None
    bits = int(digits)
    return {o.field: True if bits >> o.bit & 1 else o.inline_off for o in table
            if o.bit is not None}


def inline_refusal(args: Sequence[str], options: TableOptions,
                   table: Sequence[Option] = OPTIONS) -> str | None:
    """Why an inline game cannot have ``options`` (a msgid), None if it can:
    an option inline games refuse asked for in ``args``, or not its default."""
    return _refused(args, options, [(o, o.inline_refusal) for o in table])


def invite_refusal(args: Sequence[str], options: TableOptions,
                   table: Sequence[Option] = OPTIONS) -> str | None:
    """Why an invitation cannot have ``options`` (a msgid), None if it can: an
    option an invitation refuses asked for in ``args`` (``level=``), or not
    its default (``bot``, a level word alone: the computer's level).

    >>> invite_refusal(["long", "bot"], parse_new_args(["long", "bot"])[1]) == INVITE_PERSON
    True
    >>> invite_refusal(["koks=on"], parse_new_args(["koks=on"])[1]) is None
    True
    """
    return _refused(args, options, [(o, o.invite_refusal) for o in table])


def _refused(args: Sequence[str], options: TableOptions,
             refusals: Sequence[tuple[Option, str | None]]) -> str | None:
    """The first refusal (a msgid) of an option asked for in ``args`` or not
    at its default, among the options a kind of game refuses (``refusals``:
    each option with its refusal there, None: not refused)."""
    return next((why for o, why in refusals if why is not None
                 and (o.asked(args) or getattr(options, o.field) != o.default)), None)


def computer_fields(table: Sequence[Option] = OPTIONS) -> dict[str, Any]:
    """The fields a game against the computer always has: the default of
    every option it refuses or does not play."""
    return {o.field: o.default for o in table if o.computer is not VsComputer.KEPT}

