"""The list of a chat's games a command answers with when it cannot tell
which game is meant (bot/edge/handlers/which.py): one button per game,
for the user who sent the command.

>>> from bot.vocab.i18n import translator
>>> from bot.vocab.records import GameRecord, Player
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

import time
from collections.abc import Sequence

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.present.names import variant_name
from bot.rules.matchstate import table_of
from bot.vocab.callbacks import PickGame
from bot.vocab.i18n import N_, Translator
from bot.vocab.records import GameRecord, Status
from bot.vocab.usertext import clean

LABEL_LIMIT = 60
"""Characters of a button's text (a phone shows about that many on one line)."""
MARKS = {Status.LOBBY: "⏳", Status.ACTIVE: "🎲"}
ENDED_MARK = "🏁"
CANCELLED = N_("cancelled")
PICK = N_("Several games here fit /{command}. Which one? (Next time: reply to its board "
          "with the command.)")
NOT_YOURS = N_("Only whoever sent the command picks from this list.")
GONE = N_("That game cannot do this any more; send the command again.")


def ended_text(tr: Translator, record: GameRecord) -> str | None:
    """An ended game's result and when it ended ("2:0 · 2026-12-01 21:05",
    "cancelled · …"), so that two games of the same players differ on a list
    (e.g. /verify's); None while it is open.

    >>> from bot.vocab.i18n import translator
    >>> from engine.position import Variant
    >>> ended_text(translator("en"), GameRecord(chat_id=1, variant=Variant.LONG,
    ...            status=Status.CANCELLED, updated_at=0.0))
    'cancelled · 1970-01-01 00:00'
    """
    if record.is_live or record.status not in (Status.FINISHED, Status.CANCELLED):
        return None
    when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(record.updated_at))
    if record.status is Status.CANCELLED or not record.engine:
        return f"{tr.gettext(CANCELLED)} · {when}"
    score = table_of(record).score
    points = ":".join(str(score[p.side]) for p in record.players if p.side is not None)
    return f"{points} · {when}"


def game_label(tr: Translator, record: GameRecord) -> str:
    """One game on a button: its state, variant and players (plain text); an
    ended game's result and date too (:func:`ended_text`)."""
    mark = MARKS.get(record.status, ENDED_MARK)
    if record.status is Status.FINISHED and record.is_live:
        mark = MARKS[Status.ACTIVE]  # a match between two of its games
    ended = ended_text(tr, record)
    if ended is not None:
        # the result and date tell two games apart: the names give way, never they
        head = f"{mark} {variant_name(tr, record.variant)}: "
        each = max((LABEL_LIMIT - len(head) - len(ended) - len(" – ") - 1) // 2, 4)
        names = " – ".join(clean(p.name, each) for p in record.players)
        return clean(f"{head}{names} {ended}", LABEL_LIMIT)
    names = " – ".join(clean(p.name, 20) for p in record.players)
    if record.status is Status.LOBBY and len(record.players) < 2:  # else: waits for ▶ Start
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
