"""SVG snapshots of the whole app's main view states, against the fake agent.

Look only; behaviour is asserted in test_app.py and test_app_flows.py. Every
picture is taken with the agent idle (no spinner, no elapsed time) and the
prompt's cursor not blinking, so reruns are stable.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from acp_tui.protocol.transport import AgentCommand
from acp_tui.store.store import SessionStore
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.screens.auth import AuthScreen
from acp_tui.ui.screens.config import ConfigScreen
from acp_tui.ui.widgets import start_view
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.crash_banner import CrashBanner
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.status_bar import StatusBar
from acp_tui.ui.widgets.tool_call_view import ToolCallView
from tests.ui.helpers import screen_settled, wait_for
from tests.ui.test_app import FAKE_AGENT, permission_armed, turn_ended

pytestmark = [pytest.mark.snapshot, pytest.mark.subprocess]

SnapCompare = Callable[..., bool]
SIZE = (110, 34)
PROJECT = Path("/tmp/acp-tui-snapshot-project")
REPO = FAKE_AGENT.parents[2]
SHOWN = {"message", "tool_call", "plan", "permission"}
"""Timeline kinds that get a widget of their own (terminals live in tool cards)."""


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(start_view, "_now", lambda: 0.0)  # no "(3s)" in pictures
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("FAKE_AGENT_AUTH_FILE", str(tmp_path / "auth.json"))
    PROJECT.mkdir(exist_ok=True)


def app_for(scenario: str, theme: str | None = None) -> AcpTuiApp:
    # Relative to the checkout, so the start panel's command line is the same in
    # every clone (`python` is the environment's interpreter under `uv run`).
    script = FAKE_AGENT.relative_to(REPO)
    python = "python" if shutil.which("python") else sys.executable
    command = AgentCommand(argv=(python, str(script), scenario), cwd=REPO)
    return make_app(command, "fake", cwd=PROJECT, init_timeout=10.0, theme=theme)


async def connected(pilot: Pilot[None]) -> AcpTuiApp:
    app = pilot.app
    assert isinstance(app, AcpTuiApp)
    await wait_for(pilot, lambda: app.store is not None)
    app.query_one(PromptInput).cursor_blink = False
    return app


async def full_turn(pilot: Pilot[None]) -> AcpTuiApp:
    app = await connected(pilot)
    await pilot.press(*"hello", "enter")
    await wait_for(pilot, lambda: permission_armed(app))
    await pilot.press("y", "y")  # select, then choose
    await wait_for(pilot, lambda: turn_ended(app))
    await wait_for(
        pilot, lambda: any(v.status == "completed" for v in app.query(ToolCallView))
    )
    await settled(pilot, app)
    return app


async def settled(pilot: Pilot[None], app: AcpTuiApp) -> None:
    """Every timeline entry is mounted and the view has had time to lay out."""
    conversation = app.query_one(Conversation)

    def complete() -> bool:
        store = app.store
        return (
            store is not None
            and conversation.earlier_count == 0
            and len(conversation.entries)
            == sum(own_entry(store, kind, id_) for kind, id_ in store.timeline())
        )

    await wait_for(pilot, complete)
    await screen_settled(pilot)


def own_entry(store: SessionStore, kind: str, entity_id: str) -> bool:
    """Whether a timeline entry gets a widget of its own (a permission about a
    tool call with a card is recorded in that card)."""
    if kind == "permission":
        permission = store.permission(entity_id)
        about = permission.tool_call_id if permission is not None else None
        return about is None or store.tool_call(about) is None
    return kind in SHOWN


def run(step: Callable[[Pilot[None]], Awaitable[object]]) -> Callable[..., object]:
    async def before(pilot: Pilot[None]) -> None:
        await step(pilot)
        await pilot.pause()

    return before


def test_conversation_after_a_full_turn(snap_compare: SnapCompare) -> None:
    """A finished v2 turn: the user's message, a collapsed thought, the agent's
    markdown, the inline plan, the completed `ls` tool card with its terminal text
    and, at its end, the permission record ("✓ allowed once  Permission: Run
    ls?"). The status bar says idle
    (end_turn) with the usage; the footer lists the keys."""
    assert snap_compare(app_for("v2"), terminal_size=SIZE, run_before=run(full_turn))


def test_conversation_with_plan_panel(snap_compare: SnapCompare) -> None:
    """The same turn with the plan side panel open on the right (F4)."""

    async def steps(pilot: Pilot[None]) -> None:
        await full_turn(pilot)
        await pilot.press("f4")

    assert snap_compare(app_for("v2"), terminal_size=SIZE, run_before=run(steps))


def test_permission_dialog_over_the_conversation(snap_compare: SnapCompare) -> None:
    """The permission modal for "Run ls?": title, description, the tool-call
    subject, and three buttons (1 Allow  y, 2 Reject  n, 3 Always allow) with
    "Esc cancel" beside them; the status bar behind it reads "waiting for you"."""

    async def steps(pilot: Pilot[None]) -> None:
        app = await connected(pilot)
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: permission_armed(app))
        await screen_settled(pilot)

    assert snap_compare(app_for("v2"), terminal_size=SIZE, run_before=run(steps))


def test_crash_banner_with_restart(snap_compare: SnapCompare) -> None:
    """The agent died mid-turn: the prompt is kept as "not delivered", and a red
    banner says the agent exited with code 9, shows its stderr line ("fatal:
    simulated crash") and a "Restart agent (ctrl+r)" button."""

    async def steps(pilot: Pilot[None]) -> None:
        app = await connected(pilot)
        await pilot.press(*"crash", "enter")
        await wait_for(pilot, lambda: bool(app.query(CrashBanner)))
        await screen_settled(pilot)

    assert snap_compare(app_for("v2-full"), terminal_size=SIZE, run_before=run(steps))


def test_settings_switcher_over_the_app(snap_compare: SnapCompare) -> None:
    """F3 over a v2 session: Mode (Ask current), Model grouped fast/smart (Large
    current), Thought level, and the boolean auto_approve under Other. Behind it,
    dimmed, the first screen (Fake Agent 1.0.0 · ACP v2, directory, session s1)."""

    async def steps(pilot: Pilot[None]) -> None:
        app = await connected(pilot)
        await pilot.press("f3")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfigScreen))

    assert snap_compare(app_for("v2-full"), terminal_size=SIZE, run_before=run(steps))


def test_login_chooser(snap_compare: SnapCompare) -> None:
    """An agent that needs a login: the dialog quotes its "Authentication
    required" error and lists 1 an agent login and 2 a terminal login (marked as
    running a command in this terminal)."""

    async def steps(pilot: Pilot[None]) -> None:
        app = pilot.app
        await wait_for(pilot, lambda: isinstance(app.screen, AuthScreen))
        status = app.query_one(StatusBar)
        await wait_for(pilot, lambda: status.agent is not None)  # start panel title
        app.query_one(PromptInput).cursor_blink = False
        await screen_settled(pilot)

    assert snap_compare(app_for("v2-auth"), terminal_size=SIZE, run_before=run(steps))


def test_light_theme(snap_compare: SnapCompare) -> None:
    """The full turn in the acp-light theme: dark text on a light background,
    the same layout as the dark picture."""
    assert snap_compare(
        app_for("v2", theme="acp-light"), terminal_size=SIZE, run_before=run(full_turn)
    )
