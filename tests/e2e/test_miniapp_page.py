"""The board app as a player sees it, in a real chromium at phone size (390×844, and
320×568 where it says so), both variants: the real page and the real state and rules,
served by a stand-in for the bot (tests/e2e/apphost.py; the whole bot with the app:
tests/e2e/test_miniapp.py).

With ``NARDY_SCREENSHOTS=docs`` the tests save the screenshots docs/miniapp.md shows.
"""

from __future__ import annotations

import functools
import os
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.present.analysis import summary
from bot.present.board import last_turn
from bot.present.webapp import payload
from bot.present.webstate import turn_tree
from bot.rules.analysis import analyse_job, job
from bot.rules.dice import Dealer
from bot.rules.matchstate import table_of
from bot.rules.play import may_double
from bot.rules.taps import tap
from bot.vocab import clock
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.i18n import translator
from bot.vocab.records import GameRecord, Status
from engine.game import Phase
from engine.notation import hits
from engine.position import Side, Variant, opponent_point
from tests.e2e.apphost import (
    ANN,
    BOB,
    EVE,
    AppHost,
    advance,
    moving_after,
    open_page,
    over,
    started,
    until,
)
from tests.e2e.miniapp import cell, click, used_dice, wait_version

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

SCREENSHOTS = os.environ.get("NARDY_SCREENSHOTS")
VARIANTS = [Variant.LONG, Variant.BACKGAMMON]
NARROW = (320, 568)
EN = translator("en")
REASONS = {EN.gettext(m) for m in (
    "That point is blocked.", "Move the checker on the bar first.",
    "Bearing off needs all your checkers in your home.", "That is not your checker.",
    "No die takes that checker there.", "That checker cannot move with these dice.",
    "Only one checker may leave the head in a turn.", "Play all your dice first.")} | {
    EN.gettext("The rules do not allow that move now: both dice must be played if they can "
               "be, the larger one if only one can.")}


@pytest.fixture(scope="module")
def host() -> Iterator[AppHost]:
    with AppHost() as serving:
        yield serving


@pytest.fixture
def driver(chromium: Any) -> Any:
    return chromium


def shot(driver: Any, name: str) -> None:
    if SCREENSHOTS:
        time.sleep(0.9)  # the last turn's slide ends
        driver.save_screenshot(str(Path(SCREENSHOTS) / f"miniapp-{name}.png"))


def calls(driver: Any) -> list[list[str]]:
    found: list[list[str]] = driver.execute_script("return window.tgCalls")
    return found


def js(driver: Any, script: str) -> Any:
    return driver.execute_script(script)


def texts(driver: Any, selector: str) -> list[str]:
    return [e.text for e in driver.find_elements("css selector", selector)]


@functools.cache
def blocked_moment(variant: Variant) -> GameRecord:
    """White to move after Black's turn, where one of White's checkers has a point blocked
    at the distance of a die (an illegal drop whose reason is known)."""
    def done(record: GameRecord) -> bool:
        return moving_after(Side.WHITE)(record) and blocked_pair(record) is not None
    return until(started(variant), done)


def blocked_pair(record: GameRecord) -> tuple[int, int] | None:
    game = table_of(record).game
    position, dice = game.position, game.dice
    if dice is None:
        return None
    need = 1 if game.variant is Variant.LONG else 2
    legal = {(s.source, s.target) for s in game.legal_steps}
    for source in range(24, 0, -1):
        if not position.checkers(Side.WHITE, source):
            continue
        for die in set(dice.steps):
            target = source - die
            if target < 1 or (source, target) in legal:
                continue
            if position.checkers(Side.BLACK, opponent_point(game.variant, target)) >= need \
                    and any(s.source == source for s in game.legal_steps):
                return source, target
    return None


@functools.cache
def ended(variant: Variant) -> GameRecord:
    return until(started(variant), over)


@functools.cache
def blocked_roll(variant: Variant) -> GameRecord:
    """A moment right after a roll that could not be played."""
    seed = {Variant.LONG: 5, Variant.BACKGAMMON: 1}[variant]
    return until(started(variant, seed), lambda r: (lambda t: t is not None and not t.steps)(
        last_turn(table_of(r).game)), seed=seed, limit=400)


@pytest.mark.parametrize("variant", VARIANTS)
def test_each_player_sees_their_own_side_and_numbers(variant: Variant, host: AppHost,
                                                     driver: Any) -> None:
    """Whoever's turn it is and whatever the chat's view: a player's own checkers at the
    bottom, numbered 1..24 from their own home; a spectator sees the chat's view."""
    record = until(started(variant), moving_after(Side.BLACK))  # Bob to move
    host.orientation = "white"  # the chat draws White at the bottom
    try:
        for user, side in ((ANN, 0), (BOB, 1)):
            open_page(driver, host, record, user)
            assert js(driver, "return document.getElementById('bottom').dataset.side") == str(side)
            assert texts(driver, "text.numbers") == [str(n) for n in range(1, 25)]
            # the bottom bar is the viewer's: their name, their colour
            assert driver.find_element("css selector", "#bottom .name").text == (
                "Ann" if user == ANN else "Bob")
            assert "numbers, as on the board" not in driver.find_element("tag name", "body").text
        open_page(driver, host, record, EVE)
        assert js(driver, "return document.getElementById('bottom').dataset.side") == "0"
    finally:
        host.orientation = "follow"


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_opponents_turn_arrives_marked_and_animated(variant: Variant, host: AppHost,
                                                        driver: Any) -> None:
    """Ann waits; Bob's turn arrives live: played again on her board (the checkers slide),
    its origins and checkers marked, its dice and text shown; then her turn is cued, with
    a haptic tap."""
    record = until(started(variant), moving_after(Side.BLACK))
    open_page(driver, host, record, ANN)
    assert texts(driver, "#status .wait") == [EN.gettext("Waiting for {name} to move.",
                                                         name="Bob")]
    moved = advance(record, random.Random(1))  # Bob's turn
    host.put(moved)
    wait_version(driver, moved.version)
    assert int(js(driver, "return document.body.dataset.animated")) >= 1
    assert driver.find_elements("css selector", ".last-to")
    assert driver.find_elements("css selector", "[data-last-from]")
    assert "Bob played" in driver.find_element("css selector", "#status .last").text
    # its dice, beside Bob's name
    roll = last_turn(table_of(moved).game).dice  # type: ignore[union-attr]
    assert roll is not None
    assert texts(driver, "#top .roll .face") == [str(roll.first), str(roll.second)]
    assert js(driver, "return document.body.dataset.cue") == "1"
    assert ["haptic", "impact:medium"] in calls(driver)
    assert "acting" in driver.find_element("id", "bottom").get_attribute("class")
    cue = driver.find_element("css selector", "#status .cue").text
    assert cue.startswith("Your turn")
    if table_of(moved).game.phase is Phase.ROLL:  # backgammon: Bob's dice on the board
        assert driver.find_elements("css selector", "#last-dice rect.die")
    # the highlights are all under the checkers (drawn before them) or rings around
    # them: nothing is painted over a checker's face
    over = js(driver, "return [...document.querySelectorAll('#checkers ~ *')].filter((e) => "
                      "!e.matches('#hits, .last-to, .last-hit, .hit-mark, .cube, #cube, .dice, "
                      "#last-dice')).map((e) => e.outerHTML)")
    assert over == []


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_drag_lights_its_targets_and_an_illegal_drop_says_why(variant: Variant,
                                                                host: AppHost,
                                                                driver: Any) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    record = blocked_moment(variant)
    pair = blocked_pair(record)
    assert pair is not None
    source, target = pair
    open_page(driver, host, record, ANN)
    # the board fills the phone's width; each point's area is a finger's height at least
    width = js(driver, "return document.getElementById('board-svg').getBoundingClientRect()"
                       ".width")
    assert width >= 380
    assert min(js(driver, "return [...document.querySelectorAll('[data-cell]')].map((e) => "
                          "e.getBoundingClientRect().height)")) >= 44
    # picked up: its targets lit at once, under the checkers
    chain = ActionChains(driver).click_and_hold(cell(driver, source)).move_by_offset(2, 2)
    chain.perform()
    lit = js(driver, "return [...document.querySelectorAll('#under [data-lit^=\"target:\"]')]"
                     ".map((e) => e.dataset.lit)")
    assert lit, "no target lit while the checker is held"
    assert driver.find_elements("id", "drag-ghost")
    ActionChains(driver).move_to_element(cell(driver, target)).release().perform()
    assert driver.find_element("css selector", "#status .note").text == EN.gettext(
        "That point is blocked.")
    assert ["haptic", "error"] in calls(driver)
    assert used_dice(driver) == 0
    # a legal drag plays its step
    legal = next(t for t in lit)
    ActionChains(driver).click_and_hold(cell(driver, source)).move_by_offset(2, 2) \
        .move_to_element(cell(driver, legal.split(":")[1])).release().perform()
    assert used_dice(driver) == 1
    assert not driver.find_elements("css selector", "#status .note")
    # the screenshot: a checker tapped, its targets lit, after Bob's turn
    click(driver, '[data-action="undo"]')
    click(driver, f'[data-cell="{source}"]')
    shot(driver, "long" if variant is Variant.LONG else "backgammon")


def test_illegal_drop_reasons_are_known_words(host: AppHost, driver: Any) -> None:
    """Every refusal the page can say is one of the catalog's reasons (none made up)."""
    record = blocked_moment(Variant.BACKGAMMON)
    open_page(driver, host, record, ANN)
    click(driver, '[data-cell="off"]')  # nothing picked: a tap on the tray does nothing
    assert not driver.find_elements("css selector", "#status .note")
    # a checker picked, then a tap on the opponent's point: a reason from the catalog
    game = table_of(record).game
    theirs = next(label for label in range(1, 25) if game.position.checkers(
        Side.BLACK, 25 - label) >= 2)
    source = next(s.source for s in game.legal_steps)
    click(driver, f'[data-cell="{source}"]')
    click(driver, f'[data-cell="{theirs}"]')
    note = driver.find_element("css selector", "#status .note").text
    assert note in REASONS, note


@pytest.mark.parametrize("variant", VARIANTS)
def test_confirm_is_telegrams_main_button_and_undo_beside_it(variant: Variant, host: AppHost,
                                                             driver: Any) -> None:
    record = until(started(variant), moving_after(Side.WHITE))
    open_page(driver, host, record, ANN, telegram_buttons=True)
    assert ["expand"] in calls(driver) and ["disableVerticalSwipes"] in calls(driver)
    main = js(driver, "return Telegram.WebApp.MainButton.params")
    second = js(driver, "return Telegram.WebApp.SecondaryButton.params")
    assert (main["text"], main["is_active"]) == ("Confirm", False)
    assert (second["text"], second["is_active"]) == ("Undo", False)
    assert not driver.find_elements("css selector", '#controls [data-action="confirm"]')
    game = table_of(record).game
    tree = turn_tree(game, Side.WHITE)
    node = 0
    while not tree[node]["complete"]:
        step = tree[node]["steps"][0]
        click(driver, f'[data-cell="{step["from"]}"]')
        click(driver, f'[data-cell="{step["to"]}"]')
        node = step["next"]
    assert js(driver, "return Telegram.WebApp.MainButton.params.is_active") is True
    assert js(driver, "return Telegram.WebApp.SecondaryButton.params.is_active") is True
    sent = [name for name, _ in host.requests].count("turn")
    js(driver, "Telegram.WebApp.MainButton.click()")
    wait_version(driver, record.version + 1)
    assert [name for name, _ in host.requests].count("turn") == sent + 1


@pytest.mark.parametrize("variant", VARIANTS)
def test_resign_is_in_the_menu_and_confirmed_with_its_cost(variant: Variant, host: AppHost,
                                                           driver: Any) -> None:
    record = until(started(variant, stake_per_point=10), moving_after(Side.WHITE))
    open_page(driver, host, record, ANN)
    # nothing but the turn's buttons beside the board: resign is in the ⋯ menu
    assert texts(driver, "#controls button") == ["Confirm", "Undo"]
    click(driver, '[data-action="menu"]')
    labels = texts(driver, '#menu [data-action^="resign-"]')
    assert labels and all(label.startswith("Resign, losing ") for label in labels), labels
    words = set(" ".join(labels).replace(",", " ").split())
    assert not words & {"oin", "mars", "koks", "gammon", "backgammon"}, labels
    click(driver, '[data-action="resign-1"]')
    ask = driver.find_element("id", "dialog").text
    assert "Ann pays Bob 10" in ask, ask
    click(driver, '[data-action="popup-ok"]')
    wait_version(driver, record.version + 1)
    assert texts(driver, "#status .wait") == [EN.gettext(
        "{name} is deciding on your offer to resign.", name="Bob")]


def test_cube_actions_in_plain_words(host: AppHost, driver: Any) -> None:
    """Roll beside "Double to 2"; the double asked once; the answer is "Accept: play for
    2" or "Pass (lose 1 point)"; the doubler waits, and is told so."""
    record = until(started(Variant.BACKGAMMON), lambda r: (
        table_of(r).game.phase is Phase.ROLL and table_of(r).game.to_act is Side.WHITE
        and len(table_of(r).game.events) > 4))
    open_page(driver, host, record, ANN)
    assert texts(driver, "#controls button") == ["Roll", "Double to 2"]
    click(driver, '[data-action="double"]')
    click(driver, '[data-action="popup-ok"]')
    wait_version(driver, record.version + 1)
    assert texts(driver, "#status .wait") == ["Bob is deciding on your double."]
    open_page(driver, host, host.games[payload(record.chat_id, record.game_id)], BOB)
    assert texts(driver, "#controls button") == ["Accept: play for 2", "Pass (lose 1 point)"]
    assert driver.find_element("css selector", "#status .cue").text == \
        "Ann doubles to 2: accept or pass?"
    shot(driver, "double")


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_blocked_roll_is_drawn(variant: Variant, host: AppHost, driver: Any) -> None:
    record = blocked_roll(variant)
    last = last_turn(table_of(record).game)
    assert last is not None
    user = BOB if last.side is Side.WHITE else ANN  # the other player sees it
    open_page(driver, host, record, user)
    status = driver.find_element("id", "status").text
    assert "cannot move" in status, status
    assert driver.find_element("id", "blocked").text == "no legal move"
    assert len(driver.find_elements("css selector", "#last-dice rect.die")) == 2


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("size", [(390, 844), NARROW], ids=["390", "320"])
def test_the_result_screen(variant: Variant, size: tuple[int, int], host: AppHost,
                           driver: Any) -> None:
    record = ended(variant)
    result = table_of(record).game.result
    assert result is not None
    winner = ANN if result.winner is Side.WHITE else BOB
    loser = BOB if winner == ANN else ANN
    # the headline is who won as the viewer sees it; the line under it says how and
    # names nobody ("You won!" above "Bob wins: …" read as a contradiction)
    name = "Ann" if winner == ANN else "Bob"
    for user, headline in ((loser, "You lost"), (EVE, f"🏆 {name} wins"),
                           (winner, "🏆 You won!")):
        open_page(driver, host, record, user, size=size)
        assert driver.find_element("css selector", "#result h2").text == headline
        how = driver.find_element("css selector", "#result h2 + p").text
        assert "wins" not in how and "Ann" not in how and "Bob" not in how, how
        assert bool(driver.find_elements("css selector", '#result [data-action="rematch"]')) \
            is (user != EVE)
    box = driver.find_element("id", "result")
    assert box.is_displayed()
    body = driver.find_element("tag name", "body").text
    assert "/verify" not in body and "newest message" not in body
    click(driver, '#result [data-action="new-game"]')  # a lobby is the group's
    links = [c for c in calls(driver) if c[0] == "openTelegramLink"]
    assert links == [["openTelegramLink", "https://t.me/c/1234567890/77"]]
    click(driver, "#verify summary")
    seed = driver.find_element("css selector", "#result .seed")
    assert seed.is_displayed() and "Seed:" in seed.text
    assert js(driver, "const r = document.getElementById('result');"
                      "return r.scrollWidth <= r.clientWidth")
    assert js(driver, "return document.documentElement.scrollWidth") <= size[0]
    click(driver, "#verify summary")
    if size == (390, 844) and variant is Variant.LONG:
        shot(driver, "result")


@pytest.mark.parametrize("variant", VARIANTS)
def test_dark_theme_keeps_black_black(variant: Variant, host: AppHost, driver: Any) -> None:
    record = until(started(variant), moving_after(Side.WHITE))
    open_page(driver, host, record, BOB, dark=True)
    assert js(driver, "return getComputedStyle(document.body).backgroundColor") == \
        "rgb(23, 33, 43)"
    fills = js(driver, "return [...document.querySelectorAll('circle.checker-1')]"
                       ".map((e) => getComputedStyle(e).fill)")
    assert fills and set(fills) == {"rgb(27, 27, 27)"}
    assert js(driver, "return getComputedStyle(document.querySelector("
                      "'#bottom .disc')).backgroundColor") == "rgb(27, 27, 27)"
    if variant is Variant.BACKGAMMON:
        shot(driver, "dark")


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_narrow_phone_fits_without_wrapping(variant: Variant, host: AppHost,
                                              driver: Any) -> None:
    record = until(started(variant, match_length=5), moving_after(Side.WHITE))
    record = record.model_copy(update={"players": (
        record.players[0].model_copy(update={"name": "Alexandra Konstantinopolskaya"}),
        record.players[1]), "deadline": clock.now() + 5 * 3600 + 120})
    open_page(driver, host, record, ANN, size=NARROW)
    for bar in ("top", "bottom"):
        height = js(driver, f"return document.getElementById('{bar}').offsetHeight")
        assert height <= 42, (bar, height)
        assert js(driver, f"const e = document.querySelector('#{bar} .facts');"
                          "return e.scrollWidth <= e.clientWidth + 1")
        assert driver.find_element("css selector", f"#{bar} .score").text.endswith("/5")
    assert driver.find_element("css selector", "#bottom .clock").text.startswith("5h 0")
    assert js(driver, "return document.documentElement.scrollWidth") <= NARROW[0]
    # the board, the bars, the status and the buttons on one screen
    bottom = js(driver, "return document.getElementById('controls')"
                        ".getBoundingClientRect().bottom")
    assert bottom <= NARROW[1], bottom
    if variant is Variant.LONG:
        shot(driver, "320")


@pytest.mark.parametrize("language", ["ru", "lt"])
def test_the_users_language_from_the_bots_catalogs(language: str, host: AppHost,
                                                   driver: Any) -> None:
    record = until(started(Variant.BACKGAMMON), moving_after(Side.WHITE))
    open_page(driver, host, record, ANN, language=language)
    tr = translator(language)
    assert texts(driver, "#controls button") == [tr.gettext("Confirm"), tr.gettext("Undo")]
    assert driver.find_element("css selector", "#status .cue").text == tr.gettext(
        "Your turn: move.")
    assert js(driver, "return document.documentElement.lang") == language


@functools.cache
def crowded() -> GameRecord:
    """Backgammon with the cube owned (doubled and taken) and checkers on the bar."""
    rng = random.Random(11)
    record = started(Variant.BACKGAMMON)
    doubled = False
    for _ in range(3000):
        game = table_of(record).game
        if doubled and game.cube is not None and game.cube.owner is not None \
                and game.phase is Phase.ROLL and (game.position.checkers(Side.WHITE, 25)
                                                  or game.position.checkers(Side.BLACK, 25)):
            return record
        wants = not doubled and game.phase is Phase.ROLL and may_double(record,
                                                                        table_of(record))
        record = advance(record, rng, double=wants)
        doubled = doubled or wants
        if record.status is not Status.ACTIVE:
            record, doubled = started(Variant.BACKGAMMON, seed=rng.randrange(100)), False
    raise AssertionError("no such moment")


def on_the_bar(record: GameRecord) -> bool:
    position = table_of(record).game.position
    return bool(position.checkers(Side.WHITE, 25) or position.checkers(Side.BLACK, 25))


@pytest.mark.parametrize("size", [(390, 844), NARROW], ids=["390", "320"])
def test_bar_cube_and_borne_off_never_overlap(size: tuple[int, int], host: AppHost,
                                              driver: Any) -> None:
    """The cube owned (at its owner's edge of the bar) or centred, checkers on the bar."""
    centred = until(started(Variant.BACKGAMMON), on_the_bar)
    for record, user in ((crowded(), ANN), (crowded(), BOB), (centred, ANN)):
        open_page(driver, host, record, user, size=size)
        boxes = js(driver, """const box = (e) => { const r = e.getBoundingClientRect();
            return [r.left, r.top, r.right, r.bottom]; };
            return { bar: [...document.querySelectorAll('[data-at="bar"]')].map(box),
                     off: [...document.querySelectorAll('[data-at="off"]')].map(box),
                     cube: [...document.querySelectorAll('rect.cube')].map(box) }""")
        assert boxes["bar"] and boxes["cube"], boxes
        pieces = [b for kind in ("bar", "off", "cube") for b in boxes[kind]]
        for i, a in enumerate(pieces):
            for b in pieces[i + 1:]:
                overlap = min(a[2], b[2]) - max(a[0], b[0]), min(a[3], b[3]) - max(a[1], b[1])
                assert min(overlap) <= 0.5, (a, b)


def test_the_next_game_opens_in_the_app(host: AppHost, driver: Any) -> None:
    """A rematch accepted in the chat: the result screen opens the new game in place."""
    following = until(started(Variant.LONG, seed=4), moving_after(Side.WHITE))
    record = ended(Variant.LONG).model_copy(update={"next_game": following.game_id})
    assert following.game_id != record.game_id
    host.put(following)
    open_page(driver, host, record, ANN)
    click(driver, '#result [data-action="next-game"]')
    wait_version(driver, following.version)
    assert js(driver, "return document.body.dataset.status") == "active"
    assert following.game_id in js(driver, "return location.search")
    assert driver.find_elements("css selector", "#status .cue")


def test_a_hit_is_marked_beside_the_board_not_over_a_checker(host: AppHost,
                                                             driver: Any) -> None:
    def hit_by_black(record: GameRecord) -> bool:
        last = last_turn(table_of(record).game)
        return (moving_after(Side.WHITE)(record) and last is not None
                and last.side is Side.BLACK and any(hits(last.start, last.steps)))

    record = until(started(Variant.BACKGAMMON), hit_by_black)
    open_page(driver, host, record, ANN)
    assert driver.find_elements("css selector", "[data-hit]")
    assert driver.find_elements("css selector", '.last-hit[data-ring="bar"]')
    touching = js(driver, """const box = (e) => e.getBoundingClientRect();
        const marks = [...document.querySelectorAll('[data-hit]')].map(box);
        return [...document.querySelectorAll('.checker')].map(box).filter((c) => marks.some(
          (m) => Math.min(m.right, c.right) - Math.max(m.left, c.left) > 0.5
              && Math.min(m.bottom, c.bottom) - Math.max(m.top, c.top) > 0.5)).length""")
    assert touching == 0


# ---- touch: every candidate a finger's width (44 px), though a point is ~22-27 px ----

TOUCH = 44
EDGE = 18  # px beside a point's centre: inside its neighbour's column, inside its own reach


def _neighbours(label: int) -> list[tuple[int, int]]:
    """The points beside ``label`` in its half of the board, each with the screen side it
    lies on (+1 right, -1 left): a row's labels run 13..24 left to right on top and 12..1
    on the bottom, the bar between 18|19 and 7|6."""
    found = []
    for other in (label - 1, label + 1):
        if not 1 <= other <= 24 or (label > 12) != (other > 12) or {label, other} in (
                {18, 19}, {6, 7}):
            continue
        right = other > label if label > 12 else other < label
        found.append((other, 1 if right else -1))
    return found


def edge_pair(record: GameRecord) -> tuple[int, int, int, int] | None:
    """A source and one of its targets (Ann's numbers), each with a side where the
    neighbouring point is no candidate (picking up: no other source; dropping: no other
    target, nor a source, nor where it came from): ``(source, side, target, side)``."""
    game = table_of(record).game
    if game.phase is not Phase.MOVE or game.to_act is not Side.WHITE:
        return None
    steps = turn_tree(game, Side.WHITE)[0]["steps"]
    sources = {s["from"] for s in steps}
    for source in sorted(s for s in sources if isinstance(s, int)):
        picks = [side for other, side in _neighbours(source) if other not in sources]
        targets = {s["to"] for s in steps if s["from"] == source}
        for target in sorted(t for t in targets if isinstance(t, int)):
            drops = [side for other, side in _neighbours(target)
                     if other not in sources | targets | {source}]
            if picks and drops:
                return source, picks[0], target, drops[0]
    return None


@functools.cache
def edge_moment(variant: Variant) -> GameRecord:
    return until(started(variant), lambda r: moving_after(Side.WHITE)(r)
                 and edge_pair(r) is not None)


def at_edge(driver: Any, label: int, side: int) -> Any:
    """Actions moved to ``EDGE`` px beside ``label``'s centre, towards ``side``."""
    from selenium.webdriver.common.action_chains import ActionChains

    return ActionChains(driver).move_to_element_with_offset(cell(driver, label), side * EDGE, 0)


def mine_on(driver: Any, label: int) -> int:
    return len(driver.find_elements("css selector", f'circle.checker-0[data-at="{label}"]'))


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("size", [(390, 844), NARROW], ids=["390", "320"])
def test_a_tap_beside_a_point_reaches_the_candidate(variant: Variant, size: tuple[int, int],
                                                   host: AppHost, driver: Any) -> None:
    """A tap 18 px beside a point's centre, over the neighbouring point (no candidate),
    picks up the checker; then a tap 18 px beside a lit target lands there; and a drag
    from beside the checker to beside the target plays the same step."""
    record = edge_moment(variant)
    pair = edge_pair(record)
    assert pair is not None
    source, pick, target, drop = pair
    open_page(driver, host, record, ANN, size=size)
    column = js(driver, f"return document.querySelector('[data-cell=\"{source}\"]')"
                        ".getBoundingClientRect().width")
    assert column < EDGE * 2, column  # the finger is over the neighbouring point
    before = mine_on(driver, target)
    at_edge(driver, source, pick).click().perform()
    assert driver.find_elements("css selector", f'[data-lit="chosen:{source}"]')
    assert not driver.find_elements("css selector", "#status .note")
    at_edge(driver, target, drop).click().perform()
    assert used_dice(driver) == 1
    assert mine_on(driver, target) == before + 1
    assert not driver.find_elements("css selector", "#status .note")
    click(driver, '[data-action="undo"]')
    assert used_dice(driver) == 0
    # dragged: pressed beside the checker, released beside the target
    at_edge(driver, source, pick).click_and_hold().move_by_offset(0, 30).perform()
    assert driver.find_elements("id", "drag-ghost")
    at_edge(driver, target, drop).release().perform()
    assert used_dice(driver) == 1
    assert mine_on(driver, target) == before + 1


REACH = """const box = (e) => { const r = e.getBoundingClientRect();
  return [r.left, r.top, r.right, r.bottom]; };
return { reach: [...document.querySelectorAll('#reach [data-reach]')].map(
           (e) => [e.dataset.reach, ...box(e)]),
         cells: Object.fromEntries([...document.querySelectorAll('#hits [data-cell]')].map(
           (e) => [e.dataset.cell, box(e)])),
         landing: [...document.querySelectorAll('#under [data-landing]')].map(
           (e) => [e.dataset.landing, ...box(e)]) }"""


def check_reach(driver: Any, candidates: set[str]) -> None:
    """Each candidate's touch area, measured in the page: its whole half of the board
    tall (≥ 44 px), and reaching 22 px to each side of its centre, or half-way to the
    next candidate's centre where that is nearer; its landing marker as wide."""
    found = js(driver, REACH)
    areas = found["reach"]
    assert {a[0] for a in areas} == candidates
    centre = {c: (b[0] + b[2]) / 2 for c, b in found["cells"].items()}
    width: dict[str, float] = {}
    for name, left, top, right, bottom in areas:
        assert bottom - top >= TOUCH, (name, bottom - top)
        row = [c for c, _, t, _, _ in areas if abs(t - top) < 1 and c != name]
        x = centre[name]
        lefts = [x - centre[c] for c in row if centre[c] < x]
        rights = [centre[c] - x for c in row if centre[c] > x]
        board_left, board_right = found["cells"]["13"][0], found["cells"]["off"][2]
        want_left = min([TOUCH / 2, x - board_left - 4] + [d / 2 for d in lefts])
        want_right = min([TOUCH / 2, board_right - x] + [d / 2 for d in rights])
        assert x - left >= want_left - 0.5 and right - x >= want_right - 0.5, (name, x, left,
                                                                               right, row)
        width[name] = min(width.get(name, right - left), right - left)
    for name, left, _, right, _ in found["landing"]:
        assert right - left >= min(TOUCH, width[name]) - 1.5, (name, right - left, width[name])


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("size", [(390, 844), NARROW], ids=["390", "320"])
def test_each_candidates_touch_area_is_a_fingers_width(variant: Variant,
                                                        size: tuple[int, int],
                                                        host: AppHost, driver: Any) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    record = edge_moment(variant)
    open_page(driver, host, record, ANN, size=size)
    steps = turn_tree(table_of(record).game, Side.WHITE)[0]["steps"]
    sources = {str(s["from"]) for s in steps}
    check_reach(driver, sources)  # nothing picked: the checkers that may move
    source = next(s["from"] for s in steps)
    targets = {str(s["to"]) for s in steps if s["from"] == source}
    click(driver, f'[data-cell="{source}"]')  # tapped: its targets and the other checkers
    check_reach(driver, sources | targets)
    assert {c[0] for c in js(driver, REACH)["landing"]} == targets - {"off"}
    click(driver, f'[data-cell="{source}"]')  # put back
    ActionChains(driver).click_and_hold(cell(driver, source)).move_by_offset(0, 30).perform()
    check_reach(driver, targets | {str(source)})  # held: where it may be dropped
    ActionChains(driver).release().perform()


def result_text(driver: Any) -> str:
    text: str = driver.find_element("id", "result").text
    return text


def test_a_rematch_offered_and_followed_in_the_app(host: AppHost, driver: Any) -> None:
    """Ann offers a rematch from the result screen (the board's own rule), waits for
    Bob, who is told to accept on the chat's board (his tap there is the new match's
    dice entropy) and may decline in the app; offered again and accepted in the chat,
    Ann's open app goes on into the new game."""
    record = ended(Variant.LONG)
    key = payload(record.chat_id, record.game_id)
    open_page(driver, host, record, ANN)
    click(driver, '#result [data-action="rematch"]')
    wait_version(driver, record.version + 1)
    offered = host.games[key]
    assert offered.rematch_by == ANN and offered.next_dice is not None  # its seed committed
    assert EN.gettext("Waiting for {name} to accept the rematch.", name="Bob") \
        in result_text(driver)
    assert not driver.find_elements("css selector", '#result [data-action="rematch"]')
    assert driver.find_elements("css selector", '#result [data-action="withdraw"]')
    # Bob: accept in the chat (it opens the board), or decline here
    open_page(driver, host, offered, BOB)
    assert EN.gettext("{name} offers a rematch.", name="Ann") in result_text(driver)
    click(driver, '#result [data-action="accept-in-chat"]')
    assert calls(driver)[-1] == ["openTelegramLink", "https://t.me/c/1234567890/77"]
    assert host.games[key].version == offered.version  # nothing accepted by the app
    click(driver, '#result [data-action="decline"]')
    wait_version(driver, offered.version + 1)
    assert host.games[key].rematch_by is None
    assert driver.find_elements("css selector", '#result [data-action="rematch"]')
    # offered again; Bob accepts on the chat's board: Ann's open app follows
    open_page(driver, host, host.games[key], ANN)
    click(driver, '#result [data-action="rematch"]')
    wait_version(driver, offered.version + 2)
    again = host.games[key]
    accepted = tap(again, BOB, "Bob", Callback.game(again.game_id, again.version,
                                                   ButtonAction.ACCEPT),
                   Dealer.for_tests(9).tapped("4411"), own_board=False)
    assert accepted.game_id != again.game_id
    host.saved(again, accepted)
    wait_version(driver, 1)  # the new game's first version
    assert accepted.game_id in js(driver, "return location.search")
    assert js(driver, "return document.body.dataset.status") == "active"
    assert not driver.find_element("id", "result").is_displayed()


@pytest.mark.parametrize("size", [(390, 844), NARROW], ids=["390", "320"])
def test_the_analysis_in_the_app(size: tuple[int, int], host: AppHost, driver: Any) -> None:
    """📊 Analysis on the result screen shows each player's figures in the app, as the
    bot's analysis words them (errors, luck, error rate), wrapped to the screen."""
    from selenium.webdriver.support.ui import WebDriverWait

    record = ended(Variant.LONG)
    open_page(driver, host, record, BOB, size=size)
    click(driver, '#result [data-action="analysis"]')
    WebDriverWait(driver, 60).until(lambda d: d.find_elements("css selector", "#analysis h3"))
    expected = summary(EN, record, analyse_job(job(record)))
    players = expected["players"]
    assert isinstance(players, list)
    assert texts(driver, "#analysis h3") == [p["name"] for p in players] == ["Ann", "Bob"]
    shown = texts(driver, "#analysis > p")
    for player in players:
        for line in player["lines"]:
            assert line in shown, (line, shown)
    assert any(line.startswith("Error rate: ") for line in shown)
    assert any("doubtful" in line for line in shown) and any("Luck" in line for line in shown)
    assert texts(driver, "#analysis li") == [w for p in players for w in p["worst"]]
    assert js(driver, "const a = document.getElementById('analysis');"
                      "return a.scrollWidth <= a.clientWidth")
    assert not [c for c in calls(driver) if c[0] == "openTelegramLink"]
    if size == (390, 844):
        shot(driver, "analysis")
    click(driver, '[data-action="analysis-close"]')
    assert not driver.find_element("id", "analysis").is_displayed()


def test_the_matchs_next_game_accepted_in_the_app(host: AppHost, driver: Any) -> None:
    """Between two games of a match: Bob offers the next game, Ann accepts it in the app
    (the match's dice: nothing to mix in) and goes on into it."""
    from selenium.webdriver.support.ui import WebDriverWait

    record = until(started(Variant.BACKGAMMON, match_length=15), over)
    assert not table_of(record).match_over
    key = host.put(record)
    open_page(driver, host, record, BOB)
    assert texts(driver, '#result [data-action="rematch"]') == ["Next game"]
    click(driver, '#result [data-action="rematch"]')
    wait_version(driver, record.version + 1)
    assert EN.gettext("Waiting for {name} to accept the next game.", name="Ann") \
        in result_text(driver)
    open_page(driver, host, host.games[key], ANN)
    assert EN.gettext("{name} offers the next game.", name="Bob") in result_text(driver)
    click(driver, '#result [data-action="accept"]')
    # the tap's request runs while the test goes on: wait for its record (a hang guard)
    WebDriverWait(driver, 30).until(lambda _: host.games[key].next_game is not None)
    following = host.games[key].next_game
    wait_version(driver, 1)
    assert following is not None and following in js(driver, "return location.search")
    assert js(driver, "return document.body.dataset.status") == "active"
