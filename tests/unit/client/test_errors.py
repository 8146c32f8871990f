"""`describe_rpc_error`: a JSON-RPC error object as the user reads it."""

from __future__ import annotations

import pytest

from acp_tui.client.errors import describe_rpc_error
from acp_tui.protocol.jsonrpc import MAX_DETAIL_CHARS, RpcError


@pytest.mark.parametrize(
    ("error", "shown"),
    [
        (None, "no reason given"),
        ({}, "no reason given"),
        ({"code": -32603, "message": "model overloaded"}, "model overloaded (-32603)"),
        (
            {"code": -32000, "message": "  Authentication required  "},
            "Authentication required (-32000)",
        ),
        ({"code": True, "message": "odd code"}, "odd code"),
        ({"message": "model · busy — retry"}, "model · busy — retry"),
        # The cause behind a generic message (codex-acp, the fake agent).
        (
            {
                "code": -32603,
                "message": "Internal error",
                "data": {"message": "exceeded retry limit, last status: 429"},
            },
            "Internal error: exceeded retry limit, last status: 429 (-32603)",
        ),
        (
            {"code": -32603, "message": "Internal error", "data": "model overloaded"},
            "Internal error: model overloaded (-32603)",
        ),
        # No repetition, and data that says nothing in words is left out.
        (
            {"code": 1, "message": "Internal error: disk full", "data": "disk full"},
            "Internal error: disk full (1)",
        ),
        ({"code": 2, "message": "m", "data": {"retry": 3}}, "m (2)"),
        ({"code": 3, "message": "m", "data": [1, 2]}, "m (3)"),
        ({"code": 4, "data": {"message": "only the data"}}, "only the data (4)"),
    ],
)
def test_errors_read_as_the_agents_words(
    error: dict[str, object] | None, shown: str
) -> None:
    assert describe_rpc_error(error) == shown


def test_a_long_detail_is_cut() -> None:
    error = {"code": -32603, "message": "Internal error", "data": "x" * 10_000}
    shown = describe_rpc_error(error)
    assert shown.endswith("… (-32603)")
    assert len(shown) < MAX_DETAIL_CHARS + len("Internal error: … (-32603)") + 1


def test_an_rpc_error_reads_the_same() -> None:
    error = RpcError(-32603, "Internal error", {"message": "last status: 429"})
    assert str(error) == "Internal error: last status: 429 (-32603)"
    assert str(error) == describe_rpc_error(error.to_object())
