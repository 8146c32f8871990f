"""Change records: what one `SessionStore.apply` changed.

Invariants:

* One op yields one `Change` in the common case (a chunk, a patch, a plan). Only
  `CancelUnfinishedToolCalls` (one per tool call it cancels) and a tool-call
  content reference to a terminal never seen before (an extra terminal `added`)
  yield more; an op that changes nothing yields none.
* `id` is the entity's key (`message_id`, `tool_call_id`, `plan_id`,
  `terminal_id`, `permission_id`, `elicitation_id`, `compaction_id`, a session
  message's `message_id`, the unknown update's, notice's or agent notice's
  sequence number); `None` for session-wide values (config options,
  commands, session info, usage, state).
* `payload` is set only when the op was an append: the appended content block
  (message), content item (tool call) or bytes (terminal), so a UI can stream
  without diffing. If `action` is `"added"`, the payload is already part of the
  new entity.
* Actions: `added` (the entity was created by this op), `appended` (one item was
  appended), `replaced` (whole content was replaced or cleared: a renderer must
  re-render, for a terminal its emulator must reset), `updated` (other fields
  changed), `removed` (the entity is gone: only a plan the agent removed,
  `RemovePlan`; it also leaves the timeline).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from acp_tui.store.values import JSONObject

__all__ = ["Change", "ChangeAction", "ChangeKind", "TimelineKind"]

TimelineKind: TypeAlias = Literal[
    "message",
    "tool_call",
    "plan",
    "terminal",
    "permission",
    "elicitation",
    "unknown_update",
    "agent_notice",
    "compaction",
    "session_message",
    "subagent",
]
"""The kinds of entity the timeline lists (the last three: `store.reports`)."""

ChangeKind: TypeAlias = Literal[
    TimelineKind,
    "config_options",
    "commands",
    "session_info",
    "usage",
    "state",
    "notice",
]
"""What kind of entity or value changed: a timeline entry's kind, or a
session-wide value."""

ChangeAction: TypeAlias = Literal["added", "updated", "appended", "replaced", "removed"]
"""How it changed."""


@dataclass(frozen=True, slots=True)
class Change:
    """One change made by an op."""

    kind: ChangeKind
    """What changed."""
    id: str | None
    """The entity's key, or `None` for a session-wide value."""
    action: ChangeAction
    """How it changed."""
    payload: JSONObject | bytes | None = None
    """For appends: the appended content block, content item, or bytes."""
    inner: tuple[Change, ...] = ()
    """For a `subagent`: what the op changed in the subagent's own store."""
