"""The 💡 Hint button's answer: the best turns, computed off the event loop, cached.

A tap on 💡 Hint (routed by :func:`bot.edge.handlers.buttons.on_button`,
checked by :func:`bot.rules.hints.ask`) is answered with an alert listing
the best turns of the roll (:func:`bot.present.hints.hint_text`).  They
are ranked by the strong level's brains in the computer opponent's worker
pool (:func:`bot.edge.handlers.computer.in_pool`), so the event loop goes on
answering other games' taps meanwhile, and kept per roll (the turn's start
and dice: every step of one turn asks the same question): a second tap, or
the other board of a private game, is answered from memory, and taps that
arrive while the first is being computed wait for that one computation.
"""

from __future__ import annotations

import logging

from bot.edge.handlers.computer import in_pool
from bot.edge.memo import Memo
from bot.edge.metrics import HINTS
from bot.present.hints import hint_text
from bot.rules.computer import best_turns
from bot.rules.hints import HintQuestion, Ranked
from bot.vocab.i18n import N_, Translator

log = logging.getLogger(__name__)

CACHED = 256
"""Rolls whose hints are kept (the newest asked; one is a few hundred bytes)."""
UNAVAILABLE = N_("The hint cannot be worked out right now; try again in a moment.")

_ANSWERS: Memo[HintQuestion, tuple[Ranked, ...]] = Memo(CACHED)


def cached(question: HintQuestion) -> tuple[Ranked, ...] | None:
    """The turns found for ``question`` before, if still kept."""
    return _ANSWERS.cached(question)


def forget() -> None:
    """Drop every kept hint (a test starts from none)."""
    _ANSWERS.clear()


async def ranked(question: HintQuestion) -> tuple[Ranked, ...]:
    """The best turns for ``question``: from the cache, or computed once in
    the worker pool however many taps ask at the same time."""
    if cached(question) is not None:
        HINTS.labels("cached").inc()
    elif _ANSWERS.in_flight(question):
        HINTS.labels("shared").inc()
    return await _ANSWERS.get(question, lambda: _compute(question))


async def _compute(question: HintQuestion) -> tuple[Ranked, ...]:
    found = await in_pool(best_turns, question)
    HINTS.labels("computed").inc()
    return found


async def answer_text(tr: Translator, question: HintQuestion) -> str:
    """The alert answering a 💡 Hint tap: the hint, or why there is none now
    (the worker pool failed: logged, and the next tap tries again)."""
    try:
        found = await ranked(question)
    except Exception:
        HINTS.labels("failed").inc()
        log.exception("no hint for %s", question)
        return tr.gettext(UNAVAILABLE)
    return hint_text(tr, question, found)
