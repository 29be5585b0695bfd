"""One exchange, one language; a button named as it reads (issue 35).

A group's boards and lobbies are drawn in one language (its /lang, else its
first game's); its members may each speak another.  What answers a member
(an alert on their tap, a reply to their command, a private notice) may be
in their language, but a button it names is named as the keyboard reads
it, and a command's answer and the result it announces are in one language.
Every test here ends with the sweep: no text the bot sent (messages,
captions, alerts) spells a button in a language its keyboards are not in."""

from __future__ import annotations

import re

from bot.vocab.i18n import BUTTONS, LANGUAGES, translator
from tests.bot.conftest import World
from tests.bot.edge.handlers.test_analysis import _analyses, _finished
from tests.bot.edge.handlers.test_handlers import Table
from tests.bot.edge.handlers.test_tournament import Club, current, tournament
from tests.botapi import BotApiServer

QUOTED = re.compile(r"«([^»]*)»|„([^“]*)“|\"([^\"]*)\"")


def _spelled(server: BotApiServer, drawn: str) -> list[tuple[str, str]]:
    """(text, label) for each text the bot sent that names one of our buttons
    in a language other than ``drawn``, the one its keyboards are in."""
    others = {lang: {translator(lang).label(name) for name in BUTTONS}
              | {translator(lang).gettext(text) for _, text in BUTTONS.values()}
              for lang in LANGUAGES if lang != drawn}
    ours = {translator(drawn).label(name) for name in BUTTONS}
    found = []
    for request in server.requests():
        for key in ("text", "caption"):
            text = request.params.get(key)
            if not isinstance(text, str):
                continue
            for groups in QUOTED.findall(text):
                quoted = next(g for g in groups if g) if any(groups) else ""
                if quoted not in ours and any(quoted in words for words in others.values()):
                    found.append((text, quoted))
    return found


async def test_a_lobby_alert_names_join_as_the_lobby_reads(world: World) -> None:
    s = world.server
    alice, ivan = s.add_user("Alice"), s.add_user("Ivan", language_code="ru")
    club = s.add_group("Club", members=[alice, ivan])
    sent = await world.send(club, alice, "/new long")
    lobby = await world.reply(club, sent, "New game")
    await world.tap(club, alice, lobby, text="✋ Join")
    answer = await world.tap(club, ivan, lobby, text="🤖 Play the bot")
    # in Ivan's language, naming the button he sees
    assert answer.show_alert and "«✋ Join»" in (answer.text or ""), answer
    assert "Играю" not in (answer.text or "")
    assert _spelled(s, "en") == []


async def test_analyze_answers_and_posts_in_one_language(world: World) -> None:
    s = world.server
    alice, bob = s.add_user("Alice"), s.add_user("Bob")
    ivan = s.add_user("Ivan", language_code="ru")
    t = Table(s.add_group("Club", members=[alice, bob, ivan]), alice, bob, ivan)
    await _finished(world, t, taps=4)  # the boards are English (Alice's first game)
    sent = await world.send(t.chat, ivan, "/analyze")
    said = await world.reply(t.chat, sent)
    assert said.text == "📊 Analysing the game…"  # not «Анализирую…» beside an English one
    await world.reply(t.chat, sent, match=lambda m: m.photo is not None)
    assert [(m.caption or "").split("\n")[0].startswith("📊 Analysis")
            for m in _analyses(world, t)] == [True]
    assert _spelled(s, "en") == []


async def test_tournament_notices_name_start_as_the_boards_read(world: World) -> None:
    s = world.server
    players = [s.add_user("Ann"), s.add_user("Ivan", language_code="ru"),
               s.add_user("Jonas", language_code="lt")]
    for player in players:  # the bot may write to them
        mine = s.private_chat(player)
        await world.reply(mine, await world.send(mine, player, "/start"))
    c = Club(s.add_group("Club", members=players), players)
    record = await tournament(world, c, "rr long")
    assert record.announced == 1
    await world.idle()
    notices = {p.first_name: [m.text or "" for m in s.messages(s.private_chat(p))
                              if m.by_bot and "🏆" in (m.text or "")] for p in players}
    told = [(name, text) for name, texts in notices.items() for text in texts if "▶" in text]
    assert len(told) == 2, notices  # the two paired this round (the third has a bye)
    # each in its reader's language, the board's button as the boards read: English
    opening = {"Ann": "You play", "Ivan": "Ваш соперник", "Jonas": "Jūsų varžovas"}
    assert all(opening[name] in text and "▶ Start" in text for name, text in told), told
    assert not any("Начать" in text or "Pradėti" in text for _, text in told), told
    assert (await current(world, c)).status.value == "active"
    # a seated player's /cancel is refused, naming the board's ▶ Start as it reads
    seated = next(p for p in players[1:] if any(name == p.first_name for name, _ in told))
    said = await world.reply(c.chat, await world.send(c.chat, seated, "/cancel"))
    assert "▶ Start" in (said.text or ""), said.text
    assert _spelled(s, "en") == []


async def test_a_lobbys_commitment_is_in_the_lobbys_language(world: World) -> None:
    """A lobby keeps its whole commitment itself (issue 35: no "Dice of the
    next game committed" beside it), in the lobby's language, not in its
    commander's."""
    s = world.server
    alice, ivan = s.add_user("Alice"), s.add_user("Ivan", language_code="ru")
    club = s.add_group("Club", members=[alice, ivan])
    await world.reply(club, await world.send(club, alice, "/new long"), "New game")
    sent = await world.send(club, ivan, "/new backgammon")
    await world.reply(club, sent, "New game")  # the board's language: English
    await world.idle()
    kept = [m.text or "" for m in s.messages(club) if m.by_bot and "🎲" in (m.text or "")]
    assert len(kept) == 2 and all("New game" in k and "Dice committed" in k for k in kept), kept
    assert _spelled(s, "en") == []
