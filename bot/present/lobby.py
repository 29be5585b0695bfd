"""A lobby's message: the options chosen, the fair dice's commitment, who has joined."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from telegram import InlineKeyboardMarkup

from bot.present.dice import (
    commitment_lines,
    keep_data,
    words_line,
)
from bot.present.keyboards import KeyboardBuilder
from bot.present.names import duration, variant_name
from bot.rules.hints import hints_allowed
from bot.rules.lobby import VARIANTS, awaits_start
from bot.rules.options import OPTIONS, Kind, Option
from bot.vocab.i18n import N_, Translator
from bot.vocab.records import GameRecord, Status, TableOptions
from bot.vocab.tournament import is_tournament_game
from bot.vocab.usertext import (
    html_text,
)
from engine.position import Variant


def options_line(tr: Translator, record: GameRecord) -> str:
    """A game's options in words, as its lobby and board show them: "match to
    5 · cube off" (each option's captions in :data:`bot.rules.options.OPTIONS`)."""
    return " · ".join(option_captions(tr, record.variant, record.options))


def option_captions(tr: Translator, variant: Variant, options: TableOptions,
                    table: Sequence[Option] = OPTIONS) -> list[str]:
    """The captions of ``options`` in ``variant``, in the table's order (the
    match length first): a number or a time when not its default, an on/off
    option's caption for its value (none for the value it has unless asked
    otherwise, when the table says which)."""
    parts = []
    for option in sorted(table, key=lambda o: not o.leads_caption):
        value = getattr(options, option.field)
        if option.variant not in (None, variant) or value is None:
            continue
        if option.kind is Kind.NUMBER and option.on is not None and value != option.default:
            parts.append(tr.gettext(option.on, n=value))
        elif option.kind is Kind.TIME and option.on is not None:
            parts.append(tr.gettext(option.on, time=duration(tr, value)))
        elif option.kind is Kind.ON_OFF and (option.usual is None
                                             or value != option.usual(options)):
            if value and option.on is not None:
                parts.append(option.mark + tr.gettext(option.on))
            elif not value and option.off is not None:
                parts.append(tr.gettext(option.off))
    return parts


def dice_lines(tr: Translator, record: GameRecord) -> list[str]:
    """The fair dice's commitment and the /seed words so far (bot/present/dice.py)."""
    words = words_line(tr, record)
    return commitment_lines(tr, record) + ([words] if words else [])


START_TEXT = N_("Tap {start} to roll the opening: Telegram's id of your tap, which nobody knows "
                "before you tap, is mixed into the dice committed above.")


INLINE_START_TEXT = N_("Keep the fingerprint above before {start}: this message becomes the "
                       "board. {verify} sends it to our private chat in a message the bot "
                       "never edits. Then either player taps {start}: Telegram's id of that "
                       "tap, which nobody knows before, is mixed into the dice.")


def lobby_message(tr: Translator, record: GameRecord) -> tuple[str, InlineKeyboardMarkup | None]:
    title = variant_name(tr, record.variant)
    lines = [tr.gettext("<b>New game: {variant}</b>", variant=escape(title))]
    extra = options_line(tr, record)
    if extra:
        lines.append(escape(extra))
    lines += dice_lines(tr, record)
    if hints_allowed(record.options) and record.status is Status.LOBBY:
        lines.append("💡 " + tr.gettext("Hints are on: the player to move may ask for the best "
                                       "turns. Join only if you agree."))
    if record.status is Status.CANCELLED:
        lines.append(tr.gettext("The lobby is closed."))
        return "\n".join(lines), None
    keys = KeyboardBuilder(tr, record.game_id, record.version)
    if record.players:
        joined = ", ".join(html_text(p.name) for p in record.players)
        lines.append(tr.gettext("Joined: {names}", names=joined))
    if awaits_start(record) and record.is_inline:
        lines.append(tr.naming(INLINE_START_TEXT, tr))
        return "\n".join(lines), keys.start(keep=keep_data(record))
    if awaits_start(record):
        lines.append(tr.naming(START_TEXT, tr))
        return "\n".join(lines), keys.start(close=not record.is_private
                                              and not is_tournament_game(record.game_id))
    lines.append(tr.naming("Choose the game and tap {join}; the game starts when two "
                           "players have joined.", tr))
    names = [variant_name(tr, v) for v in VARIANTS]
    return "\n".join(lines), keys.lobby(names, VARIANTS.index(record.variant),
                                        computer=not record.is_inline)
