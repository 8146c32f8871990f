"""A tool call's content: its segments, the widget for each, and the card as text.

A card (`acp_tui.ui.widgets.tool_call_view.ToolCallView`) splits its content
items into *segments* (`split_segments`: a run of text items, a diff, a list of
changes, a terminal, anything else) and keeps one widget per segment: the kind's
own widget from `SEGMENT_VIEWS` (`DiffSegment`, `TerminalSegment`), else
`ContentSegment`, each a `SegmentView`. `tool_call_body` and `card_paths` give
the card as plain text and the paths it names. `tool_call_view` re-exports the
public names.

Agent text is data: everything is made printable first and shown as plain
`Content` with styles from theme variables, never parsed as markup.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal, Protocol, TypeAlias, runtime_checkable

from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from acp_tui.display_paths import AS_SENT, PathDisplay
from acp_tui.export import terminal_text
from acp_tui.render.terminal import terminal_title
from acp_tui.safe_text import printable
from acp_tui.store.model import ToolCall, block_text, terminal_ref
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject, JSONValue
from acp_tui.ui.widgets.diff_view import (
    DiffSegment,
    change_lines,
    diff_patch_text,
    diff_paths,
)
from acp_tui.ui.widgets.terminal_view import TerminalSegment, static_plain

__all__ = [
    "MAX_RAW_CHARS",
    "SEGMENT_LABELS",
    "SEGMENT_VIEWS",
    "ContentSegment",
    "Segment",
    "SegmentKind",
    "SegmentView",
    "card_paths",
    "compact_json",
    "diff_content",
    "input_summary",
    "raw_json",
    "segment_view_factory",
    "split_segments",
    "static_plain",
    "tool_call_body",
]

MAX_RAW_CHARS: Final = 300
"""Raw input/output is shown as one line of JSON cut to this many characters."""

SUMMARY_KEYS: Final = 8
"""Keys of a tool call's input listed in its summary (the rest are counted)."""

SUMMARY_VALUE_CHARS: Final = 100
"""Characters of one input value shown in the summary (cut with `…`)."""

RAW_JSON_CHARS: Final = 4000
"""Characters of raw JSON shown when the card shows it (`r`)."""

_COMMAND_KEYS: Final = ("command", "cmd")
_DIRECTORY_KEYS: Final = ("cwd", "workdir", "working_directory")
_PATH_WORDS: Final = ("path", "file", "dir", "cwd")
"""A key holding a path (or paths) has one of these in its name."""

SegmentKind: TypeAlias = Literal["text", "diff", "changes", "terminal", "other"]


# --- plain-text helpers -----------------------------------------------------


def _safe_lines(text: str) -> list[str]:
    """Split into lines, each made printable (fast for ordinary lines)."""
    return [printable(line, keep="\t") for line in text.split("\n")]


def _plain_json(value: object) -> object:
    if isinstance(value, Mapping):
        return {str(k): _plain_json(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [_plain_json(v) for v in value]
    return value


def compact_json(value: JSONValue, limit: int = MAX_RAW_CHARS) -> str:
    """`value` as one printable line of JSON, cut to `limit` characters."""
    try:
        text = json.dumps(_plain_json(value), ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    text = printable(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def raw_json(value: JSONValue, limit: int = RAW_JSON_CHARS) -> str:
    """`value` as indented, printable JSON, cut to `limit` characters."""
    try:
        text = json.dumps(_plain_json(value), ensure_ascii=False, indent=2)
    except (TypeError, ValueError):
        text = repr(value)
    text = printable(text, keep="\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _command_text(value: object) -> str | None:
    if isinstance(value, str):
        return value
    if (
        isinstance(value, Sequence)
        and value
        and all(isinstance(word, str) for word in value)
    ):
        return shlex.join(str(word) for word in value)
    return None


def _one_line(text: str, limit: int = SUMMARY_VALUE_CHARS) -> str:
    """The first line of `text`, printable and cut, saying how many more."""
    lines = text.rstrip("\n").split("\n")
    first = printable(lines[0], keep="")
    if len(first) > limit:
        first = first[: limit - 1] + "…"
    if len(lines) > 1:
        first += f" … ({len(lines)} lines)"
    return first


def _is_path_key(key: str) -> bool:
    lowered = key.lower()
    return any(word in lowered for word in _PATH_WORDS)


def _value_text(key: str, value: JSONValue, paths: PathDisplay) -> str:
    if isinstance(value, str):
        return _one_line(paths.show(value) if _is_path_key(key) else value)
    if (
        isinstance(value, Sequence)
        and not isinstance(value, str)
        and value
        and all(isinstance(item, str) for item in value)
    ):
        shown = [
            paths.show(str(item)) if _is_path_key(key) else str(item) for item in value
        ]
        return _one_line(", ".join(shown))
    if value is None or isinstance(value, (bool, int, float)):
        return json.dumps(value)
    return compact_json(value, SUMMARY_VALUE_CHARS)


def input_summary(raw_input: JSONValue, paths: PathDisplay = AS_SENT) -> list[str]:
    """A tool call's input (`rawInput`) as a few readable, printable lines.

    A command reads `$ command` (an argv list joined as a shell would read it),
    with `in <directory>`; other keys read `key: value`, one line each (a
    multi-line value by its first line and its count of lines, paths as `paths`
    shows them), at most `SUMMARY_KEYS` of them. A value that is not an object
    is its first line (text) or compact JSON. Agent text is data: every line is
    made printable. Empty for no input.
    """
    if raw_input is None or raw_input == {} or raw_input == "":
        return []
    if not isinstance(raw_input, Mapping):
        if isinstance(raw_input, str):
            return [_one_line(raw_input)]
        return [compact_json(raw_input, SUMMARY_VALUE_CHARS)]
    lines: list[str] = []
    rest = dict(raw_input)
    for key in _COMMAND_KEYS:
        command = _command_text(rest.get(key))
        if command is not None:
            del rest[key]
            lines.append(f"$ {_one_line(command)}")
            for where in _DIRECTORY_KEYS:
                directory = rest.get(where)
                if isinstance(directory, str) and directory:
                    del rest[where]
                    lines.append(f"in {_one_line(paths.show(directory))}")
                    break
            break
    items = list(rest.items())
    for key, value in items[:SUMMARY_KEYS]:
        lines.append(
            f"{printable(str(key), keep='')}: {_value_text(key, value, paths)}"
        )
    if len(items) > SUMMARY_KEYS:
        more = len(items) - SUMMARY_KEYS
        lines.append(f"… {more} more {'key' if more == 1 else 'keys'}")
    return lines


def _block_label(block: object) -> str:
    if not isinstance(block, Mapping):
        return "[content]"
    kind = block.get("type")
    if kind == "resource_link":
        return f"[link {block.get('name') or ''} {block.get('uri') or ''}]".strip()
    if kind == "resource":
        resource = block.get("resource")
        uri = resource.get("uri") if isinstance(resource, Mapping) else None
        return f"[resource {uri or ''}]".replace(" ]", "]")
    mime = block.get("mimeType")
    return f"[{kind} {mime}]" if mime else f"[{kind}]"


def _item_text(item: JSONObject) -> str | None:
    """A `content` item's text, or `None` if it is not a text content item."""
    if item.get("type") != "content":
        return None
    block = item.get("content")
    return block_text(block) if isinstance(block, Mapping) else None


def tool_call_body(store: SessionStore, tool_call: ToolCall) -> str:
    """The tool call's locations and content as plain text.

    Args:
        store: The session store (for terminals).
        tool_call: The tool call.

    Returns:
        Locations (`@ path:line`), then each content item, made printable.
    """
    parts: list[str] = [_location_text(loc) for loc in tool_call.locations]
    for item in tool_call.content:
        kind = item.get("type")
        text = _item_text(item)
        if text is not None:
            parts.append(text)
        elif kind == "content":
            parts.append(_block_label(item.get("content")))
        elif kind == "diff":
            patch = diff_patch_text(item)
            parts.extend([patch] if patch is not None else change_lines(item))
        elif kind == "terminal":
            terminal_id = terminal_ref(item) or ""
            terminal = store.terminal(terminal_id)
            parts.append(terminal_title(terminal, terminal_id))
            if terminal is not None:
                parts.append(terminal_text(terminal))
        else:
            parts.append(f"[{kind} content]")
    return printable("\n".join(p for p in parts if p), keep="\n\t")


def card_paths(store: SessionStore, tool_call: ToolCall) -> list[str]:
    """Every path a card names, as sent, each once.

    Its locations, its diffs' files (`diff_paths`), its terminals' directories.
    """
    found: list[str] = []

    def add(value: object) -> None:
        if isinstance(value, str) and value:
            found.append(value)

    for location in tool_call.locations:
        add(location.get("path"))
    for item in tool_call.content:
        kind = item.get("type")
        if kind == "diff":
            found.extend(diff_paths(item))
        elif kind == "terminal":
            terminal = store.terminal(terminal_ref(item) or "")
            if terminal is not None:
                add(terminal.cwd)
    return list(dict.fromkeys(found))


def _location_text(location: JSONObject) -> str:
    path = location.get("path", "")
    line = location.get("line")
    return f"@ {path}:{line}" if line is not None else f"@ {path}"


# --- styled content ---------------------------------------------------------


def diff_content(patch: str) -> Content:
    """A unified patch as `Content`, `+`/`-` lines styled by the diff tokens.

    Args:
        patch: Unified (or git) patch text.

    Returns:
        One line per patch line: added lines `$diff-added on
        $diff-added-background`, removed lines likewise, hunk headers
        `$diff-hunk`, file headers bold.
    """
    parts: list[str | tuple[str, str]] = []
    for number, line in enumerate(_safe_lines(patch.rstrip("\n"))):
        if number:
            parts.append("\n")
        if line.startswith(("+++", "---", "diff ", "index ")):
            parts.append((line, "bold"))
        elif line.startswith("+"):
            parts.append((line, "$diff-added on $diff-added-background"))
        elif line.startswith("-"):
            parts.append((line, "$diff-removed on $diff-removed-background"))
        elif line.startswith("@@"):
            parts.append((line, "$diff-hunk"))
        else:
            parts.append(line)
    return Content.assemble(*parts)


def _lines_content(lines: Iterable[str], style: str = "") -> Content:
    text = "\n".join(lines)
    return Content.styled(text, style) if style else Content(text)


@dataclass(frozen=True, slots=True)
class Segment:
    """Content items `[start, end)` shown by one widget."""

    kind: SegmentKind
    start: int
    end: int


def _segment_kind(item: JSONObject) -> SegmentKind:
    kind = item.get("type")
    if kind == "content":
        return "text" if _item_text(item) is not None else "other"
    if kind == "diff":
        return "diff" if diff_patch_text(item) is not None else "changes"
    if kind == "terminal":
        return "terminal"
    return "other"


def split_segments(
    items: Sequence[JSONObject], kept: list[Segment], start: int
) -> list[Segment]:
    """Segments for `items`, reusing `kept` (which covers `items[:start]`)."""
    segments = list(kept)
    for index in range(start, len(items)):
        kind = _segment_kind(items[index])
        last = segments[-1] if segments else None
        if kind == "text" and last is not None and last.kind == "text":
            segments[-1] = Segment("text", last.start, index + 1)
        else:
            segments.append(Segment(kind, index, index + 1))
    return segments


SEGMENT_LABELS: Final[dict[SegmentKind, str]] = {
    "text": "output",
    "diff": "diff",
    "changes": "changes",
    "terminal": "terminal",
    "other": "content",
}


# --- segment widgets --------------------------------------------------------


@runtime_checkable
class SegmentView(Protocol):
    """What a card needs from the widget that shows one content segment.

    Each segment kind may have a widget of its own (`SEGMENT_VIEWS`); the rest
    use `ContentSegment`. A card keeps one widget per segment and calls
    `show_segment` whenever that segment's items (or, for a terminal, the
    terminal) changed.
    """

    def show_segment(
        self, store: SessionStore, items: Sequence[JSONObject], start: int, end: int
    ) -> int:
        """Show `items[start:end]` (one segment); return its height in lines."""
        ...

    @property
    def plain_text(self) -> str:
        """The segment as plain text (tests, export, accessibility)."""
        ...


class ContentSegment(Static):
    """The default segment widget: the segment rendered as one `Content`."""

    def __init__(self) -> None:
        super().__init__(classes="tool-segment")

    def show_segment(
        self, store: SessionStore, items: Sequence[JSONObject], start: int, end: int
    ) -> int:
        """Render `items[start:end]`; return its height in lines."""
        content = _render_segment(_segment_kind(items[start]), items, start, end)
        self.update(content)
        return content.plain.count("\n") + 1

    @property
    def plain_text(self) -> str:
        """The rendered segment as plain text."""
        return static_plain(self)

    @property
    def styled(self) -> Content:
        """The rendered segment (styled)."""
        content = self.content
        return content if isinstance(content, Content) else Content(str(content))


SEGMENT_VIEWS: Final[dict[SegmentKind, Callable[[], Widget]]] = {
    "terminal": TerminalSegment,
    "diff": DiffSegment,
    "changes": DiffSegment,
}
"""Segment kinds shown by a widget of their own, and how to make one (each must
implement `SegmentView`); other kinds use `ContentSegment`."""


def segment_view_factory(kind: SegmentKind) -> Callable[[], Widget]:
    """How to make the widget that shows a segment of this kind."""
    return SEGMENT_VIEWS.get(kind, ContentSegment)


def _render_segment(
    kind: SegmentKind, items: Sequence[JSONObject], start: int, end: int
) -> Content:
    item = items[start]
    if kind == "text":
        text = "".join(_item_text(items[i]) or "" for i in range(start, end))
        return _lines_content(_safe_lines(text.rstrip("\n")))
    if kind == "diff":
        return diff_content(diff_patch_text(item) or "")
    if kind == "changes":
        return _lines_content(change_lines(item) or ["(no changes listed)"])
    if item.get("type") == "content":
        return Content(printable(_block_label(item.get("content"))))
    return Content(printable(f"[{item.get('type')} content]"))
