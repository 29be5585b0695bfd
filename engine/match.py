"""A match to N points (or money play, N = 0): its games, score and winner.

A :class:`Match` is immutable like :class:`~engine.game.Game`: start a game
with :meth:`Match.next_game`, advance it with the game's own methods and put
it back with :meth:`Match.update`.  The match decides what each game starts
with:

* long nardy: the first game opens with the opening roll; every later game is
  started by the player who was second in the last one;
* backgammon: every game opens with the opening roll; the first game after a
  player reaches N - 1 points is the Crawford game (no doubling), later games
  allow doubling again; a 1-point match has no Crawford game.

These rules live in :class:`Standing`, the match between two of its games
(N, the score, whether the Crawford game has begun): a :class:`Match` folds
its games into one, and a caller that stores only the current game and the
score (the bot) keeps a :class:`Standing` and asks it the same questions.

>>> match = Match.new(GameOptions.long(match_length=7)).next_game()
>>> match.current.phase, match.score, match.winner
(<Phase.OPENING: 'opening'>, (0, 0), None)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from engine.game import FORMAT_VERSION, Game, GameDataError, GameOptions
from engine.position import EngineError, Side, Variant, check_type


class MatchError(EngineError):
    """A match action that is not allowed now."""


def starter_of(game: Game) -> Side | None:
    """The side that made the first turn (``None`` before the opening roll)."""
    if game.starter is not None:
        return game.starter
    return None if game.opening is None else game.opening.starter


@dataclass(frozen=True, slots=True)
class Standing:
    """Where a match stands between its games: ``length`` N (0: money play),
    the ``score`` of (White, Black) and whether its Crawford game has begun.

    >>> s = Standing(3, (2, 0))
    >>> s.winner, s.is_over, s.next_is_crawford(Variant.BACKGAMMON)
    (None, False, True)
    >>> Standing(1).next_is_crawford(Variant.BACKGAMMON)  # a 1-point match: none
    False
    >>> Standing(3, (1, 3)).winner
    <Side.BLACK: 1>
    """

    length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford_done: bool = False
    """The Crawford game has begun (from its first move, not only once it ends)."""

    def __post_init__(self) -> None:
        if not isinstance(self.length, int) or isinstance(self.length, bool) or self.length < 0:
            raise MatchError(f"a match length is a whole number >= 0, got {self.length!r}")
        score = self.score
        if (
            not isinstance(score, tuple)
            or len(score) != 2
            or not all(isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in score)
        ):
            raise MatchError(f"a match score is two whole numbers >= 0, got {score!r}")
        if not isinstance(self.crawford_done, bool):
            raise MatchError(f"crawford_done is True or False, got {self.crawford_done!r}")

    @property
    def winner(self) -> Side | None:
        """The side with N points (never in money play)."""
        if not self.length:
            return None
        for side in Side:
            if self.score[side] >= self.length:
                return side
        return None

    @property
    def is_over(self) -> bool:
        """A player has reached N points: no game follows."""
        return self.winner is not None

    @property
    def is_settled(self) -> bool:
        """Nothing played so far waits for a later game: in money play each
        game is settled by itself, a match once it is over.

        The bot's single game (money play) is a unit of one game: after it a
        rematch is a new game; an open :class:`Match` of money play goes on.

        >>> Standing(0).is_settled, Standing(5, (4, 4)).is_settled
        (True, False)
        """
        return not self.length or self.is_over

    def counting(self, game: Game) -> Standing:
        """The standing with ``game`` of this match counted: its result once it
        has one, and whether it is the Crawford game (from its start).

        >>> from engine.scoring import ResultKind
        >>> game = Game.new(GameOptions.long(match_length=5), starter=Side.WHITE)
        >>> game = game.offer_resignation(Side.WHITE, ResultKind.MARS)
        >>> Standing(5, (1, 0)).counting(game.accept_resignation(Side.BLACK)).score
        (1, 2)
        """
        check_type(game, Game, "a game", MatchError)
        score = self.score
        if game.result is not None:
            points = list(score)
            points[game.result.winner] += game.result.points
            score = (points[0], points[1])
        return replace(self, score=score, crawford_done=self.crawford_done or game.crawford)

    def next_is_crawford(self, variant: Variant) -> bool:
        """Whether the next game is the Crawford game: backgammon, a match
        longer than one point, the first game after a player reaches N - 1."""
        # a 1-point match has no Crawford game: both players start at N - 1 = 0
        # (GNU Backgammon applies the rule only to matches longer than one point)
        if variant is not Variant.BACKGAMMON or self.length <= 1 or self.crawford_done:
            return False
        return self.length - 1 in self.score

    @staticmethod
    def next_starter(last: Game) -> Side | None:
        """Who starts the game after ``last``: in long nardy the player who was
        second in it, without an opening roll; else nobody (the opening roll)."""
        if last.options.variant is not Variant.LONG:
            return None
        first = starter_of(last)
        return None if first is None else first.opponent

    def next_game(self, last: Game) -> tuple[Standing, Game]:
        """The game after ``last`` (the match's game counted in this standing),
        and the standing with it begun.

        >>> last = Game.new(GameOptions.long(match_length=3), starter=Side.BLACK)
        >>> standing, game = Standing(3, (0, 1)).next_game(last)
        >>> game.starter, standing == Standing(3, (0, 1))
        (<Side.WHITE: 0>, True)
        """
        check_type(last, Game, "a game", MatchError)
        if last.options.match_length != self.length:
            raise MatchError("that game is not of this match")
        if self.is_over:
            raise MatchError("the match is over")
        game = Game.new(
            last.options,
            crawford=self.next_is_crawford(last.options.variant),
            starter=self.next_starter(last),
        )
        return self.counting(game), game


@dataclass(frozen=True, slots=True)
class Match:
    """The rules (``options.match_length`` is N; 0 for money play) and the
    games played so far, the last one possibly still running."""

    options: GameOptions
    games: tuple[Game, ...] = ()

    def __post_init__(self) -> None:
        check_type(self.options, GameOptions, "the options", MatchError)
        if not isinstance(self.games, tuple):
            raise MatchError(f"a match's games are a tuple, got {self.games!r}")
        for game in self.games:
            check_type(game, Game, "a game", MatchError)

    @classmethod
    def new(cls, options: GameOptions) -> Match:
        return cls(options)

    @property
    def length(self) -> int:
        return self.options.match_length

    @property
    def standing(self) -> Standing:
        """The score and the Crawford state after the games so far."""
        standing = Standing(self.length)
        for game in self.games:
            standing = standing.counting(game)
        return standing

    @property
    def score(self) -> tuple[int, int]:
        """Points of (White, Black) from the finished games."""
        return self.standing.score

    @property
    def winner(self) -> Side | None:
        return self.standing.winner

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def current(self) -> Game | None:
        """The game being played, if one is."""
        if self.games and not self.games[-1].is_over:
            return self.games[-1]
        return None

    def next_game(self) -> Match:
        """Start the next game (after the last one has finished)."""
        if self.is_over:
            raise MatchError("the match is over")
        if self.current is not None:
            raise MatchError("the current game is not finished")
        first = not self.games  # the first game opens with the opening roll
        game = Game.new(self.options) if first else self.standing.next_game(self.games[-1])[1]
        return replace(self, games=(*self.games, game))

    def update(self, game: Game) -> Match:
        """Replace the current game by ``game``, a later state of it."""
        current = self.current
        if current is None:
            raise MatchError("no game is being played")
        same_start = (game.options, game.crawford, game.starter) == (
            current.options,
            current.crawford,
            current.starter,
        )
        known_opening = current.opening is None or current.opening == game.opening
        if (
            not same_start
            or not known_opening
            or game.events[: len(current.events)] != (current.events)
        ):
            raise MatchError("that game does not continue the current one")
        return replace(self, games=(*self.games[:-1], game))

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": FORMAT_VERSION,
            "options": self.options.to_dict(),
            "games": [game.to_dict() for game in self.games],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Match:
        """Replay a stored match; :class:`GameDataError` for bad data."""
        if not isinstance(data, Mapping) or data.get("version") != FORMAT_VERSION:
            raise GameDataError("not a match record of a known version")
        games = data.get("games")
        if not isinstance(games, list):
            raise GameDataError("a match record lists its games")
        match = cls.new(GameOptions.from_dict(data.get("options")))
        try:
            for item in games:
                match = match.next_game().update(Game.from_dict(item))
        except MatchError as error:
            raise GameDataError(f"corrupt match record: {error}") from error
        return match
