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
    def score(self) -> tuple[int, int]:
        """Points of (White, Black) from the finished games."""
        points = [0, 0]
        for game in self.games:
            if game.result is not None:
                points[game.result.winner] += game.result.points
        return points[0], points[1]

    @property
    def winner(self) -> Side | None:
        if not self.length:
            return None
        for side in Side:
            if self.score[side] >= self.length:
                return side
        return None

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def current(self) -> Game | None:
        """The game being played, if one is."""
        if self.games and not self.games[-1].is_over:
            return self.games[-1]
        return None

    def _next_is_crawford(self) -> bool:
        # a 1-point match has no Crawford game: both players start at N - 1 = 0
        # (GNU Backgammon applies the rule only to matches longer than one point)
        if self.options.variant is not Variant.BACKGAMMON or self.length <= 1:
            return False
        if any(game.crawford for game in self.games):
            return False
        return self.length - 1 in self.score

    def _next_starter(self) -> Side | None:
        if self.options.variant is not Variant.LONG or not self.games:
            return None
        last = starter_of(self.games[-1])
        assert last is not None  # a finished game has started
        return last.opponent

    def next_game(self) -> Match:
        """Start the next game (after the last one has finished)."""
        if self.is_over:
            raise MatchError("the match is over")
        if self.current is not None:
            raise MatchError("the current game is not finished")
        game = Game.new(
            self.options, crawford=self._next_is_crawford(), starter=self._next_starter()
        )
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
