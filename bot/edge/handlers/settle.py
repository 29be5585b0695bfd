"""/settle and its buttons: a balance settled, or a payment of the settle-up
plan booked, when the other player confirms it (bot/rules/settle.py: the plan,
who may answer a request and how; the store's one script checks the balance
is still the one confirmed).
"""

from __future__ import annotations

from telegram import CallbackQuery, InlineKeyboardMarkup, Update

from bot.edge.handlers.common import (
    Context,
    addressee_translator,
    alert_text,
    chat_id_of,
    display_name,
    get_store,
    names_in,
    own_button,
    parse_tap,
    refusal_text,
    replied_user,
    reply,
    translator_for,
)
from bot.present.keyboards import settle_answer_keyboard, settle_choice_keyboard
from bot.present.ledger import owes_text, pays_text
from bot.present.names import mention
from bot.rules.ledger import Debt
from bot.rules.settle import (
    GONE,
    Outdated,
    choice_request,
    chosen,
    may_confirm,
    may_refuse,
    pair_request,
    pick,
    with_balance,
)
from bot.store import PlanChanged, StoreError
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.i18n import N_, Translator
from bot.vocab.records import SettleRequest
from bot.vocab.refusals import Refusal
from bot.vocab.usertext import html_text

BALANCE_CHANGED = N_("The balance changed since the request; nothing was booked.")


def _debt(request: SettleRequest) -> Debt:
    """The pair's balance as the request saw it, or the planned payment it books."""
    assert request.other is not None
    if request.change is not None:  # the requester's balance changes by it
        if request.change < 0:
            return Debt(request.other, request.requester, -request.change)
        return Debt(request.requester, request.other, request.change)
    if request.amount > 0:
        return Debt(request.other, request.requester, request.amount)
    return Debt(request.requester, request.other, -request.amount)


def prompt(tr: Translator, request: SettleRequest) -> tuple[str, InlineKeyboardMarkup]:
    """The confirmation the other player answers."""
    assert request.other is not None
    names = request.names
    text = "\n".join([
        tr.gettext("{requester} asks to settle up: {owes}.",
                   requester=html_text(names[request.requester]),
                   owes=owes_text(tr, _debt(request), names)),
        tr.gettext("{other}, confirm that it is settled? The balance becomes 0.",
                   other=mention(request.other, names[request.other])),
    ]) if request.change is None else "\n".join([
        tr.gettext("{requester} asks to book a payment of the settle-up plan: {pays}.",
                   requester=html_text(names[request.requester]),
                   pays=pays_text(tr, _debt(request), names)),
        tr.gettext("{other}, confirm that it was paid? Only the balance between you two "
                   "changes, by {amount}.", other=mention(request.other, names[request.other]),
                   amount=abs(request.change)),
    ])
    return text, settle_answer_keyboard(tr, request.request_id)


def choices(tr: Translator, request: SettleRequest, balances: dict[int, int]
            ) -> InlineKeyboardMarkup:
    """One button per player the requester has a balance with, then one per
    payment of the settle-up plan the requester makes or receives."""
    owed = []
    for other in request.candidates:
        debt = (Debt(other, request.requester, balances[other]) if balances[other] > 0
                else Debt(request.requester, other, -balances[other]))
        owed.append(owes_text(tr, debt, request.names, html=False))
    paid = []
    for other, change in request.planned:
        payment = (Debt(other, request.requester, -change) if change < 0
                   else Debt(request.requester, other, change))
        paid.append(pays_text(tr, payment, request.names, html=False))
    return settle_choice_keyboard(tr, request.request_id, owed, paid)


async def settle(update: Update, context: Context) -> None:
    tr = await translator_for(update, context)
    user = update.effective_user
    assert user is not None
    store = get_store(context)
    chat_id = chat_id_of(update)
    names = await names_in(store, chat_id)
    names[user.id] = display_name(user)
    other = replied_user(update.effective_message)
    if other is not None and other.id == user.id:
        await reply(update, tr.gettext("Reply to the other player's message to settle "
                                       "with them."))
        return
    try:
        if other is not None:
            names[other.id] = display_name(other)
            request = pair_request(chat_id, user.id, other.id,
                                   await store.ledger.balance(chat_id, user.id, other.id), names)
        else:
            request, balances = choice_request(chat_id, user.id, await store.ledger.ledger(chat_id),
                                               names)
    except Refusal as refusal:
        await reply(update, refusal_text(tr, refusal))
        return
    await store.ledger.put_settle(request)
    if other is not None:  # addressed to the other player, in their language
        addressed = await addressee_translator(context, other.id, chat_id, other.language_code)
        text, keyboard = prompt(addressed, request)
        await reply(update, text, reply_markup=keyboard)
        return
    await reply(update, tr.gettext("Settle up with whom? (Or reply to their message with "
                                   "/settle.)"), reply_markup=choices(tr, request, balances))


async def _edit(query_message: object, context: Context, chat_id: int, text: str,
                keyboard: InlineKeyboardMarkup | None = None) -> None:
    message_id = getattr(query_message, "message_id", None)
    if message_id is not None:
        await context.bot.edit_message_text(text, chat_id=chat_id, message_id=message_id,
                                            reply_markup=keyboard)


async def _choose(query: CallbackQuery, context: Context, tr: Translator,
                  request: SettleRequest, data: Callback) -> None:
    """The requester picked a player, or a payment of the settle-up plan: the
    other player confirms."""
    planned = data.action is ButtonAction.SETTLE_PLAN
    other, change = pick(request, query.from_user.id, data.args[0], planned=planned)
    store = get_store(context)
    amount = await store.ledger.balance(request.chat_id, request.requester, other)
    asked = chosen(request, other, amount, change, await store.ledger.ledger(request.chat_id))
    if not await store.ledger.change_settle(request, asked):
        raise Refusal(GONE)
    await query.answer()
    addressed = await addressee_translator(context, other, request.chat_id)
    await _edit(query.message, context, request.chat_id, *prompt(addressed, asked))


async def _refuse(query: CallbackQuery, context: Context, tr: Translator,
                  request: SettleRequest) -> None:
    user = query.from_user
    may_refuse(request, user.id)
    if not await get_store(context).ledger.change_settle(request, None):
        raise Refusal(GONE)
    await query.answer()
    await _edit(query.message, context, request.chat_id, tr.gettext(
        "{name} said no; nothing was settled.", name=html_text(request.names[user.id])))


async def on_settle_button(update: Update, context: Context) -> None:
    """Choose the other player (requester), confirm or refuse (the other player)."""
    query = update.callback_query
    assert query is not None
    tr = await translator_for(update, context)
    data = await parse_tap(query, tr, GONE)
    if data is None or not await own_button(query, tr):
        return
    request = await get_store(context).ledger.load_settle(chat_id_of(update), data.id)
    try:
        if request is None:
            raise Refusal(GONE)
        if data.action in (ButtonAction.SETTLE_PLAN, ButtonAction.SETTLE_WITH):
            await _choose(query, context, tr, request, data)
        elif data.action is ButtonAction.SETTLE_NO:
            await _refuse(query, context, tr, request)
        else:
            await _confirm(query, context, tr, request)
    except Outdated as outdated:  # never right again: dropped, its buttons removed
        if request is not None:
            await get_store(context).ledger.change_settle(request, None)
        await query.answer(alert_text(tr, outdated), show_alert=True)
        await _edit(query.message, context, chat_id_of(update), tr.gettext(outdated.message))
    except Refusal as refusal:
        await query.answer(alert_text(tr, refusal), show_alert=True)


async def _confirm(query: CallbackQuery, context: Context, tr: Translator,
                   request: SettleRequest) -> None:
    """The other player confirms: the balance is settled if it is still the one asked."""
    may_confirm(request, query.from_user.id)
    store = get_store(context)
    names = request.names
    try:
        now = await store.ledger.settle(request)
    except PlanChanged:
        raise Outdated() from None
    except StoreError:
        raise Refusal(GONE) from None
    if now is None:
        await query.answer()
    else:  # refused: said where the tap was, and on the message, whose buttons go
        await query.answer(tr.gettext(BALANCE_CHANGED), show_alert=True)
    if now is None and request.change is not None:
        text = tr.gettext("Booked: {pays}. Only the balance between the two changed.",
                          pays=pays_text(tr, _debt(request), names))
    elif now is None:
        text = tr.gettext("Settled: {owes}; the balance is 0.",
                          owes=owes_text(tr, _debt(request), names))
    else:
        await store.ledger.change_settle(request, None)
        changed = with_balance(request, now)
        now_text = owes_text(tr, _debt(changed), names) if now else tr.gettext("nothing")
        text = tr.gettext("The balance changed since the request (now: {now}); nothing was "
                          "settled. Ask again with /settle.", now=now_text)
    await _edit(query.message, context, request.chat_id, text)
