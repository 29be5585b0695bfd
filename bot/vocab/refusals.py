"""Refusals: a tap or command that changes nothing, and the message ids they
answer with (shown as an alert or a reply; nothing is written).
"""

from __future__ import annotations

from bot.vocab.i18n import N_


class Refusal(Exception):
    """A tap or command that changes nothing; ``message`` is a msgid to translate."""

    def __init__(self, message: str, **values: object) -> None:
        super().__init__(message)
        self.message = message
        self.values = values


STALE = N_("This board is out of date; use the newest message.")
LOBBY_STARTED = N_("This lobby's game has started: it is played on its own board, posted below "
                   "this message. The lobby stays as it was: it keeps the dice's fingerprint.")
CATCHING_UP = N_("The board is catching up with the last move; tap again once it shows it.")
"""A tap on an older drawing of the board's own message (its redraw is on its
way, paced by the group's budget) that no longer means the same: the player
did nothing wrong (bot/rules/taps.py :func:`caught_up`)."""
RESIGN_MOVED = N_("The game changed since you asked to resign: nothing was resigned. "
                  "Open {more} again if you still want to.")
"""A staked resignation's "Yes, resign" tapped after the board moved on: what
it would cost was the old position's, so it is not offered."""
NOT_PLAYING = N_("You are not playing in this game.")
NOT_YOUR_TURN = N_("It is not your turn.")
THEIR_BUTTONS = N_("It is not your turn: these buttons are your opponent's. To resign, wait for "
                   "your turn or use your own board (/games); /cancel proposes to cancel.")
MATCH_IN_PROGRESS = N_("A match is being played here: its players go on with {next_game}. /cancel "
                       "ends it (both players agree, or an admin decides).")
PROPOSED = N_("You proposed it; waiting for your opponent.")
NO_CLOCK = N_("This game has no clock.")
CHANGED = N_("The game changed meanwhile; please try again.")
GAME_LIMIT = N_("Games at once here: {count}, the most this chat allows. Finish or /cancel one, "
                "then /new.")
LOBBY_WAITS = N_("Your lobby here still waits for players: play that one, or close it first.")
FORFEITED = N_("This tournament game is decided by forfeit: nothing of it is booked any more.")
"""A game's end (a resignation, a last move) that came after its pairing was
decided by forfeit (a withdrawal) and before its close: refused in the very
write that would book it (bot/store/ledger.py ``finish_game``)."""
ACCEPT_IN_CHAT = N_("Accept it on the game's board in the chat: your tap there is mixed into "
                    "the new match's dice.")
"""An Accept of a rematch sent from the board app: the tap that accepts fixes the new
match's dice with its entropy (Telegram's id of the tap, unknown to the bot before it),
which a request from the app does not carry (docs/fair-dice.md)."""
