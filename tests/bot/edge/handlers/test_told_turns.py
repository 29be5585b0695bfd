"""Every move told, through the real handlers (issue 35): a long nardy game
whose first turns are both forced starts on a board that names the opening
roll and both turns with their dice; the old board named only the last one
("Laura's turn with 2-4 was forced … ➡ Борис to move", Борис having moved)."""

from __future__ import annotations

import re

from bot.rules.matchstate import table_of
from engine.game import Action
from tests.bot.conftest import World
from tests.bot.edge.handlers.test_handlers import _record, _setup, _start


async def test_the_first_board_tells_the_opening_and_both_forced_first_turns(
        world: World) -> None:
    t = _setup(world)
    board = await _start(world, t, "long")
    record = await _record(world, t)
    game = table_of(record).game
    moves = [e for e in game.events if e.action is Action.MOVE]
    assert len(moves) == 2  # the seeded dice: neither first roll is 3-3
    assert game.opening is not None
    text = board.content
    white, black = game.opening.rolls[-1]
    opening = text.index("Opening roll: ")
    assert f" {white}, " in text[opening:] and f" {black}." in text[opening:], text
    told = [m for m in re.finditer(r"(Alice|Bob)'s turn with (\d)-(\d) was forced: ", text)]
    assert len(told) == 2, text
    assert opening < told[0].start() < told[1].start() < text.index("➡"), text
    starter = next(p.name for p in record.players if p.side is game.opening.starter)
    assert told[0].group(1) == starter != told[1].group(1)  # the opener's turn first
    rolls = [e.dice for e in game.events if e.action is Action.ROLL]
    assert [f"{m.group(2)}-{m.group(3)}" for m in told] == [
        f"{d.first}-{d.second}" for d in rolls[:2] if d is not None]
