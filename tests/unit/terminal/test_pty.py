"""`PtyProcess`: commands in a PTY (or pipes), stopped and reaped without orphans.

Real processes (`sh`, `sleep`); every test is bounded by `anyio.fail_after`, and
waits for what the command printed, never for time.
"""

from __future__ import annotations

import logging
import os
import re
import signal
import sys
from pathlib import Path
from typing import Final

import anyio
import pytest
from anyio.abc import AsyncResource

from acp_tui.terminal import pty
from acp_tui.terminal.pty import ExitStatus, PtyProcess, signal_name
from tests.processes import pid_exists, running, spawned_while_cancelled

pytestmark = pytest.mark.subprocess

BOUND: Final = 10
"""Seconds any one test may take."""


async def read_until(process: PtyProcess, marker: bytes) -> bytes:
    """Read until `marker` appears (bounded by the test's `fail_after`)."""
    seen = b""
    while marker not in seen:
        data = await process.read()
        assert data, f"output ended before {marker!r}: {seen!r}"
        seen += data
    return seen


async def read_all(process: PtyProcess) -> bytes:
    seen = b""
    while data := await process.read():
        seen += data
    return seen


def pids_in(output: bytes) -> list[int]:
    match = re.search(rb"pids (\d+) (\d+)", output)
    assert match is not None, output
    return [int(match.group(1)), int(match.group(2))]


GRANDCHILD: Final = "sleep 30 & echo pids $$ $!; sleep 30"
"""A shell that leaves a background grandchild behind; prints both pids."""


async def test_pty_output_keeps_colours_crlf_and_carriage_returns(
    tmp_path: Path,
) -> None:
    with anyio.fail_after(BOUND):
        script = r"printf '\033[32mgreen\033[0m\n10%%\r100%%\n'; exit 3"
        async with await PtyProcess.start(["sh", "-c", script], cwd=tmp_path) as proc:
            assert proc.uses_pty
            output = await read_all(proc)
            status = await proc.wait()
    assert output == b"\x1b[32mgreen\x1b[0m\r\n10%\r100%\r\n"
    assert status == ExitStatus(exit_code=3)
    assert proc.exit_status == ExitStatus(exit_code=3)


async def test_command_sees_a_terminal_of_the_given_size_and_env(
    tmp_path: Path,
) -> None:
    script = '[ -t 1 ] && echo tty; stty size; echo "$TERM $GREETING"; pwd'
    with anyio.fail_after(BOUND):
        async with await PtyProcess.start(
            ["sh", "-c", script],
            cwd=tmp_path,
            env={"GREETING": "hello"},
            cols=100,
            rows=30,
        ) as proc:
            output = await read_all(proc)
            assert await proc.wait() == ExitStatus(exit_code=0)
    lines = output.decode().splitlines()
    real = str(await anyio.Path(tmp_path).resolve())
    assert lines == ["tty", "30 100", "xterm-256color hello", real]


async def test_pipes_fallback_merges_stderr_without_a_tty(tmp_path: Path) -> None:
    script = "[ -t 1 ] || echo no-tty; echo out; echo err >&2"
    with anyio.fail_after(BOUND):
        async with await PtyProcess.start(
            ["sh", "-c", script], cwd=tmp_path, use_pty=False
        ) as proc:
            assert not proc.uses_pty
            output = await read_all(proc)
            assert await proc.wait() == ExitStatus(exit_code=0)
    assert output == b"no-tty\nout\nerr\n"


@pytest.mark.parametrize("use_pty", [True, False], ids=["pty", "pipes"])
async def test_kill_stops_the_whole_group(tmp_path: Path, use_pty: bool) -> None:
    with anyio.fail_after(BOUND):
        async with await PtyProcess.start(
            ["sh", "-c", GRANDCHILD], cwd=tmp_path, use_pty=use_pty
        ) as proc:
            pids = pids_in(await read_until(proc, b"\n"))
            assert pids[0] == proc.pid
            assert all(running(pid) for pid in pids)
            await proc.kill()
            assert proc.exit_status == ExitStatus(signal="SIGTERM")
            assert not any(running(pid) for pid in pids)
            assert await read_all(proc) == b""  # the terminal's writers are gone


async def test_aclose_kills_and_reaps_a_running_command(tmp_path: Path) -> None:
    with anyio.fail_after(BOUND):
        proc = await PtyProcess.start(["sh", "-c", GRANDCHILD], cwd=tmp_path)
        pids = pids_in(await read_until(proc, b"\n"))
        await proc.aclose()
        await proc.aclose()  # idempotent
        assert proc.exit_status == ExitStatus(signal="SIGTERM")
        assert not any(running(pid) for pid in pids)
        assert await proc.read() == b""
        assert proc.pid not in pty._live_groups


async def test_leaving_the_process_as_an_anyio_resource_reaps_it(
    tmp_path: Path,
) -> None:
    with anyio.fail_after(BOUND):
        process = await PtyProcess.start(["sh", "-c", GRANDCHILD], cwd=tmp_path)
        assert isinstance(process, AsyncResource)
        async with process as entered:
            assert entered is process
            pids = pids_in(await read_until(process, b"\n"))
        assert process.exit_status == ExitStatus(signal="SIGTERM")
        assert not any(running(pid) for pid in pids)
        assert process.pid not in pty._live_groups


async def test_cancelled_caller_still_kills_the_group(tmp_path: Path) -> None:
    with anyio.fail_after(BOUND):
        with anyio.CancelScope() as scope:
            async with await PtyProcess.start(
                ["sh", "-c", GRANDCHILD], cwd=tmp_path
            ) as proc:
                pids = pids_in(await read_until(proc, b"\n"))
                scope.cancel()
                await proc.wait()  # cancelled here; the shielded close runs anyway
        assert scope.cancelled_caught
        assert not any(running(pid) for pid in pids)
        assert proc.exit_status == ExitStatus(signal="SIGTERM")


async def test_sigkill_follows_an_ignored_sigterm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pty, "TERMINATE_TIMEOUT", 0.2)
    monkeypatch.setattr(pty, "GROUP_TERMINATE_TIMEOUT", 0.2)
    script = "trap '' TERM; echo ready; while :; do sleep 1; done"
    with anyio.fail_after(BOUND):
        async with await PtyProcess.start(["sh", "-c", script], cwd=tmp_path) as proc:
            await read_until(proc, b"ready")
            await proc.kill()
            assert proc.exit_status == ExitStatus(signal="SIGKILL")


KILL_ITSELF_BY_SIGINT: Final = (
    "import os, signal; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.kill(os.getpid(), signal.SIGINT)"
)
"""A command that dies of SIGINT however the test process was started: a shell
started with SIGINT ignored (pytest run in the background of a script, `cmd &`)
cannot take it back (POSIX), and `sh -c 'kill -INT $$'` then exited 0."""


async def test_exit_by_signal_is_reported_by_name(tmp_path: Path) -> None:
    with anyio.fail_after(BOUND):
        async with await PtyProcess.start(
            [sys.executable, "-c", KILL_ITSELF_BY_SIGINT], cwd=tmp_path
        ) as proc:
            assert await proc.wait() == ExitStatus(signal="SIGINT")


async def test_a_missing_program_raises_and_leaks_no_descriptor(
    tmp_path: Path,
) -> None:
    before = set(os.listdir("/proc/self/fd"))
    with anyio.fail_after(BOUND), pytest.raises(FileNotFoundError):
        await PtyProcess.start(["no-such-program-acp-tui"], cwd=tmp_path)
    assert set(os.listdir("/proc/self/fd")) <= before
    with pytest.raises(ValueError, match="empty command"):
        await PtyProcess.start([], cwd=tmp_path)


def test_exit_status_from_returncode_and_json() -> None:
    assert ExitStatus.from_returncode(0) == ExitStatus(exit_code=0)
    assert ExitStatus.from_returncode(-signal.SIGTERM) == ExitStatus(signal="SIGTERM")
    assert ExitStatus.from_returncode(None) == ExitStatus()
    assert ExitStatus(exit_code=2).to_json() == {"exitCode": 2, "signal": None}
    assert ExitStatus(signal="SIGKILL").to_json() == {
        "exitCode": None,
        "signal": "SIGKILL",
    }
    assert signal_name(15) == "SIGTERM"
    assert signal_name(200) == "SIG200"


@pytest.mark.parametrize("use_pty", [True, False])
async def test_a_start_cancelled_while_spawning_stops_the_command(
    use_pty: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cancelled just as its process is created (a session closing while the agent
    asks for a terminal), the start completes under a shield and stops the
    command again: it is reaped, neither left running nor a zombie."""
    with anyio.fail_after(BOUND):
        process = await spawned_while_cancelled(
            monkeypatch,
            lambda: PtyProcess.start(["sleep", "30"], cwd=tmp_path, use_pty=use_pty),
        )
    assert process.returncode is not None
    assert not running(process.pid)


# -- processes that leave the group ------------------------------------------------

ESCAPE: Final = Path(__file__).resolve().parents[2] / "fakes" / "procs" / "escape.py"

ESCAPES: Final = [
    "setsid",
    "setpgid",
    "double-fork",
    "daemon",
    "daemon-no-env",
    "daemon-no-env-no-tty",
]


def escape_argv(how: str, *, leader_exits: bool = False) -> list[str]:
    return [sys.executable, str(ESCAPE), how, *(["--leader-exits"] * leader_exits)]


def escaped_pid(output: bytes) -> int:
    match = re.search(rb"escaped (\d+)\r?\n", output)
    assert match is not None, output
    return int(match.group(1))


async def gone(pid: int) -> None:
    """Wait (bounded by the test's `fail_after`) until `pid` is reaped."""
    while pid_exists(pid):  # noqa: ASYNC110 - not our child: nothing to wait on
        await anyio.sleep(0.02)


@pytest.mark.parametrize(
    "leader_exits", [False, True], ids=["leader-runs", "leader-exited"]
)
@pytest.mark.parametrize("how", ESCAPES)
async def test_aclose_kills_and_reaps_a_process_that_left_the_group(
    tmp_path: Path, how: str, leader_exits: bool
) -> None:
    """However a descendant left the command's process group (and whether the
    command still runs), closing kills it, and it is reaped, not left a zombie."""
    with anyio.fail_after(BOUND):
        proc = await PtyProcess.start(
            escape_argv(how, leader_exits=leader_exits), cwd=tmp_path
        )
        pid = escaped_pid(await read_until(proc, b"\n"))
        assert pid != proc.pid
        assert os.getpgid(pid) != proc.pid or how == "double-fork"
        assert running(pid)
        await proc.aclose()
    assert not pid_exists(pid)


@pytest.mark.parametrize("how", ["setsid", "daemon"])
async def test_kill_stops_a_process_that_left_the_group(
    tmp_path: Path, how: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="acp_tui.terminal.pty")
    with anyio.fail_after(BOUND):
        async with await PtyProcess.start(escape_argv(how), cwd=tmp_path) as proc:
            pid = escaped_pid(await read_until(proc, b"\n"))
            await proc.kill()
            assert proc.exit_status == ExitStatus(signal="SIGTERM")
            assert not running(pid)
    assert f"command {proc.pid}: sent SIGTERM to 1 process(es)" in caplog.text


async def test_escapees_are_killed_when_the_interpreter_exits_early(
    tmp_path: Path,
) -> None:
    """The event loop dies before any cleanup ran: the `atexit` backstop kills the
    command's group and what left it."""
    script = f"""
import anyio, re, sys
from acp_tui.terminal.pty import PtyProcess

async def main():
    proc = await PtyProcess.start({escape_argv("setsid")!r}, cwd={str(tmp_path)!r})
    seen = b""
    while b"\\n" not in seen:
        seen += await proc.read()
    print(proc.pid, re.search(rb"escaped (\\d+)", seen).group(1).decode(), flush=True)
    raise SystemExit(0)  # no aclose: the atexit hook is all that is left

anyio.run(main)
"""
    with anyio.fail_after(BOUND):
        done = await anyio.run_process([sys.executable, "-c", script], check=True)
        leader, escapee = (int(pid) for pid in done.stdout.split())
        while running(leader) or running(escapee):  # noqa: ASYNC110 - not ours
            await anyio.sleep(0.02)


async def test_the_agent_cannot_forge_the_terminal_marker(tmp_path: Path) -> None:
    """`ACP_TUI_TERMINAL` in the requested environment is overridden, so an agent
    cannot make a command look like another's (or like none)."""
    script = 'echo "marker=$ACP_TUI_TERMINAL"'
    with anyio.fail_after(BOUND):
        async with await PtyProcess.start(
            ["sh", "-c", script],
            cwd=tmp_path,
            env={"ACP_TUI_TERMINAL": "forged"},
        ) as proc:
            output = await read_all(proc)
    match = re.search(rb"marker=([0-9a-f]+)\r\n", output)
    assert match is not None, output
    assert match.group(1) != b"forged"
