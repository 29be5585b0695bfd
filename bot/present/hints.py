"""The text of a 💡 Hint: the best turns of a roll with their equities.

A hint is the answer to the tap (an alert only the tapper sees, at most
:data:`ALERT_LIMIT` characters), so the shared board and its caption stay as
they are.  Turns are written in the engine's notation with the board's words
for bar and off (as the caption's last-turn line), points numbered for the
mover (as the board and the whole-turn buttons are while they move); the
equity is the mover's expected points per game, and the turns after the
first also show what they give away against it.

>>> from engine import Dice, Position, Side, Step, Variant
>>> from bot.vocab.i18n import translator
>>> from bot.rules.hints import HintQuestion, Ranked
>>> start = Position.initial(Variant.BACKGAMMON)
>>> question = HintQuestion(Variant.BACKGAMMON, False, start, Dice(6, 3))
>>> print(hint_text(translator("en"), question, (
...     Ranked((Step(24, 18, 6), Step(13, 10, 3)), 0.0124),
...     Ranked((Step(24, 18, 6), Step(18, 15, 3)), -0.0306))))
💡 Best turns for 6-3:
1. 24/18 13/10  +0.012
2. 24/15  −0.031 (−0.043)
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.present.names import board_labels
from bot.rules.hints import HintQuestion, Ranked
from bot.vocab.i18n import Translator
from bot.vocab.usertext import ALERT_LIMIT, utf16_length
from engine.choices import text_order
from engine.notation import format_turn

MINUS = "−"
"""A true minus sign: ``−0.031`` reads better than a hyphen."""


def equity_text(value: float) -> str:
    """``+0.412``, ``−0.031``, to three places (a rounded zero is ``+0.000``).

    >>> equity_text(0.4124), equity_text(-0.0306), equity_text(-0.0001)
    ('+0.412', '−0.031', '+0.000')
    """
    rounded = round(value, 3) + 0.0  # -0.0 + 0.0 is 0.0: no "−0.000"
    return f"{rounded:+.3f}".replace("-", MINUS)


def hint_text(tr: Translator, question: HintQuestion, ranked: Sequence[Ranked]) -> str:
    """The hint's alert: a title, then one line per turn, best first, as
    many as fit in :data:`ALERT_LIMIT` characters (at least the best)."""
    dice = question.dice
    title = "💡 " + tr.gettext("Best turns for {dice}:", dice=f"{dice.first}-{dice.second}")
    best = ranked[0].equity if ranked else 0.0
    labels = board_labels(tr)
    lines = []
    for number, turn in enumerate(ranked, start=1):
        notation = format_turn(question.position, text_order(turn.steps),
                               bar=labels.bar, off=labels.off)
        line = f"{number}. {notation}  {equity_text(turn.equity)}"
        if number > 1:
            line += f" ({equity_text(turn.equity - best)})"
        lines.append(line)
    while len(lines) > 1 and utf16_length("\n".join([title, *lines])) > ALERT_LIMIT:
        lines.pop()
    return "\n".join([title, *lines])
