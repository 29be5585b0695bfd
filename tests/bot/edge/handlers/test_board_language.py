"""A group's board keeps one language: the chat's (/lang) or its first game's,
whoever taps; /lang redraws the board in the new language."""

from __future__ import annotations

from bot.vocab.i18n import translator
from tests.bot.conftest import World

RU_TO_MOVE = translator("ru").gettext("to move")


def _text(message: object) -> str:
    return message.caption or message.text or ""  # type: ignore[attr-defined]


def _lobby_button(world: World, message: object, action: str) -> str:
    return world.find(message, lambda _t, data: data.startswith("l:")  # type: ignore[arg-type]
                      and data.split(":")[3] == action)[1]


async def test_a_group_board_keeps_its_language_and_lang_redraws_it(world: World) -> None:
    s = world.server
    ivan = s.add_user("Ivan", language_code="ru")
    alice = s.add_user("Alice", language_code="en")
    club = s.add_group("Club", members=[ivan, alice], owner=alice)
    sent = await world.send(club, ivan, "/new long")
    lobby = await world.reply(club, sent)
    await world.tap(club, ivan, lobby, _lobby_button(world, lobby, "j"))
    await world.tap(club, alice, lobby, _lobby_button(world, lobby, "j"))
    board = world.board(club)
    assert "Длинные нарды" in _text(board), _text(board)  # the first game's language: Ivan's
    assert (await world.store.games.chat_settings(club.id)).board_language == "ru"
    # Alice (English) acts: the board stays Russian
    for _ in range(3):
        board = world.board(club)
        for tapper in (alice, ivan):
            answer = await world.tap(club, tapper, board, world.buttons(board)[0][1])
            if not answer.show_alert:
                break
        assert "Длинные нарды" in _text(world.board(club)), _text(world.board(club))
    # an admin fixes English: the board is redrawn in English at once
    sent = await world.send(club, alice, "/lang")
    menu = await world.reply(club, sent)
    before = world.board(club).message_id
    await world.tap(club, alice, menu, text="English")
    board = world.board(club)
    assert board.message_id == before and "Long nardy" in _text(board), _text(board)
