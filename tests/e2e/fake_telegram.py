"""A fake Telegram Bot API server for end-to-end tests, on 127.0.0.1 only.

It serves `{base}/bot{token}/{method}` the way `TelegramAPIServer.from_base(base)` builds the URLs,
reads requests as aiogram sends them (form fields, JSON-encoded objects, multipart uploads), and
answers with Bot API objects that aiogram's models accept. Like the real server it refuses what the
real one refuses — text that does not parse in its `parse_mode`, texts and captions over the limits,
an edit that changes nothing, a reply to a missing message, callback data over 64 bytes, a photo
that does not decode — so a bot that passes here does not break on Telegram for those reasons.
A test may switch on Telegram's rate limits (`limits.on`: 20 calls a minute per group, 30 a second
per bot, 429 with `retry_after` past them) and have the next pictures refused (`refuse_photos`).

The test side queues updates (`user_message`, `press`, `migrate`) and reads what the bot showed in
each chat (`sent`, `wait_for`). Everything the bot asked for is in `requests`.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import io
import json
import math
import random
import re
import time
import urllib.parse
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from email.message import Message
from typing import Any

import aiohttp
from aiohttp import web

BOT_TOKEN = "123456:TEST-token"
BOT_USER: dict[str, Any] = {
    "id": 123456,
    "is_bot": True,
    "first_name": "Pulka",
    "username": "pulka_test_bot",
    "can_join_groups": True,
    "can_read_all_group_messages": False,
    "supports_inline_queries": True,
}

TEXT_LIMIT = 4096
CAPTION_LIMIT = 1024
INLINE_RESULTS_LIMIT = 50
INLINE_ID_LIMIT = 64
START_PARAMETER = re.compile(r"[A-Za-z0-9_-]{1,64}")
CALLBACK_DATA_LIMIT = 64
PHOTO_SIDES_LIMIT = 10_000
PHOTO_SIZE_LIMIT = 10 * 1024 * 1024
LONG_POLL_LIMIT = 50.0
WEBHOOK_CONFLICT = (
    "Conflict: can't use getUpdates method while webhook is active; "
    "use deleteWebhook to delete the webhook first"
)
# What an administrator bot's ChatMember carries beside its status and user (Bot API ChatMemberAdministrator).
ADMIN_RIGHTS: dict[str, bool] = {
    "can_be_edited": False,
    "is_anonymous": False,
    "can_manage_chat": True,
    "can_delete_messages": True,
    "can_manage_video_chats": False,
    "can_restrict_members": False,
    "can_promote_members": False,
    "can_change_info": False,
    "can_invite_users": True,
    "can_post_stories": False,
    "can_edit_stories": False,
    "can_delete_stories": False,
    "can_send_welcome_messages": False,
}
WEBHOOK_RETRY = 0.2  # seconds before an update not answered 2xx is sent again
WEBHOOK_CONNECTIONS = 40  # Telegram's default max_connections


@dataclass(frozen=True)
class User:
    """A Telegram user the tests act as."""

    id: int
    first_name: str
    username: str | None = None
    last_name: str | None = None
    language_code: str | None = None

    def api(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        for key in ("last_name", "username", "language_code"):
            if (value := getattr(self, key)) is not None:
                out[key] = value
        return out


@dataclass(frozen=True)
class Chat:
    """A chat: `private` (id = the user's id), `group` or `supergroup` (negative ids); a
    supergroup `is_forum` has topics (`FakeTelegram.open_topic`)."""

    id: int
    type: str
    title: str | None = None
    username: str | None = None
    first_name: str | None = None
    is_forum: bool = False

    def api(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "type": self.type}
        for key in ("title", "username", "first_name"):
            if (value := getattr(self, key)) is not None:
                out[key] = value
        if self.is_forum:
            out["is_forum"] = True
        return out


def private_chat(user: User) -> Chat:
    """The private chat between `user` and the bot."""
    return Chat(user.id, "private", username=user.username, first_name=user.first_name)


ANNA = User(1001, "Anna", "anna_pulka", language_code="ru")
BORIS = User(1002, "Boris", "boris_pulka", language_code="ru")
CLARA = User(1003, "Clara", "clara_pulka", language_code="en")
DMITRY = User(1004, "Dmitry", "dmitry_watch", language_code="ru")

GROUP = Chat(-1001500000001, "supergroup", "Pulka on Fridays")
OTHER_GROUP = Chat(-1001500000002, "supergroup", "Another table")
OLD_GROUP = Chat(-400000001, "group", "Pulka (before the upgrade)")
FORUM = Chat(-1001500000003, "supergroup", "Pulka club", is_forum=True)


class ApiError(Exception):
    """An error answer: `{"ok": false, "error_code": status, "description": ...}`."""

    def __init__(
        self, status: int, description: str, parameters: dict[str, Any] | None = None
    ) -> None:
        super().__init__(description)
        self.status = status
        self.description = description
        self.parameters = parameters


SENDING = frozenset(
    {"sendmessage", "sendphoto", "senddocument", "editmessagetext", "editmessagemedia"}
)


@dataclass
class Faults:
    """Faults injected into the methods that put something in a chat (`SENDING`), as a real
    Bot API server or the network between shows them: a 429 with `retry_after`, a 5xx, a
    connection closed before the answer (the request not applied), and an outage in which every
    call, getUpdates too, gets a 502. `rate` is the chance of a fault per call, drawn from a
    seeded generator; `injected` counts what was done."""

    rate: float = 0.0
    seed: int = 11
    retry_after: int = 1
    outage_until: float = 0.0
    injected: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self._random = random.Random(self.seed)

    def outage(self, seconds: float) -> None:
        self.outage_until = time.monotonic() + seconds

    def draw(self, method: str) -> str | None:
        """The fault for this call, if any: "outage", "429", "5xx" or "drop"."""
        if time.monotonic() < self.outage_until:
            self.injected["outage"] += 1
            return "outage"
        if method not in SENDING or self.rate <= 0 or self._random.random() >= self.rate:
            return None
        fault = self._random.choice(("429", "5xx", "drop"))
        self.injected[fault] += 1
        return fault


@dataclass
class Limits:
    """Telegram's limits on what a bot puts in chats (`SENDING`), enforced while `on` (off by
    default; a test switches them on): at most `group_per_minute` calls in any 60 s in one group
    (a negative chat id) and `bot_per_second` calls in any second in all chats. A call past them
    is not applied and is answered as Telegram does: 429 "Too Many Requests: retry after N" with
    `parameters.retry_after` N, the whole seconds until it would be allowed. Every call that got
    through counts, whatever its answer. `refused` counts the 429s by chat; `went` keeps, per
    chat, when each counted call came (monotonic seconds)."""

    on: bool = False
    group_per_minute: int = 20
    bot_per_second: int = 30
    refused: Counter[int] = field(default_factory=Counter)
    went: defaultdict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    _bot: deque[float] = field(default_factory=deque)
    _groups: defaultdict[int, deque[float]] = field(default_factory=lambda: defaultdict(deque))

    def admit(self, chat_id: int | None) -> int | None:
        """None when the call may go (it is counted), else the `retry_after` to answer."""
        if not self.on:
            return None
        now = time.monotonic()
        while self._bot and self._bot[0] <= now - 1.0:
            self._bot.popleft()
        waits = [self._bot[0] + 1.0 - now] if len(self._bot) >= self.bot_per_second else []
        group = self._groups[chat_id] if chat_id is not None and chat_id < 0 else None
        if group is not None:
            while group and group[0] <= now - 60.0:
                group.popleft()
            if len(group) >= self.group_per_minute:
                waits.append(group[0] + 60.0 - now)
        if waits:
            self.refused[chat_id or 0] += 1
            return max(1, math.ceil(max(waits)))
        self._bot.append(now)
        if group is not None:
            group.append(now)
        if chat_id is not None:
            self.went[chat_id].append(now)
        return None

    def most_in_a_minute(self, chat_id: int) -> int:
        """The most calls to the chat that got through in any 60 s."""
        times = self.went[chat_id]
        return max((sum(1 for u in times if t <= u < t + 60.0) for t in times), default=0)


def _chat_param(params: dict[str, Any]) -> int | None:
    try:
        return int(params["chat_id"])
    except (KeyError, TypeError, ValueError):
        return None


class EntityParseError(ValueError):
    """Text that Telegram would not parse in the given parse_mode."""


@dataclass
class Request:
    """One call the bot made, as the server read it."""

    method: str
    params: dict[str, Any]
    files: dict[str, bytes]
    status: int = 200
    error: str | None = None


class Upload(bytes):
    """The bytes of an uploaded file part, with the file name the client gave."""

    filename: str = ""


@dataclass
class StoredFile:
    file_id: str
    file_unique_id: str
    data: bytes
    file_path: str
    width: int = 0
    height: int = 0
    file_name: str | None = None


@dataclass
class Sent:
    """Something the bot did to a chat: a message sent, edited or deleted.

    `text` is the text or caption as a user sees it (markup removed); `raw_text` is what the bot
    sent. `photo` holds the image bytes when this call put a photo in the chat (sendPhoto, or
    editMessageMedia with a photo); `message` is the message as it stands after the call.
    """

    method: str
    chat_id: int
    message_id: int
    text: str
    raw_text: str
    params: dict[str, Any] = field(repr=False)
    message: dict[str, Any] = field(repr=False)
    photo: bytes | None = field(default=None, repr=False)
    document: bytes | None = field(default=None, repr=False)

    @property
    def is_photo(self) -> bool:
        return self.photo is not None

    @property
    def is_edit(self) -> bool:
        return self.method.startswith("editMessage")

    @property
    def thread_id(self) -> int | None:
        """The forum topic the message is in (None: the chat itself, or a forum's General)."""
        return self.message.get("message_thread_id")

    @property
    def reply_markup(self) -> dict[str, Any] | None:
        return self.message.get("reply_markup")

    @property
    def buttons(self) -> list[dict[str, Any]]:
        """The inline buttons of the message after this call, row by row."""
        return inline_buttons(self.message)

    def button(self, text: str) -> dict[str, Any]:
        """The inline button whose text contains `text` (case-insensitive)."""
        return find_button(self.message, text)


def inline_buttons(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The inline buttons of a Bot API message, row by row."""
    markup = message.get("reply_markup") or {}
    return [button for row in markup.get("inline_keyboard", []) for button in row]


def find_button(message: dict[str, Any], text: str) -> dict[str, Any]:
    """The first inline button whose text contains `text` (case-insensitive)."""
    buttons = inline_buttons(message)
    for button in buttons:
        if text.casefold() in button["text"].casefold():
            return button
    shown = [b["text"] for b in buttons]
    raise LookupError(f"no button {text!r} in message {message['message_id']}: {shown}")


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _byte_offset(text: str, index: int) -> int:
    return len(text[:index].encode("utf-8"))


_HTML_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)(\s[^<>]*)?\s*/?>")
_HTML_TAGS = frozenset(
    [
        "b",
        "strong",
        "i",
        "em",
        "u",
        "ins",
        "s",
        "strike",
        "del",
        "span",
        "tg-spoiler",
        "a",
        "tg-emoji",
        "code",
        "pre",
        "blockquote",
        "tg-time",
    ]
)
_HTML_ENTITY = re.compile(r"&(#[0-9]+|#[xX][0-9a-fA-F]+|[a-zA-Z]+);")


def _html_plain(text: str) -> str:
    out: list[str] = []
    stack: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "<":
            match = _HTML_TAG.match(text, i)
            if match is None:
                raise EntityParseError(
                    f"Unsupported start tag at byte offset {_byte_offset(text, i)}"
                )
            closing, name = match.group(1), match.group(2).lower()
            if name not in _HTML_TAGS:
                raise EntityParseError(
                    f'Unsupported start tag "{name}" at byte offset {_byte_offset(text, i)}'
                )
            if closing:
                if not stack or stack[-1] != name:
                    expected = f"</{stack[-1]}>" if stack else "nothing"
                    raise EntityParseError(
                        f"Unmatched end tag at byte offset {_byte_offset(text, i)}, "
                        f'expected "{expected}", found "</{name}>"'
                    )
                stack.pop()
            else:
                stack.append(name)
            i = match.end()
        elif char == "&" and (entity := _HTML_ENTITY.match(text, i)):
            out.append(html.unescape(entity.group(0)))
            i = entity.end()
        else:
            out.append(char)
            i += 1
    if stack:
        raise EntityParseError(f'Can\'t find end tag corresponding to start tag "{stack[-1]}"')
    return "".join(out)


def plain_text(text: str, parse_mode: str | None) -> str:
    """The text a user sees, or EntityParseError where Telegram answers "can't parse entities"."""
    mode = (parse_mode or "").lower()
    if not mode:
        return text
    if mode == "html":
        return _html_plain(text)
    raise ApiError(
        400,
        f"Bad Request: parse_mode {parse_mode!r} is not served by the fake (the bot writes HTML)",
    )


# Fields whose form value is a plain string even when it looks like JSON ("123", "true").
_STRING_FIELDS = frozenset(
    [
        "text",
        "caption",
        "parse_mode",
        "callback_query_id",
        "action",
        "language_code",
        "photo",
        "document",
        "video",
        "audio",
        "animation",
        "voice",
        "sticker",
        "thumbnail",
        "url",
        "description",
        "short_description",
        "name",
        "title",
        "inline_message_id",
        "business_connection_id",
        "message_effect_id",
        "emoji",
        "query",
        "inline_query_id",
        "next_offset",
    ]
)
_COMMAND = re.compile(r"/[A-Za-z0-9_]{1,32}(@[A-Za-z0-9_]{3,32})?")
_MENTION = re.compile(r"(?<![\w@])@[A-Za-z0-9_]{4,32}\b")
_DEFAULT_UPDATE_TYPES = frozenset(
    {"message", "edited_message", "callback_query", "my_chat_member", "inline_query"}
)


def _header_params(header: str, value: str) -> Message:
    message = Message()
    message[header] = value
    return message


def multipart_fields(body: bytes, content_type: str) -> list[tuple[str, str | Upload]]:
    """The parts of a whole multipart/form-data body (RFC 7578): text fields as str, file parts
    (those with a filename) as `Upload`s. ValueError when the body is not one."""
    boundary = _header_params("content-type", content_type).get_param("boundary")
    if not isinstance(boundary, str) or not boundary:
        raise ValueError("multipart body without a boundary")
    chunks = (b"\r\n" + body).split(b"\r\n--" + boundary.encode("latin-1"))
    fields: list[tuple[str, str | Upload]] = []
    for chunk in chunks[1:]:
        if chunk.startswith(b"--"):
            return fields  # the closing delimiter
        head, separator, content = chunk.partition(b"\r\n\r\n")
        if not separator:
            raise ValueError("a multipart part without a blank line after its headers")
        disposition = ""
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.decode("utf-8").partition(":")
            if name.strip().lower() == "content-disposition":
                disposition = value.strip()
        part = _header_params("content-disposition", disposition)
        field = part.get_param("name", header="content-disposition")
        if not isinstance(field, str):
            raise ValueError("a multipart part without a name")
        filename = part.get_filename()
        if filename is None:
            fields.append((field, content.decode("utf-8")))
        else:
            upload = Upload(content)
            upload.filename = filename
            fields.append((field, upload))
    raise ValueError("a multipart body without its closing delimiter")


def _decode_field(name: str, value: Any) -> Any:
    if not isinstance(value, str) or name in _STRING_FIELDS:
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


def _image_size(data: bytes) -> tuple[int, int] | None:
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            return image.size
    except Exception:
        return None


class FakeTelegram:
    """The fake Bot API server; `async with FakeTelegram() as server:` starts it on 127.0.0.1.

    `server.url` is the base for TELEGRAM_API_URL / `TelegramAPIServer.from_base`.
    """

    def __init__(self, token: str = BOT_TOKEN, bot_user: dict[str, Any] | None = None) -> None:
        self.token = token
        self.bot_user = dict(bot_user or BOT_USER)
        self.requests: list[Request] = []
        self.sent: defaultdict[int, list[Sent]] = defaultdict(list)
        self.commands: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self.callback_answers: dict[str, dict[str, Any]] = {}
        self.inline_answers: dict[str, dict[str, Any]] = {}
        self.poll_count = 0
        self.dropped_updates: list[dict[str, Any]] = []
        self.deliveries: Counter[int] = Counter()  # how many times each update reached the bot
        self.files: dict[str, StoredFile] = {}
        self.faults = Faults()
        self.limits = Limits()
        self.photo_refusals: deque[str] = deque()  # the next uploaded photos refused with these
        self._chats: dict[int, Chat] = {}
        self._users: dict[int, User] = {}
        self._migrated: dict[int, int] = {}
        self._kicked: set[int] = set()
        self._topics: defaultdict[int, set[int]] = defaultdict(set)  # forum → its topics
        self._messages: defaultdict[int, dict[int, dict[str, Any]]] = defaultdict(dict)
        self._raw: dict[tuple[int, int], str] = {}
        self._next_message_id: defaultdict[int, int] = defaultdict(lambda: 101)
        self._updates: list[dict[str, Any]] = []
        self._queued: dict[int, dict[str, Any]] = {}
        self._next_update_id = 500_001
        self._undelivered: set[int] = set()  # queued, not yet handed to the bot
        self._allowed_updates: frozenset[str] = _DEFAULT_UPDATE_TYPES
        self._open_queries: set[str] = set()
        self._open_inline: set[str] = set()
        self._next_query = 7_000_001
        self._poll_generation = 0
        self._changed = asyncio.Event()
        self._closing = False
        self._busy = 0
        self._last_activity = 0.0
        self._runner: web.AppRunner | None = None
        self.port = 0
        self.webhook = WebhookDelivery(self)  # setWebhook: updates are POSTed to the bot

    # ---- lifecycle -------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self, port: int = 0) -> str:
        app = web.Application(client_max_size=PHOTO_SIZE_LIMIT * 2)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        self._runner = web.AppRunner(app, shutdown_timeout=2.0, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        self.port = self._runner.addresses[0][1]
        return self.url

    async def close(self) -> None:
        self._closing = True
        self._notify()
        await self.webhook.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeTelegram:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ---- the test side: chats, users, updates ----------------------------------------------

    def add_chat(self, chat: Chat) -> None:
        """Make a chat known (the bot was added to it); updates from a chat add it too."""
        self._chats[chat.id] = chat

    def refuse_photos(self, description: str = "PHOTO_INVALID_DIMENSIONS", count: int = 1) -> None:
        """The next `count` uploaded photos (sendPhoto, editMessageMedia) are refused with
        400 "Bad Request: `description`", as Telegram refuses a picture it cannot take
        ("PHOTO_INVALID_DIMENSIONS", "IMAGE_PROCESS_FAILED", "PHOTO_SAVE_FILE_INVALID")."""
        self.photo_refusals.extend([description] * count)

    def kick(self, chat: Chat | int) -> None:
        """The bot is removed from the chat: every call for it answers 403 from now on."""
        self._kicked.add(_chat_id(chat))

    def open_topic(self, chat: Chat, name: str, user: User | None = None) -> int:
        """A topic created in the forum `chat` (by `user`, Anna by default): its
        `message_thread_id` is the id of the `forum_topic_created` service message, queued as an
        update as Telegram sends it."""
        assert chat.is_forum, f"chat {chat.id} is not a forum"
        user = user or ANNA
        created = {"forum_topic_created": {"name": name, "icon_color": 7322096}}
        message = self._store_message(chat, user.api(), created)
        thread = int(message["message_id"])
        message.update(message_thread_id=thread, is_topic_message=True)
        self._topics[chat.id].add(thread)
        self._users[user.id] = user
        self._queue({"message": _snapshot(message)})
        return thread

    def user_message(
        self,
        chat: Chat,
        user: User,
        text: str,
        *,
        reply_to: int | None = None,
        topic: int | None = None,
    ) -> dict[str, Any]:
        """Queue a text message from `user` in `chat` (in its forum topic `topic`); returns the
        message as the bot will see it.

        Commands and @mentions carry entities as real Telegram sends them; a topic's message
        carries `message_thread_id` and `is_topic_message`, and (when it replies to nothing else)
        is a reply to the topic's `forum_topic_created` message; a General topic's carries none.
        """
        entities: list[dict[str, Any]] = []
        if command := _COMMAND.match(text):
            entities.append({"type": "bot_command", "offset": 0, "length": command.end()})
        for mention in _MENTION.finditer(text):
            if command and mention.start() < command.end():
                continue
            entities.append(
                {
                    "type": "mention",
                    "offset": _utf16_len(text[: mention.start()]),
                    "length": _utf16_len(mention.group()),
                }
            )
        content: dict[str, Any] = {"text": text}
        if entities:
            content["entities"] = entities
        if topic is not None:
            if topic not in self._topics[chat.id]:
                raise LookupError(f"chat {chat.id} has no topic {topic}")
            content.update(message_thread_id=topic, is_topic_message=True)
            root = self._message(chat.id, topic)
            content["reply_to_message"] = {
                k: v for k, v in root.items() if k != "reply_to_message"
            }
        if reply_to is not None:
            content["reply_to_message"] = self._message(chat.id, reply_to)
        message = self._store_message(chat, user.api(), content)
        self._users[user.id] = user
        self._queue({"message": _snapshot(message)})
        return message

    def press(self, chat: Chat, user: User, message_id: int, callback_data: str) -> str:
        """Queue a press on an inline button of the bot's message; returns the query id.

        The button must exist on the message as it stands now, as for a real user.
        """
        message = self._message(chat.id, message_id)
        datas = [b.get("callback_data") for b in inline_buttons(message)]
        if callback_data not in datas:
            raise LookupError(
                f"message {message_id} in chat {chat.id} has no button {callback_data!r}: {datas}"
            )
        query_id = str(self._next_query)
        self._next_query += 1
        self._open_queries.add(query_id)
        self._users[user.id] = user
        self._queue(
            {
                "callback_query": {
                    "id": query_id,
                    "from": user.api(),
                    "message": _snapshot(message),
                    "chat_instance": str(-chat.id),
                    "data": callback_data,
                }
            }
        )
        return query_id

    def inline_query(self, user: User, query: str, chat_type: str = "supergroup") -> str:
        """Queue an inline query (`@bot query` typed by `user` in a chat of `chat_type`);
        returns its id, for `wait_for_inline_answer`."""
        query_id = str(self._next_query)
        self._next_query += 1
        self._open_inline.add(query_id)
        self._users[user.id] = user
        inline: dict[str, Any] = {
            "id": query_id,
            "from": user.api(),
            "query": query,
            "offset": "",
            "chat_type": chat_type,
        }
        self._queue({"inline_query": inline})
        return query_id

    def add_bot(self, chat: Chat, by: User, status: str = "member") -> None:
        """`by` adds the bot to `chat` (as a member or an administrator): Telegram's
        `my_chat_member` update, the bot's status going from left to `status`."""
        self.add_chat(chat)
        self._users[by.id] = by
        bot = {k: self.bot_user[k] for k in ("id", "is_bot", "first_name", "username")}
        new: dict[str, Any] = {"status": status, "user": bot}
        if status == "administrator":
            new |= ADMIN_RIGHTS
        update = {
            "chat": chat.api(),
            "from": by.api(),
            "date": int(time.time()),
            "old_chat_member": {"status": "left", "user": bot},
            "new_chat_member": new,
        }
        self._queue({"my_chat_member": update})

    def migrate(self, old: Chat, new: Chat, user: User | None = None) -> None:
        """The group `old` becomes the supergroup `new`, as when Telegram upgrades a group.

        Both service messages are queued (sent by `user`, Anna by default); from now on calls for
        `old` answer 400 with `migrate_to_chat_id`, and the bot's old message ids do not exist in
        `new`.
        """
        user = user or ANNA
        self._chats.setdefault(old.id, old)
        self._chats[new.id] = new
        to_old = self._store_message(old, user.api(), {"migrate_to_chat_id": new.id})
        from_new = self._store_message(new, user.api(), {"migrate_from_chat_id": old.id})
        self._migrated[old.id] = new.id
        self._queue({"message": _snapshot(to_old)})
        self._queue({"message": _snapshot(from_new)})

    @property
    def last_update_id(self) -> int:
        """The id of the update queued last."""
        return self._next_update_id - 1

    def redeliver(self, update_id: int) -> None:
        """Queue an update again under its own id, as Telegram does when the bot died before
        confirming it: a bot starting afresh (getUpdates without offset) receives it once more."""
        update = self._queued[update_id]
        self._updates = sorted([*self._updates, update], key=lambda u: u["update_id"])
        self._undelivered.add(update_id)
        self._notify()

    # ---- the test side: reading what the bot did --------------------------------------------

    def cursor(self, chat: Chat | int) -> int:
        """A position in the chat's log: pass it as `since` to wait only for what comes after."""
        return len(self.sent[_chat_id(chat)])

    def calls(self, method: str) -> list[Request]:
        return [r for r in self.requests if r.method.lower() == method.lower()]

    def failed_requests(self) -> list[Request]:
        return [r for r in self.requests if r.status != 200]

    def message(self, chat: Chat | int, message_id: int) -> dict[str, Any]:
        """A message as it stands now (raises LookupError when it does not exist)."""
        return self._message(_chat_id(chat), message_id)

    def photo_bytes(self, message: dict[str, Any]) -> bytes:
        """The bytes of the largest size of a message's photo."""
        return self.files[message["photo"][-1]["file_id"]].data

    async def wait_for(
        self,
        chat: Chat | int,
        predicate: Callable[[Sent], bool] | None = None,
        timeout: float = 15.0,
        *,
        since: int = 0,
    ) -> Sent:
        """The first thing the bot did in `chat` from position `since` that satisfies `predicate`.

        Raises AssertionError after `timeout` seconds, listing what the bot did meanwhile.
        """
        chat_id = _chat_id(chat)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            for sent in self.sent[chat_id][since:]:
                if predicate is None or predicate(sent):
                    return sent
            if not await self._wait_change(deadline):
                raise AssertionError(
                    f"nothing matching after {timeout:.0f} s in chat {chat_id}\n"
                    + self.describe(chat_id, since)
                )

    async def wait_for_answer(self, query_id: str, timeout: float = 15.0) -> dict[str, Any]:
        """The bot's answerCallbackQuery for the press `query_id`."""
        deadline = asyncio.get_running_loop().time() + timeout
        while query_id not in self.callback_answers:
            if not await self._wait_change(deadline):
                raise AssertionError(f"callback query {query_id} not answered in {timeout:.0f} s")
        return self.callback_answers[query_id]

    async def wait_for_inline_answer(self, query_id: str, timeout: float = 15.0) -> dict[str, Any]:
        """The bot's answerInlineQuery for the inline query `query_id`."""
        deadline = asyncio.get_running_loop().time() + timeout
        while query_id not in self.inline_answers:
            if not await self._wait_change(deadline):
                raise AssertionError(f"inline query {query_id} not answered in {timeout:.0f} s")
        return self.inline_answers[query_id]

    async def wait_polling(self, after: int, timeout: float = 15.0) -> None:
        """Wait until the bot has called getUpdates more than `after` times in all."""
        deadline = asyncio.get_running_loop().time() + timeout
        while self.poll_count <= after:
            if not await self._wait_change(deadline):
                raise AssertionError(f"the bot did not call getUpdates within {timeout:.0f} s")

    async def wait_idle(self, quiet: float = 0.3, timeout: float = 15.0) -> None:
        """Wait until the bot has fetched every queued update and made no call for `quiet` s.

        A heuristic: work the bot does without calling the server (drawing) is not seen.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            now = loop.time()
            fetched = not self._undelivered
            if fetched and self._busy == 0 and now - self._last_activity >= quiet:
                return
            if now >= deadline:
                raise AssertionError(f"the bot was still busy after {timeout:.0f} s")
            await asyncio.sleep(min(0.05, deadline - now))

    def describe(self, chat: Chat | int, since: int = 0) -> str:
        """What the bot did in a chat from `since`, and its failed calls: for failure messages."""
        chat_id = _chat_id(chat)
        lines = [f"the bot's output in chat {chat_id} from #{since}:"]
        for index, sent in enumerate(self.sent[chat_id][since:], start=since):
            kind = " [photo]" if sent.is_photo else ""
            text = sent.text if len(sent.text) < 300 else sent.text[:300] + "…"
            lines.append(f"  #{index} {sent.method} id={sent.message_id}{kind}: {text!r}")
        if len(lines) == 1:
            lines.append("  (nothing)")
        failed = self.failed_requests()
        if failed:
            lines.append("calls the server refused:")
            lines += [f"  {r.method} → {r.status} {r.error}" for r in failed[-10:]]
        return "\n".join(lines)

    # ---- internals: state ----------------------------------------------------------------------

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def _wait_change(self, deadline: float) -> bool:
        """Wait for any change of state; False once the deadline has passed."""
        remaining = deadline - asyncio.get_running_loop().time()
        if remaining <= 0:
            return False
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), remaining)
        return True

    def _queue(self, update: dict[str, Any]) -> None:
        update = {"update_id": self._next_update_id, **update}
        self._queued[self._next_update_id] = update
        self._undelivered.add(self._next_update_id)
        self._next_update_id += 1
        self._updates.append(update)
        self._notify()

    def _store_message(
        self, chat: Chat, sender: dict[str, Any], content: dict[str, Any]
    ) -> dict[str, Any]:
        self._chats.setdefault(chat.id, chat)
        message_id = self._next_message_id[chat.id]
        self._next_message_id[chat.id] += 1
        message = {
            "message_id": message_id,
            "from": sender,
            "chat": chat.api(),
            "date": int(time.time()),
            **content,
        }
        self._messages[chat.id][message_id] = message
        return message

    def _message(self, chat_id: int, message_id: int) -> dict[str, Any]:
        try:
            return self._messages[chat_id][message_id]
        except KeyError:
            raise LookupError(f"no message {message_id} in chat {chat_id}") from None

    def _chat_for(self, params: dict[str, Any]) -> Chat:
        raw = params.get("chat_id")
        if raw is None or raw == "":
            raise ApiError(400, "Bad Request: chat_id is empty")
        if isinstance(raw, str) and raw.startswith("@"):
            found = [c for c in self._chats.values() if c.username and "@" + c.username == raw]
            if not found:
                raise ApiError(400, "Bad Request: chat not found")
            chat_id = found[0].id
        else:
            try:
                chat_id = int(raw)
            except (TypeError, ValueError):
                raise ApiError(400, "Bad Request: chat not found") from None
        if chat_id in self._migrated:
            raise ApiError(
                400,
                "Bad Request: group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": self._migrated[chat_id]},
            )
        chat = self._chats.get(chat_id)
        if chat is None:
            if chat_id in self._users:
                raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
            raise ApiError(400, "Bad Request: chat not found")
        if chat_id in self._kicked:
            raise ApiError(403, f"Forbidden: bot was kicked from the {chat.type} chat")
        return chat

    def _bot_message(self, chat: Chat, message_id: Any) -> dict[str, Any]:
        try:
            message = self._messages[chat.id][int(message_id)]
        except (KeyError, TypeError, ValueError):
            raise ApiError(400, "Bad Request: message to edit not found") from None
        if message.get("from", {}).get("id") != self.bot_user["id"]:
            raise ApiError(400, "Bad Request: message can't be edited")
        return message

    def _log(
        self,
        method: str,
        chat: Chat,
        message: dict[str, Any],
        raw_text: str,
        params: dict[str, Any],
        *,
        photo: bytes | None = None,
        document: bytes | None = None,
    ) -> None:
        text = message.get("text", message.get("caption", ""))
        self.sent[chat.id].append(
            Sent(
                method,
                chat.id,
                message["message_id"],
                text,
                raw_text,
                params,
                _snapshot(message),
                photo,
                document,
            )
        )
        self._notify()

    # ---- internals: request decoding -------------------------------------------------------

    async def _read(self, request: web.Request) -> tuple[dict[str, Any], dict[str, bytes]]:
        """The request's fields and uploaded files. The body is read whole first and parsed
        here, so nothing depends on how TCP split it (aiohttp's streaming multipart reader takes
        a deprecated path on short reads, which warnings-as-errors turned into a 400: issue 11)."""
        params: dict[str, Any] = {}
        files: dict[str, bytes] = {}
        fields: Iterable[tuple[str, str | Upload]]
        if request.method == "GET":
            fields = request.query.items()
        else:
            body = await request.read()
            content_type = request.headers.get("Content-Type", "")
            if request.content_type == "application/json":
                decoded = json.loads(body or b"{}")
                fields = decoded.items() if isinstance(decoded, dict) else ()
            elif request.content_type == "multipart/form-data":
                fields = multipart_fields(body, content_type)
            else:
                fields = urllib.parse.parse_qsl(body.decode("utf-8"), keep_blank_values=True)
        for name, value in fields:
            if isinstance(value, Upload):
                files[name] = value
            else:
                params[name] = _decode_field(name, value)
        return params, files

    def _file(
        self, value: Any, files: dict[str, bytes], field_name: str
    ) -> tuple[bytes, str | None]:
        """The bytes a file field refers to, and the stored file id when it named one."""
        if isinstance(value, str) and value.startswith("attach://"):
            key = value.removeprefix("attach://")
            if key not in files:
                raise ApiError(400, f"Bad Request: file {key!r} not found in the request")
            return files[key], None
        if value is None and field_name in files:
            return files[field_name], None
        if isinstance(value, str) and value in self.files:
            return self.files[value].data, value
        if isinstance(value, str) and value.startswith(("http://", "https://")):
            raise ApiError(400, "Bad Request: failed to get HTTP URL content")
        raise ApiError(400, "Bad Request: wrong file identifier/HTTP URL specified")

    def _store_file(self, data: bytes, kind: str, file_name: str | None = None) -> StoredFile:
        number = len(self.files) + 1
        file_id = f"AgACAgIAAx{kind[:3]}{number:06d}fake"
        suffix = {"photo": "png"}.get(kind, "bin")
        stored = StoredFile(
            file_id, f"AQAD{number:06d}", data, f"{kind}s/file_{number}.{suffix}", 0, 0, file_name
        )
        self.files[file_id] = stored
        return stored

    def _photo(self, value: Any, files: dict[str, bytes], field_name: str) -> list[dict[str, Any]]:
        data, file_id = self._file(value, files, field_name)
        if file_id is not None:
            stored = self.files[file_id]
        else:
            if self.photo_refusals:
                raise ApiError(400, f"Bad Request: {self.photo_refusals.popleft()}")
            if len(data) > PHOTO_SIZE_LIMIT:
                raise ApiError(400, "Bad Request: PHOTO_SAVE_FILE_INVALID")
            size = _image_size(data)
            if size is None:
                raise ApiError(400, "Bad Request: IMAGE_PROCESS_FAILED")
            width, height = size
            if width + height > PHOTO_SIDES_LIMIT or max(width, height) > 20 * min(width, height):
                raise ApiError(400, "Bad Request: PHOTO_INVALID_DIMENSIONS")
            stored = self._store_file(data, "photo")
            stored.width, stored.height = width, height
        scale = 90 / max(stored.width, stored.height, 1)
        thumb = {
            "file_id": stored.file_id + "_s",
            "file_unique_id": stored.file_unique_id + "s",
            "width": max(1, round(stored.width * scale)),
            "height": max(1, round(stored.height * scale)),
            "file_size": min(len(stored.data), 4096),
        }
        full = {
            "file_id": stored.file_id,
            "file_unique_id": stored.file_unique_id,
            "width": stored.width,
            "height": stored.height,
            "file_size": len(stored.data),
        }
        return [thumb, full]

    def _text(
        self, params: dict[str, Any], key: str, limit: int, required: bool
    ) -> tuple[str, str]:
        raw = params.get(key)
        if raw is None or raw == "":
            if required:
                raise ApiError(400, "Bad Request: message text is empty")
            return "", ""
        raw = str(raw)
        try:
            plain = plain_text(raw, params.get("parse_mode"))
        except EntityParseError as error:
            raise ApiError(400, f"Bad Request: can't parse entities: {error}") from None
        if required and not plain.strip():
            raise ApiError(400, "Bad Request: message text is empty")
        if len(plain) > limit:
            what = "message is too long" if key == "text" else "message caption is too long"
            raise ApiError(400, f"Bad Request: {what}")
        return raw, plain

    def _markup(self, params: dict[str, Any]) -> dict[str, Any] | None:
        markup = params.get("reply_markup")
        if not isinstance(markup, dict) or "inline_keyboard" not in markup:
            return None
        for row in markup["inline_keyboard"]:
            for button in row:
                if not button.get("text"):
                    raise ApiError(
                        400, "Bad Request: text buttons are unallowed in the inline keyboard"
                    )
                data = button.get("callback_data")
                if data is not None and not 1 <= len(str(data).encode()) <= CALLBACK_DATA_LIMIT:
                    raise ApiError(400, "Bad Request: BUTTON_DATA_INVALID")
        return markup

    def _thread(self, chat: Chat, params: dict[str, Any]) -> dict[str, Any]:
        """Where a message the bot sends lands: in the forum topic `message_thread_id` names (a
        topic that does not exist is refused, as Telegram does), else in the chat (General)."""
        raw = params.get("message_thread_id")
        if raw is None or raw == "":
            return {}
        thread = int(raw)
        if not chat.is_forum:
            return {}  # Telegram ignores it outside forums (a reply thread of a plain group)
        if thread not in self._topics[chat.id]:
            raise ApiError(400, "Bad Request: message thread not found")
        return {"message_thread_id": thread, "is_topic_message": True}

    def _reply(self, chat: Chat, params: dict[str, Any]) -> dict[str, Any]:
        reply = params.get("reply_parameters")
        if isinstance(reply, dict):
            message_id, lenient = reply.get("message_id"), reply.get("allow_sending_without_reply")
        else:
            message_id = params.get("reply_to_message_id")
            lenient = params.get("allow_sending_without_reply")
        if message_id is None:
            return {}
        original = self._messages[chat.id].get(int(message_id))
        if original is None:
            if lenient:
                return {}
            raise ApiError(400, "Bad Request: message to be replied not found")
        return {"reply_to_message": {k: v for k, v in original.items() if k != "reply_to_message"}}

    # ---- internals: HTTP -------------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return _error(ApiError(401, "Unauthorized"))
        method = request.match_info["method"]
        try:
            params, files = await self._read(request)
        except Exception as error:
            return _error(ApiError(400, f"Bad Request: cannot read the request: {error}"))
        record = Request(method, params, files)
        self.requests.append(record)
        name = method.lower()
        fault = self.faults.draw(name)
        if fault is not None:
            return self._fault(request, record, fault)
        if name in SENDING and (retry_after := self.limits.admit(_chat_param(params))):
            error = ApiError(
                429, f"Too Many Requests: retry after {retry_after}", {"retry_after": retry_after}
            )
            record.status, record.error = error.status, error.description
            return _error(error)
        polling = name == "getupdates"
        if not polling:
            self._busy += 1
        try:
            if polling:
                result: Any = await self._get_updates(request, params)
            else:
                handler = getattr(self, f"_m_{name}", None)
                result = handler(params, files) if handler else True
        except ApiError as error:
            record.status, record.error = error.status, error.description
            return _error(error)
        finally:
            if not polling:
                self._busy -= 1
                self._last_activity = asyncio.get_running_loop().time()
            self._notify()
        return web.json_response({"ok": True, "result": result})

    def _fault(self, request: web.Request, record: Request, fault: str) -> web.Response:
        """Answer with the fault; the request is not applied."""
        if fault == "drop":  # the connection closes before any answer
            record.status, record.error = 0, "connection dropped"
            if request.transport is not None:
                request.transport.abort()
            return web.Response(status=500)
        if fault == "429":
            error = ApiError(
                429,
                f"Too Many Requests: retry after {self.faults.retry_after}",
                {"retry_after": self.faults.retry_after},
            )
        else:
            error = ApiError(502, "Bad Gateway")
        record.status, record.error = error.status, error.description
        return _error(error)

    async def _get_updates(
        self, request: web.Request, params: dict[str, Any]
    ) -> list[dict[str, Any]]:
        if self.webhook.hook is not None:
            raise ApiError(409, WEBHOOK_CONFLICT)
        self.poll_count += 1
        self._poll_generation += 1
        generation = self._poll_generation
        offset = int(params.get("offset") or 0)
        if offset > 0:  # confirms every update before it
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
            self._undelivered = {i for i in self._undelivered if i >= offset}
        allowed = params.get("allowed_updates")
        if isinstance(allowed, list):
            self._allowed_updates = frozenset(allowed) or _DEFAULT_UPDATE_TYPES
        limit = int(params.get("limit") or 100)
        timeout = min(float(params.get("timeout") or 0), LONG_POLL_LIMIT)
        deadline = asyncio.get_running_loop().time() + timeout
        self._notify()
        while True:
            if generation != self._poll_generation:
                raise ApiError(
                    409,
                    "Conflict: terminated by other getUpdates request; "
                    "make sure that only one bot instance is running",
                )
            self._drop_unwanted()
            if request.transport is None or request.transport.is_closing():
                return []  # the poller is gone (a killed bot): it receives nothing
            if self._updates or self._closing or not await self._wait_change(deadline):
                batch = self._updates[:limit]
                self._undelivered.difference_update(u["update_id"] for u in batch)
                self.deliveries.update(u["update_id"] for u in batch)
                return batch

    def _drop_unwanted(self) -> None:
        """Updates of kinds the bot did not ask for (allowed_updates) never reach it."""
        for update in self._updates:
            if next(k for k in update if k != "update_id") not in self._allowed_updates:
                self.dropped_updates.append(update)
                self._undelivered.discard(update["update_id"])
        self._updates = [u for u in self._updates if u not in self.dropped_updates]

    # ---- Bot API methods ---------------------------------------------------------------------

    def _m_getme(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        return self.bot_user

    def _m_sendmessage(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        chat = self._chat_for(params)
        raw, plain = self._text(params, "text", TEXT_LIMIT, required=True)
        content: dict[str, Any] = {
            "text": plain,
            **self._thread(chat, params),
            **self._reply(chat, params),
        }
        if markup := self._markup(params):
            content["reply_markup"] = markup
        message = self._store_message(chat, self.bot_user, content)
        self._raw[(chat.id, message["message_id"])] = raw
        self._log("sendMessage", chat, message, raw, params)
        return message

    def _m_sendphoto(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        chat = self._chat_for(params)
        raw, plain = self._text(params, "caption", CAPTION_LIMIT, required=False)
        photo = self._photo(params.get("photo"), files, "photo")
        content: dict[str, Any] = {
            "photo": photo,
            **self._thread(chat, params),
            **self._reply(chat, params),
        }
        if plain:
            content["caption"] = plain
        if markup := self._markup(params):
            content["reply_markup"] = markup
        message = self._store_message(chat, self.bot_user, content)
        self._raw[(chat.id, message["message_id"])] = raw
        data = self.files[photo[-1]["file_id"]].data
        self._log("sendPhoto", chat, message, raw, params, photo=data)
        return message

    def _m_senddocument(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        chat = self._chat_for(params)
        raw, plain = self._text(params, "caption", CAPTION_LIMIT, required=False)
        value = params.get("document")
        data, file_id = self._file(value, files, "document")
        stored = self.files[file_id] if file_id else self._store_file(data, "document")
        if isinstance(data, Upload):
            stored.file_name = data.filename
        document = {
            "file_id": stored.file_id,
            "file_unique_id": stored.file_unique_id,
            "file_name": stored.file_name or "file",
            "file_size": len(stored.data),
        }
        content: dict[str, Any] = {
            "document": document,
            **self._thread(chat, params),
            **self._reply(chat, params),
        }
        if plain:
            content["caption"] = plain
        if markup := self._markup(params):
            content["reply_markup"] = markup
        message = self._store_message(chat, self.bot_user, content)
        self._log("sendDocument", chat, message, raw, params, document=stored.data)
        return message

    def _m_editmessagetext(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        chat = self._chat_for(params)
        message = self._bot_message(chat, params.get("message_id"))
        if "text" not in message:
            raise ApiError(400, "Bad Request: there is no text in the message to edit")
        raw, plain = self._text(params, "text", TEXT_LIMIT, required=True)
        markup = self._markup(params)
        key = (chat.id, message["message_id"])
        if (plain, raw, markup) == (
            message["text"],
            self._raw.get(key),
            message.get("reply_markup"),
        ):
            raise _not_modified()
        message["text"] = plain
        _set_markup(message, markup)
        message["edit_date"] = int(time.time())
        self._raw[key] = raw
        self._log("editMessageText", chat, message, raw, params)
        return message

    def _m_editmessagemedia(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        chat = self._chat_for(params)
        message = self._bot_message(chat, params.get("message_id"))
        if "text" in message:
            raise ApiError(400, "Bad Request: there is no media in the message to edit")
        media = params.get("media")
        if not isinstance(media, dict) or "type" not in media:
            raise ApiError(400, "Bad Request: can't parse InputMedia: media is not specified")
        raw, plain = self._text(media, "caption", CAPTION_LIMIT, required=False)
        markup = self._markup(params)
        for kind in ("photo", "document", "video", "animation", "audio"):
            message.pop(kind, None)
        photo_bytes = document = None
        if media["type"] == "photo":
            photo = self._photo(media.get("media"), files, "media")
            message["photo"] = photo
            photo_bytes = self.files[photo[-1]["file_id"]].data
        elif media["type"] == "document":
            data, file_id = self._file(media.get("media"), files, "media")
            stored = self.files[file_id] if file_id else self._store_file(data, "document")
            message["document"] = {
                "file_id": stored.file_id,
                "file_unique_id": stored.file_unique_id,
            }
            document = stored.data
        else:
            raise ApiError(400, f"Bad Request: media type {media['type']!r} is not supported here")
        _set_caption(message, plain)
        _set_markup(message, markup)
        message["edit_date"] = int(time.time())
        self._raw[(chat.id, message["message_id"])] = raw
        self._log(
            "editMessageMedia", chat, message, raw, params, photo=photo_bytes, document=document
        )
        return message

    def _m_answercallbackquery(self, params: dict[str, Any], files: dict[str, bytes]) -> bool:
        query_id = str(params.get("callback_query_id"))
        if query_id not in self._open_queries:
            raise ApiError(
                400,
                "Bad Request: query is too old and response timeout expired or query ID is invalid",
            )
        if len(str(params.get("text") or "")) > 200:
            raise ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        self._open_queries.discard(query_id)
        self.callback_answers[query_id] = params
        return True

    def _m_answerinlinequery(self, params: dict[str, Any], files: dict[str, bytes]) -> bool:
        """Checked as Telegram checks it: an open query, at most 50 results with distinct ids of
        at most 64 bytes, each article with a title and a message text that parses, buttons as
        in a message, and a start parameter of the allowed letters."""
        query_id = str(params.get("inline_query_id"))
        if query_id not in self._open_inline:
            raise ApiError(
                400,
                "Bad Request: query is too old and response timeout expired or query ID is invalid",
            )
        results = params.get("results")
        if not isinstance(results, list) or len(results) > INLINE_RESULTS_LIMIT:
            raise ApiError(400, "Bad Request: RESULTS_TOO_MUCH")
        ids = [str(r.get("id", "")) for r in results]
        if len(set(ids)) != len(ids) or any(
            not 1 <= len(i.encode()) <= INLINE_ID_LIMIT for i in ids
        ):
            raise ApiError(400, "Bad Request: RESULT_ID_INVALID")
        for result in results:
            if result.get("type") != "article" or not result.get("title"):
                raise ApiError(400, "Bad Request: RESULT_TITLE_EMPTY")
            content = result.get("input_message_content") or {}
            self._text(content, "message_text", TEXT_LIMIT, required=True)
            self._markup(result)
        button = params.get("button")
        parameter = button.get("start_parameter") if isinstance(button, dict) else None
        if parameter is not None and not START_PARAMETER.fullmatch(str(parameter)):
            raise ApiError(400, "Bad Request: START_PARAM_INVALID")
        self._open_inline.discard(query_id)
        self.inline_answers[query_id] = params
        return True

    def _m_setwebhook(self, params: dict[str, Any], files: dict[str, bytes]) -> bool:
        self.webhook.set(params)
        return True

    def _m_deletewebhook(self, params: dict[str, Any], files: dict[str, bytes]) -> bool:
        self.webhook.delete(drop=bool(params.get("drop_pending_updates")))
        return True

    def _m_getwebhookinfo(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        return self.webhook.info()

    def _m_setmycommands(self, params: dict[str, Any], files: dict[str, bytes]) -> bool:
        commands = params.get("commands")
        if not isinstance(commands, list):
            raise ApiError(400, "Bad Request: commands must be a list")
        for command in commands:
            name, text = str(command.get("command", "")), str(command.get("description", ""))
            if not re.fullmatch(r"[a-z0-9_]{1,32}", name):
                raise ApiError(400, "Bad Request: BOT_COMMAND_INVALID")
            if not 1 <= len(text) <= 256:
                raise ApiError(400, "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID")
        scope = params.get("scope") if isinstance(params.get("scope"), dict) else {}
        key = (str(scope.get("type", "default")), str(params.get("language_code") or ""))
        self.commands[key] = commands
        return True


def _snapshot(obj: dict[str, Any]) -> dict[str, Any]:
    """A deep copy: what was delivered or logged does not change when the message is edited."""
    copy: dict[str, Any] = json.loads(json.dumps(obj))
    return copy


def _chat_id(chat: Chat | int) -> int:
    return chat.id if isinstance(chat, Chat) else int(chat)


def _error(error: ApiError) -> web.Response:
    body: dict[str, Any] = {
        "ok": False,
        "error_code": error.status,
        "description": error.description,
    }
    if error.parameters:
        body["parameters"] = error.parameters
    return web.json_response(body, status=error.status)


def _not_modified() -> ApiError:
    return ApiError(
        400,
        "Bad Request: message is not modified: specified new message content and reply markup "
        "are exactly the same as a current content and reply markup of the message",
    )


def _set_markup(message: dict[str, Any], markup: dict[str, Any] | None) -> None:
    if markup:
        message["reply_markup"] = markup
    else:
        message.pop("reply_markup", None)


def _set_caption(message: dict[str, Any], caption: str) -> None:
    if caption:
        message["caption"] = caption
    else:
        message.pop("caption", None)


# ---- webhook delivery (issue 14) ------------------------------------------------------------


@dataclass
class Webhook:
    url: str
    secret: str | None
    max_connections: int


class WebhookDelivery:
    """Telegram's side of a webhook: once the bot called setWebhook, every queued update is POSTed
    to its URL with the header `X-Telegram-Bot-Api-Secret-Token`, many at once (up to
    `max_connections`, in no guaranteed order), and one not answered 2xx (an error status, a
    dropped connection, a killed bot) is sent again after `WEBHOOK_RETRY` seconds until it is.
    `attempts` keeps (update_id, status; 0 = no answer) of every POST, `delivered` the 2xx ones."""

    def __init__(self, server: FakeTelegram) -> None:
        self.server = server
        self.hook: Webhook | None = None
        self.set_count = 0
        self.attempts: list[tuple[int, int]] = []
        self.delivered: Counter[int] = Counter()
        self._flying: set[int] = set()
        self._retry_at: dict[int, float] = {}
        self._task: asyncio.Task[None] | None = None

    def set(self, params: dict[str, Any]) -> None:
        url = str(params.get("url") or "")
        if not url:
            self.delete(drop=False)
            return
        if not re.match(r"^https?://", url):
            raise ApiError(400, "Bad Request: bad webhook: an HTTPS URL must be provided")
        secret = params.get("secret_token")
        if secret is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", str(secret)):
            raise ApiError(400, "Bad Request: secret token contains unallowed characters")
        connections = int(params.get("max_connections") or WEBHOOK_CONNECTIONS)
        self.hook = Webhook(url, str(secret) if secret is not None else None, connections)
        allowed = params.get("allowed_updates")
        if isinstance(allowed, list):
            self.server._allowed_updates = frozenset(allowed) or _DEFAULT_UPDATE_TYPES
        if params.get("drop_pending_updates"):
            self._drop_pending()
        self.set_count += 1
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="fake-webhook")

    def delete(self, *, drop: bool) -> None:
        self.hook = None
        if drop:
            self._drop_pending()

    def info(self) -> dict[str, Any]:
        hook = self.hook
        return {
            "url": hook.url if hook else "",
            "has_custom_certificate": False,
            "pending_update_count": len(self.server._updates),
            **({"max_connections": hook.max_connections} if hook else {}),
        }

    async def wait_set(self, after: int, timeout: float = 15.0) -> None:
        """Wait until setWebhook has been called more than `after` times in all."""
        deadline = asyncio.get_running_loop().time() + timeout
        while self.set_count <= after:
            if not await self.server._wait_change(deadline):
                raise AssertionError(f"the bot did not call setWebhook within {timeout:.0f} s")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def _drop_pending(self) -> None:
        self.server._updates = []
        self.server._undelivered.clear()

    async def _run(self) -> None:
        server = self.server
        loop = asyncio.get_running_loop()
        posts: set[asyncio.Task[None]] = set()
        timeout = aiohttp.ClientTimeout(total=60)
        async with aiohttp.ClientSession(timeout=timeout) as http:
            try:
                while not server._closing:
                    hook = self.hook
                    if hook is not None:
                        server._drop_unwanted()
                        now = loop.time()
                        for update in list(server._updates):
                            update_id = update["update_id"]
                            if len(self._flying) >= hook.max_connections:
                                break
                            if update_id in self._flying or self._retry_at.get(update_id, 0) > now:
                                continue
                            self._flying.add(update_id)
                            post = asyncio.create_task(self._post(http, hook, update))
                            posts.add(post)
                            post.add_done_callback(posts.discard)
                    await server._wait_change(loop.time() + WEBHOOK_RETRY / 2)
            finally:
                for post in posts:
                    post.cancel()
                await asyncio.gather(*posts, return_exceptions=True)

    async def _post(
        self, http: aiohttp.ClientSession, hook: Webhook, update: dict[str, Any]
    ) -> None:
        server = self.server
        update_id = update["update_id"]
        headers = {"X-Telegram-Bot-Api-Secret-Token": hook.secret} if hook.secret else {}
        status = 0
        server._busy += 1
        try:
            async with http.post(hook.url, json=update, headers=headers) as answer:
                await answer.read()
                status = answer.status
        except (aiohttp.ClientError, TimeoutError):
            status = 0
        finally:
            server._busy -= 1
            self._flying.discard(update_id)
        loop = asyncio.get_running_loop()
        self.attempts.append((update_id, status))
        if status:
            server.deliveries[update_id] += 1
        if 200 <= status < 300:
            self.delivered[update_id] += 1
            self._retry_at.pop(update_id, None)
            server._updates = [u for u in server._updates if u["update_id"] != update_id]
            server._undelivered.discard(update_id)
        else:
            self._retry_at[update_id] = loop.time() + WEBHOOK_RETRY
        server._last_activity = loop.time()
        server._notify()
