"""Paths as people read them, in the app, against the fake agent and the demo agent.

Tool-call locations, diff headers, permission dialogs (the file and directory
lines and the "Always" text), the conversation's permission records and terminal
directories read relative to the session's directory, a path under HOME outside
it from `~`, and others absolute, shortened from the left to the width; the full
path is a tooltip or `p` away.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.content import Content
from textual.widgets import Static

from acp_tui.protocol.transport import AgentCommand
from acp_tui.storage import paths
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.widgets.diff_view import DiffSegment
from acp_tui.ui.widgets.path_lines import PathLines
from acp_tui.ui.widgets.permission_view import PermissionView
from acp_tui.ui.widgets.terminal_view import TerminalSegment
from acp_tui.ui.widgets.tool_call_view import ToolCallView
from tests.fakes.scripted_agent import FAR_PATH
from tests.ui.helpers import wait_for
from tests.ui.test_app import FAKE_AGENT, permission_armed, turn_ended

pytestmark = pytest.mark.subprocess

NARROW = (80, 24)


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`ACP_TUI_HOME` and HOME in tmp: the project lies under HOME."""
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "acp-home"))
    home = tmp_path / "user"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


def card(app: AcpTuiApp, tool_call_id: str) -> ToolCallView:
    return next(
        v for v in app.query(ToolCallView) if v.tool_call.tool_call_id == tool_call_id
    )


def dialog_texts(app: AcpTuiApp) -> tuple[Static, str]:
    screen = app.screen
    assert isinstance(screen, PermissionScreen)
    subject = screen.query_one("#permission-subject", Static)
    always = screen.query_one("#permission-always", Static)
    return subject, str(always.content)


async def test_the_fake_agents_paths_read_from_the_sessions_directory(
    home: Path,
) -> None:
    project = home / "proj"
    project.mkdir()
    command = AgentCommand(argv=(sys.executable, str(FAKE_AGENT), "v2"))
    app = make_app(command, "fake", cwd=project, init_timeout=10.0)
    async with app.run_test(size=NARROW, tooltips=True) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"paths", "enter")

        # The edit's permission dialog: files relative, ~, absolute; whole.
        await wait_for(pilot, lambda: permission_armed(app))
        subject, always = dialog_texts(app)
        lines = str(subject.content).splitlines()
        assert lines[-1] == f"files: ~/elsewhere/todo.md, notes.txt, {FAR_PATH}"
        assert always.endswith(f"edits to ~/elsewhere/todo.md, notes.txt, {FAR_PATH}")
        assert isinstance(subject.tooltip, Content)
        assert f"{project}/notes.txt" in subject.tooltip.plain.splitlines()
        await pilot.press("1", "1")  # select, then choose

        # The command's: its directory is the session's.
        await wait_for(pilot, lambda: permission_armed(app))
        subject, always = dialog_texts(app)
        assert str(subject.content).splitlines() == ["$ make", "in ."]
        assert always.endswith("`make` in .")
        await pilot.press("1", "1")  # select, then choose
        await wait_for(pilot, lambda: turn_ended(app))

        edit = card(app, "e1")
        await wait_for(pilot, lambda: bool(edit.query(DiffSegment)))
        located = edit.query_one(PathLines)
        width = located.size.width
        assert width < 80
        first, second, far = edit.locations_text.splitlines()
        assert (first, second) == ("↳ notes.txt:2", "↳ ~/elsewhere/todo.md")
        assert far.startswith("↳ …/")
        assert far.endswith("/reports/summary.txt")
        assert cell_len(far) <= width < cell_len(f"↳ {FAR_PATH}")
        assert isinstance(located.tooltip, Content)
        assert located.tooltip.plain.splitlines() == [
            f"{project}/notes.txt",
            f"{home}/elsewhere/todo.md",
            FAR_PATH,
        ]
        (diff,) = edit.query(DiffSegment)
        assert " modify notes.txt  +1 -0" in diff.row_texts()
        diff.focus()
        await pilot.press("p")
        await wait_for(pilot, lambda: bool(app._notifications))
        shown = [n.message for n in app._notifications][-1].splitlines()
        assert shown == [f"{project}/notes.txt", f"{home}/elsewhere/todo.md", FAR_PATH]

        await wait_for(pilot, lambda: bool(card(app, "x1").query(TerminalSegment)))
        terminal = card(app, "x1").query_one(TerminalSegment)
        assert terminal.plain_text.splitlines()[0] == "$ make  (in .)"
        records = [v.text for v in app.query(PermissionView)]
        assert any("in ." in text.splitlines() for text in records)
        for text in records:
            assert str(project) not in text


async def test_the_demo_agents_paths_read_as_a_projects(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As `acp-tui` runs it: in its scratch project, so `notes.txt`, not the
    whole path under the data directory."""
    monkeypatch.setenv("ACP_TUI_DEMO_DELAY", "0")
    scratch = paths.demo_project_dir()
    scratch.mkdir(parents=True)
    command = AgentCommand(argv=(sys.executable, "-m", "acp_tui.demo"))
    app = make_app(command, "demo", cwd=scratch, init_timeout=20.0)
    async with app.run_test(size=NARROW) as pilot:
        await wait_for(pilot, lambda: app.store is not None, bound=20.0)
        await pilot.press(*"/permission", "enter")
        await wait_for(pilot, lambda: permission_armed(app))
        subject, always = dialog_texts(app)
        assert str(subject.content).splitlines()[-1] == "file: notes.txt"
        assert always.endswith("edits to notes.txt")
        await pilot.press("1", "1")  # select, then choose
        await wait_for(pilot, lambda: permission_armed(app))
        subject, always = dialog_texts(app)
        assert str(subject.content).splitlines()[-2:] == [
            "$ python tools/progress.py 3",
            "in .",
        ]
        assert always.endswith("`python tools/progress.py 3` in .")
        await pilot.press("1", "1")  # select, then choose
        await wait_for(pilot, lambda: turn_ended(app), bound=20.0)

        edit, run = card(app, "call-1"), card(app, "call-2")
        assert edit.locations_text == "↳ notes.txt:3"
        await wait_for(pilot, lambda: bool(edit.query(DiffSegment)))
        (diff,) = edit.query(DiffSegment)
        assert " modify notes.txt  +1 -0" in diff.row_texts()
        await wait_for(pilot, lambda: bool(run.query(TerminalSegment)))
        terminal = run.query_one(TerminalSegment)
        await wait_for(pilot, lambda: "checks passed" in terminal.plain_text)
        assert terminal.plain_text.splitlines()[0] == (
            "$ python tools/progress.py 3  (in .)"
        )
        shown = [*diff.row_texts(), terminal.plain_text]
        for view in app.query(ToolCallView):
            shown += [view.header_text, view.locations_text]
        assert not [text for text in shown if str(scratch) in text]
