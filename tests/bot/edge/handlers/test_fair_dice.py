"""Provably fair dice through the bot (bot/rules/dice.py): the commitment
comes first, the join tap and /seed words are mixed in, every roll is the
derivation, the seed stays secret until the end and then verifies the
exported file alone."""

from __future__ import annotations

import io
import json
import logging
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.rules.dice import fair_dice, rolls_by_side, seed_of
from bot.rules.matchstate import table_of
from bot.vocab.records import GameRecord, Status
from engine.dice import check_game, verify_text
from engine.dicestats import ROLLS, DiceStats
from engine.position import Variant
from tests.bot.conftest import World
from tests.bot.driver import pick
from tests.bot.edge.handlers.test_handlers import Table, _data, _mover, _record, _setup
from tests.botapi.model import Message

ROOT = Path(__file__).resolve().parents[4]


def _leaks(world: World, secret: str, logs: str) -> list[str]:
    """Where ``secret`` appears: any request the bot made (params, uploaded
    files) or any captured log line."""
    found = [f"{r.method} request" for r in world.server.requests()
             if secret in json.dumps(r.params, ensure_ascii=False)
             or any(secret.encode() in f.data for f in r.files.values())]
    return found + (["the log"] if secret in logs else [])


async def _lobby(world: World, t: Table, args: str = "backgammon") -> Message:
    sent = await world.send(t.chat, t.alice, f"/new {args}")
    return await world.reply(t.chat, sent, "New game")


async def _export(world: World, t: Table) -> str:
    sent = await world.send(t.chat, t.alice, "/export")
    document = await world.reply(t.chat, sent, match=lambda m: m.document is not None)
    return (document.document_bytes or b"").decode()


async def _resign(world: World, t: Table) -> None:
    """The player to move resigns (the smallest kind); the other accepts."""
    mover, other = await _mover(world, t)
    board = world.board(t.chat)
    await world.tap(t.chat, mover, board, _data(world, board, "o"))
    await world.tap(t.chat, mover, board, _data(world, board, "R"))
    await world.tap(t.chat, other, board, _data(world, board, "a"))


def _rolls_match(record: GameRecord, at_least: int = 1) -> None:
    assert record.dice is not None
    game = table_of(record).game
    checks = check_game(fair_dice(record.dice, table_of(record).number), game)
    assert len(checks) >= at_least and all(check.ok for check in checks), checks


async def test_a_whole_game_never_shows_its_seed_and_then_verifies(
        world: World, caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    caplog.set_level(logging.DEBUG)
    t = _setup(world)
    lobby = await _lobby(world, t)
    committed = await _record(world, t)
    assert committed.dice is not None and not committed.dice.fixed
    secret = committed.dice.seed
    commitment = seed_of(committed.dice).commitment
    assert commitment.short in lobby.text  # published before anything is mixed in
    sent = await world.send(t.chat, t.eve, "/seed  lucky\tseven ")
    said = await world.reply(t.chat, sent, "Your words")
    # confirmed in the reply: the lobby keeps the commitment and is not edited for words
    assert "«lucky seven»" in said.text
    assert "lucky seven" not in world.server.message(t.chat.id, lobby.message_id).text
    await world.tap(t.chat, t.alice, lobby, text="✋ Join")
    await world.tap(t.chat, t.bob, lobby, text="✋ Join")
    join = world.server.requests("answerCallbackQuery")[-1].params["callback_query_id"]
    record = await _record(world, t)
    assert record.dice is not None and record.dice.seed == secret
    assert record.dice.entropy == (f"seed.{t.eve.id}=lucky seven", f"tg.join={join}")
    assert commitment.short in world.board(t.chat).content
    # play a while (with /verify and /export on the way), then resign
    sent = await world.send(t.chat, t.bob, "/verify")
    answer = await world.reply(t.chat, sent, "Fingerprint")
    assert str(commitment) in answer.text and "lucky seven" in answer.text
    assert secret not in answer.text
    assert secret not in await _export(world, t)
    late = await world.send(t.chat, t.bob, "/seed too late")
    assert "/new" in (await world.reply(t.chat, late)).text
    for _ in range(60):
        board = world.board(t.chat)
        data = pick(board)
        assert data is not None, board.content
        mover, _other = await _mover(world, t)
        await world.tap(t.chat, mover, board, data)
    _rolls_match(await _record(world, t), 10)
    assert not _leaks(world, secret, caplog.text), "the seed leaked before the end"
    await _resign(world, t)
    over = await _record(world, t)
    assert over.status is Status.FINISHED
    _rolls_match(over)
    final = world.board(t.chat)
    assert secret in final.content and "🎲 Verify" in [b for b, _ in world.buttons(final)]
    sent = await world.send(t.chat, t.alice, "/verify")
    assert secret in (await world.reply(t.chat, sent, "Fingerprint")).text
    # the exported file alone verifies every roll; one changed roll fails
    body = await _export(world, t)
    assert f'; [Dice seed "{secret}"]' in body and f"tg.join={join}" in body
    result = verify_text(body)
    assert result.ok and len(result.checks) >= 10, result.report()
    path = tmp_path / "game.mat"
    path.write_text(body)
    run = subprocess.run([sys.executable, "-m", "engine.dice", "verify", str(path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "all dice verified" in run.stdout, run.stdout + run.stderr
    # the game's own header line (the analysis comments before it name "Game 1" too)
    head, games = body.split("\n Game 1\n", 1)
    tampered = re.sub(r"\b([1-6])([1-6]):", lambda m: f"{int(m[1]) % 6 + 1}{m[2]}:", games,
                      count=1)
    assert tampered != games
    path.write_text(head + "\n Game 1\n" + tampered)
    run = subprocess.run([sys.executable, "-m", "engine.dice", "verify", str(path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and "MISMATCH" in run.stdout, run.stdout + run.stderr


async def test_a_cancelled_game_reveals_its_seed(world: World) -> None:
    t = _setup(world)
    lobby = await _lobby(world, t, "long")
    await world.tap(t.chat, t.alice, lobby, text="✋ Join")
    await world.tap(t.chat, t.bob, lobby, text="✋ Join")
    record = await _record(world, t)
    assert record.dice is not None
    for user in (t.alice, t.bob):
        sent = await world.send(t.chat, user, "/cancel")
        await world.reply(t.chat, sent)
    assert (await _record(world, t)).status is Status.CANCELLED
    sent = await world.send(t.chat, t.eve, "/verify")
    assert record.dice.seed in (await world.reply(t.chat, sent, "Fingerprint")).text
    body = await _export(world, t)
    result = verify_text(body)
    assert result.ok
    # the starter's first roll was thrown and not played: /dice counts it, so the file has it
    counted = sum([(await world.store.ledger.dice_stats(t.chat.id, Variant.LONG, user.id)).rolls
                   for user in (t.alice, t.bob)])
    checked = [c for c in result.checks if c.found is not None and "starts" not in c.found]
    assert counted == len(checked) >= 1, (counted, result.report())
    # the board shows the seed and 🎲 Verify
    board = world.server.newest_message(t.chat, lambda m: "was cancelled" in m.content
                                        and m.by_bot and bool(m.buttons))
    assert board is not None and record.dice.seed in board.content
    assert "🎲 Verify" in [b for row in board.buttons for b, _ in row]


async def test_a_rematch_commits_a_new_seed_with_the_offer(world: World) -> None:
    t = _setup(world)
    lobby = await _lobby(world, t)
    await world.tap(t.chat, t.alice, lobby, text="✋ Join")
    await world.tap(t.chat, t.bob, lobby, text="✋ Join")
    await _resign(world, t)
    first = await _record(world, t)
    board = world.board(t.chat)
    await world.tap(t.chat, t.alice, board, text="Rematch")
    offered = await _record(world, t)
    assert offered.next_dice is not None and offered.dice is not None
    assert offered.next_dice.seed != offered.dice.seed
    shown = world.board(t.chat).content
    assert seed_of(offered.next_dice).commitment.short in shown
    assert offered.next_dice.seed not in shown and first.dice is not None
    await world.tap(t.chat, t.bob, world.board(t.chat), text="Accept")
    second = await _record(world, t)
    assert second.game_id != first.game_id and second.dice is not None
    assert second.dice.seed == offered.next_dice.seed and second.next_dice is None
    accept = world.server.requests("answerCallbackQuery")[-1].params["callback_query_id"]
    assert second.dice.entropy == (f"tg.join={accept}",)
    _rolls_match(second)


async def test_the_verify_button_answers_with_the_revealed_dice(world: World) -> None:
    t = _setup(world)
    lobby = await _lobby(world, t)
    await world.tap(t.chat, t.alice, lobby, text="✋ Join")
    await world.tap(t.chat, t.bob, lobby, text="✋ Join")
    await _resign(world, t)
    record = await _record(world, t)
    assert record.dice is not None
    board = world.board(t.chat)
    answer = await world.tap(t.chat, t.eve, board, text="🎲 Verify")
    assert not answer.show_alert
    said = world.server.last_message(t.chat)
    assert said is not None and record.dice.seed in said.text and "engine.dice verify" in said.text
    assert await _record(world, t) == record  # a look, no change


async def test_dice_statistics_come_from_finished_games(world: World) -> None:
    t = _setup(world)
    lobby = await _lobby(world, t)
    await world.tap(t.chat, t.alice, lobby, text="✋ Join")
    await world.tap(t.chat, t.bob, lobby, text="✋ Join")
    for _ in range(30):
        board = world.board(t.chat)
        data = pick(board)
        assert data is not None
        await world.tap(t.chat, (await _mover(world, t))[0], board, data)
    sent = await world.send(t.chat, t.alice, "/dice")
    assert "no rolls" in (await world.reply(t.chat, sent)).text  # nothing booked mid-game
    await _resign(world, t)
    record = await _record(world, t)
    rolled = rolls_by_side(table_of(record).game, opening=False)  # the opening roll: no double
    assert sum(s.rolls for s in rolled.values()) + 1 == sum(
        s.rolls for s in rolls_by_side(table_of(record).game).values())
    alice = next(p for p in record.players if p.user_id == t.alice.id)
    mine = rolled[alice.side]
    assert mine.rolls >= 3
    assert await world.store.ledger.dice_stats(t.chat.id, Variant.BACKGAMMON, t.alice.id) == mine
    assert await world.store.ledger.dice_stats(t.chat.id, Variant.LONG, t.alice.id) == DiceStats()
    # the result says what each player rolled
    final = world.board(t.chat).content
    pips = rolls_by_side(table_of(record).game)[alice.side].pips  # the opening roll's too
    assert f"Alice — {pips} pips, " in final and "Rolled:" in final
    # /dice: a chart, its caption the numbers; /dice long: nothing there; a reply: Bob's
    sent = await world.send(t.chat, t.alice, "/dice")
    chart = await world.reply(t.chat, sent, match=lambda m: m.photo is not None)
    assert f"Rolls: {mine.rolls}; doubles: {mine.doubles}" in chart.content
    assert "Opening rolls are not counted" in chart.content  # and it says so (issue 25)
    assert "Too few rolls for a verdict" in chart.content
    sent = await world.send(t.chat, t.alice, "/dice long")
    assert "no rolls" in (await world.reply(t.chat, sent)).text
    sent = await world.send(t.chat, t.alice, "/dice nonsense")
    assert "/dice long" in (await world.reply(t.chat, sent)).text
    said = world.server.user_sends(t.chat, t.bob, "hi")
    sent = await world.send(t.chat, t.alice, "/dice backgammon", reply_to=said.message_id)
    bob = rolled[alice.side.opponent]
    chart = await world.reply(t.chat, sent, match=lambda m: m.photo is not None)
    assert "Bob" in chart.content and f"Rolls: {bob.rolls};" in chart.content
    # a chat with text boards gets the table as text
    settings = await world.store.games.chat_settings(t.chat.id)
    await world.store.games.save(settings.model_copy(update={"board_style": "text"}),
                                 settings.version)
    sent = await world.send(t.chat, t.alice, "/dice")
    text = await world.reply(t.chat, sent)
    assert text.photo is None and "\n   66 " in text.text and "Alice" in text.text


def test_the_chart_draws_every_verdict() -> None:
    from PIL import Image

    from bot.present.dice import dice_chart
    from bot.present.render.dice import render_dice_chart
    from bot.vocab.i18n import translator

    fair = DiceStats(tuple(10 * (1 if high == low else 2) for high, low in ROLLS))
    loaded = DiceStats(tuple(90 if (high, low) == (6, 6) else 12 for high, low in ROLLS))
    for stats, word in ((fair, "Consistent"), (loaded, "Unusual"), (DiceStats.of([(1, 2)]),
                                                                    "Too few")):
        chart = dice_chart(translator("en"), "Ann", stats)
        assert any(line.startswith(word) for line in chart.summary), chart.summary
        image = Image.open(io.BytesIO(render_dice_chart(chart)))
        assert image.size == (1000, 560)


async def test_an_invitation_commits_its_seed_before_the_link_is_opened(world: World) -> None:
    from tests.bot.edge.handlers.test_invite import _invite, _open, _people, _private_game

    p = _people(world)
    payload = await _invite(world, p, "backgammon")
    invitation = world.server.last_message(p.chat(world, p.alice))
    assert invitation is not None
    await _open(world, p.bob, payload)
    record = await _private_game(world, p)
    assert record.dice is not None and record.dice.fixed
    assert seed_of(record.dice).commitment.short in (invitation.text or "")
    start = world.server.requests("answerCallbackQuery")[-1].params["callback_query_id"]
    assert record.dice.entropy == (f"tg.start={start}",)  # the Start tap (test_fair_kinds.py)
    _rolls_match(record)
