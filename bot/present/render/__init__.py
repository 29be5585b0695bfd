"""Board renderers: pure functions from a :class:`BoardView` to a picture.

``render_png(view) -> bytes`` draws the board as a PNG, ``render_text(view)
-> str`` as a monospace text board (the caller wraps it in ``<pre>``), and
``point_label`` gives the number the board prints for a point, for move
buttons.  No Telegram and no I/O here (the shipped font is read once).

>>> from engine import Position, Side, Variant
>>> view = BoardView(Position.initial(Variant.LONG), viewer=Side.BLACK)
>>> render_text(view).splitlines()[1:3]   # every other number on each line
[' 13  15  17       19  21  23   ', '   14  16  18       20  22  24 ']
>>> point_label(view, Side.WHITE, Side.BLACK, 24)
'12'
"""

from bot.present.render.png import render_image, render_png
from bot.present.render.text import render_text
from bot.present.render.view import (
    BoardLabels,
    BoardView,
    LastTurn,
    RenderError,
    format_last_turn,
    point_label,
)

__all__ = [
    "BoardLabels",
    "BoardView",
    "LastTurn",
    "RenderError",
    "format_last_turn",
    "point_label",
    "render_image",
    "render_png",
    "render_text",
]
