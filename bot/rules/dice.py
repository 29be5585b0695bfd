"""The fair dice of a table: when the seed is committed, what entropy is
mixed in, the one place a game rolls, and when the seed may be revealed.

Pure (the scheme itself is engine/dice.py; the record's part is
:class:`bot.vocab.records.DiceState`):

* a lobby (and a rematch offer) commits to a fresh seed before anything
  else happens, so its commitment is on the message the players see;
* the tap that seats the second player (or accepts the rematch) adds the id
  Telegram gave that callback query (``tg.join=…``): the bot could not know
  it when it chose the seed, and cannot choose it; ``/seed`` words of anyone
  in the chat while the lobby is open come before it (``seed.<user id>=…``);
* every throw of every game of the match, the opening included, is
  :func:`roll`: ``FairDice(seed, entropy, game number).source(next index)``;
* the seed is shown only once the match is over or cancelled (:func:`revealed`).

>>> dealer = Dealer.for_tests(1)
>>> state = with_tap(committed(dealer), "4217")
>>> state.entropy, state.fixed
(('tg.join=4217',), True)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from bot.rules.matchstate import match_in_progress
from bot.vocab.callbacks import ButtonAction
from bot.vocab.i18n import N_
from bot.vocab.records import MAX_REFUSED, DiceState, GameRecord, Status
from bot.vocab.refusals import Refusal
from engine.dice import (
    MAX_ITEMS,
    DiceError,
    DiceSeed,
    Entropy,
    EntropyItem,
    FairDice,
    clean_words,
    next_roll_index,
    reuses_opening,
)
from engine.dicestats import DiceStats
from engine.game import Action, Game
from engine.position import Side, Variant

JOIN_LABEL = "tg.join"
START_LABEL = "tg.start"
"""The person's Start tap on a game against the computer (or Accept of an invitation)."""
WORDS_LABEL = "seed.{user}"

NO_LOBBY = N_("/seed works while a lobby waits for players: open one with /new.")
SEED_USAGE = N_("Send /seed and a few words of your own: they are mixed into the dice of "
                "this lobby's game, so nobody (the bot included) can know the dice in advance.")


class SeedWordsError(ValueError):
    """/seed words that cannot be taken (too late, too many, nothing left)."""


@dataclass
class Dealer:
    """Where new seeds come from (the system's secure generator, or
    ``NARDY_TEST_SEED``'s predictable ones) and the Telegram id of the tap
    being handled, if any."""

    seeds: Callable[[], DiceSeed] = DiceSeed.generate
    tap_id: str | None = None
    refused: tuple[str, ...] = ()
    """The entropy taps refused on the game before this one (``label=id``):
    the start keeps them in its dice (``DiceState.refused``)."""

    @classmethod
    def for_tests(cls, value: int) -> Dealer:
        """Predictable seeds: ``DiceSeed.from_test_seed(value, "1")``, ``"2"``, ..."""
        counter: Iterator[int] = itertools.count(1)
        return cls(lambda: DiceSeed.from_test_seed(value, str(next(counter))))

    def tapped(self, tap_id: str | None, refused: tuple[str, ...] = ()) -> Dealer:
        """This dealer for one tap (the callback query's id; the taps refused before)."""
        return Dealer(self.seeds, tap_id, refused)

    def seed(self) -> DiceSeed:
        return self.seeds()


@dataclass(frozen=True)
class Revealed:
    """What /verify shows: the commitment and entropy always, the seed only
    once revealed."""

    commitment: str
    entropy: tuple[str, ...]
    seed: str | None = field(default=None, repr=False)
    refused: tuple[str, ...] = ()


def committed(dealer: Dealer) -> DiceState:
    """A fresh seed, committed: nothing mixed in yet."""
    return DiceState(seed=dealer.seed().hex())


def seed_of(state: DiceState) -> DiceSeed:
    return DiceSeed.parse(state.seed)


def with_tap(state: DiceState, tap_id: str | None, label: str = JOIN_LABEL,
             refused: tuple[str, ...] = ()) -> DiceState:
    """The entropy fixed by the tap that starts the game (``tg.join`` = its
    callback query id, or ``label``: ``tg.start`` for a Start tap), with the
    entropy taps ``refused`` before it kept beside (not mixed in)."""
    if state.fixed:
        return state
    items = state.entropy
    if tap_id:
        items = (*items[:MAX_ITEMS - 1], str(EntropyItem(label, tap_id[:256])))
    kept = (*state.refused, *refused)[:MAX_REFUSED]
    return state.model_copy(update={"entropy": items, "fixed": True, "refused": kept})


def entropy_tap(record: GameRecord, action: ButtonAction) -> str | None:
    """The label an entropy-bearing tap of ``action`` on ``record`` would be
    mixed in under (its refusal is logged: docs/fair-dice.md), or None."""
    if record.status is Status.LOBBY and record.dice is not None and not record.dice.fixed:
        if action is ButtonAction.START:
            return START_LABEL
        if action in (ButtonAction.JOIN, ButtonAction.COMPUTER) and not record.is_inline:
            return JOIN_LABEL  # an inline game's Join seats only: its ▶ Start is the entropy
    if record.next_dice is not None and action in (ButtonAction.ACCEPT, ButtonAction.REMATCH):
        return JOIN_LABEL  # accepting a rematch between two people
    return None


def with_words(state: DiceState, user_id: int, text: str) -> DiceState:
    """``/seed`` words of ``user_id`` added (replacing their earlier ones)."""
    if state.fixed:
        raise SeedWordsError("the dice are fixed already")
    words = clean_words(text)
    if not words:
        raise SeedWordsError("no words")
    label = WORDS_LABEL.format(user=user_id)
    kept = tuple(item for item in state.entropy if not item.startswith(label + "="))
    if len(kept) >= MAX_ITEMS - 1:  # one place stays for the join tap
        raise SeedWordsError("too many /seed words in this lobby")
    return state.model_copy(update={"entropy": (*kept, str(EntropyItem(label, words)))})


def words_of(state: DiceState | None, user_id: int) -> str:
    """The ``/seed`` words of ``user_id`` as :func:`with_words` kept them, '' if none."""
    label = WORDS_LABEL.format(user=user_id) + "="
    entropy = () if state is None else state.entropy
    return next((item[len(label):] for item in entropy if item.startswith(label)), "")


def fair_dice(state: DiceState, number: int) -> FairDice:
    """The dice of game ``number`` of the match."""
    return FairDice(seed_of(state), Entropy.parse(state.entropy), number)


def roll(game: Game, state: DiceState, number: int) -> Game:
    """THE roll of the bot: every throw of every game, the opening included,
    is the next index of the match's fair dice."""
    fair = fair_dice(state, number)
    return game.roll(fair.source(next_roll_index(game)))


def rolls_by_side(game: Game, *, opening: bool = True) -> dict[Side, DiceStats]:
    """The rolls each side threw in the game (a backgammon starter's opening
    throw counts as their first roll unless ``opening`` is false; the one-die
    opening throws do not)."""
    rolls: dict[Side, list[tuple[int, int]]] = {side: [] for side in Side}
    events = [event for event in game.events if event.action is Action.ROLL]
    if not opening and reuses_opening(game):
        events = events[1:]
    for event in events:
        if event.dice is not None:
            rolls[event.side].append((event.dice.first, event.dice.second))
    return {side: DiceStats.of(thrown) for side, thrown in rolls.items()}


def dice_booking(record: GameRecord, game: Game) -> dict[tuple[Variant, int], DiceStats]:
    """What a game that ends adds to its players' dice statistics (/dice): a
    backgammon opening roll, which cannot be a double, is left out."""
    by_side = rolls_by_side(game, opening=False)
    return {(record.variant, player.user_id): by_side[player.side] for player in record.players
            if player.side is not None}


def revealed(record: GameRecord) -> bool:
    """Whether the record's seed may be shown: its match is over or was cancelled."""
    if record.status is Status.CANCELLED:
        return True
    return record.status is Status.FINISHED and not match_in_progress(record)


def shown(record: GameRecord) -> Revealed | None:
    """The record's dice as /verify may show them now (None: no fair dice)."""
    state = record.dice
    if state is None:
        return None
    try:
        commitment = str(seed_of(state).commitment)
    except DiceError:  # pragma: no cover - the record's pattern checks the seed
        return None
    return Revealed(commitment, state.entropy, state.seed if revealed(record) else None,
                    state.refused)


def seeded(record: GameRecord, user_id: int, words: str) -> GameRecord:
    """The lobby after ``/seed words`` by ``user_id`` (:func:`with_words`)."""
    if record.status is not Status.LOBBY or record.dice is None:
        raise Refusal(NO_LOBBY)
    if not words.strip():
        raise Refusal(SEED_USAGE)
    try:
        return record.model_copy(update={"dice": with_words(record.dice, user_id, words)})
    except SeedWordsError:
        raise Refusal(N_("No more words fit into this lobby's dice.")) from None
