"""Board rendering speed: median milliseconds per PNG and per text board,
and the PNG size, over the sample boards and positions from random games.

Run: ``.venv/bin/python benchmarks/render_bench.py``.  The first render of
each kind (building the cached background, sprites and palette) is timed on
its own, then every board is rendered REPEAT times.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.present.render import BoardView, render_png, render_text
from bot.present.render.samples import SAMPLES
from engine import Side, Variant
from tests.engine.strategies import random_game_positions

REPEAT = 20


def _views() -> dict[str, BoardView]:
    views = dict(SAMPLES)
    for variant in Variant:
        for i, (position, dice) in enumerate(random_game_positions(variant, seed=3, count=40)):
            if i % 10 == 9:
                views[f"{variant.value}-random-{i}"] = BoardView(
                    position, Side(i % 2), dice=dice
                )
    return views


def _median_ms(render: Callable[[BoardView], object], view: BoardView) -> float:
    times = []
    for _ in range(REPEAT):
        start = time.perf_counter()
        render(view)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    views = _views()
    first = next(iter(views.values()))
    start = time.perf_counter()
    render_png(first)
    print(f"first PNG (builds caches): {(time.perf_counter() - start) * 1000:.1f} ms")
    print(f"{'board':28} {'png ms':>7} {'text ms':>8} {'png KB':>7}")
    png_all, text_all, sizes = [], [], []
    for name, view in views.items():
        png_ms, text_ms = _median_ms(render_png, view), _median_ms(render_text, view)
        size = len(render_png(view)) / 1024
        png_all.append(png_ms)
        text_all.append(text_ms)
        sizes.append(size)
        print(f"{name:28} {png_ms:7.2f} {text_ms:8.3f} {size:7.1f}")
    print(
        f"{'median over boards':28} {statistics.median(png_all):7.2f} "
        f"{statistics.median(text_all):8.3f} {statistics.median(sizes):7.1f}"
    )
    print(f"{'max over boards':28} {max(png_all):7.2f} {max(text_all):8.3f} {max(sizes):7.1f}")


if __name__ == "__main__":
    main()
