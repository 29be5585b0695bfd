"""The end of a game is drawn one way however it ended (issue 26): no "to
move" band or ``>`` mark, no dice and no turn in progress, on the picture,
the text board and the Mini App's state, whether the checkers were borne
off, a resignation was accepted (in long nardy in the middle of a turn, its
dice rolled), a double was passed, the clock ran out or the game was
cancelled."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from bot.present.board import board_message, board_view, viewer_of
from bot.present.render import render_image, render_text
from bot.present.render.png import ACCENT, FIELD_H, FIELD_TOP, FRAME, INFO_H, LABEL_H, LEFT
from bot.rules.matchstate import MatchState, table_of, with_table
from bot.vocab.i18n import translator
from bot.vocab.records import GameRecord, Player, Status, TableOptions
from engine import Game, Phase, Side, Variant
from engine.game import GameOptions
from engine.scoring import ResultKind

EN = translator("en")


def _record(game: Game, status: Status) -> GameRecord:
    players = (Player(user_id=1, name="Alice", side=Side.WHITE),
               Player(user_id=2, name="Bob", side=Side.BLACK))
    base = GameRecord(chat_id=-1, variant=game.variant, players=players, options=TableOptions())
    return with_table(base, MatchState(game), status=status)


def _options(variant: Variant) -> GameOptions:
    return GameOptions.long() if variant is Variant.LONG else GameOptions.backgammon()


def _play(game: Game, rng: random.Random, until: Callable[[Game], bool]) -> Game:
    """Random play (no doubles offered) until ``until(game)`` or the end."""
    while not game.is_over and not until(game):
        if game.phase in (Phase.OPENING, Phase.ROLL):
            game = game.roll(rng)
        elif game.turn is not None and game.turn.is_complete:
            game = game.confirm()
        else:
            game = game.play_step(rng.choice(sorted(
                game.legal_steps, key=lambda s: (s.source, s.target, s.die))))
    return game


def _mid_turn(variant: Variant, seed: int = 3) -> Game:
    """A game some turns in, its dice rolled and one step played."""
    rng = random.Random(seed)
    turns = 0

    def enough(game: Game) -> bool:
        nonlocal turns
        if game.phase is Phase.MOVE and game.turn is not None and game.turn.played \
                and not game.turn.is_complete:
            turns += 1
            return turns > 6
        return False

    game = _play(Game.new(_options(variant)), rng, enough)
    assert game.phase is Phase.MOVE and game.dice is not None
    return game


def _borne_off(variant: Variant) -> Game:
    return _play(Game.new(_options(variant)), random.Random(5), lambda game: False)


def _resigned(variant: Variant) -> Game:
    game = _mid_turn(variant)
    kind = ResultKind.OIN if variant is Variant.LONG else ResultKind.SINGLE
    offered = game.offer_resignation(game.to_act, kind)  # type: ignore[arg-type]
    return offered.accept_resignation(offered.to_act)  # type: ignore[arg-type]


def _on_time(variant: Variant) -> Game:
    game = _mid_turn(variant)
    return game.claim_timeout(game.to_act.opponent)  # type: ignore[union-attr]


def _passed(variant: Variant) -> Game:
    game = _mid_turn(Variant.BACKGAMMON)
    game = _play(game, random.Random(1), lambda g: g.phase is Phase.ROLL
                 and g.can_double(g.to_act))  # type: ignore[arg-type]
    doubled = game.double(game.to_act)  # type: ignore[arg-type]
    return doubled.pass_(doubled.to_act)  # type: ignore[arg-type]


ENDS: dict[str, tuple[Callable[[Variant], Game], Status]] = {
    "borne off": (_borne_off, Status.FINISHED),
    "resignation accepted": (_resigned, Status.FINISHED),
    "double passed": (_passed, Status.FINISHED),
    "on time": (_on_time, Status.FINISHED),
    "cancelled": (_mid_turn, Status.CANCELLED),
}
CASES = [(name, variant) for name in ENDS for variant in Variant
         if not (name == "double passed" and variant is Variant.LONG)]


def _band_rows(image: object) -> list[tuple[int, int, int]]:
    """The pixels down the left edge of both players' bands (the accent fills
    the band of whoever must act)."""
    bottom = FIELD_TOP + FIELD_H + FRAME + LABEL_H
    return [image.getpixel((LEFT + 4, y))  # type: ignore[attr-defined]
            for top in (0, bottom) for y in range(top + 8, top + INFO_H - 8)]


@pytest.mark.parametrize(("end", "variant"), CASES)
def test_an_ended_game_is_drawn_the_same_however_it_ended(end: str, variant: Variant) -> None:
    make, status = ENDS[end]
    game = make(variant)
    assert game.variant is variant
    assert (status is Status.CANCELLED) != game.is_over, end
    record = _record(game, status)
    view = board_view(EN, record, table_of(record), viewer_of(game))
    assert view.actor is None, end
    assert view.ended, end
    assert view.dice is None and view.dice_faces() == [] and view.current == (), end
    text = render_text(view)
    assert not any(line.startswith(">") for line in text.splitlines()), text
    assert "Dice" not in text, text
    assert ACCENT not in _band_rows(render_image(view)), end
    message = board_message(EN, record)
    assert message.picture is not None and message.picture.actor is None, end
    assert " to move" not in message.text and "to roll" not in message.text, message.text
