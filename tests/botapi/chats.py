"""Users and chats: the world a test sets up, what users do in it, and what the bot may ask of it.

Groups, supergroups, forums and their topics; members' statuses; joins,
leaves, the bot added, kicked or blocked; a group migrated to a supergroup
(its old id answers 400 with ``migrate_to_chat_id``).  The bot reads chats
and members with getChat, getChatMember(s), getChatAdministrators, and may
leave.
"""

from __future__ import annotations

from collections.abc import Iterable

from tests.botapi.core import _OWNER_STATUSES, _PRESENT_STATUSES, ServerCore, _ChatState
from tests.botapi.formatting import command_entities
from tests.botapi.model import JSON, Chat, Message, StoredFile, User, bad_request


class ChatsMixin(ServerCore):
    """The world's set-up, users' actions in chats, and the chat methods."""

    def _init_chats(self) -> None:
        self._next_user_id = 1_000_001
        self._next_group_id = 4_000_001

    def add_user(self, first_name: str = "User", *, username: str | None = None,
                 language_code: str | None = "en", last_name: str | None = None,
                 id: int | None = None) -> User:
        """A new user (not yet in any chat)."""
        with self._cond:
            if id is None:
                id = self._next_user_id
                self._next_user_id += 1
            user = User(id, first_name, username=username, language_code=language_code,
                        last_name=last_name)
            self._users[id] = user
            return user

    def private_chat(self, user: User, *, started: bool = True) -> Chat:
        """The user's private chat with the bot; ``started=False``: the bot may not write first."""
        with self._cond:
            state = self._chats.get(user.id)
            if state is None:
                state = _ChatState(Chat.private(user), members={user.id: "member"},
                                   started=started)
                self._chats[user.id] = state
            return state.chat

    def add_group(self, title: str = "Group", *, members: Iterable[User] = (),
                  admins: Iterable[User] = (), owner: User | None = None,
                  supergroup: bool = False, forum: bool = False, username: str | None = None,
                  bot_status: str = "member", id: int | None = None) -> Chat:
        """A group (or supergroup; ``forum=True`` implies one) the bot is already in."""
        supergroup = supergroup or forum
        with self._cond:
            if id is None:
                n = self._next_group_id
                self._next_group_id += 1
                id = -(1_000_000_000_000 + n) if supergroup else -n
            chat = Chat(id, "supergroup" if supergroup else "group", title=title,
                        username=username, is_forum=forum)
            state = _ChatState(chat, bot_status=bot_status)
            for user in members:
                state.members[user.id] = "member"
            for user in admins:
                state.members[user.id] = "administrator"
            if owner is not None:
                state.members[owner.id] = "creator"
            self._chats[id] = state
            self._bump()
            return chat

    def create_topic(self, chat: Chat | int, name: str, *, by: User | None = None) -> int:
        """A forum topic; returns its message_thread_id (and emits the service message)."""
        with self._cond:
            state = self._state(chat)
            if not state.chat.is_forum:
                raise ValueError(f"chat {state.chat.id} is not a forum")
            sender = by or self._any_member(state)
            msg = self._store(state, sender, service={
                "forum_topic_created": {"name": name, "icon_color": 7322096}})
            msg.thread_id = msg.message_id
            state.topics[msg.message_id] = name
            self._emit_message(state, msg)
            return msg.message_id

    def set_member_status(self, chat: Chat | int, user: User, status: str) -> None:
        """Set a user's status (creator/administrator/member/restricted/left/kicked), no update."""
        with self._cond:
            self._state(chat).members[user.id] = status
            self._bump()

    def set_admins(self, chat: Chat | int, *users: User) -> None:
        """Make exactly ``users`` administrators (the creator stays creator)."""
        with self._cond:
            state = self._state(chat)
            for uid, status in list(state.members.items()):
                if status == "administrator":
                    state.members[uid] = "member"
            for user in users:
                state.members[user.id] = "administrator"
            self._bump()

    def set_bot_status(self, chat: Chat | int, status: str) -> None:
        """Set the bot's own status in a chat silently (e.g. "administrator")."""
        with self._cond:
            self._state(chat).bot_status = status
            self._bump()

    def user_sends(self, chat: Chat | int, user: User, text: str, *,
                   thread_id: int | None = None, reply_to: int | Message | None = None) -> Message:
        """The user writes ``text``; commands get bot_command entities like in Telegram."""
        with self._cond:
            state = self._state(chat)
            if state.chat.type == "private":
                state.started = True
            elif state.members.get(user.id) not in _PRESENT_STATUSES:
                state.members[user.id] = "member"
            reply_id = reply_to.message_id if isinstance(reply_to, Message) else reply_to
            if thread_id is not None and state.chat.is_forum and thread_id not in state.topics:
                raise ValueError(f"no topic {thread_id} in chat {state.chat.id}")
            msg = self._store(state, user, text=text, entities=command_entities(text),
                              thread_id=thread_id, reply_to=reply_id)
            self._emit_message(state, msg)
            return msg.snapshot()

    def member_joins(self, chat: Chat | int, user: User, *, by: User | None = None) -> Message:
        """``user`` joins (or is added by ``by``): a new_chat_members service message."""
        with self._cond:
            state = self._state(chat)
            state.members[user.id] = "member"
            msg = self._store(state, by or user,
                              service={"new_chat_members": [user.to_dict()],
                                       "new_chat_member": user.to_dict(),
                                       "new_chat_participant": user.to_dict()})
            self._emit_message(state, msg)
            return msg.snapshot()

    def member_leaves(self, chat: Chat | int, user: User, *, kicked_by: User | None = None
                      ) -> Message:
        """``user`` leaves (or is kicked): a left_chat_member service message."""
        with self._cond:
            state = self._state(chat)
            state.members[user.id] = "kicked" if kicked_by else "left"
            msg = self._store(state, kicked_by or user,
                              service={"left_chat_member": user.to_dict(),
                                       "left_chat_participant": user.to_dict()})
            self._emit_message(state, msg)
            return msg.snapshot()

    def add_bot(self, chat: Chat | int, *, by: User, status: str = "member") -> int:
        """Someone adds the bot to a chat: a my_chat_member update; returns its update_id."""
        with self._cond:
            state = self._state(chat)
            update_id = self._set_bot_member(state, by, status)
            if state.chat.type != "private":
                msg = self._store(state, by, service={"new_chat_members": [self.bot.to_dict()],
                                                      "new_chat_member": self.bot.to_dict(),
                                                      "new_chat_participant": self.bot.to_dict()})
                self._emit_message(state, msg)
            return update_id

    def kick_bot(self, chat: Chat | int, *, by: User | None = None) -> int:
        """The bot is removed (group) or blocked (private): my_chat_member, then 403 on send."""
        with self._cond:
            state = self._state(chat)
            actor = by or self._any_member(state)
            return self._set_bot_member(state, actor, "kicked")

    def user_blocks_bot(self, user: User) -> int:
        """The user blocks the bot in their private chat (``kick_bot`` of the private chat)."""
        return self.kick_bot(self.private_chat(user), by=user)

    def migrate_chat(self, chat: Chat | int, *, by: User | None = None) -> Chat:
        """Upgrade a group to a supergroup: the old id then answers 400 with migrate_to_chat_id.

        Emits the two service messages Telegram sends (migrate_to_chat_id in the old chat,
        migrate_from_chat_id in the new one).  Messages are not carried over.
        """
        with self._cond:
            old = self._state(chat)
            if old.chat.type != "group":
                raise ValueError("only groups migrate")
            n = self._next_group_id
            self._next_group_id += 1
            new_chat = Chat(-(1_000_000_000_000 + n), "supergroup", title=old.chat.title)
            new = _ChatState(new_chat, members=dict(old.members), bot_status=old.bot_status)
            self._chats[new_chat.id] = new
            actor = by or self._any_member(old)
            msg = self._store(old, actor, service={"migrate_to_chat_id": new_chat.id})
            self._emit_message(old, msg)
            old.migrated_to = new_chat.id
            msg = self._store(new, actor, service={"migrate_from_chat_id": old.chat.id})
            self._emit_message(new, msg)
            return new_chat

    def _m_leave_chat(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        with self._cond:
            state = self._writable(params)
            self._set_bot_member(state, self.bot, "left")
            return True

    def _m_get_chat(self, params: JSON, files: dict[str, StoredFile]) -> JSON:
        with self._cond:
            state = self._writable(params)
            return {**state.chat.to_dict(), "accent_color_id": 0, "max_reaction_count": 11,
                    "accepted_gift_types": {"unlimited_gifts": False, "limited_gifts": False,
                                            "unique_gifts": False, "premium_subscription": False,
                                            "gifts_from_channels": False}}

    def _m_get_chat_member(self, params: JSON, files: dict[str, StoredFile]) -> JSON:
        with self._cond:
            state = self._writable(params)
            user_id = int(params.get("user_id") or 0)
            if user_id == self.bot.id:
                return self._member_json(self.bot, state.bot_status)
            user = self._users.get(user_id)
            if user is None:
                raise bad_request("user not found")
            return self._member_json(user, state.members.get(user_id, "left"))

    def _m_get_chat_administrators(self, params: JSON, files: dict[str, StoredFile]
                                   ) -> list[JSON]:
        with self._cond:
            state = self._writable(params)
            if state.chat.type == "private":
                raise bad_request("there are no administrators in the private chat")
            admins = [self._member_json(self._users[uid], status)
                      for uid, status in state.members.items()
                      if status in _OWNER_STATUSES and uid in self._users]
            if state.bot_status == "administrator":
                admins.append(self._member_json(self.bot, "administrator"))
            return admins

    def _m_get_chat_member_count(self, params: JSON, files: dict[str, StoredFile]) -> int:
        with self._cond:
            state = self._writable(params)
            return sum(s in _PRESENT_STATUSES for s in state.members.values()) + (
                state.bot_status in _PRESENT_STATUSES)
