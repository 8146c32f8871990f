"""`restart_may_help`: which agent failures a restart could end otherwise."""

from __future__ import annotations

import pytest

from acp_tui.client.errors import AgentExited, InitializeTimeout
from acp_tui.client.runner import restart_may_help
from acp_tui.protocol.jsonrpc import RequestTimeout, RpcError
from acp_tui.protocol.transport import AgentCommand, AgentStartError, ConnectionClosed
from acp_tui.protocol.version import UnsupportedProtocolVersion

NOT_FOUND = AgentStartError("x", AgentCommand(argv=("x",)), "No such file")


@pytest.mark.parametrize("handshake_done", [False, True])
def test_a_program_that_cannot_start_never_gets_a_restart(
    handshake_done: bool,
) -> None:
    assert not restart_may_help(NOT_FOUND, handshake_done=handshake_done)


def test_an_unsupported_protocol_version_never_gets_a_restart() -> None:
    error = UnsupportedProtocolVersion(7, 2, (1, 2))
    assert not restart_may_help(error, handshake_done=False)


@pytest.mark.parametrize(
    "error",
    [
        ConnectionClosed("the agent closed its output"),
        AgentExited("the agent stopped during initialize"),
        RpcError(-32601, "Method not found"),
    ],
)
def test_no_acp_handshake_means_no_restart(error: Exception) -> None:
    assert not restart_may_help(error, handshake_done=False)
    assert restart_may_help(error, handshake_done=True)  # a crash mid-session


def test_a_timeout_may_go_otherwise() -> None:
    assert restart_may_help(RequestTimeout("initialize", 1.0), handshake_done=False)
    assert restart_may_help(TimeoutError(), handshake_done=False)
    slow = InitializeTimeout("the agent did not answer initialize within 1 s")
    assert restart_may_help(slow, handshake_done=False)
