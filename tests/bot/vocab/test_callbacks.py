"""The callback-data codec: round trips, the 64-byte limit, forged payloads."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.vocab.callbacks import (
    CLOCK_ACTIONS,
    MAX_BYTES,
    OTHER,
    RECORD_KINDS,
    ButtonAction,
    Callback,
    CallbackDataError,
    Kind,
    LanguageChoice,
    PickGame,
    SettingChoice,
    ShowGame,
)

_ids = st.from_regex(r"[A-Za-z0-9_-]{1,24}", fullmatch=True)
_LOBBY = {ButtonAction.JOIN, ButtonAction.LEAVE, ButtonAction.VARIANT, ButtonAction.DROP,
          ButtonAction.COMPUTER, ButtonAction.START}
# and JOIN, LEAVE, START, DROP
_TOURNAMENT = {ButtonAction.QUIT, ButtonAction.STANDINGS, ButtonAction.END, ButtonAction.QUIT_SURE}
_SETTLE = {ButtonAction.SETTLE_WITH, ButtonAction.SETTLE_PLAN, ButtonAction.SETTLE_YES,
           ButtonAction.SETTLE_NO}
_ARGS = {ButtonAction.VARIANT: 1, ButtonAction.SOURCE: 1, ButtonAction.STEP: 3,
         ButtonAction.RESIGN: 1, ButtonAction.SETTLE_WITH: 1, ButtonAction.TURN: 1,
         ButtonAction.SETTLE_PLAN: 1, ButtonAction.RESIGN_SURE: 1, ButtonAction.QUIT_SURE: 1}


@st.composite
def callbacks(draw: st.DrawFn) -> Callback:
    action = draw(st.sampled_from(list(ButtonAction)))
    kind = (Kind.LOBBY if action in _LOBBY else Kind.SETTLE if action in _SETTLE
            else Kind.CLOCK if action in CLOCK_ACTIONS
            else Kind.TOURNAMENT if action in _TOURNAMENT else Kind.GAME)
    args = tuple(draw(st.lists(st.integers(0, 99), min_size=_ARGS.get(action, 0),
                               max_size=_ARGS.get(action, 0))))
    return Callback(kind, draw(_ids), draw(st.integers(0, 10**9 - 1)), action, args)


@given(callbacks())
def test_round_trip_and_size(data: Callback) -> None:
    text = data.format()
    assert len(text.encode()) <= MAX_BYTES
    assert Callback.parse(text) == data


@pytest.mark.parametrize("text", [
    "", "g", "g:a:1", "z:a:1:r", "g:a:1:zz", "g:a:-1:r", "g:a:x:r", "g:a:1:m:1:2",
    "g:a:1:m:1:2:3:4", "g:a b:1:r", "l:a:1:r", "g:a:1:j", "g:a:1:s:100", "l:a:1:Q",
    "g:a:1:F", "t:a:1:r", "t:a:1:v:1", "t:a:1:H",
    "g:a:1:s:-1", "g:a:01:r", "g:a:1:s:07",
    "g:" + "a" * 30 + ":1:r", "g:a:1234567890:r", "g:a:1:r:" + "1" * 70,
])
def test_malformed_payloads_are_refused(text: str) -> None:
    with pytest.raises(CallbackDataError):
        Callback.parse(text)


_FIELD_CHARS = st.sampled_from(list("0123456789:_-aZgkls") + [c.value for c in ButtonAction])


@st.composite
def button_like(draw: st.DrawFn) -> str:
    """Text shaped like button data: real kinds and actions, numbers, ids, in
    right or wrong numbers of fields (what a forger or a truncation makes)."""
    kind = draw(st.sampled_from([k.value for k in Kind] + ["x", "gv", ""]))
    ident = draw(st.one_of(_ids, st.text(_FIELD_CHARS, max_size=6)))
    version = draw(st.one_of(st.integers(0, 10**10).map(str), st.text(_FIELD_CHARS, max_size=3)))
    action = draw(st.sampled_from([a.value for a in ButtonAction] + ["", "zz"]))
    args = draw(st.lists(st.one_of(st.integers(0, 120).map(str), st.text(_FIELD_CHARS, max_size=3)),
                         max_size=4))
    return ":".join([kind, ident, version, action, *args])


_ODD_DIGITS = ["²", "١", "٣", "０", "𝟙", "߁", "Ⅳ", "½"]
"""Characters ``str.isdigit()`` or ``int()`` (or both) take for digits."""


@st.composite
def near_misses(draw: st.DrawFn) -> str:
    """Real button data with one change that makes it invalid."""
    text = draw(callbacks()).format()
    fields = text.split(":")
    numeric = [i for i in range(len(fields)) if i == 2 or i >= 4]
    change = draw(st.sampled_from(["digit", "sign", "space", "newline", "zero", "extra", "cut",
                                  "underscore"]))
    at = draw(st.sampled_from(numeric))
    if change == "digit":
        fields[at] = draw(st.sampled_from(_ODD_DIGITS))
    elif change == "sign":
        fields[at] = draw(st.sampled_from("+-")) + fields[at]
    elif change == "space":
        fields[at] = draw(st.sampled_from([" ", "\t", "\u00a0"])) + fields[at]
    elif change == "newline":
        fields[draw(st.integers(1, len(fields) - 1))] += "\n"
    elif change == "zero":
        fields[at] = "0" + fields[at]
    elif change == "extra":
        fields.append("1")
    elif change == "cut":
        fields[3] = ""
    else:  # int() reads "1_0" as 10
        fields[at] = fields[at][0] + "_" + fields[at]
    return ":".join(fields)


@given(st.one_of(button_like(), near_misses(), st.text(max_size=80)))
def test_any_text_parses_or_raises_the_codec_error(text: str) -> None:
    """Whatever parses is exactly what the bot itself would have formatted."""
    try:
        data = Callback.parse(text)
    except CallbackDataError:
        return
    assert data.format() == text


@given(near_misses())
def test_near_misses_of_real_button_data_are_refused(text: str) -> None:
    with pytest.raises(CallbackDataError):
        Callback.parse(text)


@pytest.mark.parametrize("text", ["g:k3Xa9:²:r", "g:k3Xa9:١:r", "g:k3Xa9:1:s:²", "g:k3Xa9:٣٣:r",
                                  "g:k3Xa9:1:r\n", "g:k3Xa9\n:1:r", "l:k3Xa9:1:v:1_0"])
def test_only_ascii_numbers(text: str) -> None:
    with pytest.raises(CallbackDataError):
        Callback.parse(text)


def test_parse_refuses_non_strings() -> None:
    with pytest.raises(CallbackDataError):
        Callback.parse(None)


def test_clock_actions_only_on_clock_buttons() -> None:
    assert Callback.parse("k:k3Xa9:0:W") == Callback.clock("k3Xa9", ButtonAction.CLAIM_WIN)
    for text in ("g:k3Xa9:0:W", "k:k3Xa9:0:r", "k:k3Xa9:0:y"):
        with pytest.raises(CallbackDataError):
            Callback.parse(text)


def test_settle_actions_only_on_settle_requests() -> None:
    assert Callback.parse("s:Qx7_a2Bc:0:y").kind is Kind.SETTLE
    for text in ("g:Qx7_a2Bc:0:y", "s:Qx7_a2Bc:0:r", "s:Qx7_a2Bc:0:w"):
        with pytest.raises(CallbackDataError):
            Callback.parse(text)


_words = st.from_regex(r"[a-z]{1,16}", fullmatch=True)
_payloads = st.one_of(
    callbacks(),
    st.builds(LanguageChoice, _words),
    st.builds(SettingChoice, _words, _words),
    st.builds(ShowGame, st.integers(-(10**13), 10**13), st.integers(0, 10**9), _ids),
    st.builds(PickGame, st.from_regex(r"[a-z]{1,8}", fullmatch=True), st.integers(1, 10**12),
              _ids),
)
_KIND_OF = {LanguageChoice: Kind.LANGUAGE, SettingChoice: Kind.SETTING, ShowGame: Kind.SHOW,
            PickGame: Kind.PICK}


@given(_payloads)
def test_every_payload_round_trips_and_is_routed_by_exactly_one_pattern(
        data: Callback | LanguageChoice | SettingChoice | ShowGame) -> None:
    """One scheme: each kind of button data parses back to itself and matches
    its own kind's pattern only (so routing does not depend on handler order)."""
    text = data.format()
    assert len(text.encode()) <= MAX_BYTES
    assert type(data).parse(text) == data
    kind = data.kind if isinstance(data, Callback) else _KIND_OF[type(data)]
    assert [k for k in Kind if re.match(k.pattern, text)] == [kind]
    assert not re.match(OTHER, text)


@pytest.mark.parametrize("text", ["zz:1", "", "gvx:1", "lang", "settings:x:y"])
def test_data_of_no_kind_goes_to_the_fallback_only(text: str) -> None:
    assert re.match(OTHER, text)
    assert not any(re.match(k.pattern, text) for k in Kind)


@pytest.mark.parametrize("cls, text", [
    (LanguageChoice, "lang:"), (LanguageChoice, "lang:EN"), (LanguageChoice, "set:style:png"),
    (SettingChoice, "set:style"), (SettingChoice, "set:style:png:x"), (SettingChoice, "set::png"),
    (ShowGame, "gv:nonsense"), (ShowGame, "gv:1:x:g"), (ShowGame, "gv:1:0:bad id"),
    (ShowGame, "gv:" + "1" * 40 + ":0:g"),
    (PickGame, "gp:board:1"), (PickGame, "gp:Board:1:g1"), (PickGame, "gp:board:-1:g1"),
    (PickGame, "gp:board:1:bad id"), (PickGame, "gp:board:1:g1:x"), (PickGame, "gv:board:1:g1"),
])
def test_malformed_raw_kinds_are_refused(cls: type, text: str) -> None:
    with pytest.raises(CallbackDataError):
        cls.parse(text)


def test_callback_carries_only_record_kinds() -> None:
    assert set(Kind) > RECORD_KINDS
    for kind in set(Kind) - RECORD_KINDS:
        with pytest.raises(CallbackDataError):
            Callback(kind, "x", 0, ButtonAction.ROLL)
