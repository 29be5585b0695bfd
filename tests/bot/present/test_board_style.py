"""The board message as the bot builds it: picture or text, orientation,
button numbers, translated board words, the caption, the status notation
and the match export (pure: :mod:`bot.present.board`, :mod:`bot.present.export`)."""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Iterator

import pytest

from bot.present.board import (
    board_message,
    board_view,
    last_turn,
    painted,
    viewer_of,
)
from bot.present.export import export_text
from bot.present.names import board_labels
from bot.present.render import BoardLabels, point_label, render_text
from bot.present.render.png import _drawable
from bot.present.render.text import MARK
from bot.rules.matchstate import MatchState, table_of, with_table
from bot.vocab.i18n import LANGUAGES, translator
from bot.vocab.records import GameRecord, Player, Status, TableOptions
from bot.vocab.usertext import CAPTION_LIMIT
from engine import BAR, OFF, Game, Phase, Side, Step, Variant
from engine.game import GameOptions
from engine.notation import format_turn, hits
from engine.scoring import ResultKind
from tests.bot.present.render.test_text import _columns, _stack_at
from tests.botapi.formatting import parse_html, strip_text, utf16_len

EN = translator("en")


def _record(game: Game, *, names: tuple[str, str] = ("Alice", "Bob"),
            table: MatchState | None = None,
            **fields: object) -> GameRecord:
    players = (Player(user_id=1, name=names[0], side=Side.WHITE),
               Player(user_id=2, name=names[1], side=Side.BLACK))
    base = GameRecord(chat_id=-1, variant=game.variant, players=players,
                      options=TableOptions(**fields))  # type: ignore[arg-type]
    return with_table(base, table or MatchState(game), status=Status.ACTIVE)


def _random_step(game: Game, rng: random.Random) -> Step:
    return rng.choice(sorted(game.legal_steps, key=lambda s: (s.source, s.target, s.die)))


def _midgames(variant: Variant, seed: int, count: int) -> Iterator[Game]:
    """Games of ``variant`` stopped at random moments of their MOVE phases."""
    rng = random.Random(seed)
    options = GameOptions.long() if variant is Variant.LONG else GameOptions.backgammon()
    for _ in range(count):
        game = Game.new(options)
        for _ in range(rng.randrange(2, 60)):
            if game.is_over:
                break
            if game.phase in (Phase.OPENING, Phase.ROLL):
                game = game.roll(rng)
            elif game.turn is not None and game.turn.is_complete:
                game = game.confirm()
            else:
                game = game.play_step(_random_step(game, rng))
        if game.phase is Phase.MOVE and game.legal_steps:
            yield game


def _point_buttons(markup: object) -> list[tuple[str, list[int]]]:
    """(label text, [source, target?]) of every step and source button."""
    found = []
    for row in markup.inline_keyboard:  # type: ignore[attr-defined]
        for button in row:
            parts = button.callback_data.split(":")
            if parts[3] == "m":
                source, target = button.text.split(" (")[0].split("→")
                found.append((source, [int(parts[4])]))
                found.append((target, [int(parts[5])]))
            elif parts[3] == "s":
                found.append((button.text.removesuffix(" ▸"), [int(parts[4])]))
    return found


# ---------------------------------------------------------------- button numbers


@pytest.mark.parametrize("variant", list(Variant))
@pytest.mark.parametrize("orientation", ["follow", "white", "black"])
def test_text_board_buttons_print_the_numbers_the_board_shows(variant: Variant, orientation: str
                                                              ) -> None:
    """The board is numbered for the mover whichever side sits at the bottom,
    and every button prints those numbers over the mover's checkers."""
    other_side = 0
    for game in _midgames(variant, seed=3, count=25):
        record = _record(game)
        mover = game.to_act
        assert mover is not None
        viewer = viewer_of(game, orientation)
        view = board_view(EN, record, table_of(record), viewer)
        assert view.numbered_for is mover and view.viewer is viewer
        message = board_message(EN, record, style="text", orientation=orientation)
        assert message.photo is None
        board = render_text(view)
        assert board in message.text.replace("&gt;", ">")
        columns = _columns(board)
        other_side += viewer is not mover
        for label, (point,) in _point_buttons(message.markup):
            assert label == point_label(variant, mover, mover, point, board_labels(EN))
            if point in (BAR, OFF):
                continue
            assert label == str(point)  # the mover's own numbers
            if any(step.source == point for step in game.legal_steps):
                # a source: the column under its label shows the mover's checkers
                assert MARK[mover] in _stack_at(board, *columns[label]), (label, board)
    assert other_side > 0  # boards with the mover at the top were checked too


@pytest.mark.parametrize("orientation", ["follow", "white", "black"])
def test_picture_board_buttons_match_the_view_it_draws(orientation: str) -> None:
    for game in _midgames(Variant.BACKGAMMON, seed=5, count=15):
        record = _record(game)
        message = board_message(EN, record, style="png", orientation=orientation)
        assert "<pre>" not in message.text
        assert painted(message).photo[:4] == b"\x89PNG"  # type: ignore[index]
        viewer = viewer_of(game, orientation)
        view = board_view(EN, record, table_of(record), viewer)
        assert message.picture == view  # the picture painted is the view the buttons number
        mover = game.to_act
        assert mover is not None
        for label, (point,) in _point_buttons(message.markup):
            assert label == point_label(view, mover, view.numbered_for, point, view.labels)


@pytest.mark.parametrize("variant", list(Variant))
def test_the_checkers_stay_put_and_only_the_numbers_follow_the_mover(variant: Variant) -> None:
    """Through a whole game the bottom side never changes (the first mover,
    or the chat's fixed side); the numbers are the side to act's."""
    rng = random.Random(4)
    options = GameOptions.long() if variant is Variant.LONG else GameOptions.backgammon()
    game = Game.new(options).roll(rng)
    bottoms, numberings = set(), set()
    while not game.is_over:
        record = _record(game)
        view = board_view(EN, record, table_of(record), viewer_of(game))
        bottoms.add(view.viewer)
        numberings.add(view.numbered_for)
        assert view.numbered_for is game.to_act
        assert viewer_of(game, "black") is Side.BLACK and viewer_of(game, "white") is Side.WHITE
        if game.phase is Phase.ROLL:
            game = game.roll(rng)
        elif game.turn is not None and game.turn.is_complete:
            game = game.confirm()
        elif game.phase is Phase.MOVE:
            game = game.play_step(_random_step(game, rng))
        else:
            break
    assert bottoms == {game.opening.starter}  # type: ignore[union-attr]
    assert numberings == set(Side)


# ---------------------------------------------------------------- translated words


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_board_words_are_translated_and_drawable(lang: str) -> None:
    labels = board_labels(translator(lang))
    english = BoardLabels()
    for name in english.__slots__:
        if name == "pip_count":
            continue
        word = getattr(labels, name)
        assert word != getattr(english, name), name
        assert all(_drawable(char) for char in word if char not in " {}"), (name, word)
    game = next(_midgames(Variant.BACKGAMMON, seed=2, count=5))
    text = board_message(translator(lang), _record(game), style="text").text
    assert labels.pip_count(game.position.pips(Side.WHITE)) in text and labels.dice in text
    assert " pips" not in text and "Dice" not in text


# ---------------------------------------------------------------- status and caption


def _hitting_game() -> Game:
    rng = random.Random(11)
    while True:
        game = Game.new(GameOptions.backgammon())
        while not game.is_over:
            if game.phase in (Phase.OPENING, Phase.ROLL):
                game = game.roll(rng)
            elif game.turn is not None and game.turn.is_complete:
                game = game.confirm()
                last = last_turn(game)
                assert last is not None and last.start is not None
                if any(hits(last.start, last.steps)) and game.phase is not Phase.OVER:
                    return game
            else:
                game = game.play_step(_random_step(game, rng))


def test_played_line_uses_standard_notation_with_hits() -> None:
    """The caption prints the last turn in the numbers the board shows: the
    next mover's, not the previous mover's own."""
    game = _hitting_game()
    last = last_turn(game)
    assert last is not None and last.start is not None and game.to_act is not last.side
    notation = format_turn(last.start, last.steps, numbering=game.to_act)
    assert "*" in notation and notation != format_turn(last.start, last.steps)
    record = _record(game)
    text = board_message(EN, record, style="png").text
    assert f": {notation}" in text and "Last:" not in text  # the caption, not the board
    board = board_message(EN, record, style="text").text
    assert f"{notation}" in board.replace("\n", " ")  # the text board's "Last:" line too


def test_caption_has_turn_dice_pips_cube_score_and_deadline() -> None:
    game = next(_midgames(Variant.BACKGAMMON, seed=4, count=5))
    options = GameOptions.backgammon(match_length=5)
    game = dataclasses.replace(game, options=options)
    record = _record(game, table=MatchState(game, (2, 1)), match_length=5)
    record = record.model_copy(update={"deadline": 1_900_000_000.0})
    caption = board_message(EN, record, style="png").text
    dice = game.dice
    assert dice is not None
    white, black = (game.position.pips(side) for side in Side)
    for part in (" to move: ", f"{dice.first}-{dice.second}", f"Pips: ○ {white} – ● {black}",
                 "cube 1", "score ○ 2 – ● 1, match to 5", "Move by ", " UTC (", " left)."):
        assert part in caption, (part, caption)


class _Scripted:
    """Dice that roll the given numbers, in order."""

    def __init__(self, *values: int) -> None:
        self._values = iter(values)

    def randint(self, low: int, high: int) -> int:
        return next(self._values)


WORST_NAMES = ("Ąžuolas-Čėsnys " * 5, "🎲" * 64)
"""Two names at the 64-character cut; the second is 128 UTF-16 units."""


def _worst_record() -> GameRecord:
    """Everything a board's text can say at once: a match to 25 for 1,000,000
    per point with a 14-day clock, a four-step turn by the longest name, a
    double taken, a resignation offer, a cancel proposal, a pause proposal
    and the time run out."""
    options = GameOptions.backgammon(match_length=25)
    game = Game.new(options).roll(_Scripted(3, 3, 5, 5, 2, 2, 4, 4, 6, 1))
    for dice in (None, (4, 4)):
        if dice is not None:
            game = game.roll(_Scripted(*dice))
        while game.turn is not None and not game.turn.is_complete:
            game = game.play_step(max(game.legal_steps, key=lambda s: (s.source, s.die)))
        game = game.confirm()
    doubler = game.to_act
    assert doubler is not None
    game = game.double(doubler).take(doubler.opponent)
    game = game.offer_resignation(doubler, ResultKind.BACKGAMMON)
    record = _record(game, names=WORST_NAMES, table=MatchState(game, (23, 23)), match_length=25,
                     stake_per_point=1_000_000, time_control=14 * 24 * 3600)
    return record.model_copy(update={"deadline": 1_000_000_000.0, "cancel_by": 1,
                                     "pause_by": 2})


@pytest.mark.parametrize("style", ["png", "text"])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_worst_case_board_text_fits_telegrams_limit(lang: str, style: str) -> None:
    """Measured as Telegram does (UTF-16 units after parsing the HTML, by the
    local Bot API's parser); the status the players need is kept."""
    tr = translator(lang)
    record = _worst_record()
    text = board_message(tr, record, style=style).text
    plain, _ = strip_text(*parse_html(text))
    limit = CAPTION_LIMIT if style == "png" else 4096
    assert utf16_len(plain) <= limit, (lang, style, utf16_len(plain))
    status = [line for line in plain.split("\n") if line.startswith("➡")]
    assert len(status) == 1 and "🎲" in status[0], plain  # who must answer, and to what
    assert tr.gettext("{name} proposes to cancel the game.", name="") in plain
    unfitted = "\n".join(_board_lines(tr, record, style))
    assert utf16_len(strip_text(*parse_html(unfitted))[0]) > CAPTION_LIMIT or style == "text"


def _board_lines(tr: object, record: GameRecord, style: str) -> list[str]:
    """The board's lines before they are fitted (names uncut)."""
    from bot.present.board import _board_message

    _, lines, _ = _board_message(tr, record, style=style, orientation="follow",  # type: ignore[arg-type]
                                 ui=None, source=None, player=None, picture=False)
    return lines


def test_the_longest_caption_fits_telegrams_limit() -> None:
    names = ("W" * 64, "Ж" * 64)
    game = _hitting_game()
    options = TableOptions(match_length=25, stake_per_point=1_000_000, jacoby=False)
    record = _record(game, names=names, table=MatchState(game, (24, 24)),
                     **options.model_dump()).model_copy(
        update={"deadline": 1_900_000_000.0, "cancel_by": 1})
    for lang in LANGUAGES:
        caption = board_message(translator(lang), record, style="png").text
        visible = re.sub(r"<[^>]+>", "", caption)
        assert len(visible) <= CAPTION_LIMIT, (lang, len(visible))


# ---------------------------------------------------------------- /export of a match


def _resigned(game: Game, rng: random.Random) -> Game:
    if game.phase is Phase.OPENING:
        game = game.roll(rng)
    side = game.to_act
    assert side is not None
    kind = ResultKind.OIN if game.variant is Variant.LONG else ResultKind.SINGLE
    return game.offer_resignation(side, kind).accept_resignation(side.opponent)


def test_export_writes_every_game_of_the_match() -> None:
    rng = random.Random(5)
    options = GameOptions.backgammon(match_length=5)
    table = MatchState(_resigned(Game.new(options), rng)).scored()
    table = table.next_game()
    table = MatchState(_resigned(table.game, rng), table.score, table.crawford_done, table.number,
                  table.earlier).scored().next_game()
    table = MatchState(table.game.roll(rng), table.score, table.crawford_done, table.number,
                  table.earlier)
    assert len(table.earlier) == 2 and all(len(packed) < 2000 for packed in table.earlier)
    assert MatchState.from_dict(table.to_dict()).earlier == table.earlier
    record = _record(table.game, table=table, match_length=5)
    name, text = export_text(record)
    assert name.endswith(".mat") and text.startswith(" 5 point match")
    for line in (" Game 1", " Game 2", " Game 3", "Wins 1 point"):
        assert line in text, text
    assert " Alice : 1" in text or " Alice : 2" in text or "Bob : 1" in text


def test_export_of_a_single_game_has_one_game() -> None:
    game = _resigned(Game.new(GameOptions.long()), random.Random(1))
    record = _record(game).model_copy(update={"status": Status.FINISHED})
    _, text = export_text(record)
    assert " Game 1" in text and " Game 2" not in text
