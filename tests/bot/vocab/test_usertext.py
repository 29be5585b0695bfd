"""bot/vocab/usertext.py: whatever a user types comes out one clean line, cut, and
valid HTML that fits Telegram's limits (checked by the local Bot API's parser)."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from bot.vocab.usertext import (
    ALERT_LIMIT,
    CAPTION_LIMIT,
    NAME_LIMIT,
    clean,
    fit_lines,
    fit_text,
    html_text,
    visible_length,
)
from tests.botapi.formatting import parse_html, strip_text, utf16_len

_NASTY = st.text(st.one_of(st.characters(), st.sampled_from(list("<>&;/ \n\r\u2029\u0085\x1c"))),
                 max_size=300)


def _telegram_length(markup: str) -> int:
    return utf16_len(strip_text(*parse_html(markup))[0])


@given(_NASTY, st.integers(1, 100))
def test_clean_is_one_printable_line_within_the_limit(text: str, limit: int) -> None:
    cleaned = clean(text, limit)
    assert len(cleaned) <= limit and cleaned == cleaned.strip()
    assert "  " not in cleaned
    for ch in cleaned:
        category = unicodedata.category(ch)
        assert category[0] != "C" or ch in "\u200c\u200d", (ch, category)
        assert category not in ("Zl", "Zp") and (category != "Zs" or ch == " ")


@given(_NASTY)
def test_html_text_parses_as_the_cleaned_text(text: str) -> None:
    markup = html_text(text)
    plain, entities = parse_html(markup)
    assert plain == clean(text) and not entities
    assert visible_length(markup) == _telegram_length(markup) <= 2 * NAME_LIMIT


def test_each_separator_becomes_a_space() -> None:
    for ch in "\n\r\t\x0b\x0c\x1c\x1d\x1e\x1f\x85\u2028\u2029\u00a0\u3000":
        assert clean(f"a{ch}b") == "a b", repr(ch)
    for ch in "\x00\x07\x7f\u200b\u200e\u202e\u2066\ufeff":
        assert clean(f"a{ch}b") == "ab", repr(ch)
    assert clean("👨\u200d👩\u200d👧") == "👨\u200d👩\u200d👧"  # a family stays one emoji


_LINE = st.one_of(
    _NASTY.map(html_text),
    _NASTY.map(lambda t: f"<b>{html_text(t)}</b>"),
    _NASTY.map(lambda t: f"<pre>{html_text(t)}\n{html_text(t[::-1])}</pre>"),
)


@given(st.lists(_LINE, max_size=40), st.integers(20, 600))
def test_fit_text_is_valid_html_within_the_limit(lines: list[str], limit: int) -> None:
    markup = "\n".join(lines) or "x"
    fitted = fit_text(markup, limit)
    assert _telegram_length(fitted) <= limit
    if visible_length(markup) <= limit:
        assert fitted == markup


@given(st.lists(_LINE, min_size=1, max_size=12), st.integers(20, 400))
def test_fit_lines_keeps_whole_lines_and_fits(lines: list[str], limit: int) -> None:
    fitted = fit_lines(lines, limit, [len(lines) - 1])
    assert _telegram_length(fitted) <= limit


def test_fit_lines_drops_the_least_important_first() -> None:
    lines = ["head", "options " * 3, "history " * 3, "➡ Bob to move."]
    assert fit_lines(lines, 45, [1, 2]) == "head\nhistory history history \n➡ Bob to move."
    assert fit_lines(lines, 25, [1, 2]) == "head\n➡ Bob to move."


def test_limits_are_telegrams() -> None:
    assert (CAPTION_LIMIT, ALERT_LIMIT) == (1024, 200)
    assert visible_length("<b>🎲</b> &lt;") == 4
