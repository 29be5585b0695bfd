"""The options of a game table: ``/new`` arguments parsed, the chat's clock
added, and the engine's rules they ask for (or :class:`OptionError`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from bot.present.i18n import N_
from bot.present.usertext import ARGUMENT_LIMIT, clean
from bot.rules import deadlines
from bot.rules.refusals import Refusal
from bot.store.records import TableOptions
from engine.game import GameError, GameOptions
from engine.position import Variant


class OptionError(Refusal):
    """A /new option that does not parse."""


_BOOL = {"on": True, "off": False, "yes": True, "no": False, "1": True, "0": False}
VARIANT_WORDS = {
    "long": Variant.LONG, "nardy": Variant.LONG, "l": Variant.LONG,
    "backgammon": Variant.BACKGAMMON, "bg": Variant.BACKGAMMON, "short": Variant.BACKGAMMON,
    "b": Variant.BACKGAMMON,
}
OPTION_NAMES = ("stake", "match", "cube", "koks", "jacoby", "beavers", "time", "level",
                "autoplay", "hints")
COMPUTER_WORDS = frozenset({"bot", "computer", "ai"})
LEVEL_WORDS = ("easy", "medium", "strong", "best")
COMPUTER_UNSTAKED = N_("Games against the bot are never staked and have no clock: leave out "
                       "stake= and time=.")
HINTS_UNSTAKED = N_("A game with hints is practice and is never staked: leave out stake= or "
                    "hints=on.")
MAX_MATCH = 25
MAX_STAKE = 1_000_000


def parse_new_args(args: Sequence[str]) -> tuple[Variant | None, TableOptions]:
    """``/new`` arguments: an optional variant word and ``name=value`` options.

    >>> parse_new_args(["backgammon", "match=7", "cube=off"])
    (<Variant.BACKGAMMON: 'backgammon'>, TableOptions(stake_per_point=0, match_length=7, \
cube=False, koks=False, jacoby=False, beavers=False, time_control=None, computer=None, \
autoplay=True, hints=None))
    >>> parse_new_args(["long", "bot", "level=strong"])[1].computer
    'strong'
    >>> parse_new_args(["speed=9"])
    Traceback (most recent call last):
    ...
    bot.rules.options.OptionError: Unknown option {option}. Valid options: {valid}.
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
                raise OptionError(N_("level is easy, medium, strong or best."))
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
    if values.get("hints") and values.get("stake_per_point"):
        raise OptionError(HINTS_UNSTAKED)
    return variant, TableOptions(**values)


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
        if variant is Variant.LONG:
            if options.jacoby or options.beavers:
                raise OptionError(N_("Jacoby and beavers are backgammon cube rules."))
            return GameOptions.long(koks=options.koks, match_length=match)
        if options.koks:
            raise OptionError(N_("Koks is a long nardy rule."))
        if (options.jacoby or options.beavers) and match:
            raise OptionError(N_("Jacoby and beavers are for single games, not matches."))
        if (options.jacoby or options.beavers) and not options.cube:
            raise OptionError(N_("Jacoby and beavers need the cube."))
        return GameOptions.backgammon(cube=options.cube, jacoby=options.jacoby,
                                        beavers=options.beavers, match_length=match)
    except GameError as error:  # pragma: no cover - the checks above come first
        raise OptionError(N_("These options do not go together: {reason}"),
                          reason=str(error)) from None
