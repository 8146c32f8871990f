"""The ACP v1 dialect (`V1Dialect`), and v1 `session/update` → the store's ops.

`V1Dialect` implements `client.dialect.Dialect` for v1: initialize, the session
methods' params and results, permissions, auth, prompt capabilities, the turn-end
rule (the `session/prompt` response) and the v1-only client services (`fs/*`,
`terminal/*`). With `protocol.schema.v1`, the only module that knows v1 shapes;
it never imports `client.v2` (shared helpers: `client._wire`).

https://agentclientprotocol.com/protocol/prompt-turn. v1 differs from v2 in ways
this module absorbs, so that nothing above the client layer knows the version:

* Chunks may lack a `messageId`. Then each chunk joins the current message of its
  role, and a new message (with a synthesised id, `v1-<role>-<n>`) starts whenever
  the role changes, or after a tool call or plan update (so text written after a
  tool call is shown after it). The spec leaves this to the client.
* `tool_call` creates (or fully re-states) a tool call: fields it omits take their
  defaults. `tool_call_update` patches only what it carries; v1 does not define
  `null`, which is treated as "clear" (but a `null` tool `name` is as if omitted,
  as the tool-call-name RFD says for v1).
* `plan` is the session's single plan, kept under the synthetic id `"main"`.
  With the (unstable) `plan` capability, which acp-tui advertises, an agent may
  send plans by id instead (`plan_update`: items, markdown, file) and remove them
  (`plan_removed`), as in v2.
* Modes: a `modes` state from session setup becomes a `select` config option with
  category `mode` (unless the agent already offers a `select` of that category),
  and `current_mode_update` moves that option's `currentValue`. Only a `select`
  holds a mode id: a `boolean` (or unknown type) option of category `mode` is left
  alone.
* The end of a turn is the `session/prompt` response (see the session layer); v1
  has no `state_update`.
* An update nested more than `_wire.MAX_UPDATE_DEPTH` levels deep is
  skipped with a visible notice, as in v2.
* `notice` and the compaction updates (the client opts in: `REPORT_OPT_INS` in
  `clientCapabilities.session`) map as in v2 (`client._wire_reports`); text
  after one starts a new message, so it is shown after it.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from acp_tui.client._wire import (
    CHUNK_ROLES,
    AgentAsks,
    ResultReads,
    SteeringExtension,
    agent_identity,
    commands_ops,
    elicitation_capabilities,
    json_list,
    json_object,
    log_defaulted,
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
    compaction_chunk_ops,
    compaction_ops,
    notice_ops,
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
from acp_tui.client.v1_chunks import fast_text_chunk
from acp_tui.protocol.jsonrpc import METHOD_NOT_FOUND, RpcError
from acp_tui.protocol.schema import v1
from acp_tui.protocol.schema._base import to_wire
from acp_tui.store import ops
from acp_tui.store.config import ConfigOption, OptionKeys, read_option, read_options
from acp_tui.store.store import SessionStore
from acp_tui.store.values import UNSET, JSONObject

if TYPE_CHECKING:
    from acp_tui.client.connection import ClientFeatures, ClientIdentity
    from acp_tui.config import McpServerSettings

__all__ = [
    "MAIN_PLAN_ID",
    "MODE_OPTION_ID",
    "OPTION_KEYS",
    "TERMINAL_METHODS",
    "V1Dialect",
    "V1Translator",
    "mode_option",
    "tool_call_patch",
    "with_modes",
]

log = logging.getLogger(__name__)


def v1_tool_call_patch(update: v1.ToolCallUpdate) -> ops.PatchToolCall:
    """`tool_call_patch`, but a `null` name is as if omitted (v1 cannot clear it)."""
    change = tool_call_patch(update)
    return change if change.name is not None else replace(change, name=UNSET)


MAIN_PLAN_ID: Final = "main"
"""The id of v1's one plan per session, as bridged into the store."""

MODE_OPTION_ID: Final = "mode"
"""The id of the config option synthesised from v1 `modes`."""


OPTION_KEYS: Final = OptionKeys(("id",), ("group",))
"""How v1 spells a config option's id and a choice group's id."""


def mode_option(modes: v1.SessionModeState) -> JSONObject:
    """A v1 `modes` state as a v1-shaped `select` config option (category `mode`)."""
    options = []
    for mode in modes.available_modes:
        option: dict[str, Any] = {"value": mode.id, "name": mode.name}
        if mode.description is not None:
            option["description"] = mode.description
        options.append(option)
    return {
        "id": MODE_OPTION_ID,
        "name": "Mode",
        "category": "mode",
        "type": "select",
        "currentValue": modes.current_mode_id,
        "options": options,
    }


def with_modes(
    options: Sequence[JSONObject], modes: v1.SessionModeState | None
) -> list[JSONObject]:
    """The config options to store for a v1 session.

    The agent's own options, plus a mode option synthesised from `modes` when the
    agent offers no `select` of category `mode`.
    """
    result = list(options)
    if modes is not None and not any(_is_mode_select(o) for o in result):
        result.append(mode_option(modes))
    return result


def _is_mode_select(option: JSONObject) -> bool:
    """Whether `option` is a `select` of category `mode` (one that holds a mode)."""
    return option.get("category") == "mode" and option.get("type") == "select"


@functools.cache
def _segment_breaks() -> frozenset[type]:
    """Updates after which an id-less chunk starts a new message.

    A function, not a module constant: the v1 models load on first use
    (`acp_tui.protocol.schema`), and importing this module must not use them.
    """
    return frozenset(
        {
            v1.ToolCall,
            v1.SessionToolCallUpdate,
            v1.Plan,
            v1.Notice,
            v1.CompactionUpdate,
            v1.CompactionSummaryChunk,
        }
    )


class V1Translator:
    """Stateful v1 → store translation for one session."""

    def __init__(self, store: SessionStore) -> None:
        self._store = store
        self.modes: v1.SessionModeState | None = None
        """The session's v1 modes (from session setup), if the agent has them."""
        self.mode_synthesised = False
        """Whether the stored mode option was synthesised from `modes` (it is then
        set with `session/set_mode`, not `session/set_config_option`)."""
        self._role: ops.MessageRole | None = None
        self._message_id: str | None = None
        self._count = 0
        self._handlers: dict[type, Callable[[Any], list[ops.Op]]] = {
            v1.UserMessageChunk: self._chunk,
            v1.AgentMessageChunk: self._chunk,
            v1.AgentThoughtChunk: self._chunk,
            v1.ToolCall: self._tool_call,
            v1.SessionToolCallUpdate: self._tool_call_update,
            v1.Plan: self._plan,
            v1.PlanUpdate: self._plan_update,
            v1.PlanRemoved: self._plan_removed,
            v1.AvailableCommandsUpdate: commands_ops,
            v1.CurrentModeUpdate: self._mode,
            v1.ConfigOptionUpdate: self._config,
            v1.SessionInfoUpdate: session_info_ops,
            v1.UsageUpdate: usage_ops,
            v1.Notice: notice_ops,
            v1.CompactionUpdate: compaction_ops,
            v1.CompactionSummaryChunk: compaction_chunk_ops,
        }

    def translate_update(self, update: Any) -> list[ops.Op]:
        """The store ops for one v1 `SessionUpdate`."""
        if nested_too_deeply(update):
            return too_deep_notice(update)
        handler = self._handlers.get(type(update))
        if handler is None:
            return unknown_update_ops(update)
        if type(update) in _segment_breaks():
            # Text after a tool call or plan starts a new message, so it is shown
            # after it (an id-less chunk would otherwise join a message above it).
            self.end_message()
        return handler(update)

    def new_message_id(self, role: ops.MessageRole) -> str:
        """Start a new message of `role` (a synthesised id) and return its id."""
        self._count += 1
        self._role = role
        self._message_id = f"v1-{role}-{self._count}"
        return self._message_id

    def end_message(self) -> None:
        """The next chunk starts a new message, whatever its role (turn boundary)."""
        self._role = None
        self._message_id = None

    def _chunk(self, update: v1.ContentChunk) -> list[ops.Op]:
        role = CHUNK_ROLES[update.session_update]  # type: ignore[attr-defined]
        return self._chunk_ops(role, update.message_id, to_wire(update.content))

    def _chunk_ops(
        self, role: ops.MessageRole, message_id: str | None, block: JSONObject
    ) -> list[ops.Op]:
        if message_id is not None:
            self._role, self._message_id = role, message_id
            return [ops.AppendMessageChunk(message_id, role, block)]
        if role != self._role or self._message_id is None:
            self.new_message_id(role)
        assert self._message_id is not None
        return [ops.AppendMessageChunk(self._message_id, role, block)]

    def _tool_call(self, update: v1.ToolCall) -> list[ops.Op]:
        def full(name: str) -> Any:
            value = patch(update, name)
            return None if value is UNSET else value  # omitted → default

        return [
            ops.PatchToolCall(
                update.tool_call_id,
                title=update.title,
                kind=full("kind"),
                status=full("status"),
                content=json_list(update.content),
                locations=json_list(update.locations),
                raw_input=full("raw_input"),
                raw_output=full("raw_output"),
                meta=full("meta"),
                name=update.name if update.name is not None else UNSET,
            )
        ]

    def _tool_call_update(self, update: v1.ToolCallUpdate) -> list[ops.Op]:
        return [v1_tool_call_patch(update)]

    def _plan_update(self, update: v1.PlanUpdate) -> list[ops.Op]:
        return plan_update_ops(json_object(update.plan), to_wire(update))

    def _plan_removed(self, update: v1.PlanRemoved) -> list[ops.Op]:
        return [ops.RemovePlan(update.plan_id)]

    def _plan(self, update: v1.Plan) -> list[ops.Op]:
        entries = json_list(update.entries)
        raw: dict[str, Any] = {"type": "items", "planId": MAIN_PLAN_ID}
        raw["entries"] = entries
        if update.meta is not None:  # v1's plan update is the plan: its `_meta`
            raw["_meta"] = update.meta
        return [ops.ReplacePlan(MAIN_PLAN_ID, "items", entries, raw)]

    def config_options(self, options: Sequence[JSONObject]) -> list[ConfigOption]:
        """The config options to store for this session, version-neutral.

        The agent's options, plus the mode option synthesised from `modes` (kept
        across list replacements while the agent offers no mode option of its own).
        """
        result = with_modes(options, self.modes)
        self.mode_synthesised = len(result) > len(options)
        return read_options(result, OPTION_KEYS)

    def _config(self, update: v1.ConfigOptionUpdate) -> list[ops.Op]:
        return [
            ops.SetConfigOptions(self.config_options(json_list(update.config_options)))
        ]

    def _mode(self, update: v1.CurrentModeUpdate) -> list[ops.Op]:
        if self.modes is not None:
            self.modes = self.modes.model_copy(
                update={"current_mode_id": update.current_mode_id}
            )
        options = list(self._store.settings)
        for index, option in enumerate(options):
            if _is_mode_select(option.raw):
                moved = {**option.raw, "currentValue": update.current_mode_id}
                options[index] = read_option(moved, OPTION_KEYS)
                return [ops.SetConfigOptions(options)]
        return [ops.RecordUnknownUpdate(to_wire(update))]  # no mode option known

    # -- the dialect's per-session side (`dialect.SessionTranslator`) ------------

    def translate(self, params: Any) -> list[ops.Op]:
        """The store ops for a `session/update`'s params."""
        fast = fast_text_chunk(params)  # most of a stream: no models
        if fast is not None:
            return self._chunk_ops(*fast)
        notification = v1.SessionNotification.model_validate(params)
        return self.translate_update(notification.update)

    def prepare(self) -> None:
        """Build the `session/update` model (7 ms), if not yet."""
        v1.SessionNotification.model_rebuild()

    def text_chunk(self, params: Any) -> TextChunk | None:
        """None: a v1 chunk's message is the translator's to decide (`translate`)."""
        return None

    def new_lists(self, result: object) -> Lists:
        """A `session/new` result's options (with its modes), and no commands."""
        assert isinstance(result, v1.NewSessionResponse)
        self.modes = result.modes
        return self.config_options(json_list(result.config_options or [])), []

    def resumed_lists(self, raw: Any, replay: bool) -> Lists:
        """The options a `session/load` or `session/resume` response reports.

        The modes come with the response, after the replay: options the replay
        stored stay (unless the response lists its own), and get the mode option
        the replay could not synthesise yet.
        """
        model = v1.LoadSessionResponse if replay else v1.ResumeSessionResponse
        result = model.model_validate(raw)
        self.modes = result.modes
        if result.config_options is not None:
            return self.config_options(json_list(result.config_options)), None
        if result.modes is not None:
            replayed = [dict(o) for o in self._store.config_options]
            return self.config_options(replayed), None
        return None, None

    def user_prompt(self, blocks: Sequence[JSONObject]) -> list[ops.Op]:
        """The sent prompt as a user message of its own (v1 agents do not echo it)."""
        self.end_message()
        message_id = self.new_message_id("user")
        self.end_message()
        return [ops.UpsertMessage(message_id, "user", content=list(blocks))]

    def is_mode_option(self, config_id: str) -> bool:
        """Whether `config_id` is the mode option synthesised from `modes`."""
        return self.mode_synthesised and config_id == MODE_OPTION_ID

    def mode_set(self, mode_id: str) -> list[ops.Op]:
        """The synthesised mode option moved to `mode_id`."""
        return self.translate_update(v1.CurrentModeUpdate(current_mode_id=mode_id))


# -- the v1 dialect ---------------------------------------------------------------


class _V1Model:
    """A v1 wire model named in a class body, looked up in `v1` on first use."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, instance: object, owner: type | None = None) -> type[Any]:
        model: type[Any] = getattr(v1, self.name)
        return model


class V1Dialect(AgentAsks, ResultReads, SteeringExtension):
    """ACP v1 (https://agentclientprotocol.com/protocol/): see `dialect.Dialect`."""

    version: Final = 1
    turn_ends_with_response: Final = True
    serves_terminals: Final = True
    logout_method: Final = "logout"
    turn_end: Final = "the session/prompt response"
    replay_method: Final = "session/load"
    batches: Final = False
    answer_note: Final = "a v1-only agent"
    # Looked up when first used: the v1 models load lazily (protocol/schema), and
    # a v2 session never builds them (tests/unit/protocol/test_schema_lazy.py).
    ELICITATION_REQUEST = _V1Model("CreateElicitationRequest")
    ELICITATION_RESPONSE = _V1Model("CreateElicitationResponse")
    NEW_SESSION_RESPONSE = _V1Model("NewSessionResponse")
    LIST_SESSIONS_RESPONSE = _V1Model("ListSessionsResponse")
    SET_CONFIG_OPTION_RESPONSE = _V1Model("SetSessionConfigOptionResponse")

    def __init__(self, result: v1.InitializeResponse) -> None:
        self.result = result

    @staticmethod
    def initialize_params(
        identity: ClientIdentity, features: ClientFeatures
    ) -> dict[str, Any]:
        """The v1 `initialize` params.

        The capabilities always include `session.configOptions.boolean`: without
        it a v1 agent must not send the boolean options that acp-tui shows and
        sets (v2 has them without a marker).
        """
        capabilities = v1.ClientCapabilities(
            fs=v1.FileSystemCapabilities(
                read_text_file=features.read_text_file,
                write_text_file=features.write_text_file,
            ),
            terminal=features.terminal,
            session=v1.ClientSessionCapabilities(
                config_options=v1.SessionConfigOptionsCapabilities(
                    boolean=v1.BooleanConfigOptionCapabilities()
                ),
                notices=v1.NoticeCapabilities(),
                compaction=v1.CompactionCapabilities(),
            ),
            plan=v1.PlanCapabilities(),
        )
        if features.terminal_auth:
            capabilities.auth = v1.AuthCapabilities(terminal=True)
        elicitation = elicitation_capabilities(
            features.elicitation_form, features.elicitation_url
        )
        if elicitation is not None:
            capabilities.elicitation = v1.ElicitationCapabilities.model_validate(
                elicitation
            )
        params = to_wire(
            v1.InitializeRequest(
                protocol_version=1,
                client_capabilities=capabilities,
                client_info=v1.Implementation(
                    name=identity.name, title=identity.title, version=identity.version
                ),
            )
        )
        # The subagents RFD's v1 opt-in (TS SDK 2.4's unstable v1 schema): child
        # sessions as `subagent_update` and their own updates (`client.subagents`).
        params["clientCapabilities"]["subagents"] = {}
        return params

    @staticmethod
    def parse_initialize(raw: Any) -> v1.InitializeResponse:
        """The agent's v1 `initialize` result."""
        return v1.InitializeResponse.model_validate(raw)

    # -------------------------------------------------------------- capabilities

    @property
    def agent(self) -> AgentIdentity:
        """The agent's `agentInfo` (named `agent` if it gave none)."""
        return agent_identity(self.result.agent_info)

    @property
    def agent_name(self) -> str | None:
        """The name the agent reported in `initialize` (None: it gave none)."""
        info = self.result.agent_info
        return None if info is None else info.name

    @property
    def _caps(self) -> v1.AgentCapabilities:
        return self.result.agent_capabilities

    def session_features(self) -> SessionFeatures:
        """`loadSession` and the `sessionCapabilities` markers."""
        sessions = self._caps.session_capabilities
        return SessionFeatures(
            list=sessions.list is not None,
            replay=self._caps.load_session,
            resume=sessions.resume is not None,
            delete=sessions.delete is not None,
            additional_directories=sessions.additional_directories is not None,
            close=sessions.close is not None,
            **unstable_session_features(sessions),
        )

    def prompt_capabilities(self) -> PromptCapabilities:
        """`agentCapabilities.promptCapabilities`."""
        caps = self._caps.prompt_capabilities
        return PromptCapabilities(
            image=caps.image, audio=caps.audio, embedded_context=caps.embedded_context
        )

    def auth_choices(self) -> list[AuthChoice]:
        """The agent's `authMethods`, in order."""
        return [_auth_choice(method) for method in self.result.auth_methods]

    def login(self, method_id: str) -> tuple[str, JSONObject]:
        """`authenticate {methodId}`."""
        return "authenticate", {"methodId": method_id}

    def can_logout(self) -> bool:
        """`agentCapabilities.auth.logout`."""
        auth = self._caps.auth
        return auth is not None and auth.logout is not None

    def has_auth_status(self) -> bool:
        """`agentCapabilities.auth.status` (unstable)."""
        auth = self._caps.auth
        return auth is not None and auth.status is not None

    def prompt_response_ops(self, raw: Any) -> list[ops.Op]:
        """The turn's `usage` (unstable end-turn usage), if any, then idle."""
        response = v1.PromptResponse.model_validate(raw)
        idle = ops.SetState("idle", response.stop_reason, raw=raw)
        return [*turn_usage(response.usage), idle]

    def missing_capability(self, what: SessionMethod) -> str | None:
        """`loadSession` for a replay, else the `sessionCapabilities` marker."""
        if what == "sessions":
            return None
        caps = self._caps
        if what == "replay":
            return None if caps.load_session else "agentCapabilities.loadSession"
        sessions = caps.session_capabilities
        marker = getattr(sessions, what, None) if sessions is not None else None
        if marker is None:
            return f"agentCapabilities.sessionCapabilities.{what}"
        return None

    def mcp_servers(self, servers: Mapping[str, McpServerSettings]) -> list[JSONObject]:
        """Stdio servers, and http/sse ones where `mcpCapabilities` has them."""
        caps = self._caps.mcp_capabilities
        entries: list[JSONObject] = []
        for name, server in servers.items():
            if server.type == "http" and not (caps and caps.http):
                continue
            if server.type == "sse" and not (caps and caps.sse):
                continue
            entries.append(mcp_entry(name, server, typed_stdio=False))
        return entries

    # ------------------------------------------------------------------ sessions

    def translator(self, store: SessionStore) -> V1Translator:
        """A session's stateful v1 translation."""
        return V1Translator(store)

    def check_list(self) -> None:
        """`sessionCapabilities.list`."""
        caps = self._caps.session_capabilities
        if caps is None or caps.list is None:
            raise UnsupportedOperation("the agent does not list sessions")

    def resume_request(self, replay: bool) -> tuple[str, JSONObject]:
        """`session/load` (replays; `loadSession`) or `session/resume` (no replay)."""
        if replay:
            if not self._caps.load_session:
                raise UnsupportedOperation("the agent cannot load sessions")
            return "session/load", {}
        if self._caps.session_capabilities.resume is None:
            raise UnsupportedOperation("the agent cannot resume sessions")
        return "session/resume", {}

    def config_value_type(self, value: Any) -> str | None:
        """`boolean`; a select's value goes untyped."""
        return "boolean" if isinstance(value, bool) else None

    def cancel_one(
        self,
        kind: str,
        session_id: str,
        entity_id: str,
        capabilities: JSONObject | None,
    ) -> tuple[str, JSONObject] | None:
        """v1 cannot cancel one tool call or terminal alone."""
        return None

    def check_set_mode(self) -> None:
        """v1 has `session/set_mode`."""

    def stop_reason(self, raw: Any) -> str | None:
        """The `stopReason` of the `session/prompt` response (it ends the turn)."""
        return v1.PromptResponse.model_validate(raw).stop_reason

    # ------------------------------------------------------------ agent requests

    def permission(
        self, params: Any, store_for: Callable[[str], SessionStore]
    ) -> PermissionAsk:
        """A v1 permission request: its tool call is applied, and titles it."""
        request = v1.RequestPermissionRequest.model_validate(params)
        store = store_for(request.session_id)
        store.apply(v1_tool_call_patch(request.tool_call))
        tool_call = store.tool_call(request.tool_call.tool_call_id)
        return permission_ask(
            request.session_id,
            tool_call.title if tool_call is not None else None,
            None,
            {"type": "tool_call", "toolCall": to_wire(request.tool_call)},
            request.options,
            request.tool_call.tool_call_id,
            request.meta,
        )

    def elicitation_completed(self, params: Any) -> str:
        """The `elicitationId` of a v1 `elicitation/complete`."""
        return v1.CompleteElicitationNotification.model_validate(params).elicitation_id

    async def serve(self, method: str, params: Any, services: ClientServices) -> Any:
        """`fs/read_text_file`, `fs/write_text_file` and `terminal/*`, if enabled."""
        features = services.features
        if method == "fs/read_text_file":
            if not features.read_text_file:
                raise RpcError(METHOD_NOT_FOUND, "Method not found", method)
            read = v1.ReadTextFileRequest.model_validate(params)
            log_defaulted(log, method, params, read)
            roots = services.fs_access(read.session_id)
            content = await roots.read_text_file(read.path, read.line, read.limit)
            return {"content": content}
        if method == "fs/write_text_file":
            if not features.write_text_file:
                raise RpcError(METHOD_NOT_FOUND, "Method not found", method)
            write = v1.WriteTextFileRequest.model_validate(params)
            # Shown in the conversation: it names no tool call (`file_writes`).
            writes = services.file_writes(write.session_id)
            await writes.write(write.path, write.content, allow_git=features.git_writes)
            return {}
        if method in TERMINAL_METHODS:
            if not features.terminal:
                raise RpcError(METHOD_NOT_FOUND, "Method not found", method)
            return await _terminal_request(method, params, services)
        raise RpcError(METHOD_NOT_FOUND, "Method not found", method)


TERMINAL_METHODS: Final = frozenset(
    {
        "terminal/create",
        "terminal/output",
        "terminal/wait_for_exit",
        "terminal/kill",
        "terminal/release",
    }
)
"""The v1 client-owned terminal methods (served when `features.terminal` is on)."""


async def _terminal_request(
    method: str, params: Any, services: ClientServices
) -> JSONObject:
    """Serve one v1 `terminal/*` request.

    https://agentclientprotocol.com/protocol/terminals
    """
    if method == "terminal/create":
        create = v1.CreateTerminalRequest.model_validate(params)
        log_defaulted(log, method, params, create)
        terminals = services.client_terminals(create.session_id)
        terminal_id = await terminals.create(
            create.command,
            create.args,
            {variable.name: variable.value for variable in create.env},
            create.cwd,
            create.output_byte_limit,
        )
        return {"terminalId": terminal_id}
    if method == "terminal/output":
        output = v1.TerminalOutputRequest.model_validate(params)
        terminals = services.client_terminals(output.session_id)
        return terminals.output(output.terminal_id).to_json()
    if method == "terminal/wait_for_exit":
        wait = v1.WaitForTerminalExitRequest.model_validate(params)
        terminals = services.client_terminals(wait.session_id)
        status = await terminals.wait_for_exit(wait.terminal_id)
        return status.to_json()
    if method == "terminal/kill":
        kill = v1.KillTerminalRequest.model_validate(params)
        await services.client_terminals(kill.session_id).kill(kill.terminal_id)
        return {}
    release = v1.ReleaseTerminalRequest.model_validate(params)
    await services.client_terminals(release.session_id).release(release.terminal_id)
    return {}


def _auth_choice(method: v1.AuthMethodAgent | v1.AuthMethodTerminal) -> AuthChoice:
    if isinstance(method, v1.AuthMethodTerminal):
        return AuthChoice(
            method_id=method.id,
            name=method.name,
            description=method.description,
            kind="terminal",
            wire_type="terminal",
            args=tuple(method.args),
            env=MappingProxyType(dict(method.env)),
        )
    # The v1 schema reads any method that is not `terminal` as agent-handled, and
    # keeps a stray `type` as an extra key. Only an untyped or `agent` one is used
    # to log in; other types are shown but not sent.
    extra = method.model_extra or {}
    wire_type = extra.get("type")
    known = wire_type is None or wire_type == "agent"
    return AuthChoice(
        method_id=method.id,
        name=method.name,
        description=method.description,
        kind="agent" if known else "other",
        wire_type="agent" if known else str(wire_type),
    )
