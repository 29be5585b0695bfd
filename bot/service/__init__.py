"""The application layer: a change to a game as the rules see it, saved.

``saving``: a game loaded at a button's version, changed by a rule and saved
with one compare-and-set (``load_current``, ``save``, ``commit_game``), a match's
next game started in the same write; ``ending``: the one place a game's end
is saved, booked and kept for its analysis (``end_game``, the hook a
tournament joins).  Above the rules and the
store, which know nothing of each other beyond the records; the handlers
(``bot/edge``) call it.
"""
