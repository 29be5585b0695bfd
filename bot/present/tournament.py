"""What players see of a tournament: its lobby, a round's pairings, the
standings (a monospace table: rank, points, games, tie-breaks, the round
being played), the final standings with the prizes, a private pairing
notice, and a league's season table.  Pure functions of records.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from html import escape

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.present.lobby import option_captions
from bot.present.names import duration, utc_time, variant_name
from bot.present.render.tournament import StandingsPicture
from bot.rules.tournament.formats import rules_of
from bot.rules.tournament.league import LeagueRow
from bot.rules.tournament.prizes import split_of
from bot.rules.tournament.standings import standings
from bot.vocab import clock
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.i18n import N_, Translator
from bot.vocab.records import Status
from bot.vocab.tournament import (
    Decision,
    NamedSeason,
    Pairing,
    Place,
    Round,
    Stage,
    TournamentRecord,
)
from bot.vocab.usertext import clean, fit_text, html_text

NAME_WIDTH = 14
LIST_WIDTH = 20
"""A name's characters in a line that lists many (the lobby's players, a
pairing, the prizes): 64 players' names of 64 emoji each would be twice what
Telegram takes in a message (4,096 UTF-16 code units)."""
LINE_NAME = 20
"""The longest name in a pairing line of the standings' picture."""
PLAYER, POINTS, GAMES, WON, LOST = N_("Player"), N_("Pts"), N_("G"), N_("W"), N_("L")
RATING_CHANGE = N_("±Rtg")
"""The other column heads: player, points, games, won, lost, rating change."""

MEANINGS = {POINTS: N_("points"), GAMES: N_("games played (a forfeit is none)"),
            N_("H2H"): N_("head-to-head: points against the players level on points"),
            N_("SB"): N_("Sonneborn-Berger: the final points of the opponents beaten"),
            N_("Buch"): N_("Buchholz cut-1: the opponents' points, the lowest dropped"),
            N_("Rounds"): N_("rounds gone through in the main bracket"),
            N_("Cons"): N_("rounds gone through in the consolation bracket"),
            WON: N_("won"), LOST: N_("lost")}
"""What each column head means: the legend under a table (its heads as shown)."""


def legend(tr: Translator, heads: Sequence[str]) -> str:
    """"Pts: points · G: games played ..." for the column heads ``heads`` (plain text)."""
    return " · ".join(f"{tr.gettext(head)}: {tr.gettext(MEANINGS[head])}" for head in heads)


def _legend(tr: Translator, record: TournamentRecord) -> str:
    return legend(tr, (POINTS, GAMES, *rules_of(record).tiebreak_heads))


CANCELLED = N_("The tournament was cancelled; nothing was booked.")
OVER = N_("The tournament is over.")


def title(tr: Translator, record: TournamentRecord) -> str:
    """"Swiss, 5 rounds · Long nardy"."""
    name = tr.gettext(rules_of(record).name)
    if record.double:
        name = tr.gettext("Double round robin")
    elif record.consolation:
        name = tr.gettext("Knockout with a consolation bracket")
    elif rules_of(record).rounds_in_title and record.rounds_planned:
        name = tr.ngettext("Swiss, {n} round", "Swiss, {n} rounds", record.rounds_planned,
                           n=record.rounds_planned)
    return f"{name} · {variant_name(tr, record.variant)}"


def _head(tr: Translator, record: TournamentRecord) -> list[str]:
    lines = ["🏆 <b>" + escape(tr.gettext("Tournament: {title}", title=title(tr, record)))
             + "</b>"]
    options = record.options
    if record.round_matches:   # the rounds' lengths say it, not the games' option
        options = options.model_copy(update={"match_length": 1})
    games = option_captions(tr, record.variant, options)
    if games:
        lines.append(escape(" · ".join(games)))
    if record.round_matches:
        lines.append(escape(tr.gettext(
            "Match length by round: {lengths} points, the last for the rounds after.",
            lengths=", ".join(str(n) for n in record.round_matches))))
    if record.final_match:
        lines.append(escape(tr.gettext("The final: a match to {n}.", n=record.final_match)))
    if record.entry_stake:
        split = "/".join(str(part) for part in split_of(record))
        lines.append(escape(tr.gettext("Entry {stake}; prizes {split} % of the pot, booked "
                                       "at the end.", stake=record.entry_stake, split=split)))
    return lines


def names(record: TournamentRecord) -> dict[int, str]:
    return {e.user_id: e.name for e in record.entrants}


def lobby_message(tr: Translator, record: TournamentRecord
                  ) -> tuple[str, InlineKeyboardMarkup | None]:
    """The lobby: what it is, who joined, Join / Leave / ▶ Start / ✖ Cancel."""
    lines = _head(tr, record)
    lines.append(escape(tr.gettext("A round may take {time}.",
                                   time=duration(tr, record.round_length))))
    joined = ", ".join(html_text(e.name, LIST_WIDTH) for e in record.entrants) or "—"
    lines.append(tr.gettext("Players ({count} of {most}): {names}", count=len(record.entrants),
                            most=record.max_entrants, names=joined))
    if record.status is Status.CANCELLED:
        lines.append(escape(tr.gettext(CANCELLED)))
        return fit_text("\n".join(lines)), None
    if record.status is not Status.LOBBY:   # /standings knows open ones; the button any
        lines.append(escape(tr.gettext(OVER if record.status is Status.FINISHED
                                       else N_("It has started: /standings shows how it goes."))))
        return fit_text("\n".join(lines)), _keyboard(tr, record, [(ButtonAction.STANDINGS, "📋 ",
                                                         N_("Standings"))])
    if record.start_at is not None:
        when = utc_time(record.start_at)
        lines.append(escape(tr.gettext("It starts by itself at {time} UTC.", time=when)))
    lines.append(escape(tr.naming("Tap {join} to play. Whoever created it taps {start}.", tr)))
    return fit_text("\n".join(lines)), _keyboard(tr, record, [
        (ButtonAction.JOIN, "✋ ", N_("Join")), (ButtonAction.LEAVE, "", N_("Leave")),
        (ButtonAction.START, "▶ ", N_("Start")), (ButtonAction.DROP, "✖ ", N_("Cancel"))])


def cancel_prompt(tr: Translator, record: TournamentRecord
                  ) -> tuple[str, InlineKeyboardMarkup | None]:
    """``/tournament cancel``: what would be cancelled, and the one button
    that does it (or, once cancelled, that it was)."""
    lines = _head(tr, record)
    if not record.status.is_open:
        lines.append(escape(tr.gettext(CANCELLED if record.status is Status.CANCELLED
                                       else OVER)))
        return fit_text("\n".join(lines)), None
    lines.append(escape(tr.gettext(
        "Cancel this tournament? Nothing is booked: no entry stakes, no prizes. Games being "
        "played go on as ordinary games; games not started close.")))
    return fit_text("\n".join(lines)), _keyboard(tr, record, [
        (ButtonAction.END, "✖ ", N_("Cancel the tournament"))])


def label(tr: Translator, record: TournamentRecord) -> str:
    """Which tournament it is, in a line (plain text): "Knockout · Long nardy ·
    8 players · round 2" (or "lobby")."""
    state = (tr.gettext("lobby") if record.status is Status.LOBBY or not record.rounds
             else tr.gettext("Round {n}", n=record.rounds[-1].number))
    return " · ".join((title(tr, record), tr.ngettext(
        "{n} player", "{n} players", len(record.entrants), n=len(record.entrants)), state))


def refused_for(tr: Translator, record: TournamentRecord, refusal: str) -> str:
    """A refusal that names the tournament it is about (HTML)."""
    return "🏆 <b>" + escape(label(tr, record)) + "</b>\n" + refusal


def cancel_choice(tr: Translator, records: Sequence[TournamentRecord]
                  ) -> tuple[str, InlineKeyboardMarkup]:
    """``/tournament cancel`` where the sender may cancel several: one button
    each, naming it (the tap cancels that one)."""
    text = escape(tr.gettext(
        "Which tournament do you cancel? Nothing of it is booked: no entry stakes, no "
        "prizes. Games being played go on as ordinary games; games not started close."))
    rows = [[InlineKeyboardButton("✖ " + label(tr, record), callback_data=Callback.tournament(
        record.tournament_id, record.version, ButtonAction.END).format())] for record in records]
    return text, InlineKeyboardMarkup(rows)


def _keyboard(tr: Translator, record: TournamentRecord,
              buttons: Sequence[tuple[ButtonAction, str, str]]) -> InlineKeyboardMarkup:
    row = [InlineKeyboardButton(mark + tr.gettext(text), callback_data=Callback.tournament(
        record.tournament_id, record.version, action).format()) for action, mark, text in buttons]
    return InlineKeyboardMarkup([row[i:i + 2] for i in range(0, len(row), 2)])


def _pairing_text(tr: Translator, record: TournamentRecord, pairing: Pairing,
                  name: Callable[[int], str] | None = None, length: bool = False,
                  limit: int = LIST_WIDTH) -> str:
    """``3. Ann 1–0 Bob (forfeit)``: plain text with names cleaned (cut to
    ``limit``), or, given ``name`` (an HTML name of a user id), HTML;
    ``length``: with its match length (` · match to 7`) when the round's games
    differ in it."""
    who = names(record)
    text: Callable[[str], str] = str if name is None else (lambda t: escape(t, quote=False))
    shown = name or (lambda user_id: clean(who[user_id], limit))
    if pairing.second is None:
        return text(tr.gettext("{name}: bye", name="\0")).replace("\0", shown(pairing.first))
    result = pairing.result
    if result is None:
        score = "–"
    elif result.decision is Decision.DOUBLE_FORFEIT:
        score = "0–0"
    else:
        score = "1–0" if result.winner == pairing.first else "0–1"
    mark = ""
    if result is not None and result.decision is not Decision.PLAYED:
        mark = " " + tr.gettext("(forfeit)")
    if pairing.stage is Stage.CONSOLATION:
        mark += " " + tr.gettext("(consolation)")
    if length and length_of(record, pairing) > 1:
        mark += " · " + tr.gettext("match to {n}", n=length_of(record, pairing))
    return (f"{pairing.board}. {shown(pairing.first)} {score} {shown(pairing.second)}"
            + text(mark))


def _pairing_line(tr: Translator, record: TournamentRecord, pairing: Pairing,
                  length: bool = False) -> str:
    """A pairing in an HTML message (the chat's language: it names several
    players, so it is addressed to none of them in theirs)."""
    who = names(record)
    return _pairing_text(tr, record, pairing,
                         lambda user_id: html_text(who[user_id], LIST_WIDTH),
                         length)


def length_of(record: TournamentRecord, pairing: Pairing) -> int:
    """The match length of a pairing's game."""
    return pairing.match_length or record.options.match_length


def round_head(tr: Translator, record: TournamentRecord, round_: Round) -> tuple[str, bool]:
    """"Round 3 · match to 5" (when its games share a length longer than one
    point), and whether its pairings must say their lengths (they differ)."""
    head = tr.gettext("Round {n}", n=round_.number)
    lengths = {length_of(record, p) for p in round_.pairings if p.second is not None}
    if len(lengths) > 1:
        return head, True
    if lengths and max(lengths) > 1:
        head += " · " + tr.gettext("match to {n}", n=max(lengths))
    return head, False


def round_message(tr: Translator, record: TournamentRecord, boards: Translator) -> str:
    """A round's pairings, posted when it starts."""
    current = record.rounds[-1]
    playoff = any(p.stage is Stage.PLAYOFF for p in current.pairings)
    head, each = round_head(tr, record, current)
    if playoff:
        head = tr.gettext("Play-off for first place, round {n}", n=current.number)
        each = True
    lines = ["🏆 <b>" + escape(head) + "</b> · " + escape(title(tr, record))]
    lines += [_pairing_line(tr, record, p, each) for p in current.pairings]
    if current.deadline is not None:
        when = utc_time(current.deadline)
        lines.append(escape(tr.naming(
            "Play by {time} UTC ({left} left): each game has its board below, where either "
            "player taps {start}. A game nobody started by then is lost by both.", boards,
            time=when, left=duration(tr, current.deadline - clock.now()))))
    return fit_text("\n".join(lines))


def _cell(name: str) -> str:
    return escape(clean(name, NAME_WIDTH).ljust(NAME_WIDTH))


def table(tr: Translator, record: TournamentRecord, places: Sequence[Place]) -> str:
    """The standings as a monospace table."""
    first, second = (tr.gettext(head) for head in rules_of(record).tiebreak_heads)
    gone = {e.user_id for e in record.entrants if e.withdrawn is not None}
    who = names(record)
    rows = [f"{'#':>2} {_cell(tr.gettext(PLAYER))} {tr.gettext(POINTS):>3} "
            f"{tr.gettext(GAMES):>2} {escape(first):>6} {escape(second):>4}"]
    for place in places:
        breaks = (*place.tiebreaks, 0, 0)
        mark = "×" if place.user_id in gone else " "
        rows.append(f"{place.rank:>2} {_cell(who[place.user_id])} {place.points:>3} "
                    f"{place.games:>2} {breaks[0]:>6} {breaks[1]:>4}{mark}")
    return "<pre>" + "\n".join(rows) + "</pre>"


def standings_keyboard(tr: Translator, record: TournamentRecord) -> InlineKeyboardMarkup | None:
    """Under the standings of a running tournament: look again, or withdraw."""
    if record.status is not Status.ACTIVE:
        return None
    return _keyboard(tr, record, [(ButtonAction.STANDINGS, "🔄 ", N_("Standings")),
                                  (ButtonAction.QUIT, "🏳 ", N_("Withdraw"))])


def withdraw_prompt(tr: Translator, record: TournamentRecord, user_id: int
                    ) -> tuple[str, InlineKeyboardMarkup]:
    """🏳 Withdraw and /withdraw ask once more: who withdraws from what, and
    what it costs; the button is that player's (or a chat admin's) to tap."""
    who = names(record)
    index = next(i for i, e in enumerate(record.entrants) if e.user_id == user_id)
    mine = next((p for p in record.rounds[-1].pairings
                 if user_id in p.players and p.result is None and p.second is not None), None)
    lines = ["🏳 <b>" + escape(tr.gettext("Tournament: {title}", title=title(tr, record)))
             + "</b>"]
    text = tr.gettext("Withdraw {name} from the tournament?", name="\0")
    lines.append(escape(text).replace("\0", html_text(who[user_id], LIST_WIDTH)))
    if mine is not None:
        other = html_text(who[mine.opponent(user_id) or 0], LIST_WIDTH)
        lines.append(escape(tr.gettext("Their game against {name} this round is lost by "
                                       "forfeit.", name="\0")).replace("\0", other))
    lines.append(escape(tr.gettext(
        "Then {consequence}; their games played stand. This cannot be undone.",
        consequence=tr.gettext(rules_of(record).withdrawal))))
    button = InlineKeyboardButton("🏳 " + tr.gettext("Withdraw for good"),
                                  callback_data=Callback.tournament(
                                      record.tournament_id, record.version,
                                      ButtonAction.QUIT_SURE, index).format())
    return fit_text("\n".join(lines)), InlineKeyboardMarkup([[button]])


def standings_caption(tr: Translator, record: TournamentRecord) -> str:
    """The caption of the standings' picture: what it is, and its stakes (and
    that it is over: the final table)."""
    lines = _head(tr, record)
    if not record.status.is_open:
        lines.append(escape(tr.gettext(CANCELLED if record.status is Status.CANCELLED
                                       else OVER)))
    lines.append(escape(_legend(tr, record)))
    return fit_text("\n".join(lines), 1024)


def standings_message(tr: Translator, record: TournamentRecord
                      ) -> tuple[str, InlineKeyboardMarkup | None]:
    """``/standings`` as text (a chat whose boards are text): the table now,
    the round being played, and buttons to look again or withdraw."""
    lines = _head(tr, record)
    places = record.final if record.status is Status.FINISHED else standings(record)
    lines.append(table(tr, record, places))
    lines.append(escape(_legend(tr, record)))
    if any(e.withdrawn is not None for e in record.entrants):
        lines.append(escape(tr.gettext("× withdrew")))
    if record.status is Status.ACTIVE and record.rounds:
        head, each = round_head(tr, record, record.rounds[-1])
        lines.append("<b>" + escape(head) + "</b>")
        lines += [_pairing_line(tr, record, p, each) for p in record.rounds[-1].pairings]
        return fit_text("\n".join(lines)), standings_keyboard(tr, record)
    if not record.status.is_open:
        lines.append(escape(tr.gettext(CANCELLED if record.status is Status.CANCELLED
                                       else OVER)))
    return fit_text("\n".join(lines)), None


def standings_picture(tr: Translator, record: TournamentRecord) -> StandingsPicture:
    """``/standings`` as a picture's content (drawn by bot/present/render/tournament.py)."""
    places = record.final if record.status is Status.FINISHED else standings(record)
    who = names(record)
    gone = {e.user_id for e in record.entrants if e.withdrawn is not None}
    first, second = (tr.gettext(head) for head in rules_of(record).tiebreak_heads)
    head = ("#", tr.gettext(PLAYER), tr.gettext(POINTS), tr.gettext(GAMES), first, second)
    rows = tuple((str(p.rank), clean(who[p.user_id]), str(p.points), str(p.games),
                  *(str(b) for b in (*p.tiebreaks, 0, 0)[:2])) for p in places)
    lines: list[str] = []
    if record.status is Status.ACTIVE and record.rounds:
        playing, each = round_head(tr, record, record.rounds[-1])
        lines.append(playing)
        # names cut short, so that a line keeps its score and marks
        lines += [_pairing_text(tr, record, p, length=each, limit=LINE_NAME)
                  for p in record.rounds[-1].pairings]
    if gone:
        lines.append(tr.gettext("× withdrew"))
    return StandingsPicture(tr.gettext("Tournament: {title}", title=title(tr, record)), head,
                            rows, tuple(lines), tuple(p.user_id in gone for p in places))


def final_message(tr: Translator, record: TournamentRecord, nets: Mapping[int, int]) -> str:
    """The final standings, posted when it ends, with what each prize came to
    (before the table: a long table is cut short, never the prizes)."""
    lines = _head(tr, record)
    lines[0] = "🏆 <b>" + escape(tr.gettext("Final standings: {title}",
                                           title=title(tr, record))) + "</b>"
    winners = [p for p in record.final if p.rank == 1]
    who = names(record)
    lines.append(escape(tr.gettext("Winner: {names}", names=", ".join(
        clean(who[p.user_id], LIST_WIDTH) for p in winners))))
    paid = [(who[p], amount) for p, amount in nets.items() if amount]
    if paid:
        money = ", ".join(f"{clean(name, LIST_WIDTH)} {amount:+d}" for name, amount in
                          sorted(paid, key=lambda item: -item[1]))
        lines.append(escape(tr.gettext("Booked in the ledger: {money}.", money=money)))
    lines.append(table(tr, record, record.final))
    lines.append(escape(_legend(tr, record)))
    return fit_text("\n".join(lines))


def pairing_notice(tr: Translator, record: TournamentRecord, user_id: int,
                   boards: Translator) -> str | None:
    """What a player is told in private of their pairing this round (in their
    language; the board's ▶ Start named as it reads there: in ``boards``')."""
    current = record.rounds[-1]
    mine = next((p for p in current.pairings if user_id in p.players), None)
    if mine is None:
        return None
    head = tr.gettext("Round {n}", n=current.number) + " · " + title(tr, record)
    if mine.second is None:
        return "🏆 " + escape(head) + "\n" + escape(tr.gettext("You have a bye this round."))
    if mine.result is not None:
        return None
    other = names(record)[mine.opponent(user_id) or 0]
    if length_of(record, mine) > 1:
        head += " · " + tr.gettext("match to {n}", n=length_of(record, mine))
    return "🏆 " + escape(head) + "\n" + escape(tr.naming(
        "You play {name}: tap {start} on your board in the group.", boards, name=clean(other)))


def league_message(tr: Translator, season: str, rows: Sequence[LeagueRow],
                   who: Mapping[int, str], dates: str | None = None) -> str:
    """``/league``: the season's table (points won minus lost, games, wins,
    losses, rating change); ``dates``: a named season's, under its name."""
    head = "🏅 <b>" + escape(tr.gettext("League: {season}", season=clean(season))) + "</b>"
    if dates:
        head += "\n" + escape(dates)
    if not rows:
        return head + "\n" + escape(tr.gettext("No rated results this season yet."))
    lines = [f"{'#':>2} {_cell(tr.gettext(PLAYER))} {tr.gettext(POINTS):>4} "
             f"{tr.gettext(GAMES):>3} {tr.gettext(WON):>3} {tr.gettext(LOST):>3} "
             f"{tr.gettext(RATING_CHANGE):>5}"]
    for row in rows:
        lines.append(f"{row.rank:>2} {_cell(who.get(row.user_id, str(row.user_id)))} "
                     f"{row.points:>4} {row.games:>3} {row.wins:>3} {row.losses:>3} "
                     f"{round(row.rating_change):>+5d}")
    return head + "\n<pre>" + "\n".join(lines) + "</pre>\n" + escape(
        legend(tr, (GAMES, WON, LOST)) + "\n") + escape(tr.gettext(
        "Points: points won minus points lost (a match counts its length); ±Rtg: the rating "
        "change. /league YYYY-MM shows another month.") + " " + tr.gettext(
        "/league start Winter cup starts a named season."))


def season_dates(tr: Translator, season: NamedSeason) -> str:
    """"Since 01.12.2026" for a season running, "01.12.2026 – 28.02.2027, the
    final table" for one ended."""
    def day(moment: float) -> str:
        return time.strftime("%d.%m.%Y", time.gmtime(moment))

    if season.ended_at is None:
        return tr.gettext("Running since {day}; /league end ends it.", day=day(season.started_at))
    return tr.gettext("{start} – {end}: the final table.", start=day(season.started_at),
                      end=day(season.ended_at))
