"""/invite: private games through one-use invitation links.

``/invite [variant] [options]`` (the options of /new, but those the options
table refuses in an invitation: a stake, as a private game has no chat
ledger, and the computer's level, as it is a game between two people;
bot/rules/options.py ``invite_refusal``) answers with a link; whoever opens it
(``/start i<token>`` in their private chat with the bot) plays the inviter.
The game lives under a synthetic chat id (:func:`bot.store.invite.game_chat_id`)
and is shown only as two views, one in each player's private chat, each
drawn from its player's side; the player to move gets a short ping there.
Links are one-use and expire (:mod:`bot.store.invite`).

``/start i<token>`` is one of ``/start``'s payloads
(:data:`bot.edge.handlers.menu.START_PAYLOADS`).
"""

from __future__ import annotations

import contextlib
from html import escape
from urllib.parse import quote

from telegram import Chat, Update
from telegram.error import BadRequest, Forbidden

from bot.edge import effects
from bot.edge.handlers.board import Viewer, announce, post_views
from bot.edge.handlers.common import (
    Context,
    addressee_translator,
    args_of,
    chat_settings,
    display_name,
    get_dealer,
    get_store,
    refusal_text,
    reply,
    translator_for,
)
from bot.present.dice import commitment_lines
from bot.present.keyboards import url_keyboard
from bot.present.lobby import options_line
from bot.present.names import variant_name
from bot.rules.dice import committed
from bot.rules.options import (
    OptionError,
    check_asked,
    engine_options,
    invite_refusal,
    parse_new_args,
)
from bot.store import invite as invites
from bot.store.invite import Invitation, RedeemOutcome
from bot.vocab.i18n import N_, Translator, pick_language
from bot.vocab.records import GameRecord, Player
from bot.vocab.usertext import html_text
from engine.position import Side, Variant

HOURS = invites.INVITE_TTL // 3600
INVITED = "invite"
"""The update journal's entry (bot/edge/effects.py) of the token an /invite handed out."""
EXPIRED = N_("This invitation has expired (links work for {hours} hours). Ask for a new one.")


def game_title(tr: Translator, variant: Variant, record_options: str) -> str:
    """"Long nardy (match to 3 · koks counts triple)"."""
    name = variant_name(tr, variant)
    return f"{name} ({record_options})" if record_options else name


async def invite(update: Update, context: Context) -> None:
    tr = await translator_for(update, context)
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    store = get_store(context)
    try:
        variant, options = parse_new_args(args_of(context))
        refused = invite_refusal(args_of(context), options)  # a stake, the computer
        if refused is not None:
            raise OptionError(refused)
        variant = variant or (await chat_settings(context, chat.id)).variant
        check_asked(args_of(context), variant)
        engine_options(variant, options)
    except OptionError as error:
        await reply(update, refusal_text(tr, error))
        return
    if chat.type != Chat.PRIVATE and not await store.prefs.has_started(user.id):
        # the game's board goes to the inviter's private chat: the bot must be allowed there
        start = f"https://t.me/{context.bot.username}?start"
        await reply(update, tr.gettext("Open a private chat with me first ({link}, tap Start), "
                                       "then send /invite again.", link=start))
        return
    # a retry of this /invite (its worker died, or a failover) hands out the same link
    # and commitment: the token is written to the update's journal before it is offered
    made = effects.recall(INVITED)
    offer = await store.invite.load(made) if made else None
    if offer is None:
        offer = Invitation(token=invites.new_token(), inviter=user.id,
                           name=display_name(user)[:64],
                           language=pick_language(user.language_code), variant=variant,
                           options=options, dice=committed(get_dealer(context)))
        effects.note(INVITED, offer.token)
        await effects.flush()
        await store.invite.offer(offer)
    link = invites.link(context.bot.username, offer.token)
    what = game_title(tr, variant, options_line(tr, _sample(offer)))
    share = url_keyboard(tr.gettext("Share the link"),
                         f"https://t.me/share/url?url={quote(link, safe='')}")
    await reply(update, tr.gettext(
        "Invitation to a private game: {game}. Whoever opens this link first plays you; it "
        "works once, for {hours} hours:\n{link}", game=escape(what), hours=HOURS, link=link)
        + "\n" + "\n".join(commitment_lines(tr, _sample(offer))),
        reply_markup=share)


def _sample(offer: Invitation) -> GameRecord:
    """A record with the invitation's variant and options (for their description)."""
    return GameRecord(chat_id=0, variant=offer.variant, options=offer.options, dice=offer.dice)


async def start_invitation(update: Update, context: Context, payload: str) -> bool:
    """``/start i<token>`` in a private chat: redeem the invitation; False if
    ``payload`` is no invitation."""
    token = invites.token_of(payload)
    if token is None:
        return False
    await accept(update, context, token)
    return True


async def accept(update: Update, context: Context, token: str) -> None:
    """Redeem an invitation and start the private game (once: see bot/store/invite.py)."""
    tr = await translator_for(update, context)
    user = update.effective_user
    assert user is not None
    store = get_store(context)
    redemption = await store.invite.redeem(token, user.id)
    if redemption.outcome is RedeemOutcome.OWN:
        await reply(update, tr.gettext("This is your own invitation: send the link to your "
                                       "opponent."))
        return
    offer = redemption.invitation
    if redemption.outcome is RedeemOutcome.USED:
        if redemption.used_by != user.id:
            await reply(update, tr.gettext("This invitation was already used."))
        elif offer is None or not await _start(update, context, tr, token, offer):
            await reply(update, tr.gettext("You accepted this invitation already; /games shows "
                                           "the game."))
        return
    if redemption.outcome is RedeemOutcome.EXPIRED or offer is None:
        await reply(update, tr.gettext(EXPIRED, hours=HOURS))
        return
    refused = invite_refusal((), offer.options)  # kept from before the table refused it
    if refused is not None:
        await reply(update, tr.gettext(refused))
        return
    await _start(update, context, tr, token, offer)


async def _start(update: Update, context: Context, tr: Translator, token: str,
                 offer: Invitation) -> bool:
    """Start the game of a redeemed invitation, unless it was started
    already (the link opened again, the update delivered again); True if
    this call started it."""
    user = update.effective_user
    assert user is not None
    store = get_store(context)
    chat_id, game_id = invites.game_chat_id(token), invites.game_id_of(token)
    if await store.games.chat_games(chat_id,
                                    None):  # (a game started before schema 2 has another id)
        return False
    name = display_name(user)[:64]
    # both seated, not started: the game's views show the whole commitment with ▶ Start,
    # and a player's tap on it (its callback query id) is the dice's entropy
    # (bot/rules/lobby.py awaits_start); /start's update id is sequential, the bot knows it
    lobby = GameRecord(chat_id=chat_id, game_id=game_id, variant=offer.variant,
                       dice=offer.dice, options=offer.options, created_by=offer.inviter,
                       players=(Player(user_id=offer.inviter, name=offer.name, side=Side.WHITE),
                                Player(user_id=user.id, name=name, side=Side.BLACK)))
    language = pick_language(user.language_code)
    inviter = await addressee_translator(context, offer.inviter, offer.inviter, offer.language)
    await _tell(context, offer.inviter, inviter, offer, opponent=name)
    await _tell(context, user.id, tr, offer, opponent=offer.name)
    await announce(context, tr, None, lobby, to=[(user.id, tr)])  # the inviter's: the link
    shown = await post_views(context, tr, lobby, [
        Viewer(offer.inviter, Side.WHITE, offer.language), Viewer(user.id, Side.BLACK, language)])
    return shown.version > 0


async def _tell(context: Context, chat_id: int, tr: Translator, offer: Invitation, *,
                opponent: str) -> None:
    what = game_title(tr, offer.variant, options_line(tr, _sample(offer)))
    with contextlib.suppress(Forbidden, BadRequest):  # the board's post notices a blocked chat
        await context.bot.send_message(chat_id, tr.gettext(
            "Private game against {name}: {game}. Your board follows; it is updated after "
            "every move.", name=html_text(opponent), game=escape(what)))
