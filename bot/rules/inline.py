"""Inline games: which games an inline query may offer, and the lobby a Join makes.

An inline query (``@bot backgammon match=5`` typed in any chat) is read by the
same parser as ``/new`` (:func:`bot.rules.options.parse_new_args`).  An inline
game has no chat, so no chat ledger: ``stake=`` is refused with the reason, as
is the computer (it plays in the private chat).  Without a variant word both
variants are offered, each only if the options suit it.

Nobody is seated when the result is chosen: the bot does not know who chose
it unless inline feedback is on, and then only for some queries (@BotFather
lets the feedback be a percentage).  So the rule is the same every time: the
first two people to tap Join play, as in a group lobby (docs/inline.md); the
game then waits for ▶ Start, whose tap is the dice's entropy
(:func:`bot.rules.lobby.awaits_start`, docs/fair-dice.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.rules.dice import Dealer
from bot.rules.lobby import VARIANTS, apply_lobby, new_lobby
from bot.rules.options import (
    OptionError,
    check_asked,
    engine_options,
    inline_refusal,
    parse_new_args,
)
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.records import GameRecord, Status, TableOptions
from bot.vocab.refusals import STALE, Refusal
from engine.position import Variant


def inline_offers(words: Sequence[str]) -> list[tuple[Variant, TableOptions]]:
    """The games the words of an inline query ask for (variant, options);
    :class:`Refusal` (an :class:`OptionError` for words that do not parse) when
    there is none.

    >>> [v.value for v, _ in inline_offers([])]
    ['long', 'backgammon']
    >>> [(v.value, o.match_length) for v, o in inline_offers(["bg", "match=5"])]
    [('backgammon', 5)]
    >>> [v.value for v, _ in inline_offers(["koks=on"])]
    ['long']
    >>> inline_offers(["long", "stake=5"])
    Traceback (most recent call last):
    ...
    bot.vocab.refusals.Refusal: Inline games have no chat ledger, so they are never staked. \
Play for stakes with /new in a group with the bot.
    """
    variant, options = parse_new_args(words)
    why = inline_refusal(words, options)  # stake=, the computer (bot/rules/options.py)
    if why is not None:
        raise Refusal(why)
    offers: list[tuple[Variant, TableOptions]] = []
    refused: OptionError | None = None
    for each in [variant] if variant is not None else VARIANTS:
        try:
            check_asked(words, each)  # cube=on offers backgammon only
            engine_options(each, options)
        except OptionError as error:
            refused = refused or error
            continue
        offers.append((each, options))
    if not offers:
        assert refused is not None
        raise refused
    return offers


def inline_lobby(inline_message_id: str, chat_id: int, variant: Variant, options: TableOptions,
                 creator: int, dealer: Dealer, *, pictures: bool, game_id: str) -> GameRecord:
    """The lobby of an inline message, committed to its dice like any lobby;
    ``pictures``: its game's boards are pictures (a media chat is configured),
    decided now for the game's whole life (``board_photo``); ``game_id``: the
    message's lobby id (bot/store/inline.py), the same however it is made."""
    why = inline_refusal((), options)
    if why is not None:
        raise Refusal(why)
    lobby = new_lobby(chat_id, None, variant, options, creator, dealer)
    return lobby.model_copy(update={"inline_message_id": inline_message_id,
                                    "board_photo": pictures, "game_id": game_id})


def join_inline(record: GameRecord, user_id: int, name: str, dealer: Dealer) -> GameRecord:
    """Join tapped on an inline lobby (its ``ij:`` button): a lobby's Join
    (:func:`bot.rules.lobby.apply_lobby`; once two are seated the game waits
    for ▶ Start),
    stale once the lobby is a game."""
    if record.status is not Status.LOBBY:
        raise Refusal(STALE)
    tap = Callback.lobby(record.game_id, record.version, ButtonAction.JOIN)
    return apply_lobby(record, user_id, name, tap, dealer)
