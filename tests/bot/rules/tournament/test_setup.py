"""``/tournament`` arguments: the format, the tournament's options, and the
words left for each game's options."""

from __future__ import annotations

import pytest

from bot.rules.tournament.setup import (
    BAD_MATCHES,
    BAD_ROUND,
    BAD_SPLIT,
    BAD_START,
    KNOCKOUT_ONLY,
    NUMBER,
    ONE_FORMAT,
    SPLIT_PLACES,
    SWISS_ONLY,
    SetupError,
    parse_setup,
)
from bot.vocab.tournament import Format


def test_the_default_is_a_single_round_robin_and_game_words_pass_through() -> None:
    setup, rest = parse_setup(["backgammon", "match=5", "cube=off", "stake=2"])
    assert (setup.format, setup.double, setup.entry_stake, setup.start_in) == (
        Format.ROUND_ROBIN, False, 0, None)
    assert rest == ["backgammon", "match=5", "cube=off", "stake=2"]


@pytest.mark.parametrize(("words", "fmt", "flags"), [
    (["RR"], Format.ROUND_ROBIN, (False, False)),
    (["double"], Format.ROUND_ROBIN, (True, False)),
    (["rr", "double"], Format.ROUND_ROBIN, (True, False)),
    (["Swiss", "rounds=6"], Format.SWISS, (False, False)),
    (["knockout"], Format.KNOCKOUT, (False, False)),
    (["ko", "consolation"], Format.KNOCKOUT, (False, True)),
])
def test_format_words(words: list[str], fmt: Format, flags: tuple[bool, bool]) -> None:
    setup, rest = parse_setup(words)
    assert (setup.format, (setup.double, setup.consolation), rest) == (fmt, flags, [])


def test_the_tournaments_own_options() -> None:
    setup, _ = parse_setup(["ko", "entry=25", "split=50/30/20", "max=32", "round=3d",
                            "start=12h"])
    assert (setup.entry_stake, setup.prize_split, setup.max_entrants, setup.round_length,
            setup.start_in) == (25, (50, 30, 20), 32, 3 * 86400, 12 * 3600)


@pytest.mark.parametrize(("words", "message"), [
    (["swiss", "ko"], ONE_FORMAT),
    (["double", "consolation"], ONE_FORMAT),
    (["rounds=3"], SWISS_ONLY),
    (["swiss", "rounds=0"], NUMBER),
    (["swiss", "rounds=16"], NUMBER),
    (["entry=-5"], NUMBER),
    (["entry=1000001"], NUMBER),
    (["max=17"], NUMBER),          # a round robin has at most 16
    (["ko", "max=1"], NUMBER),
    (["swiss", "max=٣"], NUMBER),
    (["split=60/30"], BAD_SPLIT),
    (["split=10/90"], BAD_SPLIT),
    (["split=abc"], BAD_SPLIT),
    (["rr", "max=3", "split=50/20/20/10"], SPLIT_PLACES),
    (["round=30m"], BAD_ROUND),
    (["round=none"], BAD_ROUND),
    (["start=20d"], BAD_START),
    (["match=1,3,26"], BAD_MATCHES),
    (["match=1,,3"], BAD_MATCHES),
    (["match=0,3"], BAD_MATCHES),
    (["match=" + ",".join(["1"] * 17)], BAD_MATCHES),
    (["swiss", "final=7"], KNOCKOUT_ONLY),
    (["ko", "final=26"], NUMBER),
])
def test_bad_words_are_refused_with_a_message(words: list[str], message: str) -> None:
    with pytest.raises(SetupError) as caught:
        parse_setup(words)
    assert caught.value.message == message


def test_the_number_message_names_the_formats_limits() -> None:
    with pytest.raises(SetupError) as caught:
        parse_setup(["max=70", "swiss"])
    assert caught.value.values == {"option": "max", "low": 3, "high": 64, "example": "max=10"}


def test_each_rounds_match_length_and_the_finals() -> None:
    setup, rest = parse_setup(["swiss", "match=1,3,5", "long"])
    assert (setup.round_matches, setup.final_match, rest) == ((1, 3, 5), 0, ["long"])
    setup, rest = parse_setup(["ko", "match=3", "final=7"])   # match=3: each game's option
    assert (setup.round_matches, setup.final_match, rest) == ((), 7, ["match=3"])
