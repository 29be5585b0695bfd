r"""Provably fair dice: commit to a secret seed, mix in the players' entropy,
derive every roll, reveal the seed at the end so anyone can recompute.

The scheme ``nardy-dice-v1``, exactly (enough to reimplement it elsewhere):

1. **Seed.**  Before the first roll of a match (a single game is a match of
   one game) the bot draws a *server seed*: 32 random bytes.  It is written
   as 64 lowercase hex digits.
2. **Commitment.**  The bot publishes ``SHA-256(seed bytes)`` (of the 32 raw
   bytes, not of the hex text), as 64 lowercase hex digits, before the first
   roll and before any entropy is known.
3. **Entropy.**  A list of labelled strings, fixed before the first roll and
   shown to the players: Telegram-assigned values the bot could not know at
   commitment time and any words the players contributed (``/seed``).  Each
   item is ``label=value``: the label is 1-32 characters of ``a-z 0-9 _ . :
   -`` starting with a letter or digit; the value is 1-256 characters of
   Unicode in NFC form without control characters or line/paragraph
   separators.  The *entropy text* is every item as ``label=value`` followed
   by a newline (``\n``), in list order, encoded as UTF-8 (empty when there
   are no items).
4. **Roll message.**  A roll is named by the game's number in the match
   ``g`` (1 for the first game, as ``Game 1`` in a ``.mat`` file), the roll
   index ``r`` within that game (0 for the first die throw) and a block
   counter ``c`` (0, 1, ...).  The message is the UTF-8 text::

       nardy-dice-v1\n<entropy text>game=<g>\nroll=<r>\ncounter=<c>\n

   with ``g``, ``r``, ``c`` in decimal without leading zeros.
5. **Dice.**  Compute ``HMAC-SHA256(key = the 32 seed bytes, message)`` for
   ``c = 0``; read its 32 bytes in order, skip every byte ``>= 252`` and map
   each other byte ``b`` to the die ``b mod 6 + 1`` (252 = 42 × 6, so each face
   is exactly 42 of the 252 kept values).  The first kept byte is the first
   die, the next one the second die.  If a block runs out first (it almost
   never does: 31 of 32 bytes would have to be skipped), go on with the next
   block, ``c = 1``, and so on.
6. **Roll indexes.**  ``r`` counts the throws of the game in order.  An
   opening throw (each side one die) is one index: the first die is White's,
   the second Black's; a tie uses its index up and the next index is thrown
   again.  In backgammon the starter then plays the deciding opening throw
   (its own die first) without a new index, unless the house rule "opening
   reroll" is on; in long nardy (and with that rule) the starter's first roll
   is the next index.  A game without an opening (long nardy games after the
   first of a match) starts at index 0 with the starter's first roll.  Every
   later roll is the next index, in the order played; cube actions and
   resignations use none.

>>> seed = DiceSeed(bytes(range(32)))
>>> str(seed.commitment)
'630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd'
>>> fair = FairDice(seed, Entropy.of(("tg.join", "4217"), ("seed.ann", "lucky 7")))
>>> fair.message(0).decode()
'nardy-dice-v1\ntg.join=4217\nseed.ann=lucky 7\ngame=1\nroll=0\ncounter=0\n'
>>> [fair.roll(index) for index in range(4)]
[(5, 1), (3, 6), (2, 2), (2, 1)]

The seed's ``repr`` and ``str`` never show the secret: only :meth:`DiceSeed.hex`
does, so a seed that reaches a log line or an error message by accident
reveals nothing.

>>> seed
DiceSeed(<secret>, commitment=630dcd2966c4)
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import re
import secrets
import sys
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain
from pathlib import Path
from typing import Any

from engine.game import Action, Game
from engine.matread import MatRecord, format_tag, read_mat
from engine.position import EngineError, Side, Variant

SCHEME = "nardy-dice-v1"
SEED_BYTES = 32
REJECT_FROM = 252
"""Bytes from here on are skipped: 252 is the largest multiple of 6 <= 256."""
MAX_ITEMS = 16
MAX_VALUE_CHARS = 256
SHORT_COMMITMENT = 12
"""Hex digits of the commitment shown on the board."""

_HEX64 = re.compile(r"[0-9a-f]{64}")
_LABEL = re.compile(r"[a-z0-9][a-z0-9_.:-]{0,31}")
_BAD_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})


class DiceError(EngineError):
    """A seed, commitment or entropy that is malformed, or dice asked wrongly."""


def _hex64(text: str, what: str) -> str:
    value = text.strip().lower()
    if not _HEX64.fullmatch(value):
        raise DiceError(f"a {what} is 64 hex digits")
    return value


@dataclass(frozen=True, slots=True)
class Commitment:
    """SHA-256 of a seed, 64 lowercase hex digits: public from the start."""

    digest: str

    def __post_init__(self) -> None:
        if not isinstance(self.digest, str) or not _HEX64.fullmatch(self.digest):
            raise DiceError("a commitment is 64 lowercase hex digits")

    @classmethod
    def parse(cls, text: str) -> Commitment:
        """From its text (surrounding blanks and upper case are forgiven)."""
        return cls(_hex64(text, "commitment"))

    @property
    def short(self) -> str:
        """The first digits, for the board."""
        return self.digest[:SHORT_COMMITMENT]

    def matches(self, seed: DiceSeed) -> bool:
        return hmac.compare_digest(self.digest, seed.commitment.digest)

    def __str__(self) -> str:
        return self.digest


@dataclass(frozen=True, slots=True)
class DiceSeed:
    """The server seed: secret until its match is over."""

    secret: bytes = field(repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.secret, bytes) or len(self.secret) != SEED_BYTES:
            raise DiceError(f"a seed is {SEED_BYTES} bytes")

    @classmethod
    def generate(cls) -> DiceSeed:
        """A fresh seed from the operating system's secure generator."""
        return cls(secrets.token_bytes(SEED_BYTES))

    @classmethod
    def from_test_seed(cls, value: int, salt: str = "") -> DiceSeed:
        """A predictable seed for tests (``NARDY_TEST_SEED``): the SHA-256 of
        ``nardy-test-seed:<value>:<salt>``; ``salt`` tells matches apart.

        >>> DiceSeed.from_test_seed(1, "g") == DiceSeed.from_test_seed(1, "g")
        True
        """
        return cls(hashlib.sha256(f"nardy-test-seed:{value}:{salt}".encode()).digest())

    @classmethod
    def parse(cls, text: str) -> DiceSeed:
        """From 64 hex digits (the form :meth:`hex` writes)."""
        return cls(bytes.fromhex(_hex64(text, "seed")))

    def hex(self) -> str:
        """The seed revealed: only once its match is over."""
        return self.secret.hex()

    @property
    def commitment(self) -> Commitment:
        return Commitment(hashlib.sha256(self.secret).hexdigest())

    def __repr__(self) -> str:
        return f"DiceSeed(<secret>, commitment={self.commitment.short})"

    __str__ = __repr__


@dataclass(frozen=True, slots=True)
class EntropyItem:
    """One labelled piece of entropy: ``label=value``.

    >>> str(EntropyItem.parse("tg.join=1:2=3"))
    'tg.join=1:2=3'
    >>> EntropyItem("Bad label", "x")
    Traceback (most recent call last):
    engine.dice.DiceError: an entropy label is 1-32 of a-z 0-9 _ . : - (got 'Bad label')
    """

    label: str
    value: str

    def __post_init__(self) -> None:
        if not isinstance(self.label, str) or not _LABEL.fullmatch(self.label):
            raise DiceError(f"an entropy label is 1-32 of a-z 0-9 _ . : - (got {self.label!r})")
        value = self.value
        if not isinstance(value, str) or not 1 <= len(value) <= MAX_VALUE_CHARS:
            raise DiceError(f"an entropy value is 1-{MAX_VALUE_CHARS} characters")
        if any(unicodedata.category(char) in _BAD_CATEGORIES for char in value):
            raise DiceError("an entropy value holds no control characters or line breaks")
        if unicodedata.normalize("NFC", value) != value:
            raise DiceError("an entropy value must be in Unicode NFC form")

    @classmethod
    def parse(cls, text: str) -> EntropyItem:
        """From ``label=value`` (the value may hold ``=``)."""
        label, sep, value = text.partition("=")
        if not sep:
            raise DiceError(f"an entropy item is label=value (got {text[:40]!r})")
        return cls(label, value)

    def __str__(self) -> str:
        return f"{self.label}={self.value}"


def clean_words(text: str) -> str:
    """Words a player typed, made a valid entropy value: NFC, every run of
    blanks and control characters one space, cut to the allowed length.

    >>> clean_words("  lucky\\n\\tseven  ")
    'lucky seven'
    """
    kept = "".join(
        " " if char.isspace() or unicodedata.category(char) in _BAD_CATEGORIES else char
        for char in unicodedata.normalize("NFC", text)
    )
    return " ".join(kept.split())[:MAX_VALUE_CHARS].strip()


@dataclass(frozen=True, slots=True)
class Entropy:
    """The players' entropy: labelled items in the order they were added,
    fixed before the first roll."""

    items: tuple[EntropyItem, ...] = ()

    def __post_init__(self) -> None:
        if not all(isinstance(item, EntropyItem) for item in self.items):
            raise DiceError("entropy holds EntropyItem values")
        if len(self.items) > MAX_ITEMS:
            raise DiceError(f"at most {MAX_ITEMS} entropy items")

    @classmethod
    def of(cls, *pairs: tuple[str, str]) -> Entropy:
        return cls(tuple(EntropyItem(label, value) for label, value in pairs))

    @classmethod
    def parse(cls, lines: Iterable[str]) -> Entropy:
        """From ``label=value`` strings (the form :meth:`lines` gives)."""
        return cls(tuple(EntropyItem.parse(line) for line in lines))

    def lines(self) -> list[str]:
        return [str(item) for item in self.items]

    def added(self, label: str, value: str) -> Entropy:
        """With one more item at the end."""
        return Entropy((*self.items, EntropyItem(label, value)))

    @property
    def text(self) -> str:
        """The entropy text of the derivation: each item and a newline."""
        return "".join(f"{item}\n" for item in self.items)


def dice_from_blocks(blocks: Iterable[bytes]) -> tuple[int, int]:
    """The two dice read from a stream of blocks: bytes >= 252 are skipped,
    each other byte ``b`` is the die ``b % 6 + 1``.

    >>> dice_from_blocks([bytes([252, 255, 0, 251])])
    (1, 6)
    >>> dice_from_blocks([bytes([253] * 31 + [5]), bytes([254, 6])])
    (6, 1)
    """
    dice: list[int] = []
    for block in blocks:
        for byte in block:
            if byte < REJECT_FROM:
                dice.append(byte % 6 + 1)
                if len(dice) == 2:
                    return dice[0], dice[1]
    raise DiceError("the blocks ran out before two dice")


@dataclass(frozen=True, slots=True)
class FairDice:
    """The dice of one game of a match: ``roll(index)`` is its throw number
    ``index`` (see the module's description for the derivation)."""

    seed: DiceSeed
    entropy: Entropy = Entropy()
    game: int = 1
    """The game's number in the match, 1 for the first."""

    def __post_init__(self) -> None:
        if not isinstance(self.game, int) or isinstance(self.game, bool) or self.game < 1:
            raise DiceError(f"the game number is 1 or more, got {self.game!r}")

    @property
    def commitment(self) -> Commitment:
        return self.seed.commitment

    def for_game(self, number: int) -> FairDice:
        """The same seed and entropy for another game of the match."""
        return replace(self, game=number)

    def message(self, index: int, counter: int = 0) -> bytes:
        """The HMAC message of roll ``index``, block ``counter``."""
        if index < 0 or counter < 0:
            raise DiceError("roll indexes and counters start at 0")
        return (f"{SCHEME}\n{self.entropy.text}game={self.game}\nroll={index}\n"
                f"counter={counter}\n").encode()

    def blocks(self, index: int) -> Iterator[bytes]:
        """The HMAC blocks of roll ``index``: counter 0, 1, 2, ..."""
        return self._blocks_from(index, 0)

    def _blocks_from(self, index: int, counter: int) -> Iterator[bytes]:
        while True:
            yield hmac.digest(self.seed.secret, self.message(index, counter), "sha256")
            counter += 1

    def roll(self, index: int) -> tuple[int, int]:
        """The two dice of throw ``index`` of the game, in the order thrown."""
        block = hmac.digest(self.seed.secret, self.message(index), "sha256")
        first, second = block[0], block[1]
        if first < REJECT_FROM and second < REJECT_FROM:  # 31 times in 32: skip the generator
            return first % 6 + 1, second % 6 + 1
        return dice_from_blocks(chain([block], self._blocks_from(index, 1)))

    def source(self, first: int = 0) -> Roller:
        """A random source for :meth:`engine.game.Game.roll` that throws from
        index ``first`` on (:func:`next_roll_index` of the game)."""
        return Roller(self, first)


class Roller:
    """The :class:`~engine.position.RandomSource` the game rolls with: each
    ``randint(1, 6)`` is the next die of throws ``first``, ``first + 1``, ...
    The engine asks for two dice per throw (White's then Black's in the
    opening, first then second otherwise), which is how the dice pair up."""

    def __init__(self, dice: FairDice, first: int) -> None:
        if first < 0:
            raise DiceError("roll indexes start at 0")
        self.dice = dice
        self.next_index = first
        self._pending: list[int] = []

    def randint(self, a: int, b: int) -> int:
        if (a, b) != (1, 6):
            raise DiceError(f"fair dice only give 1..6, not {a}..{b}")
        if not self._pending:
            self._pending = list(self.dice.roll(self.next_index))
            self.next_index += 1
        return self._pending.pop(0)


def reuses_opening(game: Game) -> bool:
    """Whether the starter plays the deciding opening throw (no new index)."""
    return (game.opening is not None and game.variant is Variant.BACKGAMMON
            and not game.options.opening_reroll)


def game_throws(game: Game) -> list[tuple[int, int]]:
    """Every throw of the game in roll index order: the opening throws
    (White's die, Black's die), then each roll (first, second).

    >>> from engine.game import GameOptions
    >>> from engine.position import Dice
    >>> class Fixed:
    ...     values = [3, 3, 5, 2, 6, 4]
    ...     def randint(self, a: int, b: int) -> int:
    ...         return self.values.pop(0)
    >>> game = Game.new(GameOptions.long()).roll(Fixed()).roll(Fixed())
    >>> game_throws(game), next_roll_index(game)
    ([(3, 3), (5, 2), (6, 4)], 3)
    """
    throws = list(game.opening.rolls) if game.opening is not None else []
    rolls = [event.dice for event in game.events if event.action is Action.ROLL]
    if reuses_opening(game):
        rolls = rolls[1:]
    throws += [(dice.first, dice.second) for dice in rolls if dice is not None]
    return throws


def next_roll_index(game: Game) -> int:
    """The roll index of the game's next throw."""
    return len(game_throws(game))


# ------------------------------------------------------------------ verifying


@dataclass(frozen=True, slots=True)
class RollCheck:
    """One recomputed throw: what the seed gives and what the record says
    (``found`` None: nothing to compare, e.g. an opening tie)."""

    game: int
    index: int
    expected: str
    found: str | None

    @property
    def ok(self) -> bool:
        return self.found is None or self.found == self.expected

    def __str__(self) -> str:
        where = f"game {self.game} roll {self.index}"
        if self.found is None:
            return f"{where}: {self.expected} (ok)"
        if self.ok:
            return f"{where}: {self.expected} ok"
        return f"{where}: MISMATCH: the record has {self.found}, the seed gives {self.expected}"


@dataclass(frozen=True, slots=True)
class Verification:
    """The outcome of checking a record: the commitment, then every throw;
    ``warnings`` about the entropy (:func:`entropy_warnings`) and ``refused``,
    the entropy-bearing taps the bot logged as refused (``label=value``)."""

    commitment_ok: bool
    checks: tuple[RollCheck, ...]
    warnings: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.commitment_ok and all(check.ok for check in self.checks)

    def report(self) -> list[str]:
        lines = ["commitment: SHA-256 of the seed " + ("matches" if self.commitment_ok
                                                         else "DOES NOT match")]
        lines += [str(check) for check in self.checks]
        if self.refused:
            lines.append(f"{len(self.refused)} tap(s) the bot refused before the game "
                         "(their ids were not mixed in): " + ", ".join(self.refused))
        lines += self.warnings
        bad = sum(not check.ok for check in self.checks) + (not self.commitment_ok)
        lines.append(("all dice verified" + (" (but see the WARNING above)" if self.warnings
                                             else "")) if self.ok
                     else f"FAILED: {bad} mismatch(es)")
        return lines


def _side_dice(side: Side, dice: tuple[int, int]) -> str:
    return f"{side.name.title()} {dice[0]}{dice[1]}"


def check_rolls(fair: FairDice, rolls: Sequence[tuple[Side, tuple[int, int]]], *,
                opening: bool, reuse_opening: bool) -> list[RollCheck]:
    """Check a game's rolls (who rolled, the dice in order written) against
    the seed.  ``opening``: the game began with an opening throw;
    ``reuse_opening``: the starter played it (backgammon without reroll)."""
    checks: list[RollCheck] = []
    index = 0
    side: Side | None = rolls[0][0] if rolls else None
    if opening:
        while (throw := fair.roll(index))[0] == throw[1]:
            checks.append(RollCheck(fair.game, index, f"opening tie {throw[0]}{throw[1]}", None))
            index += 1
        side = Side.WHITE if throw[0] > throw[1] else Side.BLACK
        if reuse_opening:
            own = (throw[side], throw[side.opponent])
            found = _side_dice(*rolls[0]) if rolls else None
            checks.append(RollCheck(fair.game, index, _side_dice(side, own), found))
            rolls = rolls[1:]
            side = side.opponent
        else:
            found = f"{rolls[0][0].name.title()} starts" if rolls else None
            checks.append(RollCheck(fair.game, index, f"{side.name.title()} starts", found))
        index += 1
    for who, dice in rolls:
        assert side is not None
        checks.append(RollCheck(fair.game, index, _side_dice(side, fair.roll(index)),
                                _side_dice(who, dice)))
        side = side.opponent
        index += 1
    return checks


def check_game(fair: FairDice, game: Game) -> list[RollCheck]:
    """Check a game record's throws against the seed (``fair`` for its number)."""
    checks = []
    for index, throw in enumerate(game_throws(game)):
        expected = fair.roll(index)
        checks.append(RollCheck(fair.game, index, f"{expected[0]}{expected[1]}",
                                f"{throw[0]}{throw[1]}"))
    return checks


# ------------------------------------------------------------------ .mat and JSON

TAG_SCHEME = "Dice scheme"
TAG_COMMITMENT = "Dice commitment"
TAG_SEED = "Dice seed"
TAG_ENTROPY = "Dice entropy"
TAG_OPENING = "Dice opening"
TAG_REFUSED = "Dice refused"
REROLL = "reroll"


def dice_header_lines(commitment: Commitment, entropy: Entropy, seed: DiceSeed | None = None,
                      *, opening_reroll: bool = False,
                      refused: Sequence[str] = ()) -> list[str]:
    """The ``.mat`` header lines that let anyone verify the dice::

        ; [Dice scheme "nardy-dice-v1"]
        ; [Dice commitment "<64 hex>"]
        ; [Dice seed "<64 hex>"]          only once the match is over
        ; [Dice entropy "label=value"]    one line per item, in order
        ; [Dice opening "reroll"]         only with that backgammon house rule
        ; [Dice refused "label=value"]    one line per refused entropy tap, in order

    Pass ``seed`` only when it may be revealed; it must match the commitment.

    >>> seed = DiceSeed(bytes(32))
    >>> for line in dice_header_lines(seed.commitment, Entropy.of(("seed.ann", 'say "7"'))):
    ...     print(line)
    ; [Dice scheme "nardy-dice-v1"]
    ; [Dice commitment "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"]
    ; [Dice entropy "seed.ann=say \\"7\\""]
    """
    if seed is not None and not commitment.matches(seed):
        raise DiceError("the seed does not match the commitment")
    lines = [format_tag(TAG_SCHEME, SCHEME), format_tag(TAG_COMMITMENT, str(commitment))]
    if seed is not None:
        lines.append(format_tag(TAG_SEED, seed.hex()))
    lines += [format_tag(TAG_ENTROPY, line) for line in entropy.lines()]
    if opening_reroll:
        lines.append(format_tag(TAG_OPENING, REROLL))
    lines += [format_tag(TAG_REFUSED, line) for line in refused]
    return lines


def _scheme(value: object) -> None:
    if value is None:
        raise DiceError(f"the file names no dice scheme (a {SCHEME} file has the tag "
                        f"[{TAG_SCHEME} \"{SCHEME}\"])")
    if value != SCHEME:
        raise DiceError(f"unknown dice scheme {value!r} (this verifier knows {SCHEME})")


SEQUENTIAL_DIGITS = 10
"""A Telegram value of fewer digits looks like a counter (an update or message
id grows one by one, so the bot can guess it when it commits)."""


def entropy_warnings(entropy: Entropy) -> list[str]:
    """Loud warnings about entropy that does not protect the players: none at
    all (the bot could have chosen the seed knowing every die), or only
    short numbers, which look like sequential ids the bot can predict.

    >>> entropy_warnings(Entropy())[0][:32]
    'WARNING: no entropy was mixed in'
    >>> entropy_warnings(Entropy.of(("tg.join", "8123")))[0][:40]
    'WARNING: only sequential-looking numbers'
    >>> entropy_warnings(Entropy.of(("tg.start", "4390213745981237712")))
    []
    """
    if not entropy.items:
        return ["WARNING: no entropy was mixed in: the bot knew every die when it chose the "
                "seed, and these dice prove nothing about fairness"]
    if all(_sequential(item) for item in entropy.items):
        return ["WARNING: only sequential-looking numbers were mixed in ("
                + ", ".join(map(str, entropy.items)) + "): the bot may have known them when it "
                "chose the seed, so it could have picked the dice"]
    return []


def _sequential(item: EntropyItem) -> bool:
    return item.value.isdigit() and len(item.value) < SEQUENTIAL_DIGITS


def _revealed(seed: str | None) -> DiceSeed:
    if seed is None:
        raise DiceError("the seed is not revealed yet (it is, once the game is over)")
    return DiceSeed.parse(seed)


def verify_mat(record: MatRecord) -> Verification:
    """Check every roll of a ``.mat`` file that carries the dice tags."""
    _scheme(record.tag(TAG_SCHEME))
    committed = record.tag(TAG_COMMITMENT)
    if committed is None:
        raise DiceError("the file has no dice commitment")
    commitment = Commitment.parse(committed)
    seed = _revealed(record.tag(TAG_SEED))
    entropy = Entropy.parse(record.tag_values(TAG_ENTROPY))
    reroll = record.tag(TAG_OPENING) == REROLL
    checks: list[RollCheck] = []
    for game in record.games:
        fair = FairDice(seed, entropy, game.number)
        # the engine's match rule: later long nardy games start without an opening
        opening = record.variant is Variant.BACKGAMMON or game.number == 1
        rolls = [(cell.side, cell.dice) for cell in game.rolls]
        checks += check_rolls(fair, rolls, opening=opening,
                              reuse_opening=record.variant is Variant.BACKGAMMON and not reroll)
    return Verification(commitment.matches(seed), tuple(checks),
                        tuple(entropy_warnings(entropy)), tuple(record.tag_values(TAG_REFUSED)))


def export_json(fair: FairDice, rolls: Iterable[tuple[int, int, tuple[int, int]]], *,
                reveal: bool) -> dict[str, Any]:
    """The JSON form: ``{"scheme", "commitment", "seed" (once revealed),
    "entropy": ["label=value", ...], "rolls": [{"game", "roll", "dice": [d1, d2]}]}``;
    ``rolls`` are (game number, roll index, dice)."""
    data: dict[str, Any] = {"scheme": SCHEME, "commitment": str(fair.commitment)}
    if reveal:
        data["seed"] = fair.seed.hex()
    data["entropy"] = fair.entropy.lines()
    data["rolls"] = [{"game": game, "roll": index, "dice": list(dice)}
                     for game, index, dice in rolls]
    return data


def _int(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise DiceError(f"{what} is a whole number >= 0")
    return value


def verify_json(data: Mapping[str, Any]) -> Verification:
    """Check the rolls of the JSON form (see :func:`export_json`)."""
    _scheme(data.get("scheme"))
    commitment = Commitment.parse(str(data.get("commitment", "")))
    seed = _revealed(data.get("seed"))
    entropy = data.get("entropy", [])
    rolls = data.get("rolls", [])
    if not isinstance(entropy, list) or not isinstance(rolls, list):
        raise DiceError("entropy and rolls are lists")
    fair = FairDice(seed, Entropy.parse(str(item) for item in entropy))
    refused = data.get("refused", [])
    if not isinstance(refused, list):
        raise DiceError("refused is a list")
    checks = []
    for roll in rolls:
        if not isinstance(roll, Mapping):
            raise DiceError("each roll is an object with game, roll and dice")
        game, index = _int(roll.get("game"), "game"), _int(roll.get("roll"), "roll")
        dice = roll.get("dice")
        if not isinstance(dice, list) or len(dice) != 2:
            raise DiceError("dice are a list of two numbers")
        expected = fair.for_game(game).roll(index)
        checks.append(RollCheck(game, index, f"{expected[0]}{expected[1]}",
                                f"{dice[0]}{dice[1]}"))
    return Verification(commitment.matches(seed), tuple(checks),
                        tuple(entropy_warnings(fair.entropy)), tuple(map(str, refused)))


def verify_text(text: str) -> Verification:
    """Check an exported game: the JSON form if it starts with ``{``, else ``.mat``."""
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except ValueError as error:
            raise DiceError(f"not valid JSON: {error}") from error
        if not isinstance(data, dict):
            raise DiceError("the JSON form is an object")
        return verify_json(data)
    return verify_mat(read_mat(text))


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m engine.dice verify FILE``: exit 0 when every roll matches."""
    parser = argparse.ArgumentParser(prog="python -m engine.dice",
                                     description="Verify the dice of an exported game.")
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser("verify", help="recompute every roll of a .mat or JSON file")
    verify.add_argument("file", type=Path)
    args = parser.parse_args(argv)
    try:
        result = verify_text(args.file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, EngineError) as error:
        print(f"cannot verify {args.file}: {error}", file=sys.stderr)
        return 1
    print("\n".join(result.report()))
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
