"""``python -m bot.present.render OUTDIR``: write the sample boards (PNG and text)
so a person can look at them.  ``python -m bot.present.render --docs`` redraws
the board pictures in ``docs/`` (:data:`DOCS`) from the same samples."""

from __future__ import annotations

import sys
from pathlib import Path

from bot.present.render import render_png, render_text
from bot.present.render.samples import SAMPLES

DOCS = {"board-backgammon.png": "backgammon-hits", "board-long-nardy.png": "long-midgame",
        "board-long-nardy-next.png": "long-midgame-black"}
"""The docs' board pictures (docs/playing.md, README.md) and their samples."""


def main(argv: list[str]) -> int:
    if argv == ["--docs"]:
        docs = Path(__file__).resolve().parents[3] / "docs"
        for picture, sample in DOCS.items():
            (docs / picture).write_bytes(render_png(SAMPLES[sample]))
            print(docs / picture)
        return 0
    if len(argv) != 1:
        print("usage: python -m bot.present.render OUTDIR | --docs", file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    for name, view in SAMPLES.items():
        (out / f"{name}.png").write_bytes(render_png(view))
        (out / f"{name}.txt").write_text(render_text(view) + "\n", encoding="utf-8")
        print(out / f"{name}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
