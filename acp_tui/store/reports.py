"""What the agent reports about itself: notices, compactions, session messages.

Version-neutral entities and the part of `SessionStore` that keeps them (the
store hands these ops to `Reports` and lists the entries in its timeline):

* `AgentNotice` (`AddNotice`): an advisory line the agent sent (`info`,
  `warning`, `error` or an open severity). Each is a new entry (no id on the wire:
  the store numbers them), shown where it arrived. Notices the client itself
  raises (`RecordNotice`) stay toasts, outside the timeline.
* `Compaction` (`PatchCompaction`, `AppendCompactionSummary`): a context
  compaction, by the agent's id. The first op fixes its place in the timeline;
  a patch's `summary` replaces the blocks accumulated (`None` or `[]` clears),
  a chunk appends one; `error` and `meta` are three-state patches.
* `SessionMessage` (`PatchSessionMessage`, `AppendSessionMessageChunk`): a
  message sent to or received from another session, by its id. Participants
  and references are three-state patches; `content` replaces, a chunk appends.

Appends are O(1) amortized (a list per entity); a snapshot is built once per
revision. Stdlib only, like the rest of the store.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, TypeAlias, TypeVar

from acp_tui.store.changes import Change, ChangeAction, TimelineKind
from acp_tui.store.ops import (
    AddNotice,
    AppendCompactionSummary,
    AppendSessionMessageChunk,
    PatchCompaction,
    PatchSessionMessage,
)
from acp_tui.store.values import UNSET, JSONObject, JSONValue, Patch, fields_json

__all__ = [
    "REPORT_KINDS",
    "AgentNotice",
    "Compaction",
    "Reports",
    "SessionMessage",
    "blocks_text",
]

REPORT_KINDS: Final[frozenset[TimelineKind]] = frozenset(
    {"agent_notice", "compaction", "session_message"}
)
"""The timeline kinds this module keeps."""

_Changes: TypeAlias = tuple[Change, ...]

MetaPatcher: TypeAlias = Callable[[Any, Any, bool], Any]
"""The store's three-state `_meta` patch: (current, patch, merge) -> new value."""


def blocks_text(blocks: Sequence[JSONObject]) -> str:
    """The text of `blocks` joined (a non-text block reads as `<type>`)."""
    parts: list[str] = []
    for block in blocks:
        text = block.get("text") if block.get("type") == "text" else None
        parts.append(text if isinstance(text, str) else f"<{block.get('type')}>")
    return "".join(parts)


@dataclass(frozen=True, slots=True)
class AgentNotice:
    """A notice the agent sent: advisory, shown where it arrived."""

    notice_id: str
    severity: str
    """`info`, `warning`, `error`, or an open value kept as received."""
    title: str
    description: str | None = None
    meta: JSONObject | None = None
    revision: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class Compaction:
    """A context compaction and the summary it retained."""

    compaction_id: str
    status: str
    """`in_progress`, `completed`, `failed`, `cancelled`, or an open value."""
    summary: tuple[JSONObject, ...] = ()
    error: str | None = None
    meta: JSONObject | None = None
    revision: int = field(default=0, compare=False)

    @property
    def summary_text(self) -> str:
        """The summary's text (non-text blocks as `<type>`)."""
        return blocks_text(self.summary)

    @property
    def finished(self) -> bool:
        """Whether it reached a terminal status (an unknown one is not)."""
        return self.status in ("completed", "failed", "cancelled")


@dataclass(frozen=True, slots=True)
class SessionMessage:
    """A message between sessions, as seen in this session's transcript."""

    message_id: str
    sender_session_id: str | None = None
    recipient_session_id: str | None = None
    sender_message_id: str | None = None
    recipient_message_id: str | None = None
    content: tuple[JSONObject, ...] = ()
    meta: JSONObject | None = None
    revision: int = field(default=0, compare=False)

    @property
    def text(self) -> str:
        """The message's text (non-text blocks as `<type>`)."""
        return blocks_text(self.content)


class _Entry:
    """One entity's mutable state: its fields and its blocks, and the snapshot."""

    __slots__ = ("blocks", "fields", "revision", "snapshot")

    def __init__(self, **values: Any) -> None:
        self.fields: dict[str, Any] = values
        self.blocks: list[JSONObject] = []
        self.snapshot: Any = None
        self.revision = 0

    def changed(self, revision: int) -> None:
        """The entity changed: a new revision, and a new snapshot when asked."""
        self.revision = revision
        self.snapshot = None


_S = TypeVar("_S")


def _snapshot(entry: _Entry | None, build: Callable[[_Entry], _S]) -> _S | None:
    """`entry`'s snapshot (None: no such entity), built when it changed."""
    if entry is None:
        return None
    if entry.snapshot is None:
        entry.snapshot = build(entry)
    snapshot: _S = entry.snapshot
    return snapshot


def _patch(entry: _Entry, name: str, value: object) -> None:
    if value is not UNSET:
        entry.fields[name] = value


class Reports:
    """The store's notices, compactions and session messages (see the module)."""

    def __init__(
        self,
        next_revision: Callable[[], int],
        add_to_timeline: Callable[[TimelineKind, str], None],
        patched_meta: MetaPatcher,
    ) -> None:
        self._next_revision = next_revision
        self._add_to_timeline = add_to_timeline
        self._patched_meta = patched_meta
        self._notices: list[AgentNotice] = []
        self._compactions: dict[str, _Entry] = {}
        self._messages: dict[str, _Entry] = {}

    def handlers(self) -> dict[type, Callable[[Any], _Changes]]:
        """The ops this keeper applies, for the store's dispatch table."""
        return {
            AddNotice: self._add_notice,
            PatchCompaction: self._patch_compaction,
            AppendCompactionSummary: self._append_compaction_summary,
            PatchSessionMessage: self._patch_session_message,
            AppendSessionMessageChunk: self._append_session_message_chunk,
        }

    # --- ops --------------------------------------------------------------

    def _add_notice(self, op: AddNotice) -> _Changes:
        notice_id = str(len(self._notices))
        self._notices.append(
            AgentNotice(
                notice_id,
                op.severity,
                op.title,
                op.description,
                op.meta,
                revision=self._next_revision(),
            )
        )
        self._add_to_timeline("agent_notice", notice_id)
        return (Change("agent_notice", notice_id, "added"),)

    def _entry(
        self, table: dict[str, _Entry], kind: TimelineKind, key: str, **initial: Any
    ) -> tuple[_Entry, bool]:
        entry = table.get(key)
        if entry is not None:
            return entry, False
        entry = table[key] = _Entry(**initial)
        self._add_to_timeline(kind, key)
        return entry, True

    def _patched(
        self,
        entry: _Entry,
        added: bool,
        blocks: Patch[Sequence[JSONObject]],
        key: str,
        kind: TimelineKind,
    ) -> _Changes:
        """An upsert's change (a `blocks` patch replaces what was accumulated)."""
        action: ChangeAction = "added" if added else "updated"
        if blocks is not UNSET:
            entry.blocks = list(blocks or ())
            action = "added" if added else "replaced"
        entry.changed(self._next_revision())
        return (Change(kind, key, action),)

    def _appended(
        self,
        entry: _Entry,
        added: bool,
        block: JSONObject,
        key: str,
        kind: TimelineKind,
    ) -> _Changes:
        """A chunk's change: one block appended."""
        entry.blocks.append(block)
        entry.changed(self._next_revision())
        action: ChangeAction = "added" if added else "appended"
        return (Change(kind, key, action, block),)

    def _patch_compaction(self, op: PatchCompaction) -> _Changes:
        key = op.compaction_id
        entry, added = self._entry(
            self._compactions, "compaction", key, status=op.status
        )
        entry.fields["status"] = op.status
        _patch(entry, "error", op.error)
        self._patch_meta(entry, op.meta, op.meta_merge)
        return self._patched(entry, added, op.summary, key, "compaction")

    def _append_compaction_summary(self, op: AppendCompactionSummary) -> _Changes:
        key = op.compaction_id
        table = self._compactions
        entry, added = self._entry(table, "compaction", key, status="in_progress")
        return self._appended(entry, added, op.block, key, "compaction")

    def _patch_session_message(self, op: PatchSessionMessage) -> _Changes:
        key = op.message_id
        entry, added = self._entry(self._messages, "session_message", key)
        for name in _MESSAGE_FIELDS:
            _patch(entry, name, getattr(op, name))
        self._patch_meta(entry, op.meta, op.meta_merge)
        return self._patched(entry, added, op.content, key, "session_message")

    def _append_session_message_chunk(self, op: AppendSessionMessageChunk) -> _Changes:
        key = op.message_id
        entry, added = self._entry(self._messages, "session_message", key)
        return self._appended(entry, added, op.block, key, "session_message")

    def _patch_meta(self, entry: _Entry, meta: object, merge: bool) -> None:
        if meta is not UNSET:
            current = entry.fields.get("meta")
            entry.fields["meta"] = self._patched_meta(current, meta, merge)

    # --- queries ----------------------------------------------------------

    def notice(self, notice_id: str) -> AgentNotice | None:
        """The agent's notice `notice_id`, or `None`."""
        if notice_id.isdigit() and int(notice_id) < len(self._notices):
            return self._notices[int(notice_id)]
        return None

    def notices(self) -> tuple[AgentNotice, ...]:
        """The agent's notices, in order received."""
        return tuple(self._notices)

    def compaction(self, compaction_id: str) -> Compaction | None:
        """The compaction `compaction_id`, or `None`."""

        def build(entry: _Entry) -> Compaction:
            return Compaction(
                compaction_id,
                entry.fields["status"],
                tuple(entry.blocks),
                entry.fields.get("error"),
                entry.fields.get("meta"),
                revision=entry.revision,
            )

        return _snapshot(self._compactions.get(compaction_id), build)

    def compactions(self) -> tuple[Compaction, ...]:
        """Every compaction, in order of first appearance."""
        return tuple(self._snapshots(self._compactions, self.compaction))

    def session_message(self, message_id: str) -> SessionMessage | None:
        """The session message `message_id`, or `None`."""

        def build(entry: _Entry) -> SessionMessage:
            return replace(
                SessionMessage(message_id, **entry.fields),
                content=tuple(entry.blocks),
                revision=entry.revision,
            )

        return _snapshot(self._messages.get(message_id), build)

    def session_messages(self) -> tuple[SessionMessage, ...]:
        """Every session message, in order of first appearance."""
        return tuple(self._snapshots(self._messages, self.session_message))

    @staticmethod
    def _snapshots(
        table: dict[str, _Entry], query: Callable[[str], Any]
    ) -> Iterator[Any]:
        for key in table:
            snapshot = query(key)
            if snapshot is not None:
                yield snapshot

    # --- export -----------------------------------------------------------

    def to_json(self) -> dict[str, JSONValue]:
        """The document's keys for these entities (each left out when empty)."""
        out: dict[str, JSONValue] = {}
        if self._notices:
            out["notices"] = [
                fields_json(notice, _NOTICE_KEYS) for notice in self._notices
            ]
        if self._compactions:
            out["compactions"] = [
                fields_json(c, _COMPACTION_KEYS) for c in self.compactions()
            ]
        if self._messages:
            out["sessionMessages"] = [
                fields_json(m, _MESSAGE_KEYS) for m in self.session_messages()
            ]
        return out


_MESSAGE_FIELDS: Final = (
    "sender_session_id",
    "recipient_session_id",
    "sender_message_id",
    "recipient_message_id",
)

_NOTICE_KEYS: Final = {
    "notice_id": "id",
    "severity": "severity",
    "title": "title",
    "description": "description",
    "meta": "_meta",
}
_COMPACTION_KEYS: Final = {
    "compaction_id": "compactionId",
    "status": "status",
    "summary": "summary",
    "error": "error",
    "meta": "_meta",
}
_MESSAGE_KEYS: Final = {
    "message_id": "messageId",
    "sender_session_id": "senderSessionId",
    "recipient_session_id": "recipientSessionId",
    "sender_message_id": "senderMessageId",
    "recipient_message_id": "recipientMessageId",
    "content": "content",
    "meta": "_meta",
}
