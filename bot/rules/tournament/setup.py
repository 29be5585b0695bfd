"""``/tournament`` arguments: the format and the tournament's own options.

The words this reads are the tournament's; every other word (the variant,
``match=``, ``cube=``, ``time=`` ...) is each game's, returned for
:func:`bot.rules.options.parse_new_args` to read as ``/new`` does.

* the format: ``rr`` (round robin, the default), ``double`` (a double round
  robin), ``swiss``, ``ko`` (knockout), ``consolation`` (a knockout with a
  consolation bracket);
* ``rounds=N``: a Swiss's rounds (1-15; default ``ceil(log2 n) + 1``);
* ``entry=N``: the entry stake (0-1,000,000; the chat's ledger unit);
* ``split=60/30/10``: the prize split (:mod:`bot.rules.tournament.prizes`);
* ``max=N``: the most entrants (the format's limits:
  :data:`~bot.rules.tournament.formats.FORMATS`);
* ``round=3d``: how long a round may take (1h-14d, default 7d);
* ``start=12h``: start by itself that long after creation (1h-14d);
* ``match=1,3,5``: each round's match length (1-25 points), the last one for
  the rounds after it (a single ``match=5`` is each game's option, as in
  ``/new``);
* ``final=7``: a knockout's final is a match of that length.

>>> setup, rest = parse_setup(["swiss", "rounds=5", "long", "match=3", "entry=10", "round=2d"])
>>> setup.format.value, setup.rounds, setup.entry_stake, setup.round_length, rest
('swiss', 5, 10, 172800, ['long', 'match=3'])
>>> setup, rest = parse_setup(["ko", "match=1,3", "final=7"])
>>> setup.round_matches, setup.final_match, rest
((1, 3), 7, [])
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bot.rules.options import MAX_MATCH
from bot.rules.tournament.actions import MAX_SWISS_ROUNDS, Setup
from bot.rules.tournament.formats import FORMATS
from bot.rules.tournament.prizes import SplitError, check_split
from bot.vocab import clock
from bot.vocab.i18n import N_
from bot.vocab.refusals import Refusal
from bot.vocab.tournament import Format

MAX_ENTRY = 1_000_000

FORMAT_WORDS: dict[str, tuple[Format, Mapping[str, bool]]] = {
    word: (f, flags) for f, row in FORMATS.items() for word, flags in row.words.items()}
"""Each format's words (its row's ``words``) -> the format and the flags it sets."""

NUMBER = N_("{option} needs a whole number from {low} to {high}, for example {example}.")
ONE_FORMAT = N_("Pick one format: rr or double (round robin), swiss, ko or consolation "
                "(knockout).")
SWISS_ONLY = N_("rounds= is for a Swiss tournament.")
BAD_SPLIT = N_("split is the prize of each place in percent, the best place first, adding up "
               "to 100: split=60/30/10.")
BAD_ROUND = N_("round is the time a round may take, 1h to 14d: round=3d.")
BAD_MATCHES = N_("match=1,3,5 gives each round's match length, 1 to {most} points, the last "
                 "one for the rounds after; at most {rounds} of them.")
KNOCKOUT_ONLY = N_("final= is for a knockout: final=7 makes its final a 7-point match.")
SPLIT_PLACES = N_("split= pays {places} places but max= lets only {most} play: pay at most "
                  "{most}.")
ONLY = {"rounds": SWISS_ONLY, "final": KNOCKOUT_ONLY}
"""A value only some formats take (their rows' ``takes``) -> the refusal of
another's."""
BAD_START = N_("start is when the tournament starts by itself, 1h to 14d from now: start=12h.")


class SetupError(Refusal):
    """A ``/tournament`` argument that does not parse."""


def parse_setup(args: Sequence[str]) -> tuple[Setup, list[str]]:
    """The tournament's setup and the words left for each game's options."""
    format_: Format | None = None
    flags: dict[str, Any] = {}
    values: dict[str, Any] = {}
    rest = []
    for arg in args:
        word = arg.strip().lower()
        name, sep, value = word.partition("=")
        if word in FORMAT_WORDS:
            found, flag = FORMAT_WORDS[word]
            if format_ not in (None, found):
                raise SetupError(ONE_FORMAT)
            format_ = found
            flags.update(flag)
        elif sep and name == "match" and "," in value:
            values["matches"] = _matches(value)
        elif sep and name in _VALUES:
            values[name] = _VALUES[name](value)
        else:
            rest.append(arg)
    format_ = format_ or Setup().format
    row = FORMATS[format_]
    for name, refusal in ONLY.items():
        if name in values and name not in row.takes:
            raise SetupError(refusal)
    if "max" in values:
        values["max"] = _number("max", str(values["max"]), row.min_entrants, row.max_entrants)
        if len(values.get("split", ())) > values["max"]:   # never paid as asked
            raise SetupError(SPLIT_PLACES, places=len(values["split"]), most=values["max"])
    fields = {_FIELDS[name]: value for name, value in values.items()}
    return dataclasses.replace(Setup(format=format_), **flags, **fields), rest


def _number(option: str, value: str, low: int, high: int) -> int:
    if not re.fullmatch(r"[0-9]{1,7}", value) or not low <= int(value) <= high:
        raise SetupError(NUMBER, option=option, low=low, high=high,
                         example=f"{option}={max(low, min(high, 10))}")
    return int(value)


def _split(value: str) -> tuple[int, ...]:
    if not re.fullmatch(r"[0-9]{1,3}(/[0-9]{1,3}){0,7}", value):
        raise SetupError(BAD_SPLIT)
    try:
        return check_split([int(part) for part in value.split("/")])
    except SplitError:
        raise SetupError(BAD_SPLIT) from None


MOST_ROUND_MATCHES = 16


def _matches(value: str) -> tuple[int, ...]:
    parts = value.split(",")
    if len(parts) > MOST_ROUND_MATCHES or not all(
            re.fullmatch(r"[0-9]{1,2}", part) and 1 <= int(part) <= MAX_MATCH for part in parts):
        raise SetupError(BAD_MATCHES, most=MAX_MATCH, rounds=MOST_ROUND_MATCHES)
    return tuple(int(part) for part in parts)


def _duration(value: str, refusal: str) -> int:
    try:
        seconds = clock.parse_time_control(value)
    except clock.TimeControlError:
        raise SetupError(refusal) from None
    if seconds is None:
        raise SetupError(refusal)
    return seconds


_VALUES: dict[str, Callable[[str], Any]] = {
    "rounds": lambda v: _number("rounds", v, 1, MAX_SWISS_ROUNDS),
    "entry": lambda v: _number("entry", v, 0, MAX_ENTRY),
    "split": _split,
    "max": lambda v: v,  # checked against the format's limits once it is known
    "round": lambda v: _duration(v, BAD_ROUND),
    "start": lambda v: _duration(v, BAD_START),
    "final": lambda v: _number("final", v, 1, MAX_MATCH),
}
_FIELDS = {"rounds": "rounds", "entry": "entry_stake", "split": "prize_split",
           "max": "max_entrants", "round": "round_length", "start": "start_in",
           "matches": "round_matches", "final": "final_match"}
