"""What a finished game books: the ledger amount, the history line, the players' stats.

Pure: :func:`booking` and :func:`updated_stats` turn an :class:`Outcome` (read
from the finished record by :func:`outcome`) into what
:meth:`bot.store.ledger.Ledger.finish_game` writes in one atomic step, keyed by the
game id so that nothing is ever booked twice.  The rules:

* A single game: the loser pays ``points × stake`` - points are the kind of
  win (oin 1, mars 2, koks 3; single 1, gammon 2, backgammon 3) times the
  cube; a passed double is worth the cube before the double, an accepted
  resignation what was resigned.
* A match (``match=N``): the games only score; when the match ends the
  loser pays ``N × stake`` once (a match is one bet on N points, whatever
  the score), booked with the game that ends it.
* Ratings (FIBS, :mod:`bot.rules.ratings`): once per single game (n = 1) or once
  per match (n = N).  Games, wins, mars/gammons and streaks count every game.
* Stakes are whole numbers of the chat's unit (the bot never handles money),
  so every balance is an exact integer; halves are played in a smaller unit.

>>> from engine.position import Side
>>> from engine.scoring import EndReason, GameResult, ResultKind
>>> players = (Player(user_id=1, name="Ann", side=Side.WHITE),
...            Player(user_id=2, name="Bob", side=Side.BLACK))
>>> mars = GameResult(Side.BLACK, ResultKind.MARS, EndReason.BORNE_OFF)
>>> entry, ledger = booking(Outcome("g1", Variant.LONG, players, mars, stake=10))
>>> ledger, entry.result, entry.points, entry.stake
({(2, 1): 20}, 'mars', 2, 20)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from html import escape

from bot.rules import ratings
from bot.rules.matchstate import table_of
from bot.vocab import clock
from bot.vocab.i18n import Translator
from bot.vocab.records import (
    GameRecord,
    HistoryEntry,
    Player,
    PlayerStats,
    Status,
    TableOptions,
    computer_level,
    versus_computer,
)
from bot.vocab.usertext import clean
from engine.match import Standing
from engine.position import Side, Variant
from engine.scoring import GameResult


@dataclasses.dataclass(frozen=True)
class Outcome:
    """How a game ended, as far as the ledger and the stats care."""

    game_id: str
    variant: Variant
    players: tuple[Player, ...]
    result: GameResult | None
    """None: the game was cancelled (nothing is booked)."""
    stake: int = 0
    """Per point."""
    match_length: int = 0
    """0: not a match."""
    score: tuple[int, int] = (0, 0)
    """The match score after this game."""
    thread_id: int | None = None

    @property
    def match_over(self) -> bool:
        """A single game, or the match this game ended (the engine's rule)."""
        return Standing(self.match_length, self.score).is_settled

    @property
    def rated_length(self) -> int:
        """The FIBS ``n`` if this ends a rated unit (a single game or a match), else 0."""
        if self.result is None or not self.match_over:
            return 0
        return self.match_length or 1

    @property
    def amount(self) -> int:
        """What the loser pays the winner now.

        >>> from engine.scoring import EndReason, GameResult, ResultKind
        >>> won = GameResult(Side.WHITE, ResultKind.GAMMON, EndReason.BORNE_OFF, cube=4)
        >>> Outcome("g", Variant.BACKGAMMON, (), won, stake=5).amount
        40
        >>> Outcome("g", Variant.BACKGAMMON, (), won, 5, match_length=7, score=(6, 3)).amount
        0
        >>> Outcome("g", Variant.BACKGAMMON, (), won, 5, match_length=7, score=(8, 3)).amount
        35
        """
        if self.result is None:
            return 0
        if self.match_length:
            return self.match_length * self.stake if self.match_over else 0
        return self.result.points * self.stake

    def seat(self, side: Side) -> Player:
        return next(p for p in self.players if p.side is side)


def booking(outcome: Outcome) -> tuple[HistoryEntry, dict[tuple[int, int], int]]:
    """The history line and the ledger booking ((winner id, loser id) -> amount)."""
    result = outcome.result
    ledger: dict[tuple[int, int], int] = {}
    if result is not None and outcome.amount:
        pair = (outcome.seat(result.winner).user_id, outcome.seat(result.winner.opponent).user_id)
        ledger[pair] = outcome.amount
    entry = HistoryEntry(
        game_id=outcome.game_id, thread_id=outcome.thread_id, variant=outcome.variant,
        players=outcome.players, winner=None if result is None else result.winner,
        result="cancelled" if result is None else result.kind.value,
        points=0 if result is None else result.points, stake=outcome.amount,
        reason=None if result is None else result.reason.value,
        match_length=outcome.match_length or 1,
        score=outcome.score if outcome.match_length else None,
    )  # fmt: skip
    return entry, ledger


def updated_stats(outcome: Outcome, current: Mapping[int, PlayerStats | None],
                  now: float | None = None) -> list[PlayerStats]:
    """Both players' stats after the game (none for a cancelled one).  A rated
    result moves the ratings (FIBS) and their deviations (:func:`rated`).

    >>> from engine.scoring import EndReason, GameResult, ResultKind
    >>> players = (Player(user_id=1, name="Ann", side=Side.WHITE),
    ...            Player(user_id=2, name="Bob", side=Side.BLACK))
    >>> won = GameResult(Side.WHITE, ResultKind.OIN, EndReason.BORNE_OFF)
    >>> ann, bob = updated_stats(Outcome("g", Variant.LONG, players, won), {})
    >>> ann.rating, ann.wins, ann.streak, bob.rating, bob.streak
    (1510.0, 1, 1, 1490.0, -1)
    >>> round(ann.deviation, 1), ratings.shown(ann.rating, ann.deviation)
    (343.4, '1510?')
    """
    result = outcome.result
    if result is None:
        return []
    new: dict[Side, PlayerStats] = {}
    for player in outcome.players:
        assert player.side is not None
        versus = versus_computer(outcome.players, player.user_id)
        old = current.get(player.user_id) or PlayerStats(user_id=player.user_id,
                                                         variant=outcome.variant, versus=versus)
        won = player.side is result.winner
        size = result.kind.multiplier
        new[player.side] = old.model_copy(update={
            "name": player.name,
            "games": old.games + 1,
            "wins": old.wins + won,
            "gammons_won": old.gammons_won + (won and size >= 2),
            "gammons_lost": old.gammons_lost + (not won and size >= 2),
            "triples_won": old.triples_won + (won and size == 3),
            "triples_lost": old.triples_lost + (not won and size == 3),
            "streak": (max(old.streak, 0) + 1) if won else (min(old.streak, 0) - 1),
        })  # fmt: skip
    computer = [side for side, stats in new.items() if computer_level(stats.user_id)]
    if computer:
        # against the computer: the person's games count apart (``versus``), with
        # no rating (a rating measures people against people); the computer keeps none
        return [new[side] for side in sorted(new) if side not in computer]
    length = outcome.rated_length
    if length:
        winner, loser = rated(new[result.winner], new[result.winner.opponent], length,
                              clock.now() if now is None else now)
        new[result.winner], new[result.winner.opponent] = winner, loser
    return [new[side] for side in sorted(new)]


def deviation_of(stats: PlayerStats, now: float | None = None) -> float:
    """A player's rating deviation: the one kept, grown with the days since
    their last rated match (``now`` given), or, kept before deviations, the
    one their experience implies (bot/rules/ratings.py)."""
    if stats.deviation is None:
        return ratings.from_experience(stats.experience)
    if now is None or stats.rated_at is None:
        return stats.deviation
    return ratings.aged(stats.deviation, max(0.0, now - stats.rated_at) / 86400)


def rated(winner: PlayerStats, loser: PlayerStats, length: int, now: float
          ) -> tuple[PlayerStats, PlayerStats]:
    """Both players' stats after ``winner`` won a rated ``length``-point match:
    FIBS ratings and experience, and each deviation by Glicko's formula on the
    FIBS scale, from the ratings and deviations before it."""
    up, down = ratings.update(ratings.Rating(winner.rating, winner.experience),
                              ratings.Rating(loser.rating, loser.experience), length)
    mine, theirs = deviation_of(winner, now), deviation_of(loser, now)
    return (winner.model_copy(update={
                "rating": up.value, "experience": up.experience, "matches": winner.matches + 1,
                "match_wins": winner.match_wins + 1, "rated_at": now,
                "deviation": ratings.after_match(mine, winner.rating, loser.rating, theirs,
                                                   length)}),
            loser.model_copy(update={
                "rating": down.value, "experience": down.experience,
                "matches": loser.matches + 1, "rated_at": now,
                "deviation": ratings.after_match(theirs, loser.rating, winner.rating, mine,
                                                   length)}))  # fmt: skip


COUNTS = ("games", "wins", "gammons_won", "gammons_lost", "triples_won", "triples_lost",
          "matches", "match_wins", "experience")
"""The fields of :class:`PlayerStats` that add up over several chats."""


def summed(stats: Iterable[PlayerStats]) -> list[PlayerStats]:
    """A player's stats of several chats (their private and inline games), per
    variant, their counts added up; ratings and streaks are each chat's and do
    not add up, so the sums carry none.

    >>> one = PlayerStats(user_id=1, variant=Variant.LONG, games=2, wins=1, rating=1520.0)
    >>> two = PlayerStats(user_id=1, variant=Variant.LONG, games=3, wins=3, streak=3)
    >>> [(s.games, s.wins, s.rating, s.streak) for s in summed([one, two])]
    [(5, 4, 1500.0, 0)]
    """
    totals: dict[Variant, PlayerStats] = {}
    for each in stats:
        if each.versus:
            continue
        total = totals.get(each.variant) or PlayerStats(user_id=each.user_id,
                                                        variant=each.variant, name=each.name)
        totals[each.variant] = total.model_copy(update={
            name: getattr(total, name) + getattr(each, name) for name in COUNTS})
    return [totals[variant] for variant in sorted(totals, key=lambda v: v.value)]


def with_chat_stake(args: Sequence[str], options: TableOptions, default: int) -> TableOptions:
    """``/new`` options with the chat's stake (``/stake``) unless ``stake=`` was given,
    or the game has hints (``hints=on``: practice, never staked).

    >>> with_chat_stake(["long"], TableOptions(), 5).stake_per_point
    5
    >>> with_chat_stake(["Stake=0"], TableOptions(), 5).stake_per_point
    0
    >>> with_chat_stake(["hints=on"], TableOptions(hints=True), 5).stake_per_point
    0
    """
    if options.hints or any(arg.strip().lower().startswith("stake=") for arg in args):
        return options
    return options.model_copy(update={"stake_per_point": default})


# ---------------------------------------------------------------- /ledger


NAME_WIDTH = 16


@dataclasses.dataclass(frozen=True)
class Debt:
    """One pair's balance the way it is read: ``debtor`` owes ``creditor`` ``amount`` > 0."""

    debtor: int
    creditor: int
    amount: int


def debts(ledger: Mapping[tuple[int, int], int]) -> list[Debt]:
    """The store's ledger ((a, b) with a < b -> what b owes a) as debts, biggest first.

    >>> debts({(1, 2): -5, (1, 3): 7, (2, 3): 0})
    [Debt(debtor=3, creditor=1, amount=7), Debt(debtor=1, creditor=2, amount=5)]
    """
    out = [Debt(b, a, owed) if owed > 0 else Debt(a, b, -owed)
           for (a, b), owed in ledger.items() if owed]
    return sorted(out, key=lambda d: (-d.amount, d.debtor, d.creditor))


def without_cycles(rows: Sequence[Debt]) -> list[Debt]:
    """``rows`` with every circle of debts taken out (A owes B, B owes C, C owes
    A: the smallest of them off each), as :func:`debts` orders them.  What each
    member owes net is the same, so once a settle-up plan is paid nobody is
    shown owing anybody: a planned payment is booked on its own pair only
    (bot/rules/settle.py), and the pairs a plan squared could show a circle
    (Alice → Carol 10, Bob → Alice 10, Carol → Bob 10) when all are square
    (issue 37).  For /ledger's table; the stored pairs stay as booked.

    >>> without_cycles([Debt(1, 3, 10), Debt(2, 1, 10), Debt(3, 2, 10)])
    []
    >>> without_cycles([Debt(1, 3, 10), Debt(2, 1, 15), Debt(3, 2, 10)])
    [Debt(debtor=2, creditor=1, amount=5)]
    """
    owed = {(d.debtor, d.creditor): d.amount for d in rows if d.amount}
    while (circle := _circle(owed)) is not None:
        least = min(owed[edge] for edge in circle)
        for edge in circle:
            owed[edge] -= least
            if not owed[edge]:
                del owed[edge]
    out = [Debt(debtor, creditor, amount) for (debtor, creditor), amount in owed.items()]
    return sorted(out, key=lambda d: (-d.amount, d.debtor, d.creditor))


def _circle(owed: Mapping[tuple[int, int], int]) -> list[tuple[int, int]] | None:
    """The edges of one circle of debts in ``owed``, None if there is none."""
    onward: dict[int, list[int]] = {}
    for debtor, creditor in sorted(owed):
        onward.setdefault(debtor, []).append(creditor)
    for start in sorted(onward):
        path, seen, stack = [start], {start}, [iter(onward.get(start, []))]
        while stack:
            step = next(stack[-1], None)
            if step is None:
                stack.pop()
                seen.discard(path.pop())
            elif step == start:
                return list(zip(path, [*path[1:], start], strict=True))
            elif step not in seen and step > start:  # each circle found from its lowest member
                path.append(step)
                seen.add(step)
                stack.append(iter(onward.get(step, [])))
    return None


def _cell(name: str, width: int) -> str:
    return escape(clean(name, width).ljust(width))


def ledger_table(tr: Translator, rows: Iterable[Debt], names: Mapping[int, str],
                 title: str | None = None) -> str:
    """The /ledger message: a monospace table "debtor → creditor amount".

    >>> from bot.vocab.i18n import translator
    >>> names = {1: "Ann", 2: "Bob <3", 3: "Cy"}
    >>> print(ledger_table(translator("en"), [Debt(2, 1, 30), Debt(1, 3, 5)], names))
    <b>Who owes whom</b>
    <pre>Bob &lt;3 → Ann 30
    Ann    → Cy   5</pre>
    """
    rows = list(rows)
    if not rows:
        return tr.gettext("Nobody owes anybody here.")
    label = [(names.get(r.debtor, str(r.debtor)), names.get(r.creditor, str(r.creditor)),
              str(r.amount)) for r in rows]
    left = min(NAME_WIDTH, max(len(d) for d, _, _ in label))
    right = min(NAME_WIDTH, max(len(c) for _, c, _ in label))
    figures = max(len(a) for _, _, a in label)
    lines = [f"{_cell(d, left)} → {_cell(c, right)} {a.rjust(figures)}" for d, c, a in label]
    head = tr.gettext("<b>Who owes whom</b>") if title is None else title
    return "\n".join([head, "<pre>" + "\n".join(lines) + "</pre>"])


def outcome(record: GameRecord) -> Outcome:
    """What the ledger and the stats need of a finished or cancelled game (see
    bot/rules/ledger.py)."""
    table = table_of(record) if record.engine else None
    result = None
    if record.status is Status.FINISHED and table is not None:
        result = table.game.result
    return Outcome(record.game_id, record.variant, record.players, result,
                   record.options.stake_per_point, table.match_length if table else 0,
                   table.score if table else (0, 0), record.thread_id)
