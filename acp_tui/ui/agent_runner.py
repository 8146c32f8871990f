"""The agent connection run by a session tab's long-lived worker.

One `AgentRunner.run()` call is one connection: start the agent, negotiate, open a
session (new, resumed, or picked by the user), then send prompts from a queue, one
turn at a time, until the agent goes away or the worker is cancelled. A restart is
simply another `run()` with a request to resume the same session.

Every failure becomes an `AgentFailed` message with a plain explanation and the
agent's stderr tail; nothing here raises to the app. The runner never touches a
widget: it asks the user through the `RunnerUI` port and reports through messages.

Where the agent may reach: the client is given the user's roots, `settings.cwd` (the
project) and `settings.additional_directories` (`--add-dir`, config), and every
session's `fs/*` and terminal requests stay inside them, whatever `cwd` the session
is opened with (a listed session's own directory is only told to the agent). Only
a `SessionRequest.root`, which the session picker sets once the user confirmed it
in a dialog naming that directory, replaces the project for that one session; a
restart, or a new session falling back from it, keeps it. The added directories
are sent as `additionalDirectories` where the agent takes them (else the user is
told once, and they stay roots all the same).

The client stack (the pydantic wire models above all) is imported inside the
methods that use it, not at module level: it takes longer to import than Textual
itself, and the app's first frame must not wait for it. The agent is started before
that import (`AgentLauncher.start_early`), so the two overlap.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal, Protocol, TypeVar

import anyio
from textual.message_pump import MessagePump

from acp_tui.client.ports import RememberingPrompter
from acp_tui.client.traffic import TrafficLog
from acp_tui.display_paths import PathDisplay
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.transport import AgentCommand, ConnectionClosed
from acp_tui.protocol.version import ProtocolChoice
from acp_tui.storage import paths
from acp_tui.storage.transcripts import close_transcript, transcript_store_factory
from acp_tui.store.model import ToolCall
from acp_tui.store.store import SessionStore
from acp_tui.ui.bridge import DialogHost, ModalPermissionPrompter, StoreBridge
from acp_tui.ui.messages import (
    AgentConnected,
    AgentFailed,
    AgentNotice,
    PromptEnded,
    PromptStarted,
    SessionStarted,
    TerminalLoginRequested,
)
from acp_tui.ui.widgets.path_lines import session_paths

if TYPE_CHECKING:
    from acp_tui.client.auth import AuthChoice
    from acp_tui.client.connection import Connection, StreamFactory
    from acp_tui.client.launch import AgentLauncher
    from acp_tui.client.prompt_content import PromptCapabilities
    from acp_tui.client.session import AcpClient, SessionFeatures, SessionSummary
    from acp_tui.config import McpServerSettings
    from acp_tui.protocol.dispatcher import Diagnostic
    from acp_tui.protocol.recording import Recorder

__all__ = [
    "AgentRunner",
    "AgentSettings",
    "RunnerUI",
    "SessionRequest",
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

DIAGNOSTIC_NOTICES: Final = 3
"""Protocol problems (unreadable lines, malformed updates...) shown as
notifications per connection; the ones after are only logged, so a flood of bad
lines cannot bury the screen in notifications."""


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


@dataclass(frozen=True, slots=True)
class SessionRequest:
    """Which session a connection opens."""

    action: Literal["new", "resume", "pick"] = "new"
    """`pick` asks the user with the session picker first."""
    session_id: str | None = None
    cwd: Path | None = None
    """The session's directory, told to the agent (default: the app's cwd)."""
    root: Path | None = None
    """The directory the agent may read and write in instead of the app's cwd:
    the session's own, once the user confirmed it (None: the app's cwd)."""
    fallback_new: bool = False
    """If resuming fails (the agent lost the session), start a new one instead."""


class RunnerUI(DialogHost, Protocol):
    """What the runner asks of the user interface (its session's tab).

    `ask_user` shows the permission dialogs; the methods below ask the user to
    pick a session or a login method.
    """

    async def choose_session(self) -> SessionRequest | None:
        """Let the user pick a session (None: start a new one)."""
        ...

    async def choose_auth(
        self, choices: Sequence[AuthChoice], message: str
    ) -> AuthChoice | None:
        """Let the user pick how to log in (None: give up)."""
        ...


class LoginInTerminal(Exception):
    """The user chose a terminal login: the app runs `command`, then reconnects.

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


class AgentRunner:
    """Owns the client, the current session's store and the prompt queue.

    Args:
        target: Receives the messages (the session's tab, so they never reach
            another tab).
        ui: Shows permission dialogs, asks the user to pick sessions and login
            methods.
        settings: The agent to run.
    """

    def __init__(
        self, target: MessagePump, ui: RunnerUI, settings: AgentSettings
    ) -> None:
        self.target = target
        self.ui = ui
        self.settings = settings
        self.prompts: asyncio.Queue[tuple[int, str]] = asyncio.Queue()
        self.client: AcpClient | None = None
        self.connection: Connection | None = None
        self.store: SessionStore | None = None
        self.bridge: StoreBridge | None = None
        self.in_turn = False
        self.cancelling = False
        """Esc was pressed: the turn is being cancelled (until it ends)."""
        self.session_cwd = settings.cwd
        self.session_root: Path | None = None
        """The current session's confirmed root instead of the project, if any."""
        self._told_directories = False
        """The user was told the agent does not take additional directories."""
        self.prompt_caps: PromptCapabilities | None = None
        """What the agent accepts in prompts (known once connected)."""
        self._launcher: AgentLauncher | None = None
        self._recorder: Recorder | None = None
        """Records every connection of this runner (`AgentSettings.record`)."""
        self.traffic = TrafficLog()
        """The last JSON-RPC lines of every connection, for the inspector."""
        self._scope: anyio.CancelScope | None = None
        self._stopped = anyio.Event()
        self._turn_ended = anyio.Event()
        """Set when the current turn ends (or the connection does)."""
        self._diagnostics = 0
        """Protocol problems reported on this connection so far."""
        self._resend: tuple[int, str] | None = None
        """A prompt refused for want of a login, sent first on the next connection
        (the user chose a terminal login, which reconnects)."""
        self.prompter = RememberingPrompter(
            ModalPermissionPrompter(ui, self._tool_call, self._paths), self._tool_call
        )
        """Answers permission requests; its grants outlive a restart."""

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

    def stderr_tail(self) -> list[str]:
        """The latest agent process's stderr lines (raw)."""
        launcher = self._launcher
        transport = launcher.transport if launcher is not None else None
        return transport.stderr_tail() if transport is not None else []

    @property
    def launcher(self) -> AgentLauncher:
        """Starts the agent process and explains its failures."""
        if self._launcher is None:
            from acp_tui.client.launch import AgentLauncher

            self._launcher = AgentLauncher(self.settings.command, self.settings.name)
        return self._launcher

    def _tool_call(self, tool_call_id: str) -> ToolCall | None:
        return self.store.tool_call(tool_call_id) if self.store is not None else None

    def _paths(self) -> PathDisplay:
        return session_paths(self.store)

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

    # --------------------------------------------------------------- lifecycle

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
        """A connection is being run (the agent process may be up)."""
        return self._scope is not None

    async def stop(self) -> None:
        """Shut the connection down and wait until the agent process is reaped.

        An anyio cancellation, so the transport's shielded shutdown (close
        stdin, wait, SIGTERM, SIGKILL) runs to its end; Textual's own worker
        cancellation at exit is a bare task cancel that would cut it short.
        """
        if self._scope is None:
            return
        self.request_stop()
        await self._stopped.wait()

    def request_stop(self) -> None:
        """Cancel the connection (its shutdown then runs); does not wait."""
        if self._scope is not None:
            self._scope.cancel()

    async def run(self, request: SessionRequest) -> None:
        """Run one connection until it fails, is stopped or is cancelled."""
        from acp_tui.client.launch import AGENT_FAILURES

        self._stopped = anyio.Event()
        self._scope = anyio.CancelScope()
        self._diagnostics = 0
        try:
            with self._scope:
                # The agent boots while `_run` imports the client stack.
                await self.launcher.start_early()
                try:
                    await self._run(request)
                finally:
                    await self.launcher.discard_early()
        except LoginInTerminal as login:
            self._login_in_terminal(login)
        except AuthCancelled as declined:
            self.target.post_message(AgentFailed(str(declined), restartable=True))
        except AGENT_FAILURES as error:
            failure = self.launcher.explain(error, tail_lines=10)
            self.target.post_message(
                AgentFailed(failure.message, failure.stderr_tail, restartable=True)
            )
        except Exception as error:  # never a traceback in the UI
            log.exception("agent worker failed")
            self.target.post_message(
                AgentFailed(f"unexpected error: {error!r}", restartable=True)
            )
        finally:
            self._scope = None
            self._stopped.set()
            self.client = None
            self.connection = None
            self.in_turn = False
            self.cancelling = False
            self._turn_ended.set()
            self._drop_bridge()
            self.bridge = None

    async def _run(self, request: SessionRequest) -> None:
        from acp_tui.client.connection import ClientFeatures, connect
        from acp_tui.client.prompt_content import prompt_capabilities
        from acp_tui.client.session import AcpClient

        settings = self.settings
        client = AcpClient(
            prompter=self.prompter,
            features=ClientFeatures(
                read_text_file=True,
                write_text_file=True,
                terminal=True,
                terminal_auth=True,
                git_writes=settings.allow_git_writes,
            ),
            mcp_servers=settings.mcp_servers,
            on_diagnostic=self._diagnostic,
            # Every session's transcript is saved as it grows.
            store_factory=transcript_store_factory(settings.name),
            roots=(settings.cwd, *settings.additional_directories),
        )
        open_stream: StreamFactory = self.traffic.wrap(self.launcher.open_stream)
        if settings.record is not None:
            if self._recorder is None:
                from acp_tui.protocol.recording import Recorder

                self._recorder = Recorder(
                    settings.record, agent=settings.command.display()
                )
            open_stream = self._recorder.wrap(open_stream)
        async with connect(
            open_stream,
            choice=settings.choice,
            init_timeout=settings.init_timeout,
            features=client.features,
            on_request=client.handle_request,
            on_notification=client.handle_notification,
            long_text_paths=client.long_text_paths,
            on_diagnostic=self._diagnostic,
        ) as connection:
            client.attach(connection)
            self.client = client
            self.connection = connection
            self.prompt_caps = prompt_capabilities(connection)
            self.target.post_message(
                AgentConnected(
                    connection.agent,
                    connection.protocol_version,
                    tuple(connection.fallbacks),
                )
            )
            closed: list[str] = []
            failure: list[Exception] = []
            async with anyio.create_task_group() as group:

                async def watch() -> None:
                    closed.append(await connection.dispatcher.wait_closed())
                    group.cancel_scope.cancel()

                group.start_soon(watch)
                try:
                    self._install(await self._open(request))
                    await self._serve_prompts()
                except Exception as error:  # re-raised below, not as a group
                    failure.append(error)
                group.cancel_scope.cancel()
            if failure:
                raise failure[0]
            raise ConnectionClosed(closed[0] if closed else "the connection ended")

    def _drop_bridge(self) -> None:
        """Stop following the current store, and finish its transcript."""
        if self.bridge is not None:
            close_transcript(self.bridge.store)
            self.bridge.close()

    def _install(self, store: SessionStore) -> None:
        self._drop_bridge()
        self.store = store
        self.bridge = StoreBridge(store, self.target)
        self.target.post_message(SessionStarted(store))

    async def _open(self, request: SessionRequest) -> SessionStore:
        """Open the requested session, asking for a login or a pick as needed.

        A resume that may fall back (a restart) starts a new session when the
        agent refuses it, or cannot resume or load sessions at all.
        """
        from acp_tui.client.auth import is_auth_required
        from acp_tui.client.session import UnsupportedOperation

        client = self._client()
        while True:
            try:
                if request.action == "pick":
                    request = await self.ui.choose_session() or SessionRequest("new")
                    continue
                cwd = request.cwd or self.settings.cwd
                root = request.root
                roots = None if root is None else self._roots_with(root)
                extra = self._agent_directories(client)
                with anyio.fail_after(SETUP_TIMEOUT):
                    if request.action == "resume" and request.session_id:
                        store = await self._resume(
                            client, request.session_id, cwd, extra, roots
                        )
                    else:
                        store = await client.new_session(cwd, extra, roots=roots)
                self.session_cwd = cwd
                self.session_root = root
                if root is not None and root != self.settings.cwd:
                    self._notice(
                        f"this session works in {root}: the agent may read and "
                        f"write there, not in {self.settings.cwd}"
                    )
                return store
            except (RpcError, UnsupportedOperation) as error:
                if isinstance(error, RpcError) and is_auth_required(error):
                    await self._login(client, str(error), then=request)
                elif request.action == "resume" and request.fallback_new:
                    self._notice(
                        f"could not resume the session ({error}); started a new one"
                    )
                    request = SessionRequest("new", cwd=request.cwd, root=request.root)
                else:
                    raise

    async def _resume(
        self,
        client: AcpClient,
        session_id: str,
        cwd: Path,
        extra: Sequence[Path],
        roots: Sequence[Path] | None,
    ) -> SessionStore:
        features = client.session_features()
        return await client.resume_session(
            session_id,
            cwd,
            replay=features.replay or not features.resume,
            additional_directories=extra,
            roots=roots,
        )

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
            self._notice(
                f"the agent does not take additional directories, so it was not "
                f"told of {names} (its file and terminal requests there are "
                "still served)"
            )
        return ()

    async def _login(
        self, client: AcpClient, message: str, *, then: SessionRequest
    ) -> None:
        """Ask the user to log in (the agent answered `auth_required`).

        An agent method logs in here, and a failed login asks again; a terminal
        method raises `LoginInTerminal` (the app runs it, then reconnects and
        opens `then`).

        Raises:
            AuthCancelled: The user declined, or no method can be used here.
            LoginInTerminal: The user chose a terminal login.
        """
        from acp_tui.client.auth import (
            auth_choices,
            terminal_login_command,
            unusable_methods_text,
        )

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
            choice = await self.ui.choose_auth(choices, message)
            if choice is None or not choice.usable:
                raise AuthCancelled("the agent needs you to log in")
            if choice.is_terminal:
                command = terminal_login_command(self.settings.command, choice)
                raise LoginInTerminal(command, choice, then)
            try:
                with anyio.fail_after(SETUP_TIMEOUT):
                    await client.authenticate(choice.method_id)
                return
            except (RpcError, TimeoutError) as error:
                message = f"the login failed: {error or 'timed out'}"

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
                await self._login(client, str(error), then=then)

    def _login_in_terminal(self, login: LoginInTerminal) -> None:
        """Have the app run a terminal login, then reconnect (see the message)."""
        self.target.post_message(
            TerminalLoginRequested(login.command, login.choice.name, login.then)
        )

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
            self._turn_ended = anyio.Event()
            self.target.post_message(PromptStarted(prompt_id, text))
            try:
                blocks = await anyio.to_thread.run_sync(
                    build_prompt,
                    text,
                    self.session_cwd,
                    self.prompt_caps or PromptCapabilities(),
                )
                await self._authorized(
                    functools.partial(client.prompt, store.session_id, blocks),
                    then=self.restart_request(),
                )
                self.target.post_message(PromptEnded(prompt_id))
            except LoginInTerminal:
                self._resend = (prompt_id, text)  # once logged in and reconnected
                raise
            except AuthCancelled as declined:
                self.target.post_message(
                    AgentFailed(
                        f"the prompt was not sent: {declined}", prompt_id=prompt_id
                    )
                )
            except RpcError as error:
                self.target.post_message(
                    AgentFailed(f"the prompt failed: {error}", prompt_id=prompt_id)
                )
            finally:
                self.in_turn = False
                self.cancelling = False
                self._turn_ended.set()

    def _diagnostic(self, diagnostic: Diagnostic) -> None:
        """Show the first few protocol problems of a connection (all are logged)."""
        self._diagnostics += 1
        if self._diagnostics <= DIAGNOSTIC_NOTICES:
            self._notice(f"the agent sent a bad message: {diagnostic}")
        elif self._diagnostics == DIAGNOSTIC_NOTICES + 1:
            self._notice(
                "the agent keeps sending bad messages; further ones are only "
                f"logged ({paths.log_file()})"
            )

    def _client(self) -> AcpClient:
        if self.client is None:
            raise ConnectionClosed("the agent is not connected")
        return self.client

    # ------------------------------------------------ actions for the UI layer

    async def cancel(self) -> None:
        """Cancel the running turn, if any ("cancelling…" until it ends).

        If the agent does not end the turn within `CANCEL_GRACE` seconds, the
        user is told so, and that a restart (ctrl+r) stops the agent.
        """
        if self.client is None or self.store is None or not self.in_turn:
            return
        self.cancelling = True
        turn_ended = self._turn_ended
        await self.client.cancel(self.store.session_id)
        with anyio.move_on_after(CANCEL_GRACE):
            await turn_ended.wait()
        if not turn_ended.is_set():
            self.target.post_message(
                AgentFailed(
                    f"the agent did not end the turn within {CANCEL_GRACE:g} s of "
                    "the cancel request; press ctrl+r to restart it"
                )
            )

    async def list_sessions(self) -> list[SessionSummary]:
        """The agent's sessions for this project's directory.

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

    async def _on_behalf(self, call: Callable[[], Awaitable[T]]) -> T:
        """Make a quick call for the user, offering the login if the agent wants one.

        Each attempt is bounded by `CALL_TIMEOUT`.

        Raises:
            AuthCancelled: The login was declined, or will be made in a terminal
                (the app then reconnects).
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
            self._notice("finish or cancel the current turn before switching session")
            return
        left = self.store
        try:
            self._install(await self._open(request))
        except LoginInTerminal as login:
            self._login_in_terminal(login)  # then reconnects and opens `request`
            return
        except (RpcError, UnsupportedOperation, TimeoutError, AuthCancelled) as error:
            self._notice(f"could not open the session: {error or 'timed out'}")
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
            self._notice("the agent is not connected")
            return
        client = self.client
        try:
            await self._on_behalf(
                functools.partial(
                    client.set_config_option, store.session_id, config_id, value
                )
            )
        except (RpcError, UnsupportedOperation, TimeoutError, AuthCancelled) as error:
            self._notice(f"could not change {config_id}: {error or 'timed out'}")

    async def logout(self) -> None:
        """Log out of the agent; the next request that needs a login asks for one."""
        from acp_tui.client.session import UnsupportedOperation

        client = self.client
        if client is None:
            self._notice("the agent is not connected")
            return
        try:
            with anyio.fail_after(CALL_TIMEOUT):
                await client.logout()
        except (RpcError, UnsupportedOperation, TimeoutError) as error:
            self._notice(f"could not log out: {error or 'timed out'}")
            return
        assert self.connection is not None
        self._notice(
            f"Logged out of {self.connection.agent.display_name}; the next request "
            "that needs a login will ask for one"
        )

    def _notice(self, text: str) -> None:
        self.target.post_message(AgentNotice(text))
