"""ACP v2 wire models: spec examples, open unions, leniency, [Δ2.4], three states.

Schema revisions: "alpha.3" is `acp-schema/v2/schema.json` (what the models follow);
"2.4" is `acp-schema/ts-sdk-2.4.0/v2/schema.json` (used only for the [Δ2.4] tolerances).
"""

from __future__ import annotations

import string
from collections.abc import Callable
from functools import cache
from typing import Any, Final

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from pydantic import BaseModel, ValidationError

from acp_tui.protocol.schema import v2
from acp_tui.protocol.schema._base import (
    UNSET,
    LenientAdapter,
    MethodSpec,
    WireModel,
    field_state,
    to_wire,
)
from tests.spec_examples import SCHEMAS, Example, load_schema, spec_examples

ALPHA3: Final = "v2/schema.json"
DRAFT24: Final = "ts-sdk-2.4.0/v2/schema.json"
UNSTABLE24: Final = "ts-sdk-2.4.0/v2/schema.unstable.json"
"""The 2.4 draft's unstable schema: markdown and file plans, `plan_removed`."""

needs_schemas = pytest.mark.skipif(
    not SCHEMAS.is_dir(), reason=f"reference schemas missing: {SCHEMAS}"
)

HYPOTHESIS: Final = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

SESSION_UPDATE: Final = LenientAdapter[Any](v2.SessionUpdate)


@cache
def _validator(schema: str, definition: str | None) -> Any:
    root = load_schema(schema)
    if definition is None:
        return Draft202012Validator(root)
    return Draft202012Validator(
        {"$ref": f"#/$defs/{definition}", "$defs": root["$defs"]}
    )


def _schema_errors(schema: str, definition: str | None, instance: Any) -> list[str]:
    validator = _validator(schema, definition)
    return [
        f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(instance)
    ]


def _assert_valid(schema: str, definition: str | None, instance: Any) -> None:
    errors = _schema_errors(schema, definition, instance)
    assert not errors, f"{schema} {definition or 'root'}: {errors}"


def _notification(update: dict[str, Any]) -> dict[str, Any]:
    return {"sessionId": "sess_1", "update": update}


def _round_trip(model_cls: type[WireModel], payload: dict[str, Any]) -> WireModel:
    model = model_cls.model_validate(payload)
    assert to_wire(model) == payload
    return model


def _update(payload: dict[str, Any]) -> BaseModel:
    """Round-trip one session update through `session/update` params; return it."""
    note = _round_trip(v2.UpdateSessionNotification, _notification(payload))
    assert isinstance(note, v2.UpdateSessionNotification)
    return note.update


# ------------------------------------------------------------------------------------
# 1. Every complete v2 example in the docs
# ------------------------------------------------------------------------------------

V2_EXAMPLES: Final = tuple(e for e in spec_examples() if e.version == 2)

RESPONSE_METHOD: Final = {
    # Bare `{}` results shown without their request; both are the prompt ack.
    "v2/migration.mdx#8": "session/prompt",
    "rfds-v2/prompt.mdx#1": "session/prompt",
}

NOT_ALPHA3: Final = {
    "v2/migration.mdx#1": "v1 initialize request shown for contrast: no `info`",
    "v2/migration.mdx#3": "v1 initialize result shown for contrast: no `info`",
    "v2/authentication.mdx#1": "abbreviated initialize result: omits required `info`",
    "v2/authentication.mdx#4": "abbreviated initialize params: omits required `info`",
    "v2/extensibility.mdx#6": "abbreviated initialize result: omits required `info`",
    "v2/session-delete.mdx#1": "abbreviated initialize result: omits required `info`",
    "v2/session-setup.mdx#13": "abbreviated initialize result: omits required `info`",
}
"""Examples that are not valid alpha.3. All lack `info`, which the models require (a v2
initialize without `info` is a v1 body: checklist §4.2). They are checked to fail, then
completed with an `info` and round-tripped. (`v2/migration.mdx#7`, the v1 prompt result
`{stopReason}`, is alpha.3-valid: `PromptResponse` allows extra keys.)"""

_NOTIFICATIONS: Final = {
    **v2.AGENT_NOTIFICATIONS,
    **v2.CLIENT_NOTIFICATIONS,
    **v2.PROTOCOL_NOTIFICATIONS,
}
_METHODS: Final[dict[str, MethodSpec]] = {**v2.AGENT_METHODS, **v2.CLIENT_METHODS}


def _model_for(example: Example) -> tuple[type[WireModel], str]:
    """The model of an example's payload, and the payload's key in the message."""
    message = example.message
    if example.kind == "response":
        if "error" in message:
            return v2.Error, "error"
        method = RESPONSE_METHOD.get(example.source, example.method)
        assert method, f"{example.source}: unmatched response, add to RESPONSE_METHOD"
        if method.startswith("_"):
            return v2.ExtResponse, "result"
        return _METHODS[method].result, "result"
    method = example.method
    assert method is not None
    if method.startswith("_"):
        ext = v2.ExtRequest if example.kind == "request" else v2.ExtNotification
        return ext, "params"
    if example.kind == "request":
        return _METHODS[method].params, "params"
    return _NOTIFICATIONS[method], "params"


def _check_example(example: Example, payload: dict[str, Any]) -> None:
    model_cls, key = _model_for(example)
    wire = to_wire(_round_trip(model_cls, payload))
    _assert_valid(ALPHA3, None, {**example.message, key: wire})
    _assert_valid(ALPHA3, model_cls.__name__, wire)


@needs_schemas
@pytest.mark.parametrize(
    "example",
    [e for e in V2_EXAMPLES if e.source not in NOT_ALPHA3],
    ids=lambda e: e.source,
)
def test_spec_example_round_trips_and_validates(example: Example) -> None:
    _, key = _model_for(example)
    _check_example(example, example.message[key])


@needs_schemas
@pytest.mark.parametrize("source", sorted(NOT_ALPHA3))
def test_not_alpha3_example_is_rejected_then_completed(source: str) -> None:
    (example,) = (e for e in V2_EXAMPLES if e.source == source)
    model_cls, key = _model_for(example)
    payload = example.message[key]
    assert "info" not in payload
    assert _schema_errors(ALPHA3, model_cls.__name__, payload), "valid now: unlist it"
    with pytest.raises(ValidationError, match="info"):
        model_cls.model_validate(payload)
    _check_example(example, {**payload, "info": {"name": "peer", "version": "1.0.0"}})


@needs_schemas
def test_example_lists_are_exact() -> None:
    sources = {e.source for e in V2_EXAMPLES}
    assert set(NOT_ALPHA3) <= sources
    assert set(RESPONSE_METHOD) <= sources
    unmatched = {e.source for e in V2_EXAMPLES if e.kind == "response" and not e.method}
    assert unmatched == set(RESPONSE_METHOD)
    assert len(V2_EXAMPLES) >= 80


# ------------------------------------------------------------------------------------
# 2. Unknown values survive; known tags with malformed payloads fail
# ------------------------------------------------------------------------------------

UNKNOWN_VALUES: Final[dict[str, dict[str, Any]]] = {
    "tool kind and status": {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t",
        "kind": "_acme_deploy",
        "status": "awaiting_review",
    },
    "stop reason": {
        "sessionUpdate": "state_update",
        "state": "idle",
        "stopReason": "_x",
    },
    "state": {"sessionUpdate": "state_update", "state": "compacting", "eta": 3},
    "plan entry priority and status": {
        "sessionUpdate": "plan_update",
        "plan": {
            "type": "items",
            "planId": "p",
            "entries": [{"content": "c", "priority": "urgent", "status": "_blocked"}],
        },
    },
    "plan type": {  # not "markdown"/"file": stable alpha.3 rejects the unstable types
        "sessionUpdate": "plan_update",
        "plan": {"type": "_acme_board", "planId": "p2", "columns": ["todo"]},
    },
    "content block type": {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "m",
        "content": {"type": "_acme_chart", "series": [1, 2]},
    },
    "content annotations": {
        "sessionUpdate": "user_message",
        "messageId": "m",
        "content": [
            {"type": "text", "text": "t", "annotations": {"audience": ["_bot"]}},
            {
                "type": "resource_link",
                "name": "n",
                "uri": "file:///a",
                "icons": [{"src": "https://i/x.png", "theme": "sepia"}],
            },
        ],
    },
    "tool call content type": {
        "sessionUpdate": "tool_call_content_chunk",
        "toolCallId": "t",
        "content": {"type": "_acme_table", "rows": []},
    },
    "diff operation, file type and patch format": {
        "sessionUpdate": "tool_call_content_chunk",
        "toolCallId": "t",
        "content": {
            "type": "diff",
            "changes": [
                {"operation": "chmod", "path": "/a", "mode": "755"},
                {"operation": "modify", "path": "/b", "fileType": "_socket"},
            ],
            "patch": {"format": "unified_v3", "text": "..."},
        },
    },
    "config option type and category": {
        "sessionUpdate": "config_option_update",
        "configOptions": [
            {"configId": "c", "name": "C", "type": "_slider", "min": 0},
            {
                "configId": "d",
                "name": "D",
                "category": "_acme",
                "type": "boolean",
                "currentValue": True,
            },
        ],
    },
    "command input type": {
        "sessionUpdate": "available_commands_update",
        "availableCommands": [
            {"name": "n", "description": "d", "input": {"type": "_choice", "of": ["a"]}}
        ],
    },
    "session update (vendor)": {
        "sessionUpdate": "_vendor_thing",
        "payload": {"a": [1]},
    },
    "session update (future)": {"sessionUpdate": "agent_mood", "mood": "curious"},
}


@needs_schemas
@pytest.mark.parametrize("update", UNKNOWN_VALUES.values(), ids=list(UNKNOWN_VALUES))
def test_unknown_values_survive(update: dict[str, Any]) -> None:
    _update(update)
    _assert_valid(ALPHA3, "UpdateSessionNotification", _notification(update))


def test_unknown_variants_parse_into_unknown_models() -> None:
    unknown = _update({"sessionUpdate": "_vendor_thing", "x": 1})
    assert isinstance(unknown, v2.UnknownSessionUpdate)
    assert unknown.session_update == "_vendor_thing"
    assert unknown.model_extra == {"x": 1}
    state = _update({"sessionUpdate": "state_update", "state": "compacting"})
    assert isinstance(state, v2.UnknownStateUpdate)
    plan = _update(UNKNOWN_VALUES["plan type"])
    assert isinstance(plan, v2.PlanUpdate)
    assert isinstance(plan.plan, v2.UnknownPlanUpdateContent)
    assert plan.plan.plan_id == "p2"
    diff = _update(UNKNOWN_VALUES["diff operation, file type and patch format"])
    assert isinstance(diff, v2.ToolCallContentChunk)
    assert isinstance(diff.content, v2.Diff)
    assert [type(c) for c in diff.content.changes] == [
        v2.UnknownDiffChange,
        v2.DiffPathChange,
    ]


@needs_schemas
def test_unknown_permission_subject_and_outcome_survive() -> None:
    request = {
        "sessionId": "s",
        "title": "Allow?",
        "subject": {"type": "_acme_network", "host": "example.com"},
        "options": [{"optionId": "o", "name": "Sure", "kind": "_allow_for_a_while"}],
    }
    model = _round_trip(v2.RequestPermissionRequest, request)
    assert isinstance(model, v2.RequestPermissionRequest)
    assert isinstance(model.subject, v2.UnknownPermissionSubject)
    _assert_valid(ALPHA3, "RequestPermissionRequest", request)
    response = {"outcome": {"outcome": "_deferred", "until": "later"}}
    answer = _round_trip(v2.RequestPermissionResponse, response)
    assert isinstance(answer, v2.RequestPermissionResponse)
    assert isinstance(answer.outcome, v2.UnknownPermissionOutcome)
    _assert_valid(ALPHA3, "RequestPermissionResponse", response)


@needs_schemas
def test_unknown_auth_method_and_replay_cursor_survive() -> None:
    result = {
        "protocolVersion": 2,
        "info": {"name": "a", "version": "1"},
        "authMethods": [{"type": "_oauth_device", "methodId": "d", "name": "Device"}],
    }
    model = _round_trip(v2.InitializeResponse, result)
    assert isinstance(model, v2.InitializeResponse)
    assert isinstance(model.auth_methods[0], v2.UnknownAuthMethod)
    _assert_valid(ALPHA3, "InitializeResponse", result)
    resume = {
        "sessionId": "s",
        "cwd": "/p",
        "replayFrom": {"type": "message", "id": "m"},
    }
    cursor = _round_trip(v2.ResumeSessionRequest, resume)
    assert isinstance(cursor, v2.ResumeSessionRequest)
    assert isinstance(cursor.replay_from, v2.UnknownReplayFrom)
    _assert_valid(ALPHA3, "ResumeSessionRequest", resume)


_NO_META_INSIDE: Final = frozenset({"_meta", "rawInput", "rawOutput"})


def _with_meta(value: Any, depth: int = 0) -> Any:
    """Add a distinct `_meta` to every object of a payload (not inside raw JSON)."""
    if isinstance(value, list):
        return [_with_meta(item, depth + 1) for item in value]
    if not isinstance(value, dict):
        return value
    out = {
        k: v if k in _NO_META_INSIDE else _with_meta(v, depth + 1)
        for k, v in value.items()
    }
    out["_meta"] = {"example.com/depth": depth, "traceparent": "00-ab-cd-01"}
    return out


@needs_schemas
@pytest.mark.parametrize(
    "example",
    [
        e
        for e in V2_EXAMPLES
        if e.source not in NOT_ALPHA3
        and e.kind != "response"
        and e.method
        and not e.method.startswith(("_", "elicitation/"))
    ],
    ids=lambda e: e.source,
)
def test_meta_at_every_level_survives(example: Example) -> None:
    model_cls, key = _model_for(example)
    payload = _with_meta(example.message[key])
    _round_trip(model_cls, payload)
    _assert_valid(ALPHA3, model_cls.__name__, payload)


MALFORMED_KNOWN: Final[dict[str, tuple[Any, dict[str, Any]]]] = {
    "chunk without messageId": (
        SESSION_UPDATE,
        {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "x"},
        },
    ),
    "whole message without messageId": (
        SESSION_UPDATE,
        {"sessionUpdate": "user_message", "content": []},
    ),
    "chunk with a malformed text block": (
        SESSION_UPDATE,
        {
            "sessionUpdate": "agent_thought_chunk",
            "messageId": "m",
            "content": {"type": "text"},
        },
    ),
    "tool_call_update without toolCallId": (
        SESSION_UPDATE,
        {"sessionUpdate": "tool_call_update", "title": "x"},
    ),
    "tool content chunk with a malformed diff": (
        SESSION_UPDATE,
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "t",
            "content": {"type": "diff"},
        },
    ),
    "terminal chunk without data": (
        SESSION_UPDATE,
        {"sessionUpdate": "terminal_output_chunk", "terminalId": "t"},
    ),
    "items plan without entries": (
        SESSION_UPDATE,
        {"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "p"}},
    ),
    "unknown plan without planId": (
        SESSION_UPDATE,
        {"sessionUpdate": "plan_update", "plan": {"type": "markdown"}},
    ),
    "state_update without state": (SESSION_UPDATE, {"sessionUpdate": "state_update"}),
    "usage_update with negative use": (
        SESSION_UPDATE,
        {"sessionUpdate": "usage_update", "used": -1, "size": 10},
    ),
    "non-string sessionUpdate": (SESSION_UPDATE, {"sessionUpdate": 7}),
    "missing sessionUpdate": (SESSION_UPDATE, {"messageId": "m"}),
    "image block without mimeType": (
        LenientAdapter[Any](v2.ContentBlock),
        {"type": "image", "data": "AA=="},
    ),
    "move without oldPath": (
        LenientAdapter[Any](v2.DiffChange),
        {"operation": "move", "path": "/b"},
    ),
    "command subject without cwd": (
        v2.RequestPermissionRequest,
        {
            "sessionId": "s",
            "title": "t",
            "subject": {"type": "command", "command": "ls"},
            "options": [{"optionId": "o", "name": "n", "kind": "allow_once"}],
        },
    ),
    "tool_call subject without toolCall": (
        v2.RequestPermissionRequest,
        {
            "sessionId": "s",
            "title": "t",
            "subject": {"type": "tool_call"},
            "options": [{"optionId": "o", "name": "n", "kind": "allow_once"}],
        },
    ),
    "permission request without options": (
        v2.RequestPermissionRequest,
        {"sessionId": "s", "title": "t", "options": []},
    ),
    "selected outcome without optionId": (
        v2.RequestPermissionResponse,
        {"outcome": {"outcome": "selected"}},
    ),
    "boolean config value that is a string": (
        v2.SetSessionConfigOptionRequest,
        {"sessionId": "s", "configId": "c", "type": "boolean", "value": "yes"},
    ),
    "id config value that is a boolean": (
        v2.SetSessionConfigOptionRequest,
        {"sessionId": "s", "configId": "c", "type": "id", "value": True},
    ),
    "form elicitation without schema": (
        v2.CreateElicitationRequest,
        {"sessionId": "s", "mode": "form", "message": "m"},
    ),
    "url elicitation without url": (
        v2.CreateElicitationRequest,
        {"requestId": 1, "mode": "url", "message": "m", "elicitationId": "e"},
    ),
    "elicitation without a scope": (
        v2.CreateElicitationRequest,
        {"mode": "_future", "message": "m"},
    ),
    "closed elicitation action": (v2.CreateElicitationResponse, {"action": "maybe"}),
    "closed MCP transport": (
        LenientAdapter[Any](v2.McpServer),
        {"type": "sse", "name": "n", "url": "https://x"},
    ),
    "v2 initialize result without info": (
        v2.InitializeResponse,
        {"protocolVersion": 2, "agentCapabilities": {}},
    ),
}


@pytest.mark.parametrize(
    ("validator", "payload"), MALFORMED_KNOWN.values(), ids=list(MALFORMED_KNOWN)
)
def test_known_tag_with_malformed_payload_fails(
    validator: Any, payload: dict[str, Any]
) -> None:
    if isinstance(validator, LenientAdapter):
        validate = validator.validate_python
    else:
        validate = validator.model_validate
    with pytest.raises(ValidationError):
        validate(payload)


@needs_schemas
@pytest.mark.parametrize(
    "payload",
    [p for v, p in MALFORMED_KNOWN.values() if v is SESSION_UPDATE],
    ids=[k for k, (v, _) in MALFORMED_KNOWN.items() if v is SESSION_UPDATE],
)
def test_schema_agrees_malformed_updates_are_invalid(payload: dict[str, Any]) -> None:
    assert _schema_errors(ALPHA3, "UpdateSessionNotification", _notification(payload))


# ------------------------------------------------------------------------------------
# Lenient parsing (x-deserialize-default-on-error / x-deserialize-skip-invalid-items)
# ------------------------------------------------------------------------------------


def test_malformed_lenient_fields_are_dropped_as_omitted() -> None:
    update = SESSION_UPDATE.validate_python(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t",
            "title": 42,
            "status": None,
            "locations": "nowhere",
            "_meta": "not an object",
        }
    )
    assert isinstance(update, v2.SessionToolCallUpdate)
    assert field_state(update, "title") is UNSET
    assert field_state(update, "locations") is UNSET
    assert field_state(update, "meta") is UNSET
    assert field_state(update, "status") is None
    assert to_wire(update) == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t",
        "status": None,
    }


def test_malformed_stop_reason_means_not_reported() -> None:
    idle = SESSION_UPDATE.validate_python(
        {"sessionUpdate": "state_update", "state": "idle", "stopReason": {"oops": 1}}
    )
    assert isinstance(idle, v2.IdleStateUpdate)
    assert field_state(idle, "stop_reason") is UNSET


def test_invalid_items_are_skipped() -> None:
    update = SESSION_UPDATE.validate_python(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t",
            "content": [
                {"type": "content", "content": {"type": "text"}},
                {"type": "terminal", "terminalId": "term"},
                "junk",
            ],
        }
    )
    assert isinstance(update, v2.ToolCallUpdate)
    assert to_wire(update)["content"] == [{"type": "terminal", "terminalId": "term"}]


def test_required_lenient_list_becomes_empty() -> None:
    update = SESSION_UPDATE.validate_python(
        {"sessionUpdate": "available_commands_update", "availableCommands": {"x": 1}}
    )
    assert isinstance(update, v2.AvailableCommandsUpdate)
    assert update.available_commands == []
    with pytest.raises(ValidationError):
        SESSION_UPDATE.validate_python({"sessionUpdate": "available_commands_update"})


def test_nested_leniency_repairs_the_innermost_object() -> None:
    chunk = SESSION_UPDATE.validate_python(
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "m",
            "content": {"type": "text", "text": "hi", "annotations": {"priority": 7}},
        }
    )
    assert isinstance(chunk, v2.ContentChunk)
    assert to_wire(chunk)["content"] == {
        "type": "text",
        "text": "hi",
        "annotations": {},
    }


# ------------------------------------------------------------------------------------
# 3. [Δ2.4] tolerances
# ------------------------------------------------------------------------------------

DELTA_UPDATES: Final[dict[str, tuple[dict[str, Any], type[BaseModel]]]] = {
    "idle stopReason error with error": (
        {
            "sessionUpdate": "state_update",
            "state": "idle",
            "stopReason": "error",
            "error": {"code": -32603, "message": "model overloaded"},
        },
        v2.IdleStateUpdate,
    ),
    "state background": (
        {
            "sessionUpdate": "state_update",
            "state": "running",
            "background": [
                {"type": "terminal", "terminalId": "term_1"},
                {"type": "tool_call", "toolCallId": "call_1"},
                {"type": "_acme_job", "jobId": "j"},
            ],
        },
        v2.RunningStateUpdate,
    ),
    "notice": (
        {
            "sessionUpdate": "notice",
            "severity": "warning",
            "title": "Rate limited",
            "description": "Retrying in 5s",
        },
        v2.Notice,
    ),
    "compaction_update": (
        {
            "sessionUpdate": "compaction_update",
            "compactionId": "c1",
            "status": "completed",
            "summary": [{"type": "text", "text": "Summary"}],
        },
        v2.CompactionUpdate,
    ),
    "compaction_summary_chunk": (
        {
            "sessionUpdate": "compaction_summary_chunk",
            "compactionId": "c1",
            "content": {"type": "text", "text": "more"},
        },
        v2.CompactionSummaryChunk,
    ),
    "tool_call_update name, capabilities, paused": (
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "call_1",
            "name": "bash",
            "status": "paused",
            "capabilities": {"cancel": {}},
        },
        v2.SessionToolCallUpdate,
    ),
    "terminal_update size, capabilities, negative exit": (
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "term_1",
            "size": {"cols": 120, "rows": 40},
            "capabilities": {"cancel": {}},
            "exitStatus": {"exitCode": -1},
        },
        v2.TerminalUpdate,
    ),
    "commands tagged type command": (
        {
            "sessionUpdate": "available_commands_update",
            "availableCommands": [
                {"type": "command", "name": "web", "description": "Search"},
                {"type": "_macro", "name": "m", "description": "Macro", "steps": 3},
            ],
        },
        v2.AvailableCommandsUpdate,
    ),
    "diff patch _meta": (
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "call_1",
            "content": {
                "type": "diff",
                "changes": [{"operation": "add", "path": "/a"}],
                "patch": {
                    "format": "git_patch",
                    "text": "diff --git",
                    "_meta": {"k": 1},
                },
            },
        },
        v2.ToolCallContentChunk,
    ),
}


@needs_schemas
@pytest.mark.parametrize(
    ("update", "model_cls"), DELTA_UPDATES.values(), ids=list(DELTA_UPDATES)
)
def test_delta24_session_updates(
    update: dict[str, Any], model_cls: type[BaseModel]
) -> None:
    assert type(_update(update)) is model_cls
    _assert_valid(DRAFT24, "UpdateSessionNotification", _notification(update))


def test_delta24_update_details() -> None:
    idle = _update(DELTA_UPDATES["idle stopReason error with error"][0])
    assert isinstance(idle, v2.IdleStateUpdate)
    assert idle.stop_reason == "error"
    assert idle.error is not None
    assert idle.error.code == v2.ErrorCode.INTERNAL_ERROR
    running = _update(DELTA_UPDATES["state background"][0])
    assert isinstance(running, v2.RunningStateUpdate)
    assert running.background is not None
    assert [type(w) for w in running.background] == [
        v2.BackgroundTerminal,
        v2.BackgroundToolCall,
        v2.UnknownBackgroundWork,
    ]
    commands = _update(DELTA_UPDATES["commands tagged type command"][0])
    assert isinstance(commands, v2.AvailableCommandsUpdate)
    assert [c.type for c in commands.available_commands] == ["command", "_macro"]


DELTA_RESULTS: Final[dict[str, tuple[str, str, dict[str, Any]]]] = {
    "prompt ack {messageId}": ("session/prompt", "result", {"messageId": "msg_user_1"}),
    "session/new availableCommands": (
        "session/new",
        "result",
        {
            "sessionId": "s",
            "availableCommands": [{"type": "command", "name": "n", "description": "d"}],
        },
    ),
    "session/resume availableCommands": (
        "session/resume",
        "result",
        {"availableCommands": [{"type": "command", "name": "n", "description": "d"}]},
    ),
    "tool_call/cancel params": (
        "tool_call/cancel",
        "params",
        {"sessionId": "s", "toolCallId": "call_1"},
    ),
    "tool_call/cancel result": ("tool_call/cancel", "result", {}),
    "terminal/cancel params": (
        "terminal/cancel",
        "params",
        {"sessionId": "s", "terminalId": "term_1"},
    ),
    "terminal/cancel result": ("terminal/cancel", "result", {}),
}


@needs_schemas
@pytest.mark.parametrize(
    ("method", "side", "payload"), DELTA_RESULTS.values(), ids=list(DELTA_RESULTS)
)
def test_delta24_methods(method: str, side: str, payload: dict[str, Any]) -> None:
    spec = v2.AGENT_METHODS[method]
    model_cls = spec.params if side == "params" else spec.result
    _round_trip(model_cls, payload)
    _assert_valid(DRAFT24, model_cls.__name__, payload)


def test_prompt_ack_alpha3_and_delta24_shapes() -> None:
    empty = v2.PromptResponse.model_validate({})
    assert field_state(empty, "message_id") is UNSET
    assert v2.PromptResponse.model_validate({"messageId": "m"}).message_id == "m"


@needs_schemas
def test_delta24_unsupported_protocol_version_error() -> None:
    error = {
        "code": -32022,
        "message": "Unsupported protocol version",
        "data": {"requested": 3, "supported": [1, 2]},
    }
    model = _round_trip(v2.Error, error)
    assert isinstance(model, v2.Error)
    assert model.code == v2.ErrorCode.UNSUPPORTED_PROTOCOL_VERSION
    data = v2.UnsupportedProtocolVersionErrorData.model_validate(model.data)
    assert data.supported == [1, 2]
    _assert_valid(DRAFT24, "Error", error)
    _assert_valid(ALPHA3, "Error", error)


@needs_schemas
def test_untagged_commands_are_alpha3_and_tagged_ones_are_delta24() -> None:
    untagged = {
        "sessionUpdate": "available_commands_update",
        "availableCommands": [{"name": "web", "description": "Search"}],
    }
    commands = _update(untagged)
    assert isinstance(commands, v2.AvailableCommandsUpdate)
    assert field_state(commands.available_commands[0], "type") is UNSET
    _assert_valid(ALPHA3, "UpdateSessionNotification", _notification(untagged))
    assert _schema_errors(DRAFT24, "UpdateSessionNotification", _notification(untagged))


# ------------------------------------------------------------------------------------
# 4. Properties: three-state patch fields; unknown names and _meta survive
# ------------------------------------------------------------------------------------

_JSON: Final = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
_VALUE: Final = _JSON.filter(lambda v: v is not None)
_META: Final = st.dictionaries(st.text(max_size=8), _JSON, max_size=3)
_TEXT: Final = st.text(max_size=12)
_PATH: Final = st.sampled_from(["/", "/home/u/p", "/tmp/a b/c.py"])
_BLOCK: Final = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, _TEXT),
    st.just({"type": "resource_link", "name": "n", "uri": "file:///a"}),
    st.just({"type": "_acme_chart", "points": [1, 2]}),
)
_TOOL_CONTENT: Final = st.sampled_from(
    [
        {"type": "content", "content": {"type": "text", "text": "out"}},
        {"type": "terminal", "terminalId": "term_1"},
        {
            "type": "diff",
            "changes": [{"operation": "delete", "path": "/a"}],
            "patch": None,
        },
        {"type": "_acme_table", "rows": [[1]]},
    ]
)
_LOCATION: Final = st.fixed_dictionaries(
    {"path": _PATH}, optional={"line": st.none() | st.integers(0, 10_000)}
)
_OPEN_ENUM: Final = st.sampled_from(["read", "pending", "_x", "future_value"])
_CAPS: Final = st.sampled_from([{}, {"cancel": {}}, {"cancel": None}])

PATCH_CASES: Final[
    dict[str, tuple[dict[str, Any], dict[str, st.SearchStrategy[Any]]]]
] = {
    kind: (
        {"sessionUpdate": kind, "messageId": "m"},
        {"content": st.lists(_BLOCK, max_size=3), "_meta": _META},
    )
    for kind in ("user_message", "agent_message", "agent_thought")
} | {
    "tool_call_update": (
        {"sessionUpdate": "tool_call_update", "toolCallId": "call_1"},
        {
            "name": _TEXT,
            "title": _TEXT,
            "kind": _OPEN_ENUM,
            "status": _OPEN_ENUM,
            "content": st.lists(_TOOL_CONTENT, max_size=3),
            "locations": st.lists(_LOCATION, max_size=2),
            "rawInput": _VALUE,
            "rawOutput": _VALUE,
            "capabilities": _CAPS,
            "_meta": _META,
        },
    ),
    "terminal_update": (
        {"sessionUpdate": "terminal_update", "terminalId": "term_1"},
        {
            "command": _TEXT,
            "cwd": _PATH,
            "output": st.builds(
                lambda d: {"data": d}, st.sampled_from(["", "aGk=", "G1szMW0="])
            ),
            "exitStatus": st.fixed_dictionaries(
                {},
                optional={
                    "exitCode": st.none() | st.integers(-255, 255),
                    "signal": st.none() | st.sampled_from(["SIGTERM", "SIGKILL"]),
                },
            ),
            "size": st.builds(
                lambda c, r: {"cols": c, "rows": r},
                st.integers(1, 500),
                st.integers(1, 200),
            ),
            "capabilities": _CAPS,
            "_meta": _META,
        },
    ),
    "session_info_update": (
        {"sessionUpdate": "session_info_update"},
        {"title": _TEXT, "updatedAt": st.just("2026-08-20T10:00:00Z"), "_meta": _META},
    ),
    "usage_update": (
        {"sessionUpdate": "usage_update", "used": 5, "size": 100},
        {
            "cost": st.builds(
                lambda a, c: {"amount": a, "currency": c},
                st.floats(0, 1e6, allow_nan=False),
                st.sampled_from(["USD", "EUR"]),
            ),
            "_meta": _META,
        },
    ),
}


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return to_wire(value)
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _field_name(model: BaseModel, wire_key: str) -> str:
    for name, info in type(model).model_fields.items():
        if info.alias == wire_key:
            return name
    raise AssertionError(f"{type(model).__name__} has no field {wire_key}")


@pytest.mark.parametrize("case", sorted(PATCH_CASES))
@HYPOTHESIS
@given(data=st.data())
def test_patch_fields_keep_three_states(case: str, data: st.DataObject) -> None:
    base, fields = PATCH_CASES[case]
    update = dict(base)
    chosen: dict[str, str] = {}
    for key, values in fields.items():
        chosen[key] = data.draw(
            st.sampled_from(["omitted", "null", "value"]), label=key
        )
        if chosen[key] == "null":
            update[key] = None
        elif chosen[key] == "value":
            update[key] = data.draw(values, label=f"{key} value")
    model = _update(update)
    for key, how in chosen.items():
        state = field_state(model, _field_name(model, key))
        if how == "omitted":
            assert state is UNSET, key
        elif how == "null":
            assert state is None, key
        else:
            assert state is not UNSET
            assert state is not None
            assert _plain(state) == update[key], key


def test_every_patch_field_is_covered() -> None:
    """The property above draws every optional field of each patch-style update."""
    for case, (base, fields) in PATCH_CASES.items():
        model = _update(base)
        optional = {
            info.alias
            for info in type(model).model_fields.values()
            if not info.is_required() and info.alias not in base
        }
        assert optional == set(fields), case


_NAME: Final = st.text(alphabet=string.ascii_lowercase + "_", min_size=1, max_size=16)
_EXTRA_KEY: Final = st.text(alphabet=string.ascii_letters, min_size=1, max_size=8)


@HYPOTHESIS
@given(
    tag=_NAME.filter(lambda s: s not in v2.SESSION_UPDATE_TYPES),
    extra=st.dictionaries(
        _EXTRA_KEY.filter(lambda k: k not in {"sessionUpdate", "meta"}),
        _JSON,
        max_size=4,
    ),
    meta=_META,
)
def test_unknown_session_update_types_survive(
    tag: str, extra: dict[str, Any], meta: dict[str, Any]
) -> None:
    update = {"sessionUpdate": tag, **extra, "_meta": meta}
    model = _update(update)
    assert isinstance(model, v2.UnknownSessionUpdate)
    assert model.session_update == tag


OPEN_ENUM_SLOTS: Final[
    dict[str, tuple[frozenset[str], Callable[[str], dict[str, Any]]]]
] = {
    "ToolKind": (
        v2.TOOL_KINDS,
        lambda v: {"sessionUpdate": "tool_call_update", "toolCallId": "t", "kind": v},
    ),
    "ToolCallStatus": (
        v2.TOOL_CALL_STATUSES,
        lambda v: {"sessionUpdate": "tool_call_update", "toolCallId": "t", "status": v},
    ),
    "StopReason": (
        v2.STOP_REASONS,
        lambda v: {"sessionUpdate": "state_update", "state": "idle", "stopReason": v},
    ),
    "state": (
        v2.SESSION_STATES,
        lambda v: {"sessionUpdate": "state_update", "state": v},
    ),
    "PlanEntryPriority and PlanEntryStatus": (
        v2.PLAN_ENTRY_PRIORITIES | v2.PLAN_ENTRY_STATUSES,
        lambda v: {
            "sessionUpdate": "plan_update",
            "plan": {
                "type": "items",
                "planId": "p",
                "entries": [{"content": "c", "priority": v, "status": v}],
            },
        },
    ),
    "plan type": (
        frozenset({"items"}),
        lambda v: {"sessionUpdate": "plan_update", "plan": {"type": v, "planId": "p"}},
    ),
    "ContentBlock type": (
        v2.CONTENT_BLOCK_TYPES,
        lambda v: {
            "sessionUpdate": "user_message_chunk",
            "messageId": "m",
            "content": {"type": v},
        },
    ),
    "ToolCallContent type": (
        frozenset({"content", "diff", "terminal"}),
        lambda v: {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "t",
            "content": {"type": v},
        },
    ),
    "DiffChange operation, DiffFileType": (
        v2.DIFF_OPERATIONS | v2.DIFF_FILE_TYPES,
        lambda v: {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t",
            "content": [{"type": "diff", "changes": [{"operation": v, "fileType": v}]}],
        },
    ),
    "SessionConfigOptionCategory": (
        v2.SESSION_CONFIG_OPTION_CATEGORIES | {"select", "boolean"},
        lambda v: {
            "sessionUpdate": "config_option_update",
            "configOptions": [{"configId": "c", "name": "n", "category": v, "type": v}],
        },
    ),
}


@pytest.mark.parametrize("slot", sorted(OPEN_ENUM_SLOTS))
@HYPOTHESIS
@given(data=st.data())
def test_unknown_enum_values_survive(slot: str, data: st.DataObject) -> None:
    known, build = OPEN_ENUM_SLOTS[slot]
    value = data.draw(_NAME.filter(lambda s: s not in known))
    _update(build(value))


# ------------------------------------------------------------------------------------
# 5. Models built in Python dump to schema-valid shapes
# ------------------------------------------------------------------------------------

_INFO: Final = v2.Implementation(name="acp-tui", title="acp-tui", version="0.1.0")

BUILT: Final[dict[str, tuple[str, Callable[[], WireModel]]]] = {
    "initialize": (
        "InitializeRequest",
        lambda: v2.InitializeRequest(
            protocol_version=2,
            info=_INFO,
            capabilities=v2.ClientCapabilities(
                elicitation=v2.ElicitationCapabilities(
                    form=v2.ElicitationFormCapabilities()
                )
            ),
        ),
    ),
    "initialize with v1 keys too": (
        "InitializeRequest",
        lambda: v2.InitializeRequest(
            protocol_version=2,
            info=_INFO,
            capabilities=v2.ClientCapabilities(),
            clientInfo={"name": "acp-tui", "version": "0.1.0"},
            clientCapabilities={
                "fs": {"readTextFile": True, "writeTextFile": True},
                "terminal": True,
            },
        ),
    ),
    "initialize result": (
        "InitializeResponse",
        lambda: v2.InitializeResponse(
            protocol_version=2,
            info=_INFO,
            capabilities=v2.AgentCapabilities(
                session=v2.SessionCapabilities(
                    prompt=v2.PromptCapabilities(image=v2.PromptImageCapabilities()),
                    mcp=v2.McpCapabilities(stdio=v2.McpStdioCapabilities()),
                )
            ),
            auth_methods=[v2.AuthMethodAgent(method_id="login", name="Log in")],
        ),
    ),
    "auth/login": ("LoginAuthRequest", lambda: v2.LoginAuthRequest(method_id="login")),
    "auth/logout": ("LogoutAuthRequest", v2.LogoutAuthRequest),
    "session/new": (
        "NewSessionRequest",
        lambda: v2.NewSessionRequest(
            cwd="/home/u/p",
            mcp_servers=[
                v2.McpServerStdio(
                    name="fs", command="/usr/bin/mcp-fs", args=["--root", "/"]
                ),
                v2.McpServerHttp(
                    name="web",
                    url="https://mcp.example.com",
                    headers=[v2.HttpHeader(name="X-Key", value="k")],
                ),
            ],
        ),
    ),
    "session/list": ("ListSessionsRequest", lambda: v2.ListSessionsRequest(cwd="/p")),
    "session/resume with replay": (
        "ResumeSessionRequest",
        lambda: v2.ResumeSessionRequest(
            session_id="s", cwd="/p", replay_from=v2.ReplayFromStart()
        ),
    ),
    "session/close": (
        "CloseSessionRequest",
        lambda: v2.CloseSessionRequest(session_id="s"),
    ),
    "session/delete": (
        "DeleteSessionRequest",
        lambda: v2.DeleteSessionRequest(session_id="s"),
    ),
    "set_config_option id": (
        "SetSessionConfigOptionRequest",
        lambda: v2.SetSessionConfigOptionRequest(
            session_id="s", config_id="mode", type="id", value="code"
        ),
    ),
    "set_config_option boolean": (
        "SetSessionConfigOptionRequest",
        lambda: v2.SetSessionConfigOptionRequest(
            session_id="s", config_id="brave", type="boolean", value=True
        ),
    ),
    "session/prompt": (
        "PromptRequest",
        lambda: v2.PromptRequest(
            session_id="s",
            prompt=[
                v2.TextContent(text="Explain"),
                v2.ResourceLink(name="main.py", uri="file:///p/main.py"),
            ],
        ),
    ),
    "session/cancel": (
        "CancelSessionNotification",
        lambda: v2.CancelSessionNotification(session_id="s"),
    ),
    "$/cancel_request": (
        "CancelRequestNotification",
        lambda: v2.CancelRequestNotification(request_id=7),
    ),
    "permission selected": (
        "RequestPermissionResponse",
        lambda: v2.RequestPermissionResponse(
            outcome=v2.SelectedPermissionOutcome(option_id="allow")
        ),
    ),
    "permission cancelled": (
        "RequestPermissionResponse",
        lambda: v2.RequestPermissionResponse(outcome=v2.CancelledPermissionOutcome()),
    ),
    "elicitation accept": (
        "CreateElicitationResponse",
        lambda: v2.CreateElicitationResponse(
            action="accept", content={"strategy": "balanced", "n": 3, "ok": True}
        ),
    ),
    "elicitation decline": (
        "CreateElicitationResponse",
        lambda: v2.CreateElicitationResponse(action="decline"),
    ),
    "agent message chunk": (
        "UpdateSessionNotification",
        lambda: v2.UpdateSessionNotification(
            session_id="s",
            update=v2.ContentChunk(
                session_update="agent_message_chunk",
                message_id="m",
                content=v2.TextContent(text="Hello"),
            ),
        ),
    ),
    "tool call update": (
        "UpdateSessionNotification",
        lambda: v2.UpdateSessionNotification(
            session_id="s",
            update=v2.SessionToolCallUpdate(
                tool_call_id="call_1",
                title="Reading",
                kind="read",
                status="pending",
                content=[v2.Terminal(terminal_id="term_1")],
            ),
        ),
    ),
    "idle": (
        "UpdateSessionNotification",
        lambda: v2.UpdateSessionNotification(
            session_id="s", update=v2.IdleStateUpdate(stop_reason="end_turn")
        ),
    ),
    "permission request with tool_call subject": (
        "RequestPermissionRequest",
        lambda: v2.RequestPermissionRequest(
            session_id="s",
            title="Run?",
            subject=v2.ToolCallPermissionSubject(
                tool_call=v2.ToolCallUpdate(tool_call_id="call_1", status="pending")
            ),
            options=[
                v2.PermissionOption(option_id="a", name="Allow", kind="allow_once")
            ],
        ),
    ),
}


@needs_schemas
@pytest.mark.parametrize(("definition", "build"), BUILT.values(), ids=list(BUILT))
def test_models_built_in_python_are_schema_valid(
    definition: str, build: Callable[[], WireModel]
) -> None:
    model = build()
    wire = to_wire(model)
    _assert_valid(ALPHA3, definition, wire)
    assert to_wire(type(model).model_validate(wire)) == wire


def test_built_models_write_constant_tags_and_only_what_was_set() -> None:
    update = v2.SessionToolCallUpdate(tool_call_id="t", title=None)
    assert to_wire(update) == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t",
        "title": None,
    }
    assert to_wire(v2.IdleStateUpdate()) == {
        "sessionUpdate": "state_update",
        "state": "idle",
    }
    assert to_wire(v2.ElicitationSchema()) == {}
    subject = v2.ToolCallPermissionSubject(
        tool_call=v2.ToolCallUpdate(tool_call_id="t")
    )
    assert to_wire(subject) == {"type": "tool_call", "toolCall": {"toolCallId": "t"}}
    # A bare ToolCallUpdate has no sessionUpdate tag (mypy says so too).
    bare = v2.ToolCallUpdate(tool_call_id="t")
    with pytest.raises(ValidationError):
        v2.UpdateSessionNotification(session_id="s", update=bare)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------
# Method tables and names
# ------------------------------------------------------------------------------------


@needs_schemas
@pytest.mark.parametrize("schema", [ALPHA3, DRAFT24])
def test_tables_cover_every_method_of_the_schema(schema: str) -> None:
    meta = load_schema(schema.replace("schema.json", "meta.json"))
    agent = set(meta["agentMethods"].values())
    ours = set(v2.AGENT_METHODS) | set(v2.AGENT_NOTIFICATIONS)
    assert agent == ours if schema == DRAFT24 else agent < ours  # alpha.3: no */cancel
    client = set(meta["clientMethods"].values())
    assert client == set(v2.CLIENT_METHODS) | set(v2.CLIENT_NOTIFICATIONS)
    assert set(meta["protocolMethods"].values()) == set(v2.PROTOCOL_NOTIFICATIONS)


@needs_schemas
def test_table_models_are_the_schema_definitions_of_their_method() -> None:
    defs = load_schema(ALPHA3)["$defs"] | load_schema(DRAFT24)["$defs"]
    pairs: list[tuple[str, type[WireModel]]] = []
    for method, spec in _METHODS.items():
        pairs += [(method, spec.params), (method, spec.result)]
    pairs += list(_NOTIFICATIONS.items())
    for method, model_cls in pairs:
        assert defs[model_cls.__name__]["x-method"] == method, model_cls.__name__


@needs_schemas
def test_class_names_are_schema_definition_names() -> None:
    defs = set(load_schema(ALPHA3)["$defs"]) | set(load_schema(DRAFT24)["$defs"])
    defs |= set(load_schema(UNSTABLE24)["$defs"])  # session_message(_chunk)
    names = {
        name
        for name, value in vars(v2).items()
        if isinstance(value, type)
        and issubclass(value, WireModel)
        and value.__module__ == v2.__name__
        and not name.startswith(("_", "Unknown"))
    }
    assert names - defs == {"SessionToolCallUpdate"}
