"""50 sequential connect, prompt, disconnect cycles leak no socket.

`acp-tui print` runs a turn against the scripted server (in its own process,
so that only the client's descriptors are counted) over each profile; the
process's open file descriptors (`/proc/self/fd`) are the same after as
after the first cycle, and no child process is left.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tui.cli import main
from tests.fakes.spawn import spawned

pytestmark = pytest.mark.subprocess

CYCLES = 50


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[int, int]]:
    """The scripted server's (port, pid)."""
    with spawned("tests.fakes.remote_server") as served:
        yield served


def open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


def children() -> list[str]:
    with open(f"/proc/{os.getpid()}/task/{os.getpid()}/children") as file:
        return file.read().split()


@pytest.mark.parametrize("profile", ["websocket", "http"])
def test_cycles_leak_nothing(
    profile: str,
    server: tuple[int, int],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    port, server_pid = server
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path))
    config = tmp_path / "config"
    config.mkdir()
    (config / "config.toml").write_text(
        f'[agents.scripted]\nurl = "http://127.0.0.1:{port}/acp"\n'
        f'transport = "{profile}"\n'
    )
    argv = ["print", "--agent", "scripted", "--cwd", str(tmp_path), "--format", "json"]
    baseline: set[str] = set()
    for cycle in range(CYCLES):
        code = main([*argv, f"turn {cycle}"])
        captured = capsys.readouterr()
        assert code == 0, captured.err
        assert json.loads(captured.out)["stopReason"] == "end_turn"
        if cycle == 0:
            baseline = open_fds()  # lazy imports and logs opened once
    leaked = open_fds() - baseline
    assert not leaked, [
        os.readlink(f"/proc/self/fd/{fd}")
        for fd in leaked
        if os.path.exists(f"/proc/self/fd/{fd}")
    ]
    assert children() == [str(server_pid)]
