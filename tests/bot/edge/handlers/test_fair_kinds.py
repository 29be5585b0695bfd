"""Issue 25: in every kind of game the whole commitment is posted (in a message
the bot never edits) before the tap whose Telegram id is mixed in, and that
id is in the export; and grinding seeds after the entropy is known cannot
give a verified game with chosen dice."""

from __future__ import annotations

import itertools
import json

import pytest

from bot.present.export import export_text
from bot.rules.dice import seed_of
from bot.rules.matchstate import table_of
from bot.vocab.records import ChatSettings, GameRecord, Status, settings_key
from engine.dice import DiceSeed, Entropy, FairDice, verify_text
from tests.bot.conftest import World
from tests.bot.driver import game_board, pick, start_button
from tests.bot.edge.handlers.test_handlers import _data, _mover, _setup
from tests.botapi.model import Chat, Message, RequestRecord, User
from tests.conftest import chat_game


def _kept(world: World, chat: Chat | int, state_seed: str) -> Message:
    """The message holding the whole commitment of ``state_seed``, posted by now."""
    commitment = str(DiceSeed.parse(state_seed).commitment)
    kept = [m for m in world.server.messages(chat) if m.by_bot and commitment in (m.text or "")
            and not m.buttons]
    assert kept, world.server.transcript(chat)
    return kept[0]


def _text_of(request: RequestRecord) -> str | None:
    """The text (or caption) a send or edit request gives its message."""
    params = request.params
    media = params.get("media")
    if isinstance(media, str):
        media = json.loads(media)
    caption = media.get("caption") if isinstance(media, dict) else None
    text = params.get("text", params.get("caption", caption))
    return None if text is None else str(text)


_TEXT_EDITS = ("editmessagetext", "editmessagecaption", "editmessagemedia")


def _kept_past_the_tap(world: World, record: GameRecord) -> list[tuple[int, int]]:
    """The class of issues 25 and 35, from the Bot API server's record of
    requests: the tap mixed into ``record``'s dice (its ``tg.join`` or
    ``tg.start``) found at least one message of the bot showing the whole
    commitment (in any chat) that was neither edited to another text nor
    deleted after that tap.  Returns those messages (chat id, message id)."""
    assert record.dice is not None and record.dice.fixed
    commitment = str(seed_of(record.dice).commitment)
    taps = [item.partition("=")[2] for item in record.dice.entropy if item.startswith("tg.")]
    assert len(taps) == 1, record.dice.entropy
    requests = world.server.requests()
    answered = next(i for i, r in enumerate(requests) if r.method.lower() == "answercallbackquery"
                    and str(r.params.get("callback_query_id")) == taps[0])
    shown: dict[tuple[int, int], str] = {}  # each message's text as the tapper saw it
    for request in requests[:answered]:
        method, text = request.method.lower(), _text_of(request)
        result = request.response.get("result") if isinstance(request.response, dict) else None
        if request.status != 200 or text is None:
            continue
        if method.startswith("send") and isinstance(result, dict):
            shown[(int(result["chat"]["id"]), int(result["message_id"]))] = text
        elif method in _TEXT_EDITS and "message_id" in request.params:
            shown[(int(request.params["chat_id"]), int(request.params["message_id"]))] = text
    holding = {key for key, text in shown.items() if commitment in text}
    assert holding, f"no message showed {commitment} before the tap"
    for request in requests[answered:]:
        method = request.method.lower()
        if method in (*_TEXT_EDITS, "deletemessage") and "message_id" in request.params:
            key = (int(request.params["chat_id"]), int(request.params["message_id"]))
            if key in holding and (method == "deletemessage" or _text_of(request) != shown[key]):
                holding.discard(key)  # edited or deleted after the tap: it proves nothing
    assert holding, f"every message showing {commitment} was edited after the tap"
    return sorted(holding)


def _never_edited(world: World, message: Message) -> None:
    now = world.server.message(message.chat.id, message.message_id)
    assert now.revision == now.created_revision and now.text == message.text


def _unchanged_since(world: World, seen: Message) -> None:
    """The message is as ``seen`` (a snapshot taken before a tap): not edited since."""
    now = world.server.message(seen.chat.id, seen.message_id)
    assert now.revision == seen.revision and now.text == seen.text and not now.deleted


def _last_query(world: World) -> str:
    return str(world.server.requests("answerCallbackQuery")[-1].params["callback_query_id"])


def _in_export(record: GameRecord, label: str, query_id: str) -> str:
    _name, body = export_text(record)
    assert f'; [Dice entropy "{label}={query_id}"]' in body, body[:600]
    return body


async def _tap_start(world: World, chat: Chat, user: User) -> str:
    board = game_board(world.server, chat)
    assert board is not None
    data = start_button(board)
    assert data is not None, board.content
    answer = await world.tap(chat, user, board, data)
    assert not answer.show_alert, answer
    return _last_query(world)


async def _resign_against_the_bot(world: World, chat: Chat, user: User) -> GameRecord:
    for _ in range(40):  # roll until the person has a turn to resign on
        record = await chat_game(world.store, chat.id)
        assert record is not None
        if record.status is not Status.ACTIVE:
            return record
        board = world.board(chat)
        if any(d.split(":")[3] == "o" for _, d in world.buttons(board) if d.startswith("g:")):
            for action in ("o", "R"):
                board = world.board(chat)
                await world.tap(chat, user, board, _data(world, board, action))
            continue
        data = pick(board)
        assert data is not None, board.content
        await world.tap(chat, user, board, data)
    raise AssertionError("the game did not end")


async def _waiting(world: World, chat: Chat, user: User, command: str
                   ) -> tuple[GameRecord, Message]:
    """``command`` (a game against the computer) posted: the record waiting for
    ▶ Start and the kept message with its whole commitment."""
    sent = await world.send(chat, user, command)
    await world.reply(chat, sent, None)
    waiting = await chat_game(world.store, chat.id)
    assert waiting is not None and waiting.status is Status.LOBBY and waiting.dice is not None
    return waiting, _kept(world, chat, waiting.dice.seed)


async def _started(world: World, chat: Chat, label: str, query: str, kept: Message
                   ) -> GameRecord:
    """The game started by the tap ``query``: in play, its id in the export,
    the commitment's message untouched."""
    started = await chat_game(world.store, chat.id)
    assert started is not None and started.status is Status.ACTIVE
    _in_export(started, label, query)
    _never_edited(world, kept)
    _kept_past_the_tap(world, started)
    return started


async def _group_messages(world: World, chat: Chat) -> int:
    """Messages the group got from the bot so far: sends and edits (Telegram
    counts both in its 20 a minute)."""
    await world.idle()
    return sum(1 for r in world.server.requests()
               if r.method.lower().startswith(("send", "edit")) and r.status == 200
               and str(r.params.get("chat_id")) == str(chat.id))


def _edits_of(world: World, message: Message, since: int = 0) -> list[RequestRecord]:
    return [r for r in world.server.requests()[since:]
            if r.method.lower().startswith("edit")
            and str(r.params.get("chat_id")) == str(message.chat.id)
            and str(r.params.get("message_id")) == str(message.message_id)]


async def test_a_group_lobby(world: World) -> None:
    """Issue 35: a lobby between people costs the group one message at /new:
    the lobby itself keeps the whole commitment.  The tap that seats the
    second player is mixed in; the game is posted as a message of its own and
    the lobby is never edited after that tap (the server's record of edits);
    a tap on it then says where the game is; the dice verify."""
    t = _setup(world)
    before = await _group_messages(world, t.chat)
    sent = await world.send(t.chat, t.alice, "/new backgammon")
    lobby = await world.reply(t.chat, sent, "New game")
    assert await _group_messages(world, t.chat) == before + 1  # the lobby only
    record = await chat_game(world.store, t.chat.id)
    assert record is not None and record.dice is not None and not record.dice.fixed
    commitment = str(seed_of(record.dice).commitment)
    assert commitment in lobby.content  # the whole one
    await world.tap(t.chat, t.alice, lobby, text="✋ Join")
    await world.idle()
    at_the_tap = world.server.message(t.chat, lobby.message_id)
    seat = len(world.server.requests())
    await world.tap(t.chat, t.bob, at_the_tap, text="✋ Join")
    query = _last_query(world)
    started = await chat_game(world.store, t.chat.id)
    assert started is not None and started.status is Status.ACTIVE
    _in_export(started, "tg.join", query)
    _unchanged_since(world, at_the_tap)
    assert started.dice is not None and started.dice.entropy == (f"tg.join={query}",)
    assert started.board_message_id not in (None, lobby.message_id)  # a message of its own
    assert _edits_of(world, lobby, seat) == []
    refused = await world.tap(t.chat, t.eve, at_the_tap, text="✋ Join")
    assert refused.show_alert and "has started" in (refused.text or "")
    _unchanged_since(world, at_the_tap)
    assert _kept_past_the_tap(world, started) == [(t.chat.id, lobby.message_id)]
    from tests.bot.edge.handlers.test_analysis import _resigned

    done = await _resigned(world, t, 2)
    assert verify_text(export_text(done)[1]).ok
    assert _edits_of(world, lobby, seat) == [] and commitment in at_the_tap.content
    _unchanged_since(world, at_the_tap)


@pytest.mark.parametrize("style", ["png", "text"])
async def test_a_lobby_costs_the_group_one_message_less_to_the_first_turn(
        world: World, style: str) -> None:
    """/new, both Joins and the first player's whole turn: the lobby, its
    first Join's redraw, the game's board and the turn's redraw (the kept
    "Dice of the next game committed" message is gone: it was a fifth).
    Picture boards were posted below the lobby before too (which was
    deleted); a text board was the lobby edited: now a message of its own."""
    t = _setup(world)
    await world.store.games.update(settings_key(t.chat.id), lambda _s: ChatSettings(
        chat_id=t.chat.id, board_style=style))
    before = await _group_messages(world, t.chat)
    sent = await world.send(t.chat, t.alice, "/new long")
    lobby = await world.reply(t.chat, sent, "New game")
    await world.tap(t.chat, t.alice, lobby, text="✋ Join")
    await world.tap(t.chat, t.bob, lobby, text="✋ Join")
    seated = await _group_messages(world, t.chat) - before
    mover, _other = await _mover(world, t)
    while (current := await chat_game(world.store, t.chat.id)) is not None \
            and current.status is Status.ACTIVE and (await _mover(world, t))[0] == mover:
        board = world.board(t.chat)
        data = pick(board)
        assert data is not None, board.content
        await world.tap(t.chat, mover, board, data)
    assert seated == 3, world.server.transcript(t.chat)
    assert await _group_messages(world, t.chat) - before == 4, world.server.transcript(t.chat)


async def test_play_the_bot_on_a_lobby_keeps_the_lobby(world: World) -> None:
    """🤖 Play the bot on a lobby is the tap mixed in (``tg.join``): the lobby
    keeps the commitment, the game against the computer is a message of its own."""
    t = _setup(world)
    sent = await world.send(t.chat, t.alice, "/new backgammon")
    lobby = await world.reply(t.chat, sent, "New game")
    await world.idle()
    seat = len(world.server.requests())
    await world.tap(t.chat, t.alice, lobby, text="🤖 Play the bot")
    started = await _started(world, t.chat, "tg.join", _last_query(world), lobby)
    await world.tap(t.chat, t.alice, lobby, text="🤖 Play the bot")  # the old button: told
    _never_edited(world, lobby)
    assert started.board_message_id != lobby.message_id and _edits_of(world, lobby, seat) == []
    assert _kept_past_the_tap(world, started) == [(t.chat.id, lobby.message_id)]
    done = await _resign_against_the_bot(world, t.chat, t.alice)
    assert verify_text(export_text(done)[1]).ok


async def test_seed_words_are_confirmed_in_the_reply_not_edited_into_the_lobby(
        world: World) -> None:
    t = _setup(world)
    sent = await world.send(t.chat, t.alice, "/new long")
    lobby = await world.reply(t.chat, sent, "New game")
    since = len(world.server.requests())
    sent = await world.send(t.chat, t.eve, "/seed  lucky   seven ")
    said = await world.reply(t.chat, sent, "lucky seven")
    assert "/verify" in said.content and _edits_of(world, lobby, since) == []
    record = await chat_game(world.store, t.chat.id)
    assert record is not None and record.dice is not None
    assert f"seed.{t.eve.id}=lucky seven" in record.dice.entropy
    sent = await world.send(t.chat, t.alice, "/verify")
    assert "lucky seven" in (await world.reply(t.chat, sent, "Fingerprint")).content


async def test_a_game_against_the_computer_waits_for_start(world: World) -> None:
    t = _setup(world)
    waiting, kept = await _waiting(world, t.chat, t.alice, "/new long bot level=easy")
    assert waiting.dice is not None and not waiting.engine and not waiting.dice.fixed
    # nobody else may start it; the seat's person does
    board = game_board(world.server, t.chat)
    assert board is not None and start_button(board) is not None
    refused = await world.tap(t.chat, t.eve, board, start_button(board))
    assert refused.show_alert
    eve = _last_query(world)
    sent = await world.send(t.chat, t.alice, "/verify")
    said = await world.reply(t.chat, sent, "Fingerprint")
    assert f"tg.start={eve}" in said.content and "refused" in said.content  # visible at once
    query = await _tap_start(world, t.chat, t.alice)
    started = await chat_game(world.store, t.chat.id)
    assert started is not None and started.status is Status.ACTIVE
    assert started.dice is not None and started.dice.seed == waiting.dice.seed
    assert started.dice.entropy == (f"tg.start={query}",)
    assert started.dice.refused == (f"tg.start={eve}",)  # refused: logged, not mixed in
    body = _in_export(started, "tg.start", query)
    assert f'; [Dice refused "tg.start={eve}"]' in body
    _kept_past_the_tap(world, started)
    done = await _resign_against_the_bot(world, t.chat, t.alice)
    assert verify_text(export_text(done)[1]).ok
    _never_edited(world, kept)


async def test_a_rematch_against_the_computer_waits_for_start(world: World) -> None:
    t = _setup(world)
    await world.start_computer(t.chat, t.alice, "/new backgammon bot level=easy")
    first = await _resign_against_the_bot(world, t.chat, t.alice)
    await world.tap(t.chat, t.alice, world.board(t.chat), text="Rematch")
    rematch = await chat_game(world.store, t.chat.id)
    assert rematch is not None and rematch.game_id != first.game_id
    assert rematch.status is Status.LOBBY and rematch.dice is not None  # the computer accepted
    assert first.dice is not None and rematch.dice.seed != first.dice.seed
    kept = _kept(world, t.chat, rematch.dice.seed)
    await _started(world, t.chat, "tg.start", await _tap_start(world, t.chat, t.alice), kept)


async def test_a_matchs_next_game_keeps_the_first_games_tap(world: World) -> None:
    t = _setup(world)
    _waiting_record, kept = await _waiting(world, t.chat, t.alice,
                                           "/new backgammon bot level=easy match=3")
    query = await _tap_start(world, t.chat, t.alice)
    first = await _resign_against_the_bot(world, t.chat, t.alice)
    assert first.status is Status.FINISHED and not table_of(first).match_over
    await world.tap(t.chat, t.alice, world.board(t.chat), text="Next game")
    second = await chat_game(world.store, t.chat.id)
    assert second is not None and second.status is Status.ACTIVE
    assert table_of(second).number == 2 and second.dice == first.dice
    body = _in_export(second, "tg.start", query)
    assert " Game 2" in body
    _never_edited(world, kept)
    _kept_past_the_tap(world, second)


async def test_an_invitation_waits_for_a_players_start(world: World) -> None:
    from tests.bot.edge.handlers.test_invite import _invite, _people, _private_game

    p = _people(world)
    payload = await _invite(world, p, "backgammon")
    invitation = world.server.last_message(p.chat(world, p.alice))
    assert invitation is not None
    bobs = p.chat(world, p.bob)
    sent = await world.send(bobs, p.bob, f"/start {payload}")
    await world.reply(bobs, sent)
    await world.idle()
    waiting = await _private_game(world, p)
    assert waiting.status is Status.LOBBY and waiting.dice is not None and not waiting.engine
    commitment = str(seed_of(waiting.dice).commitment)
    assert commitment in (invitation.text or "")  # the inviter's, never edited
    kept = _kept(world, bobs, waiting.dice.seed)  # the invitee's, before the tap
    query = await _tap_start(world, bobs, p.bob)
    started = await _private_game(world, p)
    assert started.status is Status.ACTIVE and started.dice is not None
    assert started.dice.entropy == (f"tg.start={query}",)
    _in_export(started, "tg.start", query)
    _never_edited(world, kept)
    _never_edited(world, invitation)
    assert (kept.chat.id, kept.message_id) in _kept_past_the_tap(world, started)


async def test_a_tournament_game_waits_for_a_players_start(world: World) -> None:
    """A tournament's game showed its whole commitment only on its board, which
    ▶ Start edits down to 12 digits: now it is kept in a message never
    edited, posted before the tap whose id is mixed in, as for every game."""
    from tests.bot.edge.handlers.test_tournament import board_of, club, tournament

    c = club(world, 2)
    record = await tournament(world, c, "ko backgammon")
    [pairing] = record.rounds[-1].pairings
    assert pairing.game_id is not None
    waiting = await world.store.games.load_game(c.chat.id, pairing.game_id)
    assert waiting is not None and waiting.status is Status.LOBBY and waiting.dice is not None
    assert not waiting.dice.fixed and not waiting.engine
    kept = _kept(world, c.chat, waiting.dice.seed)
    board = board_of(world, c, pairing.game_id)
    assert kept.message_id > board.message_id   # posted with the board, before the tap
    player = next(u for u in c.players if u.id == pairing.first)
    data = start_button(board)
    assert data is not None
    assert not (await world.tap(c.chat, player, board, data)).show_alert
    query = _last_query(world)
    started = await world.store.games.load_game(c.chat.id, pairing.game_id)
    assert started is not None and started.status is Status.ACTIVE
    assert started.dice is not None and started.dice.seed == waiting.dice.seed
    assert started.dice.entropy == (f"tg.start={query}",)
    _in_export(started, "tg.start", query)
    _never_edited(world, kept)
    _kept_past_the_tap(world, started)


def _request_index(world: World, method: str, match: object) -> int:
    """Where in the bot's requests the first ``method`` call ``match`` accepts is."""
    for index, request in enumerate(world.server.requests()):
        if request.method.lower() == method.lower() and match(request.params):  # type: ignore[operator]
            return index
    raise AssertionError(f"no {method} matched")


def _has_start(params: dict[str, object]) -> bool:
    return "▶ Start" in str(params.get("reply_markup"))


@pytest.mark.parametrize("feedback", [False, True], ids=["first-join", "feedback"])
async def test_an_inline_game_waits_for_start_after_the_second_join(store: object,
                                                                   feedback: bool) -> None:
    """The second player of an inline game is first known at their Join: the
    Join only seats them, the whole commitment goes to their private chat
    (a message never edited) before the message shows ▶ Start, and that tap's
    id is the entropy.  The lobby is stored at the first Join, or (inline
    feedback on) when the result is chosen."""
    from tests.bot.conftest import running_world
    from tests.bot.edge.handlers.test_inline import _pair, _post

    async with running_world(store) as w:  # type: ignore[arg-type]
        w.server.set_inline(True)
        w.server.set_inline_feedback(feedback)
        p = _pair(w)
        dms = {user.id: w.server.private_chat(user) for user in (p.alice, p.bob)}
        for user in (p.alice, p.bob):  # the bot may write to both
            await w.reply(dms[user.id], await w.send(dms[user.id], user, "/start"))
        lobby = await _post(w, p, "backgammon", "Backgammon")
        inline_id = lobby.inline_message_id or ""
        if feedback:  # stored and drawn as a lobby (l: buttons) when chosen
            await w.server.wait_message_async(p.chat, "Dice committed", since=lobby, timeout=5)
        await w.tap(p.chat, p.alice, w.server.inline_message(inline_id), text="✋ Join")
        committed_lobby = await w.store.inline.game(inline_id)
        assert committed_lobby is not None and committed_lobby.dice is not None
        alices = _kept(w, dms[p.alice.id], committed_lobby.dice.seed)
        await w.tap(p.chat, p.bob, w.server.inline_message(inline_id), text="✋ Join")
        waiting = await w.store.inline.game(inline_id)
        assert waiting is not None and waiting.status is Status.LOBBY  # seated, nothing rolled
        assert waiting.dice is not None and not waiting.dice.fixed and not waiting.engine
        assert waiting.dice.entropy == () and waiting.dice.seed == committed_lobby.dice.seed
        commitment = str(seed_of(waiting.dice).commitment)
        shown = w.server.inline_message(inline_id)
        assert commitment in shown.content and start_button(shown) is not None
        bobs = _kept(w, dms[p.bob.id], waiting.dice.seed)  # kept in Bob's private chat...
        sent = _request_index(w, "sendMessage", lambda params: params["chat_id"] == p.bob.id
                              and commitment in str(params["text"]))
        start_shown = _request_index(w, "editMessageText", _has_start)
        assert sent < start_shown  # ...before there was a ▶ Start to tap
        await w.tap(p.chat, p.bob, shown, start_button(shown))
        query = _last_query(w)
        started = await w.store.inline.game(inline_id)
        assert started is not None and started.status is Status.ACTIVE
        assert started.dice is not None and started.dice.entropy == (f"tg.start={query}",)
        _in_export(started, "tg.start", query)
        _never_edited(w, alices)
        _never_edited(w, bobs)
        kept = _kept_past_the_tap(w, started)
        assert {(m.chat.id, m.message_id) for m in (alices, bobs)} <= set(kept)


async def test_an_inline_player_who_never_started_the_bot_keeps_it_by_verify(
        store: object) -> None:
    """Bob never started the bot, so it may not write to him first: the
    waiting message's 🎲 Verify tells him how, and once he started the bot it
    sends the whole commitment to his private chat (never edited) before his
    ▶ Start; Carol's refused Start is logged."""
    from tests.bot.conftest import running_world
    from tests.bot.edge.handlers.test_inline import _pair, _post

    async with running_world(store) as w:  # type: ignore[arg-type]
        w.server.set_inline(True)
        p = _pair(w)
        bobs = w.server.private_chat(p.bob, started=False)
        lobby = await _post(w, p, "long", "Long nardy")
        inline_id = lobby.inline_message_id or ""
        await w.tap(p.chat, p.alice, lobby, text="✋ Join")
        await w.tap(p.chat, p.bob, w.server.inline_message(inline_id), text="✋ Join")
        waiting = await w.store.inline.game(inline_id)
        assert waiting is not None and waiting.dice is not None and not waiting.dice.fixed
        shown = w.server.inline_message(inline_id)
        told = await w.tap(p.chat, p.bob, shown, text="🎲 Verify")
        assert told.show_alert and "личный чат" in (told.text or "")  # his language
        await w.reply(bobs, await w.send(bobs, p.bob, "/start"))
        assert not (await w.tap(p.chat, p.bob, shown, text="🎲 Verify")).show_alert
        commitment = str(seed_of(waiting.dice).commitment)
        kept = [m for m in w.server.messages(bobs) if m.by_bot and commitment in (m.text or "")]
        assert kept and not kept[0].buttons, w.server.transcript(bobs)
        assert w.server.inline_message(inline_id).content == shown.content  # nothing rolled
        carol = w.server.add_user("Carol")
        assert (await w.tap(p.chat, carol, shown, start_button(shown))).show_alert
        carols = _last_query(w)
        await w.tap(p.chat, p.bob, shown, start_button(shown))
        query = _last_query(w)
        started = await w.store.inline.game(inline_id)
        assert started is not None and started.status is Status.ACTIVE
        assert started.dice is not None and started.dice.entropy == (f"tg.start={query}",)
        body = _in_export(started, "tg.start", query)
        assert f'; [Dice refused "tg.start={carols}"]' in body
        _never_edited(w, kept[0])
        assert (kept[0].chat.id, kept[0].message_id) in _kept_past_the_tap(w, started)


async def _resign_inline(world: World, chat: Chat, people: dict[int, User], inline_id: str
                         ) -> GameRecord:
    """The player an inline game waits for resigns; the other accepts."""
    from bot.rules.seats import waiting_user

    for _ in range(20):
        record = await world.store.inline.game(inline_id)
        assert record is not None
        mover = waiting_user(record)
        assert mover is not None
        board = world.board(chat)
        actions = {d.split(":")[3] for _, d in world.buttons(board) if d.startswith("g:")}
        if "o" in actions:
            break
        await world.tap(chat, people[mover], board, pick(board))
    else:
        raise AssertionError("no turn to resign on")
    other = next(user for user_id, user in people.items() if user_id != mover)
    for user, action in ((people[mover], "o"), (people[mover], "R"), (other, "a")):
        board = world.board(chat)
        assert not (await world.tap(chat, user, board, _data(world, board, action))).show_alert
    done = await world.store.inline.game(inline_id)
    assert done is not None and done.status is Status.FINISHED
    return done


async def test_an_inline_rematch_keeps_its_commitment_before_the_accepting_tap(
        store: object) -> None:
    """A rematch on an inline message: both players are known, so the offer's
    whole commitment goes to their private chats (never edited) before the
    message shows Accept; the accepting tap's id is the rematch's entropy."""
    from tests.bot.conftest import running_world
    from tests.bot.edge.handlers.test_inline import _pair, _started

    async with running_world(store) as w:  # type: ignore[arg-type]
        w.server.set_inline(True)
        p = _pair(w)
        dms = {user.id: w.server.private_chat(user) for user in (p.alice, p.bob)}
        for user in (p.alice, p.bob):
            await w.reply(dms[user.id], await w.send(dms[user.id], user, "/start"))
        lobby = await _started(w, p)
        inline_id = lobby.inline_message_id or ""
        first = await _resign_inline(w, p.chat, {p.alice.id: p.alice, p.bob.id: p.bob},
                                     inline_id)
        await w.tap(p.chat, p.alice, w.board(p.chat), text="Rematch")
        offered = await w.store.inline.game(inline_id)
        assert offered is not None and offered.game_id == first.game_id
        assert offered.next_dice is not None and not offered.next_dice.fixed
        commitment = str(seed_of(offered.next_dice).commitment)
        kept = _kept(w, dms[p.bob.id], offered.next_dice.seed)  # the one who accepts
        sent = _request_index(w, "sendMessage", lambda params: params["chat_id"] == p.bob.id
                              and commitment in str(params["text"]))
        accept = _request_index(w, "editMessageText", lambda params: commitment in str(
            params.get("text")) and "Accept" in str(params.get("reply_markup")))
        assert sent < accept  # kept before there was an Accept to tap
        board = w.board(p.chat)
        await w.tap(p.chat, p.bob, board, text="Accept")
        query = _last_query(w)
        rematch = await w.store.inline.game(inline_id)
        assert rematch is not None and rematch.game_id != first.game_id
        assert rematch.status is Status.ACTIVE and rematch.dice is not None
        assert rematch.dice.seed == offered.next_dice.seed
        assert rematch.dice.entropy == (f"tg.join={query}",)
        _in_export(rematch, "tg.join", query)
        _never_edited(w, kept)
        assert (kept.chat.id, kept.message_id) in _kept_past_the_tap(w, rematch)


# ---------------------------------------------------------------- the seed-grinding attack


def _computer_wins_with_66(fair: FairDice) -> bool:
    """The dice a dishonest bot wants: Black (the computer) wins the opening,
    and its next roll is 66."""
    index = 0
    while (throw := fair.roll(index))[0] == throw[1]:
        index += 1
    return throw[1] > throw[0] and fair.roll(index + 2) == (6, 6)


async def test_grinding_seeds_after_the_entropy_cannot_give_a_verified_game(
        world: World) -> None:
    t = _setup(world)
    waiting, kept = await _waiting(world, t.chat, t.alice, "/new backgammon bot level=easy")
    assert waiting.dice is not None  # and the player has the commitment: kept
    query = await _tap_start(world, t.chat, t.alice)
    started = await chat_game(world.store, t.chat.id)
    assert started is not None and started.dice is not None
    entropy = Entropy.parse(started.dice.entropy)
    # the attack of the issue: once the tap's id is known, try seeds until the dice suit
    ground = next(seed for n in itertools.count()
                  if _computer_wins_with_66(FairDice(seed := DiceSeed.from_test_seed(n, "grind"),
                                                     entropy)))
    posted = str(seed_of(waiting.dice).commitment)
    # it finds one quickly, but that seed does not fit the commitment posted before the tap
    assert str(ground.commitment) != posted and posted in (kept.text or "")
    _never_edited(world, kept)
    done = await _resign_against_the_bot(world, t.chat, t.alice)
    honest = export_text(done)[1]
    assert verify_text(honest).ok and f"tg.start={query}" in honest
    # a file with the ground seed under the posted commitment fails the check; one with the
    # ground seed's own commitment differs from the message the player kept
    assert done.dice is not None
    forged = honest.replace(done.dice.seed, ground.hex())
    assert not verify_text(forged).commitment_ok and not verify_text(forged).ok
    assert str(ground.commitment) not in (kept.text or "")


# ---------------------------------------------------------------- an abandoned match


def _match_after_game_one() -> GameRecord:
    """A backgammon match to 3 between two people, its first game resigned."""
    from bot.rules import lobby, play
    from bot.rules.dice import Dealer
    from bot.rules.seats import waiting_user
    from bot.vocab.callbacks import ButtonAction, Callback
    from bot.vocab.records import TableOptions
    from engine.position import Variant

    dealer = Dealer.for_tests(5).tapped("4390213745981237712")
    options = TableOptions(match_length=3, koks=False)
    record = lobby.new_lobby(-100, None, Variant.BACKGAMMON, options, 1, dealer)
    for user in (1, 2):
        record = lobby.apply_lobby(record, user, f"P{user}",
                                   Callback.lobby(record.game_id, 0, ButtonAction.JOIN), dealer)
    mover = waiting_user(record)
    assert mover is not None
    other = 3 - mover
    record = play.apply_game(record, mover, Callback.game(record.game_id, 0, ButtonAction.RESIGN,
                                                          1))
    record = play.apply_game(record, other, Callback.game(record.game_id, 0,
                                                          ButtonAction.ACCEPT))
    assert record.status is Status.FINISHED and not table_of(record).match_over
    return record


def test_a_player_ends_an_abandoned_match_alone_and_sees_its_seed() -> None:
    from bot.rules.cancelling import ABANDONED_AFTER, cancel_command
    from bot.rules.dice import revealed

    record = _match_after_game_one()
    assert not revealed(record)  # between two games of a match the seed stays secret
    soon = record.updated_at + 60
    proposed = cancel_command(record, 1, admin=False, now=soon)
    assert proposed.status is Status.FINISHED and proposed.cancel_by == 1  # only a proposal
    later = record.updated_at + ABANDONED_AFTER
    ended = cancel_command(record, 1, admin=False, now=later)
    assert ended.status is Status.CANCELLED and revealed(ended)
    body = export_text(ended)[1]
    assert ended.dice is not None and f'; [Dice seed "{ended.dice.seed}"]' in body
    assert verify_text(body).ok  # game 1 of the abandoned match checks


def test_a_player_cannot_walk_away_from_their_own_move() -> None:
    from bot.rules import aftergame
    from bot.rules.cancelling import ABANDONED_AFTER, cancel_command
    from bot.rules.dice import Dealer
    from bot.rules.seats import waiting_user
    from bot.vocab.callbacks import ButtonAction, Callback

    record = _match_after_game_one()
    offered = aftergame.after_game(record, 1, Callback.game(record.game_id, 0,
                                                            ButtonAction.REMATCH), Dealer())
    assert waiting_user(offered) == 2  # the next game waits for player 2's answer
    late = offered.updated_at + ABANDONED_AFTER
    assert cancel_command(offered, 2, admin=False, now=late).status is Status.FINISHED
    assert cancel_command(offered, 1, admin=False, now=late).status is Status.CANCELLED


def test_verifys_choices_of_finished_games_differ_by_date_and_result() -> None:
    from bot.present.picker import game_label
    from bot.vocab.i18n import translator

    first = _match_after_game_one()
    over = first.model_copy(update={"status": Status.CANCELLED, "updated_at": 86400.0})
    again = over.model_copy(update={"updated_at": 2 * 86400.0, "game_id": "other123"})
    labels = [game_label(translator("en"), record) for record in (over, again)]
    assert labels[0] != labels[1], labels
    assert "1970-01-02" in labels[0] and "cancelled" in labels[0]
    won = first.model_copy(update={"updated_at": 0.0, "next_game": "xyz12345"})
    label = game_label(translator("en"), won)
    score = table_of(won).score
    assert f"{score[0]}:{score[1]}" in label and "1970-01-01" in label, label


def test_verifys_choices_keep_the_date_whatever_the_names() -> None:
    """Long names give way on the button (60 characters): the result and the
    minute the game ended are never cut, in any language."""
    from bot.present.picker import LABEL_LIMIT, game_label
    from bot.vocab.i18n import translator
    from bot.vocab.records import Player

    first = _match_after_game_one()
    names = (Player(user_id=1, name="Alexandrina Konstantinopolskaya", side=first.players[0].side),
             Player(user_id=2, name="Bartholomew Featherstonehaugh", side=first.players[1].side))
    one = first.model_copy(update={"status": Status.CANCELLED, "players": names,
                                   "updated_at": 86400.0 + 60})
    two = one.model_copy(update={"updated_at": 86400.0 + 120, "game_id": "other123"})
    for lang in ("en", "ru", "lt"):
        labels = [game_label(translator(lang), record) for record in (one, two)]
        assert labels[0] != labels[1], labels
        assert labels[0].endswith("1970-01-02 00:01") and labels[1].endswith("1970-01-02 00:02")
        assert all(len(label) <= LABEL_LIMIT for label in labels), labels


async def test_export_of_a_finished_private_game_needs_no_reply(world: World) -> None:
    from engine.position import Side
    from tests.bot.edge.handlers.test_invite import _invite, _open, _people, _private_game
    from tests.bot.edge.handlers.test_invite import _resign as _resign_privately

    p = _people(world)
    await _open(world, p.bob, await _invite(world, p, "backgammon"))
    record = await _private_game(world, p)
    await _resign_privately(world, record, {Side.WHITE: p.alice, Side.BLACK: p.bob})
    done = await world.store.games.load(record.key)
    assert done is not None and done.status is Status.FINISHED
    assert not [g for g in await world.store.games.user_games(p.alice.id) if g.is_private]
    mine = p.chat(world, p.alice)
    sent = await world.send(mine, p.alice, "/export")  # no reply to the board
    document = await world.reply(mine, sent, match=lambda m: m.document is not None,
                                 timeout=60)  # with its analysis, on a busy machine
    body = (document.document_bytes or b"").decode()
    assert verify_text(body).ok and done.dice is not None and done.dice.seed in body


async def _started_the_bot(world: World, *people: User) -> None:
    for person in people:
        mine = world.server.private_chat(person)
        await world.reply(mine, await world.send(mine, person, "/start"))


def _bot_messages(world: World, chat: Chat) -> list[Message]:
    return [m for m in world.server.messages(chat, include_deleted=True) if m.by_bot]


async def test_a_game_against_the_computer_costs_the_group_one_message(world: World) -> None:
    """Issue 35: the person whose ▶ Start is the entropy started the bot: the
    whole commitment is kept in their private chat (never edited, before the
    tap), and the group gets only the game's message."""
    t = _setup(world)
    await _started_the_bot(world, t.alice)
    before = len(_bot_messages(world, t.chat))
    sent = await world.send(t.chat, t.alice, "/new long bot level=easy")
    await world.reply(t.chat, sent, None)
    await world.idle()
    waiting = await chat_game(world.store, t.chat.id)
    assert waiting is not None and waiting.dice is not None and not waiting.dice.fixed
    assert len(_bot_messages(world, t.chat)) == before + 1  # the game with ▶ Start only
    kept = _kept(world, world.server.private_chat(t.alice), waiting.dice.seed)
    await _started(world, t.chat, "tg.start", await _tap_start(world, t.chat, t.alice), kept)
    done = await _resign_against_the_bot(world, t.chat, t.alice)
    assert verify_text(export_text(done)[1]).ok
    _never_edited(world, kept)


async def test_a_game_against_the_computer_for_someone_without_a_private_chat(
        world: World) -> None:
    """Who never started the bot gets the commitment in the group, as before."""
    t = _setup(world)
    _waiting_record, kept = await _waiting(world, t.chat, t.alice, "/new long bot level=easy")
    assert kept.chat.id == t.chat.id
    await _started(world, t.chat, "tg.start", await _tap_start(world, t.chat, t.alice), kept)


async def test_a_rematch_offer_between_people_is_kept_in_their_private_chats(
        world: World) -> None:
    """Both players started the bot: the offer's seed is kept in each one's
    private chat before the Accept whose id is mixed in; the group gets no
    second message for it."""
    from tests.bot.edge.handlers.test_analysis import _finished

    t = _setup(world)
    await _started_the_bot(world, t.alice, t.bob)
    first = await _finished(world, t, taps=2)
    before = len(_bot_messages(world, t.chat))
    board = world.board(t.chat)
    await world.tap(t.chat, t.alice, board, _data(world, board, "A"))  # Rematch: an offer
    offered = await chat_game(world.store, t.chat.id)
    assert offered is not None and offered.next_dice is not None
    assert len(_bot_messages(world, t.chat)) == before  # the board edited, nothing posted
    kept = [_kept(world, world.server.private_chat(p), offered.next_dice.seed)
            for p in (t.alice, t.bob)]
    board = world.board(t.chat)
    await world.tap(t.chat, t.bob, board, _data(world, board, "a"))  # Accept
    query = _last_query(world)
    rematch = await chat_game(world.store, t.chat.id)
    assert rematch is not None and rematch.game_id != first.game_id
    assert rematch.dice is not None and rematch.dice.seed == offered.next_dice.seed
    _in_export(rematch, "tg.join", query)
    for message in kept:
        _never_edited(world, message)
    assert {(m.chat.id, m.message_id) for m in kept} <= set(_kept_past_the_tap(world, rematch))


async def test_a_lobby_between_people_keeps_it_in_the_lobby_whoever_started_the_bot(
        world: World) -> None:
    """Whose tap seats the second player nobody knows before it, so no private
    chat can hold the commitment in time: the lobby holds it, and nothing
    else is sent, to the group or privately."""
    t = _setup(world)
    await _started_the_bot(world, t.alice, t.bob)
    private = [len(_bot_messages(world, world.server.private_chat(p))) for p in (t.alice, t.bob)]
    before = len(_bot_messages(world, t.chat))
    sent = await world.send(t.chat, t.alice, "/new long")
    lobby = await world.reply(t.chat, sent, "New game")
    await world.idle()
    assert len(_bot_messages(world, t.chat)) == before + 1
    assert [len(_bot_messages(world, world.server.private_chat(p)))
            for p in (t.alice, t.bob)] == private
    await world.tap(t.chat, t.alice, lobby, text="✋ Join")
    await world.tap(t.chat, t.bob, lobby, text="✋ Join")
    started = await chat_game(world.store, t.chat.id)
    assert started is not None and started.status is Status.ACTIVE
    _in_export(started, "tg.join", _last_query(world))
    assert _kept_past_the_tap(world, started) == [(t.chat.id, lobby.message_id)]
