"""The ACP v1 face of the demo: neutral events → v1 wire messages.

Built from the project's v1 wire models (`acp_tui.protocol.schema.v1`) and dumped
with `to_wire`; the tests validate every message against the v1 JSON schema.

Mapping (live), and what v1 cannot say:

* The user's prompt is not echoed (the v1 client shows what it sent); agent text
  and thoughts → `agent_message_chunk` / `agent_thought_chunk`, always with a
  `messageId` (optional in v1, but it keeps replayed messages identical).
* Tool calls: the first event → `tool_call` (create), later ones →
  `tool_call_update`. v1 has no content chunks: an appended item resends the whole
  content. Status `cancelled` does not exist in v1: it is sent as `failed`.
* Diffs: `{type: diff, path, oldText, newText}` per text file; a move adds a note,
  a binary change is described in text (v1 has no way to show it).
* Commands: with `clientCapabilities.terminal`, the client runs them
  (`terminal/create`, `terminal/wait_for_exit`, `terminal/output`, then
  `terminal/release`; `terminal/kill` when the turn is cancelled) and the tool call
  embeds `{type: terminal, terminalId}`. Those requests are shielded from the
  turn's cancellation, never from the connection's end (`connection_lost`): a
  client that went away answers nothing, so they are abandoned at once. Without
  `terminal`, the demo runs commands itself and embeds the output as text,
  re-sent as it grows.
* Plans: v1 has one plan per session. The entries of the plans of the same turn
  (`Plan.group`) are merged into it; plan status `cancelled` is sent as `pending`.
  A markdown plan has no entries (v1 cannot show it); a removed plan's entries
  leave the merged plan. A tool call's `name` is sent (TS SDK 2.4's v1 schema);
  its `capabilities` (cancel it alone) are not: v1 has no `tool_call/cancel`.
* Modes: the mode option also goes out through the modes API (`modes` in the
  session responses, `current_mode_update` when the agent switches).
* Unknown update types are dropped: the v1 `SessionUpdate` union is closed.

Replay (`session/load`): user, agent and thought chunks with their message ids,
one `tool_call` per tool call with its final state (a terminal's output as text:
client terminals do not outlive their connection), the merged plan of the last
turn where the first plan appeared, then session info and usage.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, ClassVar, Final

import anyio
import anyio.lowlevel
from pydantic import BaseModel, ValidationError

from acp_tui.demo.config import MODES, Config, OptionSpec, options
from acp_tui.demo.emit_common import (
    Emitter,
    ask_permission,
    available_commands,
    config_select,
    permission_options,
    plain_text,
)
from acp_tui.demo.events import (
    Event,
    Folded,
    Info,
    JSONObject,
    Message,
    MessageChunk,
    Plan,
    PlanRemoved,
    Report,
    Terminal,
    TerminalOutput,
    ToolCall,
    ToolContentChunk,
    Unknown,
    Usage,
)
from acp_tui.demo.pty_runner import ExitStatus
from acp_tui.demo.session import (
    ClientCommand,
    ClientRun,
    DemoSession,
    PermissionAsk,
)
from acp_tui.protocol.dispatcher import Dispatcher
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.schema import v1
from acp_tui.protocol.schema._base import to_wire
from acp_tui.protocol.transport import ConnectionClosed

__all__ = [
    "OUTPUT_BYTE_LIMIT",
    "V1Emitter",
    "commands",
    "config_options",
    "initialize_result",
    "modes",
]

log = logging.getLogger(__name__)

OUTPUT_BYTE_LIMIT: Final = 1_000_000
"""`outputByteLimit` of the client terminals the demo creates."""

CLIENT_TERMINAL_CLEANUP: Final = 5.0
"""Seconds allowed for kill/output/release of a client terminal at the end."""

_TOOL_STATUS: Final[dict[str, str]] = {"cancelled": "failed"}
_PLAN_STATUS: Final[dict[str, str]] = {"cancelled": "pending"}


def _plan_status(status: str) -> str:
    return _PLAN_STATUS.get(status, status)


def initialize_result(info: JSONObject) -> JSONObject:
    """The v1 `initialize` result: load, list, resume, close, delete; no auth."""
    return to_wire(
        v1.InitializeResponse(
            protocol_version=1,
            agent_capabilities=v1.AgentCapabilities(
                load_session=True,
                prompt_capabilities=v1.PromptCapabilities(
                    image=True, embedded_context=True
                ),
                session_capabilities=v1.SessionCapabilities(
                    list=v1.SessionListCapabilities(),
                    resume=v1.SessionResumeCapabilities(),
                    close=v1.SessionCloseCapabilities(),
                    delete=v1.SessionDeleteCapabilities(),
                ),
            ),
            auth_methods=[],
            agent_info=v1.Implementation(**info),
        )
    )


def _option(spec: OptionSpec) -> v1.SessionConfigSelect:
    return config_select(
        spec,
        v1.SessionConfigSelect,
        v1.SessionConfigSelectGroup,
        v1.SessionConfigSelectOption,
        id_field="id",
        group_field="group",
    )


def config_options(config: Config) -> list[JSONObject]:
    """The complete v1 `configOptions` list."""
    return [to_wire(_option(spec)) for spec in options(config)]


def modes(config: Config) -> JSONObject:
    """The v1 `modes` state (the same modes as the `mode` option)."""
    return to_wire(
        v1.SessionModeState(
            current_mode_id=config.mode,
            available_modes=[
                v1.SessionMode(id=m.value, name=m.name, description=m.description)
                for m in MODES
            ],
        )
    )


def _commands() -> list[v1.AvailableCommand]:
    return available_commands(v1.AvailableCommand, v1.UnstructuredCommandInput)


def commands() -> list[JSONObject]:
    """The v1 `availableCommands` (untagged `{hint}` inputs)."""
    return [to_wire(entry) for entry in _commands()]


def _text(text: str) -> v1.Content:
    return v1.Content(content=v1.TextContent(text=text))


def _diff_items(item: JSONObject) -> list[v1.Content | v1.Diff]:
    out: list[v1.Content | v1.Diff] = []
    for change in item["changes"]:
        operation, path = change["operation"], change["path"]
        if change.get("fileType") == "binary":
            sizes = f"{change.get('oldSize', '?')} → {change.get('newSize', '?')}"
            out.append(_text(f"Binary file {path} changed ({sizes} bytes)"))
            continue
        if operation == "move":
            out.append(_text(f"Moved {change['oldPath']} → {path}"))
        elif operation == "delete":
            out.append(_text(f"Deleted {path}"))
        out.append(
            v1.Diff(
                path=path,
                old_text=change.get("oldText"),
                new_text=change.get("newText") or "",
            )
        )
    return out


@dataclass(slots=True)
class _View:
    """What the v1 client was told about one session on this connection."""

    tools: set[str] = field(default_factory=set)
    content: dict[str, list[JSONObject]] = field(default_factory=dict)
    plans: dict[str, Plan] = field(default_factory=dict)
    terminals: dict[str, JSONObject] = field(default_factory=dict)
    output: dict[str, bytearray] = field(default_factory=dict)
    client_ids: dict[str, str] = field(default_factory=dict)
    """Neutral terminal id → the client's terminal id (live client terminals)."""

    def terminal_text(self, terminal_id: str) -> str:
        fields = self.terminals.get(terminal_id, {})
        text = f"$ {fields.get('command', '')}\n" + plain_text(
            bytes(self.output.get(terminal_id, b""))
        )
        status = fields.get("exitStatus")
        if isinstance(status, dict):
            if "exitCode" in status:
                text += f"\n[exit code {status['exitCode']}]"
            elif "signal" in status:
                text += f"\n[killed by {status['signal']}]"
        return text

    def items(
        self, content: list[JSONObject]
    ) -> list[v1.Content | v1.Diff | v1.Terminal]:
        out: list[v1.Content | v1.Diff | v1.Terminal] = []
        for item in content:
            kind = item["type"]
            if kind == "diff":
                out.extend(_diff_items(item))
            elif kind == "terminal":
                terminal_id = item["terminalId"]
                client_id = self.client_ids.get(terminal_id)
                if client_id is not None:
                    out.append(v1.Terminal(terminal_id=client_id))
                else:
                    out.append(_text(self.terminal_text(terminal_id)))
            else:
                out.append(_text(item["text"]))
        return out

    def users_of(self, terminal_id: str) -> list[str]:
        return [
            tool_call_id
            for tool_call_id, content in self.content.items()
            if any(i.get("terminalId") == terminal_id for i in content)
        ]

    def merged_plan(self, group: int) -> v1.Plan:
        entries = [
            v1.PlanEntry(
                content=e["content"],
                priority=e["priority"],
                status=_plan_status(str(e["status"])),
            )
            for plan in self.plans.values()
            if plan.group == group
            for e in plan.entries
        ]
        return v1.Plan(entries=entries)


def _tool_fields(view: _View, fields: JSONObject, model: BaseModel) -> None:
    for key, value in fields.items():
        if key == "content":
            model.content = view.items(value)  # type: ignore[attr-defined]
        elif key == "locations":
            model.locations = [  # type: ignore[attr-defined]
                v1.ToolCallLocation(**loc) for loc in value
            ]
        elif key == "rawInput":
            model.raw_input = value  # type: ignore[attr-defined]
        elif key == "rawOutput":
            model.raw_output = value  # type: ignore[attr-defined]
        elif key == "status":
            model.status = _TOOL_STATUS.get(value, value)  # type: ignore[attr-defined]
        elif key in ("title", "kind", "name"):
            setattr(model, key, value)
        # `capabilities` (cancel one tool call): v1 has none; dropped.


_CHUNKS: Final[dict[str, type[v1.ContentChunk]]] = {
    "user": v1.UserMessageChunk,
    "agent": v1.AgentMessageChunk,
    "thought": v1.AgentThoughtChunk,
}
_CHUNK_TAGS: Final = {
    "user": "user_message_chunk",
    "agent": "agent_message_chunk",
    "thought": "agent_thought_chunk",
}


def _chunk(role: str, message_id: str, block: JSONObject) -> BaseModel:
    # model_validate writes back what it got: the tag must be in the input.
    return _CHUNKS[role].model_validate(
        {"sessionUpdate": _CHUNK_TAGS[role], "content": block, "messageId": message_id}
    )


def _v1_report(payload: JSONObject) -> BaseModel:
    """A `Report` as its v1 model (the same shape as in v2)."""
    models: dict[str, type[BaseModel]] = {
        "notice": v1.Notice,
        "compaction_update": v1.CompactionUpdate,
        "compaction_summary_chunk": v1.CompactionSummaryChunk,
    }
    return models[str(payload.get("sessionUpdate"))].model_validate(payload)


class V1Emitter(Emitter):
    """The `Port` of a v1 connection.

    Args:
        dispatcher: The connection.
        client_terminal: The client advertised `terminal: true`.
        elicitation_modes: The elicitation modes the client advertised.
        reports: The client's opt-ins (`notices`, `compaction`): a `Report` it
            did not opt in to is not sent.
    """

    version = 1
    models: ClassVar[ModuleType] = v1
    status_has_state = False
    option = staticmethod(_option)
    command_list = staticmethod(_commands)

    def __init__(
        self,
        dispatcher: Dispatcher,
        *,
        client_terminal: bool,
        elicitation_modes: frozenset[str] = frozenset(),
        reports: frozenset[str] = frozenset(),
        subagents: bool = False,
    ) -> None:
        super().__init__(
            dispatcher,
            elicitation_modes=elicitation_modes,
            reports=reports,
            subagents=subagents,
        )
        self.client_terminal = client_terminal
        self._views: dict[str, _View] = {}
        self._shields: set[anyio.CancelScope] = set()

    def _view(self, session_id: str) -> _View:
        return self._views.setdefault(session_id, _View())

    # -------------------------------------------------------------- the Port

    async def send(self, session_id: str, event: Event) -> None:
        """Send one neutral event as v1 `session/update`s (maybe none)."""
        for update in self._live(self._view(session_id), event):
            await self._update(session_id, update)

    def _live(self, view: _View, event: Event) -> list[BaseModel]:
        match event:
            case Message():
                if event.role == "user":
                    return []  # the client shows the prompt it sent
                return [
                    _chunk(event.role, event.message_id, block)
                    for block in event.content
                ]
            case MessageChunk():
                return [_chunk(event.role, event.message_id, event.block)]
            case ToolCall():
                return [self._tool_call(view, event.tool_call_id, event.fields)]
            case ToolContentChunk():
                content = view.content.setdefault(event.tool_call_id, [])
                content.append(event.item)
                return [self._tool_call(view, event.tool_call_id, {"content": content})]
            case Plan():
                view.plans[event.plan_id] = event
                return [view.merged_plan(event.group)]
            case PlanRemoved():  # v1's one plan, without the removed one's entries
                removed = view.plans.pop(event.plan_id, None)
                return [] if removed is None else [view.merged_plan(removed.group)]
            case Terminal() | TerminalOutput():
                terminal_id = event.terminal_id
                if isinstance(event, Terminal):
                    view.terminals.setdefault(terminal_id, {}).update(event.fields)
                else:
                    view.output.setdefault(terminal_id, bytearray()).extend(event.data)
                if terminal_id in view.client_ids:
                    return []  # the client's own terminal shows it
                return [
                    self._tool_call(view, user, {"content": view.content[user]})
                    for user in view.users_of(terminal_id)
                ]
            case Info():
                update = v1.SessionInfoUpdate()
                if "title" in event.fields:
                    update.title = event.fields["title"]
                if "updatedAt" in event.fields:
                    update.updated_at = event.fields["updatedAt"]
                return [update]
            case Usage():
                return [
                    v1.UsageUpdate(
                        used=event.used,
                        size=event.size,
                        cost=v1.Cost(amount=event.cost, currency=event.currency),
                    )
                ]
            case Unknown():
                return []  # the v1 union is closed
            case Report():
                if event.opt_in not in self.reports:
                    return []  # the client did not opt in
                return [_v1_report(event.payload)]

    def _tool_call(
        self, view: _View, tool_call_id: str, fields: JSONObject
    ) -> BaseModel:
        if "content" in fields:
            view.content[tool_call_id] = list(fields["content"])
        model: BaseModel
        if tool_call_id not in view.tools:
            view.tools.add(tool_call_id)
            model = v1.ToolCall(
                tool_call_id=tool_call_id,
                title=str(fields.get("title") or tool_call_id),
            )
        else:
            model = v1.SessionToolCallUpdate(tool_call_id=tool_call_id)
        _tool_fields(view, {k: v for k, v in fields.items() if k != "title"}, model)
        if "title" in fields and isinstance(model, v1.SessionToolCallUpdate):
            model.title = fields["title"]
        return model

    async def state(
        self,
        session_id: str,
        state: str,
        stop_reason: str | None = None,
        *,
        usage: JSONObject | None = None,
    ) -> None:
        """v1 has no state updates (the prompt response ends the turn)."""

    async def config_changed(self, session: DemoSession, *, mode_changed: bool) -> None:
        """`config_option_update`, and `current_mode_update` for a mode switch."""
        await self.send_config(session)
        if mode_changed:
            await self._update(
                session.session_id,
                v1.CurrentModeUpdate(current_mode_id=session.config.mode),
            )

    async def ask_permission(self, session_id: str, ask: PermissionAsk) -> str | None:
        """`session/request_permission` (v1: always about a tool call).

        The tool call is sent as it stands (the client applies it as a patch), so
        a command's permission shows the tool call that runs it.
        """
        tool_call = v1.ToolCallUpdate(tool_call_id=ask.tool_call_id)
        _tool_fields(self._view(session_id), ask.tool_call, tool_call)
        request = v1.RequestPermissionRequest(
            session_id=session_id,
            tool_call=tool_call,
            options=permission_options(v1.PermissionOption),
        )
        return await ask_permission(
            self.dispatcher, request, v1.RequestPermissionResponse
        )

    def setup_result(self, config: Config) -> JSONObject:
        """A session setup response's config options, and v1's `modes`."""
        return {"configOptions": config_options(config), "modes": modes(config)}

    def connection_lost(self) -> None:
        """The client went away: send nothing more, abandon the client terminals."""
        self.closed = True
        for scope in list(self._shields):
            scope.cancel()

    @contextmanager
    def _shielded(self) -> Iterator[None]:
        """Shielded from the turn's cancellation, not from the connection's end."""
        scope = anyio.CancelScope(shield=True)
        if self.closed:
            scope.cancel()
        self._shields.add(scope)
        try:
            with scope:
                yield
        finally:
            self._shields.discard(scope)

    async def run_on_client(self, command: ClientCommand, run: ClientRun) -> None:
        """Run a command in a client terminal; `run` gets the status and output.

        Cancelled (the turn was), it kills the command, still reads its output and
        always releases the terminal, under a shield bounded by a timeout. If the
        connection ends meanwhile, it gives up at once (the client is gone).
        """
        session_id, argv = command.session_id, command.argv
        create = v1.CreateTerminalRequest(
            session_id=session_id,
            command=argv[0],
            args=list(argv[1:]),
            cwd=str(command.cwd),
            output_byte_limit=OUTPUT_BYTE_LIMIT,
        )
        try:
            raw = await self.dispatcher.request("terminal/create", to_wire(create))
            client_id = v1.CreateTerminalResponse.model_validate(raw).terminal_id
        except (RpcError, ValidationError, ConnectionClosed) as error:
            log.warning("terminal/create failed: %s", error)
            run.status = ExitStatus(exit_code=127)
            run.output = f"the client could not run the command: {error}\n".encode()
            return
        self._view(session_id).client_ids[command.terminal_id] = client_id
        ids = {"sessionId": session_id, "terminalId": client_id}
        try:
            await run.on_created()
            # Shielded: a cancelled turn sets `run.stop`, and the command is killed
            # and waited for, rather than the request being abandoned. Only the
            # connection's end cuts this short (`connection_lost`).
            with self._shielded():
                await self._wait_for_exit(ids, run)
        finally:
            with self._shielded(), anyio.move_on_after(CLIENT_TERMINAL_CLEANUP):
                await self._finish_client_terminal(ids, run)
        await anyio.lowlevel.checkpoint()  # a cancelled turn stops here

    async def _wait_for_exit(self, ids: JSONObject, run: ClientRun) -> None:
        async with anyio.create_task_group() as tasks:

            async def kill_when_stopped() -> None:
                await run.stop.wait()
                try:
                    await self.dispatcher.request("terminal/kill", ids)
                except (RpcError, ConnectionClosed) as error:
                    log.warning("terminal/kill failed: %s", error)
                await anyio.sleep(CLIENT_TERMINAL_CLEANUP)
                tasks.cancel_scope.cancel()  # the client never reported the exit

            tasks.start_soon(kill_when_stopped)
            try:
                raw = await self.dispatcher.request("terminal/wait_for_exit", ids)
                exited = v1.WaitForTerminalExitResponse.model_validate(raw)
                run.status = ExitStatus(exited.exit_code, exited.signal)
            except (RpcError, ValidationError, ConnectionClosed) as error:
                log.warning("terminal/wait_for_exit failed: %s", error)
            tasks.cancel_scope.cancel()

    async def _finish_client_terminal(self, ids: JSONObject, run: ClientRun) -> None:
        if self.closed:
            return  # the client is gone, and its terminals with it

        async def call(method: str) -> Any:
            try:
                return await self.dispatcher.request(method, ids)
            except (RpcError, ConnectionClosed) as error:
                log.warning("%s failed: %s", method, error)
                return None

        if run.status is None and not run.stop.is_set():
            await call("terminal/kill")
        raw = await call("terminal/output")
        try:
            output = v1.TerminalOutputResponse.model_validate(raw)
        except ValidationError:
            output = None
        if output is not None:
            run.output = output.output.encode("utf-8")
            if run.status is None:
                status = output.exit_status
                run.status = (
                    ExitStatus(status.exit_code, status.signal)
                    if status is not None
                    else ExitStatus(signal="SIGKILL")
                )
        await call("terminal/release")

    # ---------------------------------------------------------------- replay

    async def replay(self, session: DemoSession, folded: Folded) -> None:
        """Replay a history for `session/load` (see the module docstring)."""
        session_id = session.session_id
        view = self._views[session_id] = _View()
        for terminal_id, terminal in folded.terminals.items():
            view.terminals[terminal_id] = dict(terminal.fields)
            view.output[terminal_id] = bytearray(terminal.output)
        for plan_id, plan in folded.plans.items():
            view.plans[plan_id] = plan
        last_group = folded.last_plan_group()
        plan_sent = False
        for kind, entity_id in folded.order:
            if kind == "message":
                message = folded.messages[entity_id]
                for block in message.content:
                    await self._update(
                        session_id, _chunk(message.role, entity_id, block)
                    )
            elif kind == "tool_call":
                fields = folded.tool_calls[entity_id].whole()
                await self._update(session_id, self._tool_call(view, entity_id, fields))
            elif kind == "plan" and not plan_sent and last_group is not None:
                plan_sent = True
                await self._update(session_id, view.merged_plan(last_group))
            elif kind == "compaction" and "compaction" in self.reports:
                await self._update(session_id, dict(folded.compactions[entity_id]))
        if folded.info:
            await self.send(session_id, Info(dict(folded.info)))
        if folded.usage is not None:
            await self.send(session_id, folded.usage)
