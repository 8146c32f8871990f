"""The ACP v2 face of the demo: neutral events → v2 wire messages.

Every message is built from the project's v2 wire models (`acp_tui.protocol.schema
.v2`) and dumped with `to_wire`, so it is schema-shaped by construction; the tests
validate each one against the alpha.3 JSON schema as well.

Mapping (live):

* user prompt → `user_message` (the agent-owned `messageId`); text → chunks;
* tool calls → `tool_call_update` upserts (the first one creates), appended
  content → `tool_call_content_chunk`;
* plans → `plan_update` (`type: items`, or `markdown`; one `planId` each); a
  removed plan → `plan_removed`; a tool call's `name` and `capabilities` (it can
  be cancelled alone: `tool_call/cancel`) as they are;
* terminals → `terminal_update` (command, cwd, exit status) and
  `terminal_output_chunk` (each chunk base64-encoded on its own);
* `Info` → `session_info_update`, `Usage` → `usage_update`, `Unknown` and
  `Report` (notices, compactions) → as is;
* turn states → `state_update`.

Replay (`session/resume` with `replayFrom: start`): one whole upsert per entity,
in order of first appearance, each carrying its final state (messages as
`user_message` / `agent_message` / `agent_thought` with their content blocks,
terminals as one snapshot with `output` and `exitStatus`), then the session info
and usage. Applying them gives the same client state as the live updates did.
"""

from __future__ import annotations

import base64
from types import ModuleType
from typing import Any, ClassVar

from pydantic import BaseModel

from acp_tui.demo.config import Config, OptionSpec, options
from acp_tui.demo.emit_common import (
    Emitter,
    ask_permission,
    available_commands,
    config_select,
    permission_options,
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
from acp_tui.demo.session import (
    ClientCommand,
    ClientRun,
    DemoSession,
    PermissionAsk,
)
from acp_tui.protocol.schema import v2
from acp_tui.protocol.schema._base import to_wire
from acp_tui.protocol.schema.unstable import Usage as TurnUsage

__all__ = [
    "V2Emitter",
    "commands",
    "config_options",
    "initialize_result",
]


def initialize_result(info: JSONObject) -> JSONObject:
    """The v2 `initialize` result: baseline session methods, delete, no auth."""
    return to_wire(
        v2.InitializeResponse(
            protocol_version=2,
            info=v2.Implementation(**info),
            capabilities=v2.AgentCapabilities(
                session=v2.SessionCapabilities(
                    prompt=v2.PromptCapabilities(
                        image=v2.PromptImageCapabilities(),
                        embedded_context=v2.PromptEmbeddedContextCapabilities(),
                    ),
                    delete=v2.SessionDeleteCapabilities(),
                )
            ),
            auth_methods=[],
        )
    )


def _option(spec: OptionSpec) -> v2.SessionConfigSelect:
    return config_select(
        spec,
        v2.SessionConfigSelect,
        v2.SessionConfigSelectGroup,
        v2.SessionConfigSelectOption,
        id_field="config_id",
        group_field="group_id",
    )


def config_options(config: Config) -> list[JSONObject]:
    """The complete v2 `configOptions` list."""
    return [to_wire(_option(spec)) for spec in options(config)]


def _commands() -> list[v2.AvailableCommand]:
    return available_commands(v2.AvailableCommand, v2.TextCommandInput)


def commands() -> list[JSONObject]:
    """The v2 `availableCommands` (alpha.3: untagged entries, `text` inputs)."""
    return [to_wire(entry) for entry in _commands()]


def _location(location: JSONObject) -> v2.ToolCallLocation:
    if "line" in location:
        return v2.ToolCallLocation(path=location["path"], line=location["line"])
    return v2.ToolCallLocation(path=location["path"])


def _change(change: JSONObject) -> v2.DiffPathChange | v2.DiffPathPairChange:
    extra: dict[str, Any] = {}
    if "fileType" in change:
        extra["file_type"] = change["fileType"]
    if "mimeType" in change:
        extra["mime_type"] = change["mimeType"]
    if change["operation"] in ("move", "copy"):
        return v2.DiffPathPairChange(
            operation=change["operation"],
            old_path=change["oldPath"],
            path=change["path"],
            **extra,
        )
    return v2.DiffPathChange(
        operation=change["operation"], path=change["path"], **extra
    )


def _item(item: JSONObject) -> v2.Content | v2.Diff | v2.Terminal:
    kind = item["type"]
    if kind == "diff":
        diff = v2.Diff(changes=[_change(c) for c in item["changes"]])
        if item.get("patch"):
            diff.patch = v2.DiffPatch(format="git_patch", text=item["patch"])
        return diff
    if kind == "terminal":
        return v2.Terminal(terminal_id=item["terminalId"])
    return v2.Content(content=v2.TextContent(text=item["text"]))


def _tool_call(
    tool_call_id: str,
    fields: JSONObject,
    model: type[v2.ToolCallUpdate] = v2.SessionToolCallUpdate,
) -> v2.ToolCallUpdate:
    update = model(tool_call_id=tool_call_id)
    for key, value in fields.items():
        if key == "content":
            update.content = [_item(item) for item in value]
        elif key == "locations":
            update.locations = [_location(loc) for loc in value]
        elif key == "rawInput":
            update.raw_input = value
        elif key == "rawOutput":
            update.raw_output = value
        elif key in ("title", "kind", "status", "name"):
            setattr(update, key, value)
        elif key == "capabilities":
            update.capabilities = (
                None
                if value is None
                else v2.ToolCallCapabilities(cancel=v2.ToolCallCancelCapabilities())
            )
    return update


def _plan(event: Plan) -> v2.PlanUpdate:
    if event.markdown is not None:
        return v2.PlanUpdate(
            plan=v2.PlanMarkdown(plan_id=event.plan_id, content=event.markdown)
        )
    return v2.PlanUpdate(
        plan=v2.PlanItems(
            plan_id=event.plan_id,
            entries=[v2.PlanEntry(**entry) for entry in event.entries],
        )
    )


def _terminal(terminal_id: str, fields: JSONObject) -> v2.TerminalUpdate:
    update = v2.TerminalUpdate(terminal_id=terminal_id)
    if "command" in fields:
        update.command = fields["command"]
    if "cwd" in fields:
        update.cwd = fields["cwd"]
    if "exitStatus" in fields:
        update.exit_status = v2.TerminalExitStatus.model_validate(fields["exitStatus"])
    return update


def _b64(data: bytes | bytearray) -> str:
    return base64.b64encode(bytes(data)).decode("ascii")


def _message(message_id: str, role: str, content: list[JSONObject]) -> BaseModel:
    # model_validate writes back what it got: the tag must be in the input.
    tag = {"user": "user_message", "thought": "agent_thought"}.get(
        role, "agent_message"
    )
    wire = {"sessionUpdate": tag, "messageId": message_id, "content": content}
    if role == "user":
        return v2.UserMessage.model_validate(wire)
    if role == "thought":
        return v2.AgentThought.model_validate(wire)
    return v2.AgentMessage.model_validate(wire)


_CHUNK_TAGS = {
    "user": "user_message_chunk",
    "agent": "agent_message_chunk",
    "thought": "agent_thought_chunk",
}


def _info(fields: JSONObject) -> v2.SessionInfoUpdate:
    update = v2.SessionInfoUpdate()
    if "title" in fields:
        update.title = fields["title"]
    if "updatedAt" in fields:
        update.updated_at = fields["updatedAt"]
    return update


def _usage(event: Usage) -> v2.UsageUpdate:
    return v2.UsageUpdate(
        used=event.used,
        size=event.size,
        cost=v2.Cost(amount=event.cost, currency=event.currency),
    )


class V2Emitter(Emitter):
    """The `Port` of a v2 connection."""

    version = 2
    models: ClassVar[ModuleType] = v2
    option = staticmethod(_option)
    command_list = staticmethod(_commands)
    client_terminal = False

    # -------------------------------------------------------------- the Port

    async def send(self, session_id: str, event: Event) -> None:
        """Send one neutral event as v2 `session/update`s."""
        for update in self.live(event):
            await self._update(session_id, update)

    @staticmethod
    def live(event: Event) -> list[BaseModel | JSONObject]:
        """The v2 updates for a live event."""
        match event:
            case Message():
                return [_message(event.message_id, event.role, event.content)]
            case MessageChunk():
                return [
                    v2.ContentChunk.model_validate(
                        {
                            "sessionUpdate": _CHUNK_TAGS[event.role],
                            "messageId": event.message_id,
                            "content": event.block,
                        }
                    )
                ]
            case ToolCall():
                return [_tool_call(event.tool_call_id, event.fields)]
            case ToolContentChunk():
                return [
                    v2.ToolCallContentChunk(
                        tool_call_id=event.tool_call_id, content=_item(event.item)
                    )
                ]
            case Plan():
                return [_plan(event)]
            case PlanRemoved():
                return [v2.PlanRemoved(plan_id=event.plan_id)]
            case Terminal():
                return [_terminal(event.terminal_id, event.fields)]
            case TerminalOutput():
                return [
                    v2.TerminalOutputChunk(
                        terminal_id=event.terminal_id, data=_b64(event.data)
                    )
                ]
            case Info():
                return [_info(event.fields)]
            case Usage():
                return [_usage(event)]
            case Unknown():
                return [dict(event.payload)]
            case Report():
                return [dict(event.payload)]

    async def state(
        self,
        session_id: str,
        state: str,
        stop_reason: str | None = None,
        *,
        usage: JSONObject | None = None,
    ) -> None:
        """Send a `state_update` (an idle one with the turn's `usage`, if any)."""
        update: BaseModel
        if state == "idle":
            update = v2.IdleStateUpdate()
            if stop_reason is not None:
                update.stop_reason = stop_reason
            if usage is not None:
                update.usage = TurnUsage.model_validate(usage)
        elif state == "requires_action":
            update = v2.RequiresActionStateUpdate()
        else:
            update = v2.RunningStateUpdate()
        await self._update(session_id, update)

    async def config_changed(self, session: DemoSession, *, mode_changed: bool) -> None:
        """Send the complete option list (`config_option_update`)."""
        await self.send_config(session)

    async def ask_permission(self, session_id: str, ask: PermissionAsk) -> str | None:
        """`session/request_permission` with a `tool_call` or `command` subject."""
        subject: v2.ToolCallPermissionSubject | v2.CommandPermissionSubject
        if ask.command is not None:
            subject = v2.CommandPermissionSubject(
                command=ask.command, cwd=ask.cwd or "/", tool_call_id=ask.tool_call_id
            )
            if ask.terminal_id is not None:
                subject.terminal_id = ask.terminal_id
        else:
            subject = v2.ToolCallPermissionSubject(
                tool_call=_tool_call(ask.tool_call_id, ask.tool_call, v2.ToolCallUpdate)
            )
        request = v2.RequestPermissionRequest(
            session_id=session_id,
            title=ask.title,
            description=ask.description,
            subject=subject,
            options=permission_options(v2.PermissionOption),
        )
        return await ask_permission(
            self.dispatcher, request, v2.RequestPermissionResponse
        )

    def setup_result(self, config: Config) -> JSONObject:
        """A session setup response's config options."""
        return {"configOptions": config_options(config)}

    def connection_lost(self) -> None:
        """The client went away: send nothing more."""
        self.closed = True

    async def run_on_client(self, command: ClientCommand, run: ClientRun) -> None:
        """Not in v2: the client has no terminals."""
        raise RuntimeError("ACP v2 has no client terminals")

    # ---------------------------------------------------------------- replay

    async def replay(self, session: DemoSession, folded: Folded) -> None:
        """Replay a history (see the module docstring), then the current lists."""
        session_id = session.session_id
        for kind, entity_id in folded.order:
            if kind == "message":
                message = folded.messages[entity_id]
                await self._update(
                    session_id, _message(entity_id, message.role, message.content)
                )
            elif kind == "tool_call":
                fields = folded.tool_calls[entity_id].whole()
                await self._update(session_id, _tool_call(entity_id, fields))
            elif kind == "plan":
                await self._update(session_id, _plan(folded.plans[entity_id]))
            elif kind == "terminal":
                terminal = folded.terminals[entity_id]
                update = _terminal(entity_id, terminal.fields)
                update.output = v2.TerminalOutput(data=_b64(terminal.output))
                await self._update(session_id, update)
            elif kind == "compaction":
                await self._update(session_id, dict(folded.compactions[entity_id]))
            else:
                await self._update(session_id, dict(folded.unknown[int(entity_id)]))
        if folded.info:
            await self._update(session_id, _info(folded.info))
        if folded.usage is not None:
            await self._update(session_id, _usage(folded.usage))
