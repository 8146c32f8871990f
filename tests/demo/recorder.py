"""A recording ACP client for the demo agent: raw JSON, every message kept.

It runs `python -m acp_tui.demo` as a real subprocess (the project's
`StdioTransport`), speaks through the project's `Dispatcher`, and records every
line the agent writes, in order, together with the method of the client request
each response answers, so that each can be validated against the schema
(`schema_check`). It answers the agent's requests itself: permission requests by
a policy, and (v1, when it advertises `terminal: true`) `terminal/*` by really
running the command.

All waits are bounded (`BOUND`); nothing waits on time for synchronisation.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import anyio
import anyio.abc

from acp_tui.demo.pacing import Pace, clock_from_env
from acp_tui.demo.server import serve
from acp_tui.demo.session import DemoAgent
from acp_tui.protocol.dispatcher import Dispatcher, RequestContext
from acp_tui.protocol.framing import Line, OversizedLine
from acp_tui.protocol.jsonrpc import METHOD_NOT_FOUND, RpcError
from acp_tui.protocol.transport import (
    AgentCommand,
    MessageStream,
    StdioTransport,
    memory_pair,
)

JSON = dict[str, Any]

BOUND: Final = 20.0
"""Seconds any single wait may take."""

DEMO: Final = (sys.executable, "-m", "acp_tui.demo")

PermissionPolicy = Callable[[JSON], str | None]
"""Params of a permission request -> the optionId to select, or None (cancelled)."""


def allow_once(params: JSON) -> str | None:
    return "allow-once"


def reject(params: JSON) -> str | None:
    return "reject-once"


def allow_always(params: JSON) -> str | None:
    return "allow-always"


class _RecordingStream:
    """Wraps the transport: records what the agent writes and what we request."""

    def __init__(self, inner: MessageStream, recorder: Recorder) -> None:
        self.inner = inner
        self.recorder = recorder

    async def receive(self) -> Line | OversizedLine:
        line = await self.inner.receive()
        if isinstance(line, bytes | bytearray) and line.strip():
            self.recorder._received(json.loads(line))
        return line

    async def send(self, line: bytes) -> None:
        message = json.loads(line)
        if isinstance(message, dict) and "method" in message and "id" in message:
            self.recorder.requested[message["id"]] = message["method"]
        self.recorder.sent.append(message)
        await self.inner.send(line)

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass
class _ClientTerminal:
    process: anyio.abc.Process
    output: bytearray = field(default_factory=bytearray)
    done: anyio.Event = field(default_factory=anyio.Event)


class Recorder:
    """One connection to a demo agent process."""

    def __init__(
        self,
        version: int,
        *,
        terminal: bool = False,
        permission: PermissionPolicy = allow_once,
        v2_number_with_v1_params: bool = False,
        session_capabilities: JSON | None = None,
    ) -> None:
        self.version = version
        self.terminal = terminal
        self.session_capabilities = session_capabilities
        """v1 `clientCapabilities.session` (None: left out)."""
        self.permission = permission
        self.v2_number_with_v1_params = v2_number_with_v1_params
        self.messages: list[JSON] = []
        """Every message the agent sent, in order."""
        self.sent: list[JSON] = []
        """Every message we sent."""
        self.requested: dict[Any, str] = {}
        """Our request ids -> methods (to know what each response answers)."""
        self.permissions: list[JSON] = []
        self.terminal_requests: list[JSON] = []
        self.dispatcher: Dispatcher | None = None
        self.hold_permissions = False
        """When set, permission requests wait for `release` and answer `cancelled`
        (what a client must do for the requests of a cancelled turn)."""
        self.release = anyio.Event()
        self.client_output = anyio.Event()
        """Set when a client terminal (v1 `terminal/create`) first prints."""
        self._arrived = anyio.Event()
        self._terminals: dict[str, _ClientTerminal] = {}
        self._tasks: anyio.abc.TaskGroup | None = None

    # ------------------------------------------------------------- plumbing

    def _received(self, message: JSON) -> None:
        self.messages.append(message)
        self._arrived.set()
        self._arrived = anyio.Event()

    async def until(self, predicate: Callable[[JSON], bool], start: int = 0) -> JSON:
        """The first message from index `start` on matching `predicate` (bounded)."""
        with anyio.fail_after(BOUND):
            index = start
            while True:
                while index < len(self.messages):
                    if predicate(self.messages[index]):
                        return self.messages[index]
                    index += 1
                await self._arrived.wait()

    def updates(self, session_id: str | None = None, start: int = 0) -> list[JSON]:
        """The `session/update` payloads received (optionally for one session)."""
        return [
            m["params"]["update"]
            for m in self.messages[start:]
            if m.get("method") == "session/update"
            and (session_id is None or m["params"]["sessionId"] == session_id)
        ]

    async def request(self, method: str, params: JSON) -> Any:
        assert self.dispatcher is not None
        with anyio.fail_after(BOUND):
            return await self.dispatcher.request(method, params)

    async def notify(self, method: str, params: JSON) -> None:
        assert self.dispatcher is not None
        await self.dispatcher.notify(method, params)

    # ------------------------------------------------------- client requests

    async def _on_request(
        self, method: str, params: Any, context: RequestContext
    ) -> Any:
        if method == "session/request_permission":
            self.permissions.append(params)
            context.handles_cancellation = True
            if self.hold_permissions:
                with anyio.fail_after(BOUND):
                    await self.release.wait()
                return {"outcome": {"outcome": "cancelled"}}
            choice = self.permission(params)
            if choice is None:
                return {"outcome": {"outcome": "cancelled"}}
            return {"outcome": {"outcome": "selected", "optionId": choice}}
        if method.startswith("terminal/") and self.terminal and self.version == 1:
            self.terminal_requests.append({"method": method, "params": params})
            return await self._terminal(method, params)
        raise RpcError(METHOD_NOT_FOUND, "Method not found", method)

    async def _terminal(self, method: str, params: JSON) -> Any:
        if method == "terminal/create":
            process = await anyio.open_process(
                [params["command"], *params.get("args", [])],
                cwd=params.get("cwd"),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
            )
            terminal_id = f"client-term-{len(self._terminals) + 1}"
            terminal = self._terminals[terminal_id] = _ClientTerminal(process)

            async def pump() -> None:
                assert process.stdout is not None
                async for chunk in process.stdout:
                    terminal.output += chunk
                    self.client_output.set()
                await process.wait()
                terminal.done.set()

            assert self._tasks is not None
            self._tasks.start_soon(pump)
            return {"terminalId": terminal_id}
        terminal = self._terminals[params["terminalId"]]
        if method == "terminal/wait_for_exit":
            await terminal.done.wait()
            return self._exit(terminal)
        if method == "terminal/output":
            result: JSON = {
                "output": terminal.output.decode("utf-8", "replace"),
                "truncated": False,
            }
            if terminal.done.is_set():
                result["exitStatus"] = self._exit(terminal)
            return result
        if method in ("terminal/kill", "terminal/release"):
            if terminal.process.returncode is None:
                terminal.process.kill()
            return {}
        raise RpcError(METHOD_NOT_FOUND, "Method not found", method)

    @staticmethod
    def _exit(terminal: _ClientTerminal) -> JSON:
        code = terminal.process.returncode
        if code is not None and code < 0:
            return {"exitCode": None, "signal": "SIGKILL"}
        return {"exitCode": code, "signal": None}

    # ------------------------------------------------------------- the ACP

    async def initialize(self) -> JSON:
        if self.version == 2:
            params: JSON = {
                "protocolVersion": 2,
                "info": {"name": "recorder", "version": "1.0"},
                "capabilities": {},
                "clientInfo": {"name": "recorder", "version": "1.0"},
                "clientCapabilities": {"terminal": self.terminal},
            }
        elif self.v2_number_with_v1_params:
            params = {
                "protocolVersion": 2,
                "clientCapabilities": {"terminal": self.terminal},
                "clientInfo": {"name": "recorder", "version": "1.0"},
            }
        else:
            params = {
                "protocolVersion": 1,
                "clientCapabilities": {
                    "fs": {"readTextFile": False, "writeTextFile": False},
                    "terminal": self.terminal,
                },
                "clientInfo": {"name": "recorder", "version": "1.0"},
            }
        if self.session_capabilities is not None:
            params["clientCapabilities"]["session"] = self.session_capabilities
        result: JSON = await self.request("initialize", params)
        return result

    async def new_session(self, cwd: Path) -> str:
        result = await self.request("session/new", {"cwd": str(cwd), "mcpServers": []})
        session_id: str = result["sessionId"]
        return session_id

    async def prompt(self, session_id: str, text: str) -> str | None:
        """Send a prompt; return the stop reason once the turn has ended."""
        start = len(self.messages)
        params = {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}
        if self.version == 1:
            result = await self.request("session/prompt", params)
            stop: str | None = result["stopReason"]
            return stop
        await self.request("session/prompt", params)
        end = await self.until(lambda m: _is_idle_end(m, session_id), start)
        stop = end["params"]["update"]["stopReason"]
        return stop

    async def start_prompt(self, session_id: str, text: str) -> Any:
        """Send a prompt without waiting; returns a waiter for its stop reason."""
        result: dict[str, Any] = {}
        done = anyio.Event()

        async def go() -> None:
            result["stop"] = await self.prompt(session_id, text)
            done.set()

        assert self._tasks is not None
        self._tasks.start_soon(go)

        async def wait() -> str | None:
            with anyio.fail_after(BOUND):
                await done.wait()
            stop: str | None = result["stop"]
            return stop

        return wait

    def replay_request(self, session_id: str, cwd: Path) -> tuple[str, JSON]:
        """The method and params that replay a session's history: v2
        `session/resume` from the start, v1 `session/load`."""
        if self.version == 2:
            params: JSON = {
                "sessionId": session_id,
                "cwd": str(cwd),
                "replayFrom": {"type": "start"},
            }
            return "session/resume", params
        return "session/load", {
            "sessionId": session_id,
            "cwd": str(cwd),
            "mcpServers": [],
        }

    async def cancel(self, session_id: str) -> None:
        await self.notify("session/cancel", {"sessionId": session_id})


def _is_idle_end(message: JSON, session_id: str) -> bool:
    if message.get("method") != "session/update":
        return False
    params = message["params"]
    update = params["update"]
    return (
        params["sessionId"] == session_id
        and update.get("sessionUpdate") == "state_update"
        and update.get("state") == "idle"
        and "stopReason" in update
    )


@asynccontextmanager
async def recording(
    version: int,
    *,
    terminal: bool = False,
    permission: PermissionPolicy = allow_once,
    v2_number_with_v1_params: bool = False,
    in_process: bool = False,
    session_capabilities: JSON | None = None,
) -> AsyncIterator[Recorder]:
    """A `Recorder` connected to a fresh demo agent (initialized).

    By default the agent is a real `python -m acp_tui.demo` process. With
    `in_process`, the same server runs in this event loop over an in-memory link
    (the project's `memory_pair`, which frames lines exactly like a pipe): much
    faster, for the behaviour tests.
    """
    recorder = Recorder(
        version,
        terminal=terminal,
        permission=permission,
        v2_number_with_v1_params=v2_number_with_v1_params,
        session_capabilities=session_capabilities,
    )
    async with anyio.create_task_group() as tasks:
        async with _agent(in_process, tasks) as link:
            recorder._tasks = tasks
            stream = _RecordingStream(link, recorder)
            dispatcher = Dispatcher(
                stream,
                on_request=recorder._on_request,
                on_notification=_ignore,
            )
            recorder.dispatcher = dispatcher
            async with dispatcher.running():
                await recorder.initialize()
                yield recorder
        tasks.cancel_scope.cancel()
    recorder._tasks = None


async def _ignore(method: str, params: Any) -> None:
    return None


@asynccontextmanager
async def _agent(
    in_process: bool, tasks: anyio.abc.TaskGroup
) -> AsyncIterator[MessageStream]:
    if not in_process:
        async with StdioTransport(AgentCommand(DEMO), name="demo") as transport:
            yield transport
        return
    ours, theirs = memory_pair()
    agent = DemoAgent(clock=clock_from_env(), pace=Pace(0))
    done = anyio.Event()

    async def run_agent() -> None:
        try:
            await serve(theirs, agent)
        finally:
            done.set()

    async with ours, theirs:
        tasks.start_soon(run_agent)
        try:
            yield ours
        finally:
            await ours.aclose()  # end of input: the agent winds down
            with anyio.fail_after(BOUND):
                await done.wait()
