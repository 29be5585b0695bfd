"""Ratings: /stats (a player's games and rating) and /top (the chat's players
by rating).  The rating and its deviation: bot/rules/ratings.py; what a game's
end adds to a player's stats: bot/rules/ledger.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from telegram import Chat, Update

from ai import Level
from bot.edge.handlers.common import (
    Context,
    args_of,
    chat_id_of,
    display_name,
    get_store,
    replied_user,
    reply,
    translator_for,
)
from bot.present.names import variant_name
from bot.rules import computer
from bot.rules.ledger import deviation_of, summed
from bot.rules.options import VARIANT_WORDS
from bot.rules.ratings import is_provisional, shown
from bot.vocab import clock
from bot.vocab.i18n import N_, Translator
from bot.vocab.records import AutoStanding, PlayerStats
from bot.vocab.usertext import html_text
from engine.position import Variant

PROVISIONAL = N_("? — provisional: too few rated games to be sure of the rating yet.")
TOP_SIZE = 10


_LEVEL_ORDER = {f"bot-{level.value}": i for i, level in enumerate(computer.LEVELS)}


def _streak(tr: Translator, streak: int) -> str:
    if streak > 0:
        return tr.ngettext("{n} win", "{n} wins", streak, n=streak)
    if streak < 0:
        return tr.ngettext("{n} loss", "{n} losses", -streak, n=-streak)
    return "—"


def stats_block(tr: Translator, stats: PlayerStats, *, elsewhere: bool = False) -> str:
    """A player's numbers in one variant (mars for long nardy, gammons for backgammon);
    ``elsewhere``: their private and inline games added up (no rating, no streak:
    those are each game's own, bot/store/played.py)."""
    long = stats.variant.value == "long"
    big = tr.gettext("Mars won / lost") if long else tr.gettext("Gammons won / lost")
    triple = tr.gettext("Koks won / lost") if long else tr.gettext("Backgammons won / lost")
    title = variant_name(tr, stats.variant)
    if stats.versus:  # "bot-<level>": games against the computer, apart and unrated
        level = computer.LEVEL_NAMES[Level(stats.versus.removeprefix("bot-"))]
        title = tr.gettext("{variant} against the bot ({level})", variant=title,
                           level=tr.gettext(level))
    if elsewhere:
        title = tr.gettext("{variant}: private and inline games", variant=title)
    lines = [
        f"<b>{escape(title)}</b>",
        tr.gettext("Games: {games}, won {wins}", games=stats.games, wins=stats.wins),
        f"{big}: {stats.gammons_won} / {stats.gammons_lost}",
    ]
    if stats.triples_won or stats.triples_lost:
        lines.append(f"{triple}: {stats.triples_won} / {stats.triples_lost}")
    if elsewhere:
        return "\n".join(lines)
    if not stats.versus:
        # FIBS "experience" is the match points a rating has seen: say so, whole numbers
        sure = deviation_of(stats, clock.now())
        lines.append(tr.gettext("Rating: {rating} (rated points played: {exp})",
                                rating=shown(stats.rating, sure), exp=stats.experience))
        if is_provisional(sure):
            lines.append(tr.gettext(PROVISIONAL))
    lines.append(tr.gettext("Streak: {streak}", streak=_streak(tr, stats.streak)))
    return "\n".join(lines)


AUTO_TITLE = N_("{variant} against the bot at auto")
AUTO_LEVEL = N_("Level now: {level}")
AUTO_GAMES = N_("Games at auto, in every chat: {games}, won {wins}")


def auto_block(tr: Translator, standing: AutoStanding) -> str:
    """Where a person stands at ``level=auto`` in one variant: the level the
    computer plays them at now, and their games at auto (in every chat: the
    standing is the person's, bot/store/computer.py)."""
    title = tr.gettext(AUTO_TITLE, variant=variant_name(tr, standing.variant))
    level = tr.gettext(computer.LEVEL_NAMES[computer.auto_level(standing.rung)])
    return "\n".join([f"<b>{escape(title)}</b>", tr.gettext(AUTO_LEVEL, level=level),
                      tr.gettext(AUTO_GAMES, games=standing.games, wins=standing.wins)])


async def stats(update: Update, context: Context) -> None:
    tr = await translator_for(update, context)
    user = replied_user(update.effective_message) or update.effective_user
    chat = update.effective_chat
    assert user is not None and chat is not None
    store = get_store(context)
    mine = [s for s in await store.ledger.player_stats(chat_id_of(update))
            if s.user_id == user.id and s.games]
    # in the private chat: also the games outside groups (private and inline ones)
    elsewhere = [s for s in summed(await store.played.stats(user.id)) if s.games] \
        if chat.type == Chat.PRIVATE else []
    auto = [s for s in await store.computer.standings(user.id) if s.games]
    name = html_text(display_name(user))
    if not mine and not elsewhere and not auto:
        await reply(update, tr.gettext("{name} has no finished games here yet.", name=name))
        return
    mine.sort(key=lambda s: (s.versus != "", s.variant.value, _LEVEL_ORDER.get(s.versus, 0)))
    blocks = [f"<b>{name}</b>"] + [stats_block(tr, s) for s in mine] + [
        auto_block(tr, s) for s in auto] + [stats_block(tr, s, elsewhere=True) for s in elsewhere]
    await reply(update, "\n\n".join(blocks))


def top_table(tr: Translator, all_stats: Iterable[PlayerStats],
              variant: Variant | None = None) -> str:
    """/top: per variant, the chat's rated players by rating."""
    by_variant: dict[Variant, list[PlayerStats]] = {}
    for s in all_stats:
        if s.matches and (variant is None or s.variant is variant):
            by_variant.setdefault(s.variant, []).append(s)
    if not by_variant:
        return tr.gettext("Nobody has a rating here yet: finish a game first.")
    blocks = []
    for var in sorted(by_variant, key=lambda v: v.value, reverse=True):
        ranked = sorted(by_variant[var], key=lambda s: (-s.rating, s.user_id))[:TOP_SIZE]
        rows = [f"{i}. {html_text(s.name or str(s.user_id))} — "
                f"{shown(s.rating, deviation_of(s, clock.now()))} "
                + tr.ngettext("({n} game)", "({n} games)", s.games, n=s.games)
                for i, s in enumerate(ranked, 1)]
        blocks.append("\n".join([f"<b>{escape(variant_name(tr, var))}</b>", *rows]))
    return "\n\n".join(blocks)


async def top(update: Update, context: Context) -> None:
    tr = await translator_for(update, context)
    args = args_of(context)
    variant = VARIANT_WORDS.get(args[0].lower()) if len(args) == 1 else None
    if args and variant is None:
        await reply(update, tr.gettext("Use /top, /top long or /top backgammon."))
        return
    all_stats = await get_store(context).ledger.player_stats(chat_id_of(update))
    await reply(update, top_table(tr, all_stats, variant))
