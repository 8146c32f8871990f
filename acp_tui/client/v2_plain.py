"""Plain v2 state, terminal, tool-call, command and message updates, without models.

`v2_chunks.fast_chunk_ops` takes the chunks; a stream's other commonest updates
are the turn's `state_update`s and a tool call's plain `tool_call_update`s and
`terminal_update`s. Through the models, the first of them built the whole
`session/update` schema (every update kind's model: about 35 ms, most of what the
models cost `acp-tui print` on a stream of chunks), so they are answered here
when their shape is exactly one of these (keys in any order, each optional key
either present or not), for which the models accept the update and give these
very ops (`tests/unit/client/test_v2_plain.py` checks both against
`translate_update`, with hypothesis):

* `{"sessionUpdate": "state_update", "state": "running" | "requires_action" |
  "idle"}`, and an idle one with `"stopReason": str` → `SetState`, its `raw` the
  update in the models' key order;
* `{"sessionUpdate": "terminal_update", "terminalId": str, "command"?: str |
  null, "cwd"?: str | null, "exitStatus"?: null | {"exitCode"?: int | null,
  "signal"?: str | null}}` → `PatchTerminal`;
* `{"sessionUpdate": "tool_call_update", "toolCallId": str, "title"?, "kind"?,
  "status"?: str | null, "content"?: null | [blocks]}`, each block exactly
  `{"type": "terminal", "terminalId": str}` or `{"type": "content", "content":
  {"type": "text", "text": str}}` → `PatchToolCall`;
* `{"sessionUpdate": "user_message" | "agent_message" | "agent_thought",
  "messageId": str, "content"?: null | [blocks]}`, each block exactly `{"type":
  "text", "text": str}` → `UpsertMessage` (a v2 agent echoes the prompt as a
  `user_message` as its turn starts: through the models, the first turn of a
  process built the whole schema there, 15-25 ms before the answer's first
  chunk was read; bench/ui.py);
* `{"sessionUpdate": "available_commands_update", "availableCommands": [...]}`,
  each command exactly `{"type"?: str, "name": str, "description": str,
  "input"?: null | {"type": "text", "hint": str}}` → `SetAvailableCommands`
  (the update an agent sends as a session opens: the app left idle builds no
  `session/update` model either, about 1 MB).

Anything else (another key, a `_meta`, snake_case keys, a bool for an int, an
unknown state) is None and takes the models' path, so validation errors and
lenient repairs read exactly as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from acp_tui.client.chunk_shapes import text_block
from acp_tui.store import ops
from acp_tui.store.values import UNSET, JSONObject

__all__ = ["plain_update_ops"]

_STATES: Final = frozenset({"running", "requires_action", "idle"})
_STATE_KEYS: Final = frozenset({"sessionUpdate", "state"})
_IDLE_KEYS: Final = frozenset({"sessionUpdate", "state", "stopReason"})
_TERMINAL_KEYS: Final = ("command", "cwd", "exitStatus")
_EXIT_KEYS: Final = ("exitCode", "signal")
_TOOL_CALL_KEYS: Final = ("title", "kind", "status", "content")
_TERMINAL_BLOCK_KEYS: Final = frozenset({"type", "terminalId"})
_CONTENT_BLOCK_KEYS: Final = frozenset({"type", "content"})
_COMMANDS_KEYS: Final = frozenset({"sessionUpdate", "availableCommands"})
_COMMAND_KEYS: Final = ("type", "name", "description", "input")
_INPUT_KEYS: Final = frozenset({"type", "hint"})
_MESSAGE_ROLES: Final[dict[str, ops.MessageRole]] = {
    "user_message": "user",
    "agent_message": "agent",
    "agent_thought": "thought",
}


class _NotPlain(Exception):
    """The update is not of a plain shape: the models must read it."""


def _optional_str(value: Any) -> str | None:
    if value is None or type(value) is str:
        return value
    raise _NotPlain


def _state(update: dict[str, Any]) -> list[ops.Op] | None:
    state = update.get("state")
    keys = update.keys()
    if keys == _STATE_KEYS and type(state) is str and state in _STATES:
        raw = {"sessionUpdate": "state_update", "state": state}
        return [ops.SetState(state, None, None, raw)]
    if keys == _IDLE_KEYS and state == "idle":
        stop_reason = update["stopReason"]
        if type(stop_reason) is str:
            raw = {"sessionUpdate": "state_update", "state": "idle"}
            raw["stopReason"] = stop_reason
            return [ops.SetState("idle", stop_reason, None, raw)]
    return None


def _rest(
    update: dict[str, Any], required: str, optional: tuple[str, ...]
) -> dict[str, Any]:
    """The optional keys `update` has; `_NotPlain` if it has any other key."""
    if type(update.get(required)) is not str:
        raise _NotPlain
    rest = {key: update[key] for key in optional if key in update}
    if len(rest) + 2 != len(update):  # (sessionUpdate and the id are there)
        raise _NotPlain
    return rest


def _exit_status(value: Any) -> JSONObject | None:
    if value is None:
        return None
    if type(value) is not dict:
        raise _NotPlain
    rest = {key: value[key] for key in _EXIT_KEYS if key in value}
    if len(rest) != len(value):
        raise _NotPlain
    code = rest.get("exitCode")
    if code is not None and type(code) is not int:
        raise _NotPlain
    _optional_str(rest.get("signal"))
    return rest  # (the models' key order)


def _terminal(update: dict[str, Any]) -> list[ops.Op]:
    rest = _rest(update, "terminalId", _TERMINAL_KEYS)
    return [
        ops.PatchTerminal(
            update["terminalId"],
            command=_optional_str(rest["command"]) if "command" in rest else UNSET,
            cwd=_optional_str(rest["cwd"]) if "cwd" in rest else UNSET,
            exit_status=(
                _exit_status(rest["exitStatus"]) if "exitStatus" in rest else UNSET
            ),
        )
    ]


def _tool_call_block(block: Any) -> JSONObject:
    if type(block) is not dict:
        raise _NotPlain
    keys = block.keys()
    kind = block.get("type")
    if keys == _TERMINAL_BLOCK_KEYS and kind == "terminal":
        terminal_id = block["terminalId"]
        if type(terminal_id) is str:
            return {"type": "terminal", "terminalId": terminal_id}
    elif keys == _CONTENT_BLOCK_KEYS and kind == "content":
        text = text_block(block["content"])
        if text is not None:
            return {"type": "content", "content": text}
    raise _NotPlain


def _blocks(value: Any, block: Callable[[Any], JSONObject]) -> list[JSONObject] | None:
    """`value` null, or a list each of whose items `block` reads; else `_NotPlain`."""
    if value is None:
        return None
    if type(value) is not list:
        raise _NotPlain
    return [block(item) for item in value]


def _tool_call(update: dict[str, Any]) -> list[ops.Op]:
    rest = _rest(update, "toolCallId", _TOOL_CALL_KEYS)
    content = _blocks(rest["content"], _tool_call_block) if "content" in rest else UNSET
    return [
        ops.PatchToolCall(
            update["toolCallId"],
            title=_optional_str(rest["title"]) if "title" in rest else UNSET,
            kind=_optional_str(rest["kind"]) if "kind" in rest else UNSET,
            status=_optional_str(rest["status"]) if "status" in rest else UNSET,
            content=content,
        )
    ]


def _text_block(block: Any) -> JSONObject:
    text = text_block(block)
    if text is None:
        raise _NotPlain
    return text


def _whole_message(update: dict[str, Any]) -> list[ops.Op]:
    rest = _rest(update, "messageId", ("content",))
    role = _MESSAGE_ROLES[update["sessionUpdate"]]
    content = _blocks(rest["content"], _text_block) if "content" in rest else UNSET
    return [ops.UpsertMessage(update["messageId"], role, content=content, meta=UNSET)]


def _command_input(value: Any) -> JSONObject | None:
    if value is None:
        return None
    if type(value) is not dict or value.keys() != _INPUT_KEYS:
        raise _NotPlain
    hint = value["hint"]
    if value["type"] != "text" or type(hint) is not str:
        raise _NotPlain
    return {"type": "text", "hint": hint}


def _command(entry: Any) -> JSONObject:
    if type(entry) is not dict:
        raise _NotPlain
    command = {key: entry[key] for key in _COMMAND_KEYS if key in entry}
    if len(command) != len(entry):
        raise _NotPlain
    if type(command.get("name")) is not str:
        raise _NotPlain
    if type(command.get("description")) is not str:
        raise _NotPlain
    if "type" in command and type(command["type"]) is not str:
        raise _NotPlain
    if "input" in command:
        command["input"] = _command_input(command["input"])
    return command  # (the models' key order)


def _commands(update: dict[str, Any]) -> list[ops.Op] | None:
    if update.keys() != _COMMANDS_KEYS:
        return None
    entries = update["availableCommands"]
    if type(entries) is not list:
        return None
    return [ops.SetAvailableCommands([_command(entry) for entry in entries])]


_PLAIN: Final[dict[str, Callable[[dict[str, Any]], list[ops.Op] | None]]] = {
    "state_update": _state,
    "terminal_update": _terminal,
    "tool_call_update": _tool_call,
    "available_commands_update": _commands,
    "user_message": _whole_message,
    "agent_message": _whole_message,
    "agent_thought": _whole_message,
}


def plain_update_ops(kind: Any, update: dict[str, Any]) -> list[ops.Op] | None:
    """The ops of a plain update of the kinds above (`kind`: its `sessionUpdate`).

    None: `update` is of another kind or shape (the models read it).
    """
    translate = _PLAIN.get(kind) if type(kind) is str else None
    if translate is None:
        return None
    try:
        return translate(update)
    except _NotPlain:
        return None
