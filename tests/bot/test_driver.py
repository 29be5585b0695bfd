"""The test driver reads buttons with the bot's own parser: a button of
another kind is never taken for a game step.  (🎲 Verify's data names a game
id, which may begin with any letter: read by position, "dv:-5:0:h…" looked
like a whole-turn button, and the driver tapped Verify on a finished board
and waited for a move that never came.)"""

from __future__ import annotations

from bot.vocab.callbacks import ButtonAction, Callback, VerifyDice
from tests.bot.driver import pick
from tests.botapi.model import Chat, Message, User


def _board(*datas: str) -> Message:
    keyboard = [[{"text": str(n), "callback_data": data}] for n, data in enumerate(datas)]
    return Message(chat=Chat(id=-5, type="group"), message_id=1,
                   sender=User(id=1, first_name="bot", is_bot=True), date=0,
                   reply_markup={"inline_keyboard": keyboard})


def test_only_after_game_buttons_leave_nothing_to_tap() -> None:
    finished = _board(Callback.game("hm3sx", 9, ButtonAction.REMATCH).format(),
                      Callback.game("hm3sx", 9, ButtonAction.NEW).format(),
                      VerifyDice(-5, 0, "hm3sx").format())
    assert VerifyDice(-5, 0, "hm3sx").format() == "dv:-5:0:hm3sx"
    assert pick(finished) is None


def test_the_preferred_game_button_is_taken() -> None:
    step = Callback.game("s1", 4, ButtonAction.STEP, 13, 10, 3).format()
    turn = Callback.game("s1", 4, ButtonAction.TURN, 0).format()
    confirm = Callback.game("s1", 4, ButtonAction.CONFIRM).format()
    assert pick(_board(step, turn)) == "g:s1:4:h:0"
    assert pick(_board(step, confirm, turn)) == "g:s1:4:c"
    assert pick(_board(VerifyDice(-5, 0, "s1").format(), step)) == "g:s1:4:m:13:10:3"
