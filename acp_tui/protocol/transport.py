r"""Byte-line transports for ACP: an agent subprocess over stdio, and an in-memory pair.

A transport moves *lines* (one JSON-RPC message each) and knows nothing about JSON:
`receive()` returns the raw bytes of one line (or `OversizedLine`), `send()` writes a
line that already ends in `\n`. Decoding is the dispatcher's job
(`framing.decode_line`).

Invariants:

* **Framing is shared.** Both transports split incoming bytes with
  `framing.LineReader`, so the in-memory pair exercises exactly the code path of a
  real process (partial lines, invalid UTF-8, oversized lines).
* **End of stream is an exception, closed input is another.** `receive()` raises
  `anyio.EndOfStream` once the peer is gone and every buffered line was returned.
  `send()` raises `ConnectionClosed` (never `BrokenPipeError` or an anyio resource
  error) when the peer no longer reads; its `reason` says how the agent ended.
* **One reader, many writers.** `receive()` must be called from a single task at a
  time (the dispatcher's read loop). `send()` may be called concurrently: writes are
  serialised by a lock so lines never interleave.
* **The agent is a process group.** `StdioTransport` starts the agent with
  `start_new_session=True`, so the agent and everything it spawns (npx spawns node,
  which spawns the real agent) share one process group, and shutdown signals the
  whole group. Nothing is left behind unless a descendant deliberately leaves the
  group (`setsid`), which no transport can track.
* **stderr never blocks and never grows.** A background task drains the agent's
  stderr continuously, keeps the last N lines (each capped) in a ring buffer for
  error messages, and appends the raw bytes to a per-run log file. The log holds
  at most `LOG_FILE_MAX_BYTES` of a run's stderr, then a mark; when the run ends,
  the mark says how much was not logged and the last lines (the ring buffer)
  follow, since the end of a flood is what explains a crash.
* **Agent logs are private and few.** Each log is created 0600, its directory
  0700 if acp-tui creates it (`acp_tui.storage.private_files`). Opening one prunes the
  directory: the newest `LOG_FILES_KEPT` logs of that agent name are kept, and
  any agent log older than `LOG_MAX_AGE` goes.
* **Shutdown is bounded and shielded** (ARCHITECTURE §4.13): leaving the context
  manager, normally or by exception or cancellation, runs close stdin → wait →
  SIGTERM to the group → wait → SIGKILL to the group → wait, under
  `CancelScope(shield=True)`, each step bounded by a module-level timeout. The worst
  case is the sum of those timeouts (under ten seconds); it never hangs.
"""

from __future__ import annotations

import codecs
import collections
import fcntl
import os
import re
import shlex
import signal
import sys
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from subprocess import PIPE
from types import TracebackType
from typing import TYPE_CHECKING, BinaryIO, Final, Protocol, Self

import anyio
import anyio.lowlevel
import anyio.to_thread
from anyio.abc import AsyncResource, ByteReceiveStream, Process, TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from acp_tui.process_group import group_alive, signal_group, start_in_new_group
from acp_tui.protocol.framing import (
    DEFAULT_MAX_LINE_BYTES,
    Line,
    LineReader,
    OversizedLine,
)
from acp_tui.storage import paths

if TYPE_CHECKING:
    from acp_tui.protocol.remote.target import RemoteTarget

__all__ = [
    "DEFAULT_MEMORY_BUFFER_CHUNKS",
    "GROUP_TERMINATE_TIMEOUT",
    "LOG_FILES_KEPT",
    "LOG_FILE_MAX_BYTES",
    "LOG_MAX_AGE",
    "PROCESS_EXIT_TIMEOUT",
    "PROCESS_KILL_TIMEOUT",
    "PROCESS_TERMINATE_TIMEOUT",
    "STDERR_DRAIN_TIMEOUT",
    "STDERR_LINE_MAX_CHARS",
    "AgentCommand",
    "AgentStartError",
    "ConnectionClosed",
    "MemoryEndpoint",
    "MessageStream",
    "StdioTransport",
    "describe_returncode",
    "memory_pair",
]

# --- Shutdown timeouts (seconds). Worst case total: about 9.5 s. ---------------------

STDIN_CLOSE_TIMEOUT: Final = 0.5
"""Closing our end of the agent's stdin. It only releases a file descriptor, so this
bound is a guard against a wedged write, not a wait anyone should ever hit."""

PROCESS_EXIT_TIMEOUT: Final = 2.0
"""After stdin is closed: a well-behaved agent sees end of input, flushes and exits on
its own (ACP checklist §4.1.8). Long enough for a Node agent to wind down."""

PROCESS_TERMINATE_TIMEOUT: Final = 2.0
"""After SIGTERM to the process group: time for signal handlers to clean up."""

PROCESS_KILL_TIMEOUT: Final = 2.0
"""After SIGKILL to the process group: the kernel reaps almost at once; this only
bounds the wait for a process stuck in uninterruptible sleep, which nothing can kill."""

GROUP_TERMINATE_TIMEOUT: Final = 1.0
"""Once the leader has exited, grace for leftover group members (grandchildren) after
SIGTERM before they get SIGKILL."""

GROUP_POLL_INTERVAL: Final = 0.02
"""How often to check whether leftover group members are gone. They are not our
children, so there is nothing to wait on: polling `killpg(pgid, 0)` is the only way."""

STDERR_DRAIN_TIMEOUT: Final = 1.0
"""After the leader exited: time to read the last of stderr (usually the crash
message). A surviving descendant may hold the pipe open forever, hence the bound."""

PIPE_CLOSE_TIMEOUT: Final = 1.0
"""Closing the pipes of an exited process: immediate in practice; bounded anyway."""

SEND_FAILURE_EXIT_GRACE: Final = 0.5
"""When a write to stdin fails the agent is usually exiting: wait this long for its
exit status so that `ConnectionClosed.reason` can say how it ended."""

# --- Sizes. ------------------------------------------------------------------------

STDERR_READ_SIZE: Final = 64 * 1024
"""Bytes asked of the stderr pipe per read (the Linux pipe buffer size)."""

STDOUT_PIPE_SIZE: Final = 1024 * 1024
"""Capacity asked for the agent's stdout pipe (Linux `F_SETPIPE_SZ`; at most
`/proc/sys/fs/pipe-max-size`, 1 MiB by default; elsewhere the system's default).
With the default 64 KiB, an agent that floods (terminal output, a replay) fills
the pipe after a dozen 5 KB lines and waits for acp-tui to read them: a context
switch both ways per 64 KiB, which on a two-core machine held bench/terminal.py's
10 MB to about 15 MB/s; with 1 MiB, about 29 MB/s."""

STDERR_LINE_MAX_CHARS: Final = 4096
"""Longest stderr line kept in the ring buffer; longer lines are cut and marked. The
log file always gets the raw bytes."""

LOG_FILE_MAX_BYTES: Final = 10 * 1024 * 1024
"""Per-run cap on the stderr log file, so a runaway agent cannot fill the disk. Past
it, a marker line is written and further stderr only reaches the ring buffer (whose
lines end the log when the run ends)."""

LOG_FILES_KEPT: Final = 20
"""Stderr logs kept per agent name (the newest; opening a new one prunes the rest)."""

LOG_MAX_AGE: Final = 30 * 24 * 3600.0
"""Agent stderr logs older than this (seconds) are deleted when any agent starts."""

DEFAULT_MEMORY_BUFFER_CHUNKS: Final = 64
"""Chunks a `memory_pair` direction buffers before `send` waits for the reader (like
a pipe's buffer; one `send` is one chunk)."""

_TRUNCATED_MARK: Final = " […truncated]"
_UNSAFE_NAME_CHARS: Final = re.compile(r"[^A-Za-z0-9._-]+")
_LOG_STAMP: Final = r"-\d{8}-\d{6}-\d+\.log"
_ANY_AGENT_LOG: Final = re.compile(r"agent-.+" + _LOG_STAMP)


class ConnectionClosed(Exception):
    """The peer no longer accepts input: its stdin is closed, or it has exited."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        """Human-readable cause, e.g. "agent 'claude' exited with code 1"."""


class MessageStream(Protocol):
    r"""A duplex link carrying one message per `\n`-terminated line.

    `receive` is for a single reader task; `send` is safe to call concurrently.
    """

    async def receive(self) -> Line | OversizedLine:
        r"""Return the next line without its `\n`, or `OversizedLine`.

        Raises:
            anyio.EndOfStream: The peer is gone and every buffered line was returned.
        """
        ...

    async def send(self, line: bytes) -> None:
        r"""Write one line, which must end with its single `\n`.

        Raises:
            ConnectionClosed: The peer no longer reads (closed, broken or exited).
            ValueError: `line` does not end with `\n` or holds another newline.
        """
        ...

    async def aclose(self) -> None:
        """Close the link. Idempotent."""
        ...


def _check_line(line: bytes) -> None:
    """Reject a line that would break framing (missing or embedded newline)."""
    if not line or line.find(b"\n") != len(line) - 1:
        raise ValueError("a message line must end with one '\\n' and contain no other")


# --- In-memory pair. ---------------------------------------------------------------


class _ChunkStream(ByteReceiveStream):
    """Adapt a memory object stream of byte chunks to `ByteReceiveStream`.

    Chunks bigger than `max_bytes` are handed out in slices through an offset (no
    quadratic re-copying of the remainder).
    """

    def __init__(self, stream: MemoryObjectReceiveStream[bytes]) -> None:
        self._stream = stream
        self._chunk = b""
        self._offset = 0

    async def receive(self, max_bytes: int = 65536) -> bytes:
        if self._offset >= len(self._chunk):
            self._chunk = await self._stream.receive()
            self._offset = 0
        else:
            await anyio.lowlevel.checkpoint()
        if self._offset == 0 and len(self._chunk) <= max_bytes:
            self._offset = len(self._chunk)
            return self._chunk
        start = self._offset
        self._offset = min(start + max_bytes, len(self._chunk))
        return self._chunk[start : self._offset]

    async def aclose(self) -> None:
        self._chunk = b""
        self._offset = 0
        await self._stream.aclose()


class MemoryEndpoint(AsyncResource):
    """One end of an in-process duplex link made by `memory_pair()`.

    Implements `MessageStream`. Bytes sent here go, as chunks, through an anyio memory
    object stream to the other end, where a `LineReader` splits them into lines, as
    it would a process's stdout. Use it as an async context manager (an anyio
    `AsyncResource`: leaving it calls `aclose()`), or call `aclose()`: anyio warns
    about memory streams that are never closed.
    """

    def __init__(
        self,
        send_stream: MemoryObjectSendStream[bytes],
        receive_stream: MemoryObjectReceiveStream[bytes],
        *,
        max_line_bytes: int,
    ) -> None:
        self._send_stream = send_stream
        self._chunks = _ChunkStream(receive_stream)
        self._reader = LineReader(self._chunks, max_line_bytes=max_line_bytes)

    async def receive(self) -> Line | OversizedLine:
        """Return the next line from the other end (see `MessageStream.receive`).

        Raises:
            anyio.EndOfStream: The other end was closed and its lines were all read.
        """
        return await self._reader.receive()

    def receive_ready(self) -> Line | None:
        """The next line if it is read already, without waiting; else None."""
        return self._reader.receive_ready()

    async def send(self, line: bytes) -> None:
        r"""Send one `\n`-terminated line to the other end.

        Raises:
            ConnectionClosed: Either end has been closed.
            ValueError: `line` does not end with exactly one `\n`.
        """
        _check_line(line)
        await self.send_raw(line)

    async def send_raw(self, data: bytes) -> None:
        """Send arbitrary bytes, unchecked: partial lines, garbage, invalid UTF-8.

        Raises:
            ConnectionClosed: Either end has been closed.
        """
        if not data:
            await anyio.lowlevel.checkpoint()
            return
        try:
            await self._send_stream.send(bytes(data))
        except anyio.BrokenResourceError:
            raise ConnectionClosed(
                "the other end of the memory link is closed"
            ) from None
        except anyio.ClosedResourceError:
            raise ConnectionClosed("this end of the memory link is closed") from None

    async def aclose(self) -> None:
        """Close both directions of this end. Idempotent.

        The other end's `receive()` returns the lines already sent, then raises
        `anyio.EndOfStream`; its `send()` raises `ConnectionClosed`.
        """
        self._send_stream.close()
        await self._chunks.aclose()


def memory_pair(
    *,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    buffer_chunks: int = DEFAULT_MEMORY_BUFFER_CHUNKS,
) -> tuple[MemoryEndpoint, MemoryEndpoint]:
    """Create an in-process duplex link for tests and in-process peers.

    Typical use: `client_end, agent_end = memory_pair()`.

    Args:
        max_line_bytes: Line limit of each end's `LineReader`.
        buffer_chunks: Chunks buffered per direction before `send` waits.

    Returns:
        Two connected endpoints: what one sends, the other receives.
    """
    a_to_b_send, a_to_b_receive = anyio.create_memory_object_stream[bytes](
        buffer_chunks
    )
    b_to_a_send, b_to_a_receive = anyio.create_memory_object_stream[bytes](
        buffer_chunks
    )
    a = MemoryEndpoint(a_to_b_send, b_to_a_receive, max_line_bytes=max_line_bytes)
    b = MemoryEndpoint(b_to_a_send, a_to_b_receive, max_line_bytes=max_line_bytes)
    return a, b


# --- Agent subprocess. --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AgentCommand:
    """How to start an agent process."""

    argv: tuple[str, ...]
    """Program and arguments, e.g. `("npx", "-y", "@zed-industries/claude-code-acp")`.
    Never run through a shell."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Variables added to (and overriding) the inherited `os.environ`."""
    cwd: Path | None = None
    """Working directory of the agent; None inherits ours."""
    remote: RemoteTarget | None = None
    """A remote agent (a URL, `acp_tui.protocol.remote`): nothing is started,
    `argv` is just the URL, and `AgentLauncher` connects instead."""

    def display(self) -> str:
        """The command line, shell-quoted, for messages (a remote agent's URL)."""
        if self.remote is not None:
            return self.remote.url
        return shlex.join(self.argv)


class AgentStartError(Exception):
    """The agent process could not be started.

    Raised for a missing program, a lack of permission, a bad working directory and
    the like. The message names the agent and its command line.
    """

    def __init__(self, name: str, command: AgentCommand, reason: str) -> None:
        super().__init__(f"cannot start agent {name!r} ({command.display()}): {reason}")
        self.name = name
        """The transport's agent name."""
        self.command = command
        """The command that failed."""
        self.reason = reason
        """Why, e.g. "No such file or directory: 'claude-acp'"."""


def describe_returncode(returncode: int | None) -> str:
    """Describe a `Process.returncode` for people.

    Args:
        returncode: None (running), an exit code, or minus a signal number.

    Returns:
        "still running", "exited with code 3" or "killed by signal SIGKILL (9)".
    """
    if returncode is None:
        return "still running"
    if returncode >= 0:
        return f"exited with code {returncode}"
    number = -returncode
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"killed by signal {number}"
    return f"killed by signal {name} ({number})"


def _cap_line(line: str) -> str:
    """Strip a trailing CR and cut a line to `STDERR_LINE_MAX_CHARS`, marking cuts."""
    if line.endswith("\r"):
        line = line[:-1]
    if len(line) > STDERR_LINE_MAX_CHARS:
        return line[:STDERR_LINE_MAX_CHARS] + _TRUNCATED_MARK
    return line


def _open_log(directory: Path, name: str, pid: int) -> tuple[Path, BinaryIO]:
    """Create a fresh private log file for one agent run, and prune older logs."""
    # Imported here: it brings `logging.handlers` (and `pickle`), which a process
    # that never starts an agent (the demo agent: issue 28, start-up CPU) skips.
    from acp_tui.storage.private_files import open_private, prune_files

    safe_name = _UNSAFE_NAME_CHARS.sub("_", name).strip("._") or "agent"
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    path = directory / f"agent-{safe_name}-{stamp}-{pid}.log"
    file = open(open_private(path), "ab")  # noqa: SIM115 (kept open for the run)
    same_agent = re.compile(f"agent-{re.escape(safe_name)}{_LOG_STAMP}")
    prune_files(directory, same_agent, keep=LOG_FILES_KEPT)
    prune_files(directory, _ANY_AGENT_LOG, keep=sys.maxsize, max_age=LOG_MAX_AGE)
    return path, file


def _log_limit_mark() -> bytes:
    return (
        f"\n[acp-tui: stderr log limit reached ({LOG_FILE_MAX_BYTES} bytes); "
        "the rest is not logged, except its last lines at the end]\n"
    ).encode()


class _PipeReader(ByteReceiveStream):
    """The non-blocking read end of a pipe, read when the event loop says so.

    `anyio.wait_readable` waits for data. The agent's stdout is a pipe made here
    rather than by `anyio.open_process`, so that its capacity can be raised
    (`STDOUT_PIPE_SIZE`).
    """

    def __init__(self, fd: int) -> None:
        os.set_blocking(fd, False)
        self._fd = fd

    async def receive(self, max_bytes: int = 65536) -> bytes:
        while True:
            if self._fd < 0:
                raise anyio.ClosedResourceError
            try:
                data = os.read(self._fd, max_bytes)
            except BlockingIOError:
                await anyio.wait_readable(self._fd)
                continue
            if not data:
                raise anyio.EndOfStream
            # A checkpoint even when data was there at once: an agent that writes
            # without pause (an endless line being discarded) must not starve the
            # event loop, as a read that never waits would.
            await anyio.lowlevel.checkpoint()
            return data

    async def aclose(self) -> None:
        fd, self._fd = self._fd, -1
        if fd >= 0:
            anyio.notify_closing(fd)  # a pending receive() ends, not hangs
            os.close(fd)
        await anyio.lowlevel.checkpoint()


def _stdout_pipe() -> tuple[int, int]:
    """A pipe for the agent's stdout, as large as allowed: (read end, write end)."""
    read_end, write_end = os.pipe()
    set_size = getattr(fcntl, "F_SETPIPE_SZ", None)
    if set_size is not None:
        # Refused above the system's maximum for an unprivileged user: the pipe
        # keeps its default size then.
        with suppress(OSError):
            fcntl.fcntl(write_end, set_size, STDOUT_PIPE_SIZE)
    return read_end, write_end


class StdioTransport:
    """Run an agent as a subprocess and talk to it over its stdin and stdout.

    Use as `async with StdioTransport(command, name="claude") as stream:`; the
    transport itself is the `MessageStream` it yields. Leaving the block shuts the
    agent down (bounded, shielded; see the module docstring). `aclose()` does the same
    early; it is idempotent.

    Args:
        command: What to run.
        name: Short agent name, used in messages and in the log file name.
        stderr_lines: How many of the last stderr lines `stderr_tail()` keeps.
        log_dir: Where the stderr log goes; defaults to `paths.log_dir()`.
        max_line_bytes: Longest accepted stdout line (see `framing.LineReader`).
    """

    def __init__(
        self,
        command: AgentCommand,
        *,
        name: str,
        stderr_lines: int = 500,
        log_dir: Path | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    ) -> None:
        if stderr_lines < 0:
            raise ValueError("stderr_lines must not be negative")
        self.command = command
        """The command this transport runs."""
        self.name = name
        """The agent's short name."""
        self._log_dir = log_dir
        self._max_line_bytes = max_line_bytes
        self._process: Process | None = None
        self._stdout: _PipeReader | None = None
        self._reader: LineReader | None = None
        self._task_group: TaskGroup | None = None
        self._send_lock = anyio.Lock()
        self._stdin_closed = False
        self._entered = False
        self._shutdown_done = False
        self._stderr_done = anyio.Event()
        self._stderr_ring: collections.deque[str] = collections.deque(
            maxlen=stderr_lines
        )
        self._stderr_partial = ""
        self._log_path: Path | None = None
        self._log_file: BinaryIO | None = None
        self._log_written = 0
        self._log_skipped = 0
        """stderr bytes past `LOG_FILE_MAX_BYTES`, not written to the log."""

    # -- public state ------------------------------------------------------------

    @property
    def pid(self) -> int:
        """The agent's process id (also its process group id).

        Raises:
            RuntimeError: The transport has not been started.
        """
        return self._require_process().pid

    @property
    def returncode(self) -> int | None:
        """Exit code, minus the signal number if killed, or None while running."""
        return None if self._process is None else self._process.returncode

    @property
    def log_path(self) -> Path | None:
        """The stderr log file of this run, or None if it could not be created."""
        return self._log_path

    def exit_description(self) -> str:
        """How the agent ended, for messages.

        Returns:
            "exited with code 3", "killed by signal SIGKILL (9)", "still running" or
            "not started".
        """
        if self._process is None:
            return "not started"
        return describe_returncode(self._process.returncode)

    def stderr_tail(self) -> list[str]:
        """The last stderr lines, oldest first.

        Lines are decoded as UTF-8 with replacement and capped at
        `STDERR_LINE_MAX_CHARS`; a final line without its newline is included. They
        are raw text: they may hold terminal escape sequences, so sanitise them
        before display.
        """
        tail = list(self._stderr_ring)
        if self._stderr_partial:
            tail.append(_cap_line(self._stderr_partial))
            maxlen = self._stderr_ring.maxlen or 0
            tail = tail[len(tail) - maxlen :] if len(tail) > maxlen else tail
        return tail

    async def wait_exit(self, timeout: float) -> int | None:  # noqa: ASYNC109
        # A bounded wait is the point of this method: callers poll for an exit
        # status (after EndOfStream) without wrapping every call in a cancel scope.
        """Wait at most `timeout` seconds for the agent to exit.

        Returns:
            The return code, or None if the agent is still running.
        """
        process = self._require_process()
        with anyio.move_on_after(timeout):
            await process.wait()
        return process.returncode

    # -- context manager ---------------------------------------------------------

    async def __aenter__(self) -> Self:
        if self._entered:
            raise RuntimeError("a StdioTransport can only be started once")
        self._entered = True
        process = await self._spawn()
        self._process = process
        try:
            assert self._stdout is not None
            self._reader = LineReader(self._stdout, max_line_bytes=self._max_line_bytes)
            log_dir = self._log_dir if self._log_dir is not None else paths.log_dir()
            try:
                self._log_path, self._log_file = await anyio.to_thread.run_sync(
                    _open_log, log_dir, self.name, process.pid
                )
            except OSError:
                self._log_path, self._log_file = None, None
            task_group = anyio.create_task_group()
            await task_group.__aenter__()
            self._task_group = task_group
            task_group.start_soon(self._pump_stderr, name=f"agent {self.name} stderr")
        except BaseException:
            with anyio.CancelScope(shield=True):
                await self._shutdown()
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            with anyio.CancelScope(shield=True):
                await self._shutdown()
        finally:
            task_group = self._task_group
            self._task_group = None
            if task_group is not None:
                # The group only holds the stderr reader, which shutdown has stopped
                # (or which is cut short here). The body's exception is not handed to
                # the group, so it propagates as itself, not inside an ExceptionGroup.
                task_group.cancel_scope.cancel()
                await task_group.__aexit__(None, None, None)

    async def aclose(self) -> None:
        """Shut the agent down now (bounded, shielded). Idempotent.

        `receive()` then raises `anyio.EndOfStream` and `send()` `ConnectionClosed`.
        The context manager still has to be exited to reap the stderr task.
        """
        if self._process is not None:
            with anyio.CancelScope(shield=True):
                await self._shutdown()

    # -- MessageStream -----------------------------------------------------------

    async def receive(self) -> Line | OversizedLine:
        r"""Return the next line from the agent's stdout (without its `\n`).

        Raises:
            anyio.EndOfStream: stdout is closed (the agent exited) and drained.
        """
        if self._reader is None:
            raise RuntimeError("the transport has not been started")
        return await self._reader.receive()

    def receive_ready(self) -> Line | None:
        """The next line if it is read already, without waiting; else None.

        (`LineReader.receive_ready`: the dispatcher's read loop asks this first.)
        """
        reader = self._reader
        return None if reader is None else reader.receive_ready()

    async def send(self, line: bytes) -> None:
        r"""Write one `\n`-terminated line to the agent's stdin.

        Raises:
            ConnectionClosed: stdin is closed, by us or because the agent exited.
            ValueError: `line` does not end with exactly one `\n`.
        """
        _check_line(line)
        process = self._require_process()
        assert process.stdin is not None
        async with self._send_lock:
            if self._stdin_closed:
                raise ConnectionClosed(self._closed_reason())
            try:
                await process.stdin.send(line)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                pass
            else:
                return
            if process.returncode is None and not self._stdin_closed:
                with anyio.move_on_after(SEND_FAILURE_EXIT_GRACE):
                    await process.wait()
            raise ConnectionClosed(self._closed_reason())

    # -- internals ---------------------------------------------------------------

    def _require_process(self) -> Process:
        if self._process is None:
            raise RuntimeError("the transport has not been started")
        return self._process

    def _closed_reason(self) -> str:
        if self._process is not None and self._process.returncode is not None:
            return f"agent {self.name!r} {self.exit_description()}"
        if self._stdin_closed:
            return f"the connection to agent {self.name!r} was closed"
        return f"agent {self.name!r} closed its input (process still running)"

    def _start_error(self, reason: str) -> AgentStartError:
        return AgentStartError(self.name, self.command, reason)

    async def _spawn(self) -> Process:
        command = self.command
        if not command.argv:
            raise self._start_error("empty command")
        if command.cwd is not None and not await anyio.Path(command.cwd).is_dir():
            raise self._start_error(f"working directory {str(command.cwd)!r} not found")
        env = {**os.environ, **command.env}
        read_end = write_end = -1
        started = False
        try:
            read_end, write_end = _stdout_pipe()
            # Shielded (see `start_in_new_group`): a cancellation during the start
            # reaches the checkpoint after it, where `__aenter__` shuts down.
            process = await start_in_new_group(
                command.argv,
                cwd=command.cwd,
                env=env,
                stdin=PIPE,
                stdout=write_end,
                stderr=PIPE,
            )
            started = True
        except OSError as error:
            if error.strerror and error.filename is not None:
                reason = f"{error.strerror}: {str(error.filename)!r}"
            else:
                reason = error.strerror or str(error)
            raise self._start_error(reason) from error
        except ValueError as error:  # e.g. a NUL byte in an argument
            raise self._start_error(str(error)) from error
        finally:
            if write_end >= 0:
                os.close(write_end)  # the agent has its copy: EOF when it closes it
            if not started and read_end >= 0:
                os.close(read_end)  # failed or cancelled: nothing will read it
        self._stdout = _PipeReader(read_end)
        return process

    async def _pump_stderr(self) -> None:
        """Drain stderr into the ring buffer and the log until EOF (or closing)."""
        process = self._require_process()
        stream = process.stderr
        assert stream is not None
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        try:
            while True:
                try:
                    chunk = await stream.receive(STDERR_READ_SIZE)
                except (
                    anyio.EndOfStream,
                    anyio.ClosedResourceError,
                    anyio.BrokenResourceError,
                ):
                    break
                self._write_log(chunk)
                self._feed_stderr(decoder.decode(chunk))
            self._feed_stderr(decoder.decode(b"", final=True))
            if self._stderr_partial:
                self._stderr_ring.append(_cap_line(self._stderr_partial))
                self._stderr_partial = ""
        finally:
            self._stderr_done.set()

    def _feed_stderr(self, text: str) -> None:
        """Split decoded stderr text into lines for the ring buffer.

        Only the last `maxlen` complete lines of a chunk are even looked at, and the
        pending partial line is kept to at most one character past the cap, so a
        flood costs bounded memory and little CPU.
        """
        if not text:
            return
        pieces = text.split("\n")
        limit = STDERR_LINE_MAX_CHARS + 1
        if len(pieces) == 1:
            room = limit - len(self._stderr_partial)
            if room > 0:
                self._stderr_partial += text[:room]
            return
        first = self._stderr_partial + pieces[0][:limit]
        complete = [first, *pieces[1:-1]]
        maxlen = self._stderr_ring.maxlen or 0
        if len(complete) > maxlen:
            complete = complete[len(complete) - maxlen :]
        self._stderr_ring.extend(_cap_line(line) for line in complete)
        self._stderr_partial = pieces[-1][:limit]

    def _write_log(self, chunk: bytes) -> None:
        """Append raw stderr to the log file, up to `LOG_FILE_MAX_BYTES`."""
        log = self._log_file
        if log is None:
            return
        try:
            room = LOG_FILE_MAX_BYTES - self._log_written
            if self._log_skipped:
                self._log_skipped += len(chunk)
            elif len(chunk) <= room:
                log.write(chunk)
                self._log_written += len(chunk)
            else:
                log.write(chunk[:room])
                log.write(_log_limit_mark())
                log.flush()
                self._log_written += room
                self._log_skipped = len(chunk) - room
        except (OSError, ValueError):  # disk full, file closed...: stop logging
            self._log_file = None
            with suppress(OSError, ValueError):
                log.close()

    def _close_log(self) -> None:
        log = self._log_file
        self._log_file = None
        if log is not None:
            with suppress(OSError, ValueError):
                if self._log_skipped:
                    tail = self.stderr_tail()
                    log.write(
                        f"[acp-tui: {self._log_skipped} bytes were not logged; "
                        f"the last {len(tail)} lines follow]\n".encode()
                    )
                    log.write("".join(f"{line}\n" for line in tail).encode())
                log.close()

    def _signal_group(self, sig: signal.Signals) -> None:
        """Send `sig` to the agent's whole process group; ignore a vanished group."""
        signal_group(self._require_process(), sig)

    def _group_alive(self) -> bool:
        """Whether any live process is left in the agent's group."""
        return group_alive(self._require_process().pid)

    async def _wait_leader(self, seconds: float) -> bool:
        process = self._require_process()
        with anyio.move_on_after(seconds):
            await process.wait()
        return process.returncode is not None

    async def _shutdown(self) -> None:
        """Stop the agent and everything it spawned. Call under a shielded scope."""
        if self._shutdown_done or self._process is None:
            return
        self._shutdown_done = True
        process = self._process
        try:
            self._stdin_closed = True
            if process.stdin is not None:
                with anyio.move_on_after(STDIN_CLOSE_TIMEOUT), suppress(Exception):
                    await process.stdin.aclose()

            killed = False
            if not await self._wait_leader(PROCESS_EXIT_TIMEOUT):
                self._signal_group(signal.SIGTERM)
                if not await self._wait_leader(PROCESS_TERMINATE_TIMEOUT):
                    self._signal_group(signal.SIGKILL)
                    killed = True
                    await self._wait_leader(PROCESS_KILL_TIMEOUT)

            # The leader is gone; its descendants may not be (npx's children, or
            # anything that ignored SIGTERM).
            if self._group_alive():
                if not killed:
                    self._signal_group(signal.SIGTERM)
                    with anyio.move_on_after(GROUP_TERMINATE_TIMEOUT):
                        # Not our children: no exit event exists, so poll.
                        while self._group_alive():  # noqa: ASYNC110
                            await anyio.sleep(GROUP_POLL_INTERVAL)
                if self._group_alive():
                    self._signal_group(signal.SIGKILL)

            if self._task_group is not None:
                with anyio.move_on_after(STDERR_DRAIN_TIMEOUT):
                    await self._stderr_done.wait()
        finally:
            await self._close_pipes(process)
            self._close_log()

    async def _close_pipes(self, process: Process) -> None:
        """Close all three pipes; `receive()` then ends with `EndOfStream`."""
        with anyio.move_on_after(PIPE_CLOSE_TIMEOUT):
            if self._stdout is not None:
                await self._stdout.aclose()
            if process.returncode is not None:
                # Also closes the underlying pipe transports (no ResourceWarning).
                with suppress(Exception):
                    await process.aclose()
                return
            for stream in (process.stdin, process.stdout, process.stderr):
                if stream is not None:
                    with suppress(Exception):
                        await stream.aclose()
