"""SVG snapshots of subagent lanes (`SubagentLane`) and the subagent full screen.

The clock the lanes read (`subagent_lane.now_ms`) is fixed, so elapsed times are
stable. Update the baselines with
`uv run pytest tests/ui/test_subagent_lane_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.pilot import Pilot

from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.ui.screens import subagent as subagent_screen
from acp_tui.ui.screens.openers import FullScreenOpener
from acp_tui.ui.themes import register_themes, theme_variable_defaults
from acp_tui.ui.widgets import subagent_lane
from acp_tui.ui.widgets.conversation_cards import make_card
from acp_tui.ui.widgets.subagent_lane import SubagentLane
from tests.ui.test_card_snapshots import SnapCompare

pytestmark = pytest.mark.snapshot

NOW = 1_800_000_000_000
SIZE = (90, 34)


class LanesApp(FullScreenOpener, App[None]):
    """The store's timeline as the conversation's cards (lanes among them)."""

    AUTO_FOCUS = None

    def __init__(self, store: SessionStore) -> None:
        super().__init__()
        self.store = store
        self.theme_errors = register_themes(self, dirs=[])
        self.theme = "acp-dark"

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)

    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="cards")

    async def on_mount(self) -> None:
        box = self.query_one("#cards", VerticalScroll)
        for key in self.store.timeline():
            card = make_card(self.store, key)
            if card is not None:
                await box.mount(card)


def lanes_store() -> SessionStore:
    store = SessionStore("parent")
    text = {"type": "text", "text": "I'll hand this to three subagents."}
    store.apply(ops.AppendMessageChunk("a1", "agent", text))
    for n, (title, description) in enumerate(
        [
            ("Survey the parser", "Finds where tokens are read"),
            ("Check the tests", "Runs the test suite"),
            ("Lint the docs", "Checks the markdown files"),
        ]
    ):
        store.apply(
            ops.PatchSubagent(
                f"c{n}",
                title=title,
                description=description,
                status="running",
                at_ms=NOW - 75_000 + n * 1_000,
            )
        )
    for n in range(2):
        store.apply(
            ops.InSubagent(
                "c0",
                ops.PatchToolCall(
                    f"r{n}",
                    title=f"Read src/file_{n}.py",
                    kind="read",
                    status="completed",
                ),
            )
        )
    said = {"type": "text", "text": "Running `pytest -q`: **12 passed**."}
    store.apply(ops.InSubagent("c1", ops.AppendMessageChunk("m", "agent", said)))
    store.apply(
        ops.InSubagent(
            "c1",
            ops.PatchToolCall(
                "x",
                title="pytest -q",
                kind="execute",
                status="completed",
                content=[{"type": "terminal", "terminalId": "t"}],
            ),
        )
    )
    store.apply(ops.InSubagent("c1", ops.PatchTerminal("t", command="pytest -q")))
    store.apply(
        ops.InSubagent(
            "c1", ops.AppendTerminalOutput("t", b"\x1b[32m12 passed\x1b[0m\r\n")
        )
    )
    store.apply(ops.PatchSubagent("c1", status="done", at_ms=NOW - 30_000))
    store.apply(
        ops.PatchSubagent(
            "c2", status="failed", error="the linter crashed", at_ms=NOW - 60_000
        )
    )
    return store


@pytest.fixture(autouse=True)
def _fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(subagent_lane, "now_ms", lambda: NOW)
    monkeypatch.setattr(subagent_screen, "now_ms", lambda: NOW)


def test_lanes_collapsed_and_one_expanded(snap_compare: SnapCompare) -> None:
    """Three lanes under an agent message. "Survey the parser": ▸, ◐, running for
    1m 15s, 2 tool calls (accent edge). "Check the tests": expanded (▾ ✓, done
    after 44s, green edge) with its own message (markdown: `pytest -q` as code,
    **12 passed** bold) and its `pytest -q` execute card holding the terminal's
    green "12 passed". "Lint the docs": ✗, failed after 13s, the error "the linter
    crashed", a red edge. Each status line ends with a dim "f: full screen"."""

    async def expand(pilot: Pilot[None]) -> None:
        lane = next(
            lane for lane in pilot.app.query(SubagentLane) if lane.subagent_id == "c1"
        )
        await lane.action_toggle_lane()
        await pilot.pause()

    assert snap_compare(LanesApp(lanes_store()), terminal_size=SIZE, run_before=expand)


def test_subagent_full_screen(snap_compare: SnapCompare) -> None:
    """The "Check the tests" subagent full screen: a title bar "✓ Check the tests —
    Runs the test suite" over "done · 44s · 1 tool call"; its own message and its
    `pytest -q` card with the terminal at the bottom of the view (it follows the
    tail, like the conversation); "esc closes" in the footer."""

    async def open_full(pilot: Pilot[None]) -> None:
        lane = next(
            lane for lane in pilot.app.query(SubagentLane) if lane.subagent_id == "c1"
        )
        lane.action_open_full()
        await pilot.pause(0.3)

    assert snap_compare(
        LanesApp(lanes_store()), terminal_size=SIZE, run_before=open_full
    )
