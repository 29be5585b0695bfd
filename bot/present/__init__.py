"""What the user sees: message texts, keyboards, callback data, board pictures,
the /export file and translations.  Pure functions of records; no Telegram I/O.
"""
