"""Run `acp-tui bridge` as a subprocess, and talk to it with plain httpx and
websockets (no acp-tui client code): the tests see the wire as a remote client.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import anyio
import httpx

import acp_tui
from tests.serve.running import children

TOKEN: Final = "test-token-0123456789abcdef"
DEMO: Final = (sys.executable, "-m", "acp_tui.demo")
FAULT_AGENT: Final = Path(__file__).parents[1] / "fakes" / "fault_agent.py"
START_TIMEOUT: Final = 30.0
STOP_TIMEOUT: Final = 15.0

V1_INIT: Final = {
    "protocolVersion": 1,
    "clientCapabilities": {"fs": {"readTextFile": False, "writeTextFile": False}},
    "clientInfo": {"name": "bridge-test", "version": "0"},
}
V2_INIT: Final = {
    "protocolVersion": 2,
    "info": {"name": "bridge-test", "version": "0"},
    "capabilities": {},
}


def fault_agent(*args: str) -> tuple[str, ...]:
    """The command of `tests/fakes/fault_agent.py` with these arguments."""
    return (sys.executable, str(FAULT_AGENT), *args)


def init_params(version: int) -> dict[str, Any]:
    return V2_INIT if version == 2 else V1_INIT


def fd_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


@dataclass
class Bridge:
    process: subprocess.Popen[str]
    base: str
    """http://127.0.0.1:PORT/acp"""
    banner: list[str]

    @property
    def ws_url(self) -> str:
        return "ws" + self.base[len("http") :]

    def agents(self) -> list[int]:
        """The bridge's child processes: its agents."""
        return sorted(children(self.process.pid))


def bridge_argv(
    extra: Sequence[str], agent: Sequence[str] = DEMO, listen: str = "127.0.0.1:0"
) -> list[str]:
    return [
        sys.executable,
        "-m",
        "acp_tui",
        "bridge",
        "--listen",
        listen,
        *extra,
        "--",
        *agent,
    ]


@contextlib.contextmanager
def running_bridge(
    tmp_path: Path,
    extra: Sequence[str] = ("--token", TOKEN),
    agent: Sequence[str] = DEMO,
    env: dict[str, str] | None = None,
    listen: str = "127.0.0.1:0",
) -> Iterator[Bridge]:
    """The bridge, started and ready; stopped with SIGTERM (bounded) at the end."""
    root = str(Path(acp_tui.__file__).resolve().parents[1])
    path = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    environment = {
        **os.environ,
        "PYTHONPATH": path,
        "ACP_TUI_HOME": str(tmp_path / "home"),
        "ACP_TUI_DEMO_DELAY": "0",
        **(env or {}),
    }
    with open(tmp_path / "bridge.stderr", "w") as stderr:
        process = subprocess.Popen(
            bridge_argv(extra, agent, listen),
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            env=environment,
            cwd=tmp_path,
        )
    try:
        banner: list[str] = []
        base = None
        assert process.stdout is not None
        for _ in range(2):
            line = _readline(process, START_TIMEOUT)
            banner.append(line)
            match = re.search(r"(http://[^ ]+/acp)", line)
            if match:
                base = match.group(1)
        assert base is not None, banner
        yield Bridge(process, base, banner)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
                raise AssertionError("the bridge did not stop on SIGTERM") from None
        if process.stdout is not None:
            process.stdout.close()


def _readline(process: subprocess.Popen[str], timeout: float) -> str:
    """One line of the bridge's stdout, waiting at most `timeout` seconds."""
    import threading

    assert process.stdout is not None
    stdout = process.stdout
    lines: list[str] = []
    reader = threading.Thread(
        target=lambda: lines.append(stdout.readline()), daemon=True
    )
    reader.start()
    reader.join(timeout)
    if not lines:
        raise AssertionError("the bridge printed nothing in time")
    return lines[0]


def turn_ended(message: dict[str, Any], id_: int, version: int) -> bool:
    """Whether `message` ends the turn of prompt `id_`: its response (v1), the
    idle state update after it (v2)."""
    if version == 1:
        return message.get("id") == id_ and "method" not in message
    update = message.get("params", {}).get("update", {})
    return (
        message.get("method") == "session/update"
        and update.get("sessionUpdate") == "state_update"
        and update.get("state") == "idle"
    )


def auth(token: str = TOKEN) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def request(id_: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}


# -- WebSocket --------------------------------------------------------------------


class WsClient:
    """A minimal JSON-RPC peer over a websockets connection."""

    def __init__(self, socket: Any, timeout: float = 30) -> None:
        self.socket = socket
        self.timeout = timeout
        """Seconds each exchange may take."""
        self.seen: list[dict[str, Any]] = []

    async def send(self, message: dict[str, Any]) -> None:
        await self.socket.send(json.dumps(message))

    async def call(
        self, id_: int, method: str, params: dict[str, Any], version: int = 1
    ) -> dict[str, Any]:
        """Send a request; the response (every message before it is in `seen`).

        Permission requests are answered with the first option.
        """
        await self.send(request(id_, method, params))
        return await self.until_response(id_, version)

    async def until_response(self, id_: int, version: int = 1) -> dict[str, Any]:
        """Read until the response to `id_` (with `version` 2 and a prompt: until
        the turn's idle update; the response is returned)."""
        response: dict[str, Any] | None = None
        with anyio.fail_after(self.timeout):
            while True:
                message = json.loads(await self.socket.recv())
                self.seen.append(message)
                if message.get("id") == id_ and "method" not in message:
                    response = message
                if response is not None and (
                    "error" in response or turn_ended(message, id_, version)
                ):
                    return response
                if message.get("method") == "session/request_permission":
                    option = message["params"]["options"][0]["optionId"]
                    await self.send(
                        {
                            "jsonrpc": "2.0",
                            "id": message["id"],
                            "result": {
                                "outcome": {"outcome": "selected", "optionId": option}
                            },
                        }
                    )


@contextlib.asynccontextmanager
async def ws_connect(
    bridge: Bridge, headers: dict[str, str] | None = None, **kwargs: Any
) -> AsyncIterator[WsClient]:
    import websockets

    async with websockets.connect(
        bridge.ws_url,
        additional_headers={**auth(), **(headers or {})},
        max_size=None,
        **{"open_timeout": 30, **kwargs},
    ) as socket:
        yield WsClient(socket)


# -- Streamable HTTP --------------------------------------------------------------


class SseReader:
    """The events of one SSE GET stream, as JSON messages."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self._lines = response.aiter_lines()

    async def next(self) -> dict[str, Any]:
        data: list[str] = []
        with anyio.fail_after(30):
            async for line in self._lines:
                if line.startswith("data:"):
                    data.append(line[5:].removeprefix(" "))
                elif line == "" and data:
                    return json.loads("\n".join(data))  # type: ignore[no-any-return]
        raise AssertionError("the stream ended")

    async def until_response(
        self, id_: int, seen: list[dict[str, Any]], version: int = 1
    ) -> dict[str, Any]:
        response: dict[str, Any] | None = None
        while True:
            message = await self.next()
            seen.append(message)
            if message.get("id") == id_ and "method" not in message:
                response = message
            if response is not None and (
                "error" in response or turn_ended(message, id_, version)
            ):
                return response


@contextlib.asynccontextmanager
async def sse_stream(
    client: httpx.AsyncClient, base: str, headers: dict[str, str]
) -> AsyncIterator[SseReader]:
    async with client.stream(
        "GET", base, headers={**headers, "Accept": "text/event-stream"}
    ) as response:
        assert response.status_code == 200, response.status_code
        yield SseReader(response)


async def http_initialize(
    client: httpx.AsyncClient, bridge: Bridge, version: int = 1
) -> str:
    """POST initialize; the connection id."""
    init = await client.post(
        bridge.base,
        headers=post_headers(),
        json=request(0, "initialize", init_params(version)),
    )
    assert init.status_code == 200, init.text
    assert init.json()["result"]["protocolVersion"] == version
    connection = init.headers["Acp-Connection-Id"]
    assert isinstance(connection, str)
    return connection


async def sse_messages(response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
    """The JSON messages of an SSE response (one `data:` line each)."""
    async for line in response.aiter_lines():
        if line.startswith("data: "):
            yield json.loads(line[6:])


def post_headers(
    connection: str | None = None, session: str | None = None
) -> dict[str, str]:
    headers = {**auth(), "Content-Type": "application/json"}
    if connection is not None:
        headers["Acp-Connection-Id"] = connection
    if session is not None:
        headers["Acp-Session-Id"] = session
    return headers
