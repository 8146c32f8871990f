"""StdioTransport against real fake-agent processes (tests/fakes/procs/*.py).

No sleeps are used for synchronisation: every wait is on a line from the child or on
its exit, bounded by `anyio.fail_after`. The only polling is for the death of a
grandchild, which is not our child and so offers nothing to wait on.
"""

from __future__ import annotations

import hashlib
import os
import re
import signal
import sys
import time
from pathlib import Path

import anyio
import pytest

from acp_tui.protocol import transport as transport_module
from acp_tui.protocol.framing import Line, OversizedLine
from acp_tui.protocol.transport import (
    STDERR_LINE_MAX_CHARS,
    AgentCommand,
    AgentStartError,
    ConnectionClosed,
    MessageStream,
    StdioTransport,
    describe_returncode,
)
from tests.processes import running

pytestmark = pytest.mark.subprocess

PROCS = Path(__file__).resolve().parent.parent / "fakes" / "procs"
TIMEOUT = 10
"""Bound for ordinary steps (start, a few lines, a clean shutdown)."""

SHUTDOWN_BOUND = (
    transport_module.STDIN_CLOSE_TIMEOUT
    + transport_module.PROCESS_EXIT_TIMEOUT
    + transport_module.PROCESS_TERMINATE_TIMEOUT
    + transport_module.PROCESS_KILL_TIMEOUT
    + transport_module.GROUP_TERMINATE_TIMEOUT
    + transport_module.STDERR_DRAIN_TIMEOUT
    + transport_module.PIPE_CLOSE_TIMEOUT
    + 3.0  # scheduling slack on a loaded CI machine
)
"""The most a shutdown may take: the sum of the module's bounded steps."""


@pytest.fixture(autouse=True)
def acp_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("ACP_TUI_HOME", str(home))
    return home


def fake(script: str, *args: str, cwd: Path | None = None) -> AgentCommand:
    return AgentCommand((sys.executable, str(PROCS / script), *args), cwd=cwd)


async def receive_line(stream: MessageStream) -> bytes:
    with anyio.fail_after(TIMEOUT):
        line = await stream.receive()
    assert isinstance(line, bytes)
    return line


async def wait_until_gone(pid: int, bound: float = 5.0) -> None:
    with anyio.fail_after(bound):
        # Not our child: there is no exit event to wait on, so poll (bounded).
        while running(pid):  # noqa: ASYNC110
            await anyio.sleep(0.02)


def flood_line(index: int, width: int) -> bytes:
    """What stderr_flood.py writes as line `index` (keep in sync with it)."""
    head = b"%08d " % index
    return head + b"x" * (width - len(head) - 1) + b"\n"


# --- basics ----------------------------------------------------------------------


async def test_round_trip_and_lifecycle(acp_home: Path) -> None:
    transport = StdioTransport(fake("echo.py", "echo is up"), name="echo")
    assert transport.exit_description() == "not started"
    assert transport.returncode is None
    async with transport as stream:
        assert stream is transport
        assert transport.pid > 0
        assert transport.returncode is None
        assert transport.exit_description() == "still running"
        await stream.send(b'{"jsonrpc":"2.0","id":1,"method":"initialize"}\n')
        await stream.send(b"\xff not utf-8\n")
        assert await receive_line(stream) == (
            b'{"jsonrpc":"2.0","id":1,"method":"initialize"}'
        )
        assert await receive_line(stream) == b"\xff not utf-8"
        assert await transport.wait_exit(0.01) is None
    # echo.py exits 0 on end of input: stdin close alone ended it.
    assert transport.returncode == 0
    assert transport.exit_description() == "exited with code 0"
    assert transport.stderr_tail() == ["echo is up"]
    log_path = transport.log_path
    assert log_path is not None
    assert log_path.parent == acp_home / "logs"
    assert re.fullmatch(r"agent-echo-\d{8}-\d{6}-\d+\.log", log_path.name)
    assert log_path.name.endswith(f"-{transport.pid}.log")
    assert log_path.read_bytes() == b"echo is up\n"


async def test_log_dir_argument_and_unsafe_name(tmp_path: Path) -> None:
    logs = tmp_path / "elsewhere" / "logs"
    async with StdioTransport(
        fake("echo.py", "x"), name="../my agent/v2", log_dir=logs
    ) as transport:
        await transport.send(b"hi\n")
        assert await receive_line(transport) == b"hi"
    assert transport.log_path is not None
    assert transport.log_path.parent == logs
    assert transport.log_path.name.startswith("agent-my_agent_v2-")


async def test_stderr_log_is_private_and_old_logs_are_pruned(acp_home: Path) -> None:
    logs = acp_home / "logs"
    logs.mkdir(parents=True)
    now = time.time()
    earlier = []
    for index in range(transport_module.LOG_FILES_KEPT + 5):
        path = logs / f"agent-echo-20240101-0000{index:02d}-{100 + index}.log"
        path.write_bytes(b"old run\n")
        age = (transport_module.LOG_FILES_KEPT + 5 - index) * 60.0  # oldest first
        os.utime(path, (now - age, now - age))
        earlier.append(path)
    similar = logs / "agent-echo_v2-20240101-000000-7.log"  # another agent's
    similar.write_bytes(b"kept\n")
    ancient = logs / "agent-gone-20200101-000000-8.log"
    ancient.write_bytes(b"forgotten\n")
    old = now - transport_module.LOG_MAX_AGE - 86400
    os.utime(ancient, (old, old))
    unrelated = logs / "acp-tui.log"
    unrelated.write_bytes(b"the app's own\n")
    os.utime(unrelated, (old, old))

    old_umask = os.umask(0o022)
    try:
        async with StdioTransport(fake("echo.py", "up"), name="echo") as transport:
            await transport.send(b"hi\n")
            assert await receive_line(transport) == b"hi"
    finally:
        os.umask(old_umask)
    log_path = transport.log_path
    assert log_path is not None
    assert log_path.stat().st_mode & 0o777 == 0o600
    assert log_path.read_bytes() == b"up\n"
    kept = sorted(logs.glob("agent-echo-*.log"))
    assert len(kept) == transport_module.LOG_FILES_KEPT
    assert log_path in kept
    # The newest earlier runs are kept, the oldest go.
    assert set(kept) - {log_path} == set(earlier[-(len(kept) - 1) :])
    assert similar.exists()
    assert not ancient.exists()
    assert unrelated.exists()  # not an agent log: left to its own rotation


async def test_new_log_directory_is_private(tmp_path: Path) -> None:
    logs = tmp_path / "shared" / "logs"
    old_umask = os.umask(0o022)
    try:
        async with StdioTransport(fake("echo.py", "x"), name="e", log_dir=logs) as t:
            await t.send(b"hi\n")
            assert await receive_line(t) == b"hi"
    finally:
        os.umask(old_umask)
    assert logs.stat().st_mode & 0o777 == 0o700


async def test_env_overlay_and_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACP_TUI_TEST_INHERITED", "inherited")
    command = AgentCommand(
        (sys.executable, str(PROCS / "print_env.py"), "ACP_TUI_TEST_VALUE"),
        env={"ACP_TUI_TEST_VALUE": "from the spec"},
        cwd=tmp_path,
    )
    async with StdioTransport(command, name="env") as transport:
        assert Path((await receive_line(transport)).decode()) == tmp_path
        assert await receive_line(transport) == b"from the spec"
    inherited = AgentCommand(
        (sys.executable, str(PROCS / "print_env.py"), "ACP_TUI_TEST_INHERITED")
    )
    async with StdioTransport(inherited, name="env") as transport:
        assert Path((await receive_line(transport)).decode()) == Path.cwd()
        assert await receive_line(transport) == b"inherited"


async def test_concurrent_sends_never_interleave() -> None:
    lines = [bytes([ord("a") + i]) * (64 * 1024 + i) + b"\n" for i in range(20)]
    received: list[bytes] = []
    async with StdioTransport(fake("echo.py"), name="echo") as transport:

        async def read_all() -> None:
            for _ in lines:
                received.append(await receive_line(transport))

        with anyio.fail_after(TIMEOUT):
            async with anyio.create_task_group() as tg:
                tg.start_soon(read_all)
                for line in lines:
                    tg.start_soon(transport.send, line)
    assert sorted(received) == sorted(line[:-1] for line in lines)


async def test_large_line_both_ways_needs_no_deadlock() -> None:
    """8 MiB each way: far beyond the pipe buffers, so reading must go on meanwhile."""
    payload = b"0123456789abcdef" * (512 * 1024)
    async with StdioTransport(fake("echo.py"), name="echo") as transport:
        result: list[Line | OversizedLine] = []

        async def read() -> None:
            result.append(await transport.receive())

        with anyio.fail_after(TIMEOUT):
            async with anyio.create_task_group() as tg:
                tg.start_soon(read)
                await transport.send(payload + b"\n")
    assert result == [payload]


async def test_64_mib_line_from_the_child_arrives_intact() -> None:
    """A 64 MiB line (a big base64 terminal snapshot) arrives whole, in one piece.

    Takes about 0.5-1 s here: one pass of the pipe, one of `LineReader`, one hash.
    """
    size = 64 * 1024 * 1024
    started = time.perf_counter()
    async with StdioTransport(fake("big_line.py", str(size)), name="big") as transport:
        with anyio.fail_after(60):
            line = await transport.receive()
            trailer = await transport.receive()
    elapsed = time.perf_counter() - started
    assert isinstance(line, bytearray)  # long: the reader's buffer, not copied
    assert isinstance(trailer, bytes)
    expected_size, expected_digest = trailer.decode().split()
    assert len(line) == size == int(expected_size)
    assert hashlib.sha256(line).hexdigest() == expected_digest
    del line
    if sys.platform == "linux":
        import resource

        peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        assert peak_kib < 1024 * 1024, f"peak RSS {peak_kib} KiB"
    print(f"64 MiB line received and checked in {elapsed:.2f} s")


@pytest.mark.skipif(sys.platform != "linux", reason="F_SETPIPE_SZ is Linux's")
async def test_the_agents_stdout_pipe_is_enlarged() -> None:
    """A flooding agent fills 1 MiB before it waits for acp-tui, not 64 KiB."""
    allowed = int(await anyio.Path("/proc/sys/fs/pipe-max-size").read_text())
    if allowed < transport_module.STDOUT_PIPE_SIZE:
        pytest.skip(f"pipes are capped at {allowed} bytes here")
    async with StdioTransport(fake("pipe_size.py"), name="pipe") as transport:
        with anyio.fail_after(TIMEOUT):
            size = int(await receive_line(transport))
    assert size == transport_module.STDOUT_PIPE_SIZE


async def test_a_read_that_finds_data_waiting_still_yields() -> None:
    """An agent that writes without pause (an endless line being discarded) must
    not starve the event loop: each read is a checkpoint, data or not."""
    read_end, write_end = os.pipe()
    reader = transport_module._PipeReader(read_end)
    try:
        os.write(write_end, b"x" * 1000)
        others: list[str] = []

        async def other() -> None:
            others.append("ran")

        async with anyio.create_task_group() as group:
            group.start_soon(other)
            assert await reader.receive() == b"x" * 1000
            assert others == ["ran"]  # it ran while the read had data at once
    finally:
        await reader.aclose()
        os.close(write_end)


async def test_oversized_line_from_the_child_is_reported() -> None:
    async with StdioTransport(
        fake("big_line.py", "100000"), name="big", max_line_bytes=1000
    ) as transport:
        with anyio.fail_after(TIMEOUT):
            assert await transport.receive() == OversizedLine(size=100000, limit=1000)
        assert (await receive_line(transport)).startswith(b"100000 ")


# --- stderr ----------------------------------------------------------------------


async def test_stderr_flood_never_blocks_the_child_and_stays_bounded() -> None:
    count, width = 200_000, 100  # 20 MB of stderr, 300x the pipe buffer
    async with StdioTransport(
        fake("stderr_flood.py", str(count), str(width)), name="flood", stderr_lines=50
    ) as transport:
        # The child only writes "done" after its whole flood went through the pipe.
        with anyio.fail_after(30):
            assert await transport.receive() == b"done"
    assert transport.returncode == 0
    expected_tail = [
        flood_line(i, width).decode().rstrip("\n") for i in range(count - 50, count)
    ]
    assert transport.stderr_tail() == expected_tail
    # The log keeps the first LOG_FILE_MAX_BYTES, a mark, and the last lines.
    assert count * width > transport_module.LOG_FILE_MAX_BYTES
    assert transport.log_path is not None
    logged = transport.log_path.read_bytes()
    flood = b"".join(flood_line(i, width) for i in range(count))
    cap = transport_module.LOG_FILE_MAX_BYTES
    assert logged.startswith(flood[:cap])
    rest = logged[cap:].decode()
    skipped = count * width - cap
    assert rest.startswith(f"\n[acp-tui: stderr log limit reached ({cap} bytes)")
    assert f"{skipped} bytes were not logged" in rest
    assert rest.endswith(flood[-50 * width :].decode())
    assert len(logged) < cap + 60 * width


async def test_long_stderr_lines_are_capped_in_the_tail_not_in_the_log() -> None:
    count, width = 3, 100_000
    async with StdioTransport(
        fake("stderr_flood.py", str(count), str(width)), name="long"
    ) as transport:
        assert await receive_line(transport) == b"done"
    tail = transport.stderr_tail()
    assert len(tail) == 3
    for index, line in enumerate(tail):
        assert line.startswith(f"{index:08d} xxx")
        assert line.endswith("[…truncated]")
        assert len(line) < STDERR_LINE_MAX_CHARS + 20
    assert transport.log_path is not None
    assert transport.log_path.stat().st_size == count * width


# --- exits -----------------------------------------------------------------------


async def test_exit_code_is_reported_with_the_stderr_tail() -> None:
    async with StdioTransport(fake("exit_with.py", "code", "3"), name="crash") as t:
        with anyio.fail_after(TIMEOUT), pytest.raises(anyio.EndOfStream):
            await t.receive()
        assert await t.wait_exit(TIMEOUT) == 3
        assert t.exit_description() == "exited with code 3"
    # The last line had no newline: it is kept anyway.
    assert t.stderr_tail() == ["starting", "fatal: boom"]


async def test_death_by_signal_is_described() -> None:
    async with StdioTransport(
        fake("exit_with.py", "signal", "SIGKILL"), name="crash"
    ) as transport:
        assert await transport.wait_exit(TIMEOUT) == -signal.SIGKILL
        assert transport.exit_description() == "killed by signal SIGKILL (9)"


@pytest.mark.parametrize(
    ("returncode", "text"),
    [
        (None, "still running"),
        (0, "exited with code 0"),
        (3, "exited with code 3"),
        (-15, "killed by signal SIGTERM (15)"),
        (-9, "killed by signal SIGKILL (9)"),
        (-999, "killed by signal 999"),
    ],
)
def test_describe_returncode(returncode: int | None, text: str) -> None:
    assert describe_returncode(returncode) == text


async def test_send_after_the_child_exited_raises_connection_closed() -> None:
    async with StdioTransport(fake("exit_with.py", "code", "0"), name="gone") as t:
        assert await t.wait_exit(TIMEOUT) == 0
        with anyio.fail_after(TIMEOUT), pytest.raises(ConnectionClosed) as info:
            await t.send(b'{"jsonrpc":"2.0","method":"ping"}\n')
        assert info.value.reason == "agent 'gone' exited with code 0"


async def test_send_and_receive_after_close() -> None:
    async with StdioTransport(fake("echo.py"), name="echo") as transport:
        await transport.aclose()
        await transport.aclose()  # idempotent
        assert transport.returncode == 0
        with pytest.raises(ConnectionClosed, match="exited with code 0"):
            await transport.send(b"late\n")
        with anyio.fail_after(TIMEOUT), pytest.raises(anyio.EndOfStream):
            await transport.receive()
    with pytest.raises(ConnectionClosed):
        await transport.send(b"later\n")


# --- shutdown --------------------------------------------------------------------


async def test_child_ignoring_sigterm_is_killed_within_the_bound() -> None:
    transport = StdioTransport(fake("ignore_sigterm.py"), name="stubborn")
    with anyio.fail_after(SHUTDOWN_BOUND):
        async with transport:
            assert await receive_line(transport) == b"ready"
            started = time.perf_counter()
    elapsed = time.perf_counter() - started
    assert transport.returncode == -signal.SIGKILL
    assert transport.exit_description() == "killed by signal SIGKILL (9)"
    # It was given its chances: end of input, then SIGTERM, before SIGKILL.
    minimum = (
        transport_module.PROCESS_EXIT_TIMEOUT
        + transport_module.PROCESS_TERMINATE_TIMEOUT
    )
    assert minimum - 0.1 <= elapsed < SHUTDOWN_BOUND
    assert not running(transport.pid)


@pytest.mark.parametrize("mode", ["hang", "exit-on-eof"])
async def test_grandchildren_are_gone_after_shutdown(mode: str) -> None:
    transport = StdioTransport(fake("spawn_grandchild.py", mode), name="npx")
    with anyio.fail_after(SHUTDOWN_BOUND):
        async with transport:
            grandchild = int(await receive_line(transport))
            assert grandchild != transport.pid
            assert running(grandchild)
            assert os.getpgid(grandchild) == transport.pid
    if mode == "hang":
        assert transport.returncode == -signal.SIGTERM
    else:
        assert transport.returncode == 0
    await wait_until_gone(grandchild)
    await wait_until_gone(transport.pid)


async def test_cancellation_still_shuts_the_agent_down() -> None:
    transport = StdioTransport(fake("echo.py"), name="echo")
    with anyio.fail_after(SHUTDOWN_BOUND), anyio.CancelScope() as scope:
        async with transport:
            await transport.send(b"hello\n")
            assert await receive_line(transport) == b"hello"
            scope.cancel()
            await anyio.sleep_forever()
    assert scope.cancelled_caught
    assert transport.returncode == 0


async def test_exception_in_the_body_propagates_after_shutdown() -> None:
    transport = StdioTransport(fake("echo.py"), name="echo")
    with anyio.fail_after(SHUTDOWN_BOUND), pytest.raises(KeyError, match="boom"):
        async with transport:
            raise KeyError("boom")
    assert transport.returncode == 0


async def test_a_transport_starts_only_once() -> None:
    transport = StdioTransport(fake("echo.py"), name="echo")
    async with transport:
        pass
    with pytest.raises(RuntimeError, match="only be started once"):
        await transport.__aenter__()


# --- start failures ---------------------------------------------------------------


async def test_missing_program_is_a_start_error(tmp_path: Path) -> None:
    command = AgentCommand(("acp-tui-no-such-agent-program", "--acp"))
    with pytest.raises(AgentStartError) as info:
        async with StdioTransport(command, name="ghost"):
            pytest.fail("should not start")
    message = str(info.value)
    assert "'ghost'" in message
    assert "acp-tui-no-such-agent-program --acp" in message
    assert "No such file or directory" in message
    assert info.value.command == command
    assert isinstance(info.value.__cause__, FileNotFoundError)


async def test_non_executable_program_is_a_start_error(tmp_path: Path) -> None:
    script = tmp_path / "agent.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o644)
    with pytest.raises(AgentStartError, match="Permission denied") as info:
        async with StdioTransport(AgentCommand((str(script),)), name="noexec"):
            pytest.fail("should not start")
    assert str(script) in str(info.value)


async def test_bad_working_directory_is_a_start_error(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    with pytest.raises(AgentStartError, match="working directory") as info:
        async with StdioTransport(fake("echo.py", cwd=missing), name="lost"):
            pytest.fail("should not start")
    assert str(missing) in str(info.value)


async def test_empty_command_is_a_start_error() -> None:
    with pytest.raises(AgentStartError, match="empty command"):
        async with StdioTransport(AgentCommand(()), name="nothing"):
            pytest.fail("should not start")


def test_paths_follow_acp_tui_home(
    acp_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from acp_tui.storage import paths

    assert paths.config_dir() == acp_home / "config"
    assert paths.data_dir() == acp_home / "data"
    assert paths.log_dir() == acp_home / "logs"
    assert paths.cache_dir() == acp_home / "cache"
    assert paths.user_themes_dir() == acp_home / "config" / "themes"
    monkeypatch.delenv("ACP_TUI_HOME")
    for directory in (paths.config_dir(), paths.data_dir(), paths.log_dir()):
        assert directory.is_absolute()
        assert "acp-tui" in directory.parts
    assert not acp_home.exists()  # computing paths never creates directories
