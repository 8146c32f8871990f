r"""Client-owned terminals: the ACP v1 `terminal/*` methods, for one session.

Spec: https://agentclientprotocol.com/protocol/terminals

`ClientTerminals` runs the commands an agent asks for (`terminal/create`) and
answers `terminal/output`, `terminal/wait_for_exit`, `terminal/kill` and
`terminal/release` about them.

Invariants:

* **`create` returns at once.** The command starts in a PTY (`terminal.pty`) and
  runs in a background task of a task group this manager owns; that group lives
  inside the host task group it is given (the connection's), so closing the
  connection cancels it. Every process is killed and reaped on the way out: by
  `release`, by `aclose()` (the session ends), or by that cancellation (the
  connection ends). That includes descendants that left the command's process
  group (`setsid`, `setpgid`, a daemon's double fork): `terminal.pty` finds them
  through `acp_tui.process_tree` (Linux). Cleanup is shielded and bounded; nothing
  is left running.
* **What the agent reads.** `terminal/output` returns the retained bytes decoded
  as UTF-8 (invalid bytes become U+FFFD; an incomplete character at the end waits
  for its remaining bytes while the command runs). The PTY turns every `\n` into
  `\r\n`; that is undone, so the text reads as the command wrote it, colour
  escapes and bare `\r` included.
* **`outputByteLimit`.** Only the last N bytes are retained, cut from the
  beginning at a UTF-8 character boundary (so slightly fewer may remain), and
  `truncated` says so. Without a limit, `MAX_OUTPUT_BYTES` applies.
* **`kill` versus `release`.** `kill` stops the process group and whatever left
  it; the terminal stays valid, its output readable and its exit status waitable.
  `release` kills and frees it: the id then answers `-32002` for every method.
* **The store sees every terminal** as the UI shows terminals: `PatchTerminal`
  with the command and working directory at creation, `AppendTerminalOutput` with
  the raw bytes (colours, `\r\n` and all, for the emulator), coalesced to at most
  one append per `STORE_FLUSH_INTERVAL` (or per `STORE_FLUSH_BYTES`) rather than
  one per read, and the exit status once the command has exited. A released
  terminal keeps its output in the store, so a tool call that embeds it still
  shows it.
* **Confinement.** The working directory follows the `fs/*` rule (absolute, and
  inside the session's roots once resolved); see `client.fs`.

Errors are `RpcError`s: `-32002` for an unknown or released terminal id or a
missing working directory, `-32602` for bad params (relative or outside working
directory, bad environment names), `-32603` when the command cannot be started or
too many terminals are open. `outputByteLimit` is never refused: the schema marks it
`x-deserialize-default-on-error` (checklist §4.14.4), so a negative, fractional, too
large or mistyped value reads as omitted (`MAX_OUTPUT_BYTES`), and the session layer
logs the fallback (`client._wire.log_defaulted`); a negative limit reaching `create`
from Python is a `ValueError`.
"""

from __future__ import annotations

import itertools
import logging
import os
import shlex
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

import anyio
import anyio.abc
import anyio.to_thread

from acp_tui.client.fs import FileSystemAccess
from acp_tui.protocol.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    RESOURCE_NOT_FOUND,
    RpcError,
)
from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject, JSONValue
from acp_tui.terminal.pty import DEFAULT_COLS, DEFAULT_ROWS, ExitStatus, PtyProcess

__all__ = [
    "EXIT_DRAIN_TIMEOUT",
    "MAX_OUTPUT_BYTES",
    "MAX_TERMINALS",
    "STORE_FLUSH_BYTES",
    "STORE_FLUSH_INTERVAL",
    "ClientTerminals",
    "TerminalOutput",
    "cut_to_limit",
]

log = logging.getLogger(__name__)

MAX_OUTPUT_BYTES: Final = 16 * 2**20
"""The most output bytes retained per terminal for the agent (16 MiB), whatever
`outputByteLimit` asks for (the store keeps its own, larger, cap for the screen)."""

MAX_TERMINALS: Final = 64
"""The most unreleased terminals per session."""

STORE_FLUSH_INTERVAL: Final = 1 / 30
"""Output is handed to the store at most once per interval (once per frame)."""

STORE_FLUSH_BYTES: Final = 256 * 1024
"""...or as soon as this much is waiting, so a flood is not held in two places."""

EXIT_DRAIN_TIMEOUT: Final = 0.5
"""After the command exits: time to read what it wrote last before its exit status
is reported. A descendant that keeps the terminal open would otherwise delay the
status for as long as it lives."""

KILL_SETTLE_TIMEOUT: Final = EXIT_DRAIN_TIMEOUT + 1.0
"""`kill` returns once the exit status is recorded, or after this long."""

RELEASE_TIMEOUT: Final = 10.0
"""`release` waits this long at most for the process to be reaped (its shielded
cleanup takes about nine seconds in the worst case, and goes on regardless)."""

CLOSE_TIMEOUT: Final = 15.0
"""`aclose` waits this long at most for every terminal's cleanup."""


@dataclass(frozen=True, slots=True)
class TerminalOutput:
    """A `terminal/output` answer."""

    output: str
    truncated: bool
    exit_status: ExitStatus | None
    """None while the command runs."""

    def to_json(self) -> JSONObject:
        """The ACP `TerminalOutputResponse` (`exitStatus` only once exited)."""
        result: dict[str, JSONValue] = {
            "output": self.output,
            "truncated": self.truncated,
        }
        if self.exit_status is not None:
            result["exitStatus"] = self.exit_status.to_json()
        return result


def cut_to_limit(buffer: bytearray, limit: int) -> bool:
    """Drop the oldest bytes of `buffer` beyond `limit`, at a UTF-8 boundary.

    The cut moves forward past continuation bytes (at most three, the longest a
    character has), so what remains never starts inside a character and may be
    slightly shorter than `limit`.

    Args:
        buffer: The retained bytes, changed in place.
        limit: The most bytes to keep.

    Returns:
        Whether anything was dropped.
    """
    excess = len(buffer) - limit
    if excess <= 0:
        return False
    cut = excess
    end = min(len(buffer), cut + 3)
    while cut < end and 0x80 <= buffer[cut] < 0xC0:
        cut += 1
    del buffer[:cut]
    return True


def _complete_end(data: bytearray) -> int:
    """Where the last complete UTF-8 character of `data` ends.

    An incomplete sequence at the very end (its other bytes not read yet) is left
    out; anything else, even invalid, counts as complete.
    """
    n = len(data)
    for back in range(1, min(4, n) + 1):
        byte = data[n - back]
        if byte < 0x80:
            return n
        if byte >= 0xC0:  # a lead byte: how long is its sequence?
            need = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return n if back >= need else n - back
    return n


@dataclass(slots=True, eq=False)
class _Terminal:
    """One terminal's process, retained output and progress."""

    terminal_id: str
    process: PtyProcess
    limit: int
    retained: bytearray = field(default_factory=bytearray)
    truncated: bool = False
    pending: bytearray = field(default_factory=bytearray)
    """Bytes not yet handed to the store."""
    pending_ready: anyio.Event = field(default_factory=anyio.Event)
    exit_status: ExitStatus | None = None
    eof: anyio.Event = field(default_factory=anyio.Event)
    """Set once the output has ended (or reading stopped)."""
    exited: anyio.Event = field(default_factory=anyio.Event)
    """Set once `exit_status` is recorded."""
    done: anyio.Event = field(default_factory=anyio.Event)
    """Set once the process is reaped and the PTY closed."""
    scope: anyio.CancelScope | None = None
    """Cancels the terminal's task (its cleanup still runs)."""


class ClientTerminals:
    """The client-owned terminals of one session.

    Args:
        store: The session's store; receives each terminal's state and output.
        roots: The session's directories; working directories must lie inside.
        host: A task group that outlives the session (the connection's); the
            manager's own task group runs in it, started on first use.
        cols: The width of each terminal's PTY.
        rows: The height of each terminal's PTY.
        use_pty: False to give commands pipes instead of a PTY.
    """

    def __init__(
        self,
        store: SessionStore,
        roots: FileSystemAccess,
        host: anyio.abc.TaskGroup,
        *,
        cols: int = DEFAULT_COLS,
        rows: int = DEFAULT_ROWS,
        use_pty: bool = True,
    ) -> None:
        self.store = store
        self.roots = roots
        self._host = host
        self._cols = cols
        self._rows = rows
        self._use_pty = use_pty
        self._terminals: dict[str, _Terminal] = {}
        self._ids = itertools.count(1)
        self._group: anyio.abc.TaskGroup | None = None
        self._group_lock = anyio.Lock()
        self._close_requested = anyio.Event()
        self._group_done = anyio.Event()
        self._closing = False

    @property
    def terminal_ids(self) -> tuple[str, ...]:
        """The ids of the terminals not yet released, oldest first."""
        return tuple(self._terminals)

    def pid(self, terminal_id: str) -> int:
        """The process id (and process group id) of a terminal's command.

        Raises:
            RpcError: `-32002`, no such terminal (or it was released).
        """
        return self._get(terminal_id).process.pid

    # -- the ACP methods -------------------------------------------------------

    async def create(
        self,
        command: str,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
    ) -> str:
        """`terminal/create`: start the command; returns its terminal id at once.

        The command runs without a shell, with `args`, in `cwd` (default: the
        session's working directory), with `env` added to the environment. Some
        agents send a whole command line as `command` with no `args`; when no
        program of that name exists and it has spaces, it runs through the system
        shell instead.

        Args:
            command: The program (or, see above, a command line).
            args: Its arguments.
            env: Environment variables to add.
            cwd: Absolute working directory, inside the session's roots.
            output_byte_limit: The most output bytes to retain for `output()`.

        Returns:
            The new terminal's id.

        Raises:
            RpcError: See the module docstring for the codes.
            ValueError: `output_byte_limit` is negative.
        """
        if self._closing:
            raise RpcError(INTERNAL_ERROR, "The session's terminals are closed")
        if len(self._terminals) >= MAX_TERMINALS:
            raise RpcError(
                INTERNAL_ERROR,
                f"Too many terminals: {MAX_TERMINALS} are open; release some first",
            )
        if output_byte_limit is not None and output_byte_limit < 0:
            raise ValueError(f"output_byte_limit is negative: {output_byte_limit}")
        environment = _checked_env(env or {})
        _check_argv(command, args)
        directory, argv = await anyio.to_thread.run_sync(
            self._prepare, command, list(args), cwd, environment
        )
        group = await self._task_group()
        try:
            process = await PtyProcess.start(
                argv,
                cwd=directory,
                env=environment,
                cols=self._cols,
                rows=self._rows,
                use_pty=self._use_pty,
            )
        except OSError as error:
            reason = error.strerror or str(error)
            raise RpcError(
                INTERNAL_ERROR,
                f"Cannot start the command: {reason}",
                {"command": command},
            ) from None
        limit = MAX_OUTPUT_BYTES
        if output_byte_limit is not None:
            limit = min(output_byte_limit, MAX_OUTPUT_BYTES)
        terminal_id = f"term-{next(self._ids)}"
        terminal = _Terminal(terminal_id, process, limit)
        self._terminals[terminal_id] = terminal
        self.store.apply(
            ops.PatchTerminal(
                terminal_id, command=shlex.join([command, *args]), cwd=directory
            )
        )
        try:
            await group.start(self._run, terminal)
        except BaseException:
            self._terminals.pop(terminal_id, None)
            await process.aclose()
            raise
        return terminal_id

    def output(self, terminal_id: str) -> TerminalOutput:
        """`terminal/output`: the retained output so far, and the exit status.

        Raises:
            RpcError: `-32002`, no such terminal (or it was released).
        """
        terminal = self._get(terminal_id)
        retained = terminal.retained
        final = terminal.exit_status is not None and terminal.eof.is_set()
        end = len(retained) if final else _complete_end(retained)
        text = bytes(memoryview(retained)[:end]).decode("utf-8", errors="replace")
        return TerminalOutput(
            text.replace("\r\n", "\n"), terminal.truncated, terminal.exit_status
        )

    async def wait_for_exit(self, terminal_id: str) -> ExitStatus:
        """`terminal/wait_for_exit`: wait until the command has exited.

        Returns:
            Its exit status (a released terminal reports how it was stopped).

        Raises:
            RpcError: `-32002`, no such terminal (or it was released).
        """
        terminal = self._get(terminal_id)
        await terminal.exited.wait()
        assert terminal.exit_status is not None
        return terminal.exit_status

    async def kill(self, terminal_id: str) -> None:
        """`terminal/kill`: stop the command, its group and what left the group.

        The terminal stays valid. Returns once the exit status is recorded
        (bounded).

        Raises:
            RpcError: `-32002`, no such terminal (or it was released).
        """
        terminal = self._get(terminal_id)
        await terminal.process.kill()
        with anyio.move_on_after(KILL_SETTLE_TIMEOUT):
            await terminal.exited.wait()

    async def release(self, terminal_id: str) -> None:
        """`terminal/release`: kill the command if it runs and free the terminal.

        The id is invalid from then on; the store keeps the output.

        Raises:
            RpcError: `-32002`, no such terminal (or it was released already).
        """
        terminal = self._get(terminal_id)
        del self._terminals[terminal_id]
        if terminal.scope is not None:
            terminal.scope.cancel()
        with anyio.move_on_after(RELEASE_TIMEOUT):
            await terminal.done.wait()

    async def aclose(self) -> None:
        """Kill and reap every terminal, and stop the task group. Idempotent.

        Bounded and shielded. Later `create` calls fail; the store keeps every
        terminal's output.
        """
        self._closing = True
        with anyio.CancelScope(shield=True):
            terminals = list(self._terminals.values())
            self._terminals.clear()
            for terminal in terminals:
                if terminal.scope is not None:
                    terminal.scope.cancel()
            self._close_requested.set()
            async with self._group_lock:
                started = self._group is not None
            if started:
                with anyio.move_on_after(CLOSE_TIMEOUT):
                    await self._group_done.wait()

    # -- internals ---------------------------------------------------------------

    def _get(self, terminal_id: str) -> _Terminal:
        terminal = self._terminals.get(terminal_id)
        if terminal is None:
            raise RpcError(
                RESOURCE_NOT_FOUND,
                "Terminal not found (unknown, or already released)",
                {"terminalId": terminal_id},
            )
        return terminal

    def _prepare(
        self,
        command: str,
        args: list[str],
        cwd: str | None,
        env: Mapping[str, str],
    ) -> tuple[str, list[str]]:
        """In a worker thread: the confined working directory and the argv."""
        path = cwd if cwd is not None else str(self.roots.roots[0])
        # The same rule as fs/*: absolute, inside the session's roots once resolved.
        directory = self.roots.confine(path)
        if not os.path.isdir(directory):
            raise RpcError(
                RESOURCE_NOT_FOUND, "Working directory not found", {"cwd": path}
            )
        if args or not any(c.isspace() for c in command):
            return directory, [command, *args]
        search = env.get("PATH", os.environ.get("PATH"))
        if shutil.which(command, path=search) is not None:
            return directory, [command]
        if sys.platform == "win32":  # pragma: no cover
            return directory, [os.environ.get("COMSPEC", "cmd.exe"), "/c", command]
        return directory, ["/bin/sh", "-c", command]

    async def _task_group(self) -> anyio.abc.TaskGroup:
        """The manager's own task group, started in the host group on first use."""
        async with self._group_lock:
            if self._group is None:
                if self._closing:
                    raise RpcError(INTERNAL_ERROR, "The session's terminals are closed")
                try:
                    await self._host.start(self._serve)
                except RuntimeError as error:  # the host is shutting down
                    raise RpcError(
                        INTERNAL_ERROR, "The connection is closing", str(error)
                    ) from None
            assert self._group is not None
            return self._group

    async def _serve(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Host the manager's task group until `aclose()` (or cancellation)."""
        try:
            async with anyio.create_task_group() as group:
                self._group = group
                task_status.started()
                await self._close_requested.wait()
                group.cancel_scope.cancel()
        finally:
            self._group_done.set()

    async def _run(
        self,
        terminal: _Terminal,
        *,
        task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        """Pump one terminal's output until it ends; then reap its process."""
        process = terminal.process
        try:
            with anyio.CancelScope() as scope:
                terminal.scope = scope
                task_status.started()
                async with anyio.create_task_group() as group:
                    group.start_soon(self._pump, terminal)
                    group.start_soon(self._feed_store, terminal)
                    status = await process.wait()
                    with anyio.move_on_after(EXIT_DRAIN_TIMEOUT):
                        await terminal.eof.wait()
                    self._exited(terminal, status)
                    # A descendant may hold the terminal open and still print.
                    await terminal.eof.wait()
                    group.cancel_scope.cancel()
        except Exception:  # never let one terminal take the connection down
            log.exception("terminal %s failed", terminal.terminal_id)
        finally:
            with anyio.CancelScope(shield=True):
                await process.aclose()
                terminal.eof.set()
                self._exited(terminal, process.exit_status or ExitStatus())
                terminal.done.set()

    async def _pump(self, terminal: _Terminal) -> None:
        """Read the command's output into the terminal, until it ends."""
        try:
            while data := await terminal.process.read():
                self._received(terminal, data)
        except OSError as error:
            log.warning("reading terminal %s failed: %s", terminal.terminal_id, error)
        finally:
            terminal.eof.set()

    def _received(self, terminal: _Terminal, data: bytes) -> None:
        terminal.retained += data
        if cut_to_limit(terminal.retained, terminal.limit):
            terminal.truncated = True
        terminal.pending += data
        if len(terminal.pending) >= STORE_FLUSH_BYTES:
            self._flush(terminal)
        else:
            terminal.pending_ready.set()

    async def _feed_store(self, terminal: _Terminal) -> None:
        """Hand output to the store in batches, at most one per flush interval."""
        while True:
            await terminal.pending_ready.wait()
            await anyio.sleep(STORE_FLUSH_INTERVAL)  # gather what arrives meanwhile
            terminal.pending_ready = anyio.Event()
            self._flush(terminal)

    def _flush(self, terminal: _Terminal) -> None:
        if terminal.pending:
            data = bytes(terminal.pending)
            terminal.pending.clear()
            self.store.apply(ops.AppendTerminalOutput(terminal.terminal_id, data))

    def _exited(self, terminal: _Terminal, status: ExitStatus) -> None:
        """Record the exit status once: output first, then the status."""
        self._flush(terminal)
        if terminal.exit_status is not None:
            return
        terminal.exit_status = status
        self.store.apply(
            ops.PatchTerminal(terminal.terminal_id, exit_status=status.to_json())
        )
        terminal.exited.set()


def _checked_env(env: Mapping[str, str]) -> dict[str, str]:
    for name, value in env.items():
        if not name or "=" in name or "\0" in name or "\0" in value:
            raise RpcError(
                INVALID_PARAMS,
                "Invalid environment variable (empty name, or `=` or NUL in it)",
                {"name": name},
            )
    return dict(env)


def _check_argv(command: str, args: Sequence[str]) -> None:
    if not command.strip():
        raise RpcError(INVALID_PARAMS, "The command is empty")
    if "\0" in command or any("\0" in arg for arg in args):
        raise RpcError(INVALID_PARAMS, "The command contains a NUL character")
