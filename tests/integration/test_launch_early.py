"""`AgentLauncher.start_early`: the agent boots while the client stack imports.

The first `open_stream()` after `start_early` hands over the process already
running; leaving it shuts that process down as leaving a fresh transport would.
An early start nobody took is stopped by `discard_early`.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.abc import Process

from acp_tui.client.launch import AgentLauncher
from acp_tui.protocol.transport import AgentCommand, AgentStartError, StdioTransport

pytestmark = pytest.mark.subprocess

ECHO = Path(__file__).resolve().parent.parent / "fakes" / "procs" / "echo.py"
TIMEOUT = 20
"""Bound for a start, a line and a bounded shutdown on a loaded machine."""


@pytest.fixture(autouse=True)
def acp_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


def launcher() -> AgentLauncher:
    return AgentLauncher(AgentCommand((sys.executable, str(ECHO), "up")), "echo")


async def test_the_first_stream_is_the_agent_started_early() -> None:
    agents = launcher()
    with anyio.fail_after(TIMEOUT):
        await agents.start_early()
        early = agents.transport
        assert early is not None
        assert early.returncode is None  # running before anyone asked for it
        async with agents.open_stream() as stream:
            assert stream is early
            await stream.send(b"ping\n")
            assert await stream.receive() == b"ping"
        assert early.returncode == 0  # leaving the stream shut the agent down
        async with agents.open_stream() as again:  # a reconnect starts a new one
            assert again is not early
            assert isinstance(again, StdioTransport)
            assert again.pid != early.pid
        await agents.discard_early()  # nothing left to discard
    assert agents.transport is again


async def test_leaving_the_early_stream_on_an_error_shuts_the_agent_down() -> None:
    agents = launcher()
    with anyio.fail_after(TIMEOUT):
        await agents.start_early()
        early = agents.transport
        assert early is not None

        async def fail_inside() -> None:
            async with agents.open_stream() as stream:
                assert stream is early
                raise LookupError("the body failed")

        with pytest.raises(LookupError, match="the body failed"):  # as itself
            await fail_inside()
    assert early.returncode is not None
    assert early.exit_description() != "still running"


async def test_an_early_start_nobody_took_is_stopped() -> None:
    agents = launcher()
    with anyio.fail_after(TIMEOUT):
        await agents.start_early()
        early = agents.transport
        assert early is not None
        assert early.returncode is None
        await agents.discard_early()
    assert early.returncode is not None
    assert early.exit_description() != "still running"


async def test_an_agent_that_cannot_start_fails_early() -> None:
    agents = AgentLauncher(AgentCommand(("/nonexistent/agent-binary",)), "missing")
    with anyio.fail_after(TIMEOUT), pytest.raises(AgentStartError):
        await agents.start_early()
    await agents.discard_early()


def pipe_fds() -> int:
    """How many pipe ends this process holds open (Linux: /proc/self/fd)."""
    count = 0
    for entry in Path("/proc/self/fd").iterdir():
        with contextlib.suppress(OSError):
            count += os.readlink(entry).startswith("pipe:")
    return count


@pytest.mark.skipif(sys.platform != "linux", reason="/proc/self/fd")
@pytest.mark.parametrize("delay", [0.0, 0.0005, 0.001, 0.002, 0.005, 0.05])
async def test_a_start_cancelled_midway_leaves_no_pipe_open(delay: float) -> None:
    """Cancelled at any point of the start (as the runner is, on quit), then
    discarded: every pipe end is closed (asyncio closes its own ones a moment
    later, hence the bounded wait)."""
    agents = launcher()
    before = pipe_fds()
    with anyio.fail_after(TIMEOUT):
        with anyio.move_on_after(delay):
            try:
                await agents.start_early()
                await anyio.sleep(TIMEOUT)  # cancelled here if not earlier
            finally:
                await agents.discard_early()
        while pipe_fds() != before:  # noqa: ASYNC110 - no event to wait on
            await anyio.sleep(0.01)
    assert pipe_fds() == before


async def test_a_start_cancelled_while_spawning_stops_the_agent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Cancelled while its process is being created (the narrowest window of a
    quit during start-up), the start completes under a shield: the transport
    owns the process, and shuts it down and reaps it."""
    real_open_process = anyio.open_process
    agents = launcher()
    with anyio.fail_after(TIMEOUT):
        with anyio.CancelScope() as scope:

            async def open_cancelled(*args: Any, **kwargs: Any) -> Process:
                scope.cancel()  # as if the app quit just as the spawn began
                return await real_open_process(*args, **kwargs)

            monkeypatch.setattr(anyio, "open_process", open_cancelled)
            try:
                await agents.start_early()
            finally:
                await agents.discard_early()
        assert scope.cancelled_caught
    transport = agents.transport
    assert transport is not None
    assert transport.returncode is not None  # started, then stopped and reaped


async def test_a_failed_restart_does_not_show_the_last_runs_stderr() -> None:
    agents = launcher()
    with anyio.fail_after(TIMEOUT):
        await agents.start_early()
        async with agents.open_stream() as stream:
            await stream.send(b"ping\n")
            assert await stream.receive() == b"ping"
    assert agents.transport is not None
    assert agents.transport.stderr_tail() == ["up"]  # echo.py says so on stderr
    agents.command = AgentCommand(("/nonexistent/agent-binary",))
    with anyio.fail_after(TIMEOUT), pytest.raises(AgentStartError) as failed:
        await agents.start_early()
    assert agents.explain(failed.value).stderr_tail == ()
