"""The names the user reads for things, in every message: variants, results,
the sides' marks, a player's mention, the board's own words, durations."""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass

from bot.present.render import (
    BoardLabels,
)
from bot.rules.seats import player_on
from bot.vocab import clock
from bot.vocab.i18n import N_, Translator, translator
from bot.vocab.records import GameRecord
from bot.vocab.usertext import (
    html_text,
)
from engine.position import Side, Variant
from engine.scoring import ResultKind

VARIANT_NAMES = {Variant.LONG: N_("Long nardy"), Variant.BACKGAMMON: N_("Backgammon")}


KIND_NAMES = {
    ResultKind.OIN: N_("oin"),
    ResultKind.MARS: N_("mars"),
    ResultKind.KOKS: N_("koks"),
    ResultKind.SINGLE: N_("single game"),
    ResultKind.GAMMON: N_("gammon"),
    ResultKind.BACKGAMMON: N_("backgammon"),
}


MARKS = {Side.WHITE: "○", Side.BLACK: "●"}


def variant_name(tr: Translator, variant: Variant) -> str:
    return tr.gettext(VARIANT_NAMES[variant])


def mention(user_id: int, name: str) -> str:
    """An HTML mention that notifies the user (works without a username)."""
    return f'<a href="tg://user?id={user_id}">{html_text(name)}</a>'


def side_name(record: GameRecord, side: Side) -> str:
    return html_text(player_on(record, side).name)


LABELS = {
    "pips": N_("pips"), "off": N_("off"), "bar": N_("bar"), "dice": N_("Dice"),
    "played": N_("played"), "cube": N_("Cube"), "centred": N_("centred"), "last": N_("Last:"),
    "no_move": N_("no move"), "score": N_("Score"), "score_of": N_("score"),
    "match_to": N_("Match to {n}"), "to_move": N_("to move"),
}
"""The board's own words (:class:`bot.present.render.BoardLabels`) as msgids."""


@functools.cache
def board_labels(tr: Translator) -> BoardLabels:
    """The board's words in ``tr``'s language (``{n}`` is left for the renderer)."""
    return BoardLabels(**{name: tr.gettext(msgid) for name, msgid in LABELS.items()},
                       pip_count=PipCount(tr.lang))


@dataclass(frozen=True)
class PipCount:
    """``"161 пипс"``: a pip count with its plural form in ``lang``.  A plain
    value, not a closure, so a board view pickles to the painter's processes."""

    lang: str

    def __call__(self, count: int) -> str:
        return translator(self.lang).ngettext("{n} pip", "{n} pips", count, n=count)


def duration(tr: Translator, seconds: float) -> str:
    """A duration in words, to the minute, at most two units ("1 day 3 hours")."""
    days, hours, minutes = clock.split_duration(seconds)
    day = tr.ngettext("{n} day", "{n} days", days, n=days)
    hour = tr.ngettext("{n} hour", "{n} hours", hours, n=hours)
    minute = tr.ngettext("{n} minute", "{n} minutes", minutes, n=minutes)
    units = [(days, day), (hours, hour)] if days else [(hours, hour), (minutes, minute)]
    return " ".join(word for n, word in units if n) or minute  # minutes matter only within a day


def utc_time(moment: float) -> str:
    """``"12.09 14:00"``: a moment as the bot's messages show it (in UTC, which they say)."""
    return time.strftime("%d.%m %H:%M", time.gmtime(moment))


def move_by(tr: Translator, deadline: float) -> str:
    """``"Move by 12.09 14:00 UTC (23 hours left)."``: the deadline on the
    clock and, since nobody converts UTC in their head, the time left."""
    when = utc_time(deadline)
    return tr.gettext("Move by {time} UTC ({left} left).", time=when,
                      left=duration(tr, deadline - clock.now()))
