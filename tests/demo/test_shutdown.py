"""The demo agent exits promptly when its client goes away, whatever it waits on.

Each test runs a real `python -m acp_tui.demo` and plays a bare client on raw
JSON lines (no dispatcher: the client must be able to just stop answering, or
stop reading), brings the agent into a waiting state, then ends the connection
(end of stdin, or SIGTERM) and checks that the agent exits within `EXIT_BOUND`,
that a command it ran itself is dead and that the session was saved with the turn
tidied up.
"""

from __future__ import annotations

import array
import base64
import fcntl
import itertools
import json
import os
import signal
import termios
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final, Literal

import anyio
import anyio.abc
import pytest
from anyio.abc import ByteReceiveStream

from acp_tui.demo import persist
from acp_tui.protocol.framing import LineReader
from tests.demo.recorder import BOUND, DEMO
from tests.processes import pid_exists

pytestmark = pytest.mark.subprocess

JSON = dict[str, Any]
How = Literal["eof", "sigterm"]
Flavour = Literal["v1-client-terminal", "v1", "v2"]

EXIT_BOUND: Final = 5.0
"""Seconds the agent may take to exit once the client went away (it takes a small
fraction of that; before the fix it never exited)."""

PIPE_SIZE: Final = 4096
"""The agent's stdout pipe, shrunk so that a client that stops reading fills it."""

LINE_BOUND: Final = 1024
"""More than the length of any line the agent writes while streaming an answer."""


class _PipeReader(ByteReceiveStream):
    """The read end of a pipe, polled so that reading never blocks the loop."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    async def receive(self, max_bytes: int = 65536) -> bytes:
        await anyio.wait_readable(self.fd)
        data = os.read(self.fd, max_bytes)
        if not data:
            raise anyio.EndOfStream
        return data

    async def aclose(self) -> None:
        return None


class _Client:
    """A demo agent process and a minimal client speaking raw JSON lines.

    Args:
        process: The agent.
        to_agent: Our end of its stdin (-1 once closed).
        from_agent: Our end of its stdout.
        errors: Where its stderr goes.
    """

    def __init__(
        self, process: anyio.abc.Process, to_agent: int, from_agent: int, errors: Path
    ) -> None:
        self.process = process
        self.to_agent = to_agent
        self.from_agent = from_agent
        self.errors = errors
        self._lines = LineReader(_PipeReader(from_agent))
        self._ids = itertools.count(1)
        self.pending_wait: JSON | None = None
        """The `terminal/wait_for_exit` request left unanswered (v1 terminals)."""

    async def send(self, message: JSON) -> None:
        data = json.dumps(message).encode() + b"\n"
        with anyio.fail_after(BOUND):
            while data:
                await anyio.wait_writable(self.to_agent)
                data = data[os.write(self.to_agent, data) :]

    async def request(self, method: str, params: JSON) -> int:
        request_id = next(self._ids)
        await self.send(
            {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        )
        return request_id

    async def until(self, done: Callable[[JSON], bool]) -> JSON:
        """Read (answering the agent's requests) until a message matches `done`.

        Permission requests are allowed, `terminal/create` gets a terminal id;
        `terminal/wait_for_exit` is never answered.
        """
        with anyio.fail_after(BOUND):
            while True:
                line = await self._lines.receive()
                assert isinstance(line, bytes)
                message: JSON = json.loads(line)
                method = message.get("method")
                if method == "session/request_permission":
                    selected = {"outcome": "selected", "optionId": "allow-once"}
                    await self._reply(message, {"outcome": selected})
                elif method == "terminal/create":
                    await self._reply(message, {"terminalId": "client-term-1"})
                elif method == "terminal/wait_for_exit":
                    self.pending_wait = message
                if done(message):
                    return message

    async def _reply(self, request: JSON, result: JSON) -> None:
        await self.send({"jsonrpc": "2.0", "id": request["id"], "result": result})

    async def call(self, method: str, params: JSON) -> JSON:
        request_id = await self.request(method, params)
        reply = await self.until(lambda m: m.get("id") == request_id)
        assert "result" in reply, reply
        result: JSON = reply["result"]
        return result

    def leave(self, how: How) -> None:
        """End the connection: close the agent's stdin, or SIGTERM it."""
        if how == "eof":
            os.close(self.to_agent)
            self.to_agent = -1
        else:
            self.process.send_signal(signal.SIGTERM)

    async def exit_code(self) -> int:
        """Wait (at most `EXIT_BOUND`) for the agent to exit."""
        try:
            with anyio.fail_after(EXIT_BOUND):
                return await self.process.wait()
        except TimeoutError:
            stderr = self.errors.read_text(errors="replace")
            pytest.fail(f"the agent did not exit within {EXIT_BOUND} s\n{stderr}")

    async def rest(self) -> list[JSON]:
        """Everything the agent wrote that was not read yet (once it has exited)."""
        out: list[JSON] = []
        with anyio.fail_after(BOUND):
            while True:
                try:
                    line = await self._lines.receive()
                except anyio.EndOfStream:
                    return out
                if isinstance(line, bytes) and line.strip():
                    out.append(json.loads(line))

    def buffered(self) -> int:
        """Bytes the agent wrote that wait in the pipe, unread."""
        count = array.array("i", [0])
        fcntl.ioctl(self.from_agent, termios.FIONREAD, count)
        return count[0]


@asynccontextmanager
async def _demo(
    tmp_path: Path, *, pipe_size: int | None = None
) -> AsyncIterator[_Client]:
    """A fresh agent on pipes of our own (so their size can be set and measured)."""
    errors = tmp_path / "agent-stderr.txt"
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    try:
        if pipe_size is not None:
            fcntl.fcntl(stdout_w, fcntl.F_SETPIPE_SZ, pipe_size)
        with errors.open("wb") as stderr:
            process = await anyio.open_process(
                list(DEMO), stdin=stdin_r, stdout=stdout_w, stderr=stderr
            )
    except BaseException:
        for fd in (stdin_r, stdin_w, stdout_r, stdout_w):
            os.close(fd)
        raise
    os.close(stdin_r)
    os.close(stdout_w)
    os.set_blocking(stdin_w, False)
    client = _Client(process, stdin_w, stdout_r, errors)
    try:
        yield client
    finally:
        if process.returncode is None:
            process.kill()
        with anyio.CancelScope(shield=True), anyio.fail_after(BOUND):
            await process.aclose()
        for fd in (client.to_agent, client.from_agent):
            if fd >= 0:
                os.close(fd)


async def _start(client: _Client, flavour: Flavour, project: Path) -> str:
    """Initialize and open a session; returns its id."""
    if flavour == "v2":
        params: JSON = {
            "protocolVersion": 2,
            "info": {"name": "bare", "version": "1.0"},
            "capabilities": {},
            "clientCapabilities": {},
        }
    else:
        params = {
            "protocolVersion": 1,
            "clientCapabilities": {
                "fs": {"readTextFile": False, "writeTextFile": False},
                "terminal": flavour == "v1-client-terminal",
            },
        }
    result = await client.call("initialize", params)
    assert result["protocolVersion"] == (2 if flavour == "v2" else 1)
    session = await client.call("session/new", {"cwd": str(project), "mcpServers": []})
    session_id: str = session["sessionId"]
    return session_id


async def _prompt(client: _Client, session_id: str, text: str) -> None:
    await client.request(
        "session/prompt",
        {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]},
    )


def _update(message: JSON) -> JSON:
    if message.get("method") != "session/update":
        return {}
    update: JSON = message["params"]["update"]
    return update


def _raw_input_cwd(message: JSON) -> str | None:
    raw = _update(message).get("rawInput")
    return raw.get("cwd") if isinstance(raw, dict) else None


def _shows_output(flavour: Flavour, message: JSON) -> bool:
    """The command's first output has arrived (its pid file is written by then)."""
    update = _update(message)
    if flavour == "v2":
        if update.get("sessionUpdate") != "terminal_output_chunk":
            return False
        return b"Building" in base64.b64decode(update["data"])
    return update.get("sessionUpdate") == "tool_call_update" and "Building" in (
        json.dumps(update.get("content"))
    )


def _saved_turn(session_id: str) -> list[JSON]:
    """The saved history's events of the session's tool call and terminal."""
    record = persist.load(session_id)
    assert record is not None, "the session was not saved"
    return [
        event
        for event in record["history"]
        if event["kind"] in ("tool_call", "terminal")
    ]


@pytest.mark.parametrize("how", ["eof", "sigterm"])
async def test_leaving_while_a_client_terminal_wait_is_pending(
    how: How, tmp_path: Path, project: Path
) -> None:
    """v1, `terminal: true`: `terminal/wait_for_exit` is pending, the client goes."""
    async with _demo(tmp_path) as client:
        session_id = await _start(client, "v1-client-terminal", project)
        await _prompt(client, session_id, "/run long")
        await client.until(lambda m: m.get("method") == "terminal/wait_for_exit")
        assert client.pending_wait is not None

        client.leave(how)

        assert await client.exit_code() == 0
        rest = await client.rest()
    # Nothing more is asked of a client that went away (no kill, output, release).
    assert [m["method"] for m in rest if "id" in m and "method" in m] == []
    events = _saved_turn(session_id)
    assert events[-2:] == [
        {
            "kind": "terminal",
            "terminalId": "term-1",
            "fields": {"exitStatus": {"signal": "SIGKILL"}},
        },
        {
            "kind": "tool_call",
            "toolCallId": "call-1",
            "fields": {"status": "cancelled"},
        },
    ]


@pytest.mark.parametrize("how", ["eof", "sigterm"])
@pytest.mark.parametrize("flavour", ["v1", "v2"])
async def test_leaving_while_the_agent_runs_a_command_kills_it(
    flavour: Flavour, how: How, tmp_path: Path, project: Path
) -> None:
    """The agent runs the command in its own PTY: it dies with the connection."""
    async with _demo(tmp_path) as client:
        session_id = await _start(client, flavour, project)
        await _prompt(client, session_id, "/run long")
        started = await client.until(lambda m: _raw_input_cwd(m) is not None)
        workspace = _raw_input_cwd(started)
        assert workspace is not None
        await client.until(lambda m: _shows_output(flavour, m))
        pid = int(await anyio.Path(workspace, "run.pid").read_text())
        assert pid_exists(pid)

        client.leave(how)

        assert await client.exit_code() == 0
    assert not pid_exists(pid)
    events = _saved_turn(session_id)
    exited = [e for e in events if "exitStatus" in e.get("fields", {})]
    assert len(exited) == 1
    assert exited[0]["fields"]["exitStatus"].get("signal") in ("SIGTERM", "SIGKILL")
    assert events[-1]["fields"] == {"status": "cancelled"}


@pytest.mark.skipif(not hasattr(fcntl, "F_SETPIPE_SZ"), reason="needs Linux pipe sizes")
@pytest.mark.parametrize("how", ["eof", "sigterm"])
@pytest.mark.parametrize("flavour", ["v1", "v2"])
async def test_a_client_that_stopped_reading_does_not_hold_the_agent(
    flavour: Flavour, how: How, tmp_path: Path, project: Path
) -> None:
    """The client stops reading mid-answer: the agent's stdout fills up."""
    async with _demo(tmp_path, pipe_size=PIPE_SIZE) as client:
        session_id = await _start(client, flavour, project)
        # A long answer, streamed without delay, and not read: the agent writes
        # until the pipe cannot take its next line (every line is shorter than
        # LINE_BOUND), then waits for the pipe to drain.
        await _prompt(client, session_id, "/markdown")
        with anyio.fail_after(BOUND):
            # A pipe's fill level has no event to wait on: poll it.
            while client.buffered() <= PIPE_SIZE - LINE_BOUND:  # noqa: ASYNC110
                await anyio.sleep(0.01)

        client.leave(how)

        assert await client.exit_code() == 0
    record = persist.load(session_id)
    assert record is not None
    # The agent's last message says the turn was cancelled, in however many
    # chunks it came (a usage and an info update may follow it).
    chunks = [e for e in record["history"] if e.get("kind") == "message_chunk"]
    assert chunks, record["history"][-3:]
    last_id = chunks[-1]["messageId"]
    said = "".join(
        str(e["block"].get("text", "")) for e in chunks if e["messageId"] == last_id
    )
    assert "Cancelled" in said, chunks[-3:]
