"""A verifier written from docs/fair-dice.md alone (hashlib, hmac, re: no
project code reads the file or derives the dice), run on exported matches of
both variants, with opening ties, the backgammon "reroll" house rule and long
cells: it must agree with the project's verifier, so the page stays enough to
write one (issue 25).  It once cut Black's cell at a fixed column, as an
earlier page suggested, and failed on a double's four steps."""

from __future__ import annotations

import hashlib
import hmac
import re

import pytest

from engine.dice import DiceSeed, FairDice, verify_text
from engine.game import GameOptions
from tests.engine.test_dice import ENTROPY, TIE_SEED, exported, played_match


def _header(text: str) -> dict[str, list[str]]:
    tags: dict[str, list[str]] = {}
    for line in text.splitlines():
        found = re.match(r'; \[(Dice \w+|Variation) "((?:[^"\\]|\\.)*)"\]', line)
        if found:
            tags.setdefault(found[1], []).append(re.sub(r"\\(.)", r"\1", found[2]))
    return tags


def _dice(seed: bytes, entropy: list[str], game: int, roll: int) -> tuple[int, int]:
    kept: list[int] = []
    counter = 0
    while len(kept) < 2:
        message = ("nardy-dice-v1\n" + "".join(item + "\n" for item in entropy)
                   + f"game={game}\nroll={roll}\ncounter={counter}\n")
        for byte in hmac.new(seed, message.encode(), hashlib.sha256).digest():
            if byte < 252 and len(kept) < 2:
                kept.append(byte % 6 + 1)
        counter += 1
    return kept[0], kept[1]


def _games(text: str) -> list[tuple[int, list[tuple[int, int]]]]:
    games: list[tuple[int, list[tuple[int, int]]]] = []
    for line in text.splitlines():
        title = re.fullmatch(r" Game (\d+)", line)
        if title:
            games.append((int(title[1]), []))
        elif games and re.match(r"\s*\d+\)", line):
            rest = line[line.index(")") + 1:]
            games[-1][1].extend((int(a), int(b)) for a, b in
                                re.findall(r"(?<![\d/])(\d)(\d):", rest))
    return games


def outsider_verify(text: str) -> int:
    """The throws checked; AssertionError at the first that does not fit."""
    tags = _header(text)
    assert tags["Dice scheme"] == ["nardy-dice-v1"]
    seed = bytes.fromhex(tags["Dice seed"][0])
    assert hashlib.sha256(seed).hexdigest() == tags["Dice commitment"][0]
    entropy = tags.get("Dice entropy", [])
    long = tags.get("Variation") == ["Long Nardy"]
    reroll = tags.get("Dice opening") == ["reroll"]
    checked = 0
    for number, cells in _games(text):
        roll = 0
        if not (long and number > 1):  # an opening: ties take the next index
            while (throw := _dice(seed, entropy, number, roll))[0] == throw[1]:
                roll += 1
            if not (long or reroll):  # the starter plays it, own (higher) die first
                assert cells[0] == (max(throw), min(throw)), (number, cells[0], throw)
                cells = cells[1:]
                checked += 1
            roll += 1
        for cell in cells:
            assert cell == _dice(seed, entropy, number, roll), (number, roll, cell)
            roll += 1
            checked += 1
    return checked


MATCHES = [
    (GameOptions.long(match_length=3), TIE_SEED, 3),
    (GameOptions.backgammon(match_length=5), TIE_SEED, 5),
    (GameOptions.backgammon(match_length=5, opening_reroll=True), TIE_SEED, 5),
    (GameOptions.backgammon(match_length=0), DiceSeed.from_test_seed(3), 1),
    *[(GameOptions.long(match_length=3), DiceSeed.from_test_seed(200 + n), 3) for n in range(1)],
]


@pytest.mark.parametrize(("options", "seed", "games"), MATCHES)
def test_a_verifier_from_the_page_agrees(options: GameOptions, seed: DiceSeed,
                                         games: int) -> None:
    fair = FairDice(seed, ENTROPY)
    text = exported(played_match(options, fair, games), fair)
    assert verify_text(text).ok
    assert outsider_verify(text) > 20
    other = DiceSeed.from_test_seed(999)
    with pytest.raises(AssertionError):  # a swapped seed does not fit its commitment
        outsider_verify(text.replace(fair.seed.hex(), other.hex()))
    forged = text.replace(fair.seed.hex(), other.hex()).replace(
        str(fair.commitment), str(other.commitment))
    with pytest.raises(AssertionError):  # nor, with its own commitment, the dice
        outsider_verify(forged)
