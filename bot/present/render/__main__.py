"""``python -m bot.present.render OUTDIR``: write the sample boards (PNG and text)
so a person can look at them."""

from __future__ import annotations

import sys
from pathlib import Path

from bot.present.render import render_png, render_text
from bot.present.render.samples import SAMPLES


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m bot.present.render OUTDIR", file=sys.stderr)
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
