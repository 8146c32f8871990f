"""The version-neutral session store (stdlib only).

One `SessionStore` per ACP session holds the state that both protocol versions
feed: the client's translators turn v1/v2 wire messages into the ops of
`acp_tui.store.ops`, `SessionStore.apply` applies them and reports `Change`s, and
the UI reads the frozen entities of `acp_tui.store.model` through the store's
queries.

Never imports Textual, Rich, pydantic, anyio or the protocol layer; enforced by
import-linter and tests/test_import_hygiene.py.
"""

from __future__ import annotations

from acp_tui.store._buffers import ContentView
from acp_tui.store.changes import Change, ChangeAction, ChangeKind
from acp_tui.store.config import ConfigChoice, ConfigOption
from acp_tui.store.model import (
    FINAL_TOOL_STATUSES,
    Elicitation,
    Message,
    Notice,
    Permission,
    Plan,
    SessionInfo,
    SessionState,
    Terminal,
    ToolCall,
    Usage,
    block_text,
)
from acp_tui.store.ops import (
    AddElicitation,
    AddPermission,
    AppendMessageChunk,
    AppendTerminalOutput,
    AppendToolCallContent,
    CancelUnfinishedToolCalls,
    CompleteElicitation,
    CutMessageText,
    MessageRole,
    Op,
    PatchSessionInfo,
    PatchTerminal,
    PatchToolCall,
    PatchUsage,
    RecordNotice,
    RecordTerminalError,
    RecordUnknownUpdate,
    ReplacePlan,
    ResolveElicitation,
    ResolvePermission,
    SetAvailableCommands,
    SetConfigOptions,
    SetState,
    UpsertMessage,
)
from acp_tui.store.store import (
    DEFAULT_MAX_TERMINAL_BYTES,
    Listener,
    SessionStore,
    TimelineKind,
)
from acp_tui.store.values import UNSET, JSONObject, JSONValue, Patch, Unset

__all__ = [
    "DEFAULT_MAX_TERMINAL_BYTES",
    "FINAL_TOOL_STATUSES",
    "UNSET",
    "AddElicitation",
    "AddPermission",
    "AppendMessageChunk",
    "AppendTerminalOutput",
    "AppendToolCallContent",
    "CancelUnfinishedToolCalls",
    "Change",
    "ChangeAction",
    "ChangeKind",
    "CompleteElicitation",
    "ConfigChoice",
    "ConfigOption",
    "ContentView",
    "CutMessageText",
    "Elicitation",
    "JSONObject",
    "JSONValue",
    "Listener",
    "Message",
    "MessageRole",
    "Notice",
    "Op",
    "Patch",
    "PatchSessionInfo",
    "PatchTerminal",
    "PatchToolCall",
    "PatchUsage",
    "Permission",
    "Plan",
    "RecordNotice",
    "RecordTerminalError",
    "RecordUnknownUpdate",
    "ReplacePlan",
    "ResolveElicitation",
    "ResolvePermission",
    "SessionInfo",
    "SessionState",
    "SessionStore",
    "SetAvailableCommands",
    "SetConfigOptions",
    "SetState",
    "Terminal",
    "TimelineKind",
    "ToolCall",
    "Unset",
    "UpsertMessage",
    "Usage",
    "block_text",
]
