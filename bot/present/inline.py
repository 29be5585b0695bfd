"""What inline mode shows: the results of an inline query and their Join button.

A result's message is a lobby "via @bot" with one button, **Join**.  No record
exists yet (the bot learns the message's ``inline_message_id`` only from the
first tap on it), so the button carries the game itself: an
:class:`InlineJoin`, ``ij:<variant>:<match>:<flags>:<hours>:<language>`` (the
language the result was shown in stays the board's).  The first tap
stores the lobby under that message (:mod:`bot.store.inline`) and from
then on the message shows the usual lobby and board buttons.

>>> join = InlineJoin(Variant.BACKGAMMON, TableOptions(match_length=5, koks=False,
...                                                  time_control=86400), "ru")
>>> join.format()
'ij:b:5:17:24:ru'
>>> InlineJoin.parse('ij:b:5:17:24:ru') == join
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import ClassVar

from telegram import InlineQueryResultArticle, InputTextMessageContent
from telegram.constants import ParseMode

from bot.present.keyboards import join_keyboard
from bot.present.lobby import options_line
from bot.present.names import variant_name
from bot.rules.inline import inline_offers
from bot.rules.options import OPTIONS, from_inline_flags, inline_flags
from bot.vocab.callbacks import MAX_BYTES, CallbackDataError, Kind
from bot.vocab.i18n import LANGUAGES, N_, Translator
from bot.vocab.records import INLINE_CHAT_BASE, GameRecord, TableOptions
from bot.vocab.refusals import Refusal
from bot.vocab.usertext import clean
from engine.position import Variant

LOBBY_HINT = N_("Tap {join}: the first two to join play each other.")
USAGE = N_("After the bot's name you may type the game and its options, as for /new: long, "
           "backgammon, match=5, cube=off, time=1d.")
_VARIANT_LETTERS = {Variant.LONG: "l", Variant.BACKGAMMON: "b"}
_DATA = re.compile(r"ij:([lb]):([0-9]{1,2}):([0-9]+):([0-9]{1,3}):([a-z]{2})")  # fullmatch
# (the flags' width is the table's: bot/rules/options.py from_inline_flags)
HOUR = 3600
_OWN_PARTS = frozenset({"match_length", "time_control"})
"""The options a Join carries in parts of their own (the rest: bits, or refused)."""


@dataclass(frozen=True, slots=True)
class InlineJoin:
    """The Join button of an inline lobby not stored yet (see the module doc):
    the variant, the match length, the on/off options as bits (each option's
    :attr:`~bot.rules.options.Option.bit` in the table: cube 1, koks 2,
    Jacoby 4, beavers 8, autoplay 16, hints 32: off unless asked for, as
    between people), the time per move in hours (0: none)
    and the language of the boards."""

    variant: Variant
    options: TableOptions
    language: str
    KIND: ClassVar[Kind] = Kind.INLINE

    def format(self) -> str:
        options = self.options
        flags = inline_flags(options)
        hours = (options.time_control or 0) // HOUR
        text = (f"{self.KIND.value}:{_VARIANT_LETTERS[self.variant]}:{options.match_length}:"
                f"{flags}:{hours}:{self.language}")
        if len(text.encode()) > MAX_BYTES:  # pragma: no cover - at most 16 bytes
            raise CallbackDataError("callback data longer than 64 bytes")
        return text

    @classmethod
    def parse(cls, text: object) -> InlineJoin:
        found = _DATA.fullmatch(text) if isinstance(text, str) else None
        if found is None:
            raise CallbackDataError(f"not inline Join data: {text!r}")
        letter, match, flags, hours, language = found.groups()
        variant = next(v for v, code in _VARIANT_LETTERS.items() if code == letter)
        on_off = from_inline_flags(flags)
        if on_off is None or not 1 <= int(match) <= 25 or int(hours) > 14 * 24 \
                or language not in LANGUAGES:
            raise CallbackDataError(f"not inline Join data: {text!r}")
        return cls(variant, TableOptions(match_length=int(match), **on_off,
                                         time_control=int(hours) * HOUR or None), language)


_LOST = [o.word for o in OPTIONS
         if o.bit is None and o.inline_refusal is None and o.field not in _OWN_PARTS]
if _LOST:  # pragma: no cover - an option no Join carries would be lost on its Join
    raise RuntimeError(f"options with no way into an inline Join: {_LOST}")


def _lobby_result(tr: Translator, variant: Variant, options: TableOptions
                  ) -> InlineQueryResultArticle:
    join = InlineJoin(variant, options, tr.lang)
    title = variant_name(tr, variant)
    # options_line reads a record; this one is never stored
    extra = options_line(tr, GameRecord(chat_id=INLINE_CHAT_BASE, variant=variant,
                                        options=options))
    lines = [tr.gettext("<b>New game: {variant}</b>", variant=escape(title))]
    lines += [escape(extra)] if extra else []
    lines.append(tr.naming(LOBBY_HINT, tr))  # its Join is drawn in tr too
    return InlineQueryResultArticle(
        join.format(), title, InputTextMessageContent("\n".join(lines),
                                                      parse_mode=ParseMode.HTML),
        reply_markup=join_keyboard(tr, join.format()),
        description=extra or tr.naming(LOBBY_HINT, tr))


def _explanation(tr: Translator, refusal: Refusal) -> InlineQueryResultArticle:
    """A result that only says why the query offers no game (choosing it posts that)."""
    reason = tr.naming(refusal.message, tr, **refusal.values)  # plain text: escaped below
    text = "\n".join([escape(reason), escape(tr.gettext(USAGE))])
    return InlineQueryResultArticle(
        "why", "⚠ " + tr.gettext("No game for these words"),
        InputTextMessageContent(text, parse_mode=ParseMode.HTML),
        description=clean(reason, 200))


def inline_results(tr: Translator, words: Sequence[str]) -> list[InlineQueryResultArticle]:
    """The answer to an inline query: a lobby per game it asks for, or one
    result explaining why there is none (bad options, a stake, the computer)."""
    try:
        offers = inline_offers(words)
    except Refusal as refusal:
        return [_explanation(tr, refusal)]
    return [_lobby_result(tr, variant, options) for variant, options in offers]
