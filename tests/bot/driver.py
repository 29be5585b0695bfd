"""Play a game through the buttons: the player the game waits for taps the
first useful button each time (Confirm, a whole turn, a step, a source, Roll,
Take).  Rolls and forced turns that the bot makes by itself need no tap.

Shared by the handler tests (in-process bot) and the end-to-end tests (the
real bot process); it only uses the local Bot API server's user actions.
A chat may have several games at once: a driver given a ``game_id`` plays
the board of that game only (its buttons carry the id).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from bot.vocab.callbacks import ButtonAction, Callback, CallbackDataError, Kind
from tests.botapi import BotApiServer
from tests.botapi.model import Chat, Message, User

PRIORITY = (ButtonAction.START, ButtonAction.CONFIRM, ButtonAction.TURN, ButtonAction.STEP,
            ButtonAction.SOURCE, ButtonAction.ROLL, ButtonAction.TAKE)
"""Game button actions in the order the driver prefers them."""


def _is_game_board(message: Message, game_id: str | None = None) -> bool:
    """A game's board, or a game against the computer waiting for its ▶ Start."""
    prefix = "g:" if game_id is None else f"g:{game_id}:"
    return message.by_bot and any(d is not None and (d.startswith(prefix) or _is_start(d, game_id))
                                  for row in message.buttons for _, d in row)


def _is_start(data: str, game_id: str | None = None) -> bool:
    try:
        tap = Callback.parse(data)
    except CallbackDataError:
        return False
    return tap.kind is Kind.LOBBY and tap.action is ButtonAction.START \
        and game_id in (None, tap.id)


def game_board(server: BotApiServer, chat: Chat | int, thread_id: int | None = None,
               game_id: str | None = None) -> Message | None:
    """The newest message of the bot (or sent via it: an inline game's) carrying
    game buttons (of the game ``game_id``)."""
    return server.newest_message(chat, lambda m: _is_game_board(m, game_id),
                                 thread_id=thread_id)


def game_id_of(message: Message) -> str:
    """The game (or lobby) whose buttons ``message`` carries."""
    return next(d.split(":")[1] for row in message.buttons for _, d in row
                if d.startswith(("g:", "l:")))


def pick(message: Message) -> str | None:
    """The data of the game button the driver taps next (▶ Start of a game
    against the computer first); None when only after-game buttons are left.
    Read with the bot's own parser: a button of another kind (🎲 Verify names
    a game id, which may begin with any letter) is never taken for a step or a
    turn."""
    actions: dict[ButtonAction, str] = {}
    for row in message.buttons:
        for _, data in row:
            try:
                tap = Callback.parse(data)
            except CallbackDataError:
                continue
            if tap.kind is Kind.GAME or (tap.kind is Kind.LOBBY
                                         and tap.action is ButtonAction.START):
                actions.setdefault(tap.action, data)
    return next((actions[a] for a in PRIORITY if a in actions), None)


def start_button(message: Message) -> str | None:
    """The data of ▶ Start on ``message`` (a game against the computer waiting
    for its person), if it has one."""
    return next((data for row in message.buttons for _, data in row
                 if data is not None and _is_start(data)), None)


STALE_ROUNDS = 3
"""Rounds a driver waits for a board left behind to be redrawn before it fails."""


@dataclass
class Driver:
    server: BotApiServer
    chat: Chat | int
    players: tuple[User, User]
    intruder: User | None = None
    thread_id: int | None = None
    game_id: str | None = None
    """The game to play (None: the newest game board of the chat)."""
    timeout: float = 30.0  # a loaded machine (CI with two cores) can take seconds per edit
    taps: int = 0
    refused: int = 0
    think: float = 0.0
    """Seconds a player waits before each tap (benchmarks: a human's pace)."""
    sent: list[tuple[str, float, int]] = field(default_factory=list)
    """(callback query id, server time its update was queued, update id) of
    every player tap."""

    def play(self, max_taps: int = 5000, *, stop_early: bool = False) -> Message:
        """Tap until the game is over; returns the final board.  ``stop_early``:
        return after ``max_taps`` taps instead of failing."""
        mover = 0
        stale = 0  # rounds in a row in which the board was out of date for both players
        for _ in range(max_taps):
            board = self.board()
            assert board is not None, self.server.transcript(self.chat)
            data = pick(board)
            if data is None:
                return board  # only after-game buttons (Rematch / New game) are left
            if self.intruder is not None and self.taps % 7 == 0:
                tap = self.server.user_taps(self.chat, self.intruder, board, data)
                answer = tap.wait_answer(self.timeout)
                assert answer.show_alert and answer.text, (
                    f"an intruder's tap on {data} was not refused: {answer}; the bot's answers "
                    f"to it: {self._answers_to(tap.query_id)}\n"
                    f"{self.server.transcript(self.chat)}")
                self.refused += 1
            for attempt in (mover, 1 - mover):
                if self.think:
                    time.sleep(self.think)
                since = self.server.revision
                tap = self.server.user_taps(self.chat, self.players[attempt], board, data)
                self.sent.append((tap.query_id, tap.queued_at, tap.update_id))
                answer = tap.wait_answer(self.timeout)
                self.taps += 1
                if not answer.show_alert:
                    mover = attempt
                    # wait for the board to show the result of the tap
                    self.server.wait_for(
                        lambda b=board, s=since: self._changed(b, s), self.timeout,
                        description="the board to change after a tap", chat=self.chat)
                    break
                self.refused += 1
            else:
                behind = any(word in (answer.text or "") for word in ("out of date", "catching up"))
                if behind and stale < STALE_ROUNDS:
                    # a board left behind (e.g. the bot was killed mid-redraw) is
                    # redrawn by the next refused tap that comes a moment after the
                    # game's last change: tap again as a player would, on the newest board
                    stale += 1
                    time.sleep(1.2)
                    continue
                raise AssertionError(f"nobody could tap {data}: {answer}\n"
                                     f"{self.server.transcript(self.chat)}")
            stale = 0
        if stop_early:
            board = self.board()
            assert board is not None
            return board
        raise AssertionError(f"game not over after {max_taps} taps")

    def board(self) -> Message | None:
        """The newest board of the driver's game."""
        return game_board(self.server, self.chat, self.thread_id, self.game_id)

    def _answers_to(self, query_id: str) -> list[object]:
        return [(r.params, r.status, r.response)
                for r in self.server.requests("answerCallbackQuery")
                if str(r.params.get("callback_query_id")) == query_id]

    def _changed(self, board: Message, since: int) -> bool:
        latest = self.board()
        if latest is None:
            return False
        return latest.message_id != board.message_id or latest.revision > since
