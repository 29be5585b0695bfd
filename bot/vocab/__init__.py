"""The words every layer of the bot speaks, below all of them.

The stored records and their codec (``records``), a button's payload
(``callbacks``), a rule's refusal (``refusals``), the clock's time controls
and ``now()`` (``deadlines``), translation catalogs and the ``N_`` marker
(``i18n``), and user-given text cleaned and escaped (``usertext``).  The
rules, the presentation and the store all import these; they import nothing
of the bot (``tests/bot/test_layers.py``).
"""
