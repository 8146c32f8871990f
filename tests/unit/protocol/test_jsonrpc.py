"""Envelope classification."""

from __future__ import annotations

from typing import Any

import pytest

from acp_tui.protocol.jsonrpc import (
    ErrorResponse,
    InvalidMessage,
    Notification,
    Request,
    Response,
    RpcError,
    error_response,
    id_key,
    parse_message,
)


def test_request_notification_and_responses() -> None:
    assert parse_message({"jsonrpc": "2.0", "id": 1, "method": "m", "params": {}}) == (
        Request(1, "m", {})
    )
    assert parse_message({"jsonrpc": "2.0", "id": "a", "method": "m"}) == Request(
        "a", "m", None
    )
    assert parse_message({"jsonrpc": "2.0", "method": "n", "params": [1]}) == (
        Notification("n", [1])
    )
    assert parse_message({"jsonrpc": "2.0", "id": 3, "result": None}) == Response(
        3, None
    )
    error = parse_message(
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse"}}
    )
    assert isinstance(error, ErrorResponse)
    assert error.id is None
    assert (error.error.code, error.error.message) == (-32700, "Parse")


@pytest.mark.parametrize(
    "data",
    [
        [],
        "x",
        {"id": 1, "method": "m"},
        {"jsonrpc": "1.0", "id": 1, "method": "m"},
        {"jsonrpc": "2.0", "id": True, "method": "m"},
        {"jsonrpc": "2.0", "id": 1.5, "method": "m"},
        {"jsonrpc": "2.0", "id": None, "method": "m"},
        {"jsonrpc": "2.0", "id": 1, "method": "m", "params": "s"},
        {"jsonrpc": "2.0", "id": 1},
        {"jsonrpc": "2.0", "id": 1, "result": 1, "error": {"code": 1, "message": ""}},
        {"jsonrpc": "2.0", "id": 1, "error": "bad"},
        {"jsonrpc": "2.0", "result": {}},
        {"jsonrpc": "2.0", "id": None, "result": {}},
    ],
)
def test_invalid_messages_are_values(data: Any) -> None:
    assert isinstance(parse_message(data), InvalidMessage)


def test_malformed_error_object_is_still_an_error() -> None:
    message = parse_message({"jsonrpc": "2.0", "id": 2, "error": {"code": "x"}})
    assert isinstance(message, ErrorResponse)
    assert message.error.code == -32603


def test_error_response_shape() -> None:
    assert error_response(None, RpcError(-32600, "Invalid Request")) == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": "Invalid Request"},
    }
    assert RpcError(-32602, "Invalid params", "x").to_object()["data"] == "x"


def test_id_keys_tell_ids_apart_as_json_rpc_does() -> None:
    assert id_key(1) == id_key(1)
    assert id_key(1) != id_key("1")
    assert id_key(True) != id_key(1)
    assert id_key(None) is None
    assert id_key([1]) is None
