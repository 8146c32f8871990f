"""The permission dialog: its subject, what "always" covers, and its key guard.

It shows the diff of the tool call it asks about, the subject as the agent
stated it (an unknown subject generically), and what an "allow always" answer
lets acp-tui answer by itself. Keys typed for the prompt as it opens choose
nothing: the tests drive the dialog's clock by hand, so nothing waits on time
except the one test that watches it arm itself.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from acp_tui.client.ports import PermissionChoice, PermissionRequest, grant_scope
from acp_tui.display_paths import PathDisplay
from acp_tui.store.model import Permission, ToolCall
from acp_tui.store.values import JSONObject
from acp_tui.ui.screens.permission import (
    KEY_GUARD,
    KEY_IDLE,
    PermissionScreen,
    subject_patches,
    subject_summary,
)
from acp_tui.ui.themes import theme_variable_defaults
from acp_tui.ui.widgets.diff_view import DiffView
from acp_tui.ui.widgets.permission_view import PermissionView
from tests.unit.client.test_traffic import FakeClock

PATCH = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-old\n+new [bold]line[/]\n"
DIFF: JSONObject = {"type": "diff", "path": "/p/x.py", "patch": {"text": PATCH}}
OPTIONS = (PermissionChoice("ok", "Allow", "allow_once"),)


def request(subject: JSONObject | None) -> PermissionRequest:
    return PermissionRequest("s", "p", "Edit x.py?", None, subject, OPTIONS, "t1")


def test_patches_come_from_the_subject_then_from_the_store() -> None:
    inline: JSONObject = {
        "type": "tool_call",
        "toolCall": {"toolCallId": "t1", "content": [DIFF]},
    }
    assert subject_patches(inline, None) == [PATCH]
    stored = ToolCall("t1", content=(DIFF,))
    bare: JSONObject = {"type": "tool_call", "toolCall": {"toolCallId": "t1"}}
    assert subject_patches(bare, stored) == [PATCH]
    assert subject_patches(bare, None) == []
    v1_diff = {"type": "diff", "path": "a.txt", "oldText": "a\n", "newText": "b\n"}
    (text,) = subject_patches({"toolCall": {"content": [v1_diff]}}, None)
    assert "-a" in text
    assert "+b" in text


class Host(App[None]):
    def __init__(self, screen: PermissionScreen) -> None:
        super().__init__()
        self.dialog = screen
        self.results: list[Any] = []

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)

    def on_mount(self) -> None:
        self.push_screen(self.dialog, callback=self.results.append)


async def test_dialog_shows_the_stored_tool_calls_diff_as_text() -> None:
    stored = ToolCall("t1", content=(DIFF,))
    subject: JSONObject = {"type": "tool_call", "toolCall": {"toolCallId": "t1"}}
    app = Host(PermissionScreen(request(subject), stored))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        diff = app.dialog.query_one("#permission-diff")
        shown = "\n".join(t for v in diff.query(DiffView) for t in v.row_texts())
        assert "+new [bold]line[/]" in shown  # agent text, not markup
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == [None]


# --- what the dialog says about its subject ---------------------------------------

ALWAYS_OPTIONS = (
    PermissionChoice("ok", "Allow", "allow_once"),
    PermissionChoice("always", "Always allow", "allow_always"),
    PermissionChoice("no", "Reject", "reject_once"),
)


def test_an_unknown_subject_is_shown_generically() -> None:
    """Never as a command because it has a `command` key, nor as a tool call."""
    vendor: JSONObject = {"type": "_vendor_subject", "command": "rm -rf ~"}
    summary = subject_summary(vendor)
    assert not summary.startswith("$")
    assert "tool call" not in summary
    assert "_vendor_subject" in summary
    assert 'command: "rm -rf ~"' in summary  # a field, listed as data
    bare = subject_summary({"type": "_vendor_subject"})
    assert "tool call" not in bare
    assert "_vendor_subject" in bare
    hostile = subject_summary({"type": "_x\x1b[31m", "note": "a\x1b]0;pwn\x07b"})
    assert "\x1b" not in hostile
    assert "\x07" not in hostile


def test_a_tool_call_shows_its_name_command_and_files() -> None:
    stored = ToolCall(
        "t1",
        "Run it",
        "execute",
        name="Bash",
        raw_input={"command": "git status", "cwd": "/p"},
        locations=({"path": "/p/x.py"},),
    )
    subject: JSONObject = {"type": "tool_call", "toolCall": {"toolCallId": "t1"}}
    lines = subject_summary(subject, stored).splitlines()
    assert lines == [
        "tool call: Run it",
        "tool: Bash (execute)",
        "$ git status",
        "in /p",
        "file: /p/x.py",
    ]
    # A newline in a command is shown, not obeyed.
    two: JSONObject = {"type": "command", "command": "ls\nrm -rf ~", "cwd": "/p"}
    assert subject_summary(two).splitlines()[0].startswith("$ ls")
    assert "rm -rf ~" in subject_summary(two).splitlines()[0]


def always_request(
    subject: JSONObject | None, options: tuple[PermissionChoice, ...] = ALWAYS_OPTIONS
) -> PermissionRequest:
    bare = PermissionRequest("s", "p", "Run it?", None, subject, options, None)
    return replace(bare, grant=grant_scope(bare))


def always_text(app: Host) -> str:
    return str(app.dialog.query_one("#permission-always", Static).content)


async def test_the_dialog_says_what_always_covers() -> None:
    subject: JSONObject = {"type": "command", "command": "git status", "cwd": "/p"}
    app = Host(PermissionScreen(always_request(subject)))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        text = always_text(app)
        assert "`git status` in /p" in text
        assert "for this session" in text


async def test_the_dialog_says_when_always_will_ask_again() -> None:
    subject: JSONObject = {"type": "command", "command": "a | sh", "cwd": "/p"}
    app = Host(PermissionScreen(always_request(subject)))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        text = always_text(app)
        assert text.startswith("acp-tui will ask again next time")
        assert "shell syntax" in text


async def test_without_an_always_option_nothing_is_said_about_always() -> None:
    subject: JSONObject = {"type": "command", "command": "ls", "cwd": "/p"}
    app = Host(PermissionScreen(always_request(subject, OPTIONS)))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert not app.dialog.query("#permission-always")


PROJECT = PathDisplay("/home/ann/proj", "/home/ann")
"""Paths relative to /home/ann/proj, with /home/ann as `~`."""


async def test_the_dialog_reads_paths_from_the_sessions_directory() -> None:
    """The file and directory lines and the "always" text read relative; the
    subject's tooltip and `p` give the full paths."""
    stored = ToolCall(
        "t1",
        "Run it",
        "execute",
        raw_input={"command": "make", "cwd": "/home/ann/proj"},
        locations=({"path": "/home/ann/proj/notes.txt"}, {"path": "/home/ann/x.md"}),
    )
    subject: JSONObject = {"type": "tool_call", "toolCall": {"toolCallId": "t1"}}
    bare = PermissionRequest("s", "p", "Run it?", None, subject, ALWAYS_OPTIONS, "t1")
    dialog = PermissionScreen(
        replace(bare, grant=grant_scope(bare, stored)), stored, PROJECT
    )
    app = Host(dialog)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        shown = dialog.query_one("#permission-subject", Static)
        lines = str(shown.content).splitlines()
        assert lines[-2:] == ["in .", "files: notes.txt, ~/x.md"]
        assert always_text(app).endswith(
            "`make` in . on notes.txt, ~/x.md, kind execute"
        )
        assert isinstance(shown.tooltip, Content)
        full = "/home/ann/proj\n/home/ann/proj/notes.txt\n/home/ann/x.md"
        assert shown.tooltip.plain == full
        dialog.clock = lambda: float("inf")  # the key guard has passed
        await pilot.press("p")
        await pilot.pause()
        assert [n.message for n in app._notifications] == [full]
        assert app.clipboard == full
        assert "p full paths" in hint(app)
        assert app.results == []  # `p` chooses nothing


def test_the_transcript_record_reads_paths_from_the_sessions_directory() -> None:
    subject: JSONObject = {
        "type": "command",
        "command": "ls",
        "cwd": "/home/ann/proj/src",
    }
    view = PermissionView(Permission("p", "Run?", subject=subject), PROJECT)
    assert "in src" in view.text.splitlines()


# --- keys typed for the prompt ----------------------------------------------------


def guarded() -> tuple[Host, FakeClock]:
    dialog = PermissionScreen(always_request(None))
    clock = FakeClock()
    dialog.clock = clock
    return Host(dialog), clock


def buttons(app: Host) -> list[Button]:
    return list(app.dialog.query(Button))


def hint(app: Host) -> str:
    return str(app.dialog.query_one("#permission-hint", Static).content)


async def test_a_key_typed_as_the_dialog_opens_does_not_choose() -> None:
    """The `y` of "hey", 0.08 s after the dialog appeared, and digits, Enter,
    a click: nothing is chosen until the dialog is armed."""
    app, clock = guarded()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        clock.now += 0.08
        await pilot.press("y", "1", "enter", "space", "tab", "enter")
        await pilot.click("#option-1")
        await pilot.pause()
        assert app.results == []
        assert app.screen is app.dialog
        assert not app.dialog.armed
        assert all(button.disabled for button in buttons(app))
        assert "held" in hint(app)
        clock.now += KEY_IDLE + 0.01
        await pilot.press("y", "y")  # the first selects, the second chooses
        await pilot.pause()
    assert app.results == ["ok"]


class Typing(App[None]):
    """The user types into an input; a dialog opens over it."""

    def compose(self) -> ComposeResult:
        yield Input()


async def test_a_key_typed_just_before_the_dialog_opened_does_not_choose() -> None:
    """The `y` was read before the dialog was pushed, and handled after."""
    app = Typing()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("h", "e")
        dialog = PermissionScreen(always_request(None))
        dialog.clock = FakeClock()
        results: list[str | None] = []
        app.post_message(events.Key("y", "y"))
        app.push_screen(dialog, callback=results.append)
        await pilot.pause()
        assert results == []
        assert app.screen is dialog
        assert not dialog.armed
        assert app.query_one(Input).value == "he"


async def test_a_key_during_the_guard_restarts_the_quiet_time() -> None:
    app, clock = guarded()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        opened = clock.now
        clock.now = opened + KEY_GUARD - 0.1
        await pilot.press("h")  # still typing
        clock.now = opened + KEY_GUARD + 0.1  # past the guard, not quiet yet
        await pilot.press("2")
        await pilot.pause()
        assert app.results == []
        clock.now += KEY_IDLE - 0.05  # quiet since "2", not long enough
        await pilot.press("3")
        await pilot.pause()
        assert app.results == []
        clock.now += KEY_IDLE + 0.01
        await pilot.press("3", "3")
        await pilot.pause()
    assert app.results == ["no"]


async def test_after_a_quiet_guard_a_key_selects_and_the_same_key_chooses() -> None:
    """Never the first key: `n` selects "Reject" and says so; `n` again chooses."""
    app, clock = guarded()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        clock.now += KEY_GUARD
        await pilot.press("n")
        await pilot.pause()
        assert app.results == []
        assert app.focused is app.dialog.query_one("#option-3")
        assert "Press n again or Enter to choose “Reject”" in hint(app)
        await pilot.press("n")
        await pilot.pause()
    assert app.results == ["no"]


async def test_enter_typed_for_the_prompt_after_a_pause_only_selects() -> None:
    """The user paused, then pressed Enter to send what they typed: the focused
    option is selected, not chosen. Enter again chooses it."""
    app, clock = guarded()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        clock.now += KEY_IDLE + 1
        await pilot.press("enter")
        await pilot.pause()
        assert app.results == []
        assert "Press Enter again to choose “Allow”" in hint(app)
        await pilot.press("enter")
        await pilot.pause()
    assert app.results == ["ok"]


@pytest.mark.parametrize(
    ("keys", "result"),
    [
        (("y", "enter"), "ok"),  # Enter chooses what a key selected
        (("1", "y"), "ok"),  # two keys naming one option
        (("y", "3", "3"), "no"),  # another key selects again; the same chooses
        (("2", "tab", "enter", "enter"), "no"),  # Enter on a newly focused option
    ],
)
async def test_a_selection_is_chosen_by_its_key_again_or_enter(
    keys: tuple[str, ...], result: str
) -> None:
    app, clock = guarded()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        clock.now += KEY_IDLE + 1
        *first, last = keys
        await pilot.press(*first)
        await pilot.pause()
        assert app.results == []
        await pilot.press(last)
        await pilot.pause()
    assert app.results == [result]


async def test_escape_cancels_at_once() -> None:
    """Cancelling never approves: Esc needs no wait."""
    app, _clock = guarded()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == [None]


async def test_the_dialog_arms_itself_and_shows_it() -> None:
    """On the real clock: the options light up and the hint lists the keys."""
    app = Host(PermissionScreen(always_request(None)))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert not app.dialog.armed
        for _ in range(round((KEY_GUARD + 2) / 0.02)):
            if app.dialog.armed:
                break
            await pilot.pause(0.02)
        assert app.dialog.armed
        assert not any(button.disabled for button in buttons(app))
        assert app.focused is app.dialog.query_one("#option-1")
        assert "the same key again or Enter chooses" in hint(app)
        await pilot.click("#option-3")
        await pilot.pause()
    assert app.results == ["no"]


async def test_the_guard_starts_again_when_the_dialog_is_shown_again() -> None:
    """Another screen over the dialog took the keyboard; back, keys wait again."""
    app, clock = guarded()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        clock.now += KEY_IDLE + 1
        await pilot.press("tab")  # arms it
        assert app.dialog.armed
        app.push_screen(ModalScreen[None]())
        await pilot.pause()
        app.pop_screen()
        await pilot.pause()
        assert not app.dialog.armed
        await pilot.press("y")
        await pilot.pause()
        assert app.results == []


def test_the_transcript_record_shows_an_unknown_subject_generically() -> None:
    vendor: JSONObject = {"type": "_vendor_subject", "command": "rm -rf ~"}
    view = PermissionView(Permission("p", "Do it?", subject=vendor, tool_call_id="t"))
    assert "tool call" not in view.text
    assert "$ rm" not in view.text
    assert "_vendor_subject" in view.text
