"""The bot itself: getMe, its command menus, descriptions and names, and the
calls that only say yes.

``setMyCommands`` is checked as Telegram does (at most 100, names
``[a-z0-9_]{1,32}``, descriptions of 1-256 characters) and kept per scope
and language.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.botapi.core import ServerCore
from tests.botapi.model import JSON, StoredFile, bad_request


class ProfileMixin(ServerCore):
    """getMe, set/get/deleteMyCommands, descriptions, names, menu button, logOut, close."""

    inline_enabled: bool  # inline.py: @BotFather /setinline

    def _init_profile(self) -> None:
        self._commands: dict[tuple[str, str], list[JSON]] = {}
        self._bot_settings: dict[tuple[str, str], JSON] = {}

    def _m_get_me(self, params: JSON, files: dict[str, StoredFile]) -> JSON:
        return {**self.bot.to_dict(), "can_join_groups": True,
                "can_read_all_group_messages": not self.privacy_mode,
                "supports_inline_queries": self.inline_enabled, "can_connect_to_business": False,
                "has_main_web_app": False}

    def commands(self, *, scope: JSON | None = None, language_code: str = "") -> list[JSON]:
        with self._cond:
            return list(self._commands.get((self._scope_key(scope), language_code), []))

    @staticmethod
    def _scope_key(scope: Any) -> str:
        return json.dumps(scope or {"type": "default"}, sort_keys=True)

    def _m_set_my_commands(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        commands = params.get("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise bad_request("can't parse commands JSON object")
        for c in commands:
            if not re.fullmatch(r"[a-z0-9_]{1,32}", str(c.get("command", ""))):
                raise bad_request("BOT_COMMAND_INVALID")
            if not 1 <= len(str(c.get("description", ""))) <= 256:
                raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        with self._cond:
            key = (self._scope_key(params.get("scope")), params.get("language_code") or "")
            self._commands[key] = [{"command": c["command"], "description": c["description"]}
                                   for c in commands]
            return True

    def _m_get_my_commands(self, params: JSON, files: dict[str, StoredFile]) -> list[JSON]:
        return self.commands(scope=params.get("scope"),
                             language_code=params.get("language_code") or "")

    def _m_delete_my_commands(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        with self._cond:
            self._commands.pop((self._scope_key(params.get("scope")),
                                params.get("language_code") or ""), None)
            return True

    def _bot_setting(self, params: JSON, key: str) -> bool:
        with self._cond:
            self._bot_settings[(key, params.get("language_code") or "")] = params
            return True

    def _m_set_my_description(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        return self._bot_setting(params, "description")

    def _m_set_my_short_description(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        return self._bot_setting(params, "short_description")

    def _m_set_my_name(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        return self._bot_setting(params, "name")

    def _get_bot_setting(self, params: JSON, key: str) -> JSON:
        with self._cond:
            stored = self._bot_settings.get((key, params.get("language_code") or ""), {})
            return {key: stored.get(key) or ""}

    def _m_get_my_description(self, params: JSON, files: dict[str, StoredFile]) -> JSON:
        return self._get_bot_setting(params, "description")

    def _m_get_my_short_description(self, params: JSON, files: dict[str, StoredFile]) -> JSON:
        return self._get_bot_setting(params, "short_description")

    def _m_get_my_name(self, params: JSON, files: dict[str, StoredFile]) -> JSON:
        return self._get_bot_setting(params, "name")

    def _m_set_chat_menu_button(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        return True

    def _m_set_my_default_administrator_rights(self, params: JSON,
                                               files: dict[str, StoredFile]) -> bool:
        return True

    def _m_log_out(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        return True

    def _m_close(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        return True
