"""The client's inbound path for one session, synchronous, for the fuzz tests.

`FuzzSession.receive(params)` does what `AcpClient.handle_notification` and
`_apply_update` do with a `session/update`: params that are not an object or name
another session are ignored; the rest go through a fresh `json.loads` copy (what
`framing.decode_line` hands over), the version's notification model, its
translator, the session's `MessageOrigins` (which marks the user messages the
agent wrote itself) and `SessionStore.apply_many`.

The only exception allowed anywhere on that path is the one the client catches:
`pydantic.ValidationError` from the notification model (a rejected update). The
translator and the store must not raise at all (the client would also swallow a
`ValidationError` from the translator; here it fails the test).

The session layer's own store writes are mirrored too, so that they interleave
with updates as they do in a real session: session setup (v1 modes and config
options, v2 options and commands, which never overwrite what updates reported), a
v1 prompt (the user message, the turn's running and idle states, the
translator's message boundaries), a cancel, and a permission request (its
tool-call subject, the request, its outcome). `tests/fuzz/test_replay.py` drives the
real `AcpClient` and checks that this mirror agrees with it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal, TypeAlias

from pydantic import ValidationError

from acp_tui.client import v1 as translate_v1
from acp_tui.client import v2 as translate_v2
from acp_tui.client._wire import json_list
from acp_tui.client.message_origins import MessageOrigins
from acp_tui.protocol.schema import v1, v2
from acp_tui.protocol.schema._base import to_wire
from acp_tui.store import ops
from acp_tui.store.changes import Change
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject
from tests.fuzz.wire import SESSION_ID

Version: TypeAlias = Literal[1, 2]
Outcome: TypeAlias = Literal["applied", "rejected", "ignored"]
_Request: TypeAlias = tuple[
    "str | None",  # title
    "str | None",  # description
    "JSONObject | None",  # subject
    "list[JSONObject]",  # options
    "str | None",  # tool call id
    "JSONObject | None",  # _meta
]


def wire_copy(value: Any) -> Any:
    """`value` as the client receives it: a fresh `json.loads` of its JSON text."""
    return json.loads(json.dumps(value))


class FuzzSession:
    """One session's store, fed the way `AcpClient` feeds it."""

    def __init__(self, version: Version, store: SessionStore | None = None) -> None:
        self.version: Version = version
        self.store = SessionStore(SESSION_ID) if store is None else store
        self.v1 = translate_v1.V1Translator(self.store) if version == 1 else None
        self.origins = MessageOrigins(self.store)
        self.changes: list[Change] = []
        """The changes of the last call (one notification, request or action)."""
        self._permissions = 0

    def _apply(self, operations: Sequence[ops.Op]) -> None:
        self.changes.extend(self.store.apply_many(operations))

    # --- inbound -------------------------------------------------------------

    def receive(self, params: Any) -> Outcome:
        """One `session/update` notification's params, as the client handles them."""
        self.changes = []
        if not isinstance(params, dict) or params.get("sessionId") != SESSION_ID:
            return "ignored"  # not a session this client has open
        params = wire_copy(params)
        try:
            if self.v1 is not None:
                update1 = v1.SessionNotification.model_validate(params).update
            else:
                update2 = v2.UpdateSessionNotification.model_validate(params).update
        except ValidationError:
            return "rejected"
        if self.v1 is not None:
            operations = self.v1.translate_update(update1)
        else:
            operations = translate_v2.translate_update(update2)
        self._apply(self.origins.mark(operations))
        return "applied"

    def permission(self, params: Any, answer: str | None) -> Outcome:
        """A `session/request_permission` request, answered `answer` (or cancelled).

        Mirrors `AcpClient._permission`: a rejected request is answered with an
        error by the dispatcher and changes nothing.
        """
        self.changes = []
        params = wire_copy(params)
        try:
            if self.version == 1:
                request1 = v1.RequestPermissionRequest.model_validate(params)
            else:
                request2 = v2.RequestPermissionRequest.model_validate(params)
        except ValidationError:
            return "rejected"
        if self.version == 1:
            request = self._permission_v1(request1)
        else:
            request = self._permission_v2(request2)
        self._permissions += 1
        permission_id = str(self._permissions)
        self._apply([ops.AddPermission(permission_id, *request)])
        offered = {str(o["optionId"]) for o in request[3]}
        outcome: JSONObject = (
            {"outcome": "selected", "optionId": answer}
            if answer is not None and answer in offered
            else {"outcome": "cancelled"}
        )
        self._apply([ops.ResolvePermission(permission_id, outcome)])
        return "applied"

    def _permission_v1(self, request: v1.RequestPermissionRequest) -> _Request:
        self._apply([translate_v1.tool_call_patch(request.tool_call)])
        tool_call = self.store.tool_call(request.tool_call.tool_call_id)
        return (
            tool_call.title if tool_call is not None else None,
            None,
            {"type": "tool_call", "toolCall": to_wire(request.tool_call)},
            [to_wire(o) for o in request.options],
            request.tool_call.tool_call_id,
            request.meta,
        )

    def _permission_v2(self, request: v2.RequestPermissionRequest) -> _Request:
        subject = request.subject
        tool_call_id: str | None = None
        if isinstance(subject, v2.ToolCallPermissionSubject):
            self._apply([translate_v2.tool_call_patch(subject.tool_call)])
            tool_call_id = subject.tool_call.tool_call_id
        elif isinstance(subject, v2.CommandPermissionSubject):
            tool_call_id = subject.tool_call_id
        return (
            request.title,
            request.description,
            None if subject is None else to_wire(subject),
            [to_wire(o) for o in request.options],
            tool_call_id,
            request.meta,
        )

    # --- the session layer's own writes --------------------------------------

    def setup_v1(self, result: Any) -> Outcome:
        """A v1 `session/new` / `session/load` result: modes and config options."""
        assert self.v1 is not None
        self.changes = []
        try:
            response = v1.NewSessionResponse.model_validate(wire_copy(result))
        except ValidationError:
            return "rejected"
        self.v1.modes = response.modes
        options = self.v1.config_options(json_list(response.config_options or []))
        if options and not self.store.config_options:
            self._apply([ops.SetConfigOptions(options)])
        return "applied"

    def setup_v2(self, result: Any) -> Outcome:
        """A v2 `session/new` / `session/resume` result: options and commands."""
        assert self.v1 is None
        self.changes = []
        try:
            response = v2.NewSessionResponse.model_validate(wire_copy(result))
        except ValidationError:
            return "rejected"
        options = translate_v2.config_options(json_list(response.config_options))
        commands = json_list(response.available_commands)
        writes: list[ops.Op] = []
        if options and not self.store.config_options:
            writes.append(ops.SetConfigOptions(options))
        if commands and not self.store.commands:
            writes.append(ops.SetAvailableCommands(commands))
        self._apply(writes)
        return "applied"

    def prompt(self, blocks: Sequence[JSONObject]) -> None:
        """The start of a turn: v1 stores the user message and a running state."""
        self.changes = []
        if self.v1 is None:
            self.origins.prompt_sent(blocks)
            return  # v2: the agent reports the user message
        self.v1.end_message()
        message_id = self.v1.new_message_id("user")
        self._apply([ops.UpsertMessage(message_id, "user", content=list(blocks))])
        self.v1.end_message()
        self._apply([ops.SetState("running")])

    def turn_end(self, stop_reason: str | None) -> None:
        """The end of a v1 turn (the `session/prompt` response, or its failure)."""
        self.changes = []
        if self.v1 is None:
            self._apply(self.origins.turn_ended())
            return  # v2: an idle state_update ends the turn
        self.v1.end_message()
        raw = None if stop_reason is None else {"stopReason": stop_reason}
        self._apply([ops.SetState("idle", stop_reason, raw=raw)])

    def cancel(self) -> None:
        """The user cancelled: unfinished tool calls are marked cancelled."""
        self.changes = []
        self._apply([ops.CancelUnfinishedToolCalls()])
