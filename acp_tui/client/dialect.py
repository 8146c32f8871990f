"""What differs between ACP v1 and v2, behind one interface: a `Dialect` per version.

`client/v1.py` and `client/v2.py` implement it; nothing else above the wire
models compares protocol versions (a test greps for such comparisons). The connection
picks the dialect when it negotiates (`Connection.dialect`), and `AcpClient`,
`auth`, `prompt_content` and `check` ask it whatever depends on the version.

Invariants:

* A dialect is made from the negotiated `initialize` result and never changes.
  It holds no session state: what a session needs (v1's current message and
  modes) lives in the `SessionTranslator` it makes for that session.
* What crosses this seam is wire-form JSON (params, commands) or a
  version-neutral value (`SessionFeatures`, `SessionSummary`, `PermissionAsk`,
  `ElicitationCreate`, `AuthChoice`, `PromptCapabilities`, the store's
  `ConfigOption`: each dialect reads its own spelling of the options); the wire
  models stay in the dialect modules.
* Parsing a message raises pydantic's `ValidationError` when it does not fit the
  version; an operation the agent does not offer raises `UnsupportedOperation`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias

from acp_tui.client.ports import PermissionChoice
from acp_tui.store import ops
from acp_tui.store.auth_status import AuthStatus
from acp_tui.store.config import ConfigOption
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject

if TYPE_CHECKING:
    from acp_tui.client.auth import AuthChoice
    from acp_tui.client.connection import ClientFeatures
    from acp_tui.client.file_writes import FileWrites
    from acp_tui.client.fs import FileSystemAccess
    from acp_tui.client.prompt_content import PromptCapabilities
    from acp_tui.client.steering import SteerAnswer
    from acp_tui.client.terminals import ClientTerminals
    from acp_tui.config import McpServerSettings

__all__ = [
    "AgentIdentity",
    "ClientServices",
    "Dialect",
    "ElicitationCreate",
    "PermissionAsk",
    "SessionFeatures",
    "SessionMethod",
    "SessionSummary",
    "SessionTranslator",
    "TextChunk",
]


@dataclass(frozen=True, slots=True)
class AgentIdentity:
    """The agent's self-description from its `initialize` reply."""

    name: str
    title: str | None
    version: str | None

    @property
    def display_name(self) -> str:
        """The title, falling back to the name, as the spec recommends."""
        return self.title or self.name


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """One entry of `session/list`, in wire form (`raw`) plus the common fields."""

    session_id: str
    cwd: str
    title: str | None
    updated_at: str | None
    raw: JSONObject
    archived: bool = False
    """The agent reported it archived (`SessionInfo.archived`, unstable)."""


@dataclass(frozen=True, slots=True)
class SessionFeatures:
    """Which session methods the agent offers (from its negotiated capabilities)."""

    list: bool = False
    """`session/list`."""
    replay: bool = False
    """Reattach with the history replayed (v2 `session/resume`, v1 `session/load`)."""
    resume: bool = False
    """Reattach without a replay (v2 `session/resume`, v1 `session/resume`)."""
    delete: bool = False
    """`session/delete`."""
    additional_directories: bool = False
    """`additionalDirectories` on session setup (v1 and v2 capability markers)."""
    close: bool = False
    """`session/close` (v2: part of the session baseline; v1: its marker)."""
    fork: bool = False
    """`session/fork` (unstable; the `fork` marker)."""
    set_title: bool = False
    """`session/set_title` (unstable; the `title` marker)."""
    archive: bool = False
    """`session/archive` / `unarchive` and the list's `archived` filter
    (unstable; the `archive` marker)."""
    status: bool = False
    """`session/status` (unstable; the `status` marker)."""


@dataclass(frozen=True, slots=True)
class PermissionAsk:
    """A `session/request_permission`, version-neutral (what the store records)."""

    session_id: str
    title: str | None
    description: str | None
    subject: JSONObject | None
    options: list[JSONObject]
    """The offered options in wire form."""
    choices: tuple[PermissionChoice, ...]
    tool_call_id: str | None
    meta: JSONObject | None


@dataclass(frozen=True, slots=True)
class ElicitationCreate:
    """An `elicitation/create`, version-neutral (what the store records).

    Scoped to a session (`session_id`, maybe with `tool_call_id`) or, outside
    any session (`session_id` None), to one of the client's requests. `mode`
    is `form` (`requested_schema` in wire form) or `url` (`url`, and `url_id`:
    the `elicitationId` an `elicitation/complete` names); another mode is kept
    as sent.
    """

    mode: str
    message: str
    session_id: str | None
    tool_call_id: str | None
    requested_schema: JSONObject | None
    url: str | None
    url_id: str | None
    meta: JSONObject | None


SessionMethod: TypeAlias = Literal["sessions", "list", "replay", "close", "delete"]
"""A session method (or, `sessions`, any at all) the agent may not offer."""

Lists: TypeAlias = tuple[list[ConfigOption] | None, list[JSONObject] | None]
"""A setup response's config options (neutral) and commands (None: not reported)."""

TextChunk: TypeAlias = tuple[str, ops.MessageRole, str]
"""A plain text chunk's message id, role and text (`SessionTranslator.text_chunk`)."""


class SessionTranslator(Protocol):
    """One session's side of the dialect: its updates and setup responses."""

    def translate(self, params: Any) -> list[ops.Op]:
        """The store ops for a `session/update`'s params (validated here)."""

    def text_chunk(self, params: Any) -> TextChunk | None:
        """A plain text chunk's message id, role and text, where it is one.

        Where not None, `translate(params)` is exactly `[AppendMessageChunk(id,
        role, {"type": "text", "text": text})]` and changes nothing in the
        translator (the intake then gathers the text into a run,
        `ops.AppendMessageTexts`, without asking `translate`), and the params
        and every object in them have exactly the keys of that shape, nesting
        down to the content's `text`: params that differ only in that string
        are the same chunk with that text (the intake reads only the text of
        such lines, `protocol.text_shapes`). None: ask `translate` (any other
        update, or a chunk the dialect must see).
        """

    def prepare(self) -> None:
        """Build the model `translate` reads updates with, if not built yet.

        The schema's models are built when first used: the `session/update` model
        (every update kind's) takes 7-11 ms, and the first update that is not of a
        plain shape (`v2_plain`, the chunk fast paths) would build it in the
        middle of a stream. The runner of a front end that paints frames calls
        this as a turn's prompt is sent (`ClientRunner.prepare_models`). Once
        built, a call costs a microsecond.
        """

    def new_lists(self, result: object) -> Lists:
        """The lists of a parsed `session/new` result (`Dialect.parse_new`)."""

    def resumed_lists(self, raw: Any, replay: bool) -> Lists:
        """The lists a resume/load response reports (they replace the replayed)."""

    def config_options(self, options: Sequence[JSONObject]) -> list[ConfigOption]:
        """The config options to store for the agent's `options` (wire form)."""

    def end_message(self) -> None:
        """A turn or replay boundary: the next chunk starts a new message."""

    def user_prompt(self, blocks: Sequence[JSONObject]) -> list[ops.Op]:
        """The ops that show a sent prompt when the agent does not echo it."""

    def is_mode_option(self, config_id: str) -> bool:
        """Whether `config_id` is a mode option the dialect synthesised."""

    def mode_set(self, mode_id: str) -> list[ops.Op]:
        """The ops once `session/set_mode` to `mode_id` succeeded."""


class ClientServices(Protocol):
    """What the agent's client-side requests (v1 `fs/*`, `terminal/*`) reach."""

    @property
    def features(self) -> ClientFeatures:
        """Which client methods are served."""

    def fs_access(self, session_id: str) -> FileSystemAccess:
        """Where the session's `fs/*` requests may reach."""

    def file_writes(self, session_id: str) -> FileWrites:
        """Serves the session's `fs/write_text_file`, showing every write."""

    def client_terminals(self, session_id: str) -> ClientTerminals:
        """The session's client-owned terminals."""


class Dialect(Protocol):
    """Everything about the negotiated connection that depends on the version."""

    @property
    def version(self) -> Literal[1, 2]:
        """The protocol version this dialect speaks."""

    @property
    def agent(self) -> AgentIdentity:
        """The agent's self-description (named `agent` if it gave none)."""

    @property
    def agent_name(self) -> str | None:
        """The name the agent reported in `initialize` (None: it gave none)."""

    @property
    def turn_ends_with_response(self) -> bool:
        """v1: the `session/prompt` response ends a turn; v2: an idle state."""

    @property
    def serves_terminals(self) -> bool:
        """Whether client-owned terminals exist (v1 `terminal/*`)."""

    @property
    def turn_end(self) -> str:
        """What ends a turn, in words (`acp-tui check` rows)."""

    @property
    def replay_method(self) -> str:
        """The method that reattaches with the history replayed."""

    @property
    def batches(self) -> bool:
        """Whether JSON-RPC batches are part of the version."""

    @property
    def answer_note(self) -> str:
        """Why an agent may answer this version to an offer of the other."""

    def missing_capability(self, what: SessionMethod) -> str | None:
        """The capability not advertised that `what` needs (None: it may run)."""

    def session_features(self) -> SessionFeatures:
        """The session methods the agent advertised."""

    def prompt_capabilities(self) -> PromptCapabilities:
        """The prompt content the agent accepts beyond text and links."""

    def auth_choices(self) -> list[AuthChoice]:
        """The agent's login methods, in order."""

    def login(self, method_id: str) -> tuple[str, JSONObject]:
        """The method and params that log in with `method_id`."""

    def can_logout(self) -> bool:
        """Whether the agent may be sent a logout."""

    @property
    def logout_method(self) -> str:
        """The method that logs out."""

    def has_auth_status(self) -> bool:
        """Whether the agent serves `auth/status` (unstable `auth.status`)."""

    def auth_status(self, raw: Any) -> AuthStatus:
        """An `auth/status` result or `auth/status_update` params, neutral."""

    def prompt_response_ops(self, raw: Any) -> list[ops.Op]:
        """The ops of a `session/prompt` response that ends the turn (v1 only).

        The idle state with its stop reason, after the turn's usage if reported.
        """

    def mcp_servers(self, servers: Mapping[str, McpServerSettings]) -> list[JSONObject]:
        """The configured servers in wire form, for the transports the agent has."""

    def translator(self, store: SessionStore) -> SessionTranslator:
        """The translation of one session's updates into `store`."""

    def parse_new(self, raw: Any) -> tuple[str, object]:
        """A `session/new` result: the session id and the parsed result."""

    def check_list(self) -> None:
        """Raise `UnsupportedOperation` unless the agent lists sessions."""

    def list_page(self, raw: Any) -> tuple[list[SessionSummary], str | None]:
        """A `session/list` result: its entries and `nextCursor`."""

    def resume_request(self, replay: bool) -> tuple[str, JSONObject]:
        """The method that reattaches (with or without a replay), extra params."""

    def config_value_type(self, value: Any) -> str | None:
        """The `type` sent with a `session/set_config_option` value, if any."""

    def parse_config_options(self, raw: Any) -> list[JSONObject]:
        """A `session/set_config_option` result's options in wire form."""

    def cancel_one(
        self,
        kind: str,
        session_id: str,
        entity_id: str,
        capabilities: JSONObject | None,
    ) -> tuple[str, JSONObject] | None:
        """The request that cancels one tool call or terminal alone, or None.

        Args:
            kind: `"tool_call"` or `"terminal"`.
            session_id: The session it belongs to.
            entity_id: Its id.
            capabilities: The store's copy of its capabilities (None: none given).

        Returns:
            `(method, params)`, only where the agent advertises it for this one.
        """

    def check_set_mode(self) -> None:
        """Raise `UnsupportedOperation` unless `session/set_mode` exists."""

    def stop_reason(self, raw: Any) -> str | None:
        """The stop reason of a `session/prompt` response that ends the turn."""

    def permission(
        self, params: Any, store_for: Callable[[str], SessionStore]
    ) -> PermissionAsk:
        """Read a permission request; apply its tool-call subject to the store."""

    def permission_reply(self, outcome: JSONObject) -> JSONObject:
        """The `session/request_permission` result for the chosen `outcome`."""

    def elicitation(self, params: Any) -> ElicitationCreate:
        """Read an `elicitation/create` request."""

    def elicitation_reply(
        self, action: str, content: Mapping[str, Any] | None
    ) -> JSONObject:
        """The `elicitation/create` result (raises `ValidationError` if invalid)."""

    def elicitation_completed(self, params: Any) -> str:
        """The `elicitationId` of an `elicitation/complete` notification."""

    @property
    def steering(self) -> bool:
        """Whether the agent takes a prompt into its running turn (steering)."""

    def steer_request(
        self, session_id: str, blocks: Sequence[JSONObject]
    ) -> tuple[str, JSONObject]:
        """The method and params that steer the running turn (`client.steering`)."""

    def steer_answer(self, raw: Any) -> SteerAnswer:
        """The agent's answer to a steered prompt."""

    async def serve(self, method: str, params: Any, services: ClientServices) -> Any:
        """Serve a client-side request of the agent (`-32601` if not one)."""
