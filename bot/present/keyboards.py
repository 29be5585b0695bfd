"""Inline keyboards: every button the bot shows, in one place.

Pure functions from state to :class:`InlineKeyboardMarkup`.  A game or lobby
message's buttons (:class:`KeyboardBuilder`) carry a
:class:`bot.vocab.callbacks.Callback` bound to the record version they were
drawn for; the clock's, the settle requests', ``/lang``'s, ``/settings``' and
``/games``' buttons and an inline lobby's **Join** carry their own kinds of
data, and links are URL buttons.

The move keyboard offers exactly the engine's legal next steps, at most two
taps per step: a direct ``13→10`` button per step when there are few,
otherwise one button per source point (direct when that source has a single
target) and, after tapping a source, its targets.

>>> from bot.vocab.i18n import translator
>>> keys = KeyboardBuilder(translator("en"), "g1", 4)
>>> kb = keys.moves(str, [Step(24, 18, 6), Step(24, 21, 3)], can_undo=False, complete=False)
>>> [[b.text for b in row] for row in kb.inline_keyboard]
[['24→21', '24→18'], ['⋯ More']]
>>> kb.inline_keyboard[0][1].callback_data
'g:g1:4:m:24:18:6'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.present.dice import (
    verify_data,
)
from bot.present.ledger import resign_cost_label
from bot.present.names import KIND_NAMES, board_labels, duration
from bot.present.render import (
    point_label,
)
from bot.rules.hints import can_hint
from bot.rules.matchstate import MatchState, match_in_progress, table_of
from bot.rules.play import may_beaver, may_double, offered_turns, resign_options
from bot.rules.seats import seat_of
from bot.vocab.callbacks import AnalyseGame, ButtonAction, Callback, LanguageChoice, SettingChoice
from bot.vocab.i18n import LANGUAGE_NAMES, LANGUAGES, N_, Translator
from bot.vocab.records import ChatSettings, GameRecord, Status
from bot.vocab.tournament import tournament_of_game
from engine.game import Phase
from engine.position import BAR, OFF, Side, Step

DIRECT_LIMIT = 12
"""Up to this many distinct steps are offered as direct buttons (three rows of
four; a point then its target costs a second tap)."""
ROW = 4
"""Point buttons per row (Telegram allows 8; 4 stay readable on a phone)."""
TURN_ROW = 2
"""Whole-turn buttons per row (``24/18 13/10`` is long)."""

Label = Callable[[int], str]
"""Maps a mover's own point number (1..24) to the text the board shows."""
Row = list[InlineKeyboardButton]


def _rows(buttons: Sequence[InlineKeyboardButton], width: int = ROW) -> list[Row]:
    return [list(buttons[i : i + width]) for i in range(0, len(buttons), width)]


def point_text(tr: Translator, label: Label, point: int) -> str:
    if point == BAR:
        return tr.gettext("bar")
    if point == OFF:
        return tr.gettext("off")
    return label(point)


def step_text(tr: Translator, label: Label, step: Step, show_die: bool = False) -> str:
    text = f"{point_text(tr, label, step.source)}→{point_text(tr, label, step.target)}"
    return f"{text} ({step.die})" if show_die else text


def _ordered(steps: Iterable[Step]) -> list[Step]:
    # Sources from the bar and high points first, each with its near target first.
    return sorted(steps, key=lambda s: (-s.source, s.die))


@dataclass(frozen=True)
class KeyboardBuilder:
    """The keyboards of one game (or lobby) record at one version."""

    tr: Translator
    record_id: str
    version: int

    def button(self, text: str, action: ButtonAction, *args: int) -> InlineKeyboardButton:
        data = Callback.game(self.record_id, self.version, action, *args)
        return InlineKeyboardButton(text, callback_data=data.format())

    def more(self) -> InlineKeyboardMarkup:
        """Only "More": the waiting player's own board (its menu: resign, cancel)."""
        return InlineKeyboardMarkup([self._menu_row()])

    def lobby_button(self, text: str, action: ButtonAction, *args: int) -> InlineKeyboardButton:
        data = Callback.lobby(self.record_id, self.version, action, *args)
        return InlineKeyboardButton(text, callback_data=data.format())

    def _steps(self, label: Label, steps: Sequence[Step]) -> Row:
        # The same source and target with different dice differ only when
        # bearing off with a larger die; then the die is shown.
        moves = [(s.source, s.target) for s in steps]
        return [
            self.button(step_text(self.tr, label, s, moves.count((s.source, s.target)) > 1),
                        ButtonAction.STEP, s.source, s.target, s.die)
            for s in steps
        ]

    def _menu_row(self) -> Row:
        return [self.button(self.tr.label("more"), ButtonAction.MENU)]

    def _back(self) -> InlineKeyboardButton:
        return self.button("« " + self.tr.gettext("Back"), ButtonAction.BACK)

    def moves(self, label: Label, legal: Iterable[Step], *, can_undo: bool, complete: bool,
              source: int | None = None, turns: Sequence[str] = (),
              hint: bool = False) -> InlineKeyboardMarkup:
        """The mover's keyboard while playing a roll; ``source`` is a tapped
        point whose targets are shown.  ``turns``: the texts of whole turns
        offered as one tap each (the button carries the index), above the
        step-by-step buttons.  ``hint``: 💡 Hint beside More (the game has
        hints, bot/rules/hints.py)."""
        steps = _ordered(legal)
        rows: list[Row] = []
        chosen = [s for s in steps if s.source == source]
        if turns and not chosen:
            rows += _rows([self.button("▶ " + text, ButtonAction.TURN, index)
                           for index, text in enumerate(turns)], TURN_ROW)
        if chosen:
            rows += [*_rows(self._steps(label, chosen)), [self._back()]]
        elif len(steps) <= DIRECT_LIMIT:
            rows += _rows(self._steps(label, steps))
        else:
            buttons: Row = []
            for point, group in groupby(steps, key=lambda s: s.source):
                options = list(group)
                if len(options) == 1:
                    buttons += self._steps(label, options)
                else:
                    buttons.append(self.button(f"{point_text(self.tr, label, point)} ▸",
                                               ButtonAction.SOURCE, point))
            rows += _rows(buttons)
        last: Row = []
        if can_undo:
            last.append(self.button("↶ " + self.tr.gettext("Undo"), ButtonAction.UNDO))
        if complete:
            last.append(self.button(self.tr.label("confirm"), ButtonAction.CONFIRM))
        if last:
            rows.append(last)
        hints = [self.button("💡 " + self.tr.gettext("Hint"), ButtonAction.HINT)] if hint else []
        rows.append([*hints, *self._menu_row()])
        return InlineKeyboardMarkup(rows)

    def roll(self, *, can_double: bool, confirm_double: bool = False,
             take_back: bool = False) -> InlineKeyboardMarkup:
        """Before rolling: Roll, and Double beside it when the cube allows;
        ``confirm_double``: the double of a staked game asks once more;
        ``take_back``: the turn before was handed over without Confirm, and
        its mover may take it back (:meth:`take_back`) until this roll."""
        if confirm_double:
            return InlineKeyboardMarkup([[self.button(self.tr.gettext("Yes, double"),
                                                      ButtonAction.DOUBLE_SURE), self._back()]])
        row = [self.button("🎲 " + self.tr.gettext("Roll"), ButtonAction.ROLL)]
        if can_double:
            row.append(self.button("⬆ " + self.tr.gettext("Double"), ButtonAction.DOUBLE))
        rows = [row, self._menu_row()]
        if take_back:
            rows.insert(1, [self.take_back()])
        return InlineKeyboardMarkup(rows)

    def take_back(self) -> InlineKeyboardButton:
        """The mover's one tap that takes back a turn handed over without Confirm."""
        return self.button("↶ " + self.tr.gettext("Take my turn back"), ButtonAction.UNDO)

    def double(self, *, confirm_pass: bool = False, can_beaver: bool = False
               ) -> InlineKeyboardMarkup:
        """The doubled player's answer (after a beaver: the doubler's); Pass
        asks once more because it ends the game."""
        tr = self.tr
        if confirm_pass:
            return InlineKeyboardMarkup([[
                self.button(tr.gettext("Yes, pass"), ButtonAction.PASS_SURE), self._back()]])
        row = [self.button(tr.gettext("Take"), ButtonAction.TAKE),
               self.button(tr.gettext("Pass"), ButtonAction.PASS)]
        if can_beaver:
            row.append(self.button(tr.gettext("Beaver"), ButtonAction.BEAVER))
        return InlineKeyboardMarkup([row])

    def resign_offer(self) -> InlineKeyboardMarkup:
        return InlineKeyboardMarkup([[self.button(self.tr.gettext("Accept"), ButtonAction.ACCEPT),
                                      self.button(self.tr.gettext("Decline"),
                                                  ButtonAction.DECLINE)]])

    def resign_confirm(self, level: int, cost: str) -> InlineKeyboardMarkup:
        """A staked game's resignation asks once more: ``cost`` says what it
        books (bot/present/ledger.py :func:`resign_cost_label`)."""
        return InlineKeyboardMarkup([
            [self.button("✔ " + cost, ButtonAction.RESIGN_SURE, level)], [self._back()]])

    def cancel_offer(self) -> InlineKeyboardMarkup:
        return InlineKeyboardMarkup([[
            self.button(self.tr.gettext("Agree to cancel"), ButtonAction.CANCEL),
            self.button(self.tr.gettext("Keep playing"), ButtonAction.KEEP)]])

    def menu(self, levels: Sequence[str]) -> InlineKeyboardMarkup:
        """Resign (a button per kind, level 1 = the smallest), cancel, and back."""
        tr = self.tr
        rows = [[self.button(tr.gettext("Resign: {what}", what=name), ButtonAction.RESIGN, level)]
                for level, name in enumerate(levels, start=1)]
        rows.append([self.button(tr.gettext("Propose to cancel the game"), ButtonAction.CANCEL)])
        rows.append([self._back()])
        return InlineKeyboardMarkup(rows)

    def over(self, *, match_over: bool, new_game: bool = True, answer: bool = False,
             withdraw: bool = False, verify: str | None = None,
             analysis: str | None = None, standings: str | None = None
             ) -> InlineKeyboardMarkup:
        """After a game: the offer of the match's next game (or of a rematch)
        and a new game (``new_game``: not between two games of a match, nor in
        a private game).  While an offer waits: Accept / Decline for the
        other player (``answer``), Withdraw for the offerer (``withdraw``).
        ``verify``: the data of a 🎲 Verify button (the match's dice revealed);
        ``analysis``: of a 📊 Analysis button (:meth:`analysis_row`).
        ``standings``: a tournament game's match is over: its tournament's
        📋 Standings instead of a rematch or a new game (staked games outside
        the tournament)."""
        tr = self.tr
        new = [self.button(tr.gettext("New game"), ButtonAction.NEW)] if new_game else []
        check = ([InlineKeyboardButton(tr.label("verify"), callback_data=verify)]
                 if verify else []) + self.analysis_row(analysis)
        if standings is not None and match_over:
            return InlineKeyboardMarkup([[InlineKeyboardButton(
                "📋 " + tr.gettext("Standings"), callback_data=standings)],
                *([check] if check else [])])
        if not (answer or withdraw):
            first = tr.gettext("Rematch") if match_over else tr.label("next_game")
            return InlineKeyboardMarkup([[self.button(first, ButtonAction.REMATCH), *new],
                                         *([check] if check else [])])
        rows: list[Row] = []
        if answer:
            rows.append([self.button(tr.gettext("Accept"), ButtonAction.ACCEPT),
                         self.button(tr.gettext("Decline"), ButtonAction.DECLINE)])
        if withdraw:
            rows.append([self.button(tr.gettext("Withdraw the offer"), ButtonAction.WITHDRAW)])
        return InlineKeyboardMarkup([*rows, *([new] if new else []), *([check] if check else [])])

    def analysis_row(self, data: str | None) -> Row:
        """The 📊 Analysis button (its data: :class:`bot.vocab.callbacks.AnalyseGame`),
        or nothing without ``data``."""
        if data is None:
            return []
        return [InlineKeyboardButton("📊 " + self.tr.gettext("Analysis"), callback_data=data)]

    def lobby(self, names: Sequence[str], chosen: int, *,
              computer: bool = True) -> InlineKeyboardMarkup:
        """Variant choice (the chosen one ticked), Join / Leave, Play the bot
        (unless ``computer`` is false: an inline lobby) and Close."""
        tr = self.tr
        choice = [self.lobby_button(("✓ " if i == chosen else "") + name, ButtonAction.VARIANT, i)
                  for i, name in enumerate(names)]
        bot = [[self.lobby_button("🤖 " + tr.gettext("Play the bot"), ButtonAction.COMPUTER)]]
        return InlineKeyboardMarkup([
            choice,
            [self.lobby_button(tr.label("join"), ButtonAction.JOIN),
             self.lobby_button(tr.gettext("Leave"), ButtonAction.LEAVE)],
            *(bot if computer else []),
            [self.lobby_button(tr.gettext("Close"), ButtonAction.DROP)],
        ])


    def start(self, *, close: bool = True, keep: str | None = None) -> InlineKeyboardMarkup:
        """A seated game waiting for a player's tap: ▶ Start (and Close);
        ``keep``: the data of a 🎲 Verify button that sends the whole
        commitment to the tapper's private chat (an inline game's)."""
        rows = [[self.lobby_button(self.tr.label("start"), ButtonAction.START)]]
        if keep:
            rows.append([InlineKeyboardButton(self.tr.label("verify"),
                                              callback_data=keep)])
        if close:
            rows.append([self.lobby_button(self.tr.gettext("Close"), ButtonAction.DROP)])
        return InlineKeyboardMarkup(rows)


# ---------------------------------------------------------------- links and inline mode


def url_keyboard(text: str, url: str) -> InlineKeyboardMarkup:
    """One button that opens ``url`` (a private chat, a share dialog, a board)."""
    return InlineKeyboardMarkup([[InlineKeyboardButton(text, url=url)]])


def join_keyboard(tr: Translator, data: str) -> InlineKeyboardMarkup:
    """An inline query's lobby result: ✋ Join, ``data`` the game itself
    (:class:`bot.present.inline.InlineJoin`, the lobby is not stored yet)."""
    return InlineKeyboardMarkup([[InlineKeyboardButton(tr.label("join"),
                                                       callback_data=data)]])


def stacked(markup: InlineKeyboardMarkup | None, below: InlineKeyboardMarkup
            ) -> InlineKeyboardMarkup:
    """``markup``'s rows with ``below``'s under them (an inline board with the
    clock's offer, which has no chat to be sent to)."""
    rows = markup.inline_keyboard if markup is not None else ()
    return InlineKeyboardMarkup([*rows, *below.inline_keyboard])


# ---------------------------------------------------------------- /games, /lang, /settings


def games_keyboard(entries: Sequence[tuple[str, str]]) -> InlineKeyboardMarkup | None:
    """/games: a button per game being played, (its title, its ``ShowGame`` data)."""
    rows = [[InlineKeyboardButton(text[:60], callback_data=data)] for text, data in entries]
    return InlineKeyboardMarkup(rows) if rows else None


def language_keyboard() -> InlineKeyboardMarkup:
    """/lang: a button per language, and "auto" (each user's Telegram language)."""
    row = [InlineKeyboardButton(LANGUAGE_NAMES[lang], callback_data=LanguageChoice(lang).format())
           for lang in LANGUAGES]
    return InlineKeyboardMarkup([row, [InlineKeyboardButton(
        "🌐 auto", callback_data=LanguageChoice("auto").format())]])


SETTING_CHOICES: dict[str, dict[str, str]] = {
    "style": {"png": N_("🖼 Picture"), "text": N_("🔤 Text")},
    "view": {"follow": N_("First to move"), "white": N_("○ White"), "black": N_("● Black")},
    "autoplay": {"on": N_("Forced turns: automatic"), "off": N_("Forced turns: by hand")},
    "confirm": {"staked": N_("Confirm: staked games"), "always": N_("Confirm: always"),
                "never": N_("Confirm: never")},
    "tourney": {"anyone": N_("Tournaments: anyone"), "admins": N_("Tournaments: admins")},
}
"""Each /settings button's setting, its values and their labels."""
SETTING_FIELDS = {"style": "board_style", "view": "orientation", "autoplay": "autoplay",
                  "confirm": "confirm_turns", "tourney": "tournaments"}
"""Button setting name -> ChatSettings field."""
SETTING_VALUES: dict[str, object] = {"on": True, "off": False}
"""Button values that are not the field's value itself (autoplay is a bool)."""


def settings_keyboard(tr: Translator, settings: ChatSettings) -> InlineKeyboardMarkup:
    """/settings: a row per setting, the chat's current value ticked."""
    rows = []
    for name, values in SETTING_CHOICES.items():
        current = getattr(settings, SETTING_FIELDS[name])
        rows.append([InlineKeyboardButton(("✓ " if SETTING_VALUES.get(value, value) == current
                                           else "") + tr.gettext(label),
                                          callback_data=SettingChoice(name, value).format())
                     for value, label in values.items()])
    return InlineKeyboardMarkup(rows)


# ---------------------------------------------------------------- the clock


def _clock(text: str, game_id: str, action: ButtonAction) -> InlineKeyboardButton:
    return InlineKeyboardButton(text, callback_data=Callback.clock(game_id, action).format())


def mute_keyboard(tr: Translator, game_id: str, link: str | None = None) -> InlineKeyboardMarkup:
    """Under a reminder: mute reminders (and open the game, where it has a link)."""
    row = [_clock("🔕 " + tr.gettext("Mute reminders"), game_id, ButtonAction.MUTE)]
    if link:
        row.insert(0, InlineKeyboardButton(tr.gettext("Open the game"), url=link))
    return InlineKeyboardMarkup([row])


def timeout_keyboard(tr: Translator, game_id: str, period: str) -> InlineKeyboardMarkup:
    """The time ran out: claim the win, or give ``period`` (a duration's text) more."""
    return InlineKeyboardMarkup([[
        _clock("🏆 " + tr.gettext("Claim win"), game_id, ButtonAction.CLAIM_WIN),
        _clock("⏳ " + tr.gettext("Give {time} more", time=period), game_id,
               ButtonAction.MORE_TIME),
    ]])


def proposal_keyboard(tr: Translator, game_id: str, *, paused: bool) -> InlineKeyboardMarkup:
    """A proposal to pause (or, ``paused``, to resume) the clock: agree or not."""
    agree = ButtonAction.RESUME if paused else ButtonAction.PAUSE
    return InlineKeyboardMarkup([[_clock("✅ " + tr.gettext("Agree"), game_id, agree),
                                  _clock("✖ " + tr.gettext("No"), game_id, ButtonAction.PAUSE_NO)]])


# ---------------------------------------------------------------- /settle


def _settle(text: str, request_id: str, action: ButtonAction, *args: int) -> InlineKeyboardButton:
    return InlineKeyboardButton(text, callback_data=Callback.settle(request_id, action,
                                                                     *args).format())


def settle_answer_keyboard(tr: Translator, request_id: str) -> InlineKeyboardMarkup:
    """The other player confirms (or not) a settle request."""
    return InlineKeyboardMarkup([[_settle(tr.gettext("✅ Settled"), request_id,
                                          ButtonAction.SETTLE_YES), _settle(tr.gettext("✖ No"),
                                                                            request_id,
                                                                            ButtonAction.SETTLE_NO)]])


def settle_choice_keyboard(tr: Translator, request_id: str, balances: Sequence[str],
                           payments: Sequence[str]) -> InlineKeyboardMarkup:
    """The requester's choice: a button per player they have a balance with
    (``balances``' texts), then one per payment of the settle-up plan."""
    rows = [[_settle(text, request_id, ButtonAction.SETTLE_WITH, index)]
            for index, text in enumerate(balances)]
    rows += [[_settle("📋 " + text, request_id, ButtonAction.SETTLE_PLAN, index)]
             for index, text in enumerate(payments)]
    rows.append([_settle(tr.gettext("✖ No"), request_id, ButtonAction.SETTLE_NO)])
    return InlineKeyboardMarkup(rows)


def analysis_data(record: GameRecord) -> str | None:
    """The 📊 Analysis button's data of a finished game (None before its end)."""
    if record.status is not Status.FINISHED or not record.engine \
            or table_of(record).game.result is None:
        return None
    return AnalyseGame(record.game_id).format()


def verify_keyboard(tr: Translator, record: GameRecord) -> InlineKeyboardMarkup | None:
    """Only 🎲 Verify, once the record's seed is revealed (else nothing)."""
    check = verify_data(record)
    return None if check is None else InlineKeyboardMarkup([[InlineKeyboardButton(
        tr.label("verify"), callback_data=check)]])


def kept_keyboard(tr: Translator, record: GameRecord) -> InlineKeyboardMarkup | None:
    """What a result board keeps once the next game got a board of its own:
    the 📊 Analysis button (its other buttons belong to the new board)."""
    row = KeyboardBuilder(tr, record.game_id, record.version).analysis_row(analysis_data(record))
    return InlineKeyboardMarkup([row]) if row else None


def game_keyboard(tr: Translator, record: GameRecord, table: MatchState, *, ui: ButtonAction | None,
                  source: int | None, viewer: Side | None = None,
                  player: Side | None = None) -> InlineKeyboardMarkup | None:
    """The game's buttons; move buttons print the points in ``viewer``'s
    numbering (the side the board is numbered for, :attr:`BoardView.numbered_for`;
    the mover when not given), as :func:`point_label` does for the board.
    ``player``: the keyboard of one player's own board (see :func:`board_message`)."""
    game = table.game
    keys = KeyboardBuilder(tr, record.game_id, record.version)
    phase = game.phase
    if phase is Phase.OVER:
        if record.next_game is not None:  # continued by a later game: only the dice's check
            return verify_keyboard(tr, record)
        if record.cancel_by is not None and match_in_progress(record):
            return keys.cancel_offer()
        offerer = seat_of(record, record.rematch_by) if record.rematch_by is not None else None
        tournament = tournament_of_game(record.game_id)
        return keys.over(match_over=table.match_over,
                         new_game=table.match_over and not record.is_private,
                         answer=offerer is not None and player is not offerer,
                         withdraw=offerer is not None and player in (None, offerer),
                         verify=verify_data(record), analysis=analysis_data(record),
                         standings=None if tournament is None else Callback.tournament(
                             tournament, 0, ButtonAction.STANDINGS).format())
    if record.cancel_by is not None:
        return keys.cancel_offer()
    menu = ui in (ButtonAction.MENU, ButtonAction.RESIGN) and phase in (Phase.ROLL, Phase.MOVE)
    if player is not None and game.to_act is not player and not menu:
        if phase not in (Phase.ROLL, Phase.MOVE):
            return None  # the opponent answers an offer
        if record.takeback_by is not None and seat_of(record, record.takeback_by) is player:
            return InlineKeyboardMarkup([[keys.take_back()], *keys.more().inline_keyboard])
        return keys.more()
    if menu and ui is ButtonAction.RESIGN and source is not None:  # staked: "Yes, resign"
        resigner = player if player is not None else game.to_act
        assert resigner is not None
        return keys.resign_confirm(source, resign_cost_label(tr, record, resigner, source))
    if menu:
        return keys.menu([tr.gettext(KIND_NAMES[k]) for k in resign_options(table)])
    if phase is Phase.DOUBLE:
        return keys.double(confirm_pass=ui is ButtonAction.PASS, can_beaver=may_beaver(game))
    if phase is Phase.RESIGNATION:
        return keys.resign_offer()
    actor = game.to_act
    assert actor is not None
    if phase is Phase.ROLL:
        can_double = may_double(record, table)
        return keys.roll(can_double=can_double,
                         confirm_double=can_double and ui is ButtonAction.DOUBLE,
                         take_back=record.takeback_by is not None and player in (
                             None, seat_of(record, record.takeback_by)))
    turn = game.turn
    assert turn is not None
    seen_by = actor if viewer is None else viewer
    labels = board_labels(tr)

    def label(point: int) -> str:
        return point_label(game.variant, actor, seen_by, point, labels)

    turns = [choice.notation(numbering=seen_by, bar=labels.bar, off=labels.off)
             for choice in offered_turns(game)]
    return keys.moves(label, turn.distinct_steps, can_undo=bool(turn.played),
                      complete=turn.is_complete,
                      source=source if ui is ButtonAction.SOURCE else None, turns=turns,
                      hint=can_hint(record, table))


def timeout_offer(tr: Translator, record: GameRecord) -> InlineKeyboardMarkup:
    """Claim win / Give more time (as long as the time control's period)."""
    return timeout_keyboard(tr, record.game_id, duration(tr, record.options.time_control or 0))
