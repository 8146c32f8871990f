"""What the agent reports about itself, wire → store: shared by both dialects.

`notice`, `compaction_update` and `compaction_summary_chunk` have the same shape
in v1 (TS SDK 2.4, sent only to a client that opts in: `REPORT_OPT_INS`) and v2;
`session_message` and `session_message_chunk` are v2 (unstable). Each dialect
maps its own models to these helpers, which read fields by name only
(three-state patches through `_wire.patch`), so v1 never imports v2.
"""

from __future__ import annotations

from typing import Any, Final

from acp_tui.client._wire import json_list, json_object, patch
from acp_tui.protocol.schema._base import to_wire
from acp_tui.store import ops

__all__ = [
    "REPORT_OPT_INS",
    "compaction_chunk_ops",
    "compaction_ops",
    "notice_ops",
    "session_message_chunk_ops",
    "session_message_ops",
]

REPORT_OPT_INS: Final = ("notices", "compaction")
"""The keys a client that shows notices and compactions sets to `{}` in v1's
`clientCapabilities.session` (rfds/session-notices, rfds/session-compaction)."""


def notice_ops(update: Any) -> list[ops.Op]:
    """A `notice` → a line in the timeline."""
    return [
        ops.AddNotice(
            update.severity,
            update.title,
            update.description,
            update.meta if update.meta is not None else None,
        )
    ]


def compaction_ops(update: Any, *, meta_merge: bool = False) -> list[ops.Op]:
    """A `compaction_update` → `PatchCompaction` (three-state fields).

    With `meta_merge` (v2's rule), an object `_meta` merges by top-level key.
    """
    return [
        ops.PatchCompaction(
            update.compaction_id,
            update.status,
            summary=patch(update, "summary", json_list),
            error=patch(update, "error"),
            meta=patch(update, "meta"),
            meta_merge=meta_merge,
        )
    ]


def compaction_chunk_ops(update: Any) -> list[ops.Op]:
    """A `compaction_summary_chunk` → one block appended to the summary."""
    return [ops.AppendCompactionSummary(update.compaction_id, to_wire(update.content))]


def session_message_ops(update: Any) -> list[ops.Op]:
    """A `session_message` → `PatchSessionMessage` (three-state fields)."""
    return [
        ops.PatchSessionMessage(
            update.message_id,
            sender_session_id=patch(update, "sender_session_id"),
            recipient_session_id=patch(update, "recipient_session_id"),
            sender_message_id=patch(update, "sender_message_id"),
            recipient_message_id=patch(update, "recipient_message_id"),
            content=patch(update, "content", json_list),
            meta=patch(update, "meta", json_object),
            meta_merge=True,  # v2 only, where an object `_meta` merges by key
        )
    ]


def session_message_chunk_ops(update: Any) -> list[ops.Op]:
    """A `session_message_chunk` → one block appended to the message."""
    return [ops.AppendSessionMessageChunk(update.message_id, to_wire(update.content))]
