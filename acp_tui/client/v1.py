"""ACP v1 `session/update` → the same store operations as v2.

https://agentclientprotocol.com/protocol/prompt-turn. v1 differs from v2 in ways
this module absorbs, so that nothing above the client layer knows the version:

* Chunks may lack a `messageId`. Then each chunk joins the current message of its
  role, and a new message (with a synthesised id, `v1-<role>-<n>`) starts whenever
  the role changes, or after a tool call or plan update (so text written after a
  tool call is shown after it). The spec leaves this to the client.
* `tool_call` creates (or fully re-states) a tool call: fields it omits take their
  defaults. `tool_call_update` patches only what it carries; v1 does not define
  `null`, which is treated as "clear".
* `plan` is the session's single plan, kept under the synthetic id `"main"`.
* Modes: a `modes` state from session setup becomes a `select` config option with
  category `mode` (unless the agent already offers a `select` of that category),
  and `current_mode_update` moves that option's `currentValue`. Only a `select`
  holds a mode id: a `boolean` (or unknown type) option of category `mode` is left
  alone.
* The end of a turn is the `session/prompt` response (see the session layer); v1
  has no `state_update`.
* An update nested more than `_wire.MAX_UPDATE_DEPTH` levels deep is
  skipped with a visible notice, as in v2.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Final

from acp_tui.client._wire import (
    CHUNK_ROLES,
    json_list,
    nested_too_deeply,
    patch,
    too_deep_notice,
    tool_call_patch,
)
from acp_tui.protocol.schema import v1
from acp_tui.protocol.schema._base import to_wire
from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.store.values import UNSET, JSONObject

__all__ = [
    "MAIN_PLAN_ID",
    "MODE_OPTION_ID",
    "V1Translator",
    "mode_option",
    "tool_call_patch",
    "with_modes",
]

MAIN_PLAN_ID: Final = "main"
"""The id of v1's one plan per session, as bridged into the store."""

MODE_OPTION_ID: Final = "mode"
"""The id of the config option synthesised from v1 `modes`."""


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
    return frozenset({v1.ToolCall, v1.SessionToolCallUpdate, v1.Plan})


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
            v1.AvailableCommandsUpdate: self._commands,
            v1.CurrentModeUpdate: self._mode,
            v1.ConfigOptionUpdate: self._config,
            v1.SessionInfoUpdate: self._info,
            v1.UsageUpdate: self._usage,
        }

    def translate_update(self, update: Any) -> list[ops.Op]:
        """The store ops for one v1 `SessionUpdate`."""
        if nested_too_deeply(update):
            return too_deep_notice(update)
        handler = self._handlers.get(type(update))
        if handler is None:
            return [ops.RecordUnknownUpdate(to_wire(update))]
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
        block = to_wire(update.content)
        if update.message_id is not None:
            self._role, self._message_id = role, update.message_id
            return [ops.AppendMessageChunk(update.message_id, role, block)]
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
            )
        ]

    def _tool_call_update(self, update: v1.ToolCallUpdate) -> list[ops.Op]:
        return [tool_call_patch(update)]

    def _plan(self, update: v1.Plan) -> list[ops.Op]:
        entries = json_list(update.entries)
        raw: dict[str, Any] = {"type": "items", "planId": MAIN_PLAN_ID}
        raw["entries"] = entries
        if update.meta is not None:  # v1's plan update is the plan: its `_meta`
            raw["_meta"] = update.meta
        return [ops.ReplacePlan(MAIN_PLAN_ID, "items", entries, raw)]

    def _commands(self, update: v1.AvailableCommandsUpdate) -> list[ops.Op]:
        return [ops.SetAvailableCommands(json_list(update.available_commands))]

    def config_options(self, options: Sequence[JSONObject]) -> list[JSONObject]:
        """The config options to store for this session.

        The agent's options, plus the mode option synthesised from `modes` (kept
        across list replacements while the agent offers no mode option of its own).
        """
        result = with_modes(options, self.modes)
        self.mode_synthesised = len(result) > len(options)
        return result

    def _config(self, update: v1.ConfigOptionUpdate) -> list[ops.Op]:
        return [
            ops.SetConfigOptions(self.config_options(json_list(update.config_options)))
        ]

    def _mode(self, update: v1.CurrentModeUpdate) -> list[ops.Op]:
        if self.modes is not None:
            self.modes = self.modes.model_copy(
                update={"current_mode_id": update.current_mode_id}
            )
        options = [dict(o) for o in self._store.config_options]
        for option in options:
            if _is_mode_select(option):
                option["currentValue"] = update.current_mode_id
                return [ops.SetConfigOptions(options)]
        return [ops.RecordUnknownUpdate(to_wire(update))]  # no mode option known

    def _info(self, update: v1.SessionInfoUpdate) -> list[ops.Op]:
        return [
            ops.PatchSessionInfo(
                title=patch(update, "title"),
                updated_at=patch(update, "updated_at"),
                meta=patch(update, "meta"),
            )
        ]

    def _usage(self, update: v1.UsageUpdate) -> list[ops.Op]:
        return [
            ops.PatchUsage(
                used=update.used,
                size=update.size,
                cost=patch(update, "cost", to_wire),
                meta=patch(update, "meta"),
            )
        ]
