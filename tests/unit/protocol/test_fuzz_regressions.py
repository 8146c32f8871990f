"""Regressions found by the fuzz tests (`tests/fuzz/`): the wire-model layer.

* `to_wire` failed with `UnicodeEncodeError` on a raw JSON value whose object key
  holds a lone surrogate (`json.loads` makes one from a `\\ud800` escape): the
  translators dump content blocks, plans, commands and vendor updates with it.
* The top-level models the session layer dumps again (setup responses, session
  lists, permission requests) accepted JSON nested deeper than pydantic can dump
  (about 250 levels) or the store can walk; `to_wire` then raised `ValueError`
  after the session layer had already applied part of it. They now reject input
  nested deeper than `MAX_JSON_DEPTH` with a `ValidationError`.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from acp_tui.protocol.schema import v1, v2
from acp_tui.protocol.schema._base import (
    MAX_JSON_DEPTH,
    WireModel,
    json_nested_deeper,
    to_wire,
)


def nest(levels: int) -> Any:
    """`levels` nested arrays around a string (an array is one level)."""
    value: Any = "bottom"
    for _ in range(levels):
        value = [value]
    return value


def test_to_wire_keeps_a_lone_surrogate_in_an_object_key() -> None:
    raw = json.loads('{"sessionUpdate": "_vendor", "x": {"\\ud800": [1, "\\udc00"]}}')
    params = {"sessionId": "s", "update": raw}
    update = v2.UpdateSessionNotification.model_validate(params).update
    assert to_wire(update) == raw
    block = v2.UpdateSessionNotification.model_validate(
        {
            "sessionId": "s",
            "update": {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "m",
                "content": {"type": "text", "text": "hi", "v": {"\ud800": 1}},
            },
        }
    ).update
    assert isinstance(block, v2.ContentChunk)
    assert to_wire(block.content) == {"type": "text", "text": "hi", "v": {"\ud800": 1}}


def test_to_wire_still_dumps_in_json_mode_without_surrogate_keys() -> None:
    update = v2.UpdateSessionNotification.model_validate(
        {"sessionId": "s", "update": {"sessionUpdate": "_vendor", "x": float("nan")}}
    ).update
    assert to_wire(update) == {"sessionUpdate": "_vendor", "x": None}  # JSON mode


@pytest.mark.parametrize(
    ("value", "deeper_than_2"),
    [
        ("scalar", False),
        ([], False),
        ([[]], False),
        ([[[]]], True),
        ({"a": {"b": 1}}, False),
        ({"a": {"b": {}}}, True),
        ([1, {"a": [2]}], True),
    ],
)
def test_json_nested_deeper_counts_objects_and_arrays(
    value: Any, deeper_than_2: bool
) -> None:
    assert json_nested_deeper(value, 2) is deeper_than_2


def test_json_nested_deeper_walks_models_and_their_extra_keys() -> None:
    update = v2.UpdateSessionNotification.model_validate(
        {"sessionId": "s", "update": {"sessionUpdate": "_vendor", "x": nest(3)}}
    )
    # notification (1) > update (2) > three arrays (3..5)
    assert not json_nested_deeper(update, 5)
    assert json_nested_deeper(update, 4)


def test_json_nested_deeper_walks_any_depth_json_loads_accepts() -> None:
    deep = json.loads("[" * 900 + "]" * 900)
    assert json_nested_deeper(deep, MAX_JSON_DEPTH)


def _permission_v2(meta: Any) -> dict[str, Any]:
    return {
        "sessionId": "s",
        "title": "Run it?",
        "options": [{"optionId": "yes", "name": "Yes", "kind": "allow_once"}],
        "subject": {
            "type": "tool_call",
            "toolCall": {"toolCallId": "c1", "rawInput": meta},
        },
    }


def _permission_v1(meta: Any) -> dict[str, Any]:
    return {
        "sessionId": "s",
        "toolCall": {"toolCallId": "c1", "rawInput": meta},
        "options": [{"optionId": "yes", "name": "Yes", "kind": "allow_once"}],
    }


CASES: list[tuple[type[WireModel], Any]] = [
    (v2.RequestPermissionRequest, _permission_v2),
    (v1.RequestPermissionRequest, _permission_v1),
    (
        v1.NewSessionResponse,
        lambda deep: {"sessionId": "s", "configOptions": [{"x": deep}]},
    ),
    (v1.LoadSessionResponse, lambda deep: {"_meta": {"x": deep}}),
    (v1.ResumeSessionResponse, lambda deep: {"_meta": {"x": deep}}),
    (
        v2.NewSessionResponse,
        lambda deep: {"sessionId": "s", "availableCommands": [deep]},
    ),
    (v2.ResumeSessionResponse, lambda deep: {"_meta": {"x": deep}}),
    (v1.SetSessionConfigOptionResponse, lambda deep: {"configOptions": deep}),
    (v2.SetSessionConfigOptionResponse, lambda deep: {"configOptions": deep}),
    (v1.ListSessionsResponse, lambda deep: {"sessions": [], "_meta": deep}),
    (v2.ListSessionsResponse, lambda deep: {"sessions": [], "_meta": deep}),
]


@pytest.mark.parametrize(("model", "build"), CASES)
def test_rare_path_models_reject_json_nested_too_deeply(
    model: type[WireModel], build: Any
) -> None:
    with pytest.raises(ValidationError) as raised:
        model.model_validate(build(nest(300)))
    (error,) = raised.value.errors(include_url=False)
    assert error["type"] == "json_too_deep"
    assert error["msg"] == f"JSON nested more than {MAX_JSON_DEPTH} levels deep"


@pytest.mark.parametrize(("model", "build"), CASES)
def test_rare_path_models_accept_json_up_to_the_limit(
    model: type[WireModel], build: Any
) -> None:
    # `build` wraps its argument in at most 4 levels; the limit counts them all
    model.model_validate(build(nest(MAX_JSON_DEPTH - 6)))


def test_notifications_do_not_pay_for_the_depth_check() -> None:
    # The hot path stays one Rust call: the translators skip deep updates instead.
    params = {"sessionId": "s", "update": {"sessionUpdate": "_vendor", "x": nest(300)}}
    assert v2.UpdateSessionNotification.model_validate(params).session_id == "s"
    assert v2.UpdateSessionNotification._max_depth is None
    assert v1.SessionNotification._max_depth is None
