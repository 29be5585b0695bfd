"""A tap answered too late (Telegram refuses an answer after ~15 s, or a
second one) still does its work: the answer is best effort, the step and the
redraw are not."""

from __future__ import annotations

from tests.bot.conftest import World
from tests.bot.driver import pick
from tests.bot.edge.handlers.test_handlers import _mover, _record, _setup, _start


async def test_a_tap_whose_answer_comes_too_late_still_redraws_the_board(world: World) -> None:
    t = _setup(world)
    await _start(world, t)
    record = await _record(world, t)
    board = world.board(t.chat)
    data = pick(board)
    assert data is not None
    world.server.callback_query_timeout = 0.0  # every answer is refused as too old
    mover, _ = await _mover(world, t)
    tap = world.server.user_taps(t.chat, mover, board, data)
    await world.server.wait_for_async(
        lambda: world.server.request_count("editMessageMedia") > 0, 10)
    await world.idle()
    after = await _record(world, t)
    assert after.version == record.version + 1
    fresh = world.server.message(t.chat.id, board.message_id)
    versions = {int(d.split(":")[2]) for row in fresh.buttons for _, d in row}
    assert versions == {after.version}, world.server.transcript(t.chat)
    assert tap.answer is None  # Telegram refused it; nothing else was to be done
    assert [r.status for r in world.server.requests("answerCallbackQuery")][-1] == 400
