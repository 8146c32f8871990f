"""Permission subjects as text: the lines, paths and diffs a subject names.

Shared by the dialog (`acp_tui.ui.screens.permission`, which re-exports these
names) and the conversation's record of the answer
(`acp_tui.ui.widgets.permission_view`), so a widget never imports the screen.

Invariants:

* Agent text is data: every line passes through `printable`, one line at a time,
  so a newline inside a command is shown, not obeyed.
* An unknown subject type is listed generically (its type and fields as data),
  never as a command or a tool call.
* Paths are shown as the given `PathDisplay` shows them, whole (never shortened).
"""

from __future__ import annotations

import json
from typing import Final

from acp_tui.client.grants import SubjectFacts, subject_diffs, subject_facts
from acp_tui.display_paths import AS_SENT, PathDisplay
from acp_tui.safe_text import printable
from acp_tui.store.model import ToolCall
from acp_tui.store.values import JSONObject
from acp_tui.ui.widgets.diff_view import diff_patch_text

__all__ = [
    "subject_diffs",
    "subject_lines",
    "subject_patches",
    "subject_paths",
    "subject_summary",
]

_UNKNOWN_FIELDS: Final = 6
"""Fields of an unknown subject listed (the rest are counted)."""

_FIELD_WIDTH: Final = 80
"""Characters of an unknown subject's field value shown."""


def subject_summary(
    subject: JSONObject | None,
    tool_call: ToolCall | None = None,
    paths: PathDisplay = AS_SENT,
) -> str:
    """A few plain lines describing a permission subject (empty for none).

    Args:
        subject: The wire subject.
        tool_call: The store's copy of a `tool_call` subject's tool call.
        paths: How paths are shown (default: as sent).
    """
    return "\n".join(
        subject_lines(subject_facts(subject, tool_call), subject, tool_call, paths)
    )


def subject_paths(facts: SubjectFacts) -> list[str]:
    """The paths the subject names, as sent: the directory, then the files."""
    return [p for p in (facts.cwd, *facts.paths) if p] if facts.known else []


def subject_lines(
    facts: SubjectFacts,
    subject: JSONObject | None,
    tool_call: ToolCall | None = None,
    paths: PathDisplay = AS_SENT,
) -> list[str]:
    """The subject as printable lines: the tool, the command and where, the files.

    An unknown subject type lists its type and fields (see the module docstring).
    Paths are shown as `paths` shows them, whole.
    """
    if facts.type == "none" or subject is None:
        return []
    if not facts.known:
        return _unknown_lines(facts.type, subject)
    lines: list[str] = []
    if facts.type == "tool_call":
        lines.append(f"tool call: {facts.title or facts.tool_call_id or 'untitled'}")
        if facts.name:
            lines.append(f"tool: {facts.name} ({facts.kind or 'no kind'})")
        elif facts.kind:
            lines.append(f"kind: {facts.kind}")
    if facts.command is not None or facts.type == "command":
        lines.append(printable(f"$ {facts.command or ''}"))
        if facts.cwd:
            lines.append(f"in {paths.show(facts.cwd)}")
    files = [path for path in facts.paths if path != facts.cwd]
    if files:
        noun = "file" if len(files) == 1 else "files"
        lines.append(f"{noun}: {', '.join(paths.show(path) for path in files)}")
    return [printable(str(line)) for line in lines]


def _unknown_lines(kind: str, subject: JSONObject) -> list[str]:
    fields = [(key, value) for key, value in subject.items() if key != "type"]
    lines = [f"subject of unknown type {kind!r}"]
    for key, value in fields[:_UNKNOWN_FIELDS]:
        text = json.dumps(value, ensure_ascii=False, default=str)
        if len(text) > _FIELD_WIDTH:
            text = text[: _FIELD_WIDTH - 1] + "…"
        lines.append(f"  {key}: {text}")
    if len(fields) > _UNKNOWN_FIELDS:
        lines.append(f"  … {len(fields) - _UNKNOWN_FIELDS} more fields")
    return [printable(line) for line in lines]


def subject_patches(
    subject: JSONObject | None, tool_call: ToolCall | None
) -> list[str]:
    """The patch texts of `subject_diffs` (diffs without a patch are left out)."""
    patches: list[str] = []
    for item in subject_diffs(subject, tool_call):
        text = diff_patch_text(item)
        if text:
            patches.append(text)
    return patches
