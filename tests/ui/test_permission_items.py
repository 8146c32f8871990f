"""Issue 23, item 6: the permission dialog and the tool call it is about.

* An edit's permission dialog shows the edit's diff: the demo agent's `/edit` and
  `/permission` send it the way claude-agent-acp does (replayed from its
  recordings, v1 and v2).
* The dialog's options say which key selects them (`y`, `n`), Esc says it
  cancels, and the hint says that a second press chooses.
* A tool-call card shows its input as readable lines, with the raw JSON one key
  (`r`) away.
* The status bar reads "waiting for you" while a permission is pending
  (`tests/ui/test_app.py::test_permission_answers_are_recorded`).
* The record of the answer sits in its tool call's card (a request about no
  tool call, or one without a card, stays an entry of its own).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Final

import pytest
from textual.app import App, ComposeResult
from textual.widgets.collapsible import CollapsibleTitle

from acp_tui.client.ports import PermissionChoice, PermissionRequest
from acp_tui.display_paths import PathDisplay
from acp_tui.protocol.transport import AgentCommand
from acp_tui.protocol.version import ProtocolChoice
from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONValue
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.themes import theme_variable_defaults
from acp_tui.ui.widgets.diff_view import DiffView
from acp_tui.ui.widgets.permission_view import PermissionView
from acp_tui.ui.widgets.status_bar import StatusBar
from acp_tui.ui.widgets.tool_call_view import ToolCallView
from acp_tui.ui.widgets.tool_segments import input_summary
from tests.ui.helpers import wait_for
from tests.ui.test_conversation import ConversationApp, show
from tests.ui.test_permission_screen import Host
from tests.unit.client.test_traffic import FakeClock

SIZE: Final = (120, 36)
RECORDINGS: Final = Path(__file__).resolve().parents[1] / "fixtures" / "recordings"


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ACP_TUI_DEMO_DELAY", "0")


def demo_app(tmp_path: Path, version: str) -> AcpTuiApp:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    command = AgentCommand(argv=(sys.executable, "-m", "acp_tui.demo"))
    choice: ProtocolChoice = "1" if version == "v1" else "2"
    return make_app(command, "demo", cwd=project, choice=choice, init_timeout=20.0)


def dialog(app: AcpTuiApp) -> PermissionScreen | None:
    screen = app.screen
    return screen if isinstance(screen, PermissionScreen) else None


def armed(app: AcpTuiApp) -> bool:
    screen = dialog(app)
    return screen is not None and screen.armed


def dialog_diff(app: AcpTuiApp) -> list[str]:
    """The rows of the diffs the dialog on screen shows (none: no dialog)."""
    screen = dialog(app)
    if screen is None:
        return []
    return [row for view in screen.query(DiffView) for row in view.row_texts()]


@pytest.mark.subprocess
@pytest.mark.parametrize("version", ["v1", "v2"])
async def test_the_demo_edits_permission_shows_its_diff(
    tmp_path: Path, version: str
) -> None:
    app = demo_app(tmp_path, version)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"/edit", "enter")
        await wait_for(pilot, lambda: armed(app), bound=20)
        rows = dialog_diff(app)
        assert any("def greet(name: str) -> str:" in row for row in rows), rows
        assert any("farewell" in row for row in rows), rows
        await pilot.press("n", "n")  # nothing is written
        await wait_for(pilot, lambda: dialog(app) is None)


@pytest.mark.subprocess
@pytest.mark.parametrize("version", ["v1", "v2"])
async def test_the_demo_permission_commands_edit_shows_its_diff(
    tmp_path: Path, version: str
) -> None:
    app = demo_app(tmp_path, version)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"/permission", "enter")
        await wait_for(pilot, lambda: armed(app), bound=20)
        assert any("- try acp-tui" in row for row in dialog_diff(app))
        first = dialog(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: dialog(app) is not first)


@pytest.mark.subprocess
@pytest.mark.parametrize("version", ["v1", "v2"])
async def test_claudes_write_permission_shows_its_diff(
    tmp_path: Path, version: str
) -> None:
    """The real agent's recorded turn: a Bash permission, then the Write's."""
    recording = RECORDINGS / f"claude-{version}.jsonl"
    command = AgentCommand(
        argv=(sys.executable, "-m", "acp_tui.demo.replay", str(recording), "--instant")
    )
    choice: ProtocolChoice = "1" if version == "v1" else "2"
    app = make_app(command, "claude", cwd=tmp_path, choice=choice, init_timeout=20.0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None, bound=20)
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: armed(app), bound=20)
        assert not dialog_diff(app)  # the shell command has no diff
        await pilot.press("1", "1")
        await wait_for(pilot, lambda: bool(dialog_diff(app)), bound=20)
        assert any("print('hello')" in row for row in dialog_diff(app))
        status = app.query_one(StatusBar).status_text()
        assert "waiting for you" in status


# --- the keys beside the options ---------------------------------------------------

OPTIONS: Final = (
    PermissionChoice("ok", "Allow once", "allow_once"),
    PermissionChoice("always", "Always allow", "allow_always"),
    PermissionChoice("no", "Reject", "reject_once"),
)


def plain(widget: object) -> str:
    label = getattr(widget, "label", None)
    if label is None:
        label = getattr(widget, "content", "")
    return str(getattr(label, "plain", label))


async def test_the_options_carry_their_keys_and_esc_sits_beside_them() -> None:
    request = PermissionRequest("s", "p", "Edit x.py?", None, None, OPTIONS, None)
    screen = PermissionScreen(request)
    clock = FakeClock()
    screen.clock = clock
    app = Host(screen)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        row = screen.query_one("#permission-options")
        labels = [plain(child) for child in row.children]
        assert labels[0].split() == ["1", "Allow", "once", "y"]
        assert labels[1].split() == ["2", "Always", "allow"]
        assert labels[2].split() == ["3", "Reject", "n"]
        assert labels[3] == "Esc cancel"
        clock.now += 10  # the key guard has passed
        await pilot.press("n")  # selects, never chooses
        await pilot.pause()
        hint = plain(screen.query_one("#permission-hint"))
        assert "Press n again or Enter" in hint
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == [None]


async def test_the_armed_hint_says_a_key_selects_and_again_chooses() -> None:
    request = PermissionRequest("s", "p", "Edit x.py?", None, None, OPTIONS, None)
    screen = PermissionScreen(request)
    clock = FakeClock()
    screen.clock = clock
    app = Host(screen)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        clock.now += 10
        await wait_for(pilot, lambda: screen.armed)
        hint = plain(screen.query_one("#permission-hint"))
        assert hint.startswith("y, n or 1-3 selects; the same key again or Enter")
        assert "Esc cancels" in hint


# --- the card's input: readable, the JSON one key away -----------------------------


@pytest.mark.parametrize(
    ("raw_input", "expected"),
    [
        (
            {"command": "git status", "cwd": "/p", "description": "Look"},
            ["$ git status", "in .", "description: Look"],
        ),
        (
            {"command": ["/bin/bash", "-lc", "ls -a"], "workdir": "/p/src"},
            ["$ /bin/bash -lc 'ls -a'", "in src"],
        ),
        (
            {"file_path": "/p/hello.py", "content": "print('hello')\nprint(2)\n"},
            ["file_path: hello.py", "content: print('hello') … (2 lines)"],
        ),
        ({"files": ["/p/a.py", "/p/b.py"]}, ["files: a.py, b.py"]),
        ({"limit": 3, "all": True, "q": None}, ["limit: 3", "all: true", "q: null"]),
        ({"pattern": "[bold]x[/]\x1b[31m"}, ["pattern: [bold]x[/]\\x1b[31m"]),
        ("just text\nmore", ["just text … (2 lines)"]),
        ({}, []),
        (None, []),
    ],
)
def test_the_input_summary_reads_like_the_tool_was_called(
    raw_input: JSONValue, expected: list[str]
) -> None:
    assert input_summary(raw_input, PathDisplay.for_session("/p")) == expected


def test_an_input_with_many_keys_is_counted() -> None:
    lines = input_summary({f"k{n}": n for n in range(12)})
    assert lines[-1] == "… 4 more keys"
    assert len(lines) == 9


class CardHost(App[None]):
    AUTO_FOCUS = None

    def __init__(self, store: SessionStore) -> None:
        super().__init__()
        self.store = store

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)

    def compose(self) -> ComposeResult:
        store = self.store
        for tool_call in store.tool_calls():
            yield ToolCallView(store, tool_call)


async def test_the_card_shows_its_input_readably_and_r_shows_the_json() -> None:
    store = SessionStore("s")
    raw = {"command": "make [bold]all[/]", "cwd": "/p"}
    store.apply(
        ops.PatchToolCall("t1", title="Run make", kind="execute", raw_input=raw)
    )
    app = CardHost(store)
    async with app.run_test(size=(100, 30)) as pilot:
        card = app.query_one(ToolCallView)
        await pilot.pause()
        assert card.content_text == "$ make [bold]all[/]\nin /p"
        assert "{" not in card.content_text
        card.query_one(CollapsibleTitle).focus()
        await pilot.press("r")
        await wait_for(pilot, lambda: card.show_raw)
        assert json.loads(card.content_text.removeprefix("input: ")) == raw
        await pilot.press("r")
        await wait_for(pilot, lambda: not card.show_raw)
        assert card.content_text == "$ make [bold]all[/]\nin /p"


async def test_r_shows_the_json_beside_other_content() -> None:
    store = SessionStore("s")
    store.apply_many(
        [
            ops.PatchToolCall("t1", title="Write", kind="edit", raw_input={"a": 1}),
            ops.AppendToolCallContent(
                "t1", {"type": "content", "content": {"type": "text", "text": "ok"}}
            ),
        ]
    )
    app = CardHost(store)
    async with app.run_test(size=(100, 30)) as pilot:
        card = app.query_one(ToolCallView)
        await pilot.pause()
        assert card.content_text == "ok"
        card.query_one(CollapsibleTitle).focus()
        await pilot.press("r")
        await wait_for(pilot, lambda: card.show_raw)
        assert card.content_text.splitlines() == ["ok", "input: {", '  "a": 1', "}"]


# --- the record of the answer sits in its tool call's card --------------------------

ANSWERS: Final = (
    {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
)


async def test_the_answer_is_recorded_in_its_tool_calls_card() -> None:
    """Two tool calls, then a request about the first: its record is in the
    first card (not an entry after the second), and follows the answer."""
    app, store = ConversationApp(), SessionStore("s")
    async with app.run_test(size=(80, 30)) as pilot:
        await show(
            app,
            store,
            ops.PatchToolCall("t1", title="Edit a.py", kind="edit", status="pending"),
            ops.PatchToolCall("t2", title="Read b.py", kind="read", status="pending"),
            ops.AddPermission("p1", "Edit a.py?", options=ANSWERS, tool_call_id="t1"),
        )
        await pilot.pause()
        conversation = app.conversation
        assert ("permission", "p1") not in conversation.entries
        first = conversation.entries[("tool_call", "t1")]
        second = conversation.entries[("tool_call", "t2")]
        assert isinstance(first, ToolCallView)
        assert isinstance(second, ToolCallView)
        (record,) = first.query(PermissionView)
        assert not second.query(PermissionView)
        assert record.outcome_label == "waiting for your answer"
        assert "Edit a.py?" in record.text
        assert "tool call:" not in record.text  # the card says what it is
        await show(
            app,
            store,
            ops.ResolvePermission("p1", {"outcome": "selected", "optionId": "no"}),
        )
        await pilot.pause()
        assert record.outcome_label == "rejected once"
        assert record.text.startswith("✗ rejected once")
        assert first.permission_views == [record]


async def test_a_request_without_a_card_is_an_entry_of_its_own() -> None:
    app, store = ConversationApp(), SessionStore("s")
    async with app.run_test(size=(80, 30)) as pilot:
        await show(app, store, ops.AddPermission("p1", "Run ls?", options=ANSWERS))
        await pilot.pause()
        widget = app.conversation.entries[("permission", "p1")]
        assert isinstance(widget, PermissionView)
        assert widget.text.endswith("… waiting for your answer")


async def test_a_rebuilt_card_shows_its_record() -> None:
    """A card built after the answer (scrolled back, reloaded) reads the store."""
    store = SessionStore("s")
    store.apply_many(
        [
            ops.PatchToolCall("t1", title="Edit a.py", kind="edit"),
            ops.AddPermission("p1", "Edit a.py?", options=ANSWERS, tool_call_id="t1"),
            ops.ResolvePermission("p1", {"outcome": "selected", "optionId": "yes"}),
        ]
    )
    app = CardHost(store)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        card = app.query_one(ToolCallView)
        (record,) = card.permission_views
        assert record.outcome_label == "allowed once"
        assert record.parent is card
