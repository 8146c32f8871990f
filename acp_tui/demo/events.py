"""The demo agent's version-neutral events, and the fold that replays them.

The core (`session.py`, `scenarios.py`) never builds a wire message: it emits these
events, records them in the session's history, and hands them to the connection's
emitter (`emit_v1.py` / `emit_v2.py`), which turns each into zero or more wire
messages of the negotiated version.

Invariants:

* **Events are facts, in the order they happened.** A session's history is the
  list of events it emitted, persisted as JSON (`event_to_json` /
  `event_from_json` round-trip exactly), so a replay in a new process sees exactly
  what the live run sent, in either protocol version.
* **Upserts are patches.** `ToolCall` and `Terminal` carry only the fields that
  changed (a key absent from `fields` is unchanged); `content` and `locations`
  replace the whole list, as in ACP. `MessageChunk`, `ToolContentChunk` and
  `TerminalOutput` append.
* **Neutral content.** Tool-call content items are plain dicts of three shapes:
  `{"type": "text", "text"}`, `{"type": "diff", "changes": [FileChange...],
  "patch": str | None}` and `{"type": "terminal", "terminalId"}`. A `FileChange`
  is `{operation, path, oldPath?, fileType?, mimeType?, oldText?, newText?,
  oldSize?, newSize?}`: v2 sends `changes` (the first five keys) + `patch`; v1
  derives `{path, oldText, newText}` from the texts, and describes a binary
  change (`fileType: binary`, with its sizes) in words.
  Message content blocks are ACP `ContentBlock`s (identical in both versions for
  the types the demo sends: text and resource links).
* `fold()` is pure: it reduces a history to the final state of every entity, in
  order of first appearance, which is what a replay sends.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

__all__ = [
    "Event",
    "Folded",
    "Info",
    "JSONObject",
    "Message",
    "MessageChunk",
    "MessageState",
    "Plan",
    "PlanRemoved",
    "Report",
    "Role",
    "Terminal",
    "TerminalOutput",
    "TerminalState",
    "ToolCall",
    "ToolCallState",
    "ToolContentChunk",
    "Unknown",
    "Usage",
    "event_from_json",
    "event_to_json",
    "fold",
]

JSONObject: TypeAlias = dict[str, Any]
Role: TypeAlias = Literal["user", "agent", "thought"]


@dataclass(frozen=True, slots=True)
class Message:
    """A whole message (the user's prompt): its complete content."""

    message_id: str
    role: Role
    content: list[JSONObject]


@dataclass(frozen=True, slots=True)
class MessageChunk:
    """One content block appended to a message."""

    message_id: str
    role: Role
    block: JSONObject


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool-call upsert: `fields` holds only what changed.

    Keys: `title`, `kind`, `status`, `content` (neutral items), `locations`
    (`[{path, line?}]`), `rawInput`, `rawOutput`.
    """

    tool_call_id: str
    fields: JSONObject


@dataclass(frozen=True, slots=True)
class ToolContentChunk:
    """One neutral content item appended to a tool call."""

    tool_call_id: str
    item: JSONObject


@dataclass(frozen=True, slots=True)
class Plan:
    """A plan's complete entries (`[{content, priority, status}]`).

    `group` ties the plans shown together (one turn's plans): v1 has one plan per
    session, so its emitter sends the entries of every plan in the group, merged.
    """

    plan_id: str
    group: int
    entries: list[JSONObject]
    markdown: str | None = None
    """Set for a markdown plan (then `entries` is empty): v2 sends it as such."""


@dataclass(frozen=True, slots=True)
class PlanRemoved:
    """The plan `plan_id` is dismissed (v2 `plan_removed`)."""

    plan_id: str


@dataclass(frozen=True, slots=True)
class Terminal:
    """A display-terminal upsert: `command`, `cwd` (absolute), `exitStatus`."""

    terminal_id: str
    fields: JSONObject


@dataclass(frozen=True, slots=True)
class TerminalOutput:
    """Raw bytes a terminal printed (appended)."""

    terminal_id: str
    data: bytes


@dataclass(frozen=True, slots=True)
class Info:
    """Session metadata patch: `title` and/or `updatedAt`."""

    fields: JSONObject


@dataclass(frozen=True, slots=True)
class Usage:
    """Context usage and the cumulative cost."""

    used: int
    size: int
    cost: float
    currency: str = "USD"


@dataclass(frozen=True, slots=True)
class Unknown:
    """An update of a type no ACP version defines (`sessionUpdate` starts with `_`).

    Only v2 can carry it (its schema has an open `SessionUpdate`); the v1 emitter
    drops it, because the v1 schema's union is closed.
    """

    payload: JSONObject


@dataclass(frozen=True, slots=True)
class Report:
    """What the agent reports about itself (the same shape in v1 and v2).

    `payload` is a `notice`, `compaction_update` or `compaction_summary_chunk`
    update, with its `sessionUpdate`.

    v2 sends it as is; v1 only to a client that opted in (`session.notices`,
    `session.compaction`). A notice is live only (never replayed); a compaction
    replays as one upsert with its final status and whole summary (`fold`).
    """

    payload: JSONObject

    @property
    def opt_in(self) -> str:
        """The v1 opt-in it needs: `notices` or `compaction`."""
        return (
            "notices" if self.payload.get("sessionUpdate") == "notice" else "compaction"
        )


Event: TypeAlias = (
    Message
    | MessageChunk
    | ToolCall
    | ToolContentChunk
    | Plan
    | PlanRemoved
    | Terminal
    | TerminalOutput
    | Info
    | Usage
    | Unknown
    | Report
)


def event_to_json(event: Event) -> JSONObject:
    """The JSON form of an event, for the session file."""
    match event:
        case Message():
            return {
                "kind": "message",
                "messageId": event.message_id,
                "role": event.role,
                "content": event.content,
            }
        case MessageChunk():
            return {
                "kind": "message_chunk",
                "messageId": event.message_id,
                "role": event.role,
                "block": event.block,
            }
        case ToolCall():
            return {
                "kind": "tool_call",
                "toolCallId": event.tool_call_id,
                "fields": event.fields,
            }
        case ToolContentChunk():
            return {
                "kind": "tool_content_chunk",
                "toolCallId": event.tool_call_id,
                "item": event.item,
            }
        case Plan():
            plan: JSONObject = {
                "kind": "plan",
                "planId": event.plan_id,
                "group": event.group,
                "entries": event.entries,
            }
            if event.markdown is not None:
                plan["markdown"] = event.markdown
            return plan
        case PlanRemoved():
            return {"kind": "plan_removed", "planId": event.plan_id}
        case Terminal():
            return {
                "kind": "terminal",
                "terminalId": event.terminal_id,
                "fields": event.fields,
            }
        case TerminalOutput():
            return {
                "kind": "terminal_output",
                "terminalId": event.terminal_id,
                "data": base64.b64encode(event.data).decode("ascii"),
            }
        case Info():
            return {"kind": "info", "fields": event.fields}
        case Usage():
            return {
                "kind": "usage",
                "used": event.used,
                "size": event.size,
                "cost": event.cost,
                "currency": event.currency,
            }
        case Unknown():
            return {"kind": "unknown", "payload": event.payload}
        case Report():
            return {"kind": "report", "payload": event.payload}


def _role(value: Any) -> Role:
    if value == "user":
        return "user"
    if value == "thought":
        return "thought"
    return "agent"


def event_from_json(data: Mapping[str, Any]) -> Event:
    """Read an event back from its JSON form.

    Raises:
        ValueError: Not an event this module writes.
    """
    kind = data.get("kind")
    try:
        if kind == "message":
            return Message(
                data["messageId"], _role(data["role"]), list(data["content"])
            )
        if kind == "message_chunk":
            return MessageChunk(
                data["messageId"], _role(data["role"]), dict(data["block"])
            )
        if kind == "tool_call":
            return ToolCall(data["toolCallId"], dict(data["fields"]))
        if kind == "tool_content_chunk":
            return ToolContentChunk(data["toolCallId"], dict(data["item"]))
        if kind == "plan":
            markdown = data.get("markdown")
            return Plan(
                data["planId"],
                int(data["group"]),
                list(data["entries"]),
                None if markdown is None else str(markdown),
            )
        if kind == "plan_removed":
            return PlanRemoved(str(data["planId"]))
        if kind == "terminal":
            return Terminal(data["terminalId"], dict(data["fields"]))
        if kind == "terminal_output":
            return TerminalOutput(
                data["terminalId"], base64.b64decode(data["data"], validate=True)
            )
        if kind == "info":
            return Info(dict(data["fields"]))
        if kind == "usage":
            return Usage(
                int(data["used"]),
                int(data["size"]),
                float(data["cost"]),
                str(data["currency"]),
            )
        if kind == "unknown":
            return Unknown(dict(data["payload"]))
        if kind == "report":
            return Report(dict(data["payload"]))
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"malformed {kind} event: {error!r}") from None
    raise ValueError(f"unknown event kind {kind!r}")


# ------------------------------------------------------------------------------------
# Folding a history into final states
# ------------------------------------------------------------------------------------


@dataclass(slots=True)
class MessageState:
    """A message's role and complete content."""

    role: Role
    content: list[JSONObject] = field(default_factory=list)


@dataclass(slots=True)
class ToolCallState:
    """A tool call's merged fields (without `content`) and its content."""

    fields: JSONObject = field(default_factory=dict)
    content: list[JSONObject] = field(default_factory=list)

    def whole(self) -> JSONObject:
        """Its fields with its content: the one upsert a replay sends."""
        return {**self.fields, "content": self.content}


@dataclass(slots=True)
class TerminalState:
    """A terminal's merged fields and every byte it printed."""

    fields: JSONObject = field(default_factory=dict)
    output: bytearray = field(default_factory=bytearray)


EntityKind: TypeAlias = Literal[
    "message", "tool_call", "plan", "terminal", "unknown", "compaction"
]


@dataclass(slots=True)
class Folded:
    """The final state of every entity of a history, in order of first appearance.

    `order` lists `(kind, id)`; an unknown update's id is its index in `unknown`.
    `info` and `usage` are the last values (None if never sent).
    """

    order: list[tuple[EntityKind, str]] = field(default_factory=list)
    messages: dict[str, MessageState] = field(default_factory=dict)
    tool_calls: dict[str, ToolCallState] = field(default_factory=dict)
    plans: dict[str, Plan] = field(default_factory=dict)
    terminals: dict[str, TerminalState] = field(default_factory=dict)
    unknown: list[JSONObject] = field(default_factory=list)
    compactions: dict[str, JSONObject] = field(default_factory=dict)
    """Each compaction as one `compaction_update` of its final state."""
    info: JSONObject = field(default_factory=dict)
    usage: Usage | None = None

    def last_plan_group(self) -> int | None:
        """The group of the most recently *created* plan group, if any plan exists."""
        groups = [plan.group for plan in self.plans.values()]
        return max(groups) if groups else None


def fold(history: Iterable[Event]) -> Folded:
    """Reduce a history to the final state of each entity (pure)."""
    out = Folded()
    for event in history:
        match event:
            case Message() | MessageChunk():
                message = out.messages.get(event.message_id)
                if message is None:
                    message = out.messages[event.message_id] = MessageState(event.role)
                    out.order.append(("message", event.message_id))
                if isinstance(event, Message):
                    message.content = list(event.content)
                else:
                    message.content.append(event.block)
            case ToolCall() | ToolContentChunk():
                call = out.tool_calls.get(event.tool_call_id)
                if call is None:
                    call = out.tool_calls[event.tool_call_id] = ToolCallState()
                    out.order.append(("tool_call", event.tool_call_id))
                if isinstance(event, ToolContentChunk):
                    call.content.append(event.item)
                else:
                    for key, value in event.fields.items():
                        if key == "content":
                            call.content = list(value or [])
                        else:
                            call.fields[key] = value
            case Plan():
                if event.plan_id not in out.plans:
                    out.order.append(("plan", event.plan_id))
                out.plans[event.plan_id] = event
            case PlanRemoved():
                if out.plans.pop(event.plan_id, None) is not None:
                    out.order.remove(("plan", event.plan_id))
            case Terminal() | TerminalOutput():
                terminal = out.terminals.get(event.terminal_id)
                if terminal is None:
                    terminal = out.terminals[event.terminal_id] = TerminalState()
                    out.order.append(("terminal", event.terminal_id))
                if isinstance(event, TerminalOutput):
                    terminal.output += event.data
                else:
                    terminal.fields.update(event.fields)
            case Info():
                out.info.update(event.fields)
            case Usage():
                out.usage = event
            case Unknown():
                out.order.append(("unknown", str(len(out.unknown))))
                out.unknown.append(event.payload)
            case Report():
                _fold_report(out, event.payload)
    return out


def _fold_report(out: Folded, payload: JSONObject) -> None:
    """A compaction's updates and chunks become one upsert; notices are live only."""
    compaction_id = payload.get("compactionId")
    if not isinstance(compaction_id, str):
        return  # a notice: not history
    state = out.compactions.get(compaction_id)
    if state is None:
        state = out.compactions[compaction_id] = {
            "sessionUpdate": "compaction_update",
            "compactionId": compaction_id,
            "status": "in_progress",
        }
        out.order.append(("compaction", compaction_id))
    if payload.get("sessionUpdate") == "compaction_summary_chunk":
        state["summary"] = [*state.get("summary", []), payload["content"]]
        return
    for key, value in payload.items():
        if key != "summary":
            state[key] = value
        else:
            state["summary"] = list(value or [])
