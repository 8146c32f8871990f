"""ACP **v2** wire models (hand-kept).

Mirrors `acp-schema/v2/schema.json`, the official ACP v2 draft **2.0.0-alpha.3**
(sha256 `36e8270fb12d4d067005cc02f729f5433930e6834ab4a72260838ee096d62378`), for every
method, notification and session update that a *client* sends or receives. Class names
are the schema's `$defs` names; union `$defs` (`ContentBlock`, `SessionUpdate`, ...)
are type aliases. Shared conventions (camelCase aliases, extra keys kept, three-state
fields, constant tags, open unions) are described in `_base.py`.

Also tolerated, from the newer v2 draft bundled with `@agentclientprotocol/sdk` 2.4.0
(`acp-schema/ts-sdk-2.4.0/v2/schema.json`, sha256
`b6c91055df549d6f1db1d76d692d0561dad433e03d8ed114ea9b5baed9da72c5`), marked [Δ2.4]:

* `PromptResponse` may be `{}` (alpha.3) or `{messageId}` (2.4).
* idle `state_update` may carry `stopReason: "error"` with an `error` object, and every
  state may carry a `background` work snapshot.
* the session updates `notice`, `compaction_update` and `compaction_summary_chunk`.
* `tool_call_update.name` / `.capabilities`, `terminal_update.size` / `.capabilities`,
  tool-call status `paused`, negative terminal exit codes, `DiffPatch._meta`.
* `availableCommands` entries tagged `type: "command"` (or any other `type`), and
  untagged (alpha.3).
* `session/new` and `session/resume` results with `availableCommands`.
* the agent methods `tool_call/cancel` and `terminal/cancel`; error code -32022 and
  its `UnsupportedProtocolVersionErrorData`.
* from the *unstable* 2.4 schema (`schema.unstable.json`): markdown and file plans
  (`PlanMarkdown`, `PlanFile`) and the `plan_removed` update.

Where the two drafts differ in strictness the models take the looser side (no `Cost`
currency pattern, no `minItems` on `prompt`, `ToolCallLocation.line >= 0`).

Modelling rules specific to v2:

* **Patch fields.** Every field with upsert semantics (whole-message `content`, all
  `tool_call_update` and `terminal_update` fields, `session_info_update` fields,
  `usage_update.cost`, and `_meta`) defaults to `None` and is optional, so omitted,
  `null` and a value stay distinct (`field_state` / `model_fields_set`).
* **Open enums** are typed `str`. Their known values are listed as `Literal` aliases
  named after the `$defs` (for outbound use and documentation) and as `Final`
  frozensets (`TOOL_KINDS`, `STOP_REASONS`, ...).
* **Open tagged unions** route unknown tags to an `Unknown*` model that keeps the raw
  payload; a known tag with a malformed payload is a validation error. The elicitation
  `action` and the MCP transport selector stay closed (client checklist §4.14).
* **Lenient parsing.** Fields the schema marks `x-deserialize-default-on-error` are
  annotated `Lenient[...]`: a malformed value is dropped as if it had been omitted (a
  required list becomes `[]`). Arrays marked `x-deserialize-skip-invalid-items` are
  annotated `SkipInvalid[...]` and lose only their bad items; `LenientList[...]` is
  both. The markers are plain `Annotated` metadata: `_base` repairs the input only
  after a validation failure, so valid input costs nothing (see `_base`). `_meta` is
  lenient everywhere. Validate the union aliases with `_base.LenientAdapter`.
* `ToolCallUpdate` is the `$defs` payload (also used by the `tool_call` permission
  subject); `SessionToolCallUpdate` is the same payload tagged
  `sessionUpdate: "tool_call_update"`. `ContentChunk` carries one of the three chunk
  tags, which must be given when building one.
"""

import enum
from collections.abc import Mapping
from typing import (
    Annotated,
    Any,
    ClassVar,
    Final,
    Literal,
    Self,
    TypeAlias,
    get_args,
)

from pydantic import Discriminator, Field, StrictFloat, StrictInt, Tag, model_validator

from acp_tui.protocol.schema._base import (
    MAX_JSON_DEPTH,
    UNKNOWN_TAG,
    Lenient,
    LenientList,
    MethodSpec,
    SkipInvalid,
    WireModel,
    open_union_discriminator,
)

# The models both versions define alike, exported here under their own names.
from acp_tui.protocol.schema.common import *  # noqa: F403
from acp_tui.protocol.schema.unstable import AuthStatusCapabilities, Usage

VERSION: Final = 2

# ------------------------------------------------------------------------------------
# Open enums: known values (fields are typed `str`)
# ------------------------------------------------------------------------------------

Role = Literal["assistant", "user"]
IconTheme = Literal["light", "dark"]
ToolKind = Literal[
    "read",
    "edit",
    "delete",
    "move",
    "search",
    "execute",
    "think",
    "fetch",
    "switch_mode",
    "other",
]
ToolCallStatus = Literal[
    "pending", "in_progress", "paused", "completed", "failed", "cancelled"
]
"""`paused` is [Δ2.4]."""
StopReason = Literal[
    "end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled", "error"
]
"""`error` is [Δ2.4] and comes with an `error` object on the idle update."""
SessionState = Literal["running", "idle", "requires_action"]
PlanEntryPriority = Literal["high", "medium", "low"]
PlanEntryStatus = Literal["pending", "in_progress", "completed", "cancelled"]
PermissionOptionKind = Literal[
    "allow_once", "allow_always", "reject_once", "reject_always"
]
DiffOperation = Literal["add", "delete", "modify", "move", "copy"]
DiffFileType = Literal["text", "binary", "directory", "symlink"]
DiffPatchFormat = Literal["git_patch"]
SessionConfigOptionCategory = Literal["mode", "model", "model_config", "thought_level"]
StringFormat = Literal["email", "uri", "date", "date-time"]
NoticeSeverity = Literal["info", "warning", "error"]
"""[Δ2.4]"""
CompactionStatus = Literal["in_progress", "completed", "failed", "cancelled"]
"""[Δ2.4]"""

ROLES: Final = frozenset(get_args(Role))
ICON_THEMES: Final = frozenset(get_args(IconTheme))
TOOL_KINDS: Final = frozenset(get_args(ToolKind))
TOOL_CALL_STATUSES: Final = frozenset(get_args(ToolCallStatus))
STOP_REASONS: Final = frozenset(get_args(StopReason))
SESSION_STATES: Final = frozenset(get_args(SessionState))
PLAN_ENTRY_PRIORITIES: Final = frozenset(get_args(PlanEntryPriority))
PLAN_ENTRY_STATUSES: Final = frozenset(get_args(PlanEntryStatus))
PERMISSION_OPTION_KINDS: Final = frozenset(get_args(PermissionOptionKind))
DIFF_OPERATIONS: Final = frozenset(get_args(DiffOperation))
DIFF_FILE_TYPES: Final = frozenset(get_args(DiffFileType))
DIFF_PATCH_FORMATS: Final = frozenset(get_args(DiffPatchFormat))
SESSION_CONFIG_OPTION_CATEGORIES: Final = frozenset(
    get_args(SessionConfigOptionCategory)
)
STRING_FORMATS: Final = frozenset(get_args(StringFormat))
NOTICE_SEVERITIES: Final = frozenset(get_args(NoticeSeverity))
COMPACTION_STATUSES: Final = frozenset(get_args(CompactionStatus))


class ErrorCode(enum.IntEnum):
    """Known JSON-RPC / ACP error codes. `Error.code` stays an open `int`."""

    PARSE_ERROR = -32700
    INVALID_REQUEST = -32600
    METHOD_NOT_FOUND = -32601
    INVALID_PARAMS = -32602
    INTERNAL_ERROR = -32603
    REQUEST_CANCELLED = -32800
    AUTH_REQUIRED = -32000
    RESOURCE_NOT_FOUND = -32002
    UNSUPPORTED_PROTOCOL_VERSION = -32022
    """[Δ2.4]"""


MessageId: TypeAlias = str
ToolCallId: TypeAlias = str
TerminalId: TypeAlias = str
PlanId: TypeAlias = str
AbsolutePath: TypeAlias = str
RequestId: TypeAlias = int | str | None
ProtocolVersion: TypeAlias = Annotated[int, Field(ge=0, le=65535)]


def _tagged(tag_field: str, tags: Any) -> Discriminator:
    """An open-union discriminator over the string values of a `Literal` alias."""
    return Discriminator(open_union_discriminator(tag_field, get_args(tags)))


# ------------------------------------------------------------------------------------
# JSON-RPC error
# ------------------------------------------------------------------------------------


class Error(WireModel):
    code: int
    message: str
    data: Any = None


class UnsupportedProtocolVersionErrorData(WireModel):
    """[Δ2.4] `Error.data` of -32022."""

    requested: ProtocolVersion
    supported: list[ProtocolVersion]


class SessionNotFoundErrorData(WireModel):
    """[Δ2.4] `Error.data` of a missing session."""

    session_id: SessionId


# ------------------------------------------------------------------------------------
# Content blocks
# ------------------------------------------------------------------------------------


class Annotations(WireModel):
    audience: LenientList[list[str] | None] = None
    last_modified: Lenient[str | None] = None
    priority: Lenient[
        Annotated[StrictInt, Field(ge=0, le=1)]
        | Annotated[StrictFloat, Field(ge=0, le=1)]
        | None
    ] = None


class TextContent(WireModel):
    type: Literal["text"] = "text"
    text: str
    annotations: Lenient[Annotations | None] = None


class ImageContent(WireModel):
    type: Literal["image"] = "image"
    data: str
    mime_type: str
    uri: Lenient[str | None] = None
    annotations: Lenient[Annotations | None] = None


class AudioContent(WireModel):
    type: Literal["audio"] = "audio"
    data: str
    mime_type: str
    annotations: Lenient[Annotations | None] = None


class Icon(WireModel):
    src: str
    mime_type: Lenient[str | None] = None
    sizes: LenientList[list[str] | None] = None
    theme: Lenient[str | None] = None


class ResourceLink(WireModel):
    type: Literal["resource_link"] = "resource_link"
    name: str
    uri: str
    title: Lenient[str | None] = None
    description: Lenient[str | None] = None
    icons: LenientList[list[Icon] | None] = None
    mime_type: Lenient[str | None] = None
    size: Lenient[int | None] = None
    annotations: Lenient[Annotations | None] = None


class TextResourceContents(WireModel):
    text: str
    uri: str
    mime_type: Lenient[str | None] = None


class BlobResourceContents(WireModel):
    blob: str
    uri: str
    mime_type: Lenient[str | None] = None


def _resource_contents_tag(value: Any) -> str:
    if isinstance(value, Mapping):
        return "blob" if "blob" in value else "text"
    return "blob" if isinstance(value, BlobResourceContents) else "text"


EmbeddedResourceResource: TypeAlias = Annotated[
    Annotated[TextResourceContents, Tag("text")]
    | Annotated[BlobResourceContents, Tag("blob")],
    Discriminator(_resource_contents_tag),
]


class EmbeddedResource(WireModel):
    type: Literal["resource"] = "resource"
    resource: EmbeddedResourceResource
    annotations: Lenient[Annotations | None] = None


ContentBlockType = Literal["text", "image", "audio", "resource_link", "resource"]
CONTENT_BLOCK_TYPES: Final = frozenset(get_args(ContentBlockType))

ContentBlock: TypeAlias = Annotated[
    Annotated[TextContent, Tag("text")]
    | Annotated[ImageContent, Tag("image")]
    | Annotated[AudioContent, Tag("audio")]
    | Annotated[ResourceLink, Tag("resource_link")]
    | Annotated[EmbeddedResource, Tag("resource")]
    | Annotated[UnknownContentBlock, Tag(UNKNOWN_TAG)],
    _tagged("type", ContentBlockType),
]

# ------------------------------------------------------------------------------------
# Tool-call content: content, diff, terminal reference
# ------------------------------------------------------------------------------------


class Content(WireModel):
    type: Literal["content"] = "content"
    content: ContentBlock


class DiffPathChange(WireModel):
    """`add`, `delete` or `modify` of one `path`."""

    operation: Literal["add", "delete", "modify"]
    path: AbsolutePath
    file_type: Lenient[str | None] = None
    mime_type: Lenient[str | None] = None


class DiffPathPairChange(WireModel):
    """`move` or `copy` from `old_path` to `path`."""

    operation: Literal["move", "copy"]
    old_path: AbsolutePath
    path: AbsolutePath
    file_type: Lenient[str | None] = None
    mime_type: Lenient[str | None] = None


class UnknownDiffChange(WireModel):
    operation: str
    file_type: Lenient[str | None] = None
    mime_type: Lenient[str | None] = None


def _diff_change_tag(value: Any) -> str | None:
    if isinstance(value, Mapping):
        operation = value.get("operation")
    else:
        operation = getattr(value, "operation", None)
    if not isinstance(operation, str):
        return None
    if operation in ("add", "delete", "modify"):
        return "path"
    if operation in ("move", "copy"):
        return "pair"
    return UNKNOWN_TAG


DiffChange: TypeAlias = Annotated[
    Annotated[DiffPathChange, Tag("path")]
    | Annotated[DiffPathPairChange, Tag("pair")]
    | Annotated[UnknownDiffChange, Tag(UNKNOWN_TAG)],
    Discriminator(_diff_change_tag),
]


class DiffPatch(WireModel):
    format: str
    text: str


class Diff(WireModel):
    type: Literal["diff"] = "diff"
    changes: SkipInvalid[list[DiffChange]]
    patch: Lenient[DiffPatch | None] = None


class Terminal(WireModel):
    """A reference to an agent-owned display terminal; state is in `TerminalUpdate`."""

    type: Literal["terminal"] = "terminal"
    terminal_id: TerminalId


ToolCallContentType = Literal["content", "diff", "terminal"]

ToolCallContent: TypeAlias = Annotated[
    Annotated[Content, Tag("content")]
    | Annotated[Diff, Tag("diff")]
    | Annotated[Terminal, Tag("terminal")]
    | Annotated[UnknownToolCallContent, Tag(UNKNOWN_TAG)],
    _tagged("type", ToolCallContentType),
]


class ToolCallLocation(WireModel):
    path: AbsolutePath
    line: Lenient[int | None] = Field(default=None, ge=0)


class ToolCallCancelCapabilities(WireModel):
    """[Δ2.4] Support marker: the tool call can be cancelled."""


class ToolCallCapabilities(WireModel):
    """[Δ2.4] Present `cancel` allows `tool_call/cancel` for this tool call."""

    cancel: Lenient[ToolCallCancelCapabilities | None] = None


class ToolCallUpdate(WireModel):
    """A tool-call upsert keyed by `tool_call_id`; every other field is a patch."""

    tool_call_id: ToolCallId
    name: Lenient[str | None] = None
    """[Δ2.4]"""
    title: Lenient[str | None] = None
    kind: Lenient[str | None] = None
    status: Lenient[str | None] = None
    content: LenientList[list[ToolCallContent] | None] = None
    locations: LenientList[list[ToolCallLocation] | None] = None
    raw_input: Any = None
    raw_output: Any = None
    capabilities: Lenient[ToolCallCapabilities | None] = None
    """[Δ2.4]"""


# ------------------------------------------------------------------------------------
# Session updates
# ------------------------------------------------------------------------------------


class ContentChunk(WireModel):
    """Appends one content block to the message `message_id`."""

    session_update: Literal[
        "user_message_chunk", "agent_message_chunk", "agent_thought_chunk"
    ]
    message_id: MessageId
    content: ContentBlock


class UserMessage(WireModel):
    session_update: Literal["user_message"] = "user_message"
    message_id: MessageId
    content: LenientList[list[ContentBlock] | None] = None


class AgentMessage(WireModel):
    session_update: Literal["agent_message"] = "agent_message"
    message_id: MessageId
    content: LenientList[list[ContentBlock] | None] = None


class AgentThought(WireModel):
    session_update: Literal["agent_thought"] = "agent_thought"
    message_id: MessageId
    content: LenientList[list[ContentBlock] | None] = None


class BackgroundTerminal(WireModel):
    """[Δ2.4] A terminal still running in the background."""

    type: Literal["terminal"] = "terminal"
    terminal_id: TerminalId


class BackgroundToolCall(WireModel):
    """[Δ2.4] A tool call still running in the background."""

    type: Literal["tool_call"] = "tool_call"
    tool_call_id: ToolCallId


class UnknownBackgroundWork(WireModel):
    """[Δ2.4] Background work of a kind this client does not know."""

    type: str


BackgroundWorkType = Literal["terminal", "tool_call"]

BackgroundWork: TypeAlias = Annotated[
    Annotated[BackgroundTerminal, Tag("terminal")]
    | Annotated[BackgroundToolCall, Tag("tool_call")]
    | Annotated[UnknownBackgroundWork, Tag(UNKNOWN_TAG)],
    _tagged("type", BackgroundWorkType),
]


class _StateUpdateBase(WireModel):
    session_update: Literal["state_update"] = "state_update"
    background: Lenient[list[BackgroundWork] | None] = None
    """[Δ2.4]"""


class RunningStateUpdate(_StateUpdateBase):
    state: Literal["running"] = "running"


class IdleStateUpdate(_StateUpdateBase):
    state: Literal["idle"] = "idle"
    stop_reason: Lenient[str | None] = None
    error: Lenient[Error | None] = None
    """[Δ2.4] With `stop_reason == "error"`."""
    usage: Lenient[Usage | None] = None
    """Unstable: the work's token usage (rfds/end-turn-token-usage)."""


class RequiresActionStateUpdate(_StateUpdateBase):
    state: Literal["requires_action"] = "requires_action"


class UnknownStateUpdate(_StateUpdateBase):
    """A state this client does not know. Not idle: show a generic busy state."""

    state: str


StateUpdate: TypeAlias = Annotated[
    Annotated[RunningStateUpdate, Tag("running")]
    | Annotated[IdleStateUpdate, Tag("idle")]
    | Annotated[RequiresActionStateUpdate, Tag("requires_action")]
    | Annotated[UnknownStateUpdate, Tag(UNKNOWN_TAG)],
    _tagged("state", SessionState),
]


class ToolCallContentChunk(WireModel):
    session_update: Literal["tool_call_content_chunk"] = "tool_call_content_chunk"
    tool_call_id: ToolCallId
    content: ToolCallContent


class SessionToolCallUpdate(ToolCallUpdate):
    """`ToolCallUpdate` as a session update (`sessionUpdate: "tool_call_update"`)."""

    session_update: Literal["tool_call_update"] = "tool_call_update"


class TerminalOutput(WireModel):
    """A replacement snapshot: base64 of every byte the terminal holds."""

    data: str


class TerminalExitStatus(WireModel):
    exit_code: Lenient[int | None] = None
    signal: Lenient[str | None] = None


class TerminalSize(WireModel):
    """[Δ2.4] The size to render a display terminal at."""

    cols: int = Field(ge=1, le=65535)
    rows: int = Field(ge=1, le=65535)


class TerminalCancelCapabilities(WireModel):
    """[Δ2.4] Support marker: the terminal can be cancelled."""


class TerminalCapabilities(WireModel):
    """[Δ2.4] Present `cancel` allows `terminal/cancel` for this terminal."""

    cancel: Lenient[TerminalCancelCapabilities | None] = None


class TerminalUpdate(WireModel):
    """A display-terminal upsert keyed by `terminal_id`; other fields are patches."""

    session_update: Literal["terminal_update"] = "terminal_update"
    terminal_id: TerminalId
    command: Lenient[str | None] = None
    cwd: Lenient[AbsolutePath | None] = None
    output: Lenient[TerminalOutput | None] = None
    exit_status: Lenient[TerminalExitStatus | None] = None
    size: Lenient[TerminalSize | None] = None
    """[Δ2.4]"""
    capabilities: Lenient[TerminalCapabilities | None] = None
    """[Δ2.4]"""


class TerminalOutputChunk(WireModel):
    """Appends base64 `data` (decode each chunk on its own) to a terminal."""

    session_update: Literal["terminal_output_chunk"] = "terminal_output_chunk"
    terminal_id: TerminalId
    data: str


class PlanEntry(WireModel):
    content: str
    priority: str
    status: str


class PlanItems(WireModel):
    type: Literal["items"] = "items"
    plan_id: PlanId
    entries: LenientList[list[PlanEntry]]


class PlanFile(WireModel):
    """[Δ2.4 unstable] A plan kept in a file (`uri`)."""

    type: Literal["file"] = "file"
    plan_id: PlanId
    uri: str


class PlanMarkdown(WireModel):
    """[Δ2.4 unstable] A plan written as markdown."""

    type: Literal["markdown"] = "markdown"
    plan_id: PlanId
    content: str


class UnknownPlanUpdateContent(WireModel):
    """A plan of a type this client does not know; it still names its plan."""

    type: str
    plan_id: PlanId


PlanUpdateContent: TypeAlias = Annotated[
    Annotated[PlanItems, Tag("items")]
    | Annotated[PlanFile, Tag("file")]
    | Annotated[PlanMarkdown, Tag("markdown")]
    | Annotated[UnknownPlanUpdateContent, Tag(UNKNOWN_TAG)],
    _tagged("type", Literal["items", "file", "markdown"]),
]


class PlanUpdate(WireModel):
    session_update: Literal["plan_update"] = "plan_update"
    plan: PlanUpdateContent


class PlanRemoved(WireModel):
    """[Δ2.4 unstable] The plan `plan_id` is dismissed."""

    session_update: Literal["plan_removed"] = "plan_removed"
    plan_id: PlanId


class TextCommandInput(WireModel):
    type: Literal["text"] = "text"
    hint: str


class UnknownAvailableCommandInput(WireModel):
    type: str


AvailableCommandInput: TypeAlias = Annotated[
    Annotated[TextCommandInput, Tag("text")]
    | Annotated[UnknownAvailableCommandInput, Tag(UNKNOWN_TAG)],
    _tagged("type", Literal["text"]),
]


class AvailableCommand(WireModel):
    """A slash command.

    alpha.3 entries are untagged; [Δ2.4] entries are tagged `type: "command"`. Any other
    `type` is a future kind of entry: show it as a plain command.
    """

    type: str | None = None
    name: str
    description: str
    input: Lenient[AvailableCommandInput | None] = None


class AvailableCommandsUpdate(WireModel):
    session_update: Literal["available_commands_update"] = "available_commands_update"
    available_commands: LenientList[list[AvailableCommand]]


class SessionConfigSelectOption(WireModel):
    value: str
    name: str
    description: Lenient[str | None] = None


class SessionConfigSelectGroup(WireModel):
    group_id: str
    name: str
    options: LenientList[list[SessionConfigSelectOption]]


SessionConfigSelectOptions: TypeAlias = (
    list[SessionConfigSelectOption] | list[SessionConfigSelectGroup]
)


class _SessionConfigOptionBase(WireModel):
    config_id: str
    name: str
    description: Lenient[str | None] = None
    category: Lenient[str | None] = None


class SessionConfigSelect(_SessionConfigOptionBase):
    type: Literal["select"] = "select"
    current_value: str
    options: SessionConfigSelectOptions


class SessionConfigBoolean(_SessionConfigOptionBase):
    type: Literal["boolean"] = "boolean"
    current_value: bool


class UnknownSessionConfigOption(_SessionConfigOptionBase):
    """An option of a type this client does not know: keep it, hide it."""

    type: str


SessionConfigOption: TypeAlias = Annotated[
    Annotated[SessionConfigSelect, Tag("select")]
    | Annotated[SessionConfigBoolean, Tag("boolean")]
    | Annotated[UnknownSessionConfigOption, Tag(UNKNOWN_TAG)],
    _tagged("type", Literal["select", "boolean"]),
]


class ConfigOptionUpdate(WireModel):
    session_update: Literal["config_option_update"] = "config_option_update"
    config_options: LenientList[list[SessionConfigOption]]


class UsageUpdate(WireModel):
    session_update: Literal["usage_update"] = "usage_update"
    used: int = Field(ge=0)
    size: int = Field(ge=0)
    cost: Lenient[Cost | None] = None


class CompactionUpdate(WireModel):
    """[Δ2.4] Progress of a context compaction."""

    session_update: Literal["compaction_update"] = "compaction_update"
    compaction_id: str
    status: str
    summary: LenientList[list[ContentBlock] | None] = None
    error: Lenient[str | None] = None


class CompactionSummaryChunk(WireModel):
    """[Δ2.4] Appends one block to a compaction summary."""

    session_update: Literal["compaction_summary_chunk"] = "compaction_summary_chunk"
    compaction_id: str
    content: ContentBlock


class SessionMessage(WireModel):
    """[Δ2.4 unstable] A message sent to or received from another session.

    An upsert: every field but `messageId` is a three-state patch.
    """

    session_update: Literal["session_message"] = "session_message"
    message_id: MessageId
    sender_session_id: Lenient[SessionId | None] = None
    recipient_session_id: Lenient[SessionId | None] = None
    sender_message_id: Lenient[MessageId | None] = None
    recipient_message_id: Lenient[MessageId | None] = None
    content: LenientList[list[ContentBlock] | None] = None


class SessionMessageChunk(WireModel):
    """[Δ2.4 unstable] One block appended to a session message."""

    session_update: Literal["session_message_chunk"] = "session_message_chunk"
    message_id: MessageId
    content: ContentBlock


SessionUpdateType = Literal[
    "user_message_chunk",
    "user_message",
    "agent_message_chunk",
    "agent_message",
    "agent_thought_chunk",
    "agent_thought",
    "state_update",
    "tool_call_content_chunk",
    "tool_call_update",
    "terminal_update",
    "terminal_output_chunk",
    "plan_update",
    "plan_removed",
    "available_commands_update",
    "config_option_update",
    "session_info_update",
    "usage_update",
    "notice",
    "compaction_update",
    "compaction_summary_chunk",
    "session_message",
    "session_message_chunk",
]
"""Known `sessionUpdate` tags; `plan_removed` and the last five are [Δ2.4]."""
SESSION_UPDATE_TYPES: Final = frozenset(get_args(SessionUpdateType))

SessionUpdate: TypeAlias = Annotated[
    Annotated[ContentChunk, Tag("user_message_chunk")]
    | Annotated[UserMessage, Tag("user_message")]
    | Annotated[ContentChunk, Tag("agent_message_chunk")]
    | Annotated[AgentMessage, Tag("agent_message")]
    | Annotated[ContentChunk, Tag("agent_thought_chunk")]
    | Annotated[AgentThought, Tag("agent_thought")]
    | Annotated[StateUpdate, Tag("state_update")]
    | Annotated[ToolCallContentChunk, Tag("tool_call_content_chunk")]
    | Annotated[SessionToolCallUpdate, Tag("tool_call_update")]
    | Annotated[TerminalUpdate, Tag("terminal_update")]
    | Annotated[TerminalOutputChunk, Tag("terminal_output_chunk")]
    | Annotated[PlanUpdate, Tag("plan_update")]
    | Annotated[PlanRemoved, Tag("plan_removed")]
    | Annotated[AvailableCommandsUpdate, Tag("available_commands_update")]
    | Annotated[ConfigOptionUpdate, Tag("config_option_update")]
    | Annotated[SessionInfoUpdate, Tag("session_info_update")]
    | Annotated[UsageUpdate, Tag("usage_update")]
    | Annotated[Notice, Tag("notice")]
    | Annotated[CompactionUpdate, Tag("compaction_update")]
    | Annotated[CompactionSummaryChunk, Tag("compaction_summary_chunk")]
    | Annotated[SessionMessage, Tag("session_message")]
    | Annotated[SessionMessageChunk, Tag("session_message_chunk")]
    | Annotated[UnknownSessionUpdate, Tag(UNKNOWN_TAG)],
    _tagged("sessionUpdate", SessionUpdateType),
]


class UpdateSessionNotification(WireModel):
    """`session/update` params."""

    session_id: SessionId
    update: SessionUpdate


# ------------------------------------------------------------------------------------
# Initialization and authentication
# ------------------------------------------------------------------------------------


class TerminalAuthCapabilities(WireModel):
    pass


class AuthCapabilities(WireModel):
    """Client auth capabilities (named `ClientAuthCapabilities` in [Δ2.4])."""

    terminal: Lenient[TerminalAuthCapabilities | None] = None


ClientAuthCapabilities = AuthCapabilities


class ClientCapabilities(WireModel):
    auth: Lenient[AuthCapabilities | None] = None
    elicitation: Lenient[ElicitationCapabilities | None] = None


class InitializeRequest(WireModel):
    """`initialize` params.

    A dual-version client may add the v1 keys `clientInfo` and `clientCapabilities` as
    extra keys; the v2 schema allows them.
    """

    protocol_version: ProtocolVersion
    info: Implementation
    capabilities: Lenient[ClientCapabilities] = Field(
        default_factory=ClientCapabilities
    )


class PromptImageCapabilities(WireModel):
    pass


class PromptAudioCapabilities(WireModel):
    pass


class PromptEmbeddedContextCapabilities(WireModel):
    pass


class PromptCapabilities(WireModel):
    image: Lenient[PromptImageCapabilities | None] = None
    audio: Lenient[PromptAudioCapabilities | None] = None
    embedded_context: Lenient[PromptEmbeddedContextCapabilities | None] = None


class McpStdioCapabilities(WireModel):
    pass


class McpHttpCapabilities(WireModel):
    pass


class McpCapabilities(WireModel):
    stdio: Lenient[McpStdioCapabilities | None] = None
    http: Lenient[McpHttpCapabilities | None] = None


class SessionCapabilities(WireModel):
    """Present means the baseline session methods all work (no probing)."""

    prompt: Lenient[PromptCapabilities | None] = None
    mcp: Lenient[McpCapabilities | None] = None
    delete: Lenient[SessionDeleteCapabilities | None] = None
    additional_directories: Lenient[SessionAdditionalDirectoriesCapabilities | None] = (
        None
    )


class AgentAuthCapabilities(WireModel):
    status: Lenient[AuthStatusCapabilities | None] = None
    """Unstable (`auth/status`, `schema.unstable.json`)."""


class AgentCapabilities(WireModel):
    session: Lenient[SessionCapabilities | None] = None
    auth: Lenient[AgentAuthCapabilities | None] = None


class AuthMethodAgent(WireModel):
    type: Literal["agent"] = "agent"
    method_id: str
    name: str
    description: Lenient[str | None] = None


class AuthMethodTerminal(WireModel):
    type: Literal["terminal"] = "terminal"
    method_id: str
    name: str
    description: Lenient[str | None] = None
    args: LenientList[list[str]] = Field(default_factory=list)
    env: LenientList[list[EnvVariable]] = Field(default_factory=list)


class UnknownAuthMethod(WireModel):
    type: str
    method_id: str
    name: str
    description: Lenient[str | None] = None


AuthMethod: TypeAlias = Annotated[
    Annotated[AuthMethodAgent, Tag("agent")]
    | Annotated[AuthMethodTerminal, Tag("terminal")]
    | Annotated[UnknownAuthMethod, Tag(UNKNOWN_TAG)],
    _tagged("type", Literal["agent", "terminal"]),
]


class InitializeResponse(WireModel):
    """`initialize` result. A v2 result must have `info`: one without it is not v2."""

    protocol_version: ProtocolVersion
    info: Implementation
    capabilities: Lenient[AgentCapabilities] = Field(default_factory=AgentCapabilities)
    auth_methods: LenientList[list[AuthMethod]] = Field(default_factory=list)


class LoginAuthRequest(WireModel):
    method_id: str


class LoginAuthResponse(WireModel):
    pass


class LogoutAuthRequest(WireModel):
    pass


class LogoutAuthResponse(WireModel):
    pass


# ------------------------------------------------------------------------------------
# Sessions
# ------------------------------------------------------------------------------------


class McpServerHttp(WireModel):
    type: Literal["http"] = "http"
    name: str
    url: str
    headers: list[HttpHeader] = Field(default_factory=list)


class McpServerStdio(WireModel):
    type: Literal["stdio"] = "stdio"
    name: str
    command: AbsolutePath
    args: list[str] = Field(default_factory=list)
    env: list[EnvVariable] = Field(default_factory=list)


McpServer: TypeAlias = Annotated[
    McpServerHttp | McpServerStdio, Field(discriminator="type")
]
"""Closed: a transport selector (client checklist §4.14)."""


class NewSessionRequest(WireModel):
    cwd: AbsolutePath
    additional_directories: LenientList[list[AbsolutePath]] = Field(
        default_factory=list
    )
    mcp_servers: LenientList[list[McpServer]] = Field(default_factory=list)


class NewSessionResponse(WireModel):
    _max_depth: ClassVar[int | None] = MAX_JSON_DEPTH

    session_id: SessionId
    config_options: LenientList[list[SessionConfigOption]] = Field(default_factory=list)
    available_commands: LenientList[list[AvailableCommand]] = Field(
        default_factory=list
    )
    """[Δ2.4]"""


class ListSessionsRequest(WireModel):
    cwd: AbsolutePath | None = None
    cursor: str | None = None


class SessionInfo(WireModel):
    session_id: SessionId
    cwd: AbsolutePath
    additional_directories: LenientList[list[AbsolutePath]] = Field(
        default_factory=list
    )
    title: Lenient[str | None] = None
    updated_at: Lenient[str | None] = None


class ListSessionsResponse(WireModel):
    _max_depth: ClassVar[int | None] = MAX_JSON_DEPTH

    sessions: LenientList[list[SessionInfo]]
    next_cursor: Lenient[str | None] = None
    """Absent means the end of the list. Opaque: never parse or persist it."""


class ReplayFromStart(WireModel):
    type: Literal["start"] = "start"


class UnknownReplayFrom(WireModel):
    type: str


ReplayFrom: TypeAlias = Annotated[
    Annotated[ReplayFromStart, Tag("start")]
    | Annotated[UnknownReplayFrom, Tag(UNKNOWN_TAG)],
    _tagged("type", Literal["start"]),
]


class ResumeSessionRequest(WireModel):
    session_id: SessionId
    cwd: AbsolutePath
    additional_directories: LenientList[list[AbsolutePath]] = Field(
        default_factory=list
    )
    mcp_servers: LenientList[list[McpServer]] = Field(default_factory=list)
    replay_from: Lenient[ReplayFrom | None] = None


class ResumeSessionResponse(WireModel):
    _max_depth: ClassVar[int | None] = MAX_JSON_DEPTH

    config_options: LenientList[list[SessionConfigOption]] = Field(default_factory=list)
    available_commands: LenientList[list[AvailableCommand]] = Field(
        default_factory=list
    )
    """[Δ2.4]"""


class CloseSessionResponse(WireModel):
    pass


class DeleteSessionResponse(WireModel):
    pass


class SetSessionConfigOptionRequest(WireModel):
    """`type: "id"` carries a string value, `type: "boolean"` a boolean."""

    session_id: SessionId
    config_id: str
    type: str
    value: Any

    @model_validator(mode="after")
    def _check_value(self) -> Self:
        if self.type == "id" and not isinstance(self.value, str):
            raise ValueError('type "id" needs a string value')
        if self.type == "boolean" and not isinstance(self.value, bool):
            raise ValueError('type "boolean" needs a boolean value')
        return self


class SetSessionConfigOptionResponse(WireModel):
    _max_depth: ClassVar[int | None] = MAX_JSON_DEPTH

    config_options: LenientList[list[SessionConfigOption]]
    """The complete list: replace the stored one."""


class PromptRequest(WireModel):
    session_id: SessionId
    prompt: list[ContentBlock]


class PromptResponse(WireModel):
    """Acceptance, not completion. `{}` in alpha.3; [Δ2.4] `{messageId}`."""

    message_id: MessageId | None = None


class CancelSessionNotification(WireModel):
    session_id: SessionId


class CancelToolCallRequest(WireModel):
    """[Δ2.4] Only while the tool call advertises `capabilities.cancel`."""

    session_id: SessionId
    tool_call_id: ToolCallId


class CancelToolCallResponse(WireModel):
    """[Δ2.4] Accepted, not stopped: a final `tool_call_update` confirms."""


class CancelTerminalRequest(WireModel):
    """[Δ2.4] Only while the terminal advertises `capabilities.cancel`."""

    session_id: SessionId
    terminal_id: TerminalId


class CancelTerminalResponse(WireModel):
    """[Δ2.4] Accepted, not stopped: a final `terminal_update` confirms."""


class CancelRequestNotification(WireModel):
    """`$/cancel_request` params."""

    request_id: RequestId


# ------------------------------------------------------------------------------------
# Permission requests
# ------------------------------------------------------------------------------------


class ToolCallPermissionSubject(WireModel):
    """Apply `tool_call` as an ordinary tool-call upsert."""

    type: Literal["tool_call"] = "tool_call"
    tool_call: ToolCallUpdate


class CommandPermissionSubject(WireModel):
    """Approval lets the agent run `command`; the client runs nothing."""

    type: Literal["command"] = "command"
    command: str
    cwd: AbsolutePath
    tool_call_id: Lenient[ToolCallId | None] = None
    terminal_id: Lenient[TerminalId | None] = None


class UnknownPermissionSubject(WireModel):
    type: str


RequestPermissionSubject: TypeAlias = Annotated[
    Annotated[ToolCallPermissionSubject, Tag("tool_call")]
    | Annotated[CommandPermissionSubject, Tag("command")]
    | Annotated[UnknownPermissionSubject, Tag(UNKNOWN_TAG)],
    _tagged("type", Literal["tool_call", "command"]),
]


class PermissionOption(WireModel):
    option_id: str
    name: str
    kind: str


class RequestPermissionRequest(WireModel):
    """`session/request_permission` params; `title`/`description` are prompt copy."""

    _max_depth: ClassVar[int | None] = MAX_JSON_DEPTH

    session_id: SessionId
    title: str
    description: Lenient[str | None] = None
    subject: RequestPermissionSubject | None = None
    options: list[PermissionOption] = Field(min_length=1)


class SelectedPermissionOutcome(WireModel):
    outcome: Literal["selected"] = "selected"
    option_id: str


class UnknownPermissionOutcome(WireModel):
    """Never approval."""

    outcome: str


RequestPermissionOutcome: TypeAlias = Annotated[
    Annotated[SelectedPermissionOutcome, Tag("selected")]
    | Annotated[CancelledPermissionOutcome, Tag("cancelled")]
    | Annotated[UnknownPermissionOutcome, Tag(UNKNOWN_TAG)],
    _tagged("outcome", Literal["selected", "cancelled"]),
]


class RequestPermissionResponse(WireModel):
    outcome: RequestPermissionOutcome


# ------------------------------------------------------------------------------------
# Elicitation
# ------------------------------------------------------------------------------------


class StringPropertySchema(WireModel):
    type: Literal["string"] = "string"
    title: Lenient[str | None] = None
    description: Lenient[str | None] = None
    min_length: int | None = Field(default=None, ge=0)
    max_length: int | None = Field(default=None, ge=0)
    pattern: str | None = None
    format: str | None = None
    default: Lenient[str | None] = None
    enum: list[str] | None = Field(default=None, min_length=1)
    one_of: list[EnumOption] | None = Field(default=None, min_length=1)


class IntegerPropertySchema(WireModel):
    type: Literal["integer"] = "integer"
    title: Lenient[str | None] = None
    description: Lenient[str | None] = None
    minimum: int | None = None
    maximum: int | None = None
    default: Lenient[int | None] = None


class BooleanPropertySchema(WireModel):
    type: Literal["boolean"] = "boolean"
    title: Lenient[str | None] = None
    description: Lenient[str | None] = None
    default: Lenient[bool | None] = None


class StringMultiSelectItems(WireModel):
    type: Literal["string"] = "string"
    enum: list[str] = Field(min_length=1)


class TitledMultiSelectItems(WireModel):
    """Untagged: recognised by having no `type`."""

    any_of: list[EnumOption] = Field(min_length=1)


class UnknownMultiSelectItems(WireModel):
    type: str


def _multi_select_items_tag(value: Any) -> str | None:
    if isinstance(value, Mapping):
        tag = value.get("type")
    else:
        tag = getattr(value, "type", None)
    if tag is None:
        return "titled"
    if not isinstance(tag, str):
        return None
    return "string" if tag == "string" else UNKNOWN_TAG


MultiSelectItems: TypeAlias = Annotated[
    Annotated[StringMultiSelectItems, Tag("string")]
    | Annotated[TitledMultiSelectItems, Tag("titled")]
    | Annotated[UnknownMultiSelectItems, Tag(UNKNOWN_TAG)],
    Discriminator(_multi_select_items_tag),
]


class MultiSelectPropertySchema(WireModel):
    type: Literal["array"] = "array"
    title: Lenient[str | None] = None
    description: Lenient[str | None] = None
    min_items: int | None = Field(default=None, ge=0)
    max_items: int | None = Field(default=None, ge=0)
    items: MultiSelectItems
    default: LenientList[list[str] | None] = None


class UnknownElicitationPropertySchema(WireModel):
    type: str


ElicitationPropertySchema: TypeAlias = Annotated[
    Annotated[StringPropertySchema, Tag("string")]
    | Annotated[NumberPropertySchema, Tag("number")]
    | Annotated[IntegerPropertySchema, Tag("integer")]
    | Annotated[BooleanPropertySchema, Tag("boolean")]
    | Annotated[MultiSelectPropertySchema, Tag("array")]
    | Annotated[UnknownElicitationPropertySchema, Tag(UNKNOWN_TAG)],
    _tagged("type", Literal["string", "number", "integer", "boolean", "array"]),
]


class ElicitationSchema(WireModel):
    type: Lenient[Literal["object"]] = "object"
    title: Lenient[str | None] = None
    properties: dict[str, ElicitationPropertySchema] = Field(default_factory=dict)
    required: list[str] | None = None
    description: Lenient[str | None] = None


# `type` defaults to "object" on the wire: write it back only if it was received.
ElicitationSchema._constant_tags = ElicitationSchema._constant_tags - {"type"}


class CreateElicitationRequest(WireModel):
    """`elicitation/create` params.

    `mode` is open: `form` needs `requested_schema`, `url` needs `elicitation_id` and
    `url`. Every mode is scoped by `session_id` (+ `tool_call_id`) or `request_id`.
    """

    message: str
    mode: str
    session_id: SessionId | None = None
    tool_call_id: Lenient[ToolCallId | None] = None
    request_id: RequestId = None
    requested_schema: ElicitationSchema | None = None
    elicitation_id: str | None = None
    url: str | None = None

    @model_validator(mode="after")
    def _check_mode(self) -> Self:
        if self.mode == "form" and self.requested_schema is None:
            raise ValueError('mode "form" needs requestedSchema')
        if self.mode == "url" and (self.elicitation_id is None or self.url is None):
            raise ValueError('mode "url" needs elicitationId and url')
        if self.session_id is None and "request_id" not in self.model_fields_set:
            raise ValueError("an elicitation needs a sessionId or a requestId")
        return self


ElicitationContentValue: TypeAlias = str | StrictInt | StrictFloat | bool | list[str]


class CreateElicitationResponse(WireModel):
    """Closed `action`; `content` only with `accept`."""

    action: Literal["accept", "decline", "cancel"]
    content: dict[str, ElicitationContentValue] | None = None


class CompleteElicitationNotification(WireModel):
    elicitation_id: str


# ------------------------------------------------------------------------------------
# Extension methods (`_`-prefixed): any object, kept whole
# ------------------------------------------------------------------------------------


class ExtRequest(WireModel):
    pass


class ExtResponse(WireModel):
    pass


class ExtNotification(WireModel):
    pass


# ------------------------------------------------------------------------------------
# Method tables
# ------------------------------------------------------------------------------------

AGENT_METHODS: Final[dict[str, MethodSpec]] = {
    "initialize": MethodSpec(InitializeRequest, InitializeResponse),
    "auth/login": MethodSpec(LoginAuthRequest, LoginAuthResponse),
    "auth/logout": MethodSpec(LogoutAuthRequest, LogoutAuthResponse),
    "session/new": MethodSpec(NewSessionRequest, NewSessionResponse),
    "session/list": MethodSpec(ListSessionsRequest, ListSessionsResponse),
    "session/resume": MethodSpec(ResumeSessionRequest, ResumeSessionResponse),
    "session/close": MethodSpec(CloseSessionRequest, CloseSessionResponse),
    "session/delete": MethodSpec(DeleteSessionRequest, DeleteSessionResponse),
    "session/set_config_option": MethodSpec(
        SetSessionConfigOptionRequest, SetSessionConfigOptionResponse
    ),
    "session/prompt": MethodSpec(PromptRequest, PromptResponse),
    "tool_call/cancel": MethodSpec(CancelToolCallRequest, CancelToolCallResponse),
    "terminal/cancel": MethodSpec(CancelTerminalRequest, CancelTerminalResponse),
}
"""Requests the agent handles (client -> agent). The last two are [Δ2.4]."""

CLIENT_METHODS: Final[dict[str, MethodSpec]] = {
    "session/request_permission": MethodSpec(
        RequestPermissionRequest, RequestPermissionResponse
    ),
    "elicitation/create": MethodSpec(
        CreateElicitationRequest, CreateElicitationResponse
    ),
}
"""Requests the client handles (agent -> client)."""

AGENT_NOTIFICATIONS: Final[dict[str, type[WireModel]]] = {
    "session/cancel": CancelSessionNotification,
}
"""Notifications the agent receives (client -> agent)."""

CLIENT_NOTIFICATIONS: Final[dict[str, type[WireModel]]] = {
    "session/update": UpdateSessionNotification,
    "elicitation/complete": CompleteElicitationNotification,
}
"""Notifications the client receives (agent -> client)."""

PROTOCOL_NOTIFICATIONS: Final[dict[str, type[WireModel]]] = {
    "$/cancel_request": CancelRequestNotification,
}
"""Notifications either side may send."""
