"""Plain chunks skip the v2 models, with the very ops and errors of the models' path."""

from __future__ import annotations

import base64
import copy
from typing import Any
from unittest.mock import ANY

import pytest

from acp_tui.client import v2 as dialect
from acp_tui.client.v2 import V2Translator, translate_update
from acp_tui.client.v2_chunks import fast_chunk_ops
from acp_tui.protocol.schema import v2
from acp_tui.store import ops
from tests.unit.client.chunk_checks import assert_same_error


def _params(update: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"sessionId": "s1", "update": update, **extra}


def _chunk(kind: str = "agent_message_chunk", **content: Any) -> dict[str, Any]:
    block = {"type": "text", "text": "hi \u00e9 \ud800"} | content
    return {"sessionUpdate": kind, "messageId": "m1", "content": block}


def _terminal(data: Any = "aGVsbG8=", **extra: Any) -> dict[str, Any]:
    update = {"sessionUpdate": "terminal_output_chunk", "terminalId": "t1"}
    return update | {"data": data} | extra


FAST = [
    _params(_chunk("agent_message_chunk")),
    _params(_chunk("user_message_chunk")),
    _params(_chunk("agent_thought_chunk")),
    _params({"content": {"text": "x", "type": "text"}, **_chunk()}),  # key order
    _params(_terminal()),
    _params(_terminal(base64.b64encode(bytes(range(256))).decode())),
    _params(_terminal("not base64!")),
]
"""Params the fast path takes."""

SLOW = [
    _params(_chunk(), _meta={"a": 1}),
    _params({**_chunk(), "_meta": {"a": 1}}),
    _params(_chunk(annotations={"priority": 1})),
    _params(_chunk(_meta={"k": "v"})),
    _params({**_chunk(), "content": {"type": "image", "data": "", "mimeType": "a"}}),
    _params({**_chunk(), "extra": 1}),
    _params(_terminal(), _meta=None),
    _params(_terminal(size=3)),
    _params(_chunk(type="texte")),  # an unknown content block: kept raw
    _params(_chunk("agent_message_chunkz")),  # an unknown update: recorded
]
"""Valid params it leaves to the models (something beside the plain shape)."""

MALFORMED: list[Any] = [
    _params(_chunk(text=5)),
    _params(_chunk(text=None)),
    _params({**_chunk(), "messageId": 7}),
    _params({**_chunk(), "content": "text"}),
    _params(_terminal(data=12)),
    _params({**_terminal(), "terminalId": None}),
    {"sessionId": 3, "update": _chunk()},
    {"sessionId": "s1", "update": [_chunk()]},
    {"update": _chunk()},
    [_chunk()],
]
"""Params the models reject: the fast path must leave them to the models too."""


def _model_ops(params: Any) -> Any:
    return translate_update(v2.UpdateSessionNotification.model_validate(params).update)


@pytest.mark.parametrize("params", FAST)
def test_plain_chunks_give_the_models_ops_without_the_models(
    params: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _model_ops(copy.deepcopy(params))

    def no_models(*args: object, **kwargs: object) -> None:
        raise AssertionError("the models were built")

    monkeypatch.setattr(v2.UpdateSessionNotification, "model_validate", no_models)
    got = V2Translator().translate(params)
    assert got == expected
    # The same key order as the models' dump (documents are compared as text).
    assert [list(getattr(op, "block", {})) for op in got] == [
        list(getattr(op, "block", {})) for op in expected
    ]


@pytest.mark.parametrize("params", SLOW + MALFORMED)
def test_anything_else_takes_the_models_path(params: Any) -> None:
    assert fast_chunk_ops(params, dialect._bad_chunk) is None


@pytest.mark.parametrize("params", SLOW)
def test_unusual_valid_chunks_still_translate(params: dict[str, Any]) -> None:
    assert V2Translator().translate(params) == _model_ops(params)


@pytest.mark.parametrize("params", MALFORMED)
def test_malformed_chunks_still_fail_validation_as_before(params: Any) -> None:
    assert_same_error(
        V2Translator().translate, v2.UpdateSessionNotification.model_validate, params
    )


@pytest.mark.parametrize("params", FAST + SLOW + MALFORMED)
def test_a_plain_text_chunk_is_what_fast_chunk_ops_makes_of_it(params: Any) -> None:
    """`text_chunk` names exactly the chunks the fast path gives one plain text
    block for (the intake gathers those into runs, never asking `translate`)."""
    chunk = V2Translator().text_chunk(copy.deepcopy(params))
    fast = fast_chunk_ops(copy.deepcopy(params), lambda terminal_id: [])
    if chunk is None:
        plain = (
            fast is not None
            and len(fast) == 1
            and isinstance(fast[0], ops.AppendMessageChunk)
            and list(fast[0].block.items()) == [("type", "text"), ("text", ANY)]
        )
        assert not plain
        return
    message_id, role, text = chunk
    block = {"type": "text", "text": text}
    assert fast == [ops.AppendMessageChunk(message_id, role, block)]
    assert V2Translator().translate(copy.deepcopy(params)) == fast


def test_text_chunks_are_found_for_every_chunk_role() -> None:
    found = [V2Translator().text_chunk(p) for p in FAST[:4]]
    assert found == [
        ("m1", "agent", "hi \u00e9 \ud800"),
        ("m1", "user", "hi \u00e9 \ud800"),
        ("m1", "thought", "hi \u00e9 \ud800"),
        ("m1", "agent", "hi \u00e9 \ud800"),
    ]
