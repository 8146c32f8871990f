"""ACP v2 `session/update` → version-neutral store operations.

https://agentclientprotocol.com/protocol/v2/prompt-lifecycle and the v2 migration
guide. The only module besides the connection and session layers that knows v2
shapes. Every update kind maps onto the same store ops the v1 translator uses:

* `*_message_chunk` → `AppendMessageChunk` (the chunk's own `_meta` is dropped: it
  belongs to the chunk, not the message);
* `user_message` / `agent_message` / `agent_thought` → `UpsertMessage` with
  three-state `content` and `_meta` (alpha.3: an object replaces `_meta`);
* `tool_call_update` → `PatchToolCall` (an upsert; every field three-state);
  `tool_call_content_chunk` → `AppendToolCallContent`;
* `plan_update` → `ReplacePlan` by `planId` (unknown plan types keep their payload);
* `terminal_update` → `PatchTerminal` (an `output` snapshot is base64-decoded and
  replaces all bytes); `terminal_output_chunk` → `AppendTerminalOutput`, each
  chunk decoded on its own (never joined before decoding);
* `state_update` → `SetState` (unknown states are kept; they are not idle);
* `available_commands_update`, `config_option_update` → whole-list replacements;
  `session_info_update`, `usage_update` → three-state patches;
* `notice` → `RecordNotice`; anything else (compaction, vendor, future) →
  `RecordUnknownUpdate` with the raw payload.

Invalid base64 in terminal data produces a visible notice, and the rest of the
update still applies. An update that nests JSON more than `MAX_UPDATE_DEPTH`
levels deep is skipped with a visible notice (both translators check this).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from pydantic import BaseModel

from acp_tui.client._wire import (
    CHUNK_ROLES,
    MAX_UPDATE_DEPTH,
    TOO_DEEP_TITLE,
    decode_base64,
    json_list,
    json_object,
    nested_too_deeply,
    patch,
    too_deep_notice,
    tool_call_patch,
)
from acp_tui.protocol.schema import v2
from acp_tui.protocol.schema._base import to_wire
from acp_tui.store import ops
from acp_tui.store.values import UNSET

__all__ = [
    "MAX_UPDATE_DEPTH",
    "TOO_DEEP_TITLE",
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
    raw = to_wire(update.plan)
    plan_id = raw.get("planId")
    if not isinstance(plan_id, str):
        return [ops.RecordUnknownUpdate(to_wire(update))]
    entries = raw.get("entries")
    return [
        ops.ReplacePlan(
            plan_id,
            str(raw.get("type")),
            entries if isinstance(entries, list) else [],
            raw,
        )
    ]


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
        return [
            ops.PatchTerminal(update.terminal_id),
            *_bad_base64(update.terminal_id, "an output chunk"),
        ]
    return [ops.AppendTerminalOutput(update.terminal_id, decoded)]


def _state(update: Any) -> list[ops.Op]:
    raw = to_wire(update)
    stop_reason = getattr(update, "stop_reason", None)
    # Only an idle update has a (validated) `error`; on other states an `error` key
    # is an unknown extra of any JSON type, not an error object.
    error = getattr(update, "error", None)
    return [
        ops.SetState(
            str(update.state),
            stop_reason if isinstance(stop_reason, str) else None,
            json_object(error) if isinstance(error, BaseModel) else None,
            raw,
        )
    ]


def _commands(update: v2.AvailableCommandsUpdate) -> list[ops.Op]:
    return [ops.SetAvailableCommands(json_list(update.available_commands))]


def _config(update: v2.ConfigOptionUpdate) -> list[ops.Op]:
    return [ops.SetConfigOptions(json_list(update.config_options))]


def _info(update: v2.SessionInfoUpdate) -> list[ops.Op]:
    return [
        ops.PatchSessionInfo(
            title=patch(update, "title"),
            updated_at=patch(update, "updated_at"),
            meta=patch(update, "meta"),
        )
    ]


def _usage(update: v2.UsageUpdate) -> list[ops.Op]:
    return [
        ops.PatchUsage(
            used=update.used,
            size=update.size,
            cost=patch(update, "cost", json_object),
            meta=patch(update, "meta"),
        )
    ]


def _notice(update: v2.Notice) -> list[ops.Op]:
    return [
        ops.RecordNotice(
            update.severity, update.title, update.description, to_wire(update)
        )
    ]


def _unknown(update: Any) -> list[ops.Op]:
    return [ops.RecordUnknownUpdate(to_wire(update))]


_HANDLERS: Final[dict[type, Callable[[Any], list[ops.Op]]]] = {
    v2.ContentChunk: _chunk,
    v2.UserMessage: _whole("user"),
    v2.AgentMessage: _whole("agent"),
    v2.AgentThought: _whole("thought"),
    v2.SessionToolCallUpdate: _tool_call,
    v2.ToolCallContentChunk: _tool_call_content,
    v2.PlanUpdate: _plan,
    v2.TerminalUpdate: _terminal,
    v2.TerminalOutputChunk: _terminal_chunk,
    v2.AvailableCommandsUpdate: _commands,
    v2.ConfigOptionUpdate: _config,
    v2.SessionInfoUpdate: _info,
    v2.UsageUpdate: _usage,
    v2.RunningStateUpdate: _state,
    v2.IdleStateUpdate: _state,
    v2.RequiresActionStateUpdate: _state,
    v2.UnknownStateUpdate: _state,
    v2.Notice: _notice,
}


def translate_update(update: Any) -> list[ops.Op]:
    """The store ops for one v2 `SessionUpdate` (never raises for a valid model)."""
    if nested_too_deeply(update):
        return too_deep_notice(update)
    return _HANDLERS.get(type(update), _unknown)(update)
