"""Shared harness of the fault suite: the fault agent, its pids, both surfaces.

Each case runs `tests/fakes/fault_agent.py` through `acp-tui print` (the real
command line, in-process) and through the Textual app (Pilot). The agent records
its pid and its child's in the file named by `FAULT_AGENT_PIDS`, so every case
can check that no process outlives the client.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.cli import main
from acp_tui.protocol import transport
from acp_tui.protocol.transport import AgentCommand
from acp_tui.ui.app import AcpTuiApp, make_app
from tests.processes import running

FAULT_AGENT = Path(__file__).resolve().parents[1] / "fakes" / "fault_agent.py"
SIZE = (100, 30)
GONE_BOUND = 10.0
"""Seconds a process killed by the client's shutdown gets to disappear."""


def argv(fault: str, version: str = "v2", *options: str) -> tuple[str, ...]:
    """The fault agent's command line."""
    return (sys.executable, str(FAULT_AGENT), fault, version, *options)


def agent_option(fault: str, version: str = "v2", *options: str) -> str:
    """The `--agent` value that runs the fault agent."""
    return shlex.join(argv(fault, version, *options))


class Pids:
    """The pids the fault agents of one test recorded (agent and child each)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def all(self) -> list[int]:
        if not self.path.exists():
            return []
        return [int(pid) for pid in self.path.read_text().split()]

    async def wait_gone(self) -> None:
        """Every recorded process is gone (bounded; they are not all our children)."""
        pids = self.all()
        assert pids, "the fault agent recorded no pids"
        with anyio.fail_after(GONE_BOUND):
            # Not our children: there is nothing to wait on, so poll (bounded).
            while any(running(pid) for pid in pids):  # noqa: ASYNC110
                await anyio.sleep(0.02)

    def assert_gone(self) -> None:
        """`wait_gone` for synchronous tests."""
        anyio.run(self.wait_gone)


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


@pytest.fixture
def pids(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Pids:
    path = tmp_path / "pids"
    monkeypatch.setenv("FAULT_AGENT_PIDS", str(path))
    return Pids(path)


@pytest.fixture
def quick_shutdown(monkeypatch: pytest.MonkeyPatch) -> None:
    """A wedged agent gets SIGTERM after 0.3 s instead of 2 s (same steps)."""
    monkeypatch.setattr(transport, "PROCESS_EXIT_TIMEOUT", 0.3)


# --- acp-tui print -----------------------------------------------------------------


class PrintRun:
    """What one `acp-tui print` run returned and wrote."""

    def __init__(self, code: int, out: str, err: str) -> None:
        self.code = code
        self.out = out
        self.err = err

    @property
    def document(self) -> dict[str, Any]:
        """The `--format json` document."""
        doc: dict[str, Any] = json.loads(self.out)
        return doc

    def agent_text(self) -> str:
        """The agent's message text in the JSON document."""
        return "".join(
            block.get("text", "")
            for message in self.document["messages"]
            if message["role"] == "agent"
            for block in message["content"]
        )


PrintRunner = Callable[..., PrintRun]


@pytest.fixture
def run_print(capsys: pytest.CaptureFixture[str]) -> PrintRunner:
    """Run `acp-tui print ARGS...` in-process and capture what it wrote."""

    def run(*args: str) -> PrintRun:
        code = main(["print", *args])
        captured = capsys.readouterr()
        return PrintRun(code, captured.out, captured.err)

    return run


# --- the Textual app -----------------------------------------------------------------


def fault_app(
    fault: str,
    cwd: Path,
    version: str = "v2",
    *options: str,
    init_timeout: float = 10.0,
) -> AcpTuiApp:
    """The app, running the fault agent."""
    command = AgentCommand(argv=argv(fault, version, *options))
    return make_app(command, "fault", cwd=cwd, init_timeout=init_timeout)


def store_agent_text(app: AcpTuiApp) -> str:
    """The agent text in the session store."""
    store = app.store
    assert store is not None
    return "".join(m.text for m in store.messages() if m.role == "agent")


def screen_lines(app: AcpTuiApp) -> list[str]:
    """The text of every line of the screen as composed (toasts included)."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def screen_text(app: AcpTuiApp) -> str:
    """The screen's text with lines joined by spaces and runs of spaces collapsed."""
    return " ".join(" ".join(screen_lines(app)).split())


def notifications(app: AcpTuiApp) -> list[str]:
    """The messages and titles of the notifications shown (toasts)."""
    return [f"{n.title} {n.message}" for n in app._notifications]


def assert_no_traceback(app: AcpTuiApp) -> None:
    """Neither the screen nor a notification shows a Python traceback."""
    shown = [*screen_lines(app), *notifications(app)]
    assert not [line for line in shown if "Traceback" in line]
    assert not [line for line in shown if 'File "' in line]


@pytest.fixture
def app_cwd(tmp_path: Path) -> Path:
    cwd = tmp_path / "project"
    cwd.mkdir()
    return cwd
