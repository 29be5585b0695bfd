"""``python -m bot``: start the bot (see :func:`bot.edge.app.main`)."""

from bot.edge.app import main

if __name__ == "__main__":
    main()
