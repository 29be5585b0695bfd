"""The engine's command line: ``python -m engine legal``, the conformance check
(the format and its rules: :mod:`engine.conformance`)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from engine.conformance import run_legal, stream_lines

USAGE = """\
usage: python -m engine legal < positions.jsonl

  legal   for each JSON line {"variant", "board", "dice"[, "first_turn"]} on stdin,
          print {"positions": [...]} (every position after a legal turn) or
          {"error": "..."}; see RULES.md, "Conformance format"
"""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args in (["-h"], ["--help"]):
        sys.stdout.write(USAGE)
        return 0
    if args != ["legal"]:
        sys.stderr.write(USAGE)
        return 2
    out = sys.stdout
    run_legal(stream_lines(sys.stdin.fileno(), out.flush), lambda text: out.write(text + "\n"))
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
