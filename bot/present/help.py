"""The long texts: /help and /rules, in every language through gettext."""

from __future__ import annotations

from collections.abc import Sequence

from bot.rules.options import OPTIONS, Option
from bot.vocab.i18n import Translator


def help_text(tr: Translator, command_lines: Sequence[str]) -> str:
    """/help: what the bot is, a line per command (from the command table,
    :data:`bot.edge.handlers.menu.COMMANDS`), then the options (:func:`options_help`) and
    stakes."""
    return "\n".join([
        tr.gettext("<b>Nardy</b>: long nardy and backgammon for two players in a chat."),
        "",
        *command_lines,
        "",
        *options_help(tr),
        tr.gettext("Stakes are whole numbers in the chat's own unit. A game books points × "
                   "stake (mars 2, koks 3, gammon 2, backgammon 3, times the cube); a match "
                   "to N books N × stake once, when it ends. Ratings: the FIBS formula, per "
                   "chat and variant."),
    ])


def options_help(tr: Translator, table: Sequence[Option] = OPTIONS) -> list[str]:
    """``/help``'s lines about the options of ``table``: the list of those with
    a :attr:`~bot.rules.options.Option.help`, then each one's line of its own."""
    listed = ", ".join(tr.gettext(option.help) for option in table if option.help is not None)
    return [tr.gettext("Options: {options}.", options=listed),
            *(tr.gettext(option.help_line) for option in table if option.help_line is not None)]


def rules_text(tr: Translator) -> str:
    return "\n".join([
        tr.gettext("<b>Long nardy</b>: 15 checkers each start on the head (point 24). Both "
                   "players move counterclockwise; a checker may not land on a point held by "
                   "the opponent. Only one checker leaves the head per turn (except 3-3, 4-4, "
                   "6-6 on the first turn). A wall of six points in a row is only allowed when "
                   "an opponent checker is already past it. Bear off all checkers first to win: "
                   "oin (1 point) if the opponent bore off some, mars (2 points) if none."),
        "",
        tr.gettext("<b>Backgammon</b>: hitting a lone checker sends it to the bar; it must "
                   "enter before anything else moves. The doubling cube doubles the stake: the "
                   "opponent takes or passes. Gammon (2) when the loser bore off none, "
                   "backgammon (3) when a checker is also still on the bar or in the winner's "
                   "home."),
        "",
        tr.gettext("<b>Buttons</b>: the dice are rolled for you (in backgammon you tap Roll "
                   "or Double when a double could make sense), and forced turns play themselves. "
                   "Then tap the moves: a button like 13→10 moves a checker, ▶ 24/18 13/10 plays "
                   "a whole turn, a point with several targets opens them. Numbers are the "
                   "player's to act and match the board. Undo takes a step back, Confirm hands "
                   "the dice over. Under More: resign or propose to cancel."),
    ])
