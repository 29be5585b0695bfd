"""The game table's rules: who may do what, and the record each action turns into.

Lobby, play, clock and settle transitions as functions from a stored record,
the acting user and the action to the next record or a refusal.  The engine
(:mod:`engine`) owns the game and match rules; this layer applies them to the
bot's records.  No Telegram here.
"""
