"""A chat's settings changed: its language, a display setting, a default of ``/new``.

Each function takes the stored :class:`ChatSettings` (None: the chat never
changed any) and returns the settings to save (one compare-and-set,
:meth:`bot.store.games.Games.update`).
"""

from __future__ import annotations

from bot.vocab.records import ChatSettings


def with_language(settings: ChatSettings | None, chat_id: int, language: str | None
                  ) -> ChatSettings:
    """``/lang``: the chat's language (None: each user's own); the boards
    follow, in the new language or ("auto") the next game's."""
    current = settings or ChatSettings(chat_id=chat_id)
    return current.model_copy(update={"language": language, "board_language": None})


def with_setting(settings: ChatSettings | None, chat_id: int, field: str, value: object
                 ) -> ChatSettings:
    """``/settings``: one of the chat's settings (board style, side shown, autoplay)."""
    current = settings or ChatSettings(chat_id=chat_id)
    return current.model_copy(update={field: value})


def with_default_option(settings: ChatSettings | None, chat_id: int, name: str, value: object
                        ) -> ChatSettings:
    """One of the chat's defaults for ``/new`` (``/stake``, ``/clock``)."""
    current = settings or ChatSettings(chat_id=chat_id)
    options = current.options.model_copy(update={name: value})
    return current.model_copy(update={"options": options})


def with_board_language(settings: ChatSettings | None, chat_id: int, language: str
                        ) -> ChatSettings:
    """The language the chat's boards are drawn in, noted with its first game
    (unless the chat has one already), so a group's board does not switch
    language with whoever taps."""
    current = settings or ChatSettings(chat_id=chat_id)
    if current.language or current.board_language:
        return current
    return current.model_copy(update={"board_language": language})
