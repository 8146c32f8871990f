"""Plain v1 chunks skip the v1 models, with the very ops and errors of their path."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from acp_tui.client.v1 import V1Translator
from acp_tui.client.v1_chunks import fast_text_chunk
from acp_tui.protocol.schema import v1
from acp_tui.store.store import SessionStore
from tests.unit.client.chunk_checks import assert_same_error


def _params(update: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"sessionId": "s1", "update": update, **extra}


def _chunk(kind: str = "agent_message_chunk", **content: Any) -> dict[str, Any]:
    block = {"type": "text", "text": "hi \u00e9 \ud800"} | content
    return {"sessionUpdate": kind, "content": block}


STREAM = [
    _params(_chunk("user_message_chunk")),
    _params(_chunk()),
    _params(_chunk()),
    _params(_chunk("agent_thought_chunk")),
    _params({**_chunk(), "messageId": "m7"}),
    _params(_chunk()),
    _params(
        {
            "content": {"text": "x", "type": "text"},
            "sessionUpdate": "agent_message_chunk",
        }
    ),
    _params({**_chunk("user_message_chunk"), "messageId": "u1"}),
]
"""A turn of plain chunks: ids given and synthesised, roles changing."""

SLOW = [
    _params(_chunk(), _meta={"a": 1}),
    _params({**_chunk(), "_meta": {"a": 1}}),
    _params(_chunk(annotations={"priority": 1})),
    _params({**_chunk(), "messageId": None}),
    _params({**_chunk(), "messageId": 5}),  # lenient: repaired to no id
    _params({**_chunk(), "content": {"type": "image", "data": "", "mimeType": "a"}}),
    _params(_chunk(type="texte")),
    _params(_chunk("agent_message_chunkz")),
]
"""Valid params it leaves to the models."""

MALFORMED: list[Any] = [
    _params(_chunk(text=5)),
    _params({"sessionUpdate": "agent_message_chunk"}),
    {"sessionId": 3, "update": _chunk()},
    {"update": _chunk()},
    [_chunk()],
]


def _translator() -> V1Translator:
    return V1Translator(SessionStore("s1", cwd="/tmp"))


def _models_only(translator: V1Translator, params: Any) -> Any:
    update = v1.SessionNotification.model_validate(params).update
    return translator.translate_update(update)


def test_a_stream_of_plain_chunks_gives_the_models_ops_without_the_models(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reference = _translator()
    expected = [_models_only(reference, copy.deepcopy(p)) for p in STREAM]

    def no_models(*args: object, **kwargs: object) -> None:
        raise AssertionError("the models were built")

    monkeypatch.setattr(v1.SessionNotification, "model_validate", no_models)
    translator = _translator()
    got = [translator.translate(p) for p in STREAM]
    assert got == expected
    blocks = [list(getattr(op, "block", {})) for ops in got for op in ops]
    assert blocks == [list(getattr(op, "block", {})) for ops in expected for op in ops]


@pytest.mark.parametrize("params", SLOW + MALFORMED)
def test_anything_else_takes_the_models_path(params: Any) -> None:
    assert fast_text_chunk(params) is None


def test_unusual_chunks_still_translate_as_before() -> None:
    reference, translator = _translator(), _translator()
    for params in SLOW + STREAM:  # the message state carries over
        assert translator.translate(params) == _models_only(reference, params)


@pytest.mark.parametrize("params", MALFORMED)
def test_malformed_chunks_still_fail_validation_as_before(params: Any) -> None:
    assert_same_error(
        _translator().translate, v1.SessionNotification.model_validate, params
    )
