"""Connect to an agent and agree on a protocol version (ACP `initialize`).

See https://agentclientprotocol.com/protocol/initialization and, for v2,
https://agentclientprotocol.com/protocol/v2/initialization.

How acp-tui negotiates (`--protocol auto`, the default):

1. Offer 2. The v2 params carry `info` and `capabilities`, **plus** the v1 fields
   `clientInfo` and `clientCapabilities` as extra keys (the v2 schema allows extra
   properties). A v1-only agent answers 1 and reads its v1 capabilities from that
   same message, so no second handshake is needed. Verified against `opencode acp`
   (answers 1) and claude-agent-acp 0.101 (answers 2); see tests/interop.
2. An answer of 1 switches this connection to the v1 surface.
3. An answer of 2 without `info` is not a real v2 reply: the Python SDK's
   `echo_agent.py` echoes the offered number over a v1 body. Reconnect (a new agent
   process) offering 1. The same happens when the agent answers a v2 `initialize`
   with an error (claude-agent-acp returns -32602 for v2 with v1-shaped params).
4. Any other version, or one the user did not allow (`--protocol 1|2`), closes the
   connection with `UnsupportedProtocolVersion`.

`initialize` is bounded by a timeout: an agent that never answers is reported as
such, rather than leaving the user at "Initializing…".

A program that is not an ACP agent at all (`cat`, `echo hi`, a plain CLI) is told
apart early instead (`NotAnAgent`), while `initialize` is unanswered only:

* it sends acp-tui's own `initialize` request back (it echoes its input): at once;
* it writes a line that is not JSON-RPC and exits: at once;
* it writes a line that is not JSON-RPC and, within `NOT_AN_AGENT_GRACE` seconds,
  neither answers nor sends any JSON-RPC message: after those seconds. The grace
  keeps an agent that logs one stray line to stdout at start-up (as some libraries
  do) usable: its answer still counts, and any JSON-RPC message it sends shows it
  speaks the protocol, so the usual timeout applies again.

An agent may send its first requests right after its `initialize` answer, even in
the same write (a request-scoped `elicitation/create`, say). The dispatcher reads
them before `connect()` has taken in the answer, so they wait, and are served once
the connection is handed over (the caller attaches its client before its first
await). A request read before the answer is still refused: the client is not set
up, and the agent cannot know which version it speaks.

Once `initialize` is answered, bad lines are what they always were: a diagnostic, a
JSON-RPC error reply, and reading goes on (`protocol.dispatcher`).

A `Connection` carries a task group, `tasks`, for work that lives as long as the
connection: the commands of v1 client-owned terminals (`client.terminals`). When
the connection closes, normally, by an error or by cancellation (the app quits),
that group is cancelled and waited for first, so every command is killed and reaped
(a bounded, shielded cleanup) before the dispatcher stops and the agent is shut
down.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Collection, Mapping
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Final

import anyio
import anyio.abc
from pydantic import ValidationError

from acp_tui import __version__
from acp_tui.client.dialect import AgentIdentity, Dialect
from acp_tui.client.errors import (
    AgentExited,
    BrokenInitializeReply,
    InitializeRejected,
    InitializeTimeout,
    NotAnAgent,
)
from acp_tui.client.v1 import V1Dialect
from acp_tui.client.v2 import V2Dialect
from acp_tui.protocol.dispatcher import (
    Diagnostic,
    DiagnosticHandler,
    Dispatcher,
    NotificationHandler,
    RequestContext,
    RequestHandler,
    RequestTimeout,
    background_tasks,
)
from acp_tui.protocol.jsonrpc import INVALID_REQUEST, METHOD_NOT_FOUND, RpcError
from acp_tui.protocol.schema import v1, v2
from acp_tui.protocol.transport import ConnectionClosed, MessageStream
from acp_tui.protocol.version import (
    ProtocolChoice,
    ProtocolVersion,
    negotiate,
    offers_for,
)

__all__ = [
    "INITIALIZE_TIMEOUT",
    "AgentIdentity",
    "ClientFeatures",
    "ClientIdentity",
    "Connection",
    "StreamFactory",
    "connect",
    "initialize_params",
]

log = logging.getLogger(__name__)

INITIALIZE_TIMEOUT: Final = 60.0
"""Default seconds to wait for the `initialize` reply. `npx -y` agents download
themselves on first start, so this is generous; `--init-timeout` changes it."""

NOT_AN_AGENT_GRACE: Final = 3.0
"""Seconds an agent that wrote a line that is not JSON-RPC before answering
`initialize` gets to answer it, or to send any JSON-RPC message, before it is
reported as not an ACP agent (see the module docstring)."""

StreamFactory = Callable[[], AbstractAsyncContextManager[MessageStream]]
"""Opens one connection to the agent (for a subprocess: starts the process). Called
again for each fallback attempt, since `initialize` happens once per connection."""


@dataclass(frozen=True, slots=True)
class ClientIdentity:
    """How acp-tui names itself in `initialize`."""

    name: str = "acp-tui"
    title: str = "acp-tui"
    version: str = __version__


@dataclass(frozen=True, slots=True)
class ClientFeatures:
    """Which client-side methods acp-tui serves on this connection.

    v1 agents learn these from `clientCapabilities`; v2 has no client `fs` or
    `terminal` (agents own terminals), so only auth and elicitation go in the v2
    `capabilities`.
    """

    read_text_file: bool = False
    write_text_file: bool = False
    terminal: bool = False
    """Serve the v1 `terminal/*` methods: commands run on this machine, in a PTY,
    inside the session's directories (`client.terminals`)."""
    terminal_auth: bool = False
    """The client can run an agent's `terminal` login method (agents may only
    advertise such methods to clients that declare it)."""
    git_writes: bool = False
    """Let `fs/write_text_file` write under `.git` (hooks, config: code that the
    user's next git command runs). The user's choice; refused by default."""
    elicitation_form: bool = False
    """Answer form `elicitation/create` requests (`elicitation.form`, v1 and v2)."""
    elicitation_url: bool = False
    """Answer URL `elicitation/create` requests (`elicitation.url`, v1 and v2)."""


@dataclass(slots=True)
class Connection:
    """A negotiated connection to an agent."""

    protocol_version: ProtocolVersion
    dispatcher: Dispatcher
    stream: MessageStream
    initialize_result: v1.InitializeResponse | v2.InitializeResponse
    """The agent's `initialize` result, as the negotiated version's wire model."""
    agent: AgentIdentity
    fallbacks: list[str] = field(default_factory=list)
    """Why earlier offers were abandoned, in order (empty if the first offer held)."""
    tasks: anyio.abc.TaskGroup | None = None
    """Background work that lives as long as the connection (client-owned
    terminals): cancelled, and waited for, when the connection closes. None for a
    connection not made by `connect()`."""
    dialect: Dialect = field(init=False, repr=False)
    """What depends on the negotiated version (`client.v1` / `client.v2`)."""

    def __post_init__(self) -> None:
        self.dialect = _dialect(self.initialize_result)


DIALECTS: Final[Mapping[ProtocolVersion, type[V1Dialect] | type[V2Dialect]]] = {
    1: V1Dialect,
    2: V2Dialect,
}
"""The dialect of each protocol version acp-tui speaks."""


def _dialect(result: v1.InitializeResponse | v2.InitializeResponse) -> Dialect:
    """The dialect of the negotiated version (its `initialize` result's model)."""
    if isinstance(result, v2.InitializeResponse):
        return V2Dialect(result)
    return V1Dialect(result)


def initialize_params(
    offer: ProtocolVersion, identity: ClientIdentity, features: ClientFeatures
) -> dict[str, Any]:
    """The `initialize` params for an offer, in wire form (built by its dialect).

    A v2 offer carries the v1 `clientInfo` and `clientCapabilities` too (see the
    module docstring); a v1 offer is plain v1.
    """
    return DIALECTS[offer].initialize_params(identity, features)


@asynccontextmanager
async def connect(
    open_stream: StreamFactory,
    *,
    choice: ProtocolChoice = "auto",
    identity: ClientIdentity | None = None,
    features: ClientFeatures | None = None,
    init_timeout: float = INITIALIZE_TIMEOUT,
    on_request: RequestHandler | None = None,
    on_notification: NotificationHandler | None = None,
    on_diagnostic: DiagnosticHandler | None = None,
    long_text_paths: Collection[tuple[str, ...]] = (),
) -> AsyncIterator[Connection]:
    """Open a connection, run `initialize`, and yield the negotiated `Connection`.

    Args:
        open_stream: Opens a fresh connection (starts the agent) per attempt.
        choice: `auto` offers 2 then 1; `1` or `2` pins that version.
        identity: How acp-tui names itself.
        features: The client methods acp-tui serves (v1 capabilities).
        init_timeout: Seconds to wait for each `initialize` reply.
        on_request: Serves the agent's requests.
        on_notification: Receives the agent's notifications.
        on_diagnostic: Told about bad input from the agent.
        long_text_paths: Where `on_notification` takes a long line's long
            strings in pieces (see `Dispatcher`; `AcpClient.handle_notification`
            takes them at `long_text.LONG_TEXT_PATHS`).

    Raises:
        InitializeTimeout: No reply in time.
        NotAnAgent: The program does not speak ACP (see the module docstring).
        AgentExited: The agent's output ended during `initialize`.
        InitializeRejected: The agent answered with an error and no offer was left.
        BrokenInitializeReply: The reply does not fit the version it claims.
        UnsupportedProtocolVersion: The agent answered a version acp-tui can't use.
    """
    identity = identity or ClientIdentity()
    features = features or ClientFeatures()
    offers = offers_for(choice)
    allowed = tuple(sorted(set(offers)))
    fallbacks: list[str] = []
    for attempt, offer in enumerate(offers):
        last = attempt == len(offers) - 1
        async with AsyncExitStack() as stack:
            stream = await stack.enter_async_context(open_stream())
            watch = _FirstWords(on_request, on_notification, on_diagnostic)
            dispatcher = Dispatcher(
                stream,
                on_request=watch.request,
                on_notification=watch.notification,
                on_diagnostic=watch.diagnostic,
                long_text_paths=long_text_paths,
            )
            await stack.enter_async_context(dispatcher.running())
            tasks = await stack.enter_async_context(background_tasks())
            params = initialize_params(offer, identity, features)
            try:
                raw = await watch.initialize(dispatcher, params, init_timeout)
            except RequestTimeout:
                raise InitializeTimeout(
                    f"the agent did not answer initialize within {init_timeout:g} s"
                ) from None
            except ConnectionClosed as error:
                raise AgentExited(
                    f"the agent stopped during initialize ({error.reason})"
                ) from None
            except RpcError as error:
                if not last:
                    reason = f"the agent answered a v{offer} initialize with {error}"
                    log.info("%s; retrying with v%d", reason, offers[attempt + 1])
                    fallbacks.append(reason)
                    continue
                raise InitializeRejected(
                    f"the agent rejected initialize: {error}"
                ) from None
            finally:
                watch.done()
            answered = raw.get("protocolVersion") if isinstance(raw, dict) else None
            version = negotiate(offer, answered, allowed)
            result: v1.InitializeResponse | v2.InitializeResponse
            try:
                result = DIALECTS[version].parse_initialize(raw)
            except ValidationError as error:
                if version == 2 and not last:
                    reason = (
                        "the agent claimed protocol 2 but its initialize reply is not "
                        f"v2 ({error.error_count()} problems, e.g. no `info`)"
                    )
                    log.info("%s; retrying with v%d", reason, offers[attempt + 1])
                    fallbacks.append(reason)
                    continue
                raise BrokenInitializeReply(
                    f"the agent's initialize reply is not valid v{version}: "
                    f"{_first_error(error)}"
                ) from None
            connection = Connection(
                protocol_version=version,
                dispatcher=dispatcher,
                stream=stream,
                initialize_result=result,
                agent=_dialect(result).agent,
                fallbacks=fallbacks,
                tasks=tasks,
            )
            watch.hand_over()
            yield connection
            return
    raise AssertionError("unreachable: the last offer either returns or raises")


class _FirstWords:
    """Tells a program that does not speak ACP from an agent, during `initialize`.

    It sits between the dispatcher and the caller's handlers while `initialize` is
    unanswered (see the module docstring), and passes everything through after.
    """

    def __init__(
        self,
        on_request: RequestHandler | None,
        on_notification: NotificationHandler | None,
        on_diagnostic: DiagnosticHandler | None,
    ) -> None:
        self._on_request = on_request
        self._on_notification = on_notification
        self._on_diagnostic = on_diagnostic
        self._watching = True
        self.wrote: str | None = None
        """An excerpt of the first line that was not JSON-RPC (escaped)."""
        self.echoed = False
        """The program sent acp-tui's own `initialize` request back."""
        self._suspect = anyio.Event()
        self._spoke = anyio.Event()
        self._answered = False
        """The `initialize` answer has been read: requests read since are the
        agent's first ones, not noise."""
        self._handed_over = anyio.Event()
        """The connection is the caller's: requests are served from now on."""

    def done(self) -> None:
        """`initialize` is over: pass everything through from now on."""
        self._watching = False

    def _answer_read(self) -> None:
        self._answered = True

    def hand_over(self) -> None:
        """The negotiated connection goes to the caller: serve its requests."""
        self._handed_over.set()

    async def initialize(
        self,
        dispatcher: Dispatcher,
        params: dict[str, Any],
        timeout: float,  # noqa: ASYNC109 - the request's own timeout
    ) -> Any:
        """Send `initialize` and wait for its result, or for a verdict.

        Raises:
            NotAnAgent: The program is not an ACP agent.
            RequestTimeout, ConnectionClosed, RpcError: As `Dispatcher.request`.
        """
        outcome: list[Any] = []
        failure: list[Exception] = []
        judged = False
        async with anyio.create_task_group() as group:

            async def ask() -> None:
                try:
                    outcome.append(
                        await dispatcher.request(
                            "initialize",
                            params,
                            timeout=timeout,
                            on_answer=self._answer_read,
                        )
                    )
                except (RequestTimeout, ConnectionClosed, RpcError) as error:
                    failure.append(error)
                group.cancel_scope.cancel()

            async def judge() -> None:
                nonlocal judged
                await self._suspect.wait()
                if not self.echoed:
                    with anyio.move_on_after(NOT_AN_AGENT_GRACE):
                        await self._spoke.wait()
                    if self._spoke.is_set():
                        return  # it speaks JSON-RPC: wait for the answer as usual
                judged = True
                group.cancel_scope.cancel()

            group.start_soon(ask)
            group.start_soon(judge)
        exited = bool(failure) and isinstance(failure[0], ConnectionClosed)
        wrote_and_left = exited and self.wrote is not None and not self._spoke.is_set()
        if self.echoed or judged or wrote_and_left:
            raise NotAnAgent(wrote=self.wrote, echoed=self.echoed, exited=exited)
        if failure:
            raise failure[0]
        return outcome[0]

    async def request(self, method: str, params: Any, context: RequestContext) -> Any:
        if not self._answered:
            # Nothing can be served before `initialize` is answered: the client
            # is not set up yet. The agent's own `initialize` is our request
            # coming back.
            if method == "initialize":
                self.echoed = True
                self._suspect.set()
            else:
                self._spoke.set()
            raise RpcError(
                INVALID_REQUEST, "Invalid Request", "initialize is not answered yet"
            )
        # Sent after the answer, perhaps read before `connect()` took it in: wait
        # until the caller has the connection (cancelled with it if it never does).
        await self._handed_over.wait()
        if self._on_request is None:
            raise RpcError(METHOD_NOT_FOUND, "Method not found", method)
        return await self._on_request(method, params, context)

    async def notification(self, method: str, params: Any) -> None:
        if self._watching:
            self._spoke.set()
        if self._on_notification is not None:
            await self._on_notification(method, params)

    def diagnostic(self, diagnostic: Diagnostic) -> None:
        if self._watching:
            if diagnostic.kind in ("parse_error", "invalid_message", "oversized_line"):
                if self.wrote is None:
                    self.wrote = diagnostic.excerpt or diagnostic.message
                self._suspect.set()
            elif diagnostic.kind in ("unknown_response", "peer_error"):
                self._spoke.set()  # a JSON-RPC message, if not ours
        if self._on_diagnostic is not None:
            self._on_diagnostic(diagnostic)


def _first_error(error: ValidationError) -> str:
    first = error.errors(include_url=False)[0]
    where = ".".join(str(part) for part in first["loc"]) or "(root)"
    return f"{where}: {first['msg']}"
