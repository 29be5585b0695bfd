"""/help's command lines share one style in every language (issue 26 §3):
``/name — what it does``, the part after each dash in lower case (Telegram's
menu lines are sentences; /help lowers them), no full stop at the end."""

from __future__ import annotations

import re

import pytest

from bot.edge.handlers.menu import COMMANDS
from bot.vocab.i18n import LANGUAGES, translator

DASH = re.compile(r"(?:^|; )(/\w+(?: [^\s—]+)?) — (\S)")
"""``/name — x`` at a line's start or after "; " (a line may cover a second command)."""


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_help_line_is_in_one_style(lang: str) -> None:
    tr = translator(lang)
    lines = [c.help_line(tr) for c in COMMANDS if c.in_help and (c.help or c.menu)]
    assert lines
    for line in lines:
        starts = DASH.findall(line)
        assert line.startswith("/") and starts, line
        for command, first in starts:
            assert not first.isupper(), f"{lang}: {command} — {first}…: {line}"
        assert not line.endswith("."), line
