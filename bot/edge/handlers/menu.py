"""The bot's commands and buttons in tables: what Telegram's command menu
offers (``setMyCommands``), which handler each command runs, and what
``/help`` lists (:data:`COMMANDS`); which handler each kind of button's data
is routed to (:data:`BUTTONS`); what ``/start``'s payloads ask
(:data:`START_PAYLOADS`).  It names every handler, so it is the one module
beside ``register`` that imports handler modules
(tests/bot/edge/handlers/test_imports.py).

A new command is one :class:`Command` here: the menu, the handler
registration (:func:`bot.edge.handlers.register`) and ``/help`` follow from
it, so the three can no longer disagree.  Texts are gettext message ids
(:func:`bot.vocab.i18n.N_`), translated when shown.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from dataclasses import dataclass
from typing import Any

from telegram import BotCommand, BotCommandScope, BotCommandScopeDefault, Chat, Update

from bot.edge.handlers import (
    analysis,
    buttons,
    clock,
    commands,
    dice,
    games,
    inline,
    invite,
    ledger,
    ratings,
    settings,
    settle,
    tournament,
)
from bot.edge.handlers.common import Context, args_of, get_store, reply, translator_for
from bot.present.help import help_text
from bot.vocab.callbacks import Kind
from bot.vocab.i18n import N_, Translator

Handler = Callable[[Update, Context], Coroutine[Any, Any, None]]


class Scope(enum.Enum):
    """Where Telegram offers a command in its menu."""

    EVERYWHERE = "default"

    def bot_scope(self) -> BotCommandScope:
        return BotCommandScopeDefault()


@dataclass(frozen=True)
class Command:
    """One command.  ``menu`` is its line in Telegram's menu (None: it works,
    but is not offered); ``help`` its ``/help`` line when that says more than
    the menu (the message id starts with the command, e.g. ``"/new — ..."``);
    ``in_help`` False when another command's help line covers it."""

    name: str
    handler: Handler
    menu: str | None
    help: str | None = None
    in_help: bool = True
    scope: Scope = Scope.EVERYWHERE

    def help_line(self, tr: Translator) -> str:
        """``/name — what it does``, in one style for every line and language:
        the part after the dash begins in lower case (a menu line, written
        as a sentence for Telegram's menu, is lowered for it)."""
        if self.help is not None:
            return tr.gettext(self.help)
        assert self.menu is not None
        menu = tr.gettext(self.menu)
        return f"/{self.name} — {menu[:1].lower()}{menu[1:]}"


async def help_command(update: Update, context: Context) -> None:
    tr = await translator_for(update, context)
    await reply(update, help_text(tr, [c.help_line(tr) for c in COMMANDS
                                       if c.in_help and (c.help or c.menu)]))


async def start(update: Update, context: Context) -> None:
    """``/start``: in a private chat (the user started the bot: it may write
    to them now) what its payload asks, the first of :data:`START_PAYLOADS`
    that takes it; else, or with none, the help."""
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    if chat.type != Chat.PRIVATE:
        await help_command(update, context)
        return
    await get_store(context).prefs.note_started(user.id)
    payload = args_of(context)[0] if args_of(context) else ""
    for takes in START_PAYLOADS:
        if await takes(update, context, payload):
            return
    await help_command(update, context)


START_PAYLOADS: tuple[Callable[[Update, Context, str], Awaitable[bool]], ...] = (
    invite.start_invitation,  # i<token>: an invitation link
    games.start_list,  # games: the /games list (the deep link of a group's hint)
    analysis.start_analysis,  # an<chat>g<game>: an inline game's analysis
)
"""What ``/start <payload>`` may ask, each a handler that says whether the
payload was its own (deep links: ``t.me/<bot>?start=<payload>``)."""


COMMANDS: tuple[Command, ...] = (
    Command("new", commands.new, N_("Start a game: /new long or /new backgammon"),
            help=N_("/new — open a game; add <code>long</code> or <code>backgammon</code> and "
                    "options like <code>match=7 stake=10 cube=off</code>; <code>/new long "
                    "bot level=strong</code> plays the bot (levels: easy, medium, strong, best, "
                    "and auto, which follows your results)")),
    Command("board", commands.board, N_("Show the current board again"),
            help=N_("/board — show the current board again at the bottom")),
    Command("cancel", commands.cancel, N_("Close the lobby or cancel the game"),
            help=N_("/cancel — close the lobby, or cancel the game (both players agree, "
                    "or an admin decides)")),
    Command("export", commands.export, N_("Send the game record as a file"),
            help=N_("/export — the game record as a text file")),
    Command("analyze", analysis.analyze,
            N_("Analysis of the last finished game (reply to a board: of that game)"),
            help=N_("/analyze — the last finished game's analysis: each player's error rate, "
                    "mistakes and luck, as a picture (reply to a board: that game's); the 📊 "
                    "button on a result does the same")),
    Command("seed", dice.seed, N_("Mix your own words into the dice of the next game"),
            help=N_("/seed words — mix your words into the dice while the lobby is open; "
                    "/verify — the dice's commitment, and after the game its seed, to check "
                    "every roll")),
    Command("verify", dice.verify, N_("Check that the dice were fair"), in_help=False),
    Command("dice", dice.dice, N_("Your dice against fair dice (reply: someone else's)"),
            help=N_("/dice — a player's rolls here against fair dice, as a chart: "
                    "/dice long, /dice backgammon, or reply to someone")),
    Command("games", games.games, N_("Your games in every chat, each board a tap away")),
    Command("invite", invite.invite, N_("A link that invites someone to a private game")),
    Command("rules", commands.rules, N_("How to play and how the buttons work"),
            help=N_("/rules — the rules and how the buttons work")),
    Command("lang", commands.lang, N_("Choose the chat language"),
            help=N_("/lang — fix the chat language")),
    Command("settings", settings.settings_command,
            N_("Board style (picture or text) and orientation"),
            help=N_("/settings — the board as a picture or text, and whose side it is "
                    "drawn from (admins)")),
    Command("stake", ledger.stake, N_("Show or set the chat's stake per point"),
            help=N_("/stake N — the chat's stake per point for new games (admins); "
                    "/ledger — who owes whom; /history N — the last results")),
    Command("ledger", ledger.ledger, N_("Who owes whom in this chat"), in_help=False),
    Command("history", ledger.history, N_("The last results: /history N"), in_help=False),
    Command("settle", settle.settle, N_("Settle up a balance (both players confirm)"),
            help=N_("/settle — settle up a balance: reply to the other player's message "
                    "(or pick them), they confirm; /stats — games and rating (reply: someone "
                    "else's); /top — the chat's ratings")),
    Command("stats", ratings.stats, N_("Your games and rating (reply: someone else's)"),
            in_help=False),
    Command("top", ratings.top, N_("The chat's players by rating"), in_help=False),
    Command("pause", clock.pause, N_("Pause the game's clock (both players agree)")),
    Command("resume", clock.resume, N_("Start the paused clock again")),
    Command("mute", clock.mute, N_("No more move reminders for you (/unmute)")),
    Command("unmute", clock.unmute, None),
    Command("clock", clock.clock_command, N_("The chat's time per move for new games: /clock 1d")),
    Command("tournament", tournament.tournament_command,
            N_("A tournament in this group: round robin, Swiss or knockout"),
            help=N_("/tournament — a tournament here: <code>rr</code>, <code>double</code>, "
                    "<code>swiss rounds=5</code>, <code>ko</code> or <code>consolation</code>, "
                    "<code>entry=10</code> for stakes, then the options of /new; "
                    "/standings — how it stands; /league — this month's table; "
                    "/withdraw — leave it; <code>/tournament cancel</code> — an admin who "
                    "does not play cancels it")),
    Command("standings", tournament.standings_command, N_("The tournament's standings"),
            in_help=False),
    Command("league", tournament.league_command, N_("This month's table of rated games"),
            in_help=False),
    Command("withdraw", tournament.withdraw_command,
            N_("Withdraw from the tournament (an admin: reply to a player)"), in_help=False),
    Command("help", help_command, N_("What this bot does")),
    Command("start", start, None),
)


BUTTONS: tuple[tuple[Handler, tuple[Kind, ...]], ...] = (
    (buttons.on_button, (Kind.GAME, Kind.LOBBY)),
    (settle.on_settle_button, (Kind.SETTLE,)),
    (clock.on_clock_button, (Kind.CLOCK,)),
    (commands.on_lang_button, (Kind.LANGUAGE,)),
    (settings.on_settings_button, (Kind.SETTING,)),
    (games.on_show, (Kind.SHOW,)),
    (dice.on_verify_button, (Kind.VERIFY,)),
    (commands.on_pick, (Kind.PICK,)),
    (analysis.on_analysis_button, (Kind.ANALYSIS,)),
    (inline.on_join, (Kind.INLINE,)),
    (tournament.on_tournament_button, (Kind.TOURNAMENT,)),
)
"""Every button's data starts with its :class:`Kind`, which routes it to one
handler (registered by :func:`bot.edge.handlers.register`; data of no kind
goes to ``buttons.on_other``).  A new kind of button is one row here."""

def menu(tr: Translator, scope: Scope) -> list[BotCommand]:
    """Telegram's command menu for a scope, in the translator's language."""
    return [BotCommand(c.name, tr.gettext(c.menu)) for c in COMMANDS
            if c.menu is not None and c.scope is scope]


def scopes() -> Iterator[Scope]:
    """The scopes some command is offered in, in the table's order."""
    return iter(dict.fromkeys(c.scope for c in COMMANDS if c.menu is not None))
