"""The fair dice in words: the commitment on a lobby and a board, /verify's
answer, and the luck line of a finished game (bot/rules/dice.py).

The seed appears only in :func:`verify_message` and only once
:func:`bot.rules.dice.revealed` says the match is over or cancelled.
"""

from __future__ import annotations

from html import escape

from bot.present.names import variant_name
from bot.present.render.dice import DiceChart
from bot.rules.dice import revealed, rolls_by_side, seed_of, shown
from bot.rules.lobby import awaits_start
from bot.rules.matchstate import table_of
from bot.vocab.callbacks import VerifyDice
from bot.vocab.i18n import Translator
from bot.vocab.records import DiceState, GameRecord, Status
from bot.vocab.usertext import NAME_LIMIT, clean, html_text
from engine.dicestats import FAIR_AVERAGE_PIPS, MIN_ROLLS, ROLLS, DiceStats, Verdict
from engine.position import Variant

VERIFY_COMMAND = "python -m engine.dice verify game.mat"


def commitment_lines(tr: Translator, record: GameRecord) -> list[str]:
    """"🎲 Dice committed: 630dcd2966c4 (/verify)" while the seed is secret
    (a lobby, whose entropy is still to come, and a rematch offer show the whole
    commitment); the seed itself once the match is over or cancelled."""
    lines = []
    state = record.dice
    lobby_closed = record.status is Status.CANCELLED and not record.engine
    if state is not None and not lobby_closed:
        if revealed(record):
            lines.append("🎲 " + tr.gettext("Dice seed: {code} (/verify)",
                                            code=f"<code>{state.seed}</code>"))
        else:
            commitment = seed_of(state).commitment
            code = commitment.digest if record.status is Status.LOBBY else commitment.short
            lines.append("🎲 " + tr.gettext("Dice committed: {code} (/verify)",
                                            code=f"<code>{code}</code>"))
    if record.next_dice is not None:
        lines.append("🎲 " + tr.gettext("The rematch's dice committed: {code}",
                                        code=f"<code>{seed_of(record.next_dice).commitment}"
                                             "</code>"))
    return lines


def commitment_notice(tr: Translator, state: DiceState) -> str:
    """The message that keeps a new seed's whole commitment: posted before
    anything is mixed in, and never edited, so the players keep it."""
    return "🎲 " + tr.gettext(
        "Dice of the next game committed: {code}\nThe bot never edits this message: keep it, "
        "and compare it with the fingerprint of the seed shown at the end (/verify).",
        code=f"<code>{seed_of(state).commitment}</code>")


def fresh_commitment(old: GameRecord | None, new: GameRecord) -> DiceState | None:
    """The seed ``new`` commits to that ``old`` did not show yet (a new lobby,
    a game waiting for ▶ Start, a rematch offer), if any."""
    known = set() if old is None else {s.seed for s in (old.dice, old.next_dice) if s is not None}
    for state in (new.next_dice, new.dice if new.status is Status.LOBBY else None):
        if state is not None and not state.fixed and state.seed not in known:
            return state
    return None


def words_line(tr: Translator, record: GameRecord) -> str | None:
    """The /seed words mixed in so far, while the lobby is open (none for an
    inline lobby: /seed acts on a chat's lobby)."""
    state = record.dice
    if state is None or record.status is not Status.LOBBY or record.is_inline \
            or record.is_private:  # an invitation's game has no chat to send /seed in
        return None
    words = [item.partition("=")[2] for item in state.entropy if item.startswith("seed.")]
    if not words or not awaits_start(record):
        # a lobby between people keeps the commitment and is not edited for
        # words: it shows only the invitation (the /seed reply and /verify list them)
        return tr.gettext("Add your own words to the dice with /seed words before the game "
                          "starts.")
    return tr.gettext("Words for the dice (/seed): {words}",
                      words=", ".join(f"«{html_text(word)}»" for word in words))


def verify_data(record: GameRecord) -> str | None:
    """The 🎲 Verify button's data once the record's dice are revealed."""
    if record.dice is None or not revealed(record):
        return None
    return VerifyDice(record.chat_id, record.thread_id or 0, record.game_id).format()


def keep_data(record: GameRecord) -> str | None:
    """The 🎲 Verify button of an inline game waiting for ▶ Start: it sends
    the whole commitment to the tapper's private chat, in a message the bot
    never edits (the inline message itself is edited into the board)."""
    if record.dice is None or not record.is_inline or record.dice.fixed:
        return None
    return VerifyDice(record.chat_id, 0, record.game_id).format()


def verify_message(tr: Translator, record: GameRecord) -> str:
    """/verify: the commitment and the entropy; the seed and how to check
    once the match is over or cancelled."""
    dice = shown(record)
    if dice is None:
        return tr.gettext("This game was started before the dice could be verified.")
    entropy = "\n".join(f"<code>{escape(item)}</code>" for item in dice.entropy) or "—"
    lines = [tr.gettext("<b>Fair dice</b> (scheme nardy-dice-v1)"),
             tr.gettext("Fingerprint of the seed (SHA-256): {code}",
                        code=f"<code>{dice.commitment}</code>"),
             tr.gettext("Mixed in so far:") if dice.seed is None else tr.gettext("Mixed in:"),
             entropy]
    if dice.refused:
        lines += [tr.gettext("Taps refused before the game (not mixed in):"),
                  "\n".join(f"<code>{escape(item)}</code>" for item in dice.refused)]
    if dice.seed is None:
        lines.append(tr.gettext("The seed is shown when the game (the match) is over or "
                                "cancelled."))
    else:
        lines += [tr.gettext("Seed: {code}", code=f"<code>{dice.seed}</code>"),
                  tr.gettext("To check: /export the game and run {command}; or follow "
                             "the recipe in the bot's docs (docs/fair-dice.md).",
                             command=f"<code>{VERIFY_COMMAND}</code>")]
    return "\n".join(lines)


def luck_line(tr: Translator, record: GameRecord) -> str:
    """"Rolled: Ann — 312 pips, 4 doubles · Bob — 287 pips, 2 doubles"."""
    parts = []
    for side, stats in rolls_by_side(table_of(record).game).items():
        pips, doubles = stats.pips, stats.doubles
        name = next((p.name for p in record.players if p.side is side), "?")
        parts.append(f"{html_text(name)} — "
                     + tr.ngettext("{n} pip rolled", "{n} pips rolled", pips, n=pips) + ", "
                     + tr.ngettext("{n} double", "{n} doubles", doubles, n=doubles))
    return "🎲 " + tr.gettext("Rolled: {parts}", parts=" · ".join(parts))



# ---------------------------------------------------------------- /dice


def p_text(p: float) -> str:
    """A p-value as people read it: two decimals, small ones in scientific form.

    >>> p_text(0.4123), p_text(0.00012)
    ('0.41', '1.2e-04')
    """
    return f"{p:.2f}" if p >= 0.01 else f"{p:.1e}"


def verdict_text(tr: Translator, stats: DiceStats) -> str:
    """The plain verdict of the chi-square test (engine/dicestats.py)."""
    verdict = stats.verdict
    if verdict is Verdict.TOO_FEW:
        return tr.gettext("Too few rolls for a verdict: it takes {n} or more.", n=MIN_ROLLS)
    p = p_text(stats.p_value)
    if verdict is Verdict.CONSISTENT:
        return tr.gettext("Consistent with fair dice, p = {p}.", p=p)
    return tr.gettext("Unusual for fair dice, p = {p}: fair dice give rolls this uneven less "
                      "than once in a thousand players.", p=p)


def dice_summary(tr: Translator, stats: DiceStats) -> list[str]:
    """Rolls, doubles, pips per roll against fair dice, and the verdict (plain text)."""
    share = 100 * stats.doubles / stats.rolls if stats.rolls else 0.0
    return [
        tr.gettext("Rolls: {rolls}; doubles: {doubles} ({share}%, fair dice: 16.7%)",
                   rolls=stats.rolls, doubles=stats.doubles, share=f"{share:.1f}"),
        tr.gettext("Pips per roll: {average} (fair dice: {fair})",
                   average=f"{stats.average_pips:.2f}", fair=f"{FAIR_AVERAGE_PIPS:.2f}"),
        verdict_text(tr, stats),
        tr.gettext("Opening rolls are not counted (in backgammon they cannot be doubles)."),
    ]


def dice_title(tr: Translator, name: str, variant: Variant | None) -> str:
    """"Ann's dice", or "Ann's dice: long nardy" (plain text, no HTML)."""

    if variant is None:
        return tr.gettext("Dice of {name}", name=clean(name, NAME_LIMIT))
    return tr.gettext("Dice of {name}: {variant}", name=clean(name, NAME_LIMIT),
                      variant=variant_name(tr, variant))


def dice_text(tr: Translator, title: str, stats: DiceStats) -> str:
    """/dice for chats with text boards: the summary and a table of the 21 rolls."""
    roll, seen, fair_share = tr.gettext("roll"), tr.gettext("seen"), tr.gettext("fair")
    rows = [f"{roll:>5} {seen:>6} {fair_share:>7}"]
    rows += [f"{f'{high}{low}':>5} {count:>6} {fair:>7.1f}" for (high, low), count, fair
             in zip(ROLLS, stats.counts, stats.expected, strict=True)]
    return "\n".join([f"<b>{escape(title)}</b>", *map(escape, dice_summary(tr, stats)),
                      "<pre>" + escape("\n".join(rows)) + "</pre>"])


def dice_chart(tr: Translator, title: str, stats: DiceStats) -> DiceChart:
    """/dice as a picture's content (drawn by bot/present/render/dice.py)."""
    return DiceChart(title, stats, tuple(dice_summary(tr, stats)), tr.gettext("rolled"),
                     tr.gettext("fair dice"))
