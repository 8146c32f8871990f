"""A session exported: the JSON document of `acp-tui print --format json`, or Markdown.

Keys: `protocolVersion`, `agent{name,title,version}`, `sessionId`, `state`,
`stopReason`, `timeline`, `messages`, `toolCalls`, `plans`, `terminals` (with
`output` as base64 of the retained bytes and `text` from the terminal emulator),
`configOptions`, `commands`, `usage`, `info`, `permissions`, `unknownUpdates`,
and, only when the agent asked any, `elicitations` (each with its `mode`,
`message`, `requestedSchema` or `url`/`elicitationId`, `toolCallId`, the response
sent as `outcome`, and `completed` once a URL one is done).
Objects copied from the wire keep exactly their wire keys; a v1 session has the
same document shape as a v2 one. A message's adjacent text chunks (blocks that
are `{"type": "text", "text": ...}` and nothing else) are joined into one block,
as the reader means them; `raw_chunks=True` keeps them as the agent streamed them.
A truncated message's tail (the text kept past its head) stays its own block.

`session_markdown` renders the same session as a readable Markdown transcript
(`acp-tui export`, the app's `/export`). Agent text is data:

* every control character in it is escaped (`printable`), so the file never holds
  a terminal escape sequence;
* nothing in it is active once the file is viewed (`neutralise_markdown`): raw
  HTML (`<script>`, `<img onerror>`, `<a href=javascript:>`) has its `<` written
  as `&lt;`, and links, images, link definitions and autolinks to `javascript:`,
  `vbscript:` or `data:` URLs lose the `(`, `:` or `<` that makes them links.
  Both stay readable as the text the agent wrote. Code (fences, indented blocks,
  inline code) is left exactly as written: nothing in it is active. Which lines
  are code is decided by a CommonMark parser (markdown-it) over the whole file,
  as a viewer would see it, and again after every pass until nothing changes: an
  HTML block that became plain text cannot turn the code after it into text.
  Where the parsers viewers use could disagree (an inline code span across lines
  or table cells), the text is treated as text, so at worst a `&lt;` shows in
  code. The export's own `<details>` around thoughts is the only raw HTML.
"""

from __future__ import annotations

import bisect
import html
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Final, Generic, Literal, TypeAlias, TypeVar

from acp_tui.client.elicitation_form import answer_text
from acp_tui.client.plan_documents import plan_document
from acp_tui.export_json import json_text
from acp_tui.export_reports import REPORT_MARKDOWN
from acp_tui.safe_text import printable
from acp_tui.store.model import (
    Elicitation,
    Message,
    Permission,
    Plan,
    Terminal,
    ToolCall,
)
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject, plain_json
from acp_tui.terminal.final_text import final_text

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

__all__ = [
    "EXPORT_FORMATS",
    "ExportFormat",
    "export_text",
    "join_text_chunks",
    "json_text",
    "neutralise_markdown",
    "session_document",
    "session_markdown",
    "terminal_text",
]

ExportFormat: TypeAlias = Literal["markdown", "json"]
EXPORT_FORMATS: Final[tuple[ExportFormat, ...]] = ("markdown", "json")

_Entity = TypeVar("_Entity")


def terminal_text(terminal: Terminal) -> str:
    """The emulator's scrollback plus screen as plain text (trailing blanks cut).

    Long output is emulated only where it can still show (`final_text`).
    """
    return final_text(terminal.output)


def join_text_chunks(content: Sequence[Any]) -> list[Any]:
    """A plain copy of content blocks, each run of adjacent plain text blocks joined.

    A plain text block is exactly `{"type": "text", "text": str}` once copied
    (`plain_json`): a block with annotations or `_meta` is kept as it is, so
    nothing but the cuts is lost. The same blocks in the same order with the
    same keys, all new objects. A block that is a `dict` of exactly a `str`
    `text` and a `type` equal to "text" (every streamed chunk) is not copied
    first to be found plain text: its copy would be one; any other block is
    copied, then looked at (issue 28: a message of 20,000 chunks, ~11 -> ~2 ms).
    """
    joined: list[Any] = []
    run: list[Any] = []
    """The current run of plain text blocks, originals or copies (joined once it
    ends: not one by one, which copied the growing text for every chunk)."""
    for block in content:
        if (
            type(block) is dict
            and len(block) == 2
            and type(block.get("text")) is str
            and block.get("type") == "text"
        ):
            run.append(block)
            continue
        copied = plain_json(block)
        if _plain_text(copied):
            run.append(copied)
            continue
        if run:
            joined.append(_joined(run))
            run = []
        joined.append(copied)
    if run:
        joined.append(_joined(run))
    return joined


def _joined(run: list[Any]) -> Any:
    """One new block for a run of plain text blocks (a lone one copied as it is)."""
    if len(run) == 1:
        return plain_json(run[0])  # (its own key order)
    return {"type": "text", "text": "".join(block["text"] for block in run)}


def _plain_text(block: Any) -> bool:
    return (
        isinstance(block, dict)
        and len(block) == 2
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    )


def session_document(
    *,
    protocol_version: int | None,
    agent: dict[str, Any] | None,
    store: SessionStore | None,
    raw_chunks: bool = False,
) -> dict[str, Any]:
    """The JSON document for a session (or for a run that failed before one).

    Args:
        protocol_version: The negotiated ACP version.
        agent: The agent's name, title and version.
        store: The session; None if the run failed before one was open.
        raw_chunks: Keep each message's text chunks as streamed (default:
            adjacent plain text chunks joined).
    """
    document: dict[str, Any] = {"protocolVersion": protocol_version, "agent": agent}
    if store is None:
        document.update(
            {
                "sessionId": None,
                "state": None,
                "stopReason": None,
                "timeline": [],
                "messages": [],
                "toolCalls": [],
                "plans": [],
                "terminals": [],
                "configOptions": [],
                "commands": [],
                "usage": None,
                "info": None,
                "permissions": [],
                "unknownUpdates": [],
            }
        )
        return document
    # (A truncated message's tail stays a block after its head's: joined to it,
    # the text would read as if nothing were missing.)
    document.update(
        store.to_json(terminal_text, None if raw_chunks else join_text_chunks)
    )
    return document


def export_text(
    store: SessionStore,
    output_format: ExportFormat,
    *,
    protocol_version: int | None,
    agent: dict[str, Any] | None,
) -> str:
    """The session as Markdown or as the JSON document, ready to write to a file."""
    if output_format == "json":
        return json_text(
            session_document(
                protocol_version=protocol_version, agent=agent, store=store
            )
        )
    name = agent.get("title") or agent.get("name") if agent else None
    return session_markdown(
        store,
        agent=name if isinstance(name, str) else None,
        protocol_version=protocol_version,
    )


# --- Markdown -------------------------------------------------------------------


def session_markdown(
    store: SessionStore,
    *,
    agent: str | None = None,
    protocol_version: int | None = None,
) -> str:
    r"""The session as a Markdown transcript, in timeline order.

    User messages are `## User` sections with the text quoted (a user message
    the agent wrote is `## From the agent, not typed by you`), agent text is kept
    as it is (it is Markdown), thoughts sit in `<details>`, tool calls show their
    kind, title, status and content (diffs in `diff` fences, terminals in plain
    fences), plans are task lists, permission requests show their outcome, and the
    session's final state ends the file.

    Args:
        store: The session.
        agent: The agent's name, for the header.
        protocol_version: The ACP version, for the header.

    Returns:
        The Markdown text (ends with a newline; no control characters but `\n`
        and `\t`).
    """
    out: list[str] = []
    title = store.session_info.title
    out.append(f"# {_line(title) if title else 'ACP session'}")
    out.append("")
    out.append(f"- Session: `{_code(store.session_id)}`")
    if agent:
        out.append(f"- Agent: {_line(agent)}")
    if protocol_version is not None:
        out.append(f"- Protocol: ACP v{protocol_version}")
    if store.session_info.updated_at:
        out.append(f"- Updated: {_line(store.session_info.updated_at)}")
    shown_terminals: set[str] = set()
    for kind, entity_id in store.timeline():
        block: list[str] = []
        entry = _SNAPSHOT_MARKDOWN.get(kind)
        if entry is not None:
            block = entry.markdown(store, entity_id)
        elif kind == "tool_call":
            call = store.tool_call(entity_id)
            if call is not None:
                block = _tool_call_markdown(store, call, shown_terminals)
        elif kind == "terminal":
            terminal = store.terminal(entity_id)
            if terminal is not None and entity_id not in shown_terminals:
                shown_terminals.add(entity_id)
                block = ["### Terminal", "", *_terminal_markdown(terminal)]
        elif kind == "unknown_update":
            block = _unknown_markdown(store, entity_id)
        elif kind in REPORT_MARKDOWN:
            block = REPORT_MARKDOWN[kind](store, entity_id)
        if block:
            out.append("")
            out.extend(block)
    out.append("")
    out.extend(_state_markdown(store))
    text = "\n".join(out).replace("\r\n", "\n")
    return neutralise_markdown(printable(text, keep="\n\t")) + "\n"


# --- making agent Markdown inert -----------------------------------------------------

_CODE_TOKENS: Final = frozenset({"fence", "code_block"})
_OWN_HTML_LINES: Final = frozenset(
    {"<details>", "<summary>Thought</summary>", "</details>"}
)
"""Lines of raw HTML the export writes itself (harmless, whoever wrote them)."""
_BAD_SCHEMES: Final = ("javascript:", "vbscript:", "data:")
_SAFE_AUTOLINK: Final = re.compile(
    r"<(?:(?:https?|ftp|mailto):[^\x00-\x20<>]*|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+"
    r"@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9-]+)*)>"
)
_LINK_START: Final = re.compile(r"\](?=[(:])|<(?=[A-Za-z][A-Za-z0-9+.-]*:)")
_BACKSLASH_ESCAPE: Final = re.compile(r"\\([!-/:-@\[-`{-~])")
_BACKTICKS: Final = re.compile(r"`+")
_PUNCTUATION: Final = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


@cache
def _parser() -> MarkdownIt:
    # Imported when a Markdown export needs it: `print --format json` never does.
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


def _code_lines(markdown: str) -> set[int]:
    """The indexes of the lines a CommonMark viewer shows as code blocks."""
    lines: set[int] = set()
    for token in _parser().parse(markdown):
        if token.type in _CODE_TOKENS and token.map is not None:
            lines.update(range(*token.map))
    return lines


def neutralise_markdown(markdown: str) -> str:
    """`markdown` with no raw HTML and no link to a script or data URL left active.

    See the module docstring. Idempotent; code is never changed.
    """
    text = markdown
    for _ in range(markdown.count("\n") + 2):  # each pass changes a line, or ends
        lines = text.split("\n")
        code = _code_lines(text)
        for index, line in enumerate(lines):
            if index not in code and "<" in line and line not in _OWN_HTML_LINES:
                lines[index] = _escape_html(line)
        changed = _disarm_links("\n".join(lines), code)
        if changed == text:
            break
        text = changed
    return text


def _escape_html(line: str) -> str:
    """One line of text with every `<` outside inline code written as `&lt;`.

    Safe autolinks (`<https://...>`, `<me@example.com>`) stay links. A code span
    is recognised only within the line and without a `|` (a table cell boundary
    for GFM viewers); anything else is treated as text.
    """
    out: list[str] = []
    index, end = 0, len(line)
    while index < end:
        char = line[index]
        if char == "\\" and index + 1 < end and line[index + 1] in _PUNCTUATION:
            out.append(line[index : index + 2])  # an escaped character is text
            index += 2
        elif char == "`":
            run = _BACKTICKS.match(line, index)
            assert run is not None
            closing = next(
                (
                    m
                    for m in _BACKTICKS.finditer(line, run.end())
                    if len(m.group()) == len(run.group())
                ),
                None,
            )
            if closing is not None and "|" not in line[run.end() : closing.start()]:
                out.append(line[index : closing.end()])  # inline code: as written
                index = closing.end()
            else:
                out.append(run.group())
                index = run.end()
        elif char == "<":
            autolink = _SAFE_AUTOLINK.match(line, index)
            if autolink is not None:
                out.append(autolink.group())
                index = autolink.end()
            else:
                out.append("&lt;")
                index += 1
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _disarm_links(text: str, code: set[int]) -> str:
    r"""Break every link, image, definition or autolink to a dangerous URL.

    `](` becomes `]\(`, `]:` becomes `]\:` and `<` becomes `&lt;`, so the
    viewer shows the characters instead of making a link.
    """
    starts = [0]
    starts.extend(m.end() for m in re.finditer("\n", text))
    out: list[str] = []
    done = 0
    for match in _LINK_START.finditer(text):
        position = match.start()
        if bisect.bisect_right(starts, position) - 1 in code:
            continue
        if match.group() == "<":
            target = text[match.end() : match.end() + 200]
            replacement, cut = "&lt;", match.end()
        else:
            target = text[match.end() + 1 : match.end() + 201]
            replacement, cut = "]\\", match.end()
        if not _dangerous(target):
            continue
        out.append(text[done:position])
        out.append(replacement)
        done = cut
    out.append(text[done:])
    return "".join(out)


def _dangerous(target: str) -> bool:
    """Whether a link destination (and what follows it) names a dangerous scheme.

    As a browser would read it: Markdown backslash escapes and HTML character
    references decoded, whitespace and control characters (which URL parsers drop)
    removed, case ignored.
    """
    target = target.lstrip(" \t")
    if target.startswith("\n"):  # one line ending, then the container's marks
        target = target[1:].lstrip(" \t>")
    for opener in ("&lt;", "<"):
        if target.startswith(opener):
            target = target[len(opener) :]
            break
    target = html.unescape(_BACKSLASH_ESCAPE.sub(r"\1", target))
    squeezed = "".join(ch for ch in target[:100] if ch > " " and ch != "\x7f")
    return squeezed.lower().startswith(_BAD_SCHEMES)


def _line(text: object) -> str:
    """Agent data on one line: every control character (newlines too) escaped."""
    return printable(str(text))


def _code(text: object) -> str:
    """One-line text for inline code (backticks cannot end the span)."""
    return _line(text).replace("`", "'")


def _fence(text: str, language: str = "") -> list[str]:
    """`text` in a code fence longer than any backtick run inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{language}", text.rstrip("\n"), fence]


def _quote(text: str) -> list[str]:
    return [f"> {line}".rstrip() for line in text.rstrip("\n").split("\n")]


def _block_label(block: JSONObject) -> str:
    kind = block.get("type")
    if kind == "resource_link":
        return (
            f"[link {_line(block.get('name') or '')}]({_line(block.get('uri') or '')})"
        )
    if kind == "resource":
        resource = block.get("resource")
        uri = resource.get("uri") if isinstance(resource, Mapping) else None
        text = resource.get("text") if isinstance(resource, Mapping) else None
        label = f"*[resource {_line(uri or '')}]*"
        return label + (
            "\n\n" + "\n".join(_fence(text)) if isinstance(text, str) else ""
        )
    mime = block.get("mimeType")
    return f"*[{_line(kind)} {_line(mime)}]*" if mime else f"*[{_line(kind)}]*"


def _message_body(message: Message) -> str:
    parts = [
        run if isinstance(run, str) else _block_label(run) for run in message.runs()
    ]
    return "\n\n".join(part for part in parts if part)


def _message_markdown(message: Message) -> list[str]:
    body = _message_body(message)
    if message.role == "user":
        # One the agent wrote is never exported as the user's.
        head = (
            "## From the agent, not typed by you" if message.from_agent else "## User"
        )
        return [head, "", *_quote(body)] if body else [head]
    if message.role == "thought":
        return [
            "<details>",
            "<summary>Thought</summary>",
            "",
            *_quote(body),
            "",
            "</details>",
        ]
    return ["## Agent", "", body.rstrip("\n")] if body else ["## Agent"]


def _diff_markdown(item: JSONObject) -> list[str]:
    patch = item.get("patch")
    if isinstance(patch, Mapping) and isinstance(patch.get("text"), str):
        return _fence(str(patch["text"]), "diff")
    new = item.get("newText")
    if isinstance(new, str):
        # Imported here: `print --format json` never needs the diff parser.
        from acp_tui.diff.parse import patch_from_texts

        old = item.get("oldText")
        path = str(item.get("path") or "file")
        return _fence(
            patch_from_texts(path, old if isinstance(old, str) else None, new), "diff"
        )
    lines: list[str] = []
    changes = item.get("changes")
    if isinstance(changes, Sequence) and not isinstance(changes, str):
        for change in changes:
            if isinstance(change, Mapping):
                operation = change.get("operation", "change")
                where = change.get("path") or "?"
                if change.get("oldPath"):
                    where = f"{change.get('oldPath')} → {where}"
                lines.append(f"- {_line(operation)} `{_code(where)}`")
    return lines or ["*[diff]*"]


def _terminal_markdown(terminal: Terminal) -> list[str]:
    name = terminal.command or terminal.terminal_id
    head = f"`$ {_code(name)}`"
    if terminal.exit_status is not None:
        code = terminal.exit_status.get("exitCode")
        signal = terminal.exit_status.get("signal")
        if signal:
            head += f" (signal {_line(signal)})"
        elif code is not None:
            head += f" (exit {_line(code)})"
    text = terminal_text(terminal)
    return [head, "", *_fence(text)] if text else [head]


def _tool_call_markdown(
    store: SessionStore, call: ToolCall, shown_terminals: set[str]
) -> list[str]:
    title = _line(call.title) if call.title else f"`{_code(call.tool_call_id)}`"
    out = [f"### Tool: {title}", "", f"*{_line(call.kind)} · {_line(call.status)}*"]
    for location in call.locations:
        line = location.get("line")
        where = f"{location.get('path', '')}" + (f":{line}" if line is not None else "")
        out.extend(["", f"@ `{_code(where)}`"])
    for item in call.content:
        kind = item.get("type")
        part: list[str]
        if kind == "content":
            block = item.get("content")
            if isinstance(block, Mapping):
                text = block.get("text") if block.get("type") == "text" else None
                part = [str(text)] if isinstance(text, str) else [_block_label(block)]
            else:
                part = ["*[content]*"]
        elif kind == "diff":
            part = _diff_markdown(item)
        elif kind == "terminal":
            terminal_id = str(item.get("terminalId"))
            terminal = store.terminal(terminal_id)
            shown_terminals.add(terminal_id)
            part = (
                _terminal_markdown(terminal)
                if terminal is not None
                else [f"*[terminal `{_code(terminal_id)}`]*"]
            )
        else:
            part = [f"*[{_line(kind)} content]*"]
        out.extend(["", *part])
    return out


_PLAN_MARKS: Final = {
    "pending": "[ ]",
    "completed": "[x]",
    "in_progress": "[ ] (in progress)",
}


def _plan_markdown(plan: Plan) -> list[str]:
    document = plan_document(plan)
    if document is not None and document.kind == "markdown":
        return ["### Plan", "", *_quote(document.text or "")]  # neutralised below
    if document is not None:
        where = document.path or document.uri or "no file named"
        return ["### Plan", "", f"*(in the file `{_code(where)}`)*"]
    entries = plan.entries
    out = ["### Plan", ""]
    for entry in entries:
        status = str(entry.get("status") or "pending")
        mark = _PLAN_MARKS.get(status, f"[ ] ({_line(status)})")
        content = _line(entry.get("content") or "")
        out.append(f"- {mark} {content}")
    return out if entries else ["### Plan", "", "*(empty)*"]


def _permission_markdown(permission: Permission) -> list[str]:
    title = _line(permission.title or "permission requested")
    subject = permission.subject or {}
    if subject.get("type") == "command":
        title += f" — `$ {_code(subject.get('command'))}`"
    outcome = permission.outcome
    if outcome is None:
        answer = "no answer"
    else:
        chosen = outcome.get("optionId")
        names = {o.get("optionId"): o.get("name") for o in permission.options}
        answer = _line(names.get(chosen) or chosen) if chosen else "cancelled"
    return [f"**Permission:** {title}: **{answer}**"]


def _elicitation_markdown(elicitation: Elicitation) -> list[str]:
    question = _line(elicitation.message)
    if elicitation.url is not None:  # shown, never a link
        question += f" — `{_code(elicitation.url)}`"
    return [f"**Question:** {question}: **{_line(answer_text(elicitation))}**"]


@dataclass(frozen=True, slots=True)
class _SnapshotMarkdown(Generic[_Entity]):
    """A timeline entry written from its snapshot alone."""

    snapshot: Callable[[SessionStore, str], _Entity | None]
    """The store's query for the entity (None: unknown)."""
    write: Callable[[_Entity], list[str]]

    def markdown(self, store: SessionStore, entity_id: str) -> list[str]:
        """The entry's Markdown lines (none for an unknown entity)."""
        entity = self.snapshot(store, entity_id)
        return [] if entity is None else self.write(entity)


_SNAPSHOT_MARKDOWN: Final[Mapping[str, _SnapshotMarkdown[Any]]] = {
    "message": _SnapshotMarkdown(SessionStore.message, _message_markdown),
    "plan": _SnapshotMarkdown(SessionStore.plan, _plan_markdown),
    "permission": _SnapshotMarkdown(SessionStore.permission, _permission_markdown),
    "elicitation": _SnapshotMarkdown(SessionStore.elicitation, _elicitation_markdown),
}
"""The timeline kinds whose Markdown needs nothing but the entity."""


def _unknown_markdown(store: SessionStore, entity_id: str) -> list[str]:
    updates = store.unknown_updates
    try:
        raw = updates[int(entity_id)]
    except (ValueError, IndexError):
        return []
    kind = raw.get("sessionUpdate") or raw.get("type") or "?"
    return [f"*[unknown update `{_code(kind)}`]*"]


def _state_markdown(store: SessionStore) -> list[str]:
    state = store.state
    out = ["---", "", f"- State: {_line(state.state)}"]
    stop = state.stop_reason or state.last_stop_reason
    if stop:
        out.append(f"- Stop reason: {_line(stop)}")
    if state.error is not None:
        message = state.error.get("message") or json.dumps(dict(state.error))
        out.append(f"- Error: {_line(message)}")
    usage = store.usage
    if usage is not None and usage.used is not None:
        size = f" / {usage.size}" if usage.size is not None else ""
        out.append(f"- Context: {usage.used}{size} tokens")
    return out
