"""Hints (issue 17): the ``hints=`` option, the 💡 Hint button and its answer,
through the real handlers and the local Bot API server (bot/rules/hints.py,
bot/edge/handlers/hints.py, bot/present/hints.py)."""

from __future__ import annotations

import asyncio
import re

import pytest

from ai import Level, make_player
from bot.edge.handlers import hints as hint_answers
from bot.edge.metrics import REGISTRY
from bot.present.hints import equity_text, hint_text
from bot.rules import hints
from bot.rules.computer import best_turns
from bot.rules.dice import Dealer
from bot.rules.hints import HintQuestion, Ranked
from bot.rules.ledger import with_chat_stake
from bot.rules.lobby import new_lobby, start_game
from bot.rules.matchstate import table_of
from bot.rules.options import HINTS_UNSTAKED, OptionError, parse_new_args
from bot.rules.seats import waiting_user
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.i18n import translator
from bot.vocab.records import GameRecord, Player, Status, TableOptions
from bot.vocab.refusals import NOT_PLAYING, NOT_YOUR_TURN, Refusal
from bot.vocab.usertext import utf16_length
from engine import Dice, Position, Side, Step, Variant
from engine.choices import text_order, turn_choices
from engine.game import Phase
from engine.notation import format_turn
from tests.bot.conftest import World
from tests.botapi.model import Chat, Message, User
from tests.conftest import chat_game

EN = translator("en")
HINT = "i"


def _action(data: str) -> str:
    return data.split(":")[3]


# ---------------------------------------------------------------- the option


def test_hints_option_parses_on_off_and_nothing_else() -> None:
    assert parse_new_args(["long", "hints=on"])[1].hints is True
    assert parse_new_args(["hints=off", "bot"])[1].hints is False
    assert parse_new_args(["HINTS=Yes"])[1].hints is True
    assert parse_new_args(["long"])[1].hints is None  # the default: on against the bot only
    with pytest.raises(OptionError) as bad:
        parse_new_args(["hints=maybe"])
    assert EN.gettext(bad.value.message, **bad.value.values) == "hints is on or off."


def test_hints_and_a_stake_never_go_together() -> None:
    with pytest.raises(OptionError) as refused:
        parse_new_args(["backgammon", "stake=10", "hints=on"])
    assert EN.gettext(refused.value.message) == (
        "A game with hints is practice and is never staked: leave out stake= or hints=on.")
    # stake=0 is no stake; hints=off may be staked
    assert parse_new_args(["hints=on", "stake=0"])[1].hints is True
    staked = parse_new_args(["hints=off", "stake=5"])[1]
    assert (staked.hints, staked.stake_per_point) == (False, 5)
    # the chat's /stake does not reach a game with hints
    options = parse_new_args(["long", "hints=on"])[1]
    assert with_chat_stake(["long", "hints=on"], options, 10).stake_per_point == 0
    assert with_chat_stake(["long"], parse_new_args(["long"])[1], 10).stake_per_point == 10


@pytest.mark.parametrize(("options", "allowed"), [
    (TableOptions(), False),
    (TableOptions(hints=True), True),
    (TableOptions(hints=False), False),
    (TableOptions(computer="easy"), True),
    (TableOptions(computer="strong", hints=False), False),
    (TableOptions(hints=True, stake_per_point=3), False),  # cannot be made; never hints anyway
    (TableOptions(computer="medium", stake_per_point=3), False),
])
def test_who_has_hints(options: TableOptions, allowed: bool) -> None:
    assert hints.hints_allowed(options) is allowed


def test_the_alert_fits_and_keeps_the_best_turn_first() -> None:
    start = Position.initial(Variant.BACKGAMMON)
    question = HintQuestion(Variant.BACKGAMMON, False, start, Dice(6, 3))
    text = hint_text(translator("ru"), question, (
        Ranked((Step(24, 18, 6), Step(13, 10, 3)), 0.4124),
        Ranked((Step(24, 18, 6), Step(18, 15, 3)), -0.0306),
        Ranked((Step(24, 21, 3), Step(24, 18, 6)), -0.05)))
    assert text == ("💡 Лучшие ходы на 6-3:\n1. 24/18 13/10  +0.412\n2. 24/15  −0.031 (−0.443)\n"
                    "3. 24/21 24/18  −0.050 (−0.462)")
    # too many lines for Telegram's 200 characters: the worst go, the best stays
    many = tuple(Ranked((Step(24, 18, 6), Step(13, 10, 3)), -1.0) for _ in range(12))
    cut = hint_text(EN, question, many)
    assert cut.count("\n") == 5 and utf16_length(cut) == 173, cut  # a sixth line: 205
    assert equity_text(-0.00049) == "+0.000"


def test_the_strong_brains_rank_a_hint_as_hint_ranked_says() -> None:
    """(backgammon: the best four again at 2-ply, ai/backgammon.py)"""
    start = Position.initial(Variant.BACKGAMMON)
    found = best_turns(HintQuestion(Variant.BACKGAMMON, False, start, Dice(4, 2)))
    expected = make_player(Variant.BACKGAMMON, Level.STRONG).hint_ranked(start, Dice(4, 2))[:3]
    assert found == tuple(Ranked(r.turn.steps, r.equity) for r in expected)
    assert format_turn(start, text_order(found[0].steps)) == "8/4 6/4"  # the book play


# ---------------------------------------------------------------- through the bot


@pytest.fixture(autouse=True)
def _no_hints_kept() -> None:
    """Every test computes its hints (the same seeded dice make the same rolls)."""
    hint_answers.forget()


def _hints_computed(answer: str) -> float:
    return REGISTRY.get_sample_value("nardy_hints_total", {"answer": answer}) or 0.0


async def _record(world: World, chat: Chat | int) -> GameRecord:
    record = await chat_game(world.store, chat if isinstance(chat, int) else chat.id)
    assert record is not None
    return record


async def _group_game(world: World, command: str) -> tuple[Chat, dict[int, User], User]:
    """A game started in a group with ``command``: the chat, its players by
    user id, and a member who does not play."""
    s = world.server
    alice, bob, eve = s.add_user("Alice"), s.add_user("Bob"), s.add_user("Eve")
    club = s.add_group("Club", members=[alice, bob, eve])
    if "bot" in command:
        await world.start_computer(club, alice, command)
    else:
        sent = await world.send(club, alice, command)
        first = await world.reply(club, sent)
        assert "New game" in first.content, first.content
        lobby = world.board(club)
        await world.tap(club, alice, lobby, text="✋ Join")
        await world.tap(club, bob, lobby, text="✋ Join")
    return club, {alice.id: alice, bob.id: bob}, eve


async def _at_a_move(world: World, chat: Chat, players: dict[int, User]) -> GameRecord:
    """The game after its waiting player rolled, if it waited for a roll
    (backgammon with the cube: Roll or Double)."""
    record = await _record(world, chat)
    if table_of(record).game.phase is Phase.ROLL:
        user = players[waiting_user(record) or 0]
        await world.tap(chat, user, world.board(chat), text="🎲 Roll")
        record = await _record(world, chat)
    assert table_of(record).game.phase is Phase.MOVE
    return record


LINE = re.compile(r"^(\d)\. (.+?)  ([+−]\d\.\d{3})(?: \(([+−]\d\.\d{3})\))?$")


ROUNDING = 0.0005 + 1e-9
"""The most a figure printed to 3 decimals is off."""


def _number(text: str) -> float:
    return float(text.replace("−", "-"))


def check_hint(text: str | None, record: GameRecord) -> None:
    """``text`` is the hint of ``record``'s roll: the strong brains' ranking
    (:meth:`ai.player.Player.hint_ranked`, here in the test's process) - the same
    turns in the same order, each equity to the printed three places (the
    worker process's floating point may differ in the last bit: a rounding
    edge may move the third place by one), the differences to the best."""
    game = table_of(record).game
    assert text is not None and game.turn is not None and game.dice is not None
    start, dice = game.turn.start, game.turn.dice
    ranked = make_player(game.variant, Level.STRONG, koks=game.options.koks).hint_ranked(
        start, dice)
    title, *lines = text.split("\n")
    assert title == f"💡 Best turns for {dice.first}-{dice.second}:"
    assert len(lines) == min(3, len(ranked)) >= 2, text
    best = ranked[0].equity
    legal = {c.notation() for c in turn_choices(start, dice)}
    for number, (line, expected) in enumerate(zip(lines, ranked, strict=False), start=1):
        found = LINE.match(line)
        assert found is not None, line
        assert int(found[1]) == number
        assert found[2] == format_turn(start, text_order(expected.turn.steps)) and found[2] in legal
        # printed to 3 decimals; gnubg's evaluations no longer depend on what
        # the process evaluated before (tests/ai/test_cube.py)
        assert abs(_number(found[3]) - expected.equity) <= ROUNDING, (line, expected.equity)
        if number == 1:
            assert found[4] is None
        else:
            assert abs(_number(found[4]) - (expected.equity - best)) <= 2 * ROUNDING, line


async def _ask(world: World, chat: Chat, user: User, board: Message) -> str:
    """``user`` taps 💡 Hint on ``board``; the alert, checked to change nothing."""
    before = await _record(world, chat)
    shown = world.buttons(board)
    data = next(d for _, d in shown if _action(d) == HINT)
    answer = await world.tap(chat, user, board, data)
    assert answer.show_alert and answer.text, answer
    assert await _record(world, chat) == before  # nothing saved
    assert world.buttons(board) == shown  # nor redrawn
    return answer.text


@pytest.mark.parametrize("variant", ["long", "backgammon"])
async def test_hint_in_a_group_game_with_hints_on(world: World, variant: str) -> None:
    club, players, eve = await _group_game(world, f"/new {variant} hints=on")
    record = await _record(world, club)
    assert record.options.hints is True and record.options.stake_per_point == 0
    board = world.board(club)
    assert "💡 hints on" in board.content, board.content
    mover = players[waiting_user(record) or 0]
    other = next(u for uid, u in players.items() if uid != mover.id)
    data = next(d for _, d in world.buttons(board) if _action(d) == HINT)
    assert ("💡 Hint", data) in world.buttons(board)
    # only the mover may ask: the opponent and a bystander get the usual alerts
    for user, refusal in ((other, "It is not your turn."),
                          (eve, "You are not playing in this game.")):
        answer = await world.tap(club, user, board, data)
        assert answer.show_alert and answer.text == refusal, answer
    computed = _hints_computed("computed")
    cached = _hints_computed("cached")
    text = await _ask(world, club, mover, board)
    check_hint(text, record)
    assert _hints_computed("computed") == computed + 1
    # the second tap is answered from memory, the same
    assert await _ask(world, club, mover, board) == text
    assert (_hints_computed("computed"), _hints_computed("cached")) == (computed + 1, cached + 1)


async def test_the_hint_stays_for_the_whole_turn_and_refuses_old_boards(world: World) -> None:
    club, players, _eve = await _group_game(world, "/new backgammon hints=on")
    record = await _record(world, club)
    mover = players[waiting_user(record) or 0]
    board = world.board(club)
    old_hint = next(d for _, d in world.buttons(board) if _action(d) == HINT)
    first = await _ask(world, club, mover, board)
    step = next(d for _, d in world.buttons(board) if _action(d) == "m")
    await world.tap(club, mover, board, step)
    # one step played: the hint is the same roll's, from memory
    cached = _hints_computed("cached")
    assert await _ask(world, club, mover, board) == first
    assert _hints_computed("cached") == cached + 1
    answer = await world.tap(club, mover, board, old_hint, strict=False)  # the older drawing
    assert answer.show_alert and "catching up" in (answer.text or ""), answer
    # a forged hint with an argument is not a button of this bot
    moved = await _record(world, club)
    forged = f"g:{moved.game_id}:{moved.version}:{HINT}:1"
    answer = await world.tap(club, mover, board, forged, strict=False)
    assert answer.show_alert and answer.text == "This button does not work any more.", answer
    assert await _record(world, club) == moved


@pytest.mark.parametrize(("command", "shown"), [
    ("/new long", False),
    ("/new backgammon hints=off", False),
    ("/new long stake=5", False),
    ("/new backgammon bot", True),
    ("/new long bot level=easy", True),
    ("/new long bot hints=off", False),
])
async def test_the_button_only_where_hints_are_allowed(world: World, command: str,
                                                       shown: bool) -> None:
    club, players, _eve = await _group_game(world, command)
    record = await _at_a_move(world, club, players)
    actions_shown = {_action(d) for _, d in world.buttons(world.board(club))}
    assert (HINT in actions_shown) is shown, (command, actions_shown)
    if shown:
        return
    # a forged hint in a game without them: refused, nothing changes
    mover = players[waiting_user(record) or 0]
    forged = Callback.game(record.game_id, record.version, ButtonAction.HINT).format()
    answer = await world.tap(club, mover, world.board(club), forged, strict=False)
    assert answer.show_alert and answer.text == EN.gettext(hints.HINTS_OFF), answer
    assert await _record(world, club) == record


async def test_a_lobby_says_hints_on_and_the_chat_stake_stays_out(world: World) -> None:
    s = world.server
    alice, bob = s.add_user("Alice"), s.add_user("Bob")
    club = s.add_group("Club", members=[alice, bob], admins=[alice])
    await world.send(club, alice, "/stake 10")
    await world.idle()
    assert (await world.store.games.chat_settings(club.id)).options.stake_per_point == 10
    sent = await world.send(club, alice, "/new long hints=on stake=10")
    answer = await world.reply(club, sent, "never staked")
    assert answer.reply_to == sent.message_id
    assert await chat_game(world.store, club.id) is None
    sent = await world.send(club, alice, "/new long hints=maybe")
    await world.reply(club, sent, "hints is on or off.")
    assert await chat_game(world.store, club.id) is None
    sent = await world.send(club, alice, "/new long hints=on")
    lobby = await world.reply(club, sent, "New game")
    assert "💡 hints on" in lobby.content and "stake" not in lobby.content, lobby.content
    assert ("💡 Hints are on: the player to move may ask for the best turns. Join only if "
            "you agree.") in lobby.content
    record = await _record(world, club)
    assert (record.options.hints, record.options.stake_per_point) == (True, 0)
    # a stake set while the lobby waits is for later games: this one starts unstaked
    await world.send(club, alice, "/stake 20")
    await world.idle()
    assert (await world.store.games.chat_settings(club.id)).options.stake_per_point == 20
    await world.tap(club, alice, lobby, text="✋ Join")
    await world.tap(club, bob, lobby, text="✋ Join")
    started = await _record(world, club)
    assert started.status is Status.ACTIVE
    assert (started.options.hints, started.options.stake_per_point) == (True, 0)
    assert "💡 Hint" in [t for t, _ in world.buttons(world.board(club))]


@pytest.mark.parametrize("lang", ["en", "ru", "lt"])
def test_every_hint_refusal_fits_an_alert(lang: str) -> None:
    tr = translator(lang)
    for text in (hints.HINTS_OFF, hints.GAME_OVER, hint_answers.UNAVAILABLE,
                 HINTS_UNSTAKED):
        assert 0 < utf16_length(tr.gettext(text)) <= 200, text


async def test_hints_against_the_bot_in_a_private_chat(world: World) -> None:
    s = world.server
    alice = s.add_user("Alice")
    chat = s.private_chat(alice)
    await world.start_computer(chat, alice, "/new backgammon bot")
    record = await _at_a_move(world, chat, {alice.id: alice})
    assert waiting_user(record) == alice.id
    board = world.board(chat)
    check_hint(await _ask(world, chat, alice, board), record)
    # Play a whole turn; at the next roll (the cube: Roll or Double) there is no hint
    turn = next(d for _, d in world.buttons(board) if _action(d) in ("h", "m"))
    while True:
        await world.tap(chat, alice, board, turn)
        shown = {_action(d): d for _, d in world.buttons(board)}
        if "c" in shown:
            await world.tap(chat, alice, board, shown["c"])
            break
        turn = next(d for a, d in shown.items() if a == "m")
    rolled = await _record(world, chat)
    if table_of(rolled).game.phase is Phase.ROLL:
        assert HINT not in {_action(d) for _, d in world.buttons(board)}
        forged = Callback.game(rolled.game_id, rolled.version, ButtonAction.HINT).format()
        answer = await world.tap(chat, alice, board, forged, strict=False)
        assert answer.show_alert and "out of date" in (answer.text or ""), answer


async def test_hints_in_a_private_game_by_invitation(world: World) -> None:
    from tests.bot.edge.handlers.test_invite import LINK, _open
    s = world.server
    alice, bob = s.add_user("Alice"), s.add_user("Bob")
    sent = await world.send(s.private_chat(alice), alice, "/invite long hints=on")
    invitation = await world.reply(s.private_chat(alice), sent, "Invitation")
    assert "💡 hints on" in invitation.content, invitation.content
    found = LINK.search(invitation.text or "")
    assert found is not None
    await _open(world, bob, found.group(2))  # and taps ▶ Start: the dice's entropy
    await world.idle()
    record = next(g for g in await world.store.games.user_games(alice.id) if g.is_private)
    users = {Side.WHITE: alice, Side.BLACK: bob}
    mover = table_of(record).game.to_act
    assert mover is not None
    views = {v.viewer: v for v in record.views}
    boards = {side: s.message(views[side].chat_id, views[side].message_id) for side in Side}
    assert HINT not in {_action(d) for _, d in world.buttons(boards[mover.opponent])}
    hint = next(d for _, d in world.buttons(boards[mover]) if _action(d) == HINT)
    mover_chat = s.private_chat(users[mover])
    answer = await world.tap(mover_chat, users[mover], boards[mover], hint)
    assert answer.show_alert
    check_hint(answer.text, record)
    # the waiting player's forged tap on their own board: not theirs
    waiting_chat = s.private_chat(users[mover.opponent])
    answer = await world.tap(waiting_chat, users[mover.opponent], boards[mover.opponent], hint,
                             strict=False)
    assert answer.show_alert and answer.text == "It is not your turn.", answer
    assert next(g for g in await world.store.games.user_games(alice.id) if g.is_private) == record


async def test_taps_at_once_compute_the_hint_once(world: World) -> None:
    club, players, _eve = await _group_game(world, "/new backgammon bot level=easy")
    record = await _at_a_move(world, club, players)
    alice = players[waiting_user(record) or 0]
    board = world.board(club)
    data = next(d for _, d in world.buttons(board) if _action(d) == HINT)
    counts = [_hints_computed(how) for how in ("computed", "shared", "cached")]
    taps = [world.server.user_taps(club, alice, board, data) for _ in range(3)]
    answers = await asyncio.gather(*(tap.wait_answer_async(10) for tap in taps))
    await world.idle()
    assert len({a.text for a in answers}) == 1  # one computation, one text
    check_hint(answers[0].text, record)
    computed, shared, cached = (_hints_computed(how) - count for how, count in zip(
        ("computed", "shared", "cached"), counts, strict=True))
    assert computed == 1 and shared + cached == 2, (computed, shared, cached)


def test_a_refused_hint_changes_nothing_in_the_rules() -> None:
    """:func:`bot.rules.hints.ask` on a record: the checks in order."""
    lobby = new_lobby(-1, None, Variant.BACKGAMMON, TableOptions(hints=True, koks=False),
                               1, Dealer())
    players = (Player(user_id=1, name="A", side=Side.WHITE),
               Player(user_id=2, name="B", side=Side.BLACK))
    game = start_game(lobby.model_copy(update={"players": players}), Dealer())
    mover = table_of(game).game.to_act
    assert mover is not None
    mover_id = 1 if mover is Side.WHITE else 2
    question = hints.ask(game, mover_id)
    assert question.position == table_of(game).game.turn_start
    for user_id, message in ((3 - mover_id, NOT_YOUR_TURN), (9, NOT_PLAYING)):
        with pytest.raises(Refusal) as refused:
            hints.ask(game, user_id)
        assert refused.value.message == message
    plain = game.model_copy(update={"options": TableOptions(koks=False)})
    with pytest.raises(Refusal) as refused:
        hints.ask(plain, mover_id)
    assert refused.value.message == hints.HINTS_OFF
    over = game.model_copy(update={"status": Status.CANCELLED})
    with pytest.raises(Refusal) as refused:
        hints.ask(over, mover_id)
    assert refused.value.message == hints.GAME_OVER
