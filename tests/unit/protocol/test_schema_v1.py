"""ACP v1 wire models against the v1 docs, the golden SDK payloads and the schema.

Every complete JSON-RPC example in `acp-spec/v1/*.mdx` and every golden payload must
round-trip exactly (`to_wire(model_validate(x)) == x`) and the dump must satisfy
`acp-schema/v1/schema.json`. Then: open unions and enums keep unknown values, known
tags with malformed payloads fail, the lenient-parsing rules hold, patch fields keep
their three states, and models built in Python dump to schema-valid wire shapes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from pydantic import BaseModel, ValidationError

from acp_tui.protocol.schema import v1
from acp_tui.protocol.schema._base import (
    UNSET,
    LenientAdapter,
    MethodSpec,
    WireModel,
    field_state,
    to_wire,
)
from tests.spec_examples import (
    SCHEMAS,
    Example,
    fixture_files,
    load_schema,
    spec_examples,
)

if not (SCHEMAS / "v1" / "schema.json").is_file():  # pragma: no cover
    pytest.skip(
        f"ACP reference data missing: {SCHEMAS} (see tests/spec_examples.py)",
        allow_module_level=True,
    )

SCHEMA: dict[str, Any] = load_schema("v1/schema.json")
DEFS: dict[str, Any] = SCHEMA["$defs"]

HYPOTHESIS = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow],
)


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


@cache
def _validator(definition: str | None) -> Any:
    if definition is None:
        return Draft202012Validator(SCHEMA)
    return Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": DEFS})


def _schema_errors(instance: Any, definition: str | None = None) -> list[str]:
    return sorted(
        f"{list(e.absolute_path)}: {e.message}"
        for e in _validator(definition).iter_errors(instance)
    )


def assert_schema_valid(instance: Any, definition: str | None = None) -> None:
    errors = _schema_errors(instance, definition)
    where = definition or "the root schema"
    assert not errors, f"not valid against {where}:\n" + "\n".join(errors[:10])


@cache
def _adapter(tp: Any) -> LenientAdapter[Any]:
    return LenientAdapter(tp)


def parse(tp: Any, payload: Any) -> BaseModel:
    result = _adapter(tp).validate_python(payload)
    assert isinstance(result, BaseModel)
    return result


def roundtrip(tp: Any, payload: Any) -> BaseModel:
    model = parse(tp, payload)
    assert to_wire(model) == payload
    return model


def _notification(update: dict[str, Any]) -> dict[str, Any]:
    return {"sessionId": "sess_1", "update": update}


# ---------------------------------------------------------------------------
# 1. Doc examples
# ---------------------------------------------------------------------------

V1_EXAMPLES = [e for e in spec_examples() if e.version == 1]

KNOWN_DOC_ERRATA: dict[str, str] = {
    "v1/file-system.mdx#5": (
        "fs/write_text_file result shown as `null`; WriteTextFileResponse is an "
        "object. The model reads null as {} (and the client sends {})."
    ),
    "v1/session-setup.mdx#7": (
        "session/load result shown as `null`; LoadSessionResponse is an object. "
        "The model reads null as {}."
    ),
    "v1/session-modes.mdx#4": (
        "the permission request's toolCall.content holds a bare ContentBlock "
        "(`{type: text}`) instead of ToolCallContent (`{type: content, content}`). "
        "It is kept as an UnknownToolCallContent and round-trips."
    ),
    "v1/session-modes.mdx#3": (
        "current_mode_update carries `modeId`; the schema's CurrentModeUpdate "
        "requires `currentModeId`. A known tag with a malformed payload must fail."
    ),
}
"""Doc examples that contradict the v1 schema. Only the exact round-trip is skipped."""

_ERRATA_REJECTED = frozenset({"v1/session-modes.mdx#3"})

# Schema-valid but odd, so not errata: `v1/file-system.mdx#1` and `v1/terminals.mdx#1`
# show `clientCapabilities` inside an *initialize response* (it belongs to the
# request). They round-trip because unknown fields are kept.

_NOTIFICATIONS: dict[str, type[WireModel]] = {
    **v1.AGENT_NOTIFICATIONS,
    **v1.CLIENT_NOTIFICATIONS,
    **v1.PROTOCOL_NOTIFICATIONS,
}
_METHODS: dict[str, MethodSpec] = {**v1.AGENT_METHODS, **v1.CLIENT_METHODS}


def _payload_model(example: Example) -> tuple[str, type[WireModel]] | None:
    """The message key holding the payload and its model; None for extensions."""
    method = example.method
    assert method is not None, f"{example.source}: response without a request"
    if method.startswith("_"):
        return None
    if example.kind == "notification":
        return "params", _NOTIFICATIONS[method]
    spec = _METHODS[method]
    if example.kind == "request":
        return "params", spec.params
    return "result", spec.result


def test_v1_examples_were_found() -> None:
    assert len(V1_EXAMPLES) >= 70
    sources = {e.source for e in V1_EXAMPLES}
    assert set(KNOWN_DOC_ERRATA) <= sources, "stale KNOWN_DOC_ERRATA entry"


@pytest.mark.parametrize("example", V1_EXAMPLES, ids=lambda e: e.source)
def test_spec_example(example: Example) -> None:
    message = example.message
    assert_schema_valid(message)
    if "error" in message:
        error = v1.Error.model_validate(message["error"])
        assert to_wire(error) == message["error"]
        assert error.code in v1.ERROR_CODES
        assert_schema_valid(to_wire(error), "Error")
        return
    found = _payload_model(example)
    if found is None:  # an `_`-prefixed extension method: only the envelope is ACP
        return
    key, model = found
    payload = message[key]

    if example.source in KNOWN_DOC_ERRATA:
        # The erratum is real: the schema rejects the payload. Then test what the
        # model does with it: reject it, read `null` as `{}`, or keep it exactly.
        assert _schema_errors(payload, model.__name__), "erratum fixed? drop it"
        try:
            parsed = model.model_validate(payload)
        except ValidationError:
            assert example.source in _ERRATA_REJECTED
            return
        assert example.source not in _ERRATA_REJECTED
        wire = to_wire(parsed)
        if payload is None:
            assert wire == {}
            assert_schema_valid(wire, model.__name__)
        else:
            assert wire == payload
        return

    parsed = model.model_validate(payload)
    wire = to_wire(parsed)
    assert wire == payload
    assert_schema_valid(wire, model.__name__)
    assert_schema_valid({**message, key: wire})


# ---------------------------------------------------------------------------
# 2. Golden payloads (Python SDK 0.12.1)
# ---------------------------------------------------------------------------

FIXTURE_MODELS: dict[str, tuple[Any, str, type[BaseModel]]] = {
    # file name: (type to validate with, schema definition, expected model class)
    "cancel_notification.json": (
        v1.CancelNotification,
        "CancelNotification",
        v1.CancelNotification,
    ),
    "content_audio.json": (v1.ContentBlock, "ContentBlock", v1.AudioContent),
    "content_image.json": (v1.ContentBlock, "ContentBlock", v1.ImageContent),
    "content_resource_blob.json": (
        v1.ContentBlock,
        "ContentBlock",
        v1.EmbeddedResource,
    ),
    "content_resource_link.json": (v1.ContentBlock, "ContentBlock", v1.ResourceLink),
    "content_resource_text.json": (
        v1.ContentBlock,
        "ContentBlock",
        v1.EmbeddedResource,
    ),
    "content_text.json": (v1.ContentBlock, "ContentBlock", v1.TextContent),
    "fs_read_text_file_request.json": (
        v1.ReadTextFileRequest,
        "ReadTextFileRequest",
        v1.ReadTextFileRequest,
    ),
    "fs_read_text_file_response.json": (
        v1.ReadTextFileResponse,
        "ReadTextFileResponse",
        v1.ReadTextFileResponse,
    ),
    "fs_write_text_file_request.json": (
        v1.WriteTextFileRequest,
        "WriteTextFileRequest",
        v1.WriteTextFileRequest,
    ),
    "initialize_request.json": (
        v1.InitializeRequest,
        "InitializeRequest",
        v1.InitializeRequest,
    ),
    "initialize_response.json": (
        v1.InitializeResponse,
        "InitializeResponse",
        v1.InitializeResponse,
    ),
    "new_session_request.json": (
        v1.NewSessionRequest,
        "NewSessionRequest",
        v1.NewSessionRequest,
    ),
    "new_session_response.json": (
        v1.NewSessionResponse,
        "NewSessionResponse",
        v1.NewSessionResponse,
    ),
    "permission_outcome_cancelled.json": (
        v1.RequestPermissionOutcome,
        "RequestPermissionOutcome",
        v1.CancelledPermissionOutcome,
    ),
    "permission_outcome_selected.json": (
        v1.RequestPermissionOutcome,
        "RequestPermissionOutcome",
        v1.SelectedPermissionOutcome,
    ),
    "prompt_request.json": (v1.PromptRequest, "PromptRequest", v1.PromptRequest),
    "request_permission_request.json": (
        v1.RequestPermissionRequest,
        "RequestPermissionRequest",
        v1.RequestPermissionRequest,
    ),
    "request_permission_response_selected.json": (
        v1.RequestPermissionResponse,
        "RequestPermissionResponse",
        v1.RequestPermissionResponse,
    ),
    "session_update_agent_message_chunk.json": (
        v1.SessionUpdate,
        "SessionUpdate",
        v1.AgentMessageChunk,
    ),
    "session_update_agent_thought_chunk.json": (
        v1.SessionUpdate,
        "SessionUpdate",
        v1.AgentThoughtChunk,
    ),
    "session_update_config_option_update.json": (
        v1.SessionUpdate,
        "SessionUpdate",
        v1.ConfigOptionUpdate,
    ),
    "session_update_plan.json": (v1.SessionUpdate, "SessionUpdate", v1.Plan),
    "session_update_tool_call.json": (v1.SessionUpdate, "SessionUpdate", v1.ToolCall),
    "session_update_tool_call_edit.json": (
        v1.SessionUpdate,
        "SessionUpdate",
        v1.ToolCall,
    ),
    "session_update_tool_call_locations_rawinput.json": (
        v1.SessionUpdate,
        "SessionUpdate",
        v1.ToolCall,
    ),
    "session_update_tool_call_read.json": (
        v1.SessionUpdate,
        "SessionUpdate",
        v1.ToolCall,
    ),
    "session_update_tool_call_update_content.json": (
        v1.SessionUpdate,
        "SessionUpdate",
        v1.SessionToolCallUpdate,
    ),
    "session_update_tool_call_update_more_fields.json": (
        v1.SessionUpdate,
        "SessionUpdate",
        v1.SessionToolCallUpdate,
    ),
    "session_update_user_message_chunk.json": (
        v1.SessionUpdate,
        "SessionUpdate",
        v1.UserMessageChunk,
    ),
    "set_session_config_option_request.json": (
        v1.SetSessionConfigOptionRequest,
        "SetSessionConfigOptionRequest",
        v1.SetSessionConfigOptionRequest,
    ),
    "set_session_config_option_response.json": (
        v1.SetSessionConfigOptionResponse,
        "SetSessionConfigOptionResponse",
        v1.SetSessionConfigOptionResponse,
    ),
    "tool_content_content_text.json": (
        v1.ToolCallContent,
        "ToolCallContent",
        v1.Content,
    ),
    "tool_content_diff.json": (v1.ToolCallContent, "ToolCallContent", v1.Diff),
    "tool_content_diff_no_old.json": (v1.ToolCallContent, "ToolCallContent", v1.Diff),
    "tool_content_terminal.json": (
        v1.ToolCallContent,
        "ToolCallContent",
        v1.Terminal,
    ),
}

FIXTURES = fixture_files()


def test_every_fixture_has_a_model() -> None:
    assert FIXTURES, "no golden payloads found"
    assert {path.name for path in FIXTURES} == set(FIXTURE_MODELS)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_golden_payload(path: Any) -> None:
    payload = json.loads(path.read_text("utf-8"))
    tp, definition, expected = FIXTURE_MODELS[path.name]
    model = roundtrip(tp, payload)
    assert type(model) is expected
    assert_schema_valid(to_wire(model), definition)


# ---------------------------------------------------------------------------
# Method tables
# ---------------------------------------------------------------------------


def test_tables_cover_meta_json() -> None:
    meta = load_schema("v1/meta.json")
    assert meta["version"] == v1.VERSION
    assert set(meta["agentMethods"].values()) == set(v1.AGENT_METHODS) | set(
        v1.AGENT_NOTIFICATIONS
    )
    assert set(meta["clientMethods"].values()) == set(v1.CLIENT_METHODS) | set(
        v1.CLIENT_NOTIFICATIONS
    )
    assert set(meta["protocolMethods"].values()) == set(v1.PROTOCOL_NOTIFICATIONS)


def _tabled() -> Iterator[tuple[str, str, type[WireModel]]]:
    for side, methods in (("agent", v1.AGENT_METHODS), ("client", v1.CLIENT_METHODS)):
        for method, spec in methods.items():
            yield side, method, spec.params
            yield side, method, spec.result
    for side, notifications in (
        ("agent", v1.AGENT_NOTIFICATIONS),
        ("client", v1.CLIENT_NOTIFICATIONS),
        ("protocol", v1.PROTOCOL_NOTIFICATIONS),
    ):
        for method, model in notifications.items():
            yield side, method, model


@pytest.mark.parametrize(
    ("side", "method", "model"),
    list(_tabled()),
    ids=lambda x: getattr(x, "__name__", x),
)
def test_table_entry_matches_schema(
    side: str, method: str, model: type[WireModel]
) -> None:
    definition = DEFS[model.__name__]
    assert definition["x-method"] == method
    assert definition["x-side"] == side


_FOLDED_DEFS = {
    # JSON-RPC envelopes and extension catch-alls: the dispatcher's business.
    "AgentRequest": "envelope",
    "AgentResponse": "envelope",
    "AgentNotification": "envelope",
    "ClientRequest": "envelope",
    "ClientResponse": "envelope",
    "ClientNotification": "envelope",
    "ExtRequest": "extension method: any JSON",
    "ExtResponse": "extension method: any JSON",
    "ExtNotification": "extension method: any JSON",
    # Flattened into CreateElicitationRequest / CreateElicitationResponse.
    "ElicitationSessionScope": "CreateElicitationRequest",
    "ElicitationRequestScope": "CreateElicitationRequest",
    "ElicitationFormMode": "CreateElicitationRequest",
    "ElicitationUrlMode": "CreateElicitationRequest",
    "ElicitationAcceptAction": "CreateElicitationResponse",
}


@pytest.mark.parametrize("name", sorted(DEFS))
def test_every_definition_has_a_python_name(name: str) -> None:
    assert hasattr(v1, name) or name in _FOLDED_DEFS


# ---------------------------------------------------------------------------
# 3. Unknown values survive; known tags with malformed payloads fail
# ---------------------------------------------------------------------------

META = {"zed.dev/trace": {"id": [1, 2.5, None, True]}, "traceparent": "00-ab-cd-01"}


@pytest.mark.parametrize("kind", ["_vendor_thing", "weather_report"])
def test_unknown_session_update_is_kept(kind: str) -> None:
    payload = _notification(
        {
            "sessionUpdate": kind,
            "content": {"type": "text", "text": "x"},
            "nested": {"deep": [1, {"a": None}]},
            "_meta": META,
        }
    )
    model = roundtrip(v1.SessionNotification, payload)
    assert isinstance(model, v1.SessionNotification)
    assert isinstance(model.update, v1.UnknownSessionUpdate)
    assert model.update.session_update == kind
    assert model.update.model_extra == {
        "content": {"type": "text", "text": "x"},
        "nested": {"deep": [1, {"a": None}]},
    }


UNKNOWN_CONTENT = {"type": "_vendor/video", "url": "https://x", "_meta": META}


def test_unknown_content_types_are_kept_everywhere() -> None:
    chunk = roundtrip(
        v1.SessionNotification,
        _notification(
            {"sessionUpdate": "agent_message_chunk", "content": UNKNOWN_CONTENT}
        ),
    )
    assert isinstance(chunk, v1.SessionNotification)
    assert isinstance(chunk.update, v1.AgentMessageChunk)
    assert isinstance(chunk.update.content, v1.UnknownContentBlock)
    assert chunk.update.content.type == "_vendor/video"

    prompt = roundtrip(
        v1.PromptRequest,
        {"sessionId": "s", "prompt": [{"type": "text", "text": "hi"}, UNKNOWN_CONTENT]},
    )
    assert isinstance(prompt, v1.PromptRequest)
    assert isinstance(prompt.prompt[1], v1.UnknownContentBlock)

    update = roundtrip(
        v1.SessionUpdate,
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "c",
            "title": "t",
            "content": [
                {"type": "content", "content": UNKNOWN_CONTENT},
                {"type": "future_kind", "payload": {"a": 1}},
            ],
        },
    )
    assert isinstance(update, v1.ToolCall)
    first, second = update.content
    assert isinstance(first, v1.Content)
    assert isinstance(first.content, v1.UnknownContentBlock)
    assert isinstance(second, v1.UnknownToolCallContent)
    assert second.type == "future_kind"


def test_unknown_enum_values_are_kept() -> None:
    roundtrip(
        v1.SessionUpdate,
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "c",
            "title": "t",
            "kind": "_vendor_kind",
            "status": "paused",
        },
    )
    roundtrip(v1.PromptResponse, {"stopReason": "_budget_exhausted"})
    roundtrip(
        v1.SessionUpdate,
        {
            "sessionUpdate": "plan",
            "entries": [{"content": "x", "priority": "urgent", "status": "blocked"}],
        },
    )
    roundtrip(
        v1.RequestPermissionRequest,
        {
            "sessionId": "s",
            "toolCall": {"toolCallId": "c", "kind": "future", "status": "queued"},
            "options": [{"optionId": "o", "name": "n", "kind": "allow_session"}],
        },
    )
    roundtrip(
        v1.ContentBlock,
        {"type": "text", "text": "x", "annotations": {"audience": ["system"]}},
    )
    options = roundtrip(
        v1.SetSessionConfigOptionResponse,
        {
            "configOptions": [
                {
                    "id": "a",
                    "name": "A",
                    "category": "_custom",
                    "type": "boolean",
                    "currentValue": True,
                },
                {"id": "b", "name": "B", "category": "future", "type": "multi_select"},
            ]
        },
    )
    assert isinstance(options, v1.SetSessionConfigOptionResponse)
    assert isinstance(options.config_options[0], v1.SessionConfigBoolean)
    assert isinstance(options.config_options[1], v1.UnknownSessionConfigOption)


def test_meta_survives_at_every_level() -> None:
    tool_call = _notification(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "c",
            "title": "t",
            "content": [
                {
                    "type": "content",
                    "content": {
                        "type": "resource",
                        "resource": {"uri": "file:///a", "text": "x", "_meta": META},
                        "annotations": {"priority": 0.5, "_meta": META},
                        "_meta": META,
                    },
                    "_meta": META,
                },
                {"type": "diff", "path": "/a", "newText": "y", "_meta": META},
                {"type": "terminal", "terminalId": "t1", "_meta": META},
            ],
            "locations": [{"path": "/a", "line": 1, "_meta": META}],
            "_meta": META,
        }
    )
    tool_call["_meta"] = META
    model = roundtrip(v1.SessionNotification, tool_call)
    assert isinstance(model, v1.SessionNotification)
    assert model.meta == META
    assert model.update.meta == META
    assert_schema_valid(to_wire(model), "SessionNotification")

    initialize = {
        "protocolVersion": 1,
        "agentCapabilities": {
            "promptCapabilities": {"image": True, "_meta": META},
            "mcpCapabilities": {"_meta": META},
            "sessionCapabilities": {
                "list": {"_meta": META},
                "resume": {},
                "_meta": META,
            },
            "auth": {"logout": {"_meta": META}, "_meta": META},
            "_meta": META,
        },
        "authMethods": [
            {"id": "a", "name": "A", "_meta": META},
            {
                "id": "t",
                "name": "T",
                "type": "terminal",
                "args": ["login"],
                "_meta": META,
            },
        ],
        "agentInfo": {"name": "x", "version": "1", "_meta": META},
        "_meta": META,
    }
    parsed = roundtrip(v1.InitializeResponse, initialize)
    assert_schema_valid(to_wire(parsed), "InitializeResponse")

    config = {
        "sessionId": "s",
        "modes": {
            "currentModeId": "a",
            "availableModes": [{"id": "a", "name": "A", "_meta": META}],
            "_meta": META,
        },
        "configOptions": [
            {
                "id": "m",
                "name": "M",
                "type": "select",
                "currentValue": "x",
                "options": [
                    {
                        "group": "g",
                        "name": "G",
                        "options": [{"value": "x", "name": "X", "_meta": META}],
                        "_meta": META,
                    }
                ],
                "_meta": META,
            }
        ],
        "_meta": META,
    }
    parsed = roundtrip(v1.NewSessionResponse, config)
    assert_schema_valid(to_wire(parsed), "NewSessionResponse")


MALFORMED_KNOWN: list[tuple[str, Any, Any]] = [
    ("tool_call without id", v1.SessionUpdate, {"sessionUpdate": "tool_call"}),
    (
        "tool_call_update without id",
        v1.SessionUpdate,
        {"sessionUpdate": "tool_call_update", "status": "completed"},
    ),
    (
        "chunk without content",
        v1.SessionUpdate,
        {"sessionUpdate": "agent_message_chunk"},
    ),
    (
        "chunk with malformed text block",
        v1.SessionUpdate,
        {"sessionUpdate": "user_message_chunk", "content": {"type": "text"}},
    ),
    ("plan without entries", v1.SessionUpdate, {"sessionUpdate": "plan"}),
    (
        "current_mode_update with modeId",
        v1.SessionUpdate,
        {"sessionUpdate": "current_mode_update", "modeId": "code"},
    ),
    (
        "usage_update with negative usage",
        v1.SessionUpdate,
        {"sessionUpdate": "usage_update", "used": -1, "size": 10},
    ),
    ("update without tag", v1.SessionUpdate, {"title": "x"}),
    ("update with a non-string tag", v1.SessionUpdate, {"sessionUpdate": 3}),
    ("image without mimeType", v1.ContentBlock, {"type": "image", "data": "x"}),
    ("resource without contents", v1.ContentBlock, {"type": "resource"}),
    ("content block without tag", v1.ContentBlock, {"text": "x"}),
    ("diff without newText", v1.ToolCallContent, {"type": "diff", "path": "/a"}),
    ("terminal without id", v1.ToolCallContent, {"type": "terminal"}),
    (
        "select without currentValue",
        v1.SessionConfigOption,
        {"id": "a", "name": "A", "type": "select", "options": []},
    ),
    (
        "boolean with a string value",
        v1.SessionConfigOption,
        {"id": "a", "name": "A", "type": "boolean", "currentValue": "yes"},
    ),
    (
        "terminal auth method without name",
        v1.AuthMethod,
        {"id": "a", "type": "terminal"},
    ),
    # Closed unions: unknown tags are errors.
    ("unknown permission outcome", v1.RequestPermissionOutcome, {"outcome": "_maybe"}),
    (
        "selected outcome without optionId",
        v1.RequestPermissionOutcome,
        {"outcome": "selected"},
    ),
    (
        "unknown MCP transport",
        v1.McpServer,
        {"type": "ws", "name": "n", "url": "ws://x", "headers": []},
    ),
    (
        "stdio MCP server without env",
        v1.McpServer,
        {"name": "n", "command": "c", "args": []},
    ),
    ("unknown elicitation action", v1.CreateElicitationResponse, {"action": "later"}),
    (
        "unknown elicitation property type",
        v1.ElicitationSchema,
        {"properties": {"x": {"type": "date"}}},
    ),
    (
        "form elicitation without schema",
        v1.CreateElicitationRequest,
        {"sessionId": "s", "mode": "form", "message": "m"},
    ),
    (
        "url elicitation without url",
        v1.CreateElicitationRequest,
        {"requestId": 1, "mode": "url", "message": "m", "elicitationId": "e"},
    ),
    (
        "elicitation without scope",
        v1.CreateElicitationRequest,
        {"mode": "_vendor", "message": "m"},
    ),
    (
        "permission request without toolCall",
        v1.RequestPermissionRequest,
        {"sessionId": "s", "options": []},
    ),
    ("protocol version out of range", v1.InitializeRequest, {"protocolVersion": 70000}),
]


@pytest.mark.parametrize(
    ("case", "tp", "payload"), MALFORMED_KNOWN, ids=[c[0] for c in MALFORMED_KNOWN]
)
def test_malformed_known_tag_fails(case: str, tp: Any, payload: Any) -> None:
    with pytest.raises(ValidationError):
        _adapter(tp).validate_python(payload)


def test_unknown_elicitation_mode_is_kept() -> None:
    payload = {"sessionId": "s", "mode": "_vendor_wizard", "message": "m", "steps": 3}
    model = roundtrip(v1.CreateElicitationRequest, payload)
    assert_schema_valid(to_wire(model), "CreateElicitationRequest")


def test_mcp_server_stdio_has_no_type() -> None:
    stdio = {"name": "fs", "command": "/bin/fs", "args": [], "env": []}
    assert type(roundtrip(v1.McpServer, stdio)) is v1.McpServerStdio
    tagged = {**stdio, "type": "stdio"}
    assert type(roundtrip(v1.McpServer, tagged)) is v1.McpServerStdio
    http = {"type": "http", "name": "h", "url": "https://x", "headers": []}
    assert type(roundtrip(v1.McpServer, http)) is v1.McpServerHttp
    sse = {"type": "sse", "name": "h", "url": "https://x", "headers": []}
    assert type(roundtrip(v1.McpServer, sse)) is v1.McpServerSse


def test_auth_methods_without_type_are_agent_methods() -> None:
    assert (
        type(roundtrip(v1.AuthMethod, {"id": "a", "name": "A"})) is v1.AuthMethodAgent
    )
    agent = {"id": "a", "name": "A", "type": "agent"}
    assert type(roundtrip(v1.AuthMethod, agent)) is v1.AuthMethodAgent
    terminal = {"id": "t", "name": "T", "type": "terminal", "env": {"A": "1"}}
    assert type(roundtrip(v1.AuthMethod, terminal)) is v1.AuthMethodTerminal


# ---------------------------------------------------------------------------
# Lenient parsing (x-deserialize-default-on-error / -skip-invalid-items)
# ---------------------------------------------------------------------------


def test_malformed_optional_field_reads_as_omitted() -> None:
    update = parse(
        v1.SessionUpdate,
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c",
            "title": 42,
            "kind": ["edit"],
            "status": "completed",
            "_meta": "not an object",
        },
    )
    assert isinstance(update, v1.SessionToolCallUpdate)
    assert field_state(update, "title") is UNSET
    assert field_state(update, "kind") is UNSET
    assert field_state(update, "meta") is UNSET
    assert update.status == "completed"
    assert to_wire(update) == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c",
        "status": "completed",
    }


def test_malformed_capability_falls_back_to_default() -> None:
    response = parse(
        v1.InitializeResponse,
        {
            "protocolVersion": 1,
            "agentCapabilities": {
                "loadSession": "yes please",
                "promptCapabilities": [],
                "sessionCapabilities": {"list": 5, "close": {}},
            },
            "authMethods": "none",
        },
    )
    assert isinstance(response, v1.InitializeResponse)
    caps = response.agent_capabilities
    assert caps.load_session is False
    assert caps.prompt_capabilities == v1.PromptCapabilities()
    assert caps.session_capabilities.list is None
    assert caps.session_capabilities.close is not None
    assert response.auth_methods == []
    assert to_wire(response) == {
        "protocolVersion": 1,
        "agentCapabilities": {"sessionCapabilities": {"close": {}}},
    }


def test_invalid_items_are_skipped() -> None:
    update = parse(
        v1.SessionUpdate,
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "c",
            "title": "t",
            "content": [
                {"type": "diff", "path": "/a"},  # known tag, malformed: dropped
                {"type": "terminal", "terminalId": "t1"},
                "junk",
            ],
            "locations": [{"line": 3}, {"path": "/b", "line": 3}],
        },
    )
    assert isinstance(update, v1.ToolCall)
    assert [to_wire(c) for c in update.content] == [
        {"type": "terminal", "terminalId": "t1"}
    ]
    assert [loc.path for loc in update.locations] == ["/b"]

    plan = parse(
        v1.SessionUpdate,
        {
            "sessionUpdate": "plan",
            "entries": [
                {"content": "a"},
                {"content": "b", "priority": "low", "status": "x"},
            ],
        },
    )
    assert isinstance(plan, v1.Plan)
    assert [e.content for e in plan.entries] == ["b"]


def test_required_lenient_array_that_is_not_an_array_is_empty() -> None:
    plan = parse(v1.SessionUpdate, {"sessionUpdate": "plan", "entries": {"a": 1}})
    assert isinstance(plan, v1.Plan)
    assert plan.entries == []
    assert field_state(plan, "entries") == []


@pytest.mark.parametrize(
    "model",
    [
        v1.AuthenticateResponse,
        v1.LogoutResponse,
        v1.LoadSessionResponse,
        v1.ResumeSessionResponse,
        v1.CloseSessionResponse,
        v1.DeleteSessionResponse,
        v1.SetSessionModeResponse,
        v1.WriteTextFileResponse,
        v1.ReleaseTerminalResponse,
        v1.KillTerminalResponse,
        v1.WaitForTerminalExitResponse,
    ],
)
def test_empty_results_accept_null(model: type[WireModel]) -> None:
    parsed = model.model_validate(None)
    assert to_wire(parsed) == {}
    assert_schema_valid(to_wire(parsed), model.__name__)


def test_three_states_of_session_info_update() -> None:
    omitted = parse(v1.SessionUpdate, {"sessionUpdate": "session_info_update"})
    cleared = parse(
        v1.SessionUpdate, {"sessionUpdate": "session_info_update", "title": None}
    )
    assert field_state(omitted, "title") is UNSET
    assert field_state(cleared, "title") is None
    assert field_state(cleared, "updated_at") is UNSET


# ---------------------------------------------------------------------------
# 4. Properties
# ---------------------------------------------------------------------------


class _Omit:
    def __repr__(self) -> str:
        return "OMIT"


OMIT = _Omit()

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
meta_dicts = st.dictionaries(st.text(max_size=8), json_values, max_size=4)


def _open_value(known: frozenset[str]) -> st.SearchStrategy[str]:
    return st.sampled_from(sorted(known)) | st.text(max_size=12)


text_blocks = st.builds(
    lambda text: {"type": "text", "text": text}, st.text(max_size=10)
)
tool_contents = st.one_of(
    st.builds(lambda block: {"type": "content", "content": block}, text_blocks),
    st.builds(
        lambda old, new: {"type": "diff", "path": "/f", "oldText": old, "newText": new},
        st.none() | st.text(max_size=5),
        st.text(max_size=5),
    ),
    st.builds(lambda tid: {"type": "terminal", "terminalId": tid}, st.text(max_size=5)),
)
locations = st.builds(
    lambda path, line: {"path": path} if line is None else {"path": path, "line": line},
    st.text(max_size=8),
    st.none() | st.integers(min_value=0, max_value=2**32 - 1),
)


def _three_states(values: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.just(OMIT) | st.none() | values


TOOL_CALL_PATCH = {
    "title": ("title", st.text(max_size=10)),
    "kind": ("kind", _open_value(v1.TOOL_KINDS)),
    "status": ("status", _open_value(v1.TOOL_CALL_STATUSES)),
    "content": ("content", st.lists(tool_contents, max_size=3)),
    "locations": ("locations", st.lists(locations, max_size=3)),
    "rawInput": ("raw_input", json_values),
    "rawOutput": ("raw_output", json_values),
}

SESSION_INFO_PATCH = {
    "title": ("title", st.text(max_size=10)),
    "updatedAt": ("updated_at", st.text(max_size=25)),
}


def _check_patch(
    model: BaseModel, fields: dict[str, tuple[str, Any]], chosen: dict[str, Any]
) -> None:
    for wire_name, (attr, _) in fields.items():
        value = chosen[wire_name]
        state = field_state(model, attr)
        if value is OMIT:
            assert state is UNSET, wire_name
        elif value is None:
            assert state is None, wire_name
        elif attr in ("content", "locations"):
            assert isinstance(state, list)
            assert [to_wire(item) for item in state] == value, wire_name
        else:
            assert state == value, wire_name


@settings(HYPOTHESIS, max_examples=250)
@given(
    st.fixed_dictionaries(
        {
            name: _three_states(strategy)
            for name, (_, strategy) in TOOL_CALL_PATCH.items()
        }
    )
)
def test_tool_call_update_patch_fields_keep_three_states(
    chosen: dict[str, Any],
) -> None:
    fields = {k: v for k, v in chosen.items() if v is not OMIT}
    update = {"sessionUpdate": "tool_call_update", "toolCallId": "call_1", **fields}
    model = roundtrip(v1.SessionUpdate, update)
    assert isinstance(model, v1.SessionToolCallUpdate)
    _check_patch(model, TOOL_CALL_PATCH, chosen)

    untagged = {"toolCallId": "call_1", **fields}  # the permission request's toolCall
    patch = roundtrip(v1.ToolCallUpdate, untagged)
    _check_patch(patch, TOOL_CALL_PATCH, chosen)


@HYPOTHESIS
@given(
    st.fixed_dictionaries(
        {
            name: _three_states(strategy)
            for name, (_, strategy) in SESSION_INFO_PATCH.items()
        }
    ),
    st.just(OMIT) | st.none() | meta_dicts,
)
def test_session_info_update_keeps_three_states(
    chosen: dict[str, Any], meta: Any
) -> None:
    update: dict[str, Any] = {"sessionUpdate": "session_info_update"}
    update |= {k: v for k, v in chosen.items() if v is not OMIT}
    if meta is not OMIT:
        update["_meta"] = meta
    model = roundtrip(v1.SessionUpdate, update)
    assert isinstance(model, v1.SessionInfoUpdate)
    _check_patch(model, SESSION_INFO_PATCH, chosen)
    assert field_state(model, "meta") == (UNSET if meta is OMIT else meta)


Builder = Callable[[str, dict[str, Any]], tuple[Any, dict[str, Any]]]

OPEN_SITES: dict[str, tuple[frozenset[str], Builder]] = {
    "ToolCall.kind": (
        v1.TOOL_KINDS,
        lambda x, m: (
            v1.SessionUpdate,
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "c",
                "title": "t",
                "kind": x,
                "_meta": m,
            },
        ),
    ),
    "ToolCall.status": (
        v1.TOOL_CALL_STATUSES,
        lambda x, m: (
            v1.SessionUpdate,
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "c",
                "title": "t",
                "status": x,
                "_meta": m,
            },
        ),
    ),
    "PromptResponse.stopReason": (
        v1.STOP_REASONS,
        lambda x, m: (v1.PromptResponse, {"stopReason": x, "_meta": m}),
    ),
    "PlanEntry.priority+status": (
        v1.PLAN_ENTRY_PRIORITIES | v1.PLAN_ENTRY_STATUSES,
        lambda x, m: (
            v1.SessionUpdate,
            {
                "sessionUpdate": "plan",
                "entries": [{"content": "c", "priority": x, "status": x, "_meta": m}],
            },
        ),
    ),
    "PermissionOption.kind": (
        v1.PERMISSION_OPTION_KINDS,
        lambda x, m: (
            v1.RequestPermissionRequest,
            {
                "sessionId": "s",
                "toolCall": {"toolCallId": "c", "_meta": m},
                "options": [{"optionId": "o", "name": "n", "kind": x, "_meta": m}],
            },
        ),
    ),
    "SessionConfigOption.category": (
        v1.SESSION_CONFIG_OPTION_CATEGORIES,
        lambda x, m: (
            v1.SessionConfigOption,
            {
                "id": "o",
                "name": "n",
                "category": x,
                "type": "boolean",
                "currentValue": False,
                "_meta": m,
            },
        ),
    ),
    "Annotations.audience": (
        v1.ROLES,
        lambda x, m: (
            v1.ContentBlock,
            {"type": "text", "text": "t", "annotations": {"audience": [x], "_meta": m}},
        ),
    ),
    "SessionUpdate tag": (
        v1.SESSION_UPDATE_KINDS,
        lambda x, m: (v1.SessionUpdate, {"sessionUpdate": x, "extra": [1], "_meta": m}),
    ),
    "ContentBlock tag": (
        v1.CONTENT_BLOCK_TYPES,
        lambda x, m: (v1.ContentBlock, {"type": x, "extra": {"a": 1}, "_meta": m}),
    ),
    "ToolCallContent tag": (
        v1.TOOL_CALL_CONTENT_TYPES,
        lambda x, m: (v1.ToolCallContent, {"type": x, "extra": None, "_meta": m}),
    ),
    "SessionConfigOption tag": (
        v1.SESSION_CONFIG_OPTION_TYPES,
        lambda x, m: (
            v1.SessionConfigOption,
            {"id": "o", "name": "n", "type": x, "values": [1], "_meta": m},
        ),
    ),
}


@pytest.mark.parametrize("site", sorted(OPEN_SITES))
@HYPOTHESIS
@given(data=st.data())
def test_unknown_open_values_and_meta_survive(site: str, data: st.DataObject) -> None:
    known, build = OPEN_SITES[site]
    value = data.draw(st.text(max_size=16).filter(lambda s: s not in known), "value")
    meta = data.draw(meta_dicts, "meta")
    tp, payload = build(value, meta)
    model = roundtrip(tp, payload)
    if site.endswith(" tag"):
        assert type(model).__name__.startswith("Unknown")


# ---------------------------------------------------------------------------
# 5. Models built in Python
# ---------------------------------------------------------------------------


def _built() -> Iterator[tuple[BaseModel, str, dict[str, Any]]]:
    yield (
        v1.InitializeRequest(
            protocol_version=v1.VERSION,
            client_capabilities=v1.ClientCapabilities(
                fs=v1.FileSystemCapabilities(read_text_file=True, write_text_file=True),
                terminal=True,
                auth=v1.AuthCapabilities(terminal=True),
                session=v1.ClientSessionCapabilities(
                    config_options=v1.SessionConfigOptionsCapabilities(
                        boolean=v1.BooleanConfigOptionCapabilities()
                    )
                ),
                elicitation=v1.ElicitationCapabilities(
                    form=v1.ElicitationFormCapabilities()
                ),
            ),
            client_info=v1.Implementation(
                name="acp-tui", title="ACP TUI", version="0.1"
            ),
        ),
        "InitializeRequest",
        {
            "protocolVersion": 1,
            "clientCapabilities": {
                "fs": {"readTextFile": True, "writeTextFile": True},
                "terminal": True,
                "auth": {"terminal": True},
                "session": {"configOptions": {"boolean": {}}},
                "elicitation": {"form": {}},
            },
            "clientInfo": {"name": "acp-tui", "title": "ACP TUI", "version": "0.1"},
        },
    )
    yield (
        v1.AuthenticateRequest(method_id="agent-login"),
        "AuthenticateRequest",
        {"methodId": "agent-login"},
    )
    yield (
        v1.NewSessionRequest(
            cwd="/home/u/p",
            mcp_servers=[
                v1.McpServerStdio(
                    name="fs",
                    command="/bin/fs",
                    args=["--stdio"],
                    env=[v1.EnvVariable(name="A", value="1")],
                ),
                v1.McpServerHttp(
                    name="web",
                    url="https://x",
                    headers=[v1.HttpHeader(name="Authorization", value="t")],
                ),
            ],
        ),
        "NewSessionRequest",
        {
            "cwd": "/home/u/p",
            "mcpServers": [
                {
                    "name": "fs",
                    "command": "/bin/fs",
                    "args": ["--stdio"],
                    "env": [{"name": "A", "value": "1"}],
                },
                {
                    "type": "http",
                    "name": "web",
                    "url": "https://x",
                    "headers": [{"name": "Authorization", "value": "t"}],
                },
            ],
        },
    )
    yield (
        v1.LoadSessionRequest(session_id="s", cwd="/p", mcp_servers=[]),
        "LoadSessionRequest",
        {"sessionId": "s", "cwd": "/p", "mcpServers": []},
    )
    yield (
        v1.PromptRequest(
            session_id="s",
            prompt=[
                v1.TextContent(text="/web acp"),
                v1.ResourceLink(name="a.py", uri="file:///a.py"),
                v1.EmbeddedResource(
                    resource=v1.TextResourceContents(uri="file:///b.py", text="x")
                ),
            ],
        ),
        "PromptRequest",
        {
            "sessionId": "s",
            "prompt": [
                {"type": "text", "text": "/web acp"},
                {"type": "resource_link", "name": "a.py", "uri": "file:///a.py"},
                {"type": "resource", "resource": {"uri": "file:///b.py", "text": "x"}},
            ],
        },
    )
    yield (
        v1.CancelNotification(session_id="s"),
        "CancelNotification",
        {"sessionId": "s"},
    )
    yield (
        v1.SetSessionModeRequest(session_id="s", mode_id="code"),
        "SetSessionModeRequest",
        {"sessionId": "s", "modeId": "code"},
    )
    yield (
        v1.SetSessionConfigOptionRequest(session_id="s", config_id="m", value="fast"),
        "SetSessionConfigOptionRequest",
        {"sessionId": "s", "configId": "m", "value": "fast"},
    )
    yield (
        v1.SetSessionConfigOptionRequest(
            session_id="s", config_id="b", type="boolean", value=True
        ),
        "SetSessionConfigOptionRequest",
        {"sessionId": "s", "configId": "b", "type": "boolean", "value": True},
    )
    yield (
        v1.ListSessionsRequest(cwd="/p"),
        "ListSessionsRequest",
        {"cwd": "/p"},
    )
    yield (
        v1.RequestPermissionResponse(
            outcome=v1.SelectedPermissionOutcome(option_id="allow-once")
        ),
        "RequestPermissionResponse",
        {"outcome": {"outcome": "selected", "optionId": "allow-once"}},
    )
    yield (
        v1.RequestPermissionResponse(outcome=v1.CancelledPermissionOutcome()),
        "RequestPermissionResponse",
        {"outcome": {"outcome": "cancelled"}},
    )
    yield (
        v1.ReadTextFileResponse(content="x\n"),
        "ReadTextFileResponse",
        {"content": "x\n"},
    )
    yield (v1.WriteTextFileResponse(), "WriteTextFileResponse", {})
    yield (
        v1.CreateTerminalResponse(terminal_id="term_1"),
        "CreateTerminalResponse",
        {"terminalId": "term_1"},
    )
    yield (
        v1.TerminalOutputResponse(
            output="ok",
            truncated=False,
            exit_status=v1.TerminalExitStatus(exit_code=0, signal=None),
        ),
        "TerminalOutputResponse",
        {
            "output": "ok",
            "truncated": False,
            "exitStatus": {"exitCode": 0, "signal": None},
        },
    )
    yield (
        v1.WaitForTerminalExitResponse(signal="SIGTERM"),
        "WaitForTerminalExitResponse",
        {"signal": "SIGTERM"},
    )
    yield (v1.KillTerminalResponse(), "KillTerminalResponse", {})
    yield (v1.ReleaseTerminalResponse(), "ReleaseTerminalResponse", {})
    yield (
        v1.CreateElicitationResponse(
            action="accept", content={"name": "x", "n": 2, "ok": True, "tags": ["a"]}
        ),
        "CreateElicitationResponse",
        {
            "action": "accept",
            "content": {"name": "x", "n": 2, "ok": True, "tags": ["a"]},
        },
    )
    yield (
        v1.CreateElicitationResponse(action="decline"),
        "CreateElicitationResponse",
        {"action": "decline"},
    )
    yield (
        v1.CancelRequestNotification(request_id=7),
        "CancelRequestNotification",
        {"requestId": 7},
    )
    yield (
        v1.SessionNotification(
            session_id="s",
            update=v1.SessionToolCallUpdate(tool_call_id="c", status="completed"),
            meta={"x": 1},
        ),
        "SessionNotification",
        {
            "sessionId": "s",
            "update": {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "c",
                "status": "completed",
            },
            "_meta": {"x": 1},
        },
    )
    yield (
        v1.SessionNotification(
            session_id="s",
            update=v1.AgentMessageChunk(content=v1.TextContent(text="hi")),
        ),
        "SessionNotification",
        {
            "sessionId": "s",
            "update": {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": "hi"},
            },
        },
    )


BUILT = list(_built())


@pytest.mark.parametrize(
    ("model", "definition", "expected"),
    BUILT,
    ids=[f"{n}-{type(m).__name__}" for n, (m, _, _) in enumerate(BUILT)],
)
def test_built_model_dumps_schema_valid_wire(
    model: BaseModel, definition: str, expected: dict[str, Any]
) -> None:
    wire = to_wire(model)
    assert wire == expected
    assert_schema_valid(wire, definition)
    # and it parses back to the same thing
    assert to_wire(type(model).model_validate(wire)) == wire
