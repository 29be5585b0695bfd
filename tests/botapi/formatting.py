"""Text formatting the way the Bot API does it: HTML and MarkdownV2 parsing, entities, commands.

Telegram counts entity offsets in UTF-16 code units and reports parse errors with byte
offsets; both quirks are reproduced here so the bot meets the same failures it would meet
in production.

The HTML parser is at least as strict as Telegram's documented rules: only the
allowed tags, balanced and properly nested, and every ``<``, ``>`` and ``&`` outside
a tag or one of the entities ``&lt; &gt; &amp; &quot;`` (or a numeric one) refused,
where Telegram sometimes lets a stray ``&`` or ``>`` through: text that passes here
passes there.

>>> parse_html("<b>Hi</b> &amp; bye")
('Hi & bye', [{'type': 'bold', 'offset': 0, 'length': 2}])
>>> command_entities("/start@nardy_bot now")
[{'type': 'bot_command', 'offset': 0, 'length': 16}]
>>> utf16_len("🎲x")
3
"""

from __future__ import annotations

import html
import re
from typing import Any

Entity = dict[str, Any]

# Tag name -> entity type, for tags without attributes that matter.
_SIMPLE_TAGS = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "code": "code",
    "pre": "pre",
    "blockquote": "blockquote",
    "a": "text_link",
    "span": "spoiler",
    "tg-emoji": "custom_emoji",
}
_ATTR_SOURCE = r"""([a-zA-Z-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]*)))?"""
_ATTR = re.compile(_ATTR_SOURCE)
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+" + _ATTR_SOURCE + r")*)\s*>")
_ENTITY = re.compile(r"&(#[0-9]+|#x[0-9a-fA-F]+|[a-zA-Z]+);")
_NAMED_ENTITIES = frozenset({"lt", "gt", "amp", "quot"})
"""The only named entities Telegram knows; numeric ones (``&#39;``) work too."""
_COMMAND = re.compile(r"(?<![\w/@])/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?(?![\w/@])")


class ParseError(ValueError):
    """Unparsable text; the message is Telegram's wording after "can't parse entities: "."""


def utf16_len(text: str) -> int:
    """Length of ``text`` in UTF-16 code units, the unit of Telegram's entity offsets."""
    return len(text.encode("utf-16-le")) // 2


def _byte_offset(source: str, index: int) -> int:
    return len(source[:index].encode("utf-8"))


def parse_html(source: str) -> tuple[str, list[Entity]]:
    """Plain text and entities of an HTML-formatted message, or :class:`ParseError`.

    >>> parse_html('<a href="https://x.org">x</a> <i>y')
    Traceback (most recent call last):
    ...
    tests.botapi.formatting.ParseError: Can't find end tag corresponding to start tag "i"
    >>> parse_html("1 < 2")
    Traceback (most recent call last):
    ...
    tests.botapi.formatting.ParseError: Unsupported start tag "" at byte offset 2
    """
    out: list[str] = []
    out_len = 0  # UTF-16 length of "".join(out)
    stack: list[tuple[str, Entity]] = []
    entities: list[Entity] = []
    i = 0
    while i < len(source):
        ch = source[i]
        if ch == "<":
            m = _TAG.match(source, i)
            if m is None:
                bad = re.match(r"</?([a-zA-Z0-9-]*)", source[i:])
                raise ParseError(
                    f'Unsupported start tag "{bad.group(1) if bad else ""}" '
                    f"at byte offset {_byte_offset(source, i)}"
                )
            closing, name, attrs_text = m.group(1), m.group(2).lower(), m.group(3)
            if closing:
                if not stack:
                    raise ParseError(f"Unexpected end tag at byte offset {_byte_offset(source, i)}")
                open_name, entity = stack.pop()
                if open_name != name:
                    raise ParseError(
                        f"Unmatched end tag at byte offset {_byte_offset(source, i)}, "
                        f'expected "</{open_name}>", found "</{name}>"'
                    )
                entity["length"] = out_len - entity["offset"]
                inside_pre = name == "code" and bool(stack) and stack[-1][0] == "pre"
                if entity["length"] > 0 and not inside_pre:
                    entities.append(entity)
            else:
                attrs = {
                    a.group(1).lower(): next((g for g in a.groups()[1:] if g is not None), "")
                    for a in _ATTR.finditer(attrs_text)
                }
                entity = _open_tag(name, attrs, stack, _byte_offset(source, i))
                entity["offset"] = out_len
                stack.append((name, entity))
            i = m.end()
            continue
        if ch == "&":
            m = _ENTITY.match(source, i)
            if m is None:
                raise ParseError(f'Unescaped "&" at byte offset {_byte_offset(source, i)}')
            name = m.group(1)
            if not name.startswith("#") and name not in _NAMED_ENTITIES:
                raise ParseError(f'Unsupported HTML entity "&{name};" '
                                 f"at byte offset {_byte_offset(source, i)}")
            decoded = html.unescape(m.group(0))
            out.append(decoded)
            out_len += utf16_len(decoded)
            i = m.end()
            continue
        if ch == ">":
            raise ParseError(f'Unescaped ">" at byte offset {_byte_offset(source, i)}')
        out.append(ch)
        out_len += utf16_len(ch)
        i += 1
    if stack:
        raise ParseError(f'Can\'t find end tag corresponding to start tag "{stack[-1][0]}"')
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return "".join(out), entities


def _open_tag(name: str, attrs: dict[str, str], stack: list[tuple[str, Entity]], at: int) -> Entity:
    kind = _SIMPLE_TAGS.get(name)
    if kind is None or (name == "span" and attrs.get("class") != "tg-spoiler"):
        raise ParseError(f'Unsupported start tag "{name}" at byte offset {at}')
    entity: Entity = {"type": kind}
    if name == "a":
        href = attrs.get("href", "")
        if not href:
            raise ParseError(f"Empty URL at byte offset {at}")
        user = re.fullmatch(r"tg://user\?id=(\d+)", href)
        if user:
            entity = {"type": "text_mention", "user": {"id": int(user.group(1))}}
        else:
            entity["url"] = href
    elif name == "blockquote" and "expandable" in attrs:
        entity["type"] = "expandable_blockquote"
    elif name == "tg-emoji":
        entity["custom_emoji_id"] = attrs.get("emoji-id", "")
    elif name == "code" and stack and stack[-1][0] == "pre" and "class" in attrs:
        language = attrs["class"].removeprefix("language-")
        stack[-1][1]["language"] = language
    return entity


# MarkdownV2: markers and the characters that must be escaped everywhere else.
_MD_RESERVED = set("_*[]()~`>#+-=|{}.!")
_MD_MARKERS = [("||", "spoiler"), ("__", "underline"), ("*", "bold"), ("_", "italic"),
               ("~", "strikethrough")]
_MD_NAMES = {"bold": "Bold", "italic": "Italic", "underline": "Underline",
             "strikethrough": "Strikethrough", "spoiler": "Spoiler", "code": "Code",
             "pre": "Pre", "text_link": "TextUrl"}


def parse_markdown_v2(source: str) -> tuple[str, list[Entity]]:
    r"""Plain text and entities of a MarkdownV2 message, or :class:`ParseError`.

    >>> parse_markdown_v2(r"*Move* 24\-18")
    ('Move 24-18', [{'type': 'bold', 'offset': 0, 'length': 4}])
    >>> parse_markdown_v2("Done.")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tests.botapi.formatting.ParseError: Character '.' is reserved and must be escaped ...
    """
    out: list[str] = []
    out_len = 0
    open_: dict[str, tuple[int, int]] = {}  # entity type -> (offset, byte offset in source)
    order: list[str] = []
    entities: list[Entity] = []
    link_start: int | None = None
    i = 0

    def emit(text: str) -> None:
        nonlocal out_len
        out.append(text)
        out_len += utf16_len(text)

    while i < len(source):
        ch = source[i]
        if ch == "\\" and i + 1 < len(source):
            emit(source[i + 1])
            i += 2
            continue
        if ch == "`":
            fence = source.startswith("```", i)
            marker = "```" if fence else "`"
            end = source.find(marker, i + len(marker))
            if end < 0:
                name = "Pre" if fence else "Code"
                raise ParseError(
                    f"Can't find end of {name} entity at byte offset {_byte_offset(source, i)}"
                )
            body = source[i + len(marker):end]
            entity: Entity = {"type": "pre" if fence else "code", "offset": out_len}
            if fence and "\n" in body:
                first, rest = body.split("\n", 1)
                if first.strip():
                    entity["language"] = first.strip()
                body = rest
            body = re.sub(r"\\(.)", r"\1", body)
            emit(body)
            entity["length"] = utf16_len(body)
            entities.append(entity)
            i = end + len(marker)
            continue
        if ch == "[" and link_start is None:
            link_start = out_len
            i += 1
            continue
        if ch == "]" and link_start is not None:
            m = re.match(r"\]\(((?:\\.|[^)\\])*)\)", source[i:])
            if m is None:
                raise ParseError(
                    f"Can't find end of TextUrl entity at byte offset {_byte_offset(source, i)}"
                )
            entities.append({"type": "text_link", "offset": link_start,
                             "length": out_len - link_start,
                             "url": re.sub(r"\\(.)", r"\1", m.group(1))})
            link_start = None
            i += m.end()
            continue
        for marker, kind in _MD_MARKERS:
            if source.startswith(marker, i):
                if kind in open_:
                    start, _ = open_.pop(kind)
                    order.remove(kind)
                    if out_len > start:
                        entities.append({"type": kind, "offset": start, "length": out_len - start})
                else:
                    open_[kind] = (out_len, _byte_offset(source, i))
                    order.append(kind)
                i += len(marker)
                break
        else:
            if ch in _MD_RESERVED:
                raise ParseError(
                    f"Character '{ch}' is reserved and must be escaped with the preceding '\\'"
                )
            emit(ch)
            i += 1
    if order:
        kind = order[-1]
        raise ParseError(
            f"Can't find end of {_MD_NAMES[kind]} entity at byte offset {open_[kind][1]}"
        )
    if link_start is not None:
        raise ParseError("Can't find end of TextUrl entity")
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return "".join(out), entities


def parse_text(text: str, parse_mode: str | None) -> tuple[str, list[Entity]]:
    """Text and entities for ``parse_mode`` (None, "HTML", "MarkdownV2"; "Markdown" is kept raw)."""
    mode = (parse_mode or "").lower()
    if mode == "html":
        return parse_html(text)
    if mode == "markdownv2":
        return parse_markdown_v2(text)
    if mode in ("", "markdown"):
        return text, []
    raise ParseError(f"Unsupported parse_mode {parse_mode!r}")


def strip_text(text: str, entities: list[Entity]) -> tuple[str, list[Entity]]:
    """Trim surrounding whitespace as Telegram does, shifting and clipping the entities.

    >>> strip_text("  <b>", [{"type": "bold", "offset": 2, "length": 3}])
    ('<b>', [{'type': 'bold', 'offset': 0, 'length': 3}])
    """
    stripped = text.strip()
    if not stripped:
        return "", []
    shift = utf16_len(text[: len(text) - len(text.lstrip())])
    end = utf16_len(stripped)
    result = []
    for e in entities:
        start = max(e["offset"] - shift, 0)
        stop = min(e["offset"] + e["length"] - shift, end)
        if stop > start:
            result.append({**e, "offset": start, "length": stop - start})
    return stripped, result


def command_entities(text: str) -> list[Entity]:
    """``bot_command`` entities for every ``/command`` or ``/command@bot`` in ``text``."""
    return [
        {"type": "bot_command", "offset": utf16_len(text[: m.start()]),
         "length": utf16_len(m.group(0))}
        for m in _COMMAND.finditer(text)
    ]
