"""The permission dialog shows the diff of the tool call it asks about."""

from __future__ import annotations

from typing import Any

from textual.app import App

from acp_tui.client.ports import PermissionChoice, PermissionRequest
from acp_tui.store.model import ToolCall
from acp_tui.store.values import JSONObject
from acp_tui.ui.screens.permission import PermissionScreen, subject_patches
from acp_tui.ui.themes import theme_variable_defaults
from acp_tui.ui.widgets.diff_view import DiffView

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
        await pilot.press("y")
        await pilot.pause()
    assert app.results == ["ok"]
