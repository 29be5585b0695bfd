"""Invitations to private games: the link, its one use, its expiry, racing
redemptions, and a private game played to the end on two boards in two
private chats, through the real handlers and the local Bot API server."""

from __future__ import annotations

import asyncio
import html
import re
from dataclasses import dataclass

from bot.present.board import board_view
from bot.present.render import render_text
from bot.rules.chatsettings import with_setting
from bot.rules.matchstate import table_of
from bot.store import invite as invites
from bot.vocab.i18n import translator
from bot.vocab.records import (
    ChatSettings,
    GameRecord,
    Status,
    TableOptions,
    is_private_game_chat,
    settings_key,
)
from engine.game import Phase
from engine.position import Side, Variant
from tests.bot.conftest import World
from tests.bot.driver import game_board, pick, start_button
from tests.botapi.model import Chat, Message, User
from tests.conftest import chat_game

EN = translator("en")
LINK = re.compile(r"https://t\.me/(\w+)\?start=(i[A-Za-z0-9_-]+)")


@dataclass
class People:
    alice: User
    bob: User
    carol: User

    def chat(self, world: World, user: User) -> Chat:
        return world.server.private_chat(user)


def _people(world: World, bob_language: str = "en") -> People:
    s = world.server
    return People(s.add_user("Alice"), s.add_user("Bob", language_code=bob_language),
                  s.add_user("Carol"))


async def _invite(world: World, p: People, args: str = "") -> str:
    """Alice sends /invite in her private chat; the payload of the link she gets."""
    chat = p.chat(world, p.alice)
    sent = await world.send(chat, p.alice, f"/invite {args}".strip())
    answer = await world.reply(chat, sent, "Invitation")
    found = LINK.search(answer.text or "")
    assert found is not None, answer.text
    assert found.group(1) == world.server.bot.username
    return found.group(2)


async def _open(world: World, user: User, payload: str, *, start: bool = True) -> Message:
    """``user`` opens the link: /start <payload> in their private chat; the bot's first
    answer.  ``start``: then taps ▶ Start on the game's board there, if it waits for it
    (the tap's id is the dice's entropy)."""
    chat = world.server.private_chat(user)
    sent = await world.send(chat, user, f"/start {payload}")
    first = await world.reply(chat, sent)
    await world.idle()
    board = game_board(world.server, chat)
    data = None if board is None or board.message_id <= sent.message_id else start_button(board)
    if start and data is not None:
        answer = await world.tap(chat, user, board, data)  # type: ignore[arg-type]
        assert not answer.show_alert, answer
    return first


async def _private_game(world: World, p: People) -> GameRecord:
    games = [g for g in await world.store.games.user_games(p.alice.id) if g.is_private]
    assert len(games) == 1
    return games[0]


async def _set_text_style(world: World, *users: User) -> None:
    for user in users:
        await world.store.games.update(settings_key(user.id), lambda s, uid=user.id: (
            s or ChatSettings(chat_id=uid)).model_copy(update={"board_style": "text"}))


# ---------------------------------------------------------------- the link


def test_tokens_are_unguessable_and_fit_a_deep_link() -> None:
    tokens = {invites.new_token() for _ in range(1000)}
    assert len(tokens) == 1000
    for token in tokens:
        payload = invites.invite_payload(token)
        assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", payload)
        assert invites.token_of(payload) == token
    # 22 characters of a 64-letter alphabet: 128 random bits (secrets.token_urlsafe(16))
    assert invites.TOKEN_BYTES * 8 >= 96 and all(len(t) == 22 for t in tokens)
    assert invites.token_of("games") is None and invites.token_of("i" + "!" * 22) is None


async def test_invitation_is_stored_with_its_expiry(world: World) -> None:
    p = _people(world)
    payload = await _invite(world, p, "backgammon match=3")
    token = invites.token_of(payload)
    assert token is not None
    key = f"{world.store.prefix}:{{invite:{token}}}:offer"
    ttl = await world.store.redis.ttl(key)
    assert invites.INVITE_TTL - 60 < ttl <= invites.INVITE_TTL == 24 * 3600
    answer = world.server.last_message(p.chat(world, p.alice))
    assert answer is not None and "match to 3" in answer.text and "24 hours" in answer.text
    assert answer.reply_markup is not None
    assert "t.me/share/url" in answer.reply_markup["inline_keyboard"][0][0]["url"]


async def test_opening_the_link_starts_a_private_game_with_a_board_for_each(
        world: World) -> None:
    p = _people(world, bob_language="ru")
    await _set_text_style(world, p.alice, p.bob)
    payload = await _invite(world, p, "long")
    intro = await _open(world, p.bob, payload)
    assert "Alice" in intro.text and "Длинные нарды" in intro.text  # in Bob's language
    assert any("Private game against Bob" in (m.text or "")
               for m in world.server.messages(p.chat(world, p.alice)))
    record = await _private_game(world, p)
    assert is_private_game_chat(record.chat_id) and record.status is Status.ACTIVE
    assert {(v.chat_id, v.viewer) for v in record.views} == {(p.alice.id, Side.WHITE),
                                                             (p.bob.id, Side.BLACK)}
    assert [g.game_id for g in await world.store.games.user_games(p.bob.id)] == [record.game_id]
    table = table_of(record)
    for user, side in ((p.alice, Side.WHITE), (p.bob, Side.BLACK)):
        board = game_board(world.server, p.chat(world, user))
        assert board is not None
        lang = "ru" if user is p.bob else "en"
        # each player's own board, numbered for that player (issue 26)
        drawn = render_text(board_view(translator(lang), record, table, side, own=True))
        assert drawn in html.unescape(board.text or ""), (user.first_name, board.text)
        # every button is drawn for the stored version
        assert all(d.split(":")[2] == str(record.version) for _, d in world.buttons(board))


async def test_link_works_once_then_says_used(world: World) -> None:
    p = _people(world)
    payload = await _invite(world, p)
    await _open(world, p.bob, payload)
    third = await _open(world, p.carol, payload)
    assert "already used" in third.text
    again = await _open(world, p.bob, payload)
    assert "accepted this invitation already" in again.text
    assert not await world.store.games.user_games(p.carol.id)
    assert len(await world.store.games.user_games(p.bob.id)) == 1


async def test_inviter_opening_own_link_is_told_and_the_link_stays_valid(world: World) -> None:
    p = _people(world)
    payload = await _invite(world, p)
    own = await _open(world, p.alice, payload)
    assert "your own invitation" in own.text
    assert not await world.store.games.user_games(p.alice.id)
    await _open(world, p.bob, payload)
    assert len(await world.store.games.user_games(p.alice.id)) == 1


async def test_expired_link_says_expired(world: World) -> None:
    p = _people(world)
    payload = await _invite(world, p)
    token = invites.token_of(payload)
    await world.store.redis.pexpire(f"{world.store.prefix}:{{invite:{token}}}:offer", 30)
    await asyncio.sleep(0.1)
    answer = await _open(world, p.bob, payload)
    assert "expired" in answer.text and "24 hours" in answer.text
    assert not await world.store.games.user_games(p.bob.id)
    unknown = await _open(world, p.carol, "i" + "A" * 22)
    assert "expired" in unknown.text


async def test_two_people_opening_at_once_one_game(world: World) -> None:
    p = _people(world)
    payload = await _invite(world, p)
    bob_chat, carol_chat = p.chat(world, p.bob), p.chat(world, p.carol)
    since = world.server.revision
    world.server.user_sends(bob_chat, p.bob, f"/start {payload}")
    world.server.user_sends(carol_chat, p.carol, f"/start {payload}")
    await world.reply(bob_chat, since)
    await world.reply(carol_chat, since)
    await world.idle()
    record = await _private_game(world, p)
    winners = [u for u in (p.bob, p.carol) if any(pl.user_id == u.id for pl in record.players)]
    losers = [u for u in (p.bob, p.carol) if u not in winners]
    assert len(winners) == 1 and len(losers) == 1
    told = world.server.messages(p.chat(world, losers[0]))
    assert any("already used" in (m.text or "") for m in told if m.from_bot)


async def test_redeeming_is_atomic_under_a_crowd(world: World) -> None:
    """Store level: many redeemers race for each of several links; one wins each."""
    store = world.store
    for round_ in range(10):
        token = invites.new_token()
        await store.invite.offer(invites.Invitation(token=token, inviter=1, name="A",
                                                    variant=Variant.LONG))
        results = await asyncio.gather(*(store.invite.redeem(token, 100 + i)
                                         for i in range(8)))
        outcomes = [r.outcome for r in results]
        assert outcomes.count(invites.RedeemOutcome.OK) == 1, (round_, outcomes)
        winner = 100 + outcomes.index(invites.RedeemOutcome.OK)
        assert all(r.used_by == winner for r in results if r.outcome is invites.RedeemOutcome.USED)


async def test_stakes_are_refused_and_a_group_inviter_must_have_started(world: World) -> None:
    p = _people(world)
    chat = p.chat(world, p.alice)
    sent = await world.send(chat, p.alice, "/invite stake=5")
    assert "no stakes" in (await world.reply(chat, sent)).text
    sent = await world.send(chat, p.alice, "/invite koks=maybe")
    assert "koks is on or off" in (await world.reply(chat, sent)).text
    group = world.server.add_group("Club", members=[p.alice, p.carol])
    sent = await world.send(chat, p.alice, "/start")
    await world.reply(chat, sent)
    sent = await world.send(group, p.carol, "/invite")
    answer = await world.reply(group, sent)
    assert "private chat with me first" in answer.text
    # Alice has written to the bot privately: her invitation works from the group
    sent = await world.send(group, p.alice, "/invite backgammon")
    answer = await world.reply(group, sent, "Invitation")
    assert LINK.search(answer.text) is not None


# ---------------------------------------------------------------- playing it


def _pings(world: World, p: People) -> list[Message]:
    return [m for user in (p.alice, p.bob) for m in world.server.messages(p.chat(world, user))
            if m.from_bot and "your turn" in (m.text or "")]


async def _resign(world: World, record: GameRecord, users: dict[Side, User]) -> None:
    """The player not to move resigns a single game on their board; the mover accepts."""
    mover = table_of(record).game.to_act
    assert mover is not None
    views = {v.viewer: v for v in record.views}
    mine = world.server.message(views[mover.opponent].chat_id, views[mover.opponent].message_id)
    await world.tap(mine.chat, users[mover.opponent], mine, text="⋯ More")
    await world.tap(mine.chat, users[mover.opponent], mine, text="Resign: single game")
    assert world.buttons(mine) == []  # the offer waits for the opponent
    theirs = world.server.message(views[mover].chat_id, views[mover].message_id)
    assert "offers to resign" in theirs.content
    await world.tap(theirs.chat, users[mover], theirs, text="Accept")


async def test_private_game_played_to_the_end_on_both_boards(world: World) -> None:
    p = _people(world)
    payload = await _invite(world, p, "backgammon cube=off")
    await _open(world, p.bob, payload)
    record = await _private_game(world, p)
    users = {Side.WHITE: p.alice, Side.BLACK: p.bob}
    views = {v.viewer: v for v in record.views}
    first = {side: world.buttons(world.server.message(v.chat_id, v.message_id))
             for side, v in views.items()}
    moved, last_mover, pinged = 0, None, set()
    for _ in range(2000):
        record = await chat_game(world.store, record.chat_id)  # type: ignore[assignment]
        assert record is not None and record.views == tuple(views.values())
        game = table_of(record).game
        if record.status is not Status.ACTIVE:
            break
        # enough: the waiting player resigns (the roll is made by itself without a cube)
        if moved >= 40 and game.phase is Phase.MOVE and not game.turn.played:  # type: ignore[union-attr]
            await _resign(world, record, users)
            continue
        mover = game.to_act
        assert mover is not None
        boards = {side: world.server.message(v.chat_id, v.message_id)
                  for side, v in views.items()}
        for side, board in boards.items():  # both boards live, each with its own keyboard
            actions = {d.split(":")[3] for _, d in world.buttons(board)}
            assert all(d.split(":")[2] == str(record.version) for _, d in world.buttons(board))
            if side is not mover:  # More; and Undo while its turn may be taken back
                handed = record.takeback_by == users[side].id
                assert actions == ({"o", "u"} if handed else {"o"}), (side, actions)
        # the player to move was pinged in their chat under their board; the ping goes
        # when they act
        live = [m for m in _pings(world, p) if not m.deleted]
        assert len(live) <= 1 and all(m.chat.id == users[mover].id for m in live), live
        assert all(m.reply_to == views[mover].message_id for m in live)
        if mover is not last_mover:
            assert len(live) == 1 and moved not in pinged, world.server.transcript()
            pinged.add(moved)
        last_mover = mover
        data = pick(boards[mover])
        assert data is not None, boards[mover].content
        answer = await world.tap(p.chat(world, users[mover]), users[mover], boards[mover], data)
        assert not answer.show_alert, answer
        moved += 1
    else:
        raise AssertionError("the game did not end")
    assert moved >= 40 and len(pinged) >= 8
    boards = {side: world.server.message(v.chat_id, v.message_id) for side, v in views.items()}
    for board in boards.values():
        assert "wins by resignation" in board.content
        assert [text for text, _ in world.buttons(board)] == [
            "Rematch", "🎲 Verify", "📊 Analysis"]  # no New game
    assert not [m for m in _pings(world, p) if not m.deleted]
    assert not await world.store.games.user_games(p.alice.id)
    history = await world.store.ledger.history(record.chat_id)
    assert [h.game_id for h in history] == [record.game_id]
    # taps on the first keyboards of either board are refused and change nothing
    for side, buttons in first.items():
        board = boards[side]
        answer = await world.tap(board.chat, users[side], board, buttons[0][1], strict=False)
        assert answer.show_alert and "catching up" in (answer.text or "")  # its older drawing
    assert (await chat_game(world.store, record.chat_id)) == record
    # a rematch starts on the same two boards when one offers and the other accepts:
    # each board shows its own player's buttons, the other player is pinged
    await world.tap(boards[Side.WHITE].chat, p.alice, boards[Side.WHITE], text="Rematch")
    offered = await chat_game(world.store, record.chat_id)
    assert offered is not None and offered.game_id == record.game_id
    assert offered.rematch_by == p.alice.id and offered.status is Status.FINISHED
    assert [text for text, _ in world.buttons(boards[Side.WHITE])] == [
        "Withdraw the offer", "🎲 Verify", "📊 Analysis"]
    assert [text for text, _ in world.buttons(boards[Side.BLACK])] == [
        "Accept", "Decline", "🎲 Verify", "📊 Analysis"]
    assert "your opponent offers a rematch" in (
        world.server.last_message(boards[Side.BLACK].chat) or boards[Side.BLACK]).text
    await world.tap(boards[Side.BLACK].chat, p.bob, boards[Side.BLACK], text="Accept")
    again = await chat_game(world.store, record.chat_id)
    assert again is not None and again.status is Status.ACTIVE
    assert again.game_id != record.game_id and again.views == record.views
    for view in again.views:
        board = world.server.message(view.chat_id, view.message_id)
        assert "wins" not in board.content
        assert all(d.split(":")[1] == again.game_id for _, d in world.buttons(board))


async def test_stale_taps_on_either_board_are_refused(world: World) -> None:
    p = _people(world)
    payload = await _invite(world, p, "long")
    await _open(world, p.bob, payload)
    record = await _private_game(world, p)
    # a whole turn waits at Confirm (tests/bot/edge/handlers/test_confirm_optional.py: it need not)
    await world.store.games.update(settings_key(record.chat_id), lambda s: with_setting(
        s, record.chat_id, "confirm_turns", "always"))
    mover = table_of(record).game.to_act
    views = {v.viewer: v for v in record.views}
    users = {Side.WHITE: p.alice, Side.BLACK: p.bob}
    assert mover is not None
    waiting = mover.opponent
    mover_board = world.server.message(views[mover].chat_id, views[mover].message_id)
    other_board = world.server.message(views[waiting].chat_id, views[waiting].message_id)
    old_more = world.find(other_board, lambda _t, d: d.split(":")[3] == "o")[1]
    roll = world.find(mover_board, lambda _t, d: d.split(":")[3] in ("m", "h"))[1]
    # the waiting player taps the mover's step (as if forged on their own board): refused
    answer = await world.tap(other_board.chat, users[waiting], other_board, roll, strict=False)
    assert answer.show_alert and "not your turn" in (answer.text or "")
    await world.tap(mover_board.chat, users[mover], mover_board, roll)
    rolled = await chat_game(world.store, record.chat_id)
    assert rolled is not None and rolled.version == record.version + 1
    # the older drawing of either board: the board catches up (a step still legal would
    # be played, tests/bot/edge/handlers/test_catching_up.py; More is the other player's now)
    for board, user, data in ((mover_board, users[mover], roll),
                              (other_board, users[waiting], old_more)):
        if data.split(":")[3] == "m":
            continue
        answer = await world.tap(board.chat, user, board, data, strict=False)
        assert answer.show_alert and "catching up" in (answer.text or ""), answer
    # a non-player's forged tap on a board in someone's chat (if it ever arrived) changes nothing
    fresh_more = world.find(other_board, lambda _t, d: d.split(":")[3] == "o")[1]
    answer = await world.tap(other_board.chat, p.carol, other_board, fresh_more)
    assert answer.show_alert and "not playing" in (answer.text or "")
    assert await chat_game(world.store, record.chat_id) == rolled
    # the waiting player's menu opens on their board only, and Back closes it
    await world.tap(other_board.chat, users[waiting], other_board, fresh_more)
    texts = [t for t, _ in world.buttons(other_board)]
    assert any(t.startswith("Resign") for t in texts) and "« Back" in texts
    assert not any(t.startswith("Resign") for t, _ in world.buttons(mover_board))
    await world.tap(other_board.chat, users[waiting], other_board, text="« Back")
    assert [t for t, _ in world.buttons(other_board)] == ["⋯ More"]


# ---------------------------------------------------------------- commands in the private chat


async def test_board_export_and_cancel_in_private_reach_the_private_game(world: World) -> None:
    p = _people(world)
    await _set_text_style(world, p.alice, p.bob)
    await _open(world, p.bob, await _invite(world, p, "long"))
    record = await _private_game(world, p)
    chat = p.chat(world, p.bob)
    old_board = game_board(world.server, chat)
    assert old_board is not None

    sent = await world.send(chat, p.bob, "/board")
    new_board = await world.server.wait_message_async(
        chat, since=sent, match=lambda m: m.from_bot and m.message_id != old_board.message_id
        and bool(m.buttons), timeout=10)
    assert "Long nardy" in (new_board.text or "")
    for _ in range(100):  # the view is saved just after it is posted
        shown = await _private_game(world, p)
        if (chat.id, new_board.message_id) in {(v.chat_id, v.message_id) for v in shown.views}:
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError(f"the re-posted board is not a view: {shown.views}")

    sent = await world.send(chat, p.bob, "/export")
    exported = await world.reply(chat, sent, "The game record.")
    assert exported.document_name and exported.document_bytes

    sent = await world.send(chat, p.bob, "/cancel")
    await world.reply(chat, sent, "Cancel proposed")
    sent = await world.send(p.chat(world, p.alice), p.alice, "/cancel")
    await world.reply(p.chat(world, p.alice), sent, "The game was cancelled.")
    assert (await chat_game(world.store, record.chat_id)).status is Status.CANCELLED  # type: ignore[union-attr]
    sent = await world.send(p.chat(world, p.carol), p.carol, "/board")
    await world.reply(p.chat(world, p.carol), sent, "There is no game here")


async def test_a_player_of_several_private_games_picks_one(world: World) -> None:
    p = _people(world)
    await _open(world, p.bob, await _invite(world, p))
    carols = await _invite(world, p)
    await _open(world, p.carol, carols)
    chat = p.chat(world, p.alice)
    games = [g for g in await world.store.games.user_games(p.alice.id) if g.is_private]
    assert len(games) == 2
    for command in ("/board", "/export", "/cancel"):
        sent = await world.send(chat, p.alice, command)
        listing = await world.reply(chat, sent, "Which one?")
        assert sorted(d.rsplit(":", 1)[1] for _, d in world.buttons(listing)) == sorted(
            g.game_id for g in games)
    for game in await world.store.games.user_games(p.alice.id):
        assert game.status is Status.ACTIVE and game.cancel_by is None
    # the last list (/cancel): the game with Carol picked, cancel proposed there only
    with_carol = next(g for g in games if any(pl.user_id == p.carol.id for pl in g.players))
    data = next(d for _, d in world.buttons(listing) if d.endswith(with_carol.game_id))
    await world.tap(chat, p.alice, listing, data)
    await world.reply(chat, listing, "Cancel proposed")
    for game in await world.store.games.user_games(p.alice.id):
        assert game.cancel_by == (p.alice.id if game.game_id == with_carol.game_id else None)


async def test_a_link_used_up_without_its_game_starts_it_when_opened_again(
        world: World) -> None:
    # the bot died between using the link up and saving the game: the redeemer's
    # next /start (Telegram's redelivery, or the link opened again) starts it
    p = _people(world)
    payload = await _invite(world, p, "backgammon")
    token = invites.token_of(payload)
    assert token is not None
    used = await world.store.invite.redeem(token, p.bob.id)
    assert used.outcome is invites.RedeemOutcome.OK
    assert not await world.store.games.user_games(p.bob.id)
    intro = await _open(world, p.bob, payload)
    assert "Private game against Alice" in intro.text
    record = await _private_game(world, p)
    assert record.chat_id == invites.game_chat_id(token) and record.status is Status.ACTIVE
    assert record.variant is Variant.BACKGAMMON
    again = await _open(world, p.bob, payload)
    assert "accepted this invitation already" in again.text
    assert [g.game_id for g in await world.store.games.user_games(p.bob.id)] == [record.game_id]
    third = await _open(world, p.carol, payload)
    assert "already used" in third.text


async def test_a_used_mark_from_before_it_kept_the_invitation_still_answers(
        world: World) -> None:
    p = _people(world)
    token = invites.new_token()
    used_key = f"{world.store.prefix}:{{invite:{token}}}:used"
    await world.store.redis.set(used_key, str(p.bob.id))  # the old format: only the id
    again = await _open(world, p.bob, invites.invite_payload(token))
    assert "accepted this invitation already" in again.text
    other = await _open(world, p.carol, invites.invite_payload(token))
    assert "already used" in other.text


async def test_an_invitation_for_the_bot_is_refused_and_nothing_is_offered(world: World) -> None:
    """An invitation is a game between two people: the computer's words and
    level= are refused by the options table (bot/rules/options.py
    ``invite_refusal``), in the inviter's language, and no link is made."""
    p = _people(world)
    chat = p.chat(world, p.alice)
    for args in ("long bot", "long strong", "long auto", "backgammon level=easy",
                 "computer", "bot level=auto"):
        sent = await world.send(chat, p.alice, f"/invite {args}")
        answer = (await world.reply(chat, sent)).text or ""
        assert "An invitation is for a person" in answer and "/new bot" in answer, (args, answer)
        assert LINK.search(answer) is None, answer
    offers = [key async for key in world.store.redis.scan_iter(match="*invite:*")]
    assert offers == []
    ru = world.server.add_user("Ivan", language_code="ru")
    sent = await world.send(world.server.private_chat(ru), ru, "/invite long bot")
    answer = (await world.reply(world.server.private_chat(ru), sent)).text or ""
    assert "Приглашение" in answer and "/new bot" in answer, answer
    await _invite(world, p, "long")  # a game between people is still invited


async def test_an_invitation_kept_from_before_the_bot_was_refused_starts_nothing(
        world: World) -> None:
    """An invitation made while /invite still took the computer's level (its
    link lives a day) is refused when opened, by the same table, and starts
    no game between two people with a computer's level."""
    p = _people(world)
    for level in ("strong", "auto"):
        offer = invites.Invitation(token=invites.new_token(), inviter=p.alice.id, name="Alice",
                                   variant=Variant.LONG,
                                   options=TableOptions(computer=level))  # type: ignore[arg-type]
        await world.store.invite.offer(offer)
        answer = await _open(world, p.bob, invites.invite_payload(offer.token))
        assert "An invitation is for a person" in (answer.text or ""), answer.text
        assert not await world.store.games.user_games(p.bob.id)
        assert not await world.store.games.user_games(p.alice.id)
