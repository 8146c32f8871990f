"""The session layer: ACP methods over a negotiated connection, feeding the store.

https://agentclientprotocol.com/protocol/session-setup (v1) and
https://agentclientprotocol.com/protocol/v2/session-setup (v2).

`AcpClient` is version-neutral: whatever depends on the negotiated version (params,
results, updates, permissions, auth, the turn-end rule, v1's client services) is
asked of the connection's dialect (`client.dialect`, implemented by `client.v1` and
`client.v2`); it never compares versions. Callers (the UI, `acp-tui print`) use
version-neutral methods and read version-neutral `SessionStore`s:

* `session/update` notifications are validated against the negotiated version's
  model, translated (the session's `SessionTranslator`) and applied to that
  session's store, in received order (`client.update_intake`). Updates for a
  session whose `session/new` response has not arrived yet are held and applied
  first when it does; the response's own config options and commands never
  overwrite what updates already reported.
  A resume/load response is the other way round: the replay before it is
  history, so the config options (and v2 commands) it carries are the agent's
  latest state and replace the replayed ones (a list it omits leaves them).
* User messages the agent wrote itself (not the acknowledgment of a prompt sent
  from here, nor history replayed on reattach) are marked as the agent's in the
  same `apply_many` (`message_origins`).
* A prompt turn ends, in v2, with an idle `state_update` received after the prompt
  was sent (the `session/prompt` response only means "accepted"); in v1, with the
  `session/prompt` response, whose `stopReason` becomes the idle state.
* `cancel()` sends `session/cancel`, marks the current work's unfinished tool
  calls cancelled (those reported since the prompt was sent, or since v2
  agent-started work went busy; not an earlier turn's), answers every pending
  permission request `cancelled`, and leaves the turn running until the agent
  reports its end (late updates are still applied). When that cancelled work
  ends, whatever of it is still unfinished is marked cancelled too.
* The agent's requests: `session/request_permission` goes through the
  `PermissionPrompter` port (a `$/cancel_request` or a cancelled turn answers
  `cancelled`; an option that was not offered is never sent), elicitations
  through the `ElicitationPrompter` port (`client.elicitation_flow`), and v1
  `fs/read_text_file` / `fs/write_text_file` are served inside the session's roots
  when enabled (every write shown in the conversation: `file_writes`). So are the
  v1 `terminal/*` methods (`client.terminals`), one `ClientTerminals` per session,
  whose commands run in the connection's task group. Anything else gets
  `-32601`.
* A session's roots (where `fs/*` and terminals may reach) are what the user
  chose, never what the agent says: the client's `roots` (the project directory
  and the directories the user added), or for one session the `roots` its caller
  passes once the user agreed to them. The `cwd` a session is opened or resumed
  with is only told to the agent: a `session/list` entry can name `/`, and
  resuming it must not open `/` to the agent. A `cwd` inside the roots goes first
  among them (terminals start there); one outside them adds nothing. Only a
  client given no roots at all falls back to each session's `cwd` and
  additional directories (callers that choose the `cwd` themselves).
* A session the user leaves (`leave_session`: another session opened in its
  place, or its tab closed) is forgotten: its late updates are logged and
  dropped, never applied to a store nothing shows, and its pending permission
  requests are answered `cancelled` (its elicitations `cancel`). Where the
  agent supports `session/close` (v2 baseline, v1 `sessionCapabilities.close`)
  it is closed too.
* Client-owned terminals are killed and reaped when their session is closed,
  deleted or left, by `aclose()`, and in any case when the connection closes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, Literal

import anyio

from acp_tui.client.connection import ClientFeatures, Connection
from acp_tui.client.dialect import (
    Dialect,
    SessionFeatures,
    SessionSummary,
    SessionTranslator,
)
from acp_tui.client.elicitation_flow import Elicitations
from acp_tui.client.errors import UnsupportedOperation
from acp_tui.client.file_writes import FileWrites
from acp_tui.client.fs import FileSystemAccess
from acp_tui.client.long_text import LONG_TEXT_PATHS
from acp_tui.client.message_origins import MessageOrigins
from acp_tui.client.permission_flow import answer_permission
from acp_tui.client.ports import (
    ElicitationPolicy,
    ElicitationPrompter,
    PermissionPrompter,
)
from acp_tui.client.terminals import ClientTerminals
from acp_tui.client.tracked_session import (
    SessionOpening,
    StoreFactory,
    TrackedSession,
    Turn,
    plain_store,
    session_roots,
    set_setup_lists,
)
from acp_tui.client.update_intake import UpdateIntake
from acp_tui.config import McpServerSettings
from acp_tui.protocol.dispatcher import Diagnostic, RequestContext
from acp_tui.protocol.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, RpcError
from acp_tui.protocol.transport import ConnectionClosed
from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject

__all__ = [
    "AcpClient",
    "SessionFeatures",
    "SessionOpening",
    "SessionSummary",
    "StoreFactory",
    "UnsupportedOperation",
    "plain_store",
]

log = logging.getLogger(__name__)


class AcpClient:
    """ACP sessions over one connection.

    Create it first, pass its `handle_request` / `handle_notification` (and
    `long_text_paths`) to `connection.connect()`, then `attach()` the connection.

    Args:
        prompter: Answers the agent's permission requests.
        elicitor: Answers the agent's elicitations (default: declined).
        features: Which client methods are served (v1 `fs` and `terminal`,
            the elicitation modes).
        mcp_servers: MCP servers to pass on new and resumed sessions.
        on_diagnostic: Told about malformed updates (also logged).
        store_factory: Makes each session's store (default: `plain_store`).
        roots: The directories the user lets the agent's `fs/*` and terminal
            requests reach, absolute, the project directory first. Every session
            is confined to them, whatever `cwd` it is opened or resumed with.
            Empty: each session's own `cwd` and additional directories.
    """

    long_text_paths: Final = LONG_TEXT_PATHS
    """Where `handle_notification` takes a long line's long strings in pieces
    (`client.long_text`)."""

    def __init__(
        self,
        *,
        prompter: PermissionPrompter,
        elicitor: ElicitationPrompter | None = None,
        features: ClientFeatures | None = None,
        mcp_servers: Mapping[str, McpServerSettings] | None = None,
        on_diagnostic: Callable[[Diagnostic], None] | None = None,
        store_factory: StoreFactory = plain_store,
        roots: Sequence[Path] = (),
    ) -> None:
        for root in roots:
            if not root.is_absolute():
                raise ValueError(f"roots must be absolute: {root}")
        self.prompter = prompter
        self.elicitor: ElicitationPrompter = elicitor or ElicitationPolicy()
        self.roots: tuple[Path, ...] = tuple(roots)
        """What sessions may reach unless their caller names other roots."""
        self.features = features or ClientFeatures()
        self.mcp_servers = dict(mcp_servers or {})
        self.on_diagnostic = on_diagnostic
        self._connection: Connection | None = None
        self._sessions: dict[str, TrackedSession] = {}
        self._updates = UpdateIntake(self._sessions, on_diagnostic, self)
        self._store_factory = store_factory
        self._elicitations = Elicitations(self.elicitor, self.features, self._report)
        self.notification_handlers: dict[str, Callable[[Any], None]] = {}
        """Other notifications a front end serves (the runner: `auth/status_update`)."""

    # ---------------------------------------------------------------- wiring

    def attach(self, connection: Connection) -> None:
        """Use this negotiated connection."""
        self._connection = connection
        self._updates.batch_through(connection.dispatcher)

    @property
    def connection(self) -> Connection:
        """The attached connection."""
        if self._connection is None:
            raise RuntimeError("AcpClient.attach() was not called")
        return self._connection

    @property
    def version(self) -> int:
        """The negotiated protocol version."""
        return self.connection.protocol_version

    @property
    def dialect(self) -> Dialect:
        """What depends on the negotiated version (`client.v1` / `client.v2`)."""
        return self.connection.dialect

    @property
    def agent_name(self) -> str | None:
        """The name the agent reported in `initialize` (None: it gave none)."""
        return self.dialect.agent_name

    def store(self, session_id: str) -> SessionStore:
        """The store of a session this client opened."""
        return self._sessions[session_id].store

    def session_translator(self, session_id: str) -> SessionTranslator:
        """The translation of a session's updates (its current message)."""
        return self._sessions[session_id].translator

    def session_features(self) -> SessionFeatures:
        """The session methods the agent advertised."""
        return self.dialect.session_features()

    async def _call(self, method: str, params: Any) -> Any:
        return await self.connection.dispatcher.request(method, params)

    # ------------------------------------------------------------ capabilities

    def _mcp_entries(self) -> list[JSONObject]:
        """Configured MCP servers in the wire shape, for transports the agent has."""
        return self.dialect.mcp_servers(self.mcp_servers)

    def _additional_directories(self, directories: Sequence[Path]) -> list[str]:
        if not directories:
            return []
        if not self.session_features().additional_directories:
            raise UnsupportedOperation(
                "the agent does not support additional directories"
            )
        return [str(d) for d in directories]

    # ---------------------------------------------------------------- sessions

    async def _roots(
        self, cwd: Path, extra: Sequence[Path], roots: Sequence[Path] | None
    ) -> FileSystemAccess:
        """A session's roots (see the module docstring); resolves in a thread."""
        return await session_roots(cwd, extra, roots, self.roots)

    def _open(
        self,
        session_id: str,
        cwd: Path,
        roots: FileSystemAccess,
        how: Literal["new", "load", "resume"] = "new",
    ) -> TrackedSession:
        opening = SessionOpening(session_id, cwd, how, self.version, self.agent_name)
        store = self._store_factory(opening)
        translator = self.dialect.translator(store)
        origins = MessageOrigins(store, reattaching=how != "new")
        writes = FileWrites(store, roots, cwd)
        session = TrackedSession(
            store,
            cwd,
            roots,
            translator,
            origins,
            writes,
            turn_ends_with_response=self.dialect.turn_ends_with_response,
        )
        tasks = self.connection.tasks
        serves = self.dialect.serves_terminals and self.features.terminal
        if serves and tasks is not None:
            session.terminals = ClientTerminals(store, roots, tasks)
        replaced = self._sessions.get(session_id)
        if replaced is not None:  # reopened under the same id: the old store is done
            if replaced.unsubscribe is not None:
                replaced.unsubscribe()
            replaced.cancelled.set()  # its pending permission requests: cancelled
        self._sessions[session_id] = session
        session.unsubscribe = store.subscribe(session.on_changes)
        self._updates.opened(session)
        return session

    async def new_session(
        self,
        cwd: Path,
        additional_directories: Sequence[Path] = (),
        *,
        roots: Sequence[Path] | None = None,
        fork: JSONObject | None = None,
    ) -> SessionStore:
        """`session/new` in `cwd` (absolute); returns the new session's store.

        `roots`, when given, replace the client's roots for this session (the
        user agreed to them). With `fork` (its own params), `session/fork`
        instead, which opens a session the same way (`client.session_admin`).
        """
        params: dict[str, Any] = {"cwd": str(cwd), "mcpServers": self._mcp_entries()}
        extra = self._additional_directories(additional_directories)
        if extra:
            params["additionalDirectories"] = extra
        method = "session/new" if fork is None else "session/fork"
        params.update(fork or {})
        access = await self._roots(cwd, additional_directories, roots)
        with self._updates.new_session_pending():
            raw = await self._call(method, params)
            session_id, result = self.dialect.parse_new(raw)
            session = self._open(session_id, cwd, access)
            options, commands = session.translator.new_lists(result)
        set_setup_lists(session.store, options or [], commands or [])
        return session.store

    async def list_sessions(
        self, cwd: Path | None = None, *, archived: str | None = None
    ) -> list[SessionSummary]:
        """`session/list`, every page (opaque cursors), `archived` filter if given."""
        self.dialect.check_list()
        summaries: list[SessionSummary] = []
        cursor: str | None = None
        seen: set[str] = set()
        while True:
            params: dict[str, Any] = {}
            if cwd is not None:
                params["cwd"] = str(cwd)
            if archived is not None:
                params["archived"] = archived
            if cursor is not None:
                params["cursor"] = cursor
            raw = await self._call("session/list", params)
            page, cursor = self.dialect.list_page(raw)
            summaries.extend(page)
            if cursor is None or cursor in seen:  # a repeated cursor would loop forever
                return summaries
            seen.add(cursor)

    async def resume_session(
        self,
        session_id: str,
        cwd: Path,
        *,
        replay: bool,
        additional_directories: Sequence[Path] = (),
        roots: Sequence[Path] | None = None,
    ) -> SessionStore:
        """Reattach to a session; with `replay`, its history is replayed first.

        v2: `session/resume` with `replayFrom: {"type": "start"}` (or none). v1:
        `session/load` (replays; needs `loadSession`) or `session/resume` (no
        replay; needs `sessionCapabilities.resume`). `cwd` is told to the agent
        (ACP wants the session's own); the session reaches only the client's
        roots, or `roots` when the caller gives them (the user agreed to them).
        """
        extra = self._additional_directories(additional_directories)
        method, replay_params = self.dialect.resume_request(replay)
        params: dict[str, Any] = {
            "sessionId": session_id,
            "cwd": str(cwd),
            "mcpServers": self._mcp_entries(),
        }
        if extra:
            params["additionalDirectories"] = extra
        params.update(replay_params)
        access = await self._roots(cwd, additional_directories, roots)
        # Open first: replayed updates arrive before the response.
        how: Literal["load", "resume"] = "load" if replay else "resume"
        session = self._open(session_id, cwd, access, how)
        # The response is the agent's latest state: the lists it carries replace
        # what the replay reported (a list it omits leaves the replayed one).
        try:
            raw = await self._call(method, params)
            options, commands = session.translator.resumed_lists(raw, replay)
        except BaseException:
            if self._sessions.get(session_id) is session:
                del self._sessions[session_id]  # not resumed: no half-open session
            raise
        session.origins.reattached()  # later user messages are not history
        session.translator.end_message()  # the replay's last message is over
        if options is not None:
            session.store.apply(ops.SetConfigOptions(options))
        if commands is not None:
            session.store.apply(ops.SetAvailableCommands(commands))
        return session.store

    async def close_session(self, session_id: str) -> None:
        """`session/close` (cancels the session's work, like `session/cancel`).

        The session is forgotten first (its updates are no longer applied, its
        pending permission requests are answered `cancelled`), even if the agent
        then refuses to close it.
        """
        if not self.session_features().close:
            raise UnsupportedOperation("the agent cannot close sessions")
        await self._forget(session_id)
        await self._call("session/close", {"sessionId": session_id})

    async def leave_session(self, store: SessionStore) -> bool:
        """The user left this session: stop following it, and close it if we can.

        Its updates are no longer applied (an update for it is then one for an
        unknown session: logged and dropped), its pending permission requests
        are answered `cancelled`, its client-owned terminals are killed, and,
        where the agent supports `session/close`, the agent is told to close it.
        A session reopened since under the same id (a newer store) is left alone.

        Returns:
            True if `session/close` was sent and answered.

        Raises:
            RpcError: The agent refused to close it (it is forgotten anyway).
        """
        session = self._sessions.get(store.session_id)
        if session is None or session.store is not store:
            return False
        if not self.session_features().close:
            await self._forget(store.session_id)
            return False
        await self.close_session(store.session_id)
        return True

    async def delete_session(self, session_id: str) -> None:
        """`session/delete` (needs the agent's `delete` capability)."""
        if not self.session_features().delete:
            raise UnsupportedOperation("the agent cannot delete sessions")
        await self._call("session/delete", {"sessionId": session_id})
        await self._forget(session_id)

    async def _forget(self, session_id: str) -> None:
        """Drop an open session (closed, deleted or left by the user).

        Its updates are no longer applied, its pending permission requests are
        answered `cancelled`, a v2 turn waiting for its end ends `cancelled` (its
        work is over), and its client-owned terminals are killed and reaped.
        """
        session = self._sessions.pop(session_id, None)
        if session is None:
            return
        if session.unsubscribe is not None:
            session.unsubscribe()
        session.cancelled.set()
        self._elicitations.forget(session.store)
        turn = session.turn
        if turn is not None and not self.dialect.turn_ends_with_response:
            turn.stop_reason = "cancelled"
            turn.done.set()
        if session.terminals is not None:
            await session.terminals.aclose()

    async def aclose(self) -> None:
        """Kill and reap the client-owned terminals of every session (bounded).

        Sessions stay open. The connection does the same when it closes, so this is
        for a client that ends before its connection.
        """
        for session in list(self._sessions.values()):
            if session.terminals is not None:
                await session.terminals.aclose()

    # ------------------------------------------------------------------ turns

    async def prompt(self, session_id: str, blocks: Sequence[JSONObject]) -> str | None:
        """Send a prompt and wait for the turn to end; returns the stop reason.

        Raises:
            RpcError: The agent rejected the prompt (v1: the turn failed).
        """
        session = self._sessions[session_id]
        turn = Turn()
        session.turn = turn
        # The work before this prompt is over for this turn (a cancelled one's
        # leftovers are marked). The cancelled event is replaced only then, not
        # unconditionally: a request still pending from before this prompt must
        # be answered too if this turn is cancelled.
        session.work_ended()
        session.start_work()
        params = {"sessionId": session_id, "prompt": list(blocks)}
        store = session.store
        if self.dialect.turn_ends_with_response:
            translator = session.translator
            for op in translator.user_prompt(blocks):
                store.apply(op)
            store.apply(ops.SetState("running"))
            try:
                raw = await self._call("session/prompt", params)
            except BaseException:
                store.apply(ops.SetState("idle"))
                raise
            finally:
                translator.end_message()
                session.work_ended()  # v1: the response ends the turn
            stop_reason = self.dialect.stop_reason(raw)
            store.apply_many(self.dialect.prompt_response_ops(raw))
            return stop_reason
        session.origins.prompt_sent(blocks)
        try:
            # `{}` or `{messageId}`: accepted; the id names its acknowledgment.
            raw = await self._call("session/prompt", params)
            named = raw.get("messageId") if isinstance(raw, dict) else None
            store.apply_many(
                session.origins.prompt_accepted(
                    named if isinstance(named, str) else None
                )
            )
            await self._until_turn_ends(turn)
        finally:
            store.apply_many(session.origins.turn_ended())
        return turn.stop_reason

    async def _until_turn_ends(self, turn: Turn) -> None:
        """Wait for the idle that ends a v2 turn, or fail if the connection ends."""
        dispatcher = self.connection.dispatcher
        closed: list[str] = []
        async with anyio.create_task_group() as group:

            async def ended() -> None:
                await turn.done.wait()
                group.cancel_scope.cancel()

            async def connection_lost() -> None:
                closed.append(await dispatcher.wait_closed())
                group.cancel_scope.cancel()

            group.start_soon(ended)
            group.start_soon(connection_lost)
        if not turn.done.is_set():
            raise ConnectionClosed(closed[0] if closed else "the connection ended")

    async def cancel(self, session_id: str) -> None:
        """Cancel the session's current work (the turn ends when the agent says)."""
        session = self._sessions[session_id]
        await self.connection.dispatcher.notify(
            "session/cancel", {"sessionId": session_id}
        )
        session.cancelled.set()
        marks = await self._updates.cancel_marks(session, self.connection.dispatcher)
        if marks:
            session.store.apply_many(marks)

    async def set_config_option(
        self, session_id: str, config_id: str, value: Any
    ) -> None:
        """`session/set_config_option`; the returned list replaces the stored one.

        In v1, the mode option synthesised from `modes` is set with
        `session/set_mode` instead (the agent knows no such config option).
        """
        session = self._sessions[session_id]
        translator = session.translator
        if translator.is_mode_option(config_id):
            await self.set_mode(session_id, str(value))
            session.store.apply_many(translator.mode_set(str(value)))
            return
        params: dict[str, Any] = {"sessionId": session_id, "configId": config_id}
        value_type = self.dialect.config_value_type(value)
        if value_type is not None:
            params["type"] = value_type
        params["value"] = value
        raw = await self._call("session/set_config_option", params)
        options = translator.config_options(self.dialect.parse_config_options(raw))
        session.store.apply(ops.SetConfigOptions(options))

    async def set_mode(self, session_id: str, mode_id: str) -> None:
        """v1 `session/set_mode`."""
        self.dialect.check_set_mode()
        await self._call(
            "session/set_mode", {"sessionId": session_id, "modeId": mode_id}
        )

    async def authenticate(self, method_id: str) -> None:
        """Log in with `method_id` (a v2 `terminal` method: the front end runs it)."""
        method, params = self.dialect.login(method_id)
        await self._call(method, params)

    def can_logout(self) -> bool:
        """Whether the agent may be sent a logout (the dialect knows its marker)."""
        return self.dialect.can_logout()

    async def logout(self) -> None:
        """Log out (then any request may fail with `auth_required`, checklist 4.3.3)."""
        if not self.can_logout():
            raise UnsupportedOperation("the agent does not support logout")
        await self._call(self.dialect.logout_method, {})

    # ------------------------------------------------------------- inbound

    async def handle_notification(self, method: str, params: Any) -> None:
        """Serve `session/update`, `elicitation/complete`, `notification_handlers`."""
        if method == "session/update":  # first: every streamed chunk is one
            later = self._updates.receive_now(params)  # (no coroutine per chunk)
            if later is not None:
                await later
        elif method == "elicitation/complete":
            self._elicitations.complete(self.dialect, params)
        elif (handler := self.notification_handlers.get(method)) is not None:
            handler(params)
        else:
            log.debug("ignoring notification %s", method)

    def _report(self, message: str) -> None:
        if self.on_diagnostic is not None:
            self.on_diagnostic(Diagnostic("handler_error", message))

    async def handle_request(
        self, method: str, params: Any, context: RequestContext
    ) -> Any:
        """Serve the agent's requests."""
        if method == "session/request_permission":
            return await self._permission(params, context)
        if method == "elicitation/create":
            return await self._elicitation(params, context)
        return await self.dialect.serve(method, params, self)

    # The `dialect.ClientServices` the agent's client-side requests reach.

    def fs_access(self, session_id: str) -> FileSystemAccess:
        """The directories `fs/*` requests of this session may reach."""
        return self._session_for(session_id).roots

    def file_writes(self, session_id: str) -> FileWrites:
        """Serves this session's `fs/write_text_file` and shows every write."""
        return self._session_for(session_id).writes

    def client_terminals(self, session_id: str) -> ClientTerminals:
        """This session's client-owned terminals."""
        terminals = self._session_for(session_id).terminals
        if terminals is None:  # a connection without a task group to run them in
            raise RpcError(
                INTERNAL_ERROR, "Terminals are not available on this connection"
            )
        return terminals

    def _session_for(self, session_id: str) -> TrackedSession:
        session = self._updates.session_of(session_id)  # or a subagent's
        if session is None:
            raise RpcError(
                INVALID_PARAMS, "Invalid params", f"unknown session {session_id}"
            )
        return session

    async def _permission(self, params: Any, context: RequestContext) -> Any:
        # Read and recorded synchronously, before the first await: the dispatcher
        # guarantees this runs before the next message is read, so the tool-call
        # subject is ordered with the updates around it.
        ask = self.dialect.permission(
            params, lambda session_id: self._session_for(session_id).store
        )
        session = self._session_for(ask.session_id)
        outcome = await answer_permission(
            ask, session.store, session.cancelled, context, self.prompter, self._report
        )
        return self.dialect.permission_reply(outcome)

    async def _elicitation(self, params: Any, context: RequestContext) -> Any:
        def session(session_id: str) -> tuple[SessionStore, anyio.Event]:
            tracked = self._session_for(session_id)
            return tracked.store, tracked.cancelled

        return await self._elicitations.create(self.dialect, params, context, session)
