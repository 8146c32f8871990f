"""An in-process ACP agent peer for the session-layer tests, driven by hand.

The test holds the agent's end of a `memory_pair()` link: it reads what the client
sends (one JSON object per line) and writes replies, updates and requests. Nothing
runs on its own, so every step is ordered by the test.

* `Peer` is the agent's end. `take()` waits for the first message matching a
  predicate and keeps the others in `inbox`, so a test can wait for one response
  while the client's other messages (a `session/cancel`, another response) are
  still in flight in an unknown order. `sync()` is a round trip (a request the
  client answers `-32601`): the client handles messages in order, so once it is
  answered, every update sent before it has been applied.
* `ScriptedPrompter` is the `PermissionPrompter`, `ScriptedElicitor` the
  `ElicitationPrompter`: each call is queued for the test, which answers it
  (or sees that the call was cancelled).
* `open_harness()` connects an `AcpClient` to the peer with `connect()`, answers
  `initialize` with the given result, and bounds the whole test with a timeout.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, ParamSpec, TypeVar

import anyio
import anyio.abc

from acp_tui.client.connection import ClientFeatures, Connection, connect
from acp_tui.client.ports import (
    ElicitationReply,
    ElicitationRequest,
    PermissionRequest,
)
from acp_tui.client.session import AcpClient
from acp_tui.config import McpServerSettings
from acp_tui.protocol.dispatcher import Diagnostic
from acp_tui.protocol.transport import MemoryEndpoint, memory_pair
from acp_tui.store.store import SessionStore

JSON = dict[str, Any]

BOUND = 5
"""Seconds any one test may take."""

CWD = Path("/home/user/project")

_T = TypeVar("_T")
_P = ParamSpec("_P")
_R = TypeVar("_R")
_A = TypeVar("_A")


# -- initialize results -------------------------------------------------------------


def v2_init(session: JSON | None = None, **capabilities: Any) -> JSON:
    """A v2 `initialize` result; `session` is `capabilities.session` (None: absent)."""
    caps: JSON = dict(capabilities)
    if session is not None:
        caps["session"] = session
    return {
        "protocolVersion": 2,
        "info": {"name": "fake-agent", "title": "Fake Agent", "version": "1.0"},
        "capabilities": caps,
        "authMethods": [],
    }


def v1_init(**agent_capabilities: Any) -> JSON:
    """A v1 `initialize` result with these `agentCapabilities` (camelCase keys)."""
    return {
        "protocolVersion": 1,
        "agentCapabilities": agent_capabilities,
        "authMethods": [],
        "agentInfo": {"name": "fake-agent", "version": "1.0"},
    }


# -- the agent's end ----------------------------------------------------------------


class Peer:
    """The agent's end of the link."""

    def __init__(self, endpoint: MemoryEndpoint) -> None:
        self.endpoint = endpoint
        self.inbox: list[JSON] = []
        """Messages read while waiting for another one, oldest first."""
        self._ids = itertools.count(100)

    # reading

    async def _read(self) -> JSON:
        line = await self.endpoint.receive()
        assert isinstance(line, bytes), line
        message = json.loads(line)
        assert isinstance(message, dict), message
        return message

    async def take(self, predicate: Callable[[JSON], bool]) -> JSON:
        """The first message (kept or new) that matches; others are kept."""
        for index, message in enumerate(self.inbox):
            if predicate(message):
                return self.inbox.pop(index)
        while True:
            message = await self._read()
            if predicate(message):
                return message
            self.inbox.append(message)

    async def expect_request(self, method: str) -> JSON:
        """The client's next request of `method`."""
        return await self.take(lambda m: m.get("method") == method and "id" in m)

    async def expect_notification(self, method: str) -> JSON:
        """The client's next notification of `method` (a message with no `id`)."""
        return await self.take(lambda m: m.get("method") == method and "id" not in m)

    async def expect_response(self, request_id: int | str) -> JSON:
        """The client's response to our request `request_id`."""
        return await self.take(
            lambda m: "method" not in m and m.get("id") == request_id
        )

    # writing

    async def send(self, message: Mapping[str, Any]) -> None:
        await self.endpoint.send(json.dumps(message).encode() + b"\n")

    async def reply(self, request: JSON, result: Any) -> None:
        await self.send({"jsonrpc": "2.0", "id": request["id"], "result": result})

    async def reply_error(
        self, request: JSON, code: int, message: str, data: Any = None
    ) -> None:
        error: JSON = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        await self.send({"jsonrpc": "2.0", "id": request["id"], "error": error})

    async def notify(self, method: str, params: Any) -> None:
        await self.send({"jsonrpc": "2.0", "method": method, "params": params})

    async def update(self, session_id: str, update: JSON) -> None:
        """Send one `session/update`."""
        await self.notify("session/update", {"sessionId": session_id, "update": update})

    async def request(self, method: str, params: Any) -> int:
        """Send a request to the client; returns its id."""
        request_id = next(self._ids)
        await self.send(
            {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        )
        return request_id

    async def call(self, method: str, params: Any) -> JSON:
        """Send a request and return the client's whole response message."""
        return await self.expect_response(await self.request(method, params))

    async def sync(self) -> None:
        """Wait until the client has handled everything sent before this call."""
        response = await self.call("_test/sync", {})
        assert response["error"]["code"] == -32601

    async def answer_initialize(self, result: JSON) -> None:
        request = await self.expect_request("initialize")
        await self.reply(request, result)


# -- the permission prompter ----------------------------------------------------------


@dataclass
class Asked(Generic[_R, _A]):
    """One prompter call (a permission request, an elicitation)."""

    request: _R
    answered: anyio.Event = field(default_factory=anyio.Event)
    answer: _A | None = None
    cancelled: bool = False
    """Whether the client cancelled the call (withdrawn or cancelled turn)."""
    finished: anyio.Event = field(default_factory=anyio.Event)
    """Set when the call returned or was cancelled."""

    def reply(self, answer: _A | None) -> None:
        self.answer = answer
        self.answered.set()


Ask = Asked[PermissionRequest, str]
"""One `PermissionPrompter.ask` call."""


class _Scripted(Generic[_R, _A]):
    """A prompter the test answers by hand (or by a fixed function)."""

    def __init__(self, answer: Callable[[_R], _A | None] | None = None) -> None:
        self.asks: list[Asked[_R, _A]] = []
        self._answer = answer
        self._taken = 0
        self._waiters: list[anyio.Event] = []

    async def _asked(self, request: _R) -> _A | None:
        ask: Asked[_R, _A] = Asked(request)
        self.asks.append(ask)
        for waiter in self._waiters:
            waiter.set()
        self._waiters.clear()
        if self._answer is not None:
            ask.reply(self._answer(request))
        try:
            await ask.answered.wait()
        except anyio.get_cancelled_exc_class():
            ask.cancelled = True
            raise
        finally:
            ask.finished.set()
        return ask.answer

    async def next(self) -> Asked[_R, _A]:
        """The next ask not yet taken by the test (waits for it)."""
        while self._taken >= len(self.asks):
            waiter = anyio.Event()
            self._waiters.append(waiter)
            await waiter.wait()
        ask = self.asks[self._taken]
        self._taken += 1
        return ask


class ScriptedPrompter(_Scripted[PermissionRequest, str]):
    """A `PermissionPrompter` the test answers by hand (or by a fixed function)."""

    async def ask(self, request: PermissionRequest) -> str | None:
        return await self._asked(request)


class ScriptedElicitor(_Scripted[ElicitationRequest, ElicitationReply]):
    """An `ElicitationPrompter` the test answers by hand (or by a function)."""

    async def elicit(self, request: ElicitationRequest) -> ElicitationReply | None:
        return await self._asked(request)


# -- background calls -----------------------------------------------------------------


class Call(Generic[_T]):
    """A client call running in the background."""

    def __init__(self) -> None:
        self.done = anyio.Event()
        self._result: _T | None = None
        self._error: Exception | None = None

    async def run(self, function: Callable[[], Awaitable[_T]]) -> None:
        try:
            self._result = await function()
        except Exception as error:
            self._error = error
        self.done.set()

    async def wait(self) -> _T:
        """The call's result (re-raising its exception)."""
        await self.done.wait()
        if self._error is not None:
            raise self._error
        return self._result  # type: ignore[return-value]


@dataclass
class Harness:
    """A connected client and the peer that plays its agent."""

    client: AcpClient
    peer: Peer
    prompter: ScriptedPrompter
    connection: Connection
    diagnostics: list[Diagnostic]
    task_group: anyio.abc.TaskGroup

    def start(
        self,
        function: Callable[_P, Awaitable[_T]],
        *args: _P.args,
        **kwargs: _P.kwargs,
    ) -> Call[_T]:
        """Run a client coroutine in the background (while the peer answers it)."""
        call: Call[_T] = Call()
        self.task_group.start_soon(call.run, lambda: function(*args, **kwargs))
        return call

    async def new_session(
        self, session_id: str = "s1", cwd: Path = CWD, **result: Any
    ) -> SessionStore:
        """`client.new_session(cwd)`, answered with `{sessionId, **result}`."""
        call = self.start(self.client.new_session, cwd)
        request = await self.peer.expect_request("session/new")
        await self.peer.reply(request, {"sessionId": session_id, **result})
        return await call.wait()


@asynccontextmanager
async def open_harness(
    init: JSON,
    *,
    prompter: ScriptedPrompter | None = None,
    elicitor: ScriptedElicitor | None = None,
    features: ClientFeatures | None = None,
    mcp_servers: Mapping[str, McpServerSettings] | None = None,
    roots: Sequence[Path] = (),
) -> AsyncIterator[Harness]:
    """Connect a client to a peer that answers `initialize` with `init`.

    The whole block is bounded by `BOUND` seconds. Background calls still running
    at the end are cancelled.
    """
    prompter = prompter or ScriptedPrompter()
    diagnostics: list[Diagnostic] = []
    client = AcpClient(
        prompter=prompter,
        elicitor=elicitor,
        features=features,
        mcp_servers=mcp_servers,
        on_diagnostic=diagnostics.append,
        roots=roots,
    )
    client_end, agent_end = memory_pair()
    peer = Peer(agent_end)
    error: BaseException | None = None
    with anyio.fail_after(BOUND):
        async with agent_end, anyio.create_task_group() as init_group:
            init_group.start_soon(peer.answer_initialize, init)
            async with connect(
                lambda: client_end,
                features=features,
                on_request=client.handle_request,
                on_notification=client.handle_notification,
                on_diagnostic=diagnostics.append,
                long_text_paths=client.long_text_paths,
            ) as connection:
                client.attach(connection)
                async with anyio.create_task_group() as group:
                    harness = Harness(
                        client, peer, prompter, connection, diagnostics, group
                    )
                    try:
                        yield harness
                    except anyio.get_cancelled_exc_class():
                        raise
                    except BaseException as raised:  # re-raised unwrapped, below
                        error = raised
                    group.cancel_scope.cancel()
    if error is not None:
        raise error
