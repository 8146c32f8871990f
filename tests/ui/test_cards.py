"""Pilot tests of the transcript cards: tool calls, plans, the plan panel, permissions.

A small `CardsApp` mounts one widget per timeline entity of a `SessionStore` that the
tests drive with store ops (no agent), the way the conversation does.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import pytest
from rich.color import Color
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.dom import DOMNode
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Static
from textual.widgets.collapsible import CollapsibleTitle

from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject, JSONValue
from acp_tui.ui.screens.openers import FullScreenOpener
from acp_tui.ui.themes import register_themes, theme_variable_defaults
from acp_tui.ui.widgets.diff_view import DiffSegment
from acp_tui.ui.widgets.path_lines import PathLines
from acp_tui.ui.widgets.permission_view import PermissionView, permission_outcome
from acp_tui.ui.widgets.plan_panel import PlanPanel
from acp_tui.ui.widgets.plan_view import PlanView
from acp_tui.ui.widgets.tool_call_view import (
    SEGMENT_VIEWS,
    ContentSegment,
    ToolCallBody,
    ToolCallView,
    tool_call_body,
)
from tests.ui.helpers import wait_for

SIZE = (100, 40)

PATCH = (
    "diff --git /p/app.py /p/app.py\n"
    "--- /p/app.py\n"
    "+++ /p/app.py\n"
    "@@ -1,3 +1,3 @@\n"
    " def answer():\n"
    "-    return 41\n"
    "+    return 42\n"
)

OPTIONS = (
    {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
    {"optionId": "always", "name": "Always allow", "kind": "allow_always"},
    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
    {"optionId": "never", "name": "Never", "kind": "reject_always"},
    {"optionId": "odd", "name": "Ask Bob", "kind": "ask_someone"},
)


class CardsApp(FullScreenOpener, App[None]):
    """Shows a store's tool calls, plans and permissions, plus the plan panel."""

    AUTO_FOCUS = None

    def __init__(
        self, store: SessionStore, *, theme: str = "acp-dark", panel: bool = True
    ) -> None:
        super().__init__()
        self.store = store
        self.theme_errors = register_themes(self, dirs=[])
        self.theme = theme
        self.show_panel = panel
        self.views: dict[tuple[str, str], Widget] = {}

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)

    def compose(self) -> ComposeResult:
        panel = PlanPanel(id="plans")
        panel.display = self.show_panel
        yield panel
        yield VerticalScroll(id="cards")

    async def on_mount(self) -> None:
        await self.sync()

    async def sync(self) -> None:
        """Mount new entities and hand every widget its newest snapshot."""
        box = self.query_one("#cards", VerticalScroll)
        store = self.store
        for kind, entity_id in store.timeline():
            key = (kind, entity_id)
            widget = self.views.get(key)
            if kind == "tool_call":
                tool_call = store.tool_call(entity_id)
                assert tool_call is not None
                if isinstance(widget, ToolCallView):
                    widget.update_tool_call(tool_call)
                else:
                    widget = ToolCallView(store, tool_call)
            elif kind == "plan":
                plan = store.plan(entity_id)
                assert plan is not None
                if isinstance(widget, PlanView):
                    widget.update_plan(plan)
                else:
                    widget = PlanView(plan)
            elif kind == "permission":
                permission = store.permission(entity_id)
                assert permission is not None
                if isinstance(widget, PermissionView):
                    widget.update_permission(permission)
                else:
                    widget = PermissionView(permission)
            else:
                continue
            if key not in self.views:
                self.views[key] = widget
                await box.mount(widget)
        self.query_one(PlanPanel).update_plans(store.plans())

    def card(self, tool_call_id: str) -> ToolCallView:
        widget = self.views[("tool_call", tool_call_id)]
        assert isinstance(widget, ToolCallView)
        return widget

    def permission_view(self, permission_id: str) -> PermissionView:
        widget = self.views[("permission", permission_id)]
        assert isinstance(widget, PermissionView)
        return widget

    def plan_view(self, plan_id: str) -> PlanView:
        widget = self.views[("plan", plan_id)]
        assert isinstance(widget, PlanView)
        return widget


async def apply(pilot: Pilot[None], app: CardsApp, *operations: ops.Op) -> None:
    app.store.apply_many(operations)
    await app.sync()
    await pilot.pause()


def text_item(text: str) -> dict[str, JSONValue]:
    return {"type": "content", "content": {"type": "text", "text": text}}


def diff_item(patch: str | None, *changes: dict[str, str]) -> dict[str, JSONValue]:
    item: dict[str, JSONValue] = {"type": "diff", "changes": list(changes)}
    if patch is not None:
        item["patch"] = {"format": "git_patch", "text": patch}
    return item


@pytest.fixture
def store() -> SessionStore:
    return SessionStore("sess_1")


# --- tool calls -------------------------------------------------------------


async def test_status_change_updates_header_and_state_class(
    store: SessionStore,
) -> None:
    store.apply(ops.PatchToolCall("t1", title="Run tests", kind="execute"))
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        card = app.card("t1")
        assert card.status == "pending"
        assert card.has_class("-pending")
        assert card.header_text == "❯ Run tests  ○ pending"
        for status, shown in [
            ("in_progress", "◐ in progress"),
            ("completed", "✓ completed"),
            ("failed", "✗ failed"),
            ("cancelled", "⊘ cancelled"),
        ]:
            await apply(pilot, app, ops.PatchToolCall("t1", status=status))
            assert card.status == status
            assert card.header_text.endswith(shown)
            assert card.has_class(f"-{status}")
            others = {"pending", "in_progress", "completed", "failed", "cancelled"}
            assert not any(card.has_class(f"-{o}") for o in others - {status})


async def test_unknown_status_and_kind_still_render(store: SessionStore) -> None:
    store.apply(ops.PatchToolCall("t1", kind="teleport", status="paused"))
    app = CardsApp(store)
    async with app.run_test(size=SIZE):
        card = app.card("t1")
        assert card.header_text == "• t1  ? paused"
        assert not any(card.has_class(f"-{s}") for s in ("pending", "completed"))


async def test_locations_show_path_and_line(store: SessionStore) -> None:
    store.apply(ops.PatchToolCall("t1", title="Read", kind="read"))
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        card = app.card("t1")
        assert card.locations_text == ""
        locations: list[JSONObject] = [
            {"path": "/p/a.py", "line": 12},
            {"path": "/p/b.py"},
        ]
        await apply(pilot, app, ops.PatchToolCall("t1", locations=locations))
        assert card.locations_text == "↳ /p/a.py:12\n↳ /p/b.py"
        await apply(pilot, app, ops.PatchToolCall("t1", locations=None))
        assert card.locations_text == ""


PROJECT = "/home/ann/proj"
"""The session's directory in the path tests (HOME is /home/ann there)."""


@pytest.fixture
def project_store(monkeypatch: pytest.MonkeyPatch) -> SessionStore:
    monkeypatch.setenv("HOME", "/home/ann")
    return SessionStore("sess_1", cwd=PROJECT)


async def test_locations_read_relative_to_the_sessions_directory(
    project_store: SessionStore,
) -> None:
    """Inside the session's directory: relative; under HOME: `~`; else absolute.
    The tooltip has the full paths, as sent."""
    locations: list[JSONObject] = [
        {"path": f"{PROJECT}/src/greeting.py", "line": 12},
        {"path": "/home/ann/notes/todo.md"},
        {"path": "/etc/hosts"},
        {"path": PROJECT},
    ]
    project_store.apply(ops.PatchToolCall("t1", title="Read", locations=locations))
    app = CardsApp(project_store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        card = app.card("t1")
        assert card.locations_text == (
            "↳ src/greeting.py:12\n↳ ~/notes/todo.md\n↳ /etc/hosts\n↳ ."
        )
        tooltip = card.query_one(PathLines).tooltip
        assert isinstance(tooltip, Content)
        assert tooltip.plain == (
            f"{PROJECT}/src/greeting.py\n/home/ann/notes/todo.md\n/etc/hosts\n{PROJECT}"
        )


async def test_locations_shorten_from_the_left_to_the_cards_width(
    project_store: SessionStore,
) -> None:
    deep = "/srv/build/workspaces/demo-0001/src/pkg/greeting.py"
    locations: list[JSONObject] = [{"path": deep, "line": 3}]
    project_store.apply(ops.PatchToolCall("t1", title="Read", locations=locations))
    app = CardsApp(project_store, panel=False)
    async with app.run_test(size=(30, 20)) as pilot:
        await pilot.pause()
        card = app.card("t1")
        lines = card.query_one(PathLines)
        assert lines.size.width == 27  # 30 less the card's border and padding
        assert card.locations_text == "↳ …/src/pkg/greeting.py:3"  # 25 cells
        await pilot.resize_terminal(80, 20)
        await pilot.pause()
        assert card.locations_text == f"↳ {deep}:3"


async def test_p_in_a_card_shows_and_copies_its_full_paths(
    project_store: SessionStore,
) -> None:
    locations: list[JSONObject] = [{"path": f"{PROJECT}/app.py", "line": 1}]
    diff: JSONObject = {
        "type": "diff",
        "path": "/p/app.py",
        "patch": {"format": "git_patch", "text": PATCH},
    }
    project_store.apply_many(
        [
            ops.PatchToolCall("t1", title="Edit", kind="edit", locations=locations),
            ops.AppendToolCallContent("t1", diff),
        ]
    )
    app = CardsApp(project_store, panel=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.card("t1").query_one(DiffSegment).focus()
        await pilot.press("p")
        await pilot.pause()
        (notification,) = app._notifications
        assert notification.message == f"{PROJECT}/app.py\n/p/app.py"
        assert notification.title == "Full paths (copied)"
        assert app.clipboard == f"{PROJECT}/app.py\n/p/app.py"


async def test_diff_patch_lines_are_styled_with_diff_tokens(
    store: SessionStore,
) -> None:
    store.apply(
        ops.PatchToolCall(
            "t1",
            title="Edit app.py",
            kind="edit",
            status="completed",
            content=[diff_item(PATCH, {"operation": "modify", "path": "/p/app.py"})],
        )
    )
    app = CardsApp(store)
    async with app.run_test(size=SIZE):
        card = app.card("t1")
        view = card.query_one(DiffSegment)
        assert card.content_text == PATCH.rstrip("\n")
        rows = view.row_texts()
        assert rows[0].startswith(" modify /p/app.py  +1 -1")
        assert rows[-3:] == [
            "1 1  def answer():",
            "2   -    return 41",
            "  2 +    return 42",
        ]
        # Added and removed lines are painted with the theme's diff colours.
        palette = view.palette()
        backgrounds = {
            row: {
                s.style.bgcolor.get_truecolor()
                for s in view.render_line(index)
                if s.style is not None and s.style.bgcolor is not None
            }
            for index, row in enumerate(rows)
        }
        added = Color.parse(palette.added_bg).get_truecolor()
        removed = Color.parse(palette.removed_bg).get_truecolor()
        assert added in backgrounds["  2 +    return 42"]
        assert removed in backgrounds["2   -    return 41"]
        assert added not in backgrounds["1 1  def answer():"]
        # A small diff stays open even though the call completed.
        assert not card.collapsed


async def test_v1_diff_old_and_new_text_becomes_a_unified_patch(
    store: SessionStore,
) -> None:
    item = {
        "type": "diff",
        "path": "/p/x.txt",
        "oldText": "a\nb\n",
        "newText": "a\nc\n",
    }
    store.apply(ops.PatchToolCall("t1", kind="edit", content=[item]))
    app = CardsApp(store)
    async with app.run_test(size=SIZE):
        lines = app.card("t1").content_text.split("\n")
        assert lines[:4] == [
            "diff --git /p/x.txt /p/x.txt",
            "--- /p/x.txt",
            "+++ /p/x.txt",
            "@@ -1,2 +1,2 @@",
        ]
        assert "-b" in lines
        assert "+c" in lines


async def test_changes_without_patch_show_one_line_each(store: SessionStore) -> None:
    item = diff_item(
        None,
        {"operation": "delete", "path": "/p/old.txt"},
        {"operation": "move", "oldPath": "/p/a.txt", "path": "/p/b.txt"},
        {"operation": "modify", "path": "/p/logo.png", "fileType": "binary"},
    )
    store.apply(ops.PatchToolCall("t1", kind="delete", content=[item]))
    app = CardsApp(store)
    async with app.run_test(size=SIZE):
        card = app.card("t1")
        assert card.content_text == (
            "delete /p/old.txt\nmove /p/a.txt → /p/b.txt\nmodify /p/logo.png (binary)"
        )


async def test_terminal_shows_current_text_and_exit(store: SessionStore) -> None:
    store.apply_many(
        [
            ops.PatchToolCall(
                "t1",
                title="Build",
                kind="execute",
                status="in_progress",
                content=[{"type": "terminal", "terminalId": "term-1"}],
            ),
            ops.PatchTerminal("term-1", command="make", cwd="/p"),
        ]
    )
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        card = app.card("t1")
        assert card.content_text == "$ make  (in /p)"
        await apply(pilot, app, ops.AppendTerminalOutput("term-1", b"compiling\r\n"))
        await apply(
            pilot, app, ops.AppendTerminalOutput("term-1", b"\x1b[32mok\x1b[0m\r\n")
        )
        assert card.content_text == "$ make  (in /p)\ncompiling\nok"
        # A carriage return rewrites the line, as in a terminal.
        await apply(pilot, app, ops.AppendTerminalOutput("term-1", b"50%\r100%"))
        assert card.content_text.endswith("ok\n100%")
        # A snapshot replaces everything the terminal showed.
        await apply(pilot, app, ops.PatchTerminal("term-1", output=b"fresh\r\n"))
        assert card.content_text == "$ make  (in /p)\nfresh"
        await apply(
            pilot,
            app,
            ops.PatchTerminal("term-1", exit_status={"exitCode": 2}),
            ops.PatchToolCall("t1", status="failed"),
        )
        assert card.content_text.endswith("fresh\nexit 2")
        assert not card.collapsed


async def test_terminal_text_matches_a_fresh_emulation(store: SessionStore) -> None:
    store.apply(
        ops.PatchToolCall("t1", content=[{"type": "terminal", "terminalId": "term"}])
    )
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        chunks = [b"line \xe2\x9c", b"\x93 done\r\n", b"\x1b[2K\rredrawn\r\n", b"tail"]
        for chunk in chunks:
            await apply(pilot, app, ops.AppendTerminalOutput("term", chunk))
        tool_call = store.tool_call("t1")
        assert tool_call is not None
        # The incremental text equals the export's fresh emulation.
        assert app.card("t1").content_text == tool_call_body(store, tool_call)
        assert "line ✓ done" in app.card("t1").content_text


async def test_text_chunks_merge_into_one_segment(store: SessionStore) -> None:
    store.apply(ops.PatchToolCall("t1", kind="search", status="in_progress"))
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        card = app.card("t1")
        for part in ("found ", "3 ", "files\n", "done"):
            await apply(pilot, app, ops.AppendToolCallContent("t1", text_item(part)))
        assert card.content_text == "found 3 files\ndone"
        assert len(card.segment_contents()) == 1
        replacement = [text_item("replaced"), diff_item(PATCH)]
        await apply(pilot, app, ops.PatchToolCall("t1", content=replacement))
        assert card.content_text.startswith("replaced\ndiff --git")
        assert len(card.segment_contents()) == 2
        await apply(pilot, app, ops.PatchToolCall("t1", content=None))
        assert card.content_text == ""
        assert card.segment_contents() == []


async def test_raw_input_shown_only_without_other_content(store: SessionStore) -> None:
    store.apply(
        ops.PatchToolCall("t1", kind="fetch", raw_input={"url": "https://x.test"})
    )
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        card = app.card("t1")
        assert card.content_text == "url: https://x.test"
        await apply(pilot, app, ops.PatchToolCall("t1", raw_output={"status": 200}))
        assert card.content_text == 'url: https://x.test\noutput: {"status": 200}'
        await apply(pilot, app, ops.AppendToolCallContent("t1", text_item("body")))
        assert card.content_text == "body"


async def test_long_raw_input_is_cut(store: SessionStore) -> None:
    store.apply(ops.PatchToolCall("t1", raw_input={"data": "x" * 1000}))
    app = CardsApp(store)
    async with app.run_test(size=SIZE):
        text = app.card("t1").content_text
        assert text.startswith("data: xxx")
        assert text.endswith("…")
        assert len(text) < 200


async def test_completed_collapses_failed_stays_open(store: SessionStore) -> None:
    medium_text = "\n".join(f"line {n}" for n in range(40))
    long_text = "\n".join(f"line {n}" for n in range(120))
    store.apply_many(
        [
            ops.PatchToolCall("ok", status="in_progress", content=[text_item("hi")]),
            ops.PatchToolCall("bad", status="in_progress", content=[text_item("hi")]),
            ops.PatchToolCall(
                "mid", status="in_progress", content=[diff_item(medium_text)]
            ),
            ops.PatchToolCall(
                "big", status="in_progress", content=[diff_item(long_text)]
            ),
        ]
    )
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        assert not any(app.card(i).collapsed for i in ("ok", "bad", "mid", "big"))
        await apply(
            pilot,
            app,
            ops.PatchToolCall("ok", status="completed"),
            ops.PatchToolCall("bad", status="failed"),
            ops.PatchToolCall("mid", status="completed"),
            ops.PatchToolCall("big", status="completed"),
        )
        assert app.card("ok").collapsed
        assert not app.card("bad").collapsed
        assert not app.card("mid").collapsed  # a diff the user wants to read
        assert app.card("big").collapsed  # a diff, but a very long one


async def test_user_toggle_is_kept(store: SessionStore) -> None:
    store.apply(ops.PatchToolCall("t1", status="in_progress", content=[text_item("x")]))
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        card = app.card("t1")
        await pilot.click(card.query_one(CollapsibleTitle))
        await wait_for(pilot, lambda: card.collapsed)
        await apply(pilot, app, ops.PatchToolCall("t1", status="failed"))
        assert card.collapsed  # failed cards open, but the user closed this one


async def test_collapsing_off_screen_does_not_scroll(store: SessionStore) -> None:
    lines = "\n".join(f"line {n}" for n in range(8))
    store.apply_many(
        [
            ops.PatchToolCall(f"t{n}", status="in_progress", content=[text_item(lines)])
            for n in range(8)
        ]
    )
    app = CardsApp(store, panel=False)
    async with app.run_test(size=SIZE) as pilot:
        box = app.query_one("#cards", VerticalScroll)
        assert box.max_scroll_y > 0
        box.scroll_home(animate=False)
        await pilot.pause()
        await apply(pilot, app, ops.PatchToolCall("t7", status="completed"))
        await wait_for(pilot, lambda: app.card("t7").collapsed)
        await pilot.pause()
        assert box.scroll_y == 0


async def test_a_card_mounts_styled_once(store: SessionStore) -> None:
    """A card built completed mounts collapsed, with its status class, and
    mounting restyles none of its widgets a second time: the classes are set
    before mounting (`Collapsible` would otherwise set `-collapsed` once mounted
    and restyle the whole body)."""
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        restyled: list[DOMNode] = []
        original = app.update_styles

        def spy(node: DOMNode, animate: bool = True) -> None:
            restyled.append(node)
            original(node, animate)

        app.update_styles = spy  # type: ignore[method-assign]
        await apply(
            pilot,
            app,
            ops.PatchToolCall("t1", status="completed", content=[text_item("x")]),
        )
        card = app.card("t1")
        body = card.query_one(ToolCallBody)
        assert card.has_class("-completed")
        assert card.collapsed
        assert body.has_class("-collapsed")
        assert body.children  # the title and the text
        assert all(
            not part.display
            for part in body.children
            if not isinstance(part, CollapsibleTitle)
        )
        assert card.query_one(CollapsibleTitle).display
        assert all(node is not card and card not in node.ancestors for node in restyled)


def test_body_class_follows_collapsing_before_mount() -> None:
    """The class is set from the constructor on, and follows `collapsed` before
    the body is mounted (Collapsible's watcher runs before mounting too)."""
    body = ToolCallBody(Static("x"), collapsed=True)
    assert body.has_class("-collapsed")
    body.set_collapsed_quietly(False)
    assert not body.collapsed
    assert not body.has_class("-collapsed")
    body.set_collapsed_quietly(True)
    assert body.has_class("-collapsed")


async def test_body_hidden_when_there_is_nothing_to_show(store: SessionStore) -> None:
    store.apply(ops.PatchToolCall("t1", title="Think", kind="think"))
    app = CardsApp(store)
    async with app.run_test(size=SIZE):
        card = app.card("t1")
        assert card.content_text == ""
        assert not card.query_one(ToolCallBody).display


async def test_many_updates_only_rerender_what_changed(store: SessionStore) -> None:
    store.apply(
        ops.PatchToolCall(
            "t1",
            title="Edit",
            status="in_progress",
            content=[diff_item(PATCH), text_item("x" * 10_000)],
        )
    )
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        card = app.card("t1")
        before = card.renders
        started = time.perf_counter()
        for n in range(500):
            store.apply(ops.PatchToolCall("t1", title=f"Edit {n % 2}"))
            tool_call = store.tool_call("t1")
            assert tool_call is not None
            card.update_tool_call(tool_call)
        elapsed = time.perf_counter() - started
        await pilot.pause()
        # Only the header re-rendered (once per title change), never the content.
        assert card.renders - before == 500
        assert card.header_text.startswith("• Edit 1")
        assert elapsed < 1.0, f"500 updates took {elapsed:.2f} s"


async def test_markup_in_agent_text_is_shown_literally(store: SessionStore) -> None:
    store.apply_many(
        [
            ops.PatchToolCall(
                "t1",
                title="[red]boom[/red]",
                status="failed",
                content=[text_item("[link=https://evil.test]click[/link]")],
            ),
            ops.ReplacePlan(
                "p",
                "items",
                [{"content": "[b]x[/b]", "priority": "high", "status": "pending"}],
                {"planId": "p", "type": "items", "entries": []},
            ),
            ops.AddPermission("q", "[i]sure?[/i]", options=OPTIONS),
        ]
    )
    app = CardsApp(store)
    async with app.run_test(size=SIZE):
        assert "[red]boom[/red]" in app.card("t1").header_text
        assert app.card("t1").content_text == "[link=https://evil.test]click[/link]"
        assert "○ [b]x[/b] · high" in app.plan_view("p").text
        assert "[i]sure?[/i]" in app.permission_view("q").text
        screen = app.export_screenshot()
        assert "[red]boom[/red]" in screen


async def test_control_characters_are_escaped(store: SessionStore) -> None:
    store.apply(
        ops.PatchToolCall(
            "t1", title="\x1b[31mred\x07", content=[text_item("a\x1b]0;pwn\x07b")]
        )
    )
    app = CardsApp(store)
    async with app.run_test(size=SIZE):
        card = app.card("t1")
        assert "\x1b" not in card.header_text
        assert "\\x1b[31mred\\x07" in card.header_text
        assert "\x1b" not in card.content_text
        assert "\x07" not in card.content_text


def test_tool_call_body_is_plain_text(store: SessionStore) -> None:
    store.apply_many(
        [
            ops.PatchToolCall(
                "t1",
                locations=[{"path": "/p/a.py", "line": 3}],
                content=[
                    text_item("hello"),
                    diff_item(None, {"operation": "delete", "path": "/p/a.py"}),
                    {"type": "terminal", "terminalId": "term"},
                    {"type": "mystery"},
                ],
            ),
            ops.PatchTerminal("term", command="ls"),
            ops.AppendTerminalOutput("term", b"a.py\r\n"),
        ]
    )
    tool_call = store.tool_call("t1")
    assert tool_call is not None
    assert tool_call_body(store, tool_call) == (
        "@ /p/a.py:3\nhello\ndelete /p/a.py\n$ ls\na.py\n[mystery content]"
    )


# --- permissions ------------------------------------------------------------


@pytest.mark.parametrize(
    ("option_id", "label", "state"),
    [
        ("yes", "allowed once", "allowed"),
        ("always", "allowed always", "allowed"),
        ("no", "rejected once", "rejected"),
        ("never", "rejected always", "rejected"),
        ("odd", "chose Ask Bob", "other"),
        ("gone", "chose gone", "other"),
    ],
)
async def test_permission_outcome_for_each_option_kind(
    store: SessionStore, option_id: str, label: str, state: str
) -> None:
    store.apply(
        ops.AddPermission(
            "7",
            "Run the tests",
            subject={"type": "command", "command": "pytest -q", "cwd": "/p"},
            options=OPTIONS,
        )
    )
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        view = app.permission_view("7")
        assert view.outcome_label == "waiting for your answer"
        assert view.has_class("-pending")
        outcome = {"outcome": "selected", "optionId": option_id}
        await apply(pilot, app, ops.ResolvePermission("7", outcome))
        assert view.outcome_label == label
        assert view.outcome_state == state
        assert view.has_class(f"-{state}")
        assert not view.has_class("-pending")
        assert view.text.split("\n") == [
            "Permission  Run the tests",
            "$ pytest -q",
            "in /p",
            f"{'✓' if state == 'allowed' else '✗' if state == 'rejected' else '•'} "
            f"{label}",
        ]


async def test_permission_cancelled_and_tool_call_subject(store: SessionStore) -> None:
    store.apply(
        ops.AddPermission(
            "8",
            None,
            description="The agent wants to edit a file",
            subject={
                "type": "tool_call",
                "toolCall": {"toolCallId": "t1", "title": "Edit app.py"},
            },
            options=OPTIONS,
            tool_call_id="t1",
        )
    )
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        view = app.permission_view("8")
        assert view.text.split("\n")[:3] == [
            "Permission  Permission requested",
            "The agent wants to edit a file",
            "tool call: Edit app.py",
        ]
        await apply(pilot, app, ops.ResolvePermission("8", {"outcome": "cancelled"}))
        assert view.outcome_label == "cancelled"
        assert view.has_class("-cancelled")


def test_permission_outcome_without_subject_names_the_tool_call(
    store: SessionStore,
) -> None:
    store.apply(ops.AddPermission("9", "t", tool_call_id="call-1"))
    store.apply(ops.ResolvePermission("9", {"outcome": "withdrawn"}))
    permission = store.permission("9")
    assert permission is not None
    assert permission_outcome(permission) == ("withdrawn", "other")
    assert "tool call: call-1" in PermissionView(permission).text


# --- plans ------------------------------------------------------------------


def plan_op(
    plan_id: str, *entries: tuple[str, str, str], **raw: str
) -> ops.ReplacePlan:
    items = [{"content": c, "status": s, "priority": p} for c, s, p in entries]
    return ops.ReplacePlan(
        plan_id, "items", items, {"planId": plan_id, "type": "items", **raw}
    )


async def test_plan_view_shows_entries_with_status_and_priority(
    store: SessionStore,
) -> None:
    store.apply(
        plan_op(
            "main",
            ("Read the code", "completed", "high"),
            ("Write tests", "in_progress", "medium"),
            ("Ship", "pending", "low"),
            title="Refactor",
        )
    )
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        view = app.plan_view("main")
        assert view.text.split("\n") == [
            "Plan · Refactor  1/3",
            "● Read the code · high",
            "◐ Write tests",
            "○ Ship · low",
        ]
        styles = [span.style for span in view.content.spans]  # type: ignore[union-attr]
        assert "$tool-completed" in styles
        assert "$tool-running" in styles
        assert "$tool-pending" in styles
        await apply(
            pilot, app, plan_op("main", ("Ship", "completed", "low"), title="Refactor")
        )
        assert view.text.split("\n") == ["Plan · Refactor  1/1", "● Ship · low"]


async def test_plan_of_unknown_type_shows_its_payload(store: SessionStore) -> None:
    store.apply(
        ops.ReplacePlan(
            "g", "graph", [], {"planId": "g", "type": "graph", "nodes": [1, 2]}
        )
    )
    app = CardsApp(store)
    async with app.run_test(size=SIZE):
        assert app.plan_view("g").text == (
            'Plan (graph)\n{"planId": "g", "type": "graph", "nodes": [1, 2]}'
        )


async def test_plan_panel_lists_plans_by_id_newest_last(store: SessionStore) -> None:
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        panel = app.query_one(PlanPanel)
        empty = panel.query_one("#plan-empty", Static)
        assert empty.display
        assert str(empty.content) == "No plan yet"
        await apply(pilot, app, plan_op("a", ("first", "pending", "medium")))
        assert not empty.display
        view_a = panel.plan_view("a")
        assert view_a is not None
        await apply(
            pilot,
            app,
            plan_op("b", ("second", "pending", "medium")),
            plan_op("a", ("first", "completed", "medium")),
        )
        assert panel.plan_ids == ["a", "b"]
        assert panel.plan_view("a") is view_a  # updated in place
        assert "● first" in view_a.text
        assert view_a.text.startswith("Plan · a  1/1")  # untitled: named by id
        assert [v.plan_id for v in panel.query(PlanView)] == ["a", "b"]
        panel.update_plans([])
        await pilot.pause()
        assert panel.plan_ids == []
        assert empty.display
        assert not panel.query(PlanView)


async def test_plan_panel_before_mount_shows_plans_on_mount(
    store: SessionStore,
) -> None:
    store.apply(plan_op("a", ("one", "pending", "medium")))
    panel = PlanPanel()
    panel.update_plans(store.plans())

    class PanelApp(App[None]):
        def compose(self) -> ComposeResult:
            yield panel

    async with PanelApp().run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert [v.plan_id for v in panel.query(PlanView)] == ["a"]
        assert not panel.query_one("#plan-empty").display


class _UpperDiff(Static):
    """A stand-in segment widget registered for the `diff` kind."""

    def __init__(self) -> None:
        super().__init__()
        self.shown = ""

    def show_segment(
        self, store: SessionStore, items: Sequence[JSONObject], start: int, end: int
    ) -> int:
        self.shown = "DIFF x" + str(end - start)
        self.update(self.shown)
        return 1

    @property
    def plain_text(self) -> str:
        return self.shown


async def test_segment_kinds_get_their_registered_widget(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kind in `SEGMENT_VIEWS` is shown by its own widget; when the item at a
    position changes kind, the card swaps that position's widget."""
    monkeypatch.setitem(SEGMENT_VIEWS, "diff", _UpperDiff)
    store.apply(ops.PatchToolCall("t1", kind="edit", status="in_progress"))
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        card = app.card("t1")
        await apply(pilot, app, ops.AppendToolCallContent("t1", text_item("before")))
        assert card.content_text == "before"
        (first,) = card.query(ContentSegment)
        await apply(pilot, app, ops.PatchToolCall("t1", content=[diff_item(PATCH)]))
        assert card.content_text == "DIFF x1"
        assert not first.is_attached
        assert len(card.query(_UpperDiff)) == 1
        assert not card.query(ContentSegment)
        await apply(pilot, app, ops.PatchToolCall("t1", content=[text_item("after")]))
        assert card.content_text == "after"
        assert not card.query(_UpperDiff)


async def test_a_swapped_segment_is_styled_by_its_classes(store: SessionStore) -> None:
    """A position that changes kind gets a new widget, mounted before its classes
    are set: it is restyled then, and looks like one built with the card."""
    store.apply_many(
        [
            ops.PatchToolCall("t1", status="in_progress", content=[diff_item(PATCH)]),
            ops.PatchToolCall("t2", status="in_progress", content=[text_item("x")]),
        ]
    )
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        await apply(pilot, app, ops.PatchToolCall("t1", content=[text_item("y")]))
        (swapped,) = app.card("t1").query(ContentSegment)
        (built,) = app.card("t2").query(ContentSegment)
        assert swapped.classes == built.classes == {"tool-segment", "-text"}
        assert swapped.styles.color == built.styles.color
        assert swapped.styles.color != app.card("t1").styles.color  # muted


async def test_a_collapsed_body_hides_its_parts_the_raw_input_too(
    store: SessionStore,
) -> None:
    """The body's parts are its own children (no container between them): a
    collapsed body hides each, the raw input and output included (shown by a
    class, which the collapsed body's rule overrides, not by an inline display),
    and expanding it shows them again, indented under the title."""
    store.apply(
        ops.PatchToolCall(
            "t1", kind="fetch", status="completed", raw_input={"url": "https://x.test"}
        )
    )
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        card = app.card("t1")
        body = card.query_one(ToolCallBody)
        raw = card.query_one(".tool-raw", Static)
        title = card.query_one(CollapsibleTitle)
        assert raw.parent is body
        assert card.collapsed
        await pilot.pause()
        assert not raw.display
        assert raw.region.height == 0
        body.collapsed = False
        await wait_for(pilot, lambda: raw.region.height == 1)
        assert raw.region.x == title.region.x + 2
        assert card.content_text == "url: https://x.test"
        body.collapsed = True
        await wait_for(pilot, lambda: raw.region.height == 0)
        assert not raw.display


async def test_the_raw_view_is_made_only_when_there_is_raw_to_show(
    store: SessionStore,
) -> None:
    """A card with content shows no raw input: it has no widget for it (one
    widget fewer to mount) until `r` asks for it, which adds it after the
    segments; `r` again hides it, and new segments still go before it."""
    store.apply(
        ops.PatchToolCall(
            "t1", content=[text_item("body")], raw_input={"url": "https://x.test"}
        )
    )
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        card = app.card("t1")
        body = card.query_one(ToolCallBody)
        assert not card.query(".tool-raw")
        assert card.content_text == "body"
        card.action_toggle_raw()
        await wait_for(pilot, lambda: bool(card.query(".tool-raw")))
        raw = card.query_one(".tool-raw", Static)
        assert list(body.children)[-1] is raw
        assert card.content_text == 'body\ninput: {\n  "url": "https://x.test"\n}'
        await wait_for(pilot, lambda: raw.region.height == 3)
        card.action_toggle_raw()
        await wait_for(pilot, lambda: raw.region.height == 0)
        assert card.content_text == "body"
        await apply(pilot, app, ops.AppendToolCallContent("t1", diff_item(PATCH)))
        await wait_for(pilot, lambda: len(body.children) == 4)
        assert list(body.children)[-1] is raw
