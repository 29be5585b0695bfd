"""Games read back from a ``.mat`` file (ours, or GNU Backgammon's
``export match mat``) by replaying every cell through the engine, for
``python -m ai analyse FILE``.

The file does not tell everything the engine records: long nardy's
opening roll (only who started; the game is replayed with that starter),
whether a game that ends before its last turn (``Wins 2 points`` after an
unfinished game) was resigned or lost on time (it is read as the loser's
resignation of the points written, so the analysis counts the result), a
house rule like koks (read as off).

>>> from engine import Game, GameOptions, Step, format_game
>>> game = Game.new(GameOptions.backgammon())
>>> game = game.roll(_Dice([(3, 1)])).play_step(Step(8, 5, 3)).play_step(Step(6, 5, 1)).confirm()
>>> game = game.double(Side.BLACK).pass_(Side.WHITE)
>>> [replayed] = read_games(format_game(game, names=("Ann", "Bob")))
>>> replayed.game.events == game.events, replayed.names
(True, ('Ann', 'Bob'))
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine import (
    EngineError,
    Game,
    GameOptions,
    Phase,
    Side,
    Variant,
    parse_turn,
)
from engine.matread import MatGame, MatRecord, read_mat
from engine.scoring import resign_kinds

_ROLL = re.compile(r"(?P<first>[1-6])(?P<second>[1-6]):(?P<moves>.*)")
_DOUBLE = re.compile(r"Doubles\s*=>\s*\d+", re.IGNORECASE)
_BEAVER = re.compile(r"Beavers\s*=>\s*\d+", re.IGNORECASE)
"""A beaver as GNU Backgammon exports it (ours: ``Doubles => 4``); the
doubler's ``Drops`` may follow, or, for a take, the doubler's next roll."""


class MatGameError(ValueError):
    """A ``.mat`` text whose moves cannot be replayed."""


@dataclass(frozen=True, slots=True)
class MatReplay:
    """One game of the file: its number, the replayed game, the match score
    before it and the players' names (White, Black)."""

    number: int
    game: Game
    score: tuple[int, int]
    names: tuple[str, str]


class _Dice:
    """A random source that gives the dice of the file, in order."""

    def __init__(self, rolls: list[tuple[int, int]]) -> None:
        self.values = [die for roll in rolls for die in roll]

    def randint(self, a: int, b: int) -> int:
        return self.values.pop(0)


def options_of(record: MatRecord) -> GameOptions:
    """The rules the file's header tells (what :func:`engine.matfile.header_lines`
    writes; koks and the opening re-roll are not told)."""
    if record.variant is Variant.LONG:
        return GameOptions.long(match_length=record.match_length)
    money = not record.match_length
    return GameOptions.backgammon(
        cube=record.tag("CubeLimit") != "1",
        jacoby=money and record.tag("Jacoby") == "On",
        beavers=money and (record.tag("Beaver") == "On" or any(  # gnubg writes no tag
            _BEAVER.fullmatch(cell.strip()) for game in record.games for _, cell in game.cells)),
        match_length=record.match_length,
        opening_reroll=record.tag("Dice opening") == "reroll",
    )


def _replay(section: MatGame, options: GameOptions, crawford: bool) -> Game:
    if not section.cells:
        return Game.new(options, crawford=crawford)
    first_side, first = section.cells[0]
    if options.variant is Variant.LONG:
        game = Game.new(options, crawford=crawford, starter=first_side)
    elif options.opening_reroll:  # the opening's dice are not written: only who started
        tie_break = (2, 1) if first_side is Side.WHITE else (1, 2)
        game = Game.new(options, crawford=crawford).roll(_Dice([tie_break]))
    else:
        opening = _ROLL.match(first.strip())
        if opening is None:
            raise MatGameError(f"game {section.number}: it does not start with a roll")
        own, other = int(opening["first"]), int(opening["second"])
        dice = (own, other) if first_side is Side.WHITE else (other, own)
        game = Game.new(options, crawford=crawford).roll(_Dice([dice]))
    for index, (side, cell) in enumerate(section.cells):
        text = cell.strip()
        try:
            game = _apply(game, side, text, first=index == 0)
        except (EngineError, IndexError) as error:
            raise MatGameError(f"game {section.number}, {side.name.title()}'s {text!r}: "
                               f"{error}") from None
        if game.result is not None:
            break
    return _given_up(game, section)


_WINS = re.compile(r"Wins\s+(?P<points>\d+)\s+points?", re.IGNORECASE)


def _given_up(game: Game, section: MatGame) -> Game:
    """``game`` ended as its last cell says (``Wins N points``) when its turns
    did not end it: the other side resigned the kind worth ``N`` at the cube
    (unchanged when no kind is worth that, or the game cannot end there).

    >>> game = Game.new(GameOptions.backgammon()).roll(_Dice([(3, 1)]))
    >>> won = _given_up(game, MatGame(1, (), ((Side.BLACK, "Wins 2 points"),)))
    >>> won.result.winner, won.result.points, won.result.kind.value
    (<Side.BLACK: 1>, 2, 'gammon')
    """
    if game.result is not None or not section.cells:
        return game
    winner, text = section.cells[-1]
    wins = _WINS.search(text)
    if wins is None:
        return game
    for kind in resign_kinds(game.variant, koks=game.options.koks):
        try:
            ended = game.offer_resignation(winner.opponent, kind).accept_resignation(winner)
        except EngineError:
            return game
        if ended.result is not None and ended.result.points == int(wins["points"]):
            return ended
    return game


def _apply(game: Game, side: Side, text: str, first: bool) -> Game:
    if text.startswith("Wins"):
        return game
    if (roll := _ROLL.fullmatch(text)) is not None:
        if game.phase is Phase.DOUBLE and game.cube is not None and game.cube.beavered:
            game = game.take(side)  # GNU Backgammon writes no Takes after Beavers
        if not (first and game.phase is Phase.MOVE):  # the opening roll is rolled already
            game = game.roll(_Dice([(int(roll["first"]), int(roll["second"]))]))
        if game.phase is not Phase.MOVE:  # nothing could be played: passed on at once
            return game
        assert game.turn is not None
        moves = roll["moves"].strip()
        # dice rolled and not played before a resignation or timeout (GNU
        # Backgammon writes the resignation in the same cell: ``42:  Wins 1 point``)
        if not moves or moves.startswith("Wins"):
            return game
        return _as_written(game, moves).confirm()
    if _BEAVER.fullmatch(text):
        return game.beaver(side)
    if _DOUBLE.fullmatch(text):
        return game.beaver(side) if game.phase is Phase.DOUBLE else game.double(side)
    if text.lower() == "takes":
        return game.take(side)
    if text.lower() in ("drops", "passes"):
        return game.pass_(side)
    raise MatGameError(f"unknown action {text!r}")


_STEP = re.compile(r"(?P<source>\d+)/(?P<target>\d+)\*?")


def _as_written(game: Game, moves: str) -> Game:
    """``game`` with the turn ``moves`` played: its steps in the order
    written when they can be (a bear-off with a higher die takes the exact
    die if it can), else in the engine's order of the turn
    :func:`engine.parse_turn` finds (``24/18/13``, ``8/5(2)``...)."""
    assert game.turn is not None
    turn = parse_turn(game.turn_start, game.turn.dice, moves)
    played = game
    for token in moves.split():
        written = _STEP.fullmatch(token)
        options = [] if written is None else sorted(
            (s for s in played.legal_steps
             if (s.source, s.target) == (int(written["source"]), int(written["target"]))),
            key=lambda s: (s.die != s.source - s.target, s.die))
        if not options:
            break
        played = played.play_step(options[0])
    else:
        assert played.turn is not None
        if played.turn.is_complete and played.turn.position == turn.position:
            return played
    for step in turn.steps:
        game = game.play_step(step)
    return game


def read_games(text: str) -> list[MatReplay]:
    """Every game of a ``.mat`` text, replayed; :class:`MatGameError` (or
    :class:`engine.matread.MatReadError`) for a text that is not one or
    whose moves are not legal."""
    record = read_mat(text)
    options = options_of(record)
    replays: list[MatReplay] = []
    crawford_done = False
    for section in record.games:
        length = options.match_length
        leader = [points == length - 1 for points in section.score]
        crawford = (options.variant is Variant.BACKGAMMON and bool(length)
                    and not crawford_done and leader[0] != leader[1])
        crawford_done = crawford_done or crawford
        game = _replay(section, options, crawford)
        replays.append(MatReplay(section.number, game, section.score, section.names))
    return replays
