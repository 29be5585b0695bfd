"""The list of a chat's games a command answers with when it cannot tell
which game is meant (bot/edge/handlers/which.py): one button per game,
for the user who sent the command.

>>> from bot.present.i18n import translator
>>> from bot.store.records import GameRecord, Player
>>> from engine.position import Variant
>>> ann, bob = Player(user_id=1, name="Ann"), Player(user_id=2, name="Bob")
>>> game = GameRecord(chat_id=-100, game_id="k3Xa9_zQ", variant=Variant.LONG,
...                   status=Status.ACTIVE, players=(ann, bob))
>>> lobby = GameRecord(chat_id=-100, game_id="lobby123", variant=Variant.BACKGAMMON)
>>> markup = pick_keyboard(translator("en"), "cancel", 1, [game, lobby])
>>> [(row[0].text, row[0].callback_data) for row in markup.inline_keyboard]
[('🎲 Long nardy: Ann – Bob', 'gp:cancel:1:k3Xa9_zQ'), ('⏳ Backgammon: lobby', \
'gp:cancel:1:lobby123')]
"""

from __future__ import annotations

from collections.abc import Sequence

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.present.callbacks import PickGame
from bot.present.i18n import N_, Translator
from bot.present.messages import variant_name
from bot.present.usertext import clean
from bot.store.records import GameRecord, Status

LABEL_LIMIT = 60
"""Characters of a button's text (a phone shows about that many on one line)."""
MARKS = {Status.LOBBY: "⏳", Status.ACTIVE: "🎲"}
ENDED_MARK = "🏁"
PICK = N_("Several games here fit /{command}. Which one? (Next time: reply to its board "
          "with the command.)")
NOT_YOURS = N_("Only whoever sent the command picks from this list.")
GONE = N_("That game cannot do this any more; send the command again.")


def game_label(tr: Translator, record: GameRecord) -> str:
    """One game on a button: its state, variant and players (plain text)."""
    mark = MARKS.get(record.status, ENDED_MARK)
    if record.status is Status.FINISHED and record.is_live:
        mark = MARKS[Status.ACTIVE]  # a match between two of its games
    names = " – ".join(clean(p.name, 20) for p in record.players)
    if record.status is Status.LOBBY:
        who = tr.gettext("lobby") if not names else tr.gettext("{names} waits for an opponent",
                                                               names=names)
    else:
        who = names
    return clean(f"{mark} {variant_name(tr, record.variant)}: {who}", LABEL_LIMIT)


def pick_keyboard(tr: Translator, command: str, user_id: int,
                  records: Sequence[GameRecord]) -> InlineKeyboardMarkup:
    """A button per game (Telegram takes 100 buttons: a chat lists far fewer)."""
    return InlineKeyboardMarkup([
        [InlineKeyboardButton(game_label(tr, record),
                              callback_data=PickGame(command, user_id, record.game_id).format())]
        for record in records])


def pick_text(tr: Translator, command: str) -> str:
    return tr.gettext(PICK, command=command)
