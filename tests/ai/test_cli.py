"""``python -m ai choose``: a dialogue through one running process."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from engine.conformance import answer as legal_answer

LONG_START = {
    "variant": "long",
    "board": [[0] * 23 + [15, 0], [0] * 23 + [15, 0]],
    "dice": [6, 5],
    "first_turn": True,
}
BG_START = {
    "variant": "backgammon",
    "board": [[0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5] + [0] * 10 + [2, 0]] * 2,
    "dice": [3, 1],
}


@pytest.mark.parametrize("level", ["easy", "strong"])
def test_choose_answers_line_by_line_and_goes_on_after_an_error(level: str) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "ai", "choose", "--level", level],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None

    def ask(line: str) -> dict[str, Any]:
        # one line in, one answer out, before the next line is written: the
        # answer must have been flushed
        process.stdin.write(line + "\n")  # type: ignore[union-attr]
        process.stdin.flush()  # type: ignore[union-attr]
        return json.loads(process.stdout.readline())  # type: ignore[union-attr, no-any-return]

    try:
        assert "error" in ask("not json")
        assert ask('{"variant": "long", "dice": [1, 2]}') == {"error": "missing field 'board'"}
        for request in (LONG_START, BG_START):
            reply = ask(json.dumps(request))
            legal = json.loads(legal_answer(json.dumps({"first_turn": False, **request})))
            assert reply["position"] in legal["positions"]
        bad_dice = {**BG_START, "dice": [0, 7]}
        assert "error" in ask(json.dumps(bad_dice))
        # first_turn left out means false: the head rule's first-turn exception is off
        double_six = {**LONG_START, "dice": [6, 6]}
        del double_six["first_turn"]
        reply = ask(json.dumps(double_six))
        assert reply["position"][1][23] == 14  # one checker off the head, not two
    finally:
        process.stdin.close()
        assert process.wait(timeout=30) == 0
