"""ACP **v1** wire models (hand-kept).

Mirrors `acp-schema/v1/schema.json` of the Agent Client Protocol, schema version
**1.21.0** (spec repository commit `b7f0005493b98de32fabee3e9540e2b64da68535`),
sha256 `caf62ff962ada396878372ced11efb2c6764e59d90919a38583c319948931a42`.
The models are written by hand, not generated: when the schema changes, diff it
against that hash and update this module and `tests/unit/protocol/test_schema_v1.py`.

Everything the client sends or receives in v1 is here (the methods of
`acp-schema/v1/meta.json`); the unstable features of `schema.unstable.json` are
not, except plan operations (`plan_update`, `plan_removed` and the client's
`plan` capability, from the TS SDK 2.4's `schema.unstable.json`). Other unstable
`session/update` kinds (`notice`, compaction, ...) arrive as
`UnknownSessionUpdate` with their payload intact.

Conventions on top of `_base` (read its docstring first):

* Class names are the schema's `$defs` names. Where the schema flattens a tagged
  variant into a shared definition, the variant gets its own class: the three
  message chunks subclass `ContentChunk`, `SessionToolCallUpdate` subclasses
  `ToolCallUpdate` (the untagged `ToolCallUpdate` is also the `toolCall` of a
  permission request), `CancelledPermissionOutcome` is the unnamed `cancelled`
  outcome, and `SessionConfigSelect` / `SessionConfigBoolean` carry the common
  `SessionConfigOption` fields. `CreateElicitationRequest` and
  `CreateElicitationResponse` are flat objects on the wire and flat models here
  (the scope and mode definitions are folded in).
* Tagged unions are module-level `Annotated` aliases (`SessionUpdate`,
  `ContentBlock`, `ToolCallContent`, `SessionConfigOption`, ...); validate them
  standalone with `_base.LenientAdapter` (a plain `pydantic.TypeAdapter` skips the
  lenient repair). Open unions route unknown tags to an
  `Unknown*` model that keeps the whole payload. Closed unions (permission
  outcome, MCP transports, elicitation action and property schemas) reject
  unknown tags, as the client checklist asks. The elicitation `mode` is open.
* Open enums (tool kind and status, stop reason, plan priority and status,
  permission option kind, config option category, role, ...) are `str`. Their
  known values are the `Final` frozensets below; use them to decide how to show
  a value, never to reject one.
* Optional fields:
    - nullable in the schema: `T | None = None`;
    - not nullable but with a default in the schema or the docs (capabilities,
      arrays, `ToolCall.kind`/`status`): typed `T` with that default.
  Either way, "omitted" is visible as absence from `model_fields_set` (use
  `_base.field_state`), and `to_wire` writes back exactly what was received.
* JSON scalars are strict: `"yes"` is not a boolean and `"3"` is not an integer.
* Lenient parsing. Fields marked `x-deserialize-default-on-error` fall back to
  "omitted" (default value, not in `model_fields_set`) when malformed, so a bad
  patch field means "unchanged", never "clear". Arrays marked
  `x-deserialize-skip-invalid-items` drop the items that fail (a *known* tag
  with a malformed payload inside such an array is dropped, not demoted to an
  unknown variant); a required array that is malformed as a whole becomes `[]`.
  Everywhere else a malformed value fails validation. The markers (`Lenient`,
  `LenientItems`, ...) are the shared ones of `_base`, which repairs the input only
  after a validation failure, so valid input costs nothing extra.
* Results of the methods whose schema result has only optional fields also
  accept `null` as `{}`: the v1 docs show `result: null` for `session/load`
  and `fs/write_text_file`, and agents that follow the docs send it.
"""

from collections.abc import Mapping
from typing import (
    Annotated,
    Any,
    ClassVar,
    Final,
    Literal,
    Self,
    TypeAlias,
    TypeVar,
)

from pydantic import (
    Discriminator,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    Tag,
    model_validator,
)

from acp_tui.protocol.schema._base import (
    MAX_JSON_DEPTH,
    UNKNOWN_TAG,
    JSONNumber,
    Lenient,
    LenientList,
    MethodSpec,
    WireModel,
    open_union_discriminator,
)

# The models both versions define alike, exported here under their own names.
from acp_tui.protocol.schema.common import *  # noqa: F403
from acp_tui.protocol.schema.unstable import AuthStatusCapabilities, Usage

VERSION: Final = 1
"""The `protocolVersion` these models speak."""

SCHEMA_VERSION: Final = "1.21.0"
SCHEMA_SHA256: Final = (
    "caf62ff962ada396878372ced11efb2c6764e59d90919a38583c319948931a42"
)

# ---------------------------------------------------------------------------
# Known values of open enums (documentation and outbound code only)
# ---------------------------------------------------------------------------

TOOL_KINDS: Final = frozenset(
    {
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
    }
)
TOOL_CALL_STATUSES: Final = frozenset({"pending", "in_progress", "completed", "failed"})
STOP_REASONS: Final = frozenset(
    {"end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"}
)
PLAN_ENTRY_PRIORITIES: Final = frozenset({"high", "medium", "low"})
PLAN_ENTRY_STATUSES: Final = frozenset({"pending", "in_progress", "completed"})
PERMISSION_OPTION_KINDS: Final = frozenset(
    {"allow_once", "allow_always", "reject_once", "reject_always"}
)
SESSION_CONFIG_OPTION_CATEGORIES: Final = frozenset(
    {"mode", "model", "model_config", "thought_level"}
)
ROLES: Final = frozenset({"assistant", "user"})
STRING_FORMATS: Final = frozenset({"email", "uri", "date", "date-time"})
ERROR_CODES: Final[Mapping[int, str]] = {
    -32700: "Parse error",
    -32600: "Invalid request",
    -32601: "Method not found",
    -32602: "Invalid params",
    -32603: "Internal error",
    -32800: "Request cancelled",
    -32000: "Authentication required",
    -32002: "Resource not found",
}

# Tags of the open tagged unions.
CONTENT_BLOCK_TYPES: Final = frozenset(
    {"text", "image", "audio", "resource_link", "resource"}
)
TOOL_CALL_CONTENT_TYPES: Final = frozenset({"content", "diff", "terminal"})
SESSION_CONFIG_OPTION_TYPES: Final = frozenset({"select", "boolean"})
SESSION_UPDATE_KINDS: Final = frozenset(
    {
        "user_message_chunk",
        "agent_message_chunk",
        "agent_thought_chunk",
        "tool_call",
        "tool_call_update",
        "plan",
        "plan_update",
        "plan_removed",
        "available_commands_update",
        "current_mode_update",
        "config_option_update",
        "session_info_update",
        "usage_update",
        "notice",
        "compaction_update",
        "compaction_summary_chunk",
    }
)
"""The last three: the v1 additions (TS SDK 2.4 `v1/schema.json`), each sent only
to a client that opts in (`ClientSessionCapabilities.notices` / `.compaction`)."""

# ---------------------------------------------------------------------------
# Lenient parsing (x-deserialize-default-on-error / -skip-invalid-items)
# ---------------------------------------------------------------------------

_T = TypeVar("_T")

LenientItems: TypeAlias = LenientList[list[_T]]
"""An optional array: malformed items are dropped; a non-array reads as omitted."""
LenientItemsOrNull: TypeAlias = LenientList[list[_T] | None]
"""A nullable optional array, lenient as `LenientItems`."""
RequiredLenientItems: TypeAlias = LenientList[list[_T]]
"""A required array: malformed items are dropped; a non-array reads as `[]`."""

# JSON scalars are validated strictly (`StrictBool`, `StrictInt`, ...), so a dump
# never differs from what was received; a lenient field reads a `"yes"` bool as
# omitted.
UInt16: TypeAlias = Annotated[StrictInt, Field(ge=0, le=0xFFFF)]
UInt32: TypeAlias = Annotated[StrictInt, Field(ge=0, le=0xFFFF_FFFF)]
UInt64: TypeAlias = Annotated[StrictInt, Field(ge=0, le=0xFFFF_FFFF_FFFF_FFFF)]

RequestId: TypeAlias = StrictInt | str | None
"""A JSON-RPC request id (the schema allows `null`)."""

# Scalar `$defs`: ids are opaque strings; open enums are plain strings whose known
# values are the frozensets above.
ProtocolVersion: TypeAlias = UInt16
ToolCallId: TypeAlias = str
TerminalId: TypeAlias = str
MessageId: TypeAlias = str
PermissionOptionId: TypeAlias = str
SessionModeId: TypeAlias = str
SessionConfigId: TypeAlias = str
SessionConfigValueId: TypeAlias = str
SessionConfigGroupId: TypeAlias = str
AuthMethodId: TypeAlias = str
ElicitationId: TypeAlias = str
ErrorCode: TypeAlias = StrictInt
"""`ERROR_CODES`, or any other int32."""
ToolKind: TypeAlias = str
"""`TOOL_KINDS`; open."""
ToolCallStatus: TypeAlias = str
"""`TOOL_CALL_STATUSES`; open."""
StopReason: TypeAlias = str
"""`STOP_REASONS`; open."""
PlanEntryPriority: TypeAlias = str
"""`PLAN_ENTRY_PRIORITIES`; open."""
PlanEntryStatus: TypeAlias = str
"""`PLAN_ENTRY_STATUSES`; open."""
PermissionOptionKind: TypeAlias = str
"""`PERMISSION_OPTION_KINDS`; open."""
SessionConfigOptionCategory: TypeAlias = str
"""`SESSION_CONFIG_OPTION_CATEGORIES`, `_`-prefixed, or unknown; open."""
Role: TypeAlias = str
"""`ROLES`; open."""
StringFormat: TypeAlias = str
"""`STRING_FORMATS`; an unknown format reads as plain text."""
ElicitationSchemaType: TypeAlias = str
"""Always `object`."""


class _V1Model(WireModel):
    """Base of the v1 models."""


class _NullIsEmpty(_V1Model):
    """A result whose fields are all optional: `null` on the wire reads as `{}`."""

    @model_validator(mode="before")
    @classmethod
    def _null_is_empty(cls, data: Any) -> Any:
        return {} if data is None else data


# ---------------------------------------------------------------------------
# Content blocks
# ---------------------------------------------------------------------------


class Annotations(_V1Model):
    audience: LenientItemsOrNull[Role] = None
    last_modified: Lenient[str | None] = None
    priority: Lenient[JSONNumber | None] = None


class TextContent(_V1Model):
    type: Literal["text"] = "text"
    annotations: Lenient[Annotations | None] = None
    text: str


class ImageContent(_V1Model):
    type: Literal["image"] = "image"
    annotations: Lenient[Annotations | None] = None
    data: str
    mime_type: str
    uri: Lenient[str | None] = None


class AudioContent(_V1Model):
    type: Literal["audio"] = "audio"
    annotations: Lenient[Annotations | None] = None
    data: str
    mime_type: str


class ResourceLink(_V1Model):
    type: Literal["resource_link"] = "resource_link"
    annotations: Lenient[Annotations | None] = None
    description: Lenient[str | None] = None
    mime_type: Lenient[str | None] = None
    name: str
    size: Lenient[StrictInt | None] = None
    title: Lenient[str | None] = None
    uri: str


class TextResourceContents(_V1Model):
    mime_type: Lenient[str | None] = None
    text: str
    uri: str


class BlobResourceContents(_V1Model):
    blob: str
    mime_type: Lenient[str | None] = None
    uri: str


EmbeddedResourceResource: TypeAlias = TextResourceContents | BlobResourceContents


class EmbeddedResource(_V1Model):
    type: Literal["resource"] = "resource"
    annotations: Lenient[Annotations | None] = None
    resource: EmbeddedResourceResource


ContentBlock: TypeAlias = Annotated[
    Annotated[TextContent, Tag("text")]
    | Annotated[ImageContent, Tag("image")]
    | Annotated[AudioContent, Tag("audio")]
    | Annotated[ResourceLink, Tag("resource_link")]
    | Annotated[EmbeddedResource, Tag("resource")]
    | Annotated[UnknownContentBlock, Tag(UNKNOWN_TAG)],
    Discriminator(open_union_discriminator("type", CONTENT_BLOCK_TYPES)),
]
"""Open union on `type`."""

# ---------------------------------------------------------------------------
# Tool calls
# ---------------------------------------------------------------------------


class Content(_V1Model):
    type: Literal["content"] = "content"
    content: ContentBlock


class Diff(_V1Model):
    type: Literal["diff"] = "diff"
    path: str
    old_text: Lenient[str | None] = None
    """`None` or omitted: a new file."""
    new_text: str


class Terminal(_V1Model):
    """A reference to a client-owned terminal created with `terminal/create`."""

    type: Literal["terminal"] = "terminal"
    terminal_id: TerminalId


ToolCallContent: TypeAlias = Annotated[
    Annotated[Content, Tag("content")]
    | Annotated[Diff, Tag("diff")]
    | Annotated[Terminal, Tag("terminal")]
    | Annotated[UnknownToolCallContent, Tag(UNKNOWN_TAG)],
    Discriminator(open_union_discriminator("type", TOOL_CALL_CONTENT_TYPES)),
]
"""Open union on `type`."""


class ToolCallLocation(_V1Model):
    path: str
    line: Lenient[UInt32 | None] = None


class ToolCallUpdate(_V1Model):
    """A patch of a tool call: omitted fields are unchanged.

    Used untagged as the `toolCall` of `RequestPermissionRequest`; as a session
    update it is `SessionToolCallUpdate`. `None` (wire `null`) is not defined by v1;
    the client treats it as "clear". Tell the three states apart with
    `_base.field_state`.
    """

    tool_call_id: ToolCallId
    kind: Lenient[ToolKind | None] = None
    status: Lenient[ToolCallStatus | None] = None
    title: Lenient[str | None] = None
    name: Lenient[str | None] = None
    """The tool's programmatic name (TS SDK 2.4's v1 schema; `null` = omitted)."""
    content: LenientItemsOrNull[ToolCallContent] = None
    """Replaces the whole content list."""
    locations: LenientItemsOrNull[ToolCallLocation] = None
    """Replaces the whole location list."""
    raw_input: Any = None
    raw_output: Any = None


# ---------------------------------------------------------------------------
# session/update
# ---------------------------------------------------------------------------


class ContentChunk(_V1Model):
    """A streamed piece of a message (the shared shape of the three chunk updates)."""

    content: ContentBlock
    message_id: Lenient[MessageId | None] = None
    """Chunks with the same id belong to one message; optional in v1."""


class UserMessageChunk(ContentChunk):
    session_update: Literal["user_message_chunk"] = "user_message_chunk"


class AgentMessageChunk(ContentChunk):
    session_update: Literal["agent_message_chunk"] = "agent_message_chunk"


class AgentThoughtChunk(ContentChunk):
    session_update: Literal["agent_thought_chunk"] = "agent_thought_chunk"


class ToolCall(_V1Model):
    """Creates a tool call (`sessionUpdate: "tool_call"`)."""

    session_update: Literal["tool_call"] = "tool_call"
    tool_call_id: ToolCallId
    title: str
    name: Lenient[str | None] = None
    """The tool's programmatic name (TS SDK 2.4's v1 schema)."""
    kind: Lenient[ToolKind] = "other"
    status: Lenient[ToolCallStatus] = "pending"
    content: LenientItems[ToolCallContent] = Field(default_factory=list)
    locations: LenientItems[ToolCallLocation] = Field(default_factory=list)
    raw_input: Any = None
    raw_output: Any = None


class SessionToolCallUpdate(ToolCallUpdate):
    """`ToolCallUpdate` as a session update (`sessionUpdate: "tool_call_update"`)."""

    session_update: Literal["tool_call_update"] = "tool_call_update"


class PlanEntry(_V1Model):
    content: str
    priority: PlanEntryPriority
    status: PlanEntryStatus


class Plan(_V1Model):
    """The complete plan; replaces the previous one."""

    session_update: Literal["plan"] = "plan"
    entries: RequiredLenientItems[PlanEntry]


class PlanUpdate(_V1Model):
    """[unstable, TS SDK 2.4] A plan by its `planId` (items, markdown, file...).

    Sent only to a client with the `plan` capability.
    """

    session_update: Literal["plan_update"] = "plan_update"
    plan: dict[str, Any]


class PlanRemoved(_V1Model):
    """[unstable, TS SDK 2.4] The plan `plan_id` is dismissed."""

    session_update: Literal["plan_removed"] = "plan_removed"
    plan_id: str


class UnstructuredCommandInput(_V1Model):
    hint: str


AvailableCommandInput: TypeAlias = UnstructuredCommandInput


class AvailableCommand(_V1Model):
    name: str
    description: str
    input: Lenient[AvailableCommandInput | None] = None


class AvailableCommandsUpdate(_V1Model):
    """The complete command list; replaces the previous one."""

    session_update: Literal["available_commands_update"] = "available_commands_update"
    available_commands: RequiredLenientItems[AvailableCommand]


class CurrentModeUpdate(_V1Model):
    session_update: Literal["current_mode_update"] = "current_mode_update"
    current_mode_id: SessionModeId


class SessionConfigSelectOption(_V1Model):
    value: SessionConfigValueId
    name: str
    description: Lenient[str | None] = None


class SessionConfigSelectGroup(_V1Model):
    group: SessionConfigGroupId
    name: str
    options: RequiredLenientItems[SessionConfigSelectOption]


SessionConfigSelectOptions: TypeAlias = (
    list[SessionConfigSelectOption] | list[SessionConfigSelectGroup]
)
"""Flat options, or options in groups."""


class _SessionConfigOptionBase(_V1Model):
    id: SessionConfigId
    name: str
    description: Lenient[str | None] = None
    category: Lenient[SessionConfigOptionCategory | None] = None


class SessionConfigSelect(_SessionConfigOptionBase):
    type: Literal["select"] = "select"
    current_value: SessionConfigValueId
    options: SessionConfigSelectOptions


class SessionConfigBoolean(_SessionConfigOptionBase):
    type: Literal["boolean"] = "boolean"
    current_value: StrictBool


class UnknownSessionConfigOption(_SessionConfigOptionBase):
    """An option of an unknown `type`: keep it, hide it."""

    type: str


SessionConfigOption: TypeAlias = Annotated[
    Annotated[SessionConfigSelect, Tag("select")]
    | Annotated[SessionConfigBoolean, Tag("boolean")]
    | Annotated[UnknownSessionConfigOption, Tag(UNKNOWN_TAG)],
    Discriminator(open_union_discriminator("type", SESSION_CONFIG_OPTION_TYPES)),
]
"""Open union on `type`."""


class ConfigOptionUpdate(_V1Model):
    """The complete option list; replaces the previous one."""

    session_update: Literal["config_option_update"] = "config_option_update"
    config_options: RequiredLenientItems[SessionConfigOption]


class UsageUpdate(_V1Model):
    session_update: Literal["usage_update"] = "usage_update"
    used: UInt64
    size: UInt64
    cost: Lenient[Cost | None] = None


class CompactionUpdate(_V1Model):
    """A context compaction upsert (`session.compaction` opt-in).

    `status` is open; `summary`, `error` and `_meta` are three-state patches.
    """

    session_update: Literal["compaction_update"] = "compaction_update"
    compaction_id: str
    status: str
    summary: LenientList[list[ContentBlock] | None] = None
    error: Lenient[str | None] = None


class CompactionSummaryChunk(_V1Model):
    """One block appended to a compaction's summary (`session.compaction` opt-in)."""

    session_update: Literal["compaction_summary_chunk"] = "compaction_summary_chunk"
    compaction_id: str
    content: ContentBlock


SessionUpdate: TypeAlias = Annotated[
    Annotated[UserMessageChunk, Tag("user_message_chunk")]
    | Annotated[AgentMessageChunk, Tag("agent_message_chunk")]
    | Annotated[AgentThoughtChunk, Tag("agent_thought_chunk")]
    | Annotated[ToolCall, Tag("tool_call")]
    | Annotated[SessionToolCallUpdate, Tag("tool_call_update")]
    | Annotated[Plan, Tag("plan")]
    | Annotated[PlanUpdate, Tag("plan_update")]
    | Annotated[PlanRemoved, Tag("plan_removed")]
    | Annotated[AvailableCommandsUpdate, Tag("available_commands_update")]
    | Annotated[CurrentModeUpdate, Tag("current_mode_update")]
    | Annotated[ConfigOptionUpdate, Tag("config_option_update")]
    | Annotated[SessionInfoUpdate, Tag("session_info_update")]
    | Annotated[UsageUpdate, Tag("usage_update")]
    | Annotated[Notice, Tag("notice")]
    | Annotated[CompactionUpdate, Tag("compaction_update")]
    | Annotated[CompactionSummaryChunk, Tag("compaction_summary_chunk")]
    | Annotated[UnknownSessionUpdate, Tag(UNKNOWN_TAG)],
    Discriminator(open_union_discriminator("sessionUpdate", SESSION_UPDATE_KINDS)),
]
"""Open union on `sessionUpdate`."""


class SessionNotification(_V1Model):
    """`session/update` params."""

    session_id: SessionId
    update: SessionUpdate


# ---------------------------------------------------------------------------
# initialize, authentication
# ---------------------------------------------------------------------------


class FileSystemCapabilities(_V1Model):
    read_text_file: Lenient[StrictBool] = False
    write_text_file: Lenient[StrictBool] = False


class BooleanConfigOptionCapabilities(_V1Model):
    pass


class SessionConfigOptionsCapabilities(_V1Model):
    boolean: Lenient[BooleanConfigOptionCapabilities | None] = None


class NoticeCapabilities(_V1Model):
    """The client presents `notice` updates (an empty object)."""


class CompactionCapabilities(_V1Model):
    """The client takes `compaction_update` / `compaction_summary_chunk`."""


class ClientSessionCapabilities(_V1Model):
    config_options: Lenient[SessionConfigOptionsCapabilities | None] = None
    notices: Lenient[NoticeCapabilities | None] = None
    compaction: Lenient[CompactionCapabilities | None] = None


class AuthCapabilities(_V1Model):
    terminal: Lenient[StrictBool] = False


class PlanCapabilities(_V1Model):
    """[unstable, TS SDK 2.4] The client takes `plan_update` and `plan_removed`."""


class ClientCapabilities(_V1Model):
    fs: Lenient[FileSystemCapabilities] = Field(default_factory=FileSystemCapabilities)
    terminal: Lenient[StrictBool] = False
    session: Lenient[ClientSessionCapabilities | None] = None
    auth: Lenient[AuthCapabilities] = Field(default_factory=AuthCapabilities)
    elicitation: Lenient[ElicitationCapabilities | None] = None
    plan: Lenient[PlanCapabilities | None] = None
    """[unstable, TS SDK 2.4]"""


class InitializeRequest(_V1Model):
    protocol_version: ProtocolVersion
    client_capabilities: Lenient[ClientCapabilities] = Field(
        default_factory=ClientCapabilities
    )
    client_info: Lenient[Implementation | None] = None


class PromptCapabilities(_V1Model):
    image: Lenient[StrictBool] = False
    audio: Lenient[StrictBool] = False
    embedded_context: Lenient[StrictBool] = False


class McpCapabilities(_V1Model):
    http: Lenient[StrictBool] = False
    sse: Lenient[StrictBool] = False


class SessionListCapabilities(_V1Model):
    pass


class SessionResumeCapabilities(_V1Model):
    pass


class SessionCloseCapabilities(_V1Model):
    pass


class SessionCapabilities(_V1Model):
    """Each method is supported when its marker object is present and non-null."""

    list: Lenient[SessionListCapabilities | None] = None
    delete: Lenient[SessionDeleteCapabilities | None] = None
    additional_directories: Lenient[SessionAdditionalDirectoriesCapabilities | None] = (
        None
    )
    resume: Lenient[SessionResumeCapabilities | None] = None
    close: Lenient[SessionCloseCapabilities | None] = None


class LogoutCapabilities(_V1Model):
    pass


class AgentAuthCapabilities(_V1Model):
    logout: Lenient[LogoutCapabilities | None] = None
    status: Lenient[AuthStatusCapabilities | None] = None
    """Unstable (`auth/status`, `schema.unstable.json`)."""


class AgentCapabilities(_V1Model):
    load_session: Lenient[StrictBool] = False
    prompt_capabilities: Lenient[PromptCapabilities] = Field(
        default_factory=PromptCapabilities
    )
    mcp_capabilities: Lenient[McpCapabilities] = Field(default_factory=McpCapabilities)
    session_capabilities: Lenient[SessionCapabilities] = Field(
        default_factory=SessionCapabilities
    )
    auth: Lenient[AgentAuthCapabilities] = Field(default_factory=AgentAuthCapabilities)


class AuthMethodAgent(_V1Model):
    """The agent runs its own login flow (`authenticate`).

    v1 sends it without a `type`; any `type` other than `terminal` (kept as an
    extra field) is this variant too, as the schema says.
    """

    id: AuthMethodId
    name: str
    description: Lenient[str | None] = None


class AuthMethodTerminal(_V1Model):
    """Log in by running the agent command in a terminal (needs `auth.terminal`)."""

    type: Literal["terminal"] = "terminal"
    id: AuthMethodId
    name: str
    description: Lenient[str | None] = None
    args: LenientItems[str] = Field(default_factory=list)
    env: Lenient[dict[str, str]] = Field(default_factory=dict)


def _auth_method_tag(value: Any) -> str:
    if isinstance(value, Mapping):
        tag = value.get("type")
    else:
        tag = getattr(value, "type", None)
    return "terminal" if tag == "terminal" else "agent"


AuthMethod: TypeAlias = Annotated[
    Annotated[AuthMethodTerminal, Tag("terminal")]
    | Annotated[AuthMethodAgent, Tag("agent")],
    Discriminator(_auth_method_tag),
]
"""`type: "terminal"`, or anything else (usually no `type`): agent."""


class InitializeResponse(_V1Model):
    protocol_version: ProtocolVersion
    agent_capabilities: Lenient[AgentCapabilities] = Field(
        default_factory=AgentCapabilities
    )
    auth_methods: LenientItems[AuthMethod] = Field(default_factory=list)
    agent_info: Lenient[Implementation | None] = None


class AuthenticateRequest(_V1Model):
    method_id: AuthMethodId


class AuthenticateResponse(_NullIsEmpty):
    pass


class LogoutRequest(_V1Model):
    pass


class LogoutResponse(_NullIsEmpty):
    pass


# ---------------------------------------------------------------------------
# Sessions
# ---------------------------------------------------------------------------


class McpServerStdio(_V1Model):
    """v1 stdio servers have no `type` (a `type: "stdio"` is kept as an extra)."""

    name: str
    command: str
    args: list[str]
    env: list[EnvVariable]


class McpServerHttp(_V1Model):
    type: Literal["http"] = "http"
    name: str
    url: str
    headers: list[HttpHeader]


class McpServerSse(_V1Model):
    type: Literal["sse"] = "sse"
    name: str
    url: str
    headers: list[HttpHeader]


def _mcp_server_tag(value: Any) -> str | None:
    if isinstance(value, Mapping):
        tag = value.get("type")
    else:
        tag = getattr(value, "type", None)
    if tag is None or tag == "stdio":
        return "stdio"
    return tag if tag in ("http", "sse") else None


McpServer: TypeAlias = Annotated[
    Annotated[McpServerStdio, Tag("stdio")]
    | Annotated[McpServerHttp, Tag("http")]
    | Annotated[McpServerSse, Tag("sse")],
    Discriminator(_mcp_server_tag),
]
"""Closed union: no `type` (stdio), `http` or `sse`."""


class SessionMode(_V1Model):
    id: SessionModeId
    name: str
    description: Lenient[str | None] = None


class SessionModeState(_V1Model):
    current_mode_id: SessionModeId
    available_modes: RequiredLenientItems[SessionMode]


class NewSessionRequest(_V1Model):
    cwd: str
    """Absolute."""
    additional_directories: LenientItems[str] = Field(default_factory=list)
    mcp_servers: RequiredLenientItems[McpServer]
    """Required in v1: send `[]` for none."""


class NewSessionResponse(_V1Model):
    _max_depth: ClassVar[int | None] = MAX_JSON_DEPTH

    session_id: SessionId
    modes: Lenient[SessionModeState | None] = None
    config_options: LenientItemsOrNull[SessionConfigOption] = None


class LoadSessionRequest(_V1Model):
    mcp_servers: RequiredLenientItems[McpServer]
    cwd: str
    additional_directories: LenientItems[str] = Field(default_factory=list)
    session_id: SessionId


class LoadSessionResponse(_NullIsEmpty):
    _max_depth: ClassVar[int | None] = MAX_JSON_DEPTH

    modes: Lenient[SessionModeState | None] = None
    config_options: LenientItemsOrNull[SessionConfigOption] = None


class ListSessionsRequest(_V1Model):
    cwd: str | None = None
    cursor: str | None = None
    """Opaque; from the previous `nextCursor`."""


class SessionInfo(_V1Model):
    session_id: SessionId
    cwd: str
    additional_directories: LenientItems[str] = Field(default_factory=list)
    title: Lenient[str | None] = None
    updated_at: Lenient[str | None] = None


class ListSessionsResponse(_V1Model):
    _max_depth: ClassVar[int | None] = MAX_JSON_DEPTH

    sessions: RequiredLenientItems[SessionInfo]
    next_cursor: Lenient[str | None] = None
    """Omitted or `None`: no more pages."""


class DeleteSessionResponse(_NullIsEmpty):
    pass


class ResumeSessionRequest(_V1Model):
    session_id: SessionId
    cwd: str
    additional_directories: LenientItems[str] = Field(default_factory=list)
    mcp_servers: LenientItems[McpServer] = Field(default_factory=list)


class ResumeSessionResponse(_NullIsEmpty):
    _max_depth: ClassVar[int | None] = MAX_JSON_DEPTH

    modes: Lenient[SessionModeState | None] = None
    config_options: LenientItemsOrNull[SessionConfigOption] = None


class CloseSessionResponse(_NullIsEmpty):
    pass


class SetSessionModeRequest(_V1Model):
    session_id: SessionId
    mode_id: SessionModeId


class SetSessionModeResponse(_NullIsEmpty):
    pass


class SetSessionConfigOptionRequest(_V1Model):
    """`{sessionId, configId, value}` for a select; add `type: "boolean"` for a flag.

    Send `type="boolean"` (with a `bool` value) only if the agent's option is a
    boolean one and the client advertised `session.configOptions.boolean`.
    """

    session_id: SessionId
    config_id: SessionConfigId
    type: Literal["boolean"] | None = None
    value: StrictBool | SessionConfigValueId


class SetSessionConfigOptionResponse(_V1Model):
    _max_depth: ClassVar[int | None] = MAX_JSON_DEPTH

    config_options: RequiredLenientItems[SessionConfigOption]
    """The complete list; replaces the stored one."""


# ---------------------------------------------------------------------------
# Prompt turn
# ---------------------------------------------------------------------------


class PromptRequest(_V1Model):
    session_id: SessionId
    prompt: list[ContentBlock]


class PromptResponse(_V1Model):
    stop_reason: StopReason
    """The turn is over."""
    usage: Lenient[Usage | None] = None
    """Unstable: the turn's token usage (rfds/end-turn-token-usage)."""


class CancelNotification(_V1Model):
    """`session/cancel` params (client → agent notification)."""

    session_id: SessionId


# ---------------------------------------------------------------------------
# Permission requests
# ---------------------------------------------------------------------------


class PermissionOption(_V1Model):
    option_id: PermissionOptionId
    name: str
    kind: PermissionOptionKind


class RequestPermissionRequest(_V1Model):
    _max_depth: ClassVar[int | None] = MAX_JSON_DEPTH

    session_id: SessionId
    tool_call: ToolCallUpdate
    """A patch of the displayed tool call; agents put the prompt in its `title`."""
    options: list[PermissionOption]


class SelectedPermissionOutcome(_V1Model):
    outcome: Literal["selected"] = "selected"
    option_id: PermissionOptionId


RequestPermissionOutcome: TypeAlias = Annotated[
    CancelledPermissionOutcome | SelectedPermissionOutcome,
    Field(discriminator="outcome"),
]
"""Closed union on `outcome`."""


class RequestPermissionResponse(_V1Model):
    outcome: RequestPermissionOutcome


# ---------------------------------------------------------------------------
# File system
# ---------------------------------------------------------------------------


class ReadTextFileRequest(_V1Model):
    session_id: SessionId
    path: str
    line: Lenient[UInt32 | None] = None
    """1-based first line."""
    limit: Lenient[UInt32 | None] = None
    """Maximum number of lines."""


class ReadTextFileResponse(_V1Model):
    content: str


class WriteTextFileRequest(_V1Model):
    session_id: SessionId
    path: str
    content: str


class WriteTextFileResponse(_NullIsEmpty):
    pass


# ---------------------------------------------------------------------------
# Terminals (client-owned in v1)
# ---------------------------------------------------------------------------


class CreateTerminalRequest(_V1Model):
    session_id: SessionId
    command: str
    args: LenientItems[str] = Field(default_factory=list)
    env: LenientItems[EnvVariable] = Field(default_factory=list)
    cwd: Lenient[str | None] = None
    output_byte_limit: Lenient[UInt64 | None] = None


class CreateTerminalResponse(_V1Model):
    terminal_id: TerminalId


class TerminalExitStatus(_V1Model):
    exit_code: Lenient[UInt32 | None] = None
    signal: Lenient[str | None] = None


class TerminalOutputRequest(_V1Model):
    session_id: SessionId
    terminal_id: TerminalId


class TerminalOutputResponse(_V1Model):
    output: str
    truncated: StrictBool
    exit_status: Lenient[TerminalExitStatus | None] = None
    """Present once the command has exited."""


class ReleaseTerminalRequest(_V1Model):
    session_id: SessionId
    terminal_id: TerminalId


class ReleaseTerminalResponse(_NullIsEmpty):
    pass


class WaitForTerminalExitRequest(_V1Model):
    session_id: SessionId
    terminal_id: TerminalId


class WaitForTerminalExitResponse(_NullIsEmpty):
    exit_code: Lenient[UInt32 | None] = None
    signal: Lenient[str | None] = None


class KillTerminalRequest(_V1Model):
    session_id: SessionId
    terminal_id: TerminalId


class KillTerminalResponse(_NullIsEmpty):
    pass


# ---------------------------------------------------------------------------
# Elicitation
# ---------------------------------------------------------------------------


class StringPropertySchema(_V1Model):
    type: Literal["string"] = "string"
    title: Lenient[str | None] = None
    description: Lenient[str | None] = None
    min_length: UInt32 | None = None
    max_length: UInt32 | None = None
    pattern: str | None = None
    format: StringFormat | None = None
    default: Lenient[str | None] = None
    enum: list[str] | None = None
    one_of: list[EnumOption] | None = None


class IntegerPropertySchema(_V1Model):
    type: Literal["integer"] = "integer"
    title: Lenient[str | None] = None
    description: Lenient[str | None] = None
    minimum: StrictInt | None = None
    maximum: StrictInt | None = None
    default: Lenient[StrictInt | None] = None


class BooleanPropertySchema(_V1Model):
    type: Literal["boolean"] = "boolean"
    title: Lenient[str | None] = None
    description: Lenient[str | None] = None
    default: Lenient[StrictBool | None] = None


class StringMultiSelectItems(_V1Model):
    type: Literal["string"] = "string"
    enum: list[str]


class TitledMultiSelectItems(_V1Model):
    any_of: list[EnumOption]


def _multi_select_items_tag(value: Any) -> str | None:
    if isinstance(value, Mapping):
        tag = value.get("type")
    else:
        tag = getattr(value, "type", None)
    if tag is None:
        return "titled"
    return "string" if tag == "string" else None


MultiSelectItems: TypeAlias = Annotated[
    Annotated[StringMultiSelectItems, Tag("string")]
    | Annotated[TitledMultiSelectItems, Tag("titled")],
    Discriminator(_multi_select_items_tag),
]
"""Closed: `{type: "string", enum}` or `{anyOf: [EnumOption]}`."""


class MultiSelectPropertySchema(_V1Model):
    type: Literal["array"] = "array"
    title: Lenient[str | None] = None
    description: Lenient[str | None] = None
    min_items: UInt64 | None = None
    max_items: UInt64 | None = None
    items: MultiSelectItems
    default: LenientItemsOrNull[str] = None


ElicitationPropertySchema: TypeAlias = Annotated[
    StringPropertySchema
    | NumberPropertySchema
    | IntegerPropertySchema
    | BooleanPropertySchema
    | MultiSelectPropertySchema,
    Field(discriminator="type"),
]
"""Closed union on `type` (the client can only render the known shapes)."""


class ElicitationSchema(_V1Model):
    """The restricted JSON Schema of a form: a flat object of primitive properties."""

    type: Lenient[ElicitationSchemaType] = "object"
    title: Lenient[str | None] = None
    properties: dict[str, ElicitationPropertySchema] = Field(default_factory=dict)
    required: list[str] | None = None
    description: Lenient[str | None] = None


ELICITATION_MODES: Final = frozenset({"form", "url"})


class CreateElicitationRequest(_V1Model):
    """`elicitation/create` params: a flat object on the wire.

    Scope: `session_id` (with optional `tool_call_id`), or `request_id`.
    Mode `form` needs `requested_schema`; mode `url` needs `elicitation_id` and `url`.
    Other modes are kept (answer them `decline`, or `-32602`).
    """

    message: str
    mode: str
    """`ELICITATION_MODES`; open."""
    session_id: SessionId | None = None
    tool_call_id: Lenient[ToolCallId | None] = None
    request_id: RequestId = None
    """Present (possibly `null`) for a request-scoped elicitation."""
    requested_schema: ElicitationSchema | None = None
    elicitation_id: ElicitationId | None = None
    url: str | None = None

    @model_validator(mode="after")
    def _check_mode_and_scope(self) -> Self:
        if self.session_id is None and "request_id" not in self.model_fields_set:
            raise ValueError("elicitation/create needs `sessionId` or `requestId`")
        if self.mode == "form" and self.requested_schema is None:
            raise ValueError("form elicitation needs `requestedSchema`")
        if self.mode == "url" and (self.elicitation_id is None or self.url is None):
            raise ValueError("url elicitation needs `elicitationId` and `url`")
        return self


ElicitationContentValue: TypeAlias = (
    str | StrictInt | StrictFloat | StrictBool | list[str]
)


class CreateElicitationResponse(_V1Model):
    """`{action: "accept", content?}`, `{action: "decline"}` or `{action: "cancel"}`."""

    action: Literal["accept", "decline", "cancel"]
    content: dict[str, ElicitationContentValue] | None = None
    """Only meaningful for `accept`; the submitted form values."""


class CompleteElicitationNotification(_V1Model):
    """`elicitation/complete` params: a URL elicitation finished out of band."""

    elicitation_id: ElicitationId


# ---------------------------------------------------------------------------
# Protocol level
# ---------------------------------------------------------------------------


class CancelRequestNotification(_V1Model):
    """`$/cancel_request` params: either side cancels a request it sent."""

    request_id: RequestId


class Error(_V1Model):
    """A JSON-RPC error object (the schema's `Error`; no `_meta` on the wire)."""

    code: ErrorCode
    message: str
    data: Any = None


# ---------------------------------------------------------------------------
# Method tables
# ---------------------------------------------------------------------------

AGENT_METHODS: Final[dict[str, MethodSpec]] = {
    "initialize": MethodSpec(InitializeRequest, InitializeResponse),
    "authenticate": MethodSpec(AuthenticateRequest, AuthenticateResponse),
    "logout": MethodSpec(LogoutRequest, LogoutResponse),
    "session/new": MethodSpec(NewSessionRequest, NewSessionResponse),
    "session/load": MethodSpec(LoadSessionRequest, LoadSessionResponse),
    "session/list": MethodSpec(ListSessionsRequest, ListSessionsResponse),
    "session/resume": MethodSpec(ResumeSessionRequest, ResumeSessionResponse),
    "session/close": MethodSpec(CloseSessionRequest, CloseSessionResponse),
    "session/delete": MethodSpec(DeleteSessionRequest, DeleteSessionResponse),
    "session/set_mode": MethodSpec(SetSessionModeRequest, SetSessionModeResponse),
    "session/set_config_option": MethodSpec(
        SetSessionConfigOptionRequest, SetSessionConfigOptionResponse
    ),
    "session/prompt": MethodSpec(PromptRequest, PromptResponse),
}
"""Requests the agent handles (client → agent)."""

CLIENT_METHODS: Final[dict[str, MethodSpec]] = {
    "session/request_permission": MethodSpec(
        RequestPermissionRequest, RequestPermissionResponse
    ),
    "fs/read_text_file": MethodSpec(ReadTextFileRequest, ReadTextFileResponse),
    "fs/write_text_file": MethodSpec(WriteTextFileRequest, WriteTextFileResponse),
    "terminal/create": MethodSpec(CreateTerminalRequest, CreateTerminalResponse),
    "terminal/output": MethodSpec(TerminalOutputRequest, TerminalOutputResponse),
    "terminal/wait_for_exit": MethodSpec(
        WaitForTerminalExitRequest, WaitForTerminalExitResponse
    ),
    "terminal/kill": MethodSpec(KillTerminalRequest, KillTerminalResponse),
    "terminal/release": MethodSpec(ReleaseTerminalRequest, ReleaseTerminalResponse),
    "elicitation/create": MethodSpec(
        CreateElicitationRequest, CreateElicitationResponse
    ),
}
"""Requests the client handles (agent → client)."""

AGENT_NOTIFICATIONS: Final[dict[str, type[WireModel]]] = {
    "session/cancel": CancelNotification,
}
"""Notifications the agent handles (client → agent)."""

CLIENT_NOTIFICATIONS: Final[dict[str, type[WireModel]]] = {
    "session/update": SessionNotification,
    "elicitation/complete": CompleteElicitationNotification,
}
"""Notifications the client handles (agent → client)."""

PROTOCOL_NOTIFICATIONS: Final[dict[str, type[WireModel]]] = {
    "$/cancel_request": CancelRequestNotification,
}
"""Notifications either side may send."""
