"""What a permission request is about, and what "allow always" may cover.

The permission dialog shows a request's subject (`SubjectFacts`) and
`RememberingPrompter` remembers a user's "allow always" under a key
(`GrantScope.key`) built from the same facts, so a grant covers exactly what the
dialog showed and nothing else.

Invariants:

* A key holds the exact, normalised subject: for a `command` subject its command
  line and cwd; for a tool call its tool `name` (when the agent gives one), its
  kind, its command line and cwd, its paths (locations and diff paths) and the
  rest of its raw input as canonical JSON. Only text that cannot change what runs
  is left out: runs of spaces in a command (the shell splits on them alike), a
  shell command's `description`, and for an edit the new text (an edit grant
  covers edits to those files). Titles are never part of a key: the agent writes
  them, and they need not say what runs.
* Some subjects are never remembered (`key` None, with `reason`): a command with
  shell syntax (`SHELL_SYNTAX`: operators, expansions, quotes, globs), control
  characters, tabs or other whitespace than spaces, or a first word that changes
  the shell for later commands (`STATEFUL_WORDS`: a persistent shell, as Claude
  Code's Bash keeps, would run later commands somewhere else); a tool call that
  names no command and no file; an unknown subject type; no subject. The same
  text can mean something else on the next run, or the facts are too thin to
  say what a grant would cover.
* An unknown subject is never read as a command or a tool call, whatever keys it
  has (`{"type": "_vendor_subject", "command": ...}` stays unknown).
* Pure functions of the subject and the store's copy of its tool call: the
  client layer computes the scope once and hands it to the dialog with the
  request (`PermissionRequest.grant`), so what is shown and what is keyed cannot
  drift apart.
* Only the words change with how paths are shown: `GrantScope.covers_for`
  names paths relative to the session's directory (`acp_tui.display_paths`),
  while the key keeps them exactly as the agent sent them.
"""

from __future__ import annotations

import json
import shlex
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final

from acp_tui.display_paths import AS_SENT, PathDisplay
from acp_tui.store.model import ToolCall
from acp_tui.store.values import JSONObject, JSONValue

__all__ = [
    "SHELL_SYNTAX",
    "STATEFUL_WORDS",
    "GrantScope",
    "SubjectFacts",
    "command_problem",
    "grant_scope_of",
    "subject_diffs",
    "subject_facts",
]

SHELL_SYNTAX: Final = frozenset(";&|<>()$`\\\"'*?[]{}~#!\n")
"""Characters a POSIX shell (or bash, zsh) reads as operators, expansions,
quoting, globs, comments or history: a command containing one is never
remembered, since the same text may do something else next time."""

STATEFUL_WORDS: Final = frozenset(
    {
        ".",
        "alias",
        "builtin",
        "cd",
        "command",
        "declare",
        "enable",
        "eval",
        "exec",
        "export",
        "hash",
        "local",
        "popd",
        "pushd",
        "readonly",
        "set",
        "setopt",
        "shopt",
        "source",
        "trap",
        "typeset",
        "ulimit",
        "umask",
        "unalias",
        "unset",
    }
)
"""Shell builtins that change the shell for later commands, or run other text
as a command: such a command line is never remembered."""

_COMMAND_KEYS: Final = ("command", "cmd")
"""Raw-input keys that hold a tool call's command line (a string or an argv)."""

_CWD_KEYS: Final = ("cwd", "workdir")
"""Raw-input keys that hold the directory a command runs in."""

_DESCRIPTIVE_KEYS: Final = frozenset({"description", "command_description"})
"""Raw-input keys of a command that only describe it (left out of its key)."""

_EDIT_PAYLOAD_KEYS: Final = frozenset(
    {
        "content",
        "diff",
        "edit_mode",
        "edits",
        "new_source",
        "new_string",
        "newString",
        "old_string",
        "oldString",
        "patch",
        "patchText",
        "patch_text",
        "replace_all",
        "replaceAll",
        "text",
    }
)
"""Raw-input keys, at any depth, of an edit's new text: an edit grant covers
edits to its files, whatever they write."""


@dataclass(frozen=True, slots=True)
class SubjectFacts:
    """What a permission request is about, as the agent stated it."""

    type: str
    """`tool_call`, `command`, `none` (no subject) or the unknown type as sent."""
    name: str | None = None
    """The tool's name, if the agent gives one."""
    kind: str | None = None
    """The tool call's kind (`read`, `edit`, `execute`...)."""
    title: str | None = None
    """The tool call's title (shown, never part of a key)."""
    command: str | None = None
    """The command line: a `command` subject's, or a tool call's raw input's
    (an argv is joined with shell quoting)."""
    cwd: str | None = None
    """The directory the command runs in, if stated."""
    paths: tuple[str, ...] = ()
    """Every path the tool call names (locations, diff paths), sorted."""
    rest: str = ""
    """The rest of the raw input as canonical JSON (empty when there is none)."""
    unreadable: str | None = None
    """Why the facts are incomplete (a command or location of an odd shape)."""
    tool_call_id: str | None = field(default=None, compare=False)
    """A `tool_call` subject's tool call id, if the agent gave one (not a fact the
    grant compares: the same call again has a new id)."""

    @property
    def known(self) -> bool:
        """Whether the subject type is one acp-tui understands."""
        return self.type in ("tool_call", "command")


@dataclass(frozen=True, slots=True)
class GrantScope:
    """What choosing "allow always" lets acp-tui answer by itself later."""

    subject: SubjectFacts
    key: tuple[str, ...] | None
    """The grant's key, or None: acp-tui never answers this by itself."""
    reason: str | None = None
    """Why it is not remembered (None when it is)."""

    @property
    def covers(self) -> str:
        """What "always" covers, or that it asks again; paths as sent."""
        return self.covers_for(AS_SENT)

    def covers_for(self, paths: PathDisplay) -> str:
        """One sentence for the dialog: what "always" covers, or that it asks again.

        Args:
            paths: How paths are named (relative to the session's directory in
                the dialog); the key keeps them exact all the same.
        """
        if self.key is None:
            return f"acp-tui will ask again next time: {self.reason}."
        # No full stop after the subject: it may end with a path, and `in .` (the
        # session's directory) would read `in ..`, the parent.
        return (
            "Always: acp-tui allows exactly this again, for this session: "
            f"{_describe(self.subject, paths)}"
        )


def subject_facts(
    subject: JSONObject | None, tool_call: ToolCall | None = None
) -> SubjectFacts:
    """Read a permission subject, completed by the store's copy of its tool call.

    Args:
        subject: The wire subject (a v1 request's tool call is a `tool_call`
            subject).
        tool_call: The store's tool call of a `tool_call` subject, which has the
            subject applied to it: agents often report the tool call first and
            send only its id with the request. Ignored if its id differs.
    """
    if subject is None:
        return SubjectFacts("none")
    kind = subject.get("type")
    if kind == "command":
        return _command_facts(subject)
    if kind != "tool_call":
        return SubjectFacts(kind if isinstance(kind, str) and kind else "unknown")
    fields = _tool_call_fields(subject)
    call_id = _text(fields.get("toolCallId"))
    if tool_call is not None and tool_call.tool_call_id == fields.get("toolCallId"):
        return _tool_facts(
            call_id,
            name=tool_call.name,
            kind=tool_call.kind,
            title=tool_call.title,
            raw_input=tool_call.raw_input,
            locations=tool_call.locations,
            content=tool_call.content,
        )
    return _tool_facts(
        call_id,
        name=_text(fields.get("name")),
        kind=_text(fields.get("kind")),
        title=_text(fields.get("title")),
        raw_input=fields.get("rawInput"),
        locations=_items(fields.get("locations")),
        content=_items(fields.get("content")),
    )


def grant_scope_of(facts: SubjectFacts) -> GrantScope:
    """The grant that an "allow always" for `facts` may record."""
    if facts.type == "none":
        return GrantScope(facts, None, "the agent did not say what it asks about")
    if not facts.known:
        return GrantScope(
            facts, None, f"the subject's type {facts.type!r} is not one it knows"
        )
    if facts.unreadable:
        return GrantScope(facts, None, facts.unreadable)
    normalised = ""
    if facts.command is not None:
        problem = command_problem(facts.command)
        if problem:
            return GrantScope(facts, None, problem)
        normalised = " ".join(word for word in facts.command.split(" ") if word)
    if facts.type == "command":
        if not facts.cwd:
            return GrantScope(facts, None, "the agent did not say where it runs")
        return GrantScope(facts, ("command", normalised, facts.cwd))
    if not normalised and not facts.paths:
        return GrantScope(
            facts, None, "it names no command and no file, so it could cover anything"
        )
    key = (
        "tool",
        facts.name or "",
        facts.kind or "",
        normalised,
        facts.cwd or "",
        json.dumps(facts.paths, ensure_ascii=False),
        facts.rest,
    )
    return GrantScope(facts, key)


def command_problem(command: str) -> str | None:
    """Why `command` may not be remembered, or None if it may.

    Only a plain line of words separated by spaces may be: see `SHELL_SYNTAX` and
    `STATEFUL_WORDS`.
    """
    if "\n" in command or "\r" in command:
        return "the command spans several lines"
    for char in command:
        category = unicodedata.category(char)
        if char != " " and (category.startswith("C") or category.startswith("Z")):
            return "the command has control characters or unusual spaces"
    syntax = sorted({char for char in command if char in SHELL_SYNTAX})
    if syntax:
        return f"the command has shell syntax ({' '.join(syntax)})"
    words = command.split()
    if not words:
        return "the command is empty"
    program = next((w for w in words if "=" not in w), words[0])
    if program in STATEFUL_WORDS:
        return f"{program!r} changes the shell for the commands after it"
    return None


# ---------------------------------------------------------------------- helpers


def _command_facts(subject: JSONObject) -> SubjectFacts:
    command, cwd = subject.get("command"), subject.get("cwd")
    unreadable = None
    if not isinstance(command, str):
        unreadable = "the command is missing"
    return SubjectFacts(
        "command",
        command=command if isinstance(command, str) else None,
        cwd=cwd if isinstance(cwd, str) else None,
        unreadable=unreadable,
    )


def _tool_facts(
    tool_call_id: str | None,
    *,
    name: str | None,
    kind: str | None,
    title: str | None,
    raw_input: JSONValue,
    locations: Iterable[JSONObject],
    content: Iterable[JSONObject],
) -> SubjectFacts:
    unreadable: str | None = None
    paths: set[str] = set()
    for location in locations:
        path = location.get("path")
        if isinstance(path, str):
            paths.add(path)
        else:
            unreadable = "a location it names is unreadable"
    for item in content:
        if item.get("type") == "diff":
            path = item.get("path")
            if isinstance(path, str) and path:
                paths.add(path)
    command = cwd = None
    rest: JSONValue = raw_input
    if isinstance(raw_input, Mapping):
        rest = dict(raw_input)
        for key in _COMMAND_KEYS:
            if key in rest:
                value = rest.pop(key)
                command = _command_line(value)
                if command is None:
                    unreadable = "its command is not a plain command line"
                break
        for key in _CWD_KEYS:
            if isinstance(rest.get(key), str):
                cwd = str(rest.pop(key))
                break
        if command is not None:
            for key in _DESCRIPTIVE_KEYS:
                rest.pop(key, None)
    if kind == "edit":
        rest = _without_payload(rest)
    return SubjectFacts(
        "tool_call",
        name=name,
        kind=kind,
        title=title,
        command=command,
        cwd=cwd,
        paths=tuple(sorted(paths)),
        rest=_canonical(rest),
        unreadable=unreadable,
        tool_call_id=tool_call_id,
    )


def _tool_call_fields(subject: JSONObject) -> Mapping[str, JSONValue]:
    """A `tool_call` subject's tool call (empty if it has none)."""
    fields = subject.get("toolCall")
    return fields if isinstance(fields, Mapping) else {}


def subject_diffs(
    subject: JSONObject | None, tool_call: ToolCall | None
) -> list[JSONObject]:
    """The `diff` content items to show for a permission subject.

    From the subject's own tool-call content when it carries any, else from the
    store's copy of that tool call (agents often send the diff before asking).
    """
    items: list[object] = []
    content = _tool_call_fields(subject).get("content") if subject else None
    if isinstance(content, list):
        items = list(content)
    if not items and tool_call is not None:
        items = list(tool_call.content)
    return [
        item for item in items if isinstance(item, dict) and item.get("type") == "diff"
    ]


def _command_line(value: JSONValue) -> str | None:
    if isinstance(value, str):
        return value
    argv = value if isinstance(value, (list, tuple)) else ()
    if argv and all(isinstance(v, str) for v in argv):
        return shlex.join(str(v) for v in argv)
    return None


def _without_payload(value: JSONValue) -> JSONValue:
    if isinstance(value, Mapping):
        return {
            key: _without_payload(item)
            for key, item in value.items()
            if key not in _EDIT_PAYLOAD_KEYS
        }
    if isinstance(value, (list, tuple)):
        return [_without_payload(item) for item in value]
    return value


def _canonical(value: JSONValue) -> str:
    if value is None or value == {}:
        return ""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _describe(facts: SubjectFacts, shown: PathDisplay) -> str:
    """The subject in one line: the command and where, or the files; the tool."""
    parts: list[str] = []
    if facts.command is not None:
        parts.append(f"`{' '.join(facts.command.split())}`")
        where = f"in {shown.show(facts.cwd)}" if facts.cwd else "(no directory given)"
        parts.append(where)
    paths = [path for path in facts.paths if path != facts.cwd]
    if paths:
        files = ", ".join(shown.show(path) for path in paths)
        if facts.command is not None:
            parts.append(f"on {files}")
        elif facts.kind == "edit":
            parts.append(f"edits to {files}")
        else:
            parts.append(f"{facts.kind or 'tool calls'} on {files}")
    if facts.type == "tool_call":
        if facts.name:
            parts.append(f"by {facts.name}")
        elif facts.command is not None and facts.kind:
            return " ".join(parts) + f", kind {facts.kind}"
    return " ".join(parts)


def _text(value: JSONValue) -> str | None:
    return value if isinstance(value, str) else None


def _items(value: JSONValue) -> tuple[JSONObject, ...]:
    if not isinstance(value, (list, tuple)):
        return ()
    return tuple(item for item in value if isinstance(item, Mapping))
