"""One client runner for every front end: start, connect, open, prompt, report.

`ClientRunner` is the wiring every front end used to write out for itself: build
the `AcpClient`, start the agent (`AgentLauncher`), wrap its stream (the
inspector's log, a `--record` file, `acp-tui check`'s exchange), `connect` with
the client's handlers, `attach` the connection, then open or resume a session
(asking for a login or a pick where the front end can ask), and send prompts.
It reports through a `RunnerPort` the front end implements: the app posts
messages to its tab (`ui/agent_runner.py`), `acp-tui print` writes to stderr, the
others keep what they need. It asks the user only through `UserQuestions`, and a
runner given none asks nothing (an `auth_required` error then propagates as it
came).

Two ways to use it:

* `async with runner.connect() as client:` one connection, for the front ends
  that do one thing and stop (`print`, `sessions`, `check`, the probe); then
  `open_session(request)`.
* `await runner.serve(request)`: the app's long-lived connection: open the
  session, then send the prompts queued in `runner.prompts`, one turn at a time,
  until the agent goes away or the run is stopped. Every failure is reported
  (`RunnerPort.run_failed`), never raised; a restart is another `serve()`. A
  remote agent's dropped connection is connected again and its session resumed
  (`client/reconnect.py`; `RunnerPort.reconnecting` says each attempt).

Where the agent may reach: the client is given the runner's roots (by default
`settings.cwd`, the project, and `settings.additional_directories`), and every
session's `fs/*` and terminal requests stay inside them, whatever `cwd` the session
is opened with (a listed session's own directory is only told to the agent). Only
a `SessionRequest.root`, which the app's session picker sets once the user
confirmed it in a dialog naming that directory, replaces the project for that one
session; a restart, or a new session falling back from it, keeps it. The added
directories are sent as `additionalDirectories` where the agent takes them (else
the front end is told once, and they stay roots all the same).

No Textual here (an import-linter contract). The client stack (the pydantic wire
models above all) is imported inside the methods that use it: the app imports
this module before its first frame, and the agent is started
(`AgentLauncher.start_early`) while that import runs.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Final, Literal, Protocol, TypeVar

import anyio

from acp_tui.client.auth_status import (
    UPDATE_METHOD,
    AuthStatusUpdates,
    refresh_auth_status,
)
from acp_tui.client.errors import InitializeTimeout, NoSuchSession
from acp_tui.client.turn_changes import TurnChanges
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.remote.target import RemoteConnectError
from acp_tui.protocol.transport import AgentCommand, AgentStartError, ConnectionClosed
from acp_tui.protocol.version import ProtocolChoice, UnsupportedProtocolVersion
from acp_tui.store.auth_status import AuthStatusBox

if TYPE_CHECKING:
    from acp_tui.client.auth import AuthChoice
    from acp_tui.client.cancel_one import CancelKind
    from acp_tui.client.connection import ClientFeatures, Connection, StreamFactory
    from acp_tui.client.launch import AgentLauncher
    from acp_tui.client.ports import ElicitationPrompter, PermissionPrompter
    from acp_tui.client.prompt_content import PromptCapabilities
    from acp_tui.client.reconnect import Reconnecting
    from acp_tui.client.session import AcpClient, SessionFeatures, SessionSummary
    from acp_tui.client.session_admin import ArchiveFilter, ForkSource, SessionStatus
    from acp_tui.client.tracked_session import StoreFactory
    from acp_tui.config import McpServerSettings
    from acp_tui.protocol.dispatcher import Diagnostic
    from acp_tui.protocol.recording import Recorder
    from acp_tui.store.store import SessionStore

__all__ = [
    "CALL_TIMEOUT",
    "CANCEL_GRACE",
    "CLOSE_TIMEOUT",
    "SETUP_TIMEOUT",
    "AgentSettings",
    "AuthCancelled",
    "ClientRunner",
    "LoginInTerminal",
    "NoSuchSession",
    "RunFailure",
    "RunnerPort",
    "SessionRequest",
    "SilentPort",
    "UserQuestions",
    "is_no_such_session",
    "restart_may_help",
]

log = logging.getLogger(__name__)

T = TypeVar("T")

SETUP_TIMEOUT: Final = 120.0
"""Seconds allowed for one session setup call (`session/new`, resume, login)."""

CALL_TIMEOUT: Final = 30.0
"""Seconds allowed for quick calls made on the user's behalf (list, config)."""

CLOSE_TIMEOUT: Final = 5.0
"""Seconds allowed for `session/close` of a session the user left (it is no
longer followed either way)."""

CANCEL_GRACE: Final = 15.0
"""Seconds the agent gets to end a turn after `session/cancel`; past them the user
is told the agent is not responding (and that a restart stops it)."""

StreamWrapper = Callable[["StreamFactory"], "StreamFactory"]
"""Wraps the agent's stream factory (`TrafficLog.wrap`, `observe(...)`)."""


@dataclass(frozen=True, slots=True)
class AgentSettings:
    """Which agent to run and how to negotiate with it."""

    command: AgentCommand
    name: str
    cwd: Path
    choice: ProtocolChoice = "auto"
    init_timeout: float = 60.0
    mcp_servers: dict[str, McpServerSettings] = field(default_factory=dict)
    record: Path | None = None
    """Record all traffic with the agent to this JSONL file (`--record`)."""
    additional_directories: tuple[Path, ...] = ()
    """Directories the user lets the agent use besides `cwd` (`--add-dir`, the
    config's `additional_directories`), absolute."""
    allow_git_writes: bool = False
    """v1 `fs/write_text_file` may write under `.git` (config `allow_git_writes`)."""
    review_changes: bool = False
    """Snapshot the session's directories at each turn's start and diff them at
    its end (config `[review] enabled`; `acp_tui.client.turn_changes`)."""


@dataclass(frozen=True, slots=True)
class SessionRequest:
    """Which session a connection opens."""

    action: Literal["new", "resume", "pick", "fork"] = "new"
    """`pick` asks the user with the session picker first; `fork` forks `fork`."""
    session_id: str | None = None
    cwd: Path | None = None
    """The session's directory, told to the agent (default: the settings' cwd)."""
    root: Path | None = None
    """The directory the agent may read and write in instead of the settings'
    cwd: the session's own, once the user confirmed it (None: the settings' cwd)."""
    fallback_new: bool = False
    """If resuming fails (the agent lost the session), start a new one instead."""
    pick_if_missing: bool = False
    """If the agent has no such session to resume, say so and ask with the
    session picker instead (where the runner can ask: the app)."""
    note: str = ""
    """`pick`: why the picker is shown (plain text), e.g. no such session."""
    history: bool = True
    """A resume replays the session's history where the agent can (the app shows
    it); False resumes without a replay where the agent can (`print` shows only
    its own turn)."""
    fork: ForkSource | None = None
    """`fork`: the session forked, the fork point and its history."""


_NOT_FOUND_WORDS: Final = ("not found", "no such", "unknown session", "does not exist")


def is_no_such_session(error: RpcError) -> bool:
    """Whether a resume or load failed because the agent has no such session.

    ACP's code for it is -32002 (resource not found); agents that answer with
    another code are recognised by their message ("Session not found", ...).
    """
    from acp_tui.protocol.jsonrpc import RESOURCE_NOT_FOUND

    if error.code == RESOURCE_NOT_FOUND:
        return True
    said = f"{error.message} {error.data if isinstance(error.data, str) else ''}"
    return any(words in said.lower() for words in _NOT_FOUND_WORDS)


@dataclass(frozen=True, slots=True)
class RunFailure:
    """Why the agent cannot be used, or did not honour a cancel."""

    message: str
    restartable: bool
    """The connection is gone: a restart starts the agent again."""
    stderr_tail: Sequence[str] = ()
    retry: bool = True
    """A restart may end otherwise (`restart_may_help`); False when the same
    command would fail the same way, so none is offered."""


class RunnerPort(Protocol):
    """What the runner reports to its front end (none of these may raise)."""

    def agent_connected(self, connection: Connection) -> None:
        """A connection was negotiated (`connection.fallbacks` say why v1)."""
        ...

    def session_opened(self, store: SessionStore) -> None:
        """A session was opened (`serve`, `switch_session`): now the current one."""
        ...

    def notice(self, text: str) -> None:
        """Something the user should know (plain text, not yet made printable)."""
        ...

    def diagnostic(self, diagnostic: Diagnostic) -> None:
        """The agent sent something malformed (the connection goes on)."""
        ...

    def prompt_started(self, prompt_id: int, text: str) -> None:
        """A queued prompt is being sent (`serve`)."""
        ...

    def prompt_ended(self, prompt_id: int) -> None:
        """Its turn ended."""
        ...

    def prompt_failed(self, prompt_id: int, message: str) -> None:
        """It was not sent, or its turn failed."""
        ...

    def run_failed(self, failure: RunFailure) -> None:
        """The agent cannot be used, or did not honour a cancel."""
        ...

    def reconnecting(self, attempt: Reconnecting) -> None:
        """A remote agent's connection dropped: it is tried again (`reconnect`)."""
        ...

    def login_in_terminal(
        self, command: AgentCommand, choice: AuthChoice, then: SessionRequest
    ) -> None:
        """The user chose a terminal login: run `command`, then reconnect.

        Once reconnected, open `then`.
        """
        ...


class SilentPort:
    """A `RunnerPort` that keeps nothing: the base of the one-shot front ends."""

    def agent_connected(self, connection: Connection) -> None:
        """Ignored."""

    def session_opened(self, store: SessionStore) -> None:
        """Ignored."""

    def notice(self, text: str) -> None:
        """Logged."""
        log.info("%s", text)

    def diagnostic(self, diagnostic: Diagnostic) -> None:
        """Ignored (the dispatcher logs it)."""

    def prompt_started(self, prompt_id: int, text: str) -> None:
        """Ignored."""

    def prompt_ended(self, prompt_id: int) -> None:
        """Ignored."""

    def prompt_failed(self, prompt_id: int, message: str) -> None:
        """Logged."""
        log.info("prompt %d failed: %s", prompt_id, message)

    def run_failed(self, failure: RunFailure) -> None:
        """Logged."""
        log.info("the agent failed: %s", failure.message)

    def reconnecting(self, attempt: Reconnecting) -> None:
        """Logged."""
        log.info("%s (%s)", attempt.status(), attempt.reason)

    def login_in_terminal(
        self, command: AgentCommand, choice: AuthChoice, then: SessionRequest
    ) -> None:
        """Ignored (a runner without questions never asks for a login)."""


class UserQuestions(Protocol):
    """What the runner may ask the user (the app's tab; others have none)."""

    async def choose_session(self, note: str = "") -> SessionRequest | None:
        """Let the user pick a session (None: start a new one); `note` says why."""
        ...

    async def choose_auth(
        self, choices: Sequence[AuthChoice], message: str
    ) -> AuthChoice | None:
        """Let the user pick how to log in (None: give up)."""
        ...


class LoginInTerminal(Exception):
    """The user chose a terminal login: the front end runs it, then reconnects.

    `then` is the session to open once reconnected: the one being opened when
    the login was asked for, or the current one (the request that needed the
    login is then made again: a refused prompt is sent again).
    """

    def __init__(
        self, command: AgentCommand, choice: AuthChoice, then: SessionRequest
    ) -> None:
        super().__init__(choice.name)
        self.command = command
        self.choice = choice
        self.then = then


class AuthCancelled(Exception):
    """The agent needs a login, and the user declined or none can be made here."""


class ClientRunner:
    """Runs the client against one agent for a front end (see the module docstring).

    Args:
        settings: The agent to run.
        port: Receives the reports.
        prompter: Answers the agent's permission requests.
        elicitor: Answers the agent's elicitations (None: declined; only the
            modes `features` advertise are asked).
        questions: Asks the user to pick sessions and login methods (None: never
            asked; an `auth_required` error is raised as it came).
        features: The client methods served (default: none).
        store_factory: Makes each session's store (default: `plain_store`).
        roots: Where the agent's `fs/*` and terminal requests may reach (None:
            `settings.cwd` and `settings.additional_directories`; empty: each
            session's own directory).
        wrappers: Wrap the agent's stream factory, innermost first (the
            `--record` file, if any, goes around them all).
        launcher: Starts `settings.command` (default: made when first needed):
            one the front end already started the agent with
            (`AgentLauncher.start_early`).
    """

    prepare_models: ClassVar[bool] = False
    """Build the session's update model as each prompt is sent, before the agent
    answers (`SessionTranslator.prepare`): a front end that paints frames sets
    it, so the first tool call of a stream does not build it between two frames.
    `acp-tui print` does not: a stream that never needs it never builds it."""

    def __init__(
        self,
        settings: AgentSettings,
        port: RunnerPort,
        *,
        prompter: PermissionPrompter,
        elicitor: ElicitationPrompter | None = None,
        questions: UserQuestions | None = None,
        features: ClientFeatures | None = None,
        store_factory: StoreFactory | None = None,
        roots: Sequence[Path] | None = None,
        wrappers: Sequence[StreamWrapper] = (),
        launcher: AgentLauncher | None = None,
    ) -> None:
        self.settings = settings
        self.port = port
        self.prompter = prompter
        self.elicitor = elicitor
        self.questions = questions
        self.features = features
        self.store_factory = store_factory
        self.roots: tuple[Path, ...] = (
            (settings.cwd, *settings.additional_directories)
            if roots is None
            else tuple(roots)
        )
        self.wrappers = tuple(wrappers)
        self.prompts: asyncio.Queue[tuple[int, str]] = asyncio.Queue()
        """Prompts `serve` sends, in order: (an id for the reports, the text)."""
        self.client: AcpClient | None = None
        self.connection: Connection | None = None
        self.auth_status = AuthStatusBox()
        """The agent's authentication status, across its connections."""
        self.store: SessionStore | None = None
        """The current session's (`serve`, `switch_session`)."""
        self.in_turn = False
        self.cancelling = False
        """A cancel was asked for: the turn is being cancelled (until it ends)."""
        self.session_cwd = settings.cwd
        self.session_root: Path | None = None
        """The current session's confirmed root instead of the project, if any."""
        self.prompt_caps: PromptCapabilities | None = None
        """What the agent accepts in prompts (known once connected)."""
        self.turn_changes = TurnChanges(enabled=settings.review_changes)
        """What each turn changed in the session's directories (the review)."""
        self._told_directories = False
        """The front end was told the agent does not take additional directories."""
        self._launcher = launcher
        self._recorder: Recorder | None = None
        """Records every connection of this runner (`AgentSettings.record`)."""
        self._scope: anyio.CancelScope | None = None
        self._stopped = anyio.Event()
        self._turn_ended = anyio.Event()
        """Set when the current turn ends (or the connection does)."""
        self._handshake_done = False
        """The agent completed `initialize` in the current `serve` (it speaks ACP)."""
        self._turn_open: int | None = None
        """The prompt whose turn runs, until it ends (set at a drop: interrupted)."""
        self._retry_now = anyio.Event()
        """Set to end the wait before the next reconnect attempt."""
        self._resend: tuple[int, str] | None = None
        """A prompt refused for want of a login, sent first on the next connection
        (the user chose a terminal login, which reconnects)."""

    # ----------------------------------------------------------------- queries

    @property
    def connected(self) -> bool:
        """A connection is up (a session may not be open yet)."""
        return self.client is not None

    @property
    def can_logout(self) -> bool:
        """The connected agent supports logging out."""
        return self.client is not None and self.client.can_logout()

    @property
    def session_features(self) -> SessionFeatures:
        """What the connected agent offers for sessions (nothing if disconnected)."""
        from acp_tui.client.session import SessionFeatures

        return self.client.session_features() if self.client else SessionFeatures()

    @property
    def launcher(self) -> AgentLauncher:
        """Starts the agent process and explains its failures."""
        if self._launcher is None:
            from acp_tui.client.launch import AgentLauncher

            self._launcher = AgentLauncher(self.settings.command, self.settings.name)
        return self._launcher

    def stderr_tail(self) -> list[str]:
        """The latest agent process's stderr lines (raw)."""
        launcher = self._launcher
        transport = launcher.transport if launcher is not None else None
        return transport.stderr_tail() if transport is not None else []

    def restart_request(self) -> SessionRequest:
        """How a restart reopens the current session (new if it cannot)."""
        if self.store is None:
            return SessionRequest("new")
        return SessionRequest(
            "resume",
            self.store.session_id,
            self.session_cwd,
            root=self.session_root,
            fallback_new=True,
        )

    @property
    def busy(self) -> bool:
        """A turn runs, or a prompt waits to be sent.

        A turn runs while its prompt request is open or while the agent's state
        is not idle (a v2 prompt request is answered at once).
        """
        store = self.store
        return (
            self.in_turn
            or not self.prompts.empty()
            or (store is not None and store.state.is_busy)
        )

    @property
    def running(self) -> bool:
        """`serve` runs a connection (the agent process may be up)."""
        return self._scope is not None

    # ------------------------------------------------------------- connecting

    def client_features(self) -> ClientFeatures:
        """The client methods to serve (`features`, else none)."""
        if self.features is not None:
            return self.features
        from acp_tui.client.connection import ClientFeatures

        return ClientFeatures()

    def _open_stream(self) -> StreamFactory:
        """The launcher's stream factory, wrapped (and recorded, with `record`)."""
        open_stream: StreamFactory = self.launcher.open_stream
        for wrap in self.wrappers:
            open_stream = wrap(open_stream)
        settings = self.settings
        if settings.record is not None:
            if self._recorder is None:
                from acp_tui.protocol.recording import Recorder

                self._recorder = Recorder(
                    settings.record, agent=settings.command.display()
                )
            open_stream = self._recorder.wrap(open_stream)
        return open_stream

    @asynccontextmanager
    async def connect(self) -> AsyncIterator[AcpClient]:
        """Start the agent, negotiate, and attach a fresh client; one connection.

        Raises:
            One of `launch.AGENT_FAILURES`: the agent could not be started or
                negotiated with (`launcher.explain` says why).
        """
        from acp_tui.client.connection import connect
        from acp_tui.client.prompt_content import prompt_capabilities
        from acp_tui.client.session import AcpClient, plain_store

        settings = self.settings
        client = AcpClient(
            prompter=self.prompter,
            elicitor=self.elicitor,
            features=self.client_features(),
            mcp_servers=settings.mcp_servers,
            on_diagnostic=self.port.diagnostic,
            store_factory=self.store_factory or plain_store,
            roots=self.roots,
        )
        self.auth_status.set(None)  # a new connection: not known yet

        updates = AuthStatusUpdates(client, self.auth_status, self.port.diagnostic)
        client.notification_handlers[UPDATE_METHOD] = updates.receive

        try:
            async with connect(
                self._open_stream(),
                choice=settings.choice,
                init_timeout=settings.init_timeout,
                features=client.features,
                on_request=client.handle_request,
                on_notification=client.handle_notification,
                long_text_paths=client.long_text_paths,
                on_diagnostic=self.port.diagnostic,
            ) as connection:
                client.attach(connection)
                updates.attached()
                self.client = client
                self.connection = connection
                self.prompt_caps = prompt_capabilities(connection)
                self._handshake_done = True
                self.port.agent_connected(connection)
                await refresh_auth_status(client, self.auth_status)
                yield client
        finally:
            self.client = None
            self.connection = None

    def _client(self) -> AcpClient:
        if self.client is None:
            raise ConnectionClosed("the agent is not connected")
        return self.client

    # ----------------------------------------------------------------- serving

    async def serve(self, request: SessionRequest) -> None:
        """Run one connection until it fails, is stopped or is cancelled.

        Opens `request`, then sends the queued prompts. Every failure is
        reported through the port; nothing is raised but cancellation.
        """
        from acp_tui.client.launch import AGENT_FAILURES

        self._stopped = anyio.Event()
        self._scope = anyio.CancelScope()
        self._handshake_done = False
        try:
            with self._scope:
                await self._serve_reconnecting(request)
        except LoginInTerminal as login:
            self._login_in_terminal(login)
        except AuthCancelled as declined:
            self.port.run_failed(RunFailure(str(declined), restartable=True))
        except AGENT_FAILURES as error:
            failure = self.launcher.explain(error, tail_lines=10)
            self.port.run_failed(
                RunFailure(
                    failure.message,
                    restartable=True,
                    stderr_tail=failure.stderr_tail,
                    retry=restart_may_help(error, handshake_done=self._handshake_done),
                )
            )
        except Exception as error:  # never a traceback for the user
            log.exception("agent worker failed")
            self.port.run_failed(
                RunFailure(f"unexpected error: {error!r}", restartable=True)
            )
        finally:
            self._scope = None
            self._stopped.set()
            self.in_turn = False
            self.cancelling = False
            self._turn_ended.set()

    async def _serve_reconnecting(self, request: SessionRequest) -> None:
        """`_serve`, connected again after a remote agent's drop (`reconnect`)."""
        from acp_tui.client import reconnect

        attempt = 0
        while True:
            self._handshake_done = False
            try:
                # The agent boots while `_serve` imports the client stack.
                await self.launcher.start_early()
                try:
                    await self._serve(request)
                finally:
                    await self.launcher.discard_early()
                return
            except Exception as error:
                if self._handshake_done and self.store is not None:
                    attempt = 0  # it was connected: a new drop
                first = attempt == 0
                if (
                    self.settings.command.remote is None
                    or self.store is None
                    or not (reconnect.is_drop(error) if first else True)
                    or not reconnect.may_retry(error)
                    or attempt >= reconnect.MAX_ATTEMPTS
                ):
                    raise
                reason = str(error) or type(error).__name__
                if first:
                    self._report_drop(reason)
                attempt += 1
                delay = reconnect.backoff_delay(attempt)
                self.port.reconnecting(
                    reconnect.Reconnecting(
                        attempt, reconnect.MAX_ATTEMPTS, delay, reason
                    )
                )
                self._retry_now = anyio.Event()
                with anyio.move_on_after(delay):
                    await self._retry_now.wait()
                request = self.restart_request()

    def _report_drop(self, reason: str) -> None:
        """Say what a dropped connection cost (the turn, unanswerable dialogs)."""
        from acp_tui.client.reconnect import report_drop

        prompt_id, self._turn_open = self._turn_open, None
        report_drop(self.port, self.store, prompt_id, reason)

    def retry_now(self) -> bool:
        """End the wait before the next reconnect attempt; False if none waits."""
        if self._retry_now.is_set() or self._scope is None:
            return False
        self._retry_now.set()
        return True

    async def _serve(self, request: SessionRequest) -> None:
        async with self.connect():
            connection = self.connection
            assert connection is not None
            closed: list[str] = []
            failure: list[Exception] = []
            async with anyio.create_task_group() as group:

                async def watch() -> None:
                    closed.append(await connection.dispatcher.wait_closed())
                    group.cancel_scope.cancel()

                group.start_soon(watch)
                try:
                    self._install(await self.open_session(request))
                    await self._serve_prompts()
                except Exception as error:  # re-raised below, not as a group
                    failure.append(error)
                group.cancel_scope.cancel()
            if failure:
                raise failure[0]
            raise ConnectionClosed(closed[0] if closed else "the connection ended")

    async def stop(self) -> None:
        """Shut `serve`'s connection down and wait until the agent is reaped.

        An anyio cancellation, so the transport's shielded shutdown (close
        stdin, wait, SIGTERM, SIGKILL) runs to its end.
        """
        if self._scope is None:
            return
        self.request_stop()
        await self._stopped.wait()

    def request_stop(self) -> None:
        """Cancel `serve`'s connection (its shutdown then runs); does not wait."""
        if self._scope is not None:
            self._scope.cancel()

    def _install(self, store: SessionStore) -> None:
        self.store = store
        self.port.session_opened(store)

    # ---------------------------------------------------------------- sessions

    async def open_session(self, request: SessionRequest) -> SessionStore:
        """Open the requested session, asking for a login or a pick as needed.

        Each setup call is bounded by `SETUP_TIMEOUT`. A resume that may fall
        back (a restart) starts a new session when the agent refuses it, or
        cannot resume or load sessions at all.
        """
        from acp_tui.client.auth import is_auth_required
        from acp_tui.client.session import UnsupportedOperation

        client = self._client()
        while True:
            try:
                if request.action == "pick":
                    chosen = None
                    if self.questions is not None:
                        chosen = await self.questions.choose_session(request.note)
                    request = chosen or SessionRequest("new")
                    continue
                cwd = request.cwd or self.settings.cwd
                root = request.root
                roots = None if root is None else self._roots_with(root)
                extra = self._agent_directories(client)
                with anyio.fail_after(SETUP_TIMEOUT):
                    if request.action == "fork" and request.fork is not None:
                        from acp_tui.client.session_admin import fork_session

                        store = await fork_session(
                            client, request.fork, cwd, extra, roots=roots
                        )
                    elif request.action == "resume" and request.session_id:
                        features = client.session_features()
                        replay = not features.resume
                        if request.history:
                            replay = features.replay or replay
                        store = await client.resume_session(
                            request.session_id,
                            cwd,
                            replay=replay,
                            additional_directories=extra,
                            roots=roots,
                        )
                    else:
                        store = await client.new_session(cwd, extra, roots=roots)
                self.session_cwd = cwd
                self.session_root = root
                if root is not None and root != self.settings.cwd:
                    self.port.notice(
                        f"this session works in {root}: the agent may read and "
                        f"write there, not in {self.settings.cwd}"
                    )
                return store
            except (RpcError, UnsupportedOperation) as error:
                missing = (
                    request.action == "resume"
                    and isinstance(error, RpcError)
                    and is_no_such_session(error)
                )
                if isinstance(error, RpcError) and is_auth_required(error):
                    await self._login(client, error, then=request)
                elif missing and request.pick_if_missing and self.questions:
                    note = f"No such session: {request.session_id}. Pick one, or "
                    note += "start a new one."
                    self.port.notice(
                        f"no such session: {request.session_id} (the agent said: "
                        f"{error})"
                    )
                    request = SessionRequest("pick", note=note)
                elif request.action == "resume" and request.fallback_new:
                    self.port.notice(
                        f"could not resume the session ({error}); started a new one"
                    )
                    request = SessionRequest("new", cwd=request.cwd, root=request.root)
                elif missing:
                    raise NoSuchSession(request.session_id or "", error) from None
                else:
                    raise

    def _roots_with(self, root: Path) -> list[Path]:
        """The roots of a session the user moved to `root` (the added ones stay)."""
        return [root, *(d for d in self.settings.additional_directories if d != root)]

    def _agent_directories(self, client: AcpClient) -> tuple[Path, ...]:
        """The added directories to send, if the agent takes them (else says so)."""
        extra = self.settings.additional_directories
        if not extra or client.session_features().additional_directories:
            return extra
        if not self._told_directories:
            self._told_directories = True
            names = ", ".join(str(d) for d in extra)
            self.port.notice(
                f"the agent does not take additional directories, so it was not "
                f"told of {names} (its file and terminal requests there are "
                "still served)"
            )
        return ()

    # ------------------------------------------------------------------- login

    async def _login(
        self, client: AcpClient, error: RpcError, *, then: SessionRequest
    ) -> None:
        """Ask the user to log in (the agent answered `auth_required`).

        An agent method logs in here, and a failed login asks again; a terminal
        method raises `LoginInTerminal` (the front end runs it, then reconnects
        and opens `then`). Without `questions`, `error` is raised as it came.

        Raises:
            AuthCancelled: The user declined, or no method can be used here.
            LoginInTerminal: The user chose a terminal login.
        """
        from acp_tui.client.auth import (
            auth_choices,
            terminal_login_command,
            unusable_methods_text,
        )

        if self.questions is None:
            raise error
        message = str(error)
        assert self.connection is not None
        choices = auth_choices(self.connection)
        if not any(choice.usable for choice in choices):
            # Restarting would only offer the same methods again.
            raise AuthCancelled(
                f"the agent needs you to log in, but {unusable_methods_text(choices)}"
                ". Log in outside acp-tui (for example with the agent's own login "
                f"command), then restart it with ctrl+r. The agent said: {message}"
            )
        while True:
            choice = await self.questions.choose_auth(choices, message)
            if choice is None or not choice.usable:
                raise AuthCancelled("the agent needs you to log in")
            if choice.is_terminal:
                command = terminal_login_command(self.settings.command, choice)
                raise LoginInTerminal(command, choice, then)
            try:
                with anyio.fail_after(SETUP_TIMEOUT):
                    await client.authenticate(choice.method_id)
                await refresh_auth_status(client, self.auth_status)
                return
            except (RpcError, TimeoutError) as failed:
                message = f"the login failed: {failed or 'timed out'}"

    async def _authorized(
        self, call: Callable[[], Awaitable[T]], *, then: SessionRequest
    ) -> T:
        """Make a request, and again after a login if the agent wanted one.

        Checklist 4.3.3: any session request may fail with `auth_required`.
        """
        from acp_tui.client.auth import is_auth_required

        client = self._client()
        while True:
            try:
                return await call()
            except RpcError as error:
                if not is_auth_required(error):
                    raise
                await self._login(client, error, then=then)

    def _login_in_terminal(self, login: LoginInTerminal) -> None:
        """Have the front end run a terminal login, then reconnect."""
        self.port.login_in_terminal(login.command, login.choice, login.then)

    # ------------------------------------------------------------------ turns

    async def _serve_prompts(self) -> None:
        from acp_tui.client.prompt_content import PromptCapabilities, build_prompt

        while True:
            if self._resend is not None:
                (prompt_id, text), self._resend = self._resend, None
            else:
                prompt_id, text = await self.prompts.get()
            client, store = self._client(), self.store
            if store is None:  # pragma: no cover - a session is open by now
                continue
            self.in_turn = True
            self._turn_open = prompt_id
            self._turn_ended = anyio.Event()
            self.port.prompt_started(prompt_id, text)
            try:
                if self.prepare_models:
                    self._prepare_models(client, store.session_id)
                blocks = await anyio.to_thread.run_sync(
                    build_prompt,
                    text,
                    self.session_cwd,
                    self.prompt_caps or PromptCapabilities(),
                )
                await self.turn_changes.begin(
                    (self.session_cwd, *self.settings.additional_directories)
                )
                await self._authorized(
                    functools.partial(client.prompt, store.session_id, blocks),
                    then=self.restart_request(),
                )
                self.port.prompt_ended(prompt_id)
            except LoginInTerminal:
                self._resend = (prompt_id, text)  # once logged in and reconnected
                raise
            except AuthCancelled as declined:
                self.port.prompt_failed(
                    prompt_id, f"the prompt was not sent: {declined}"
                )
            except RpcError as error:
                self.port.prompt_failed(prompt_id, f"the prompt failed: {error}")
            finally:
                self.in_turn = False
                self.cancelling = False
                self._turn_ended.set()
            self._turn_open = None  # still set if the connection dropped
            await self.turn_changes.end()

    @staticmethod
    def _prepare_models(client: AcpClient, session_id: str) -> None:
        """`SessionTranslator.prepare`, which only saves time: never fails a turn."""
        try:
            client.session_translator(session_id).prepare()
        except Exception:
            log.exception("building the session's update model ahead failed")

    async def cancel(self) -> None:
        """Cancel the running turn, if any ("cancelling…" until it ends).

        If the agent does not end the turn within `CANCEL_GRACE` seconds, the
        front end is told so, and that a restart (ctrl+r) stops the agent.
        """
        if self.client is None or self.store is None or not self.in_turn:
            return
        self.cancelling = True
        turn_ended = self._turn_ended
        await self.client.cancel(self.store.session_id)
        with anyio.move_on_after(CANCEL_GRACE):
            await turn_ended.wait()
        if not turn_ended.is_set():
            self.port.run_failed(
                RunFailure(
                    f"the agent did not end the turn within {CANCEL_GRACE:g} s of "
                    "the cancel request; press ctrl+r to restart it",
                    restartable=False,
                )
            )

    def can_cancel_one(self, kind: CancelKind, entity_id: str) -> bool:
        """Whether one tool call (terminal) can be cancelled alone now."""
        from acp_tui.client.cancel_one import cancellable

        store = self.store
        return store is not None and cancellable(self.client, store, kind, entity_id)

    async def cancel_one(self, kind: CancelKind, entity_id: str) -> None:
        """Cancel one tool call (terminal) alone; the turn goes on.

        The store marks it "cancelling" until the agent reports its final status;
        a refusal is reported as a notice (and the mark cleared).
        """
        from acp_tui.client.cancel_one import cancel_one, describe
        from acp_tui.client.session import UnsupportedOperation

        store, client = self.store, self.client
        if store is None or client is None:
            self.port.notice("the agent is not connected")
            return
        try:
            await cancel_one(client, store, kind, entity_id)
        except (RpcError, UnsupportedOperation, TimeoutError) as error:
            what = describe(kind)
            self.port.notice(f"could not cancel the {what}: {error or 'timed out'}")

    # ------------------------------------------------- actions for the user

    async def list_sessions(self) -> list[SessionSummary]:
        """The agent's sessions for the settings' directory.

        Raises:
            UnsupportedOperation: The agent does not list sessions.
        """
        from acp_tui.client.session import UnsupportedOperation

        client = self._client()
        if not client.session_features().list:
            raise UnsupportedOperation("this agent does not list its sessions")
        return await self._on_behalf(
            functools.partial(client.list_sessions, self.settings.cwd)
        )

    async def delete_session(self, session_id: str) -> None:
        """Delete one of the agent's sessions."""
        client = self._client()
        await self._on_behalf(functools.partial(client.delete_session, session_id))

    async def list_archived(self, archived: ArchiveFilter) -> list[SessionSummary]:
        """The agent's sessions for the settings' directory, by archive state."""
        from acp_tui.client.session_admin import list_sessions

        client = self._client()
        return await self._on_behalf(
            functools.partial(list_sessions, client, self.settings.cwd, archived)
        )

    async def set_title(self, session_id: str, title: str) -> str:
        """Rename one of the agent's sessions; returns the title it stored."""
        from acp_tui.client.session_admin import set_title

        client = self._client()
        return await self._on_behalf(
            functools.partial(set_title, client, session_id, title)
        )

    async def session_status(self, session_id: str) -> SessionStatus:
        """Whether the agent has one of its sessions in memory (and its state)."""
        from acp_tui.client.session_admin import session_status

        client = self._client()
        return await self._on_behalf(
            functools.partial(session_status, client, session_id)
        )

    async def set_archived(self, session_id: str, archived: bool) -> None:
        """Archive or unarchive one of the agent's sessions."""
        from acp_tui.client.session_admin import set_archived

        client = self._client()
        await self._on_behalf(
            functools.partial(set_archived, client, session_id, archived)
        )

    async def _on_behalf(self, call: Callable[[], Awaitable[T]]) -> T:
        """Make a quick call for the user, offering the login if the agent wants one.

        Each attempt is bounded by `CALL_TIMEOUT`.

        Raises:
            AuthCancelled: The login was declined, or will be made in a terminal
                (the front end then reconnects).
        """

        async def bounded() -> T:
            with anyio.fail_after(CALL_TIMEOUT):
                return await call()

        try:
            return await self._authorized(bounded, then=self.restart_request())
        except LoginInTerminal as login:
            self._login_in_terminal(login)
            raise AuthCancelled("logging in from the terminal first") from None

    async def switch_session(self, request: SessionRequest) -> None:
        """Open another session on this connection (not during a turn)."""
        from acp_tui.client.session import UnsupportedOperation

        if self.in_turn:
            self.port.notice(
                "finish or cancel the current turn before switching session"
            )
            return
        left = self.store
        try:
            self._install(await self.open_session(request))
        except LoginInTerminal as login:
            self._login_in_terminal(login)  # then reconnects and opens `request`
            return
        except (RpcError, UnsupportedOperation, TimeoutError, AuthCancelled) as error:
            self.port.notice(f"could not open the session: {error or 'timed out'}")
            return
        if left is not None and left is not self.store:
            await self._leave(left)

    async def leave_session(self) -> None:
        """The user leaves the current session (its tab closes): close it."""
        if self.store is not None:
            await self._leave(self.store)

    async def _leave(self, store: SessionStore) -> None:
        """Stop following a session the user left; close it where the agent can.

        Bounded by `CLOSE_TIMEOUT`. A refusal is only logged: the user has left,
        and the session is no longer followed either way.
        """
        client = self.client
        if client is None:
            return
        try:
            with anyio.fail_after(CLOSE_TIMEOUT):
                closed = await client.leave_session(store)
        except (RpcError, TimeoutError, ConnectionClosed) as error:
            log.info("session %s left, not closed: %s", store.session_id, error)
            return
        log.info("session %s left (closed: %s)", store.session_id, closed)

    async def set_config(self, config_id: str, value: str | bool) -> None:
        """Set one config option; the agent's answer replaces the stored list."""
        from acp_tui.client.session import UnsupportedOperation

        store = self.store
        if self.client is None or store is None:
            self.port.notice("the agent is not connected")
            return
        client = self.client
        try:
            await self._on_behalf(
                functools.partial(
                    client.set_config_option, store.session_id, config_id, value
                )
            )
        except (RpcError, UnsupportedOperation, TimeoutError, AuthCancelled) as error:
            self.port.notice(f"could not change {config_id}: {error or 'timed out'}")

    async def logout(self) -> None:
        """Log out of the agent; the next request that needs a login asks for one."""
        from acp_tui.client.session import UnsupportedOperation

        client = self.client
        if client is None:
            self.port.notice("the agent is not connected")
            return
        try:
            with anyio.fail_after(CALL_TIMEOUT):
                await client.logout()
        except (RpcError, UnsupportedOperation, TimeoutError) as error:
            self.port.notice(f"could not log out: {error or 'timed out'}")
            return
        await refresh_auth_status(client, self.auth_status)
        assert self.connection is not None
        self.port.notice(
            f"Logged out of {self.connection.agent.display_name}; the next request "
            "that needs a login will ask for one"
        )


def restart_may_help(error: BaseException, *, handshake_done: bool) -> bool:
    """Whether starting the agent again could end otherwise than `error` did.

    No for what the same command does the same way every time: the program
    could not be started (`AgentStartError`: not found, not executable, no such
    working directory), it speaks no protocol version acp-tui does, or it never
    completed the ACP handshake and did not merely run out of time: it exited,
    closed its output, wrote lines that are not ACP or answered `initialize`
    with an error, which is what a program that is not an ACP agent does. A
    timeout (a first start that downloads, a slow machine) and anything after
    the handshake (a crash mid-session, a lost connection) may go otherwise.
    A remote agent that could not be reached may be reachable later (refused,
    unreachable, a timeout, a server error); a refused token, TLS or a 404 not.

    Args:
        error: One of `launch.AGENT_FAILURES`.
        handshake_done: The agent answered `initialize` on this connection.
    """
    if isinstance(error, RemoteConnectError):
        return error.kind in ("refused", "unreachable", "timeout", "http")
    if isinstance(error, AgentStartError | UnsupportedProtocolVersion):
        return False
    return handshake_done or isinstance(error, TimeoutError | InitializeTimeout)
