"""User-controlled text on its way into a message: cleaned, cut, escaped, measured.

Names, chat titles and command arguments come from people who may type
anything: HTML (``<b>``, a lone ``<x``), control and separator characters
(``\\n``, U+2029, U+0085, U+001C that break a one-line name and crash the
picture's text layout), or thousands of characters.  Everything such text
meets goes through here:

- :func:`clean` drops control, format and line/paragraph separator
  characters, turns other spaces into plain ones and cuts the result;
- :func:`html_text` is :func:`clean` then HTML-escaped, for a message in
  the bot's HTML parse mode;
- :func:`visible_length` measures an HTML message as Telegram does (UTF-16
  code units after entity parsing), and :func:`fit_lines` drops the least
  important lines of a message until it fits.

>>> clean("Bob\\n\\u2029<b>\\x1c Smith\\u0085")
'Bob <b> Smith'
>>> html_text("<x & y>")
'&lt;x &amp; y&gt;'
>>> clean("x" * 100, 10)
'xxxxxxxxx…'
>>> visible_length("<b>Ą</b> &amp; 🎲")
6
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Sequence

NAME_LIMIT = 64
"""Characters of a user's name (or a chat title) the bot shows."""
ARGUMENT_LIMIT = 32
"""Characters of a command argument the bot repeats in an answer."""
TEXT_LIMIT = 4096
"""Telegram's limit for a message text (UTF-16 code units after entity parsing)."""
CAPTION_LIMIT = 1024
"""Telegram's limit for a photo or document caption."""
ALERT_LIMIT = 200
"""Telegram's limit for the text of a callback query's answer."""

_DROPPED = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Control, format (bidi overrides, zero-width), surrogate, private-use and
unassigned characters, line and paragraph separators."""
_KEPT_FORMAT = frozenset({"\u200c", "\u200d"})
"""Zero-width (non-)joiners: they hold emoji sequences and some scripts' words together."""
_BREAKS = frozenset("\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85")
_SPACES = re.compile(r"\s+")
_TAG = re.compile(r"<[^>]*>")
ELLIPSIS = "…"


def _char(ch: str) -> str:
    if ch in _KEPT_FORMAT:
        return ch
    category = unicodedata.category(ch)
    if category in _DROPPED:  # a break between words stays a space, the rest goes
        return " " if ch in _BREAKS or category in ("Zl", "Zp") else ""
    return " " if category == "Zs" else ch


def clean(text: str, limit: int = NAME_LIMIT) -> str:
    """``text`` on one line, without control, format or separator characters,
    spaces collapsed, at most ``limit`` characters (cut with an ellipsis)."""
    flat = _SPACES.sub(" ", "".join(_char(ch) for ch in text)).strip()
    if len(flat) <= limit:
        return flat
    return flat[: max(limit - 1, 0)].rstrip() + ELLIPSIS


def html_text(text: str, limit: int = NAME_LIMIT) -> str:
    """``text`` cleaned, cut to ``limit`` and escaped for an HTML message."""
    return html.escape(clean(text, limit), quote=False)


def utf16_length(text: str) -> int:
    """Length in UTF-16 code units (an emoji outside the BMP counts 2), Telegram's unit."""
    return len(text.encode("utf-16-le")) // 2


def visible_length(markup: str) -> int:
    """What Telegram counts of an HTML message the bot made: the text without
    its tags and entities, in UTF-16 code units, surrounding spaces stripped."""
    return utf16_length(html.unescape(_TAG.sub("", markup)).strip())


_OPEN_OR_CLOSE = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)[^>]*>")


def fit_text(markup: str, limit: int = TEXT_LIMIT) -> str:
    """An HTML message cut after its last whole line that fits ``limit``
    (the tags still open there closed, an ellipsis added): a long list of
    games, results or debts is cut short rather than refused by Telegram.

    >>> fit_text("<b>Title</b>\\n<pre>one\\ntwo\\nthree</pre>", 14)
    '<b>Title</b>\\n<pre>one</pre>\\n…'
    """
    if visible_length(markup) <= limit:
        return markup
    kept: list[str] = []
    open_tags: list[str] = []
    for line in markup.split("\n"):
        now_open = list(open_tags)
        for closing, name in _OPEN_OR_CLOSE.findall(line):
            if not closing:
                now_open.append(name)
            elif now_open and now_open[-1] == name:
                now_open.pop()
        closed = "".join(f"</{name}>" for name in reversed(now_open))
        if visible_length("\n".join([*kept, line]) + closed + "\n" + ELLIPSIS) > limit:
            break
        kept.append(line)
        open_tags = now_open
    closed = "".join(f"</{name}>" for name in reversed(open_tags))
    text = "\n".join(kept) + closed
    return f"{text}\n{ELLIPSIS}" if kept else fit_lines([markup], limit)


def fit_lines(lines: Sequence[str], limit: int, drop_order: Sequence[int] = ()) -> str:
    """``lines`` joined, dropping the lines at ``drop_order`` (indexes, least
    important first) and then the last lines until the text fits ``limit``.
    Each line must be balanced HTML on its own (whole lines are dropped).

    >>> fit_lines(["head", "detail", "status"], 11, [1])
    'head\\nstatus'
    """
    kept = list(range(len(lines)))

    def text() -> str:
        return "\n".join(lines[i] for i in kept)

    for index in [*drop_order, *reversed(range(len(lines)))]:
        if visible_length(text()) <= limit or len(kept) <= 1:
            break
        if index in kept:
            kept.remove(index)
    joined = text()
    if visible_length(joined) > limit:  # one line alone is too long: plain text, cut
        plain = html.unescape(_TAG.sub("", joined))
        while utf16_length(plain) > limit - 1:
            plain = plain[: len(plain) - max(1, (utf16_length(plain) - limit) // 2)]
        joined = html.escape(plain, quote=False) + ELLIPSIS
    return joined
