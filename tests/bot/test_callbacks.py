"""The callback-data codec: round trips, the 64-byte limit, forged payloads."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.callbacks import CLOCK_ACTIONS, MAX_BYTES, Action, Callback, CallbackDataError, Kind

_ids = st.from_regex(r"[A-Za-z0-9_-]{1,24}", fullmatch=True)
_LOBBY = {Action.JOIN, Action.LEAVE, Action.VARIANT, Action.DROP}
_SETTLE = {Action.SETTLE_WITH, Action.SETTLE_YES, Action.SETTLE_NO}
_ARGS = {Action.VARIANT: 1, Action.SOURCE: 1, Action.STEP: 3, Action.RESIGN: 1,
         Action.SETTLE_WITH: 1}


@st.composite
def callbacks(draw: st.DrawFn) -> Callback:
    action = draw(st.sampled_from(list(Action)))
    kind = (Kind.LOBBY if action in _LOBBY else Kind.SETTLE if action in _SETTLE
            else Kind.CLOCK if action in CLOCK_ACTIONS else Kind.GAME)
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
    "g:a:1:m:1:2:3:4", "g:a b:1:r", "l:a:1:r", "g:a:1:j", "g:a:1:s:100",
    "g:a:1:s:-1", "g:a:01:r", "g:a:1:s:07",
    "g:" + "a" * 30 + ":1:r", "g:a:1234567890:r", "g:a:1:r:" + "1" * 70,
])
def test_malformed_payloads_are_refused(text: str) -> None:
    with pytest.raises(CallbackDataError):
        Callback.parse(text)


@given(st.text(max_size=80))
def test_any_text_parses_or_raises_the_codec_error(text: str) -> None:
    try:
        data = Callback.parse(text)
    except CallbackDataError:
        return
    assert data.format() == text


def test_parse_refuses_non_strings() -> None:
    with pytest.raises(CallbackDataError):
        Callback.parse(None)


def test_clock_actions_only_on_clock_buttons() -> None:
    assert Callback.parse("k:k3Xa9:0:W") == Callback.clock("k3Xa9", Action.CLAIM_WIN)
    for text in ("g:k3Xa9:0:W", "k:k3Xa9:0:r", "k:k3Xa9:0:y"):
        with pytest.raises(CallbackDataError):
            Callback.parse(text)


def test_settle_actions_only_on_settle_requests() -> None:
    assert Callback.parse("s:Qx7_a2Bc:0:y").kind is Kind.SETTLE
    for text in ("g:Qx7_a2Bc:0:y", "s:Qx7_a2Bc:0:r", "s:Qx7_a2Bc:0:w"):
        with pytest.raises(CallbackDataError):
            Callback.parse(text)
