"""The ACP v2 dialect (`V2Dialect`), and v2 `session/update` → the store's ops.

`V2Dialect` implements `client.dialect.Dialect` for v2: initialize (whose offer
carries the v1 fields as plain JSON), the session methods' params and results,
permissions, auth, prompt capabilities and the turn-end rule (an idle
`state_update`); v2 clients serve no `fs/*` or `terminal/*`. With
`protocol.schema.v2`, the only module (besides negotiation) that knows v2 shapes;
it never imports `client.v1` (shared helpers: `client._wire`).

https://agentclientprotocol.com/protocol/v2/prompt-lifecycle and the v2 migration
guide. Every update kind maps onto the same store ops the v1 translator uses:

* `*_message_chunk` → `AppendMessageChunk` (the chunk's own `_meta` is dropped: it
  belongs to the chunk, not the message);
* `user_message` / `agent_message` / `agent_thought` → `UpsertMessage` with
  three-state `content` and `_meta` (alpha.3: an object replaces `_meta`);
* `tool_call_update` → `PatchToolCall` (an upsert; every field three-state);
  `tool_call_content_chunk` → `AppendToolCallContent`;
* `plan_update` → `ReplacePlan` by `planId` (markdown, file and unknown plan types
  keep their payload); `plan_removed` → `RemovePlan`;
* `terminal_update` → `PatchTerminal` (an `output` snapshot is base64-decoded and
  replaces all bytes); `terminal_output_chunk` → `AppendTerminalOutput`, each
  chunk decoded on its own (never joined before decoding);
* `state_update` → `SetState` (unknown states are kept; they are not idle);
* `available_commands_update`, `config_option_update` → whole-list replacements;
  `session_info_update`, `usage_update` → three-state patches;
* `notice`, `compaction_update` / `compaction_summary_chunk`, `session_message` /
  `session_message_chunk` → the `store.reports` ops (`client._wire_reports`);
  anything else (vendor, future) → `RecordUnknownUpdate` with the raw payload.

Invalid base64 in terminal data produces a visible notice, and the rest of the
update still applies. An update that nests JSON more than `MAX_UPDATE_DEPTH`
levels deep is skipped with a visible notice (both translators check this).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from pydantic import BaseModel

from acp_tui.client._wire import (
    CHUNK_ROLES,
    MAX_UPDATE_DEPTH,
    TOO_DEEP_TITLE,
    AgentAsks,
    ResultReads,
    SteeringExtension,
    agent_identity,
    commands_ops,
    decode_base64,
    elicitation_capabilities,
    json_list,
    json_object,
    mcp_entry,
    nested_too_deeply,
    patch,
    permission_ask,
    plan_update_ops,
    session_info_ops,
    too_deep_notice,
    tool_call_patch,
    turn_usage,
    unknown_update_ops,
    unstable_session_features,
    usage_ops,
)
from acp_tui.client._wire_reports import (
    REPORT_OPT_INS,
    compaction_chunk_ops,
    compaction_ops,
    notice_ops,
    session_message_chunk_ops,
    session_message_ops,
)
from acp_tui.client.auth import AuthChoice
from acp_tui.client.dialect import (
    AgentIdentity,
    ClientServices,
    Lists,
    PermissionAsk,
    SessionFeatures,
    SessionMethod,
    TextChunk,
)
from acp_tui.client.errors import UnsupportedOperation
from acp_tui.client.prompt_content import PromptCapabilities
from acp_tui.client.v2_chunks import fast_chunk_ops, plain_text_chunk
from acp_tui.protocol.jsonrpc import METHOD_NOT_FOUND, RpcError
from acp_tui.protocol.schema import v2
from acp_tui.protocol.schema._base import to_wire
from acp_tui.protocol.schema.unstable import Usage
from acp_tui.store import ops
from acp_tui.store.config import ConfigOption, OptionKeys, read_options
from acp_tui.store.store import SessionStore
from acp_tui.store.values import UNSET, JSONObject

if TYPE_CHECKING:
    from acp_tui.client.connection import ClientFeatures, ClientIdentity
    from acp_tui.config import McpServerSettings

__all__ = [
    "MAX_UPDATE_DEPTH",
    "OPTION_KEYS",
    "TOO_DEEP_TITLE",
    "V2Dialect",
    "V2Translator",
    "config_options",
    "nested_too_deeply",
    "too_deep_notice",
    "tool_call_patch",
    "translate_update",
]


def _chunk(update: v2.ContentChunk) -> list[ops.Op]:
    role = CHUNK_ROLES[update.session_update]
    return [ops.AppendMessageChunk(update.message_id, role, to_wire(update.content))]


def _whole(role: ops.MessageRole) -> Callable[[Any], list[ops.Op]]:
    def translate(
        update: v2.UserMessage | v2.AgentMessage | v2.AgentThought,
    ) -> list[ops.Op]:
        return [
            ops.UpsertMessage(
                update.message_id,
                role,
                content=patch(update, "content", json_list),
                meta=patch(update, "meta"),
            )
        ]

    return translate


def _tool_call(update: v2.SessionToolCallUpdate) -> list[ops.Op]:
    return [tool_call_patch(update)]


def _tool_call_content(update: v2.ToolCallContentChunk) -> list[ops.Op]:
    return [ops.AppendToolCallContent(update.tool_call_id, to_wire(update.content))]


def _plan(update: v2.PlanUpdate) -> list[ops.Op]:
    return plan_update_ops(to_wire(update.plan), to_wire(update))


def _plan_removed(update: v2.PlanRemoved) -> list[ops.Op]:
    return [ops.RemovePlan(update.plan_id)]


def _bad_base64(terminal_id: str, what: str) -> list[ops.Op]:
    """A notice for the log and the screen, and the error on the terminal itself."""
    return [
        ops.RecordNotice(
            "error",
            f"Terminal {terminal_id}: invalid base64 in {what}",
            "The agent sent terminal data that is not valid base64; it was skipped.",
        ),
        ops.RecordTerminalError(
            terminal_id, f"invalid base64 in {what}: it was skipped"
        ),
    ]


def _terminal(update: v2.TerminalUpdate) -> list[ops.Op]:
    result: list[ops.Op] = []
    output: Any = UNSET
    if "output" in update.model_fields_set:
        if update.output is None:
            output = None
        else:
            decoded = decode_base64(update.output.data)
            if decoded is None:
                result.extend(_bad_base64(update.terminal_id, "an output snapshot"))
            else:
                output = decoded
    result.insert(
        0,
        ops.PatchTerminal(
            update.terminal_id,
            command=patch(update, "command"),
            cwd=patch(update, "cwd"),
            output=output,
            exit_status=patch(update, "exit_status", json_object),
            meta=patch(update, "meta"),
            size=patch(update, "size", json_object),
            capabilities=patch(update, "capabilities", json_object),
        ),
    )
    return result


def _terminal_chunk(update: v2.TerminalOutputChunk) -> list[ops.Op]:
    decoded = decode_base64(update.data)
    if decoded is None:
        return _bad_chunk(update.terminal_id)
    return [ops.AppendTerminalOutput(update.terminal_id, decoded)]


def _bad_chunk(terminal_id: str) -> list[ops.Op]:
    return [
        ops.PatchTerminal(terminal_id),
        *_bad_base64(terminal_id, "an output chunk"),
    ]


def _state(update: Any) -> list[ops.Op]:
    raw = to_wire(update)
    stop_reason = getattr(update, "stop_reason", None)
    # Only an idle update has a (validated) `error`; on other states an `error` key
    # is an unknown extra of any JSON type, not an error object.
    error = getattr(update, "error", None)
    usage = getattr(update, "usage", None)
    return [
        *turn_usage(usage if isinstance(usage, Usage) else None),
        ops.SetState(
            str(update.state),
            stop_reason if isinstance(stop_reason, str) else None,
            json_object(error) if isinstance(error, BaseModel) else None,
            raw,
        ),
    ]


OPTION_KEYS: Final = OptionKeys(("configId",), ("groupId",))
"""How v2 spells a config option's id and a choice group's id."""


def config_options(options: Sequence[JSONObject]) -> list[ConfigOption]:
    """v2 config options (`configId`, groups by `groupId`), version-neutral."""
    return read_options(options, OPTION_KEYS)


def _config(update: v2.ConfigOptionUpdate) -> list[ops.Op]:
    return [ops.SetConfigOptions(config_options(json_list(update.config_options)))]


_HANDLERS: Final[dict[type, Callable[[Any], list[ops.Op]]]] = {
    v2.ContentChunk: _chunk,
    v2.UserMessage: _whole("user"),
    v2.AgentMessage: _whole("agent"),
    v2.AgentThought: _whole("thought"),
    v2.SessionToolCallUpdate: _tool_call,
    v2.ToolCallContentChunk: _tool_call_content,
    v2.PlanUpdate: _plan,
    v2.PlanRemoved: _plan_removed,
    v2.TerminalUpdate: _terminal,
    v2.TerminalOutputChunk: _terminal_chunk,
    v2.AvailableCommandsUpdate: commands_ops,
    v2.ConfigOptionUpdate: _config,
    v2.SessionInfoUpdate: session_info_ops,
    v2.UsageUpdate: usage_ops,
    v2.RunningStateUpdate: _state,
    v2.IdleStateUpdate: _state,
    v2.RequiresActionStateUpdate: _state,
    v2.UnknownStateUpdate: _state,
    v2.Notice: notice_ops,
    v2.CompactionUpdate: partial(compaction_ops, meta_merge=True),
    v2.CompactionSummaryChunk: compaction_chunk_ops,
    v2.SessionMessage: session_message_ops,
    v2.SessionMessageChunk: session_message_chunk_ops,
}


def translate_update(update: Any) -> list[ops.Op]:
    """The store ops for one v2 `SessionUpdate` (never raises for a valid model)."""
    if nested_too_deeply(update):
        return too_deep_notice(update)
    return _HANDLERS.get(type(update), unknown_update_ops)(update)


# -- the v2 dialect ---------------------------------------------------------------


class V2Translator:
    """A v2 session's translation: stateless, the updates carry their ids."""

    def translate(self, params: Any) -> list[ops.Op]:
        """The store ops for a `session/update`'s params."""
        fast = fast_chunk_ops(params, _bad_chunk)  # most of a stream: no models
        if fast is not None:
            return fast
        notification = v2.UpdateSessionNotification.model_validate(params)
        return translate_update(notification.update)

    def prepare(self) -> None:
        """Build the `session/update` model (10 ms), if not yet."""
        v2.UpdateSessionNotification.model_rebuild()

    def text_chunk(self, params: Any) -> TextChunk | None:
        """A plain text chunk's id, role and text (`v2_chunks.plain_text_chunk`)."""
        return plain_text_chunk(params)

    def new_lists(self, result: object) -> Lists:
        """The config options and commands of a `session/new` result."""
        assert isinstance(result, v2.NewSessionResponse)
        options = config_options(json_list(result.config_options))
        return options, json_list(result.available_commands)

    def resumed_lists(self, raw: Any, replay: bool) -> Lists:
        """The lists a `session/resume` response carries (an omitted one: None)."""
        result = v2.ResumeSessionResponse.model_validate(raw or {})
        options = commands = None
        if _carries_list(raw, "configOptions"):
            options = config_options(json_list(result.config_options))
        if _carries_list(raw, "availableCommands"):
            commands = json_list(result.available_commands)
        return options, commands

    def config_options(self, options: Sequence[JSONObject]) -> list[ConfigOption]:
        """The agent's options, neutral (v2 has no modes to add)."""
        return config_options(options)

    def end_message(self) -> None:
        """Nothing to do: v2 chunks name their message."""

    def user_prompt(self, blocks: Sequence[JSONObject]) -> list[ops.Op]:
        """Nothing: a v2 agent acknowledges the prompt with a user message."""
        return []

    def is_mode_option(self, config_id: str) -> bool:
        """Never: v2 modes are config options of the agent's own."""
        return False

    def mode_set(self, mode_id: str) -> list[ops.Op]:
        """Nothing (v2 has no `session/set_mode`)."""
        return []


def _carries_list(raw: Any, key: str) -> bool:
    """Whether a response object reports the list `key` (an array, maybe empty)."""
    return isinstance(raw, dict) and isinstance(raw.get(key), list)


class V2Dialect(AgentAsks, ResultReads, SteeringExtension):
    """ACP v2 (https://agentclientprotocol.com/protocol/v2/): see `dialect.Dialect`."""

    version: Final = 2
    turn_ends_with_response: Final = False
    serves_terminals: Final = False
    logout_method: Final = "auth/logout"
    turn_end: Final = "an idle state_update"
    replay_method: Final = "session/resume"
    batches: Final = True
    answer_note: Final = "no v1 support; v2 lets an agent answer its latest version"
    ELICITATION_REQUEST = v2.CreateElicitationRequest
    ELICITATION_RESPONSE = v2.CreateElicitationResponse
    NEW_SESSION_RESPONSE = v2.NewSessionResponse
    LIST_SESSIONS_RESPONSE = v2.ListSessionsResponse
    SET_CONFIG_OPTION_RESPONSE = v2.SetSessionConfigOptionResponse

    def __init__(self, result: v2.InitializeResponse) -> None:
        self.result = result

    @staticmethod
    def initialize_params(
        identity: ClientIdentity, features: ClientFeatures
    ) -> dict[str, Any]:
        """The v2 `initialize` params, carrying the v1 fields too.

        `clientInfo` and `clientCapabilities` are extra keys (the v2 schema allows
        them), so a v1-only agent reads its capabilities from the same message.
        They are plain JSON, not built with the v1 models: a v2 offer must not
        load them (see acp_tui.protocol.schema). A test checks that they are what
        the v1 models give and validate as v1. v1 capabilities always include
        `session.configOptions.boolean` (see `client.v1`).
        """
        request = v2.InitializeRequest(
            protocol_version=2,
            info=v2.Implementation(
                name=identity.name, title=identity.title, version=identity.version
            ),
            capabilities=v2.ClientCapabilities(),
        )
        if features.terminal_auth:
            request.capabilities.auth = v2.AuthCapabilities(
                terminal=v2.TerminalAuthCapabilities()
            )
        elicitation = elicitation_capabilities(
            features.elicitation_form, features.elicitation_url
        )
        if elicitation is not None:
            request.capabilities.elicitation = (
                v2.ElicitationCapabilities.model_validate(elicitation)
            )
        params = to_wire(request)
        params["clientInfo"] = dict(params["info"])  # v1 Implementation: same fields
        v1_capabilities: dict[str, Any] = {
            "fs": {
                "readTextFile": features.read_text_file,
                "writeTextFile": features.write_text_file,
            },
            "terminal": features.terminal,
            "session": {
                "configOptions": {"boolean": {}},
                **{name: {} for name in REPORT_OPT_INS},
            },
            "subagents": {},
            "plan": {},
        }
        if features.terminal_auth:
            v1_capabilities["auth"] = {"terminal": True}
        if elicitation is not None:
            v1_capabilities["elicitation"] = elicitation
        params["clientCapabilities"] = v1_capabilities
        return params

    @staticmethod
    def parse_initialize(raw: Any) -> v2.InitializeResponse:
        """The agent's v2 `initialize` result."""
        return v2.InitializeResponse.model_validate(raw)

    # -------------------------------------------------------------- capabilities

    @property
    def agent(self) -> AgentIdentity:
        """The agent's `info` (named `agent` if it gave none)."""
        return agent_identity(self.result.info)

    @property
    def agent_name(self) -> str | None:
        """The name the agent reported in `initialize` (None: it gave none)."""
        return None if self.result.info is None else self.result.info.name

    def _session_caps(self) -> v2.SessionCapabilities | None:
        return self.result.capabilities.session

    def session_features(self) -> SessionFeatures:
        """v2: the session baseline (list, resume, close) if it has sessions."""
        caps = self._session_caps()
        if caps is None:
            return SessionFeatures()
        return SessionFeatures(
            list=True,
            replay=True,
            resume=True,
            delete=caps.delete is not None,
            additional_directories=caps.additional_directories is not None,
            close=True,
            **unstable_session_features(caps),
        )

    def prompt_capabilities(self) -> PromptCapabilities:
        """`capabilities.session.prompt` (an absent or null entry: unsupported)."""
        session = self._session_caps()
        caps = session.prompt if session is not None else None
        if caps is None:
            return PromptCapabilities()
        return PromptCapabilities(
            image=caps.image is not None,
            audio=caps.audio is not None,
            embedded_context=caps.embedded_context is not None,
        )

    def auth_choices(self) -> list[AuthChoice]:
        """The agent's `authMethods`, in order."""
        return [_auth_choice(method) for method in self.result.auth_methods]

    def login(self, method_id: str) -> tuple[str, JSONObject]:
        """`auth/login {methodId}`, only if the agent lists auth methods."""
        self._require_auth()
        return "auth/login", {"methodId": method_id}

    def _require_auth(self) -> None:
        # No (or empty) authMethods: auth/login and auth/logout MUST NOT be called.
        if not self.result.auth_methods:
            raise UnsupportedOperation("the agent offers no authentication methods")

    def can_logout(self) -> bool:
        """Whether the agent lists authentication methods."""
        return bool(self.result.auth_methods)

    def has_auth_status(self) -> bool:
        """`capabilities.auth.status` (unstable)."""
        auth = self.result.capabilities.auth
        return auth is not None and auth.status is not None

    def prompt_response_ops(self, raw: Any) -> list[ops.Op]:
        """Never called: a v2 turn ends (with its usage) on an idle update."""
        raise AssertionError("a v2 turn ends with an idle state_update")

    def missing_capability(self, what: SessionMethod) -> str | None:
        """`capabilities.session` (and its `delete`); the rest is the baseline."""
        session = self._session_caps()
        if what == "sessions" and session is None:
            return "capabilities.session"
        if what == "delete" and (session is None or session.delete is None):
            return "capabilities.session.delete"
        return None

    def mcp_servers(self, servers: Mapping[str, McpServerSettings]) -> list[JSONObject]:
        """Stdio and http servers, where `session.mcp` has them (no sse in v2)."""
        session = self._session_caps()
        mcp = session.mcp if session is not None else None
        entries: list[JSONObject] = []
        for name, server in servers.items():
            if server.type == "sse":
                continue  # not in v2
            if server.type == "stdio" and not (mcp and mcp.stdio is not None):
                continue
            if server.type == "http" and not (mcp and mcp.http is not None):
                continue
            entries.append(mcp_entry(name, server, typed_stdio=True))
        return entries

    # ------------------------------------------------------------------ sessions

    def translator(self, store: SessionStore) -> V2Translator:
        """v2 translation needs no per-session state."""
        return V2Translator()

    def check_list(self) -> None:
        """Every v2 agent with sessions lists them."""
        if self._session_caps() is None:
            raise UnsupportedOperation("the agent does not support sessions")

    def resume_request(self, replay: bool) -> tuple[str, JSONObject]:
        """`session/resume`, with `replayFrom: {"type": "start"}` to replay."""
        return "session/resume", {"replayFrom": {"type": "start"}} if replay else {}

    def config_value_type(self, value: Any) -> str | None:
        """`boolean` or `id`."""
        return "boolean" if isinstance(value, bool) else "id"

    def cancel_one(
        self,
        kind: str,
        session_id: str,
        entity_id: str,
        capabilities: JSONObject | None,
    ) -> tuple[str, JSONObject] | None:
        """[Δ2.4] `tool_call/cancel` / `terminal/cancel`, while advertised.

        That is, while `capabilities.cancel` is an object (a malformed one was
        dropped when the update was read).
        """
        if capabilities is None or not isinstance(capabilities.get("cancel"), Mapping):
            return None
        if kind == "tool_call":
            return "tool_call/cancel", {
                "sessionId": session_id,
                "toolCallId": entity_id,
            }
        if kind == "terminal":
            return "terminal/cancel", {"sessionId": session_id, "terminalId": entity_id}
        return None

    def check_set_mode(self) -> None:
        """v2 has no `session/set_mode`."""
        raise UnsupportedOperation("modes are config options in ACP v2")

    def stop_reason(self, raw: Any) -> str | None:
        """Never called: a v2 `session/prompt` response only means accepted."""
        raise AssertionError("a v2 turn ends with an idle state_update")

    # ------------------------------------------------------------ agent requests

    def permission(
        self, params: Any, store_for: Callable[[str], SessionStore]
    ) -> PermissionAsk:
        """A v2 permission request; a tool-call subject is applied first."""
        request = v2.RequestPermissionRequest.model_validate(params)
        store = store_for(request.session_id)
        subject = to_wire(request.subject) if request.subject is not None else None
        tool_call_id = None
        if isinstance(request.subject, v2.ToolCallPermissionSubject):
            store.apply(tool_call_patch(request.subject.tool_call))
            tool_call_id = request.subject.tool_call.tool_call_id
        elif isinstance(request.subject, v2.CommandPermissionSubject):
            tool_call_id = request.subject.tool_call_id
        return permission_ask(
            request.session_id,
            request.title,
            request.description,
            subject,
            request.options,
            tool_call_id,
            request.meta,
        )

    def elicitation_completed(self, params: Any) -> str:
        """The `elicitationId` of a v2 `elicitation/complete`."""
        return v2.CompleteElicitationNotification.model_validate(params).elicitation_id

    async def serve(self, method: str, params: Any, services: ClientServices) -> Any:
        """v2 clients serve no `fs/*` or `terminal/*`: agents own them."""
        raise RpcError(METHOD_NOT_FOUND, "Method not found", method)


def _auth_choice(
    method: v2.AuthMethodAgent | v2.AuthMethodTerminal | v2.UnknownAuthMethod,
) -> AuthChoice:
    choice = AuthChoice(
        method_id=method.method_id,
        name=method.name,
        description=method.description,
        kind="agent",
        wire_type=method.type,
    )
    if isinstance(method, v2.AuthMethodTerminal):
        env = {variable.name: variable.value for variable in method.env}
        return replace(
            choice,
            kind="terminal",
            args=tuple(method.args),
            env=MappingProxyType(env),
        )
    if isinstance(method, v2.UnknownAuthMethod):
        return replace(choice, kind="other")
    return choice
