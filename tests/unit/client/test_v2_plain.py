"""Plain state, terminal, tool-call, command and message updates skip the models.

`client.v2_plain` answers only for shapes the models accept, with the very ops
(and key order) of the models' path; everything else is left to the models, so
their errors and lenient repairs are unchanged. Hypothesis draws updates near
those shapes (wrong types, extra and snake_case keys, nulls, bools for ints).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from acp_tui.client import v2 as dialect
from acp_tui.client.v2 import V2Translator, translate_update
from acp_tui.client.v2_chunks import fast_chunk_ops
from acp_tui.protocol.schema import v2
from tests.unit.client.chunk_checks import assert_same_error, without_models


def _params(update: dict[str, Any]) -> dict[str, Any]:
    return {"sessionId": "s1", "update": update}


def _model_ops(params: Any) -> Any:
    return translate_update(v2.UpdateSessionNotification.model_validate(params).update)


FAST = [
    _params({"sessionUpdate": "state_update", "state": "running"}),
    _params({"sessionUpdate": "state_update", "state": "requires_action"}),
    _params({"sessionUpdate": "state_update", "state": "idle"}),
    _params(
        {"state": "idle", "stopReason": "end_turn", "sessionUpdate": "state_update"}
    ),
    _params(
        {
            "content": [{"type": "terminal", "terminalId": "term-1"}],
            "status": "in_progress",
            "toolCallId": "build",
            "sessionUpdate": "tool_call_update",
            "kind": "execute",
            "title": "make -j8",
        }
    ),
    _params(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t",
            "content": [{"content": {"text": "x", "type": "text"}, "type": "content"}],
            "title": None,
        }
    ),
    _params({"sessionUpdate": "tool_call_update", "toolCallId": "b", "status": "done"}),
    _params(
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "term-1",
            "command": "make -j8",
            "cwd": "/work/project",
        }
    ),
    _params(
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "term-1",
            "exitStatus": {"signal": None, "exitCode": 0},
        }
    ),
    _params(
        {
            "availableCommands": [
                {"name": "help", "description": "List"},
                {"input": {"hint": "a topic", "type": "text"}, "name": "plan"}
                | {"description": "Plans", "type": "command"},
                {"name": "x", "description": "", "input": None},
            ],
            "sessionUpdate": "available_commands_update",
        }
    ),
    _params({"sessionUpdate": "available_commands_update", "availableCommands": []}),
    _params(
        {
            "messageId": "t1-user",
            "sessionUpdate": "user_message",
            "content": [{"text": "make hello.py", "type": "text"}],
        }
    ),
    _params({"sessionUpdate": "agent_message", "messageId": "m", "content": None}),
    _params({"sessionUpdate": "agent_thought", "messageId": "t"}),
    _params({"sessionUpdate": "agent_message", "messageId": "m", "content": []}),
]
"""Params the fast path takes (the shapes of `bench/print.py`'s stream among them)."""

MALFORMED: list[Any] = [
    _params({"sessionUpdate": "state_update", "state": 3}),
    _params({"sessionUpdate": "state_update"}),
    _params({"sessionUpdate": "tool_call_update", "title": "x"}),
    _params({"sessionUpdate": "tool_call_update", "toolCallId": 5}),
    _params({"sessionUpdate": "terminal_update", "terminalId": None}),
    _params({"sessionUpdate": "terminal_update", "command": "ls"}),
    _params({"sessionUpdate": "available_commands_update"}),
    _params({"sessionUpdate": "user_message", "content": []}),
    _params({"sessionUpdate": "agent_message", "messageId": 7}),
    {"sessionId": 1, "update": {"sessionUpdate": "state_update", "state": "idle"}},
]
"""Params the models reject: left to them, so the error is theirs."""


@pytest.mark.parametrize("params", FAST)
def test_plain_updates_give_the_models_ops_without_the_models(
    params: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _model_ops(copy.deepcopy(params))
    model = v2.UpdateSessionNotification
    got = without_models(model, V2Translator().translate, params, monkeypatch)
    assert got == expected
    assert repr(got) == repr(expected)  # key orders too (documents are text)


@pytest.mark.parametrize("params", MALFORMED)
def test_malformed_updates_still_fail_validation_as_before(params: Any) -> None:
    assert fast_chunk_ops(params, dialect._bad_chunk) is None
    assert_same_error(
        V2Translator().translate, v2.UpdateSessionNotification.model_validate, params
    )


_TEXT = st.sampled_from(["", "x", "idle", "running", "end_turn", "\ud800", "é"])
_SCALARS = st.one_of(
    st.none(),
    _TEXT,
    st.integers(-3, 3),
    st.integers(2**63, 2**70),
    st.booleans(),
    st.floats(allow_nan=False, allow_infinity=False),
)
_BLOCKS = st.one_of(
    st.fixed_dictionaries({"type": st.just("terminal"), "terminalId": _SCALARS}),
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(["content", "terminal", "diff"]),
            "content": st.one_of(
                _SCALARS,
                st.fixed_dictionaries(
                    {"type": st.sampled_from(["text", "image"]), "text": _SCALARS}
                ),
                st.just({"type": "text", "text": "a", "_meta": {}}),
            ),
        }
    ),
    st.dictionaries(st.sampled_from(["type", "terminalId", "_meta"]), _SCALARS),
    _SCALARS,
)
_EXIT = st.one_of(
    _SCALARS,
    st.dictionaries(
        st.sampled_from(["exitCode", "signal", "exit_code", "_meta"]), _SCALARS
    ),
)
_OPT_TEXT = st.one_of(_TEXT, st.none())


def _mostly(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Usually `valid`; one time in five, any scalar."""
    return st.integers(0, 4).flatmap(lambda n: valid if n else _SCALARS)


_VALID_BLOCKS = st.one_of(
    st.fixed_dictionaries({"type": st.just("terminal"), "terminalId": _TEXT}),
    st.fixed_dictionaries(
        {
            "type": st.just("content"),
            "content": st.fixed_dictionaries({"type": st.just("text"), "text": _TEXT}),
        }
    ),
)
_TEXT_BLOCK: st.SearchStrategy[dict[str, Any]] = st.fixed_dictionaries(
    {"type": st.just("text"), "text": _mostly(_TEXT)},
    optional={"_meta": st.just({}), "annotations": st.none()},
)
_COMMAND = st.fixed_dictionaries(
    {"name": _mostly(_TEXT), "description": _mostly(_TEXT)},
    optional={
        "type": _mostly(_TEXT),
        "input": _mostly(
            st.one_of(
                st.none(),
                st.fixed_dictionaries(
                    {"type": _mostly(st.just("text")), "hint": _mostly(_TEXT)},
                    optional={"_meta": st.just({})},
                ),
            )
        ),
        "_meta": st.just({}),
    },
)
_VALUES = {
    "availableCommands": _mostly(st.lists(_mostly(_COMMAND), max_size=3)),
    "state": st.sampled_from(["running", "requires_action", "idle", "x"]),
    "stopReason": _mostly(_TEXT),
    "stop_reason": _SCALARS,
    "toolCallId": _mostly(_TEXT),
    "tool_call_id": _TEXT,
    "terminalId": _mostly(_TEXT),
    "terminal_id": _TEXT,
    "title": _mostly(_OPT_TEXT),
    "kind": _mostly(_OPT_TEXT),
    "status": _mostly(_OPT_TEXT),
    "content": _mostly(
        st.one_of(
            st.none(),
            st.lists(st.one_of(_VALID_BLOCKS, _TEXT_BLOCK, _BLOCKS), max_size=3),
        )
    ),
    "messageId": _mostly(_TEXT),
    "message_id": _TEXT,
    "command": _mostly(_OPT_TEXT),
    "cwd": _mostly(_OPT_TEXT),
    "exitStatus": _mostly(
        st.one_of(
            st.none(),
            st.fixed_dictionaries(
                {},
                optional={
                    "exitCode": st.one_of(st.none(), st.integers(-(2**70), 2**70)),
                    "signal": _OPT_TEXT,
                },
            ),
            _EXIT,
        )
    ),
    "_meta": st.one_of(st.none(), st.just({"a": 1})),
    "extra": _SCALARS,
    "background": st.just([]),
}
_OPTIONAL = {
    "state_update": ["stopReason"],
    "tool_call_update": ["title", "kind", "status", "content"],
    "terminal_update": ["command", "cwd", "exitStatus"],
    "terminal_output_chunk": [],
    "available_commands_update": [],
    "user_message": ["content"],
    "agent_message": ["content"],
    "agent_thought": ["content"],
}
_REQUIRED = {
    "state_update": {"state": _VALUES["state"]},
    "tool_call_update": {"toolCallId": _VALUES["toolCallId"]},
    "terminal_update": {"terminalId": _VALUES["terminalId"]},
    "available_commands_update": {"availableCommands": _VALUES["availableCommands"]},
    "user_message": {"messageId": _VALUES["messageId"]},
    "agent_message": {"messageId": _VALUES["messageId"]},
    "agent_thought": {"messageId": _VALUES["messageId"]},
}


@st.composite
def _updates(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(sorted(_OPTIONAL)))
    update: dict[str, Any] = {"sessionUpdate": kind}
    for key, values in _REQUIRED.get(kind, {}).items():
        if draw(st.integers(0, 9)):  # usually there
            update[key] = draw(values)
    for key in draw(st.lists(st.sampled_from(_OPTIONAL[kind] or ["extra"]))):
        update[key] = draw(_VALUES[key])
    if not draw(st.integers(0, 3)):  # now and then, any key
        for key in draw(st.lists(st.sampled_from(sorted(_VALUES)), max_size=3)):
            update[key] = draw(_VALUES[key])
    keys = draw(st.permutations(list(update)))
    return {key: update[key] for key in keys}


def _fast_as_the_models(update: dict[str, Any]) -> None:
    """The fast path gives the models' ops for `update`, or leaves it to them."""
    params = _params(update)
    fast = fast_chunk_ops(copy.deepcopy(params), dialect._bad_chunk)
    if fast is None:
        event("left to the models")
        return
    event("fast")
    try:
        expected = _model_ops(params)
    except ValidationError as error:  # pragma: no cover - the failure reported
        raise AssertionError(f"fast ops {fast!r} for what the models reject") from error
    assert fast == expected
    assert repr(fast) == repr(expected)


@settings(max_examples=1500, suppress_health_check=[HealthCheck.too_slow])
@given(update=_updates())
def test_the_fast_path_answers_only_as_the_models_do(update: dict[str, Any]) -> None:
    _fast_as_the_models(update)


_PLAIN_TEXT = st.fixed_dictionaries({"type": st.just("text"), "text": _TEXT})


@st.composite
def _messages(draw: st.DrawFn) -> dict[str, Any]:
    """Whole messages, mostly of plain text blocks (the fast path's shape)."""
    kinds = st.sampled_from(["user_message", "agent_message", "agent_thought"])
    update: dict[str, Any] = {"sessionUpdate": draw(kinds)}
    update["messageId"] = draw(_mostly(_TEXT))
    if draw(st.integers(0, 3)):  # usually
        blocks = st.one_of(_PLAIN_TEXT, _PLAIN_TEXT, _PLAIN_TEXT, _TEXT_BLOCK, _BLOCKS)
        update["content"] = draw(
            _mostly(st.one_of(st.none(), st.lists(blocks, max_size=3)))
        )
    if not draw(st.integers(0, 5)):  # now and then, another key
        key = draw(st.sampled_from(["_meta", "extra", "message_id"]))
        update[key] = draw(_VALUES[key])
    keys = draw(st.permutations(list(update)))
    return {key: update[key] for key in keys}


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@given(update=_messages())
def test_whole_messages_take_the_fast_path_only_as_the_models_do(
    update: dict[str, Any],
) -> None:
    _fast_as_the_models(update)
