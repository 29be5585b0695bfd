"""Boards and texts that tell the truth (issue 26): every played turn names
its roll, and every move printed (the caption's last turn, the picture's
footer, the text board's "Last:" line, the move buttons) is written in the
point numbers printed on the picture its reader sees, in both variants, for
both players, whichever side is drawn at the bottom, on a group's board and
on a player's own board.

The check does not trust the renderer's numbering: it finds where the
mover's checkers left and arrived by comparing the screen cells they occupy
before and after the turn, reads the numbers the picture prints at those
cells, and compares them with the text."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator

import pytest

from bot.present.board import board_message
from bot.present.render import BoardView, format_last_turn, render_text
from bot.present.render.png import printed_numbers
from bot.present.render.view import HALF, label_at, occupant
from bot.vocab.i18n import translator
from engine import Game, Phase, Side, Variant
from engine.game import Action, GameOptions
from engine.position import BAR, Position
from tests.bot.present.test_board_style import _record

LANGS = ("en", "ru", "lt")
BAR_CELL, OFF_CELL = "bar", "off"
ORIENTATIONS = ("follow", "white", "black")


def _games(variant: Variant, seed: int, count: int) -> Iterator[Game]:
    """Games of ``variant`` just after a confirmed turn (the next player to
    roll, or to move with one step played)."""
    rng = random.Random(seed)
    options = GameOptions.long() if variant is Variant.LONG else GameOptions.backgammon()
    found = 0
    while found < count:
        game = Game.new(options)
        turns = rng.randrange(1, 40)
        while not game.is_over and turns:
            if game.phase in (Phase.OPENING, Phase.ROLL):
                game = game.roll(rng)
            elif game.turn is not None and game.turn.is_complete:
                game = game.confirm()
                turns -= 1
            else:
                game = game.play_step(rng.choice(sorted(
                    game.legal_steps, key=lambda s: (s.source, s.target, s.die))))
        if game.is_over or game.last_start is None:
            continue
        if game.phase is Phase.ROLL and rng.random() < 0.5:
            game = game.roll(rng)
            if game.phase is Phase.MOVE and game.legal_steps and not game.turn.is_complete:
                game = game.play_step(min(game.legal_steps, key=lambda s: (s.source, s.die)))
        found += 1
        yield game


def _cells(view: BoardView, position: Position, side: Side) -> Counter[str | tuple[int, int]]:
    """``side``'s checkers per screen cell of ``view`` drawn with ``position``
    (plus the bar and the tray)."""
    drawn = BoardView(position, view.viewer)
    found: Counter[str | tuple[int, int]] = Counter()
    for row in (0, 1):
        for column in range(2 * HALF):
            owner, count = occupant(drawn, label_at(row, column))
            if owner is side:
                found[(row, column)] = count
    found[BAR_CELL] = position.checkers(side, BAR)
    found[OFF_CELL] = position.borne_off(side)
    return found


def _flow_on_screen(view: BoardView, after: Position) -> Counter[str | tuple[int, int]]:
    """Per screen cell: how many of the last mover's checkers arrived there
    (negative: left), from the positions before and ``after`` the turn alone."""
    last = view.last_turn
    assert last is not None and last.start is not None
    flow = _cells(view, after, last.side)
    flow.subtract(_cells(view, last.start, last.side))
    return Counter({cell: n for cell, n in flow.items() if n})


def _flow_in_text(text: str, view: BoardView) -> Counter[str | tuple[int, int]]:
    """Per screen cell: the net arrivals that ``text`` (``24/18 13/10*(2)``)
    names, its numbers read as the picture prints them."""
    numbers = printed_numbers(view)
    where = {numbers[row][column]: (row, column) for row in (0, 1) for column in range(2 * HALF)}
    assert len(where) == 24
    words = {view.labels.bar: BAR_CELL, view.labels.off: OFF_CELL}

    def cell(point: str) -> str | tuple[int, int]:
        return words[point] if point in words else where[int(point)]

    flow: Counter[str | tuple[int, int]] = Counter()
    for token in text.split():
        match = re.fullmatch(r"(.+?)(?:\((\d)\))?", token.replace("*", ""))
        assert match is not None, token
        path, times = match.group(1).split("/"), int(match.group(2) or 1)
        flow[cell(path[0])] -= times
        flow[cell(path[-1])] += times
    return Counter({cell: n for cell, n in flow.items() if n})


def _roll(game: Game) -> tuple[int, int]:
    index = max(i for i, e in enumerate(game.events) if e.action is Action.MOVE)
    roll = next(e.dice for e in reversed(game.events[:index]) if e.action is Action.ROLL)
    assert roll is not None
    return roll.first, roll.second


def _boards(game: Game, lang: str) -> Iterator[tuple[str, object]]:
    tr = translator(lang)
    record = _record(game)
    for orientation in ORIENTATIONS:
        yield orientation, board_message(tr, record, orientation=orientation)
    for side in Side:
        yield f"own {side.name}", board_message(tr, record, player=side)


@pytest.mark.parametrize("variant", list(Variant))
@pytest.mark.parametrize("lang", LANGS)
def test_every_printed_move_matches_the_numbers_on_the_picture(variant: Variant,
                                                                lang: str) -> None:
    checked = Counter[str]()
    for game in _games(variant, seed=11 if variant is Variant.LONG else 12, count=25):
        first, second = _roll(game)
        for name, message in _boards(game, lang):
            view = message.picture  # type: ignore[attr-defined]
            assert view is not None
            flow = _flow_on_screen(view, game.turn_start)
            # the picture's footer and the text board's "Last:" line
            footer = format_last_turn(view)
            assert f"({first}-{second})" in render_text(view), name
            assert footer.startswith(f"({first}-{second}) "), (name, footer)
            steps = footer.split(") ", 1)[1]
            if steps != view.labels.no_move:
                assert _flow_in_text(steps, view) == flow, (name, footer)
            # the caption's line of the turn before: its roll and its moves
            caption = message.text  # type: ignore[attr-defined]
            line = next((line for line in caption.splitlines()
                         if f"{first}-{second}" in line), None)
            assert line is not None, (name, caption)
            note = translator(lang).gettext("({name}'s numbers, as on the board)",
                                            name=view.names[view.numbered_for])
            mover = view.last_turn.side  # type: ignore[union-attr]
            # a turn in the other player's numbers says whose they are
            assert (note in line) is (view.numbered_for is not mover), (name, line)
            if flow:
                moves = line.replace(" " + note, "").rsplit(": ", 1)[1]
                assert _flow_in_text(moves, view) == flow, (name, line, view.numbered_for)
                checked[view.numbered_for is view.last_turn.side] += 1  # type: ignore[union-attr]
    # both cases were seen: a move in its mover's numbers and in the other side's
    assert checked[True] and checked[False], checked


@pytest.mark.parametrize("variant", list(Variant))
def test_a_players_own_board_is_numbered_for_that_player(variant: Variant) -> None:
    for game in _games(variant, seed=3, count=10):
        for side in Side:
            view = board_message(translator("en"), _record(game), player=side).picture
            assert view is not None and view.numbered_for is side


@pytest.mark.parametrize("variant", list(Variant))
def test_the_analysis_moves_match_the_numbers_on_its_small_boards(variant: Variant) -> None:
    """An analysis writes each mistake's "Played:" and "Best:" moves in the
    numbers printed on the small board drawn beside it."""
    from bot.present.analysis import analysis_picture, sample

    record, analysis = sample(variant)
    for lang in LANGS:
        tr = translator(lang)
        picture = analysis_picture(tr, record, analysis)
        assert picture.mistakes
        for mistake in picture.mistakes:
            for label, view in ((mistake.played_label, mistake.played),
                                (mistake.best_label, mistake.best)):
                if view is None or view.last_turn is None or not view.last_turn.steps:
                    continue
                moves = label.split(": ", 1)[1]
                assert _flow_in_text(moves, view) == _flow_on_screen(view, view.position), label


@pytest.mark.parametrize("variant", list(Variant))
def test_a_hint_is_in_the_numbers_of_the_board_it_is_asked_from(variant: Variant) -> None:
    """A hint writes turns in the mover's numbers (bot/present/hints.py):
    every board that offers the mover its buttons is numbered for the mover."""
    for game in _games(variant, seed=8, count=15):
        if game.phase is not Phase.MOVE:
            continue
        record = _record(game)
        boards = [board_message(translator("en"), record, orientation=o) for o in ORIENTATIONS]
        boards.append(board_message(translator("en"), record, player=game.to_act))
        for message in boards:
            assert message.picture is not None
            assert message.picture.numbered_for is game.to_act
