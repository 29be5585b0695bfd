"""``python -m bot``: start the bot (see :func:`bot.app.main`)."""

from bot.app import main

if __name__ == "__main__":
    main()
