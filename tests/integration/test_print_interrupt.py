"""ctrl+c during `acp-tui print`: the turn is cancelled, never a traceback.

`acp-tui print` runs as a real process (SIGINT is delivered to it as a terminal
would), against the demo agent's slow `/long` answer: the first ctrl+c sends
`session/cancel` and waits (bounded) for the end of the turn, then prints what
was reached and exits 130; a second ctrl+c stops at once. Either way the agent
process goes with it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Final

import pytest

pytestmark = pytest.mark.subprocess

BOUND: Final = 60.0
PROMPT: Final = "/long"


def start(tmp_path: Path, output_format: str) -> subprocess.Popen[bytes]:
    home = tmp_path / "home"
    env = {**os.environ, "ACP_TUI_HOME": str(home), "ACP_TUI_DEMO_DELAY": "0"}
    command = [sys.executable, "-m", "acp_tui", "print", "--format", output_format]
    return subprocess.Popen(
        [*command, "--cwd", str(tmp_path), PROMPT],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        # A terminal's ctrl+c reaches a foreground process with SIGINT's default
        # disposition; a child of a non-interactive shell would inherit "ignore".
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def wait_for_line(stream: IO[bytes], text: bytes) -> None:
    """Read lines until one holds `text` (bounded by the test's own timeout)."""
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        line = stream.readline()
        assert line, f"the output ended before {text!r}"
        if text in line:
            return
    raise AssertionError(f"no {text!r} within {BOUND} s")


def demo_processes(home: Path) -> list[int]:
    """Processes whose environment names `home` (the run's own agent)."""
    found = []
    marker = f"ACP_TUI_HOME={home}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if marker in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def test_ctrl_c_cancels_the_turn_and_prints_what_was_reached(tmp_path: Path) -> None:
    process = start(tmp_path, "text")
    assert process.stdout is not None
    wait_for_line(process.stdout, b"Paragraph 1")
    process.send_signal(signal.SIGINT)
    rest, err = process.communicate(timeout=BOUND)
    assert process.returncode == 130
    said = err.decode()
    assert "interrupted: cancelling the turn" in said
    assert "Traceback" not in said
    assert b"Cancelled: I stopped streaming" in rest  # the demo ended the turn
    assert demo_processes(tmp_path / "home") == []


def test_a_second_ctrl_c_stops_at_once(tmp_path: Path) -> None:
    process = start(tmp_path, "text")
    assert process.stdout is not None
    wait_for_line(process.stdout, b"Paragraph 1")
    process.send_signal(signal.SIGINT)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=BOUND)
    assert process.returncode == 130
    said = err.decode()
    assert "Traceback" not in said
    assert "interrupted" in said
    assert demo_processes(tmp_path / "home") == []


def test_ctrl_c_before_the_turn_exits_quietly(tmp_path: Path) -> None:
    """While the agent starts, before any turn: no traceback either."""
    process = start(tmp_path, "json")
    assert process.stderr is not None
    wait_for_line(process.stderr, b"running the built-in demo agent")
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=BOUND)
    assert process.returncode == 130
    assert "Traceback" not in err.decode()
    assert demo_processes(tmp_path / "home") == []
