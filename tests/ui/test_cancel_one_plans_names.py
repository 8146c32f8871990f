"""Pilot tests: cancel one tool call or terminal, plan documents, tool names.

Against the scripted fake agent's card turns (`tests/fakes/agent_cards.py`):
"cancel-one" (v2: a tool call and a terminal the agent offers to cancel alone),
"plan-docs" (v2: a removed plan, a markdown plan, a file plan) and "named" (both
versions: tool calls told apart by their `name` only). The agent records what
it is sent, so the tests check the wire too.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widget import Widget

from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.conversation_entries import StandaloneTerminal
from acp_tui.ui.widgets.markdown_view import MarkdownView
from acp_tui.ui.widgets.message_view import MessageView
from acp_tui.ui.widgets.plan_document_view import PlanDocumentView
from acp_tui.ui.widgets.plan_panel import PlanPanel
from acp_tui.ui.widgets.plan_view import PlanView
from acp_tui.ui.widgets.tool_call_view import ToolCallView
from tests.ui.helpers import wait_for
from tests.ui.test_app import SIZE, permission_armed, turn_ended
from tests.ui.test_app_flows import BOTH, _home, app_for, record, sent
from tests.ui.test_cards import CardsApp, apply

pytestmark = pytest.mark.subprocess

__all__ = ["_home", "record"]


def card(app: AcpTuiApp, tool_call_id: str) -> ToolCallView | None:
    for view in app.query(ToolCallView):
        if view.tool_call.tool_call_id == tool_call_id:
            return view
    return None


async def focus_in(pilot: Pilot[None], widget: Widget) -> None:
    """Put the focus on the first focusable widget inside `widget`."""
    target = next((w for w in widget.query("*") if w.focusable), None)
    assert target is not None, "nothing focusable in the card"
    target.focus()
    app = pilot.app
    await wait_for(pilot, lambda: app.focused is target)


def agent_said(app: AcpTuiApp) -> str:
    return "".join(v.text for v in app.query(MessageView) if v.role == "agent")


async def play_cancel_one(pilot: Pilot[None], app: AcpTuiApp) -> None:
    """Send "cancel-one" and wait until the agent waits (its cards are shown)."""
    await wait_for(pilot, lambda: app.store is not None)
    await pilot.press(*"cancel-one", "enter")
    await wait_for(pilot, lambda: "Running the tests." in agent_said(app))
    await wait_for(pilot, lambda: card(app, "long1") is not None)
    await wait_for(pilot, lambda: bool(app.query(StandaloneTerminal)))


async def test_x_on_a_tool_card_cancels_that_call_alone(
    tmp_path: Path, record: Path
) -> None:
    """`x` sends `tool_call/cancel` for that call: no `session/cancel`, the call
    ends cancelled, and the turn goes on to its end."""
    app = app_for("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await play_cancel_one(pilot, app)
        view = card(app, "long1")
        assert view is not None
        await focus_in(pilot, view)
        await pilot.press("x")
        await wait_for(pilot, lambda: turn_ended(app))
        assert sent(record, "tool_call/cancel") == [
            {"sessionId": "s1", "toolCallId": "long1"}
        ]
        assert sent(record, "session/cancel") == []
        assert app.store is not None
        assert app.store.state.stop_reason == "end_turn"
        await wait_for(pilot, lambda: "Carrying on" in agent_said(app))
        await wait_for(pilot, lambda: view.status == "cancelled")
        assert "cancelled" in view.header_text
        assert "cancelling" not in view.header_text


async def test_x_on_a_card_the_agent_cannot_cancel_sends_nothing(
    tmp_path: Path, record: Path
) -> None:
    app = app_for("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await play_cancel_one(pilot, app)
        view = card(app, "quick1")
        assert view is not None
        await focus_in(pilot, view)
        await pilot.press("x")
        await wait_for(
            pilot,
            lambda: any("alone" in str(n.message) for n in app._notifications),
        )
        assert sent(record, "tool_call/cancel") == []
        assert app.runner.in_turn  # the turn runs on, untouched
        await pilot.press("escape")  # end it (the agent ends it cancelled)
        await wait_for(pilot, lambda: turn_ended(app))


async def test_the_palette_cancels_a_terminal_then_a_tool_call(
    tmp_path: Path, record: Path
) -> None:
    """Only what the agent offers is listed; each entry cancels that one alone."""
    app = app_for("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await play_cancel_one(pilot, app)

        def entries() -> dict[str, object]:
            commands = app.get_system_commands(app.screen)
            return {c.title: c.callback for c in commands if "Cancel " in c.title}

        assert set(entries()) == {
            "Cancel turn",
            "Cancel tool call: Run the test suite",
            "Cancel terminal: tail -f build.log",
            "Cancel terminal: sleep 60",
        }
        callback = entries()["Cancel terminal: tail -f build.log"]
        assert callable(callback)
        callback()
        await wait_for(pilot, lambda: bool(sent(record, "terminal/cancel")))
        assert sent(record, "terminal/cancel") == [
            {"sessionId": "s1", "terminalId": "term1"}
        ]
        store = app.store
        assert store is not None
        await wait_for(pilot, lambda: bool(store.terminal("term1").exited))  # type: ignore[union-attr]
        assert app.runner.in_turn  # a terminal cancelled: the turn goes on
        assert "Cancel terminal: tail -f build.log" not in entries()
        tool = entries()["Cancel tool call: Run the test suite"]
        assert callable(tool)
        tool()
        await wait_for(pilot, lambda: turn_ended(app))
        assert store.state.stop_reason == "end_turn"
        assert sent(record, "session/cancel") == []


@BOTH
async def test_plan_documents_render_and_a_removed_plan_leaves(
    tmp_path: Path, record: Path, version: str
) -> None:
    """`plan_removed` takes the plan out of the conversation and the panel; a
    markdown plan is drawn as markdown; a file plan shows its path and text.
    (v1: plan operations, with the client's `plan` capability.)"""
    (tmp_path / "PLAN.md").write_text("# From the file\n\n- first *step*\n")
    app = app_for(version, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"plan-docs", "enter")
        await wait_for(pilot, lambda: turn_ended(app))
        await pilot.press("f4")
        panel = app.query_one(PlanPanel)
        await wait_for(pilot, lambda: panel.plan_ids == ["md1", "f1"])
        conversation = app.query_one(Conversation)
        await wait_for(pilot, lambda: len(conversation.query(PlanDocumentView)) == 2)
        assert not conversation.query(PlanView)  # "p-gone" left the conversation
        assert app.store is not None
        assert app.store.removed_plans() == ("p-gone",)
        markdown, file_plan = conversation.query(PlanDocumentView)
        assert "(markdown)" in markdown.text
        assert "Refactor the **parser**" in markdown.text
        # Drawn by the markdown renderer: the emphasis marks are gone.
        drawn = markdown.query_one(MarkdownView)
        await wait_for(pilot, lambda: "Refactor the parser" in drawn.plain_text)
        assert "file: PLAN.md" in file_plan.text
        assert "# From the file" in file_plan.text
        shown = panel.plan_view("md1")
        assert isinstance(shown, PlanDocumentView)
        # The v1 capability that allows plan operations (a v2 offer carries it
        # among its v1 fields).
        assert sent(record, "initialize")[-1]["clientCapabilities"]["plan"] == {}


async def test_the_tool_name_shows_as_a_tag_on_the_card(tmp_path: Path) -> None:
    app = app_for("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await play_cancel_one(pilot, app)
        view = card(app, "long1")
        assert view is not None
        assert "Run the test suite run_tests" in view.header_text
        await pilot.press("escape")
        await wait_for(pilot, lambda: turn_ended(app))


@BOTH
async def test_always_allow_is_keyed_by_the_tool_name(
    tmp_path: Path, version: str
) -> None:
    """ "Always" for `make` by tool "bash" does not cover `make` by another tool;
    the same tool again is allowed without asking."""
    app = app_for(version, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"named", "enter")
        await wait_for(pilot, lambda: permission_armed(app))
        await pilot.press("2", "2")  # Always allow (n1, tool "bash")
        await wait_for(pilot, lambda: permission_armed(app))  # n2: asked again
        await pilot.press("1", "1")  # Allow once
        await wait_for(pilot, lambda: turn_ended(app))
        assert app.store is not None
        outcomes = {
            p.tool_call_id: (p.outcome or {}).get("optionId")
            for p in app.store.permissions()
        }
        assert outcomes == {"n1": "always", "n2": "yes", "n3": "yes"}
        assert app.store.tool_call("n2").name == "sandboxed_bash"  # type: ignore[union-attr]


async def test_x_on_a_terminal_card_cancels_that_terminal_alone(
    tmp_path: Path, record: Path
) -> None:
    app = app_for("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await play_cancel_one(pilot, app)
        terminal = app.query_one(StandaloneTerminal)
        await focus_in(pilot, terminal)
        await pilot.press("x")
        await wait_for(pilot, lambda: bool(sent(record, "terminal/cancel")))
        assert sent(record, "terminal/cancel") == [
            {"sessionId": "s1", "terminalId": "term1"}
        ]
        await wait_for(pilot, lambda: terminal.status == "failed")  # its signal
        assert app.runner.in_turn
        assert sent(record, "tool_call/cancel") == []
        await pilot.press("escape")
        await wait_for(pilot, lambda: turn_ended(app))


async def test_the_card_says_cancelling_until_the_final_status(
    tmp_path: Path,
) -> None:
    """The mark (`MarkCancelling`) shows on the card until the call is final."""
    store = SessionStore("s", cwd=str(tmp_path))
    store.apply(
        ops.PatchToolCall("t1", title="Run", kind="execute", status="in_progress")
    )
    app = CardsApp(store, panel=False)
    async with app.run_test(size=SIZE) as pilot:
        view = app.card("t1")
        assert "in progress" in view.header_text
        await apply(pilot, app, ops.MarkCancelling("tool_call", "t1"))
        assert view.header_text.endswith("cancelling…")
        await apply(pilot, app, ops.PatchToolCall("t1", status="cancelled"))
        assert "cancelling" not in view.header_text
        assert view.header_text.endswith("⊘ cancelled")


async def test_x_on_a_tool_card_cancels_the_terminal_it_shows_if_only_that_is_offered(
    tmp_path: Path, record: Path
) -> None:
    """Like claude-agent-acp's background command: the terminal, not the call."""
    app = app_for("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await play_cancel_one(pilot, app)
        view = card(app, "bg1")
        assert view is not None
        await focus_in(pilot, view)
        await pilot.press("x")
        await wait_for(pilot, lambda: bool(sent(record, "terminal/cancel")))
        assert sent(record, "terminal/cancel") == [
            {"sessionId": "s1", "terminalId": "term2"}
        ]
        assert sent(record, "tool_call/cancel") == []
        store = app.store
        assert store is not None
        await wait_for(pilot, lambda: bool(store.terminal("term2").exited))  # type: ignore[union-attr]
        assert "cancelling" not in view.header_text
        await pilot.press("escape")
        await wait_for(pilot, lambda: turn_ended(app))
