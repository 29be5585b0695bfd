"""The Telegram and process edge: the application, handlers, webhook server,
Bot API client, flood limits, update de-duplication, logs, metrics, settings.
"""
