"""The table of ``/new`` options (bot/rules/options.py ``OPTIONS``, issue 23):
every option in it is read by the parser, reaches the game through an inline
Join (or is refused there with its reason), shows in the lobby's line and in
``/help`` where its row says, and is played by the computer as its row says,
so no option can be lost on one of those paths; and an option added to the
table needs nothing else of those paths."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ai import Level
from bot.present.help import help_text, options_help
from bot.present.inline import InlineJoin
from bot.present.lobby import option_captions, options_line
from bot.present.names import duration
from bot.rules.computer import computer_options
from bot.rules.inline import inline_offers
from bot.rules.lobby import VARIANTS
from bot.rules.options import (
    COMPUTER_UNSTAKED,
    LEVEL_WORDS,
    OPTIONS,
    Kind,
    Option,
    OptionError,
    VsComputer,
    check_asked,
    check_table,
    computer_fields,
    engine_options,
    engine_rules,
    from_inline_flags,
    inline_flags,
    invite_refusal,
    parse_new_args,
    parse_words,
)
from bot.vocab.i18n import LANGUAGES, Translator, translator
from bot.vocab.records import GameRecord, TableOptions
from bot.vocab.refusals import Refusal
from engine.game import GameOptions
from engine.position import Variant

ROOT = Path(__file__).resolve().parents[3]
UNKNOWN = "Unknown option {option}. Valid options: {valid}."


def _word(option: Option) -> str:
    return option.word


def _samples(option: Option) -> list[tuple[str, object]]:
    """``word=`` values covering the option's kind, with the field's value each sets."""
    if option.kind is Kind.ON_OFF:
        return [("on", True), ("off", False)]
    if option.kind is Kind.NUMBER:
        return [(str(option.low), option.low), (str(option.high), option.high)]
    if option.kind is Kind.TIME:
        return [("1d", 86400), ("none", None)]
    return [(level, level) for level in LEVEL_WORDS]


def _line(tr: Translator, variant: Variant, options: TableOptions) -> list[str]:
    record = GameRecord(chat_id=-1, variant=variant, options=options)
    return options_line(tr, record).split(" · ")


@pytest.mark.parametrize("option", OPTIONS, ids=_word)
def test_the_parser_reads_every_option(option: Option) -> None:
    for text, value in _samples(option):
        _variant, options = parse_new_args([f"{option.word}={text.upper()}"])
        assert getattr(options, option.field) == value
    with pytest.raises(OptionError) as bad:
        parse_new_args([f"{option.word}=?"])
    assert bad.value.message != UNKNOWN  # the parser knows the word, not the value
    assert bad.value.message == option.invalid or not option.invalid
    with pytest.raises(OptionError) as unknown:
        parse_new_args(["speed=9"])
    assert f"{option.word}=…" in str(unknown.value.values["valid"]).split(", ")


@pytest.mark.parametrize("option", OPTIONS, ids=_word)
def test_every_option_reaches_the_game_through_an_inline_join(option: Option) -> None:
    for text, value in _samples(option):
        words = [f"{option.word}={text}"]
        if option.inline_refusal is not None:  # said why, never dropped
            with pytest.raises(Refusal) as refused:
                inline_offers(words)
            assert refused.value.message == option.inline_refusal
            continue
        offers = inline_offers(words)
        assert offers, words
        for variant, options in offers:
            back = InlineJoin.parse(InlineJoin(variant, options, "lt").format())
            assert (back.variant, back.language) == (variant, "lt")
            expected = value if value or option.bit is None else option.inline_off
            assert getattr(back.options, option.field) == expected, words
            assert engine_options(variant, back.options) == engine_options(variant, options)
            for lang in LANGUAGES:
                tr = translator(lang)
                assert _line(tr, variant, back.options) == _line(tr, variant, options)


@pytest.mark.parametrize("option", OPTIONS, ids=_word)
def test_an_invitation_refuses_what_the_table_says_and_carries_the_rest(option: Option) -> None:
    """An invitation (a private game between two people) refuses the options
    whose row says so, whatever their value, and carries every other one."""
    for text, _value in _samples(option):
        words = [f"{option.word}={text}"]
        _, options = parse_new_args(words)
        assert invite_refusal(words, options) == option.invite_refusal, words
    for words in (["long", "bot"], ["backgammon", "strong"], ["auto"]):  # the level, unasked
        assert invite_refusal(words, parse_new_args(words)[1]) is not None, words


def _caption(tr: Translator, option: Option, value: object) -> str | None:
    """What the row says the lobby's line shows for ``value`` (where it shows it)."""
    if option.kind is Kind.ON_OFF:
        text = option.on if value else option.off
        return None if text is None else (option.mark if value else "") + tr.gettext(text)
    if option.on is None or value is None or value == option.default:
        return None
    if option.kind is Kind.TIME:
        assert isinstance(value, int)
        return tr.gettext(option.on, time=duration(tr, value))
    return tr.gettext(option.on, n=value)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("option", [o for o in OPTIONS if o.on or o.off], ids=_word)
def test_every_captioned_option_shows_in_the_lobby_line(option: Option, lang: str) -> None:
    tr = translator(lang)
    shown = 0
    for text, value in _samples(option):
        caption = _caption(tr, option, value)
        if caption is None:
            continue
        for against in ([], ["bot"]):
            try:
                _variant, options = parse_new_args([f"{option.word}={text}", *against])
            except OptionError:  # stake= or time= with the computer
                continue
            usual = option.usual is not None and option.usual(options) == value
            for variant in VARIANTS:
                expected = option.variant in (None, variant) and not usual
                assert (caption in _line(tr, variant, options)) == expected, (text, against)
                shown += expected
    assert shown  # each captioned option shows somewhere


@pytest.mark.parametrize("lang", LANGUAGES)
def test_help_has_every_option_its_row_puts_there(lang: str) -> None:
    tr = translator(lang)
    lines = help_text(tr, ["/new — …"]).splitlines()
    listed = options_help(tr)[0]
    assert listed in lines
    for option in OPTIONS:
        if option.help is not None:
            piece = tr.gettext(option.help)
            assert piece.startswith(f"{option.word}=") and piece in listed
        if option.help_line is not None:
            assert tr.gettext(option.help_line) in lines


@pytest.mark.parametrize("option", OPTIONS, ids=_word)
def test_the_computer_plays_each_option_as_its_row_says(option: Option) -> None:
    for text, value in _samples(option):
        asked = [f"{option.word}={text}"]
        if option.computer is VsComputer.REFUSED:
            with pytest.raises(OptionError) as refused:
                parse_new_args([*asked, "bot"])
            assert refused.value.message == COMPUTER_UNSTAKED
            options = parse_new_args(asked)[1]  # a lobby's, then "Play the bot" on it
        else:
            options = parse_new_args([*asked, "bot"])[1]
        played = computer_options(options, Level.EASY.value)
        if option.field == "computer":
            assert played.computer == "easy"  # the level tapped
            continue
        kept = option.computer is VsComputer.KEPT
        assert getattr(played, option.field) == (value if kept else option.default)


def test_the_table_has_a_row_for_every_field_of_the_table_options() -> None:
    assert sorted(o.field for o in OPTIONS) == sorted(TableOptions.model_fields)
    engine_fields = {f.name for f in dataclasses.fields(GameOptions)}
    assert {o.engine for o in OPTIONS if o.engine} <= engine_fields


def test_the_bits_of_joins_already_posted_never_move() -> None:
    """Join buttons out there carry these bits: a moved bit would turn their
    cube off or their hints on."""
    posted = {"cube": 0, "koks": 1, "jacoby": 2, "beavers": 3, "autoplay": 4, "hints": 5}
    assert {o.word: o.bit for o in OPTIONS if o.word in posted} == posted
    join = InlineJoin.parse("ij:b:1:45:0:en")  # cube, jacoby, beavers, hints; autoplay off
    assert join.options == TableOptions(cube=True, koks=False, jacoby=True, beavers=True,
                                        autoplay=False, hints=True)
    assert InlineJoin(Variant.LONG, TableOptions(koks=True, cube=False), "ru").format() \
        == "ij:l:1:18:0:ru"


def test_playing_md_lists_every_option() -> None:
    page = (ROOT / "docs" / "playing.md").read_text()
    table = page[page.index("## Variants and options"):page.index("## Inline games")]
    assert [o.word for o in OPTIONS if f"| `{o.word}" not in table] == []


# ------------------------------------------------- an option added to the table


class _Wider(TableOptions):
    synthetic: bool = False


NEXT_BIT = max(o.bit for o in OPTIONS if o.bit is not None) + 1
SYNTHETIC = Option("synthetic", "synthetic", Kind.ON_OFF, variant=Variant.BACKGAMMON,
                   engine="opening_reroll", bit=NEXT_BIT, on="opening doubles rolled again",
                   help="synthetic=on|off")
"""A made-up option that switches the engine's opening re-roll (the model
stands for the ``TableOptions`` field that goes with a real row)."""
WIDER = (*OPTIONS, SYNTHETIC)
NEW_FLAG = 1 << NEXT_BIT


def test_a_new_on_off_option_needs_only_its_row() -> None:
    """One row makes an option of the parser, the inline Join, the captions,
    /help and the engine's rules, and the computer plays it."""
    check_table(WIDER)
    variant, values = parse_words(["bg", "synthetic=on"], WIDER)
    options = _Wider(**values)
    assert variant is Variant.BACKGAMMON and options.synthetic
    with pytest.raises(OptionError) as unknown:
        parse_words(["speed=9"], WIDER)
    assert "synthetic=…" in str(unknown.value.values["valid"])
    with pytest.raises(OptionError, match="is on or off"):
        parse_words(["synthetic=maybe"], WIDER)

    flags = inline_flags(options, WIDER)
    assert flags == inline_flags(options) | NEW_FLAG
    decoded = from_inline_flags(str(flags), WIDER)
    assert decoded is not None and decoded.pop("synthetic") is True
    assert decoded == from_inline_flags(str(inline_flags(options)))
    assert from_inline_flags(str(flags)) is None  # refused where the row is not, never lost
    for old in range(NEW_FLAG):  # Joins posted before it read as before, the new option off
        before = from_inline_flags(str(old))
        if before is not None:
            assert from_inline_flags(str(old), WIDER) == {**before, "synthetic": False}

    tr = translator("en")
    assert "opening doubles rolled again" in option_captions(tr, Variant.BACKGAMMON, options,
                                                             WIDER)
    assert "opening doubles rolled again" not in option_captions(tr, Variant.LONG, options, WIDER)
    assert "synthetic=on|off" in options_help(tr, WIDER)[0]
    rules = engine_rules(Variant.BACKGAMMON, options, WIDER)
    assert GameOptions(Variant.BACKGAMMON, **rules).opening_reroll
    assert "opening_reroll" not in engine_rules(Variant.LONG, options, WIDER)
    assert computer_fields(WIDER) == computer_fields()  # the computer keeps it as asked


def test_a_row_without_its_way_into_a_join_or_with_a_taken_bit_is_refused() -> None:
    with pytest.raises(ValueError, match="inline bit"):
        Option("synthetic", "synthetic", Kind.ON_OFF)
    with pytest.raises(ValueError, match="same bit"):
        check_table((*OPTIONS, dataclasses.replace(SYNTHETIC, bit=5)))
    with pytest.raises(ValueError, match="same word"):
        check_table((*OPTIONS, dataclasses.replace(SYNTHETIC, word="cube", help=None)))


@pytest.mark.parametrize("option", [o for o in OPTIONS if o.variant is not None], ids=_word)
def test_an_option_of_the_other_variant_is_refused_whatever_its_value(option: Option) -> None:
    """Issue 37: ``/new long cube=on`` was taken and the cube ignored."""
    other = next(v for v in Variant if v is not option.variant)
    for text, _value in _samples(option):
        with pytest.raises(OptionError) as refused:
            parse_new_args([other.value, f"{option.word}={text}"])
        assert refused.value.values.get("option", option.word) == option.word
        with pytest.raises(OptionError):
            check_asked([f"{option.word}={text}"], other)  # the chat's default variant
        check_asked([f"{option.word}={text}"], option.variant)  # its own: fine
        parse_new_args([option.variant.value, f"{option.word}={text}"])
