"""SVG snapshots of the transcript cards: tool calls, plans, permissions, themes.

Each test builds a `SessionStore` with ops and shows it in `CardsApp` (see
`test_cards.py`). Update the baselines with
`uv run pytest tests/ui/test_card_snapshots.py --snapshot-update` and read them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

import pytest
from textual.app import App
from textual.pilot import Pilot

from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject
from tests.ui.test_cards import OPTIONS, PATCH, CardsApp, diff_item, plan_op, text_item

pytestmark = pytest.mark.snapshot

SIZE = (90, 40)


class SnapCompare(Protocol):
    def __call__(
        self,
        app: App[None],
        *,
        press: tuple[str, ...] = (),
        terminal_size: tuple[int, int] = (80, 24),
        run_before: Callable[[Pilot[None]], Awaitable[None] | None] | None = None,
    ) -> bool: ...


def status_store() -> SessionStore:
    store = SessionStore("snap")
    for n, (status, kind, title) in enumerate(
        [
            ("pending", "read", "Read config.toml"),
            ("in_progress", "search", "Search for TODO"),
            ("completed", "fetch", "Fetch the ACP docs"),
            ("failed", "execute", "Run make"),
            ("cancelled", "edit", "Edit main.py"),
        ]
    ):
        store.apply(
            ops.PatchToolCall(
                f"call-{n}",
                title=title,
                kind=kind,
                status=status,
                locations=[{"path": f"/project/src/file_{n}.py", "line": 10 + n}],
                content=[text_item(f"Output of the {status} call\nsecond line")],
            )
        )
    return store


def diff_store(cwd: str | None = None) -> SessionStore:
    store = SessionStore("snap", cwd=cwd)
    store.apply_many(
        [
            ops.PatchToolCall(
                "edit",
                title="Edit app.py",
                kind="edit",
                status="completed",
                locations=[{"path": "/p/app.py", "line": 2}],
                content=[
                    diff_item(PATCH, {"operation": "modify", "path": "/p/app.py"})
                ],
            ),
            ops.PatchToolCall(
                "moves",
                title="Reorganise assets",
                kind="move",
                status="completed",
                content=[
                    diff_item(
                        None,
                        {
                            "operation": "move",
                            "oldPath": "/p/a.png",
                            "path": "/p/b.png",
                        },
                        {"operation": "delete", "path": "/p/old.txt"},
                    )
                ],
            ),
            ops.PatchToolCall(
                "run",
                title="Run the tests",
                kind="execute",
                status="in_progress",
                content=[{"type": "terminal", "terminalId": "term-1"}],
            ),
            ops.PatchTerminal("term-1", command="pytest -q", cwd="/p"),
            ops.AppendTerminalOutput(
                "term-1", b"\x1b[32m....\x1b[0m\r\n4 passed in 0.12s\r\n"
            ),
        ]
    )
    return store


def plan_store() -> SessionStore:
    store = SessionStore("snap")
    store.apply_many(
        [
            plan_op(
                "main",
                ("Read the existing widgets", "completed", "high"),
                ("Write the tool-call card", "in_progress", "high"),
                ("Add snapshot tests", "pending", "medium"),
                ("Polish the light theme", "pending", "low"),
                title="Cards",
            ),
            plan_op("review", ("Ask for review", "pending", "medium")),
        ]
    )
    return store


def permission_store() -> SessionStore:
    store = SessionStore("snap")
    command: JSONObject = {"type": "command", "command": "rm -rf build", "cwd": "/p"}
    tool: JSONObject = {
        "type": "tool_call",
        "toolCall": {"toolCallId": "t", "title": "Edit a.py"},
    }
    store.apply_many(
        [
            ops.AddPermission("1", "Run a command", subject=command, options=OPTIONS),
            ops.AddPermission("2", "Edit a file", subject=tool, options=OPTIONS),
            ops.AddPermission("3", "Delete build", subject=command, options=OPTIONS),
            ops.AddPermission("4", "Fetch a page", options=OPTIONS),
            ops.ResolvePermission("1", {"outcome": "selected", "optionId": "yes"}),
            ops.ResolvePermission("2", {"outcome": "selected", "optionId": "never"}),
            ops.ResolvePermission("3", {"outcome": "cancelled"}),
        ]
    )
    return store


class TestToolCallCards:
    def test_tool_call_card_each_status(self, snap_compare: SnapCompare) -> None:
        """Five cards, one per status, each with a kind icon, a bold title and a
        location `↳ path:line`.

        The left border and the status text are coloured per status: pending grey,
        in progress blue, completed green, failed red, cancelled yellow. Completed
        and cancelled cards are collapsed (`▶ output · 2 lines`); pending, in
        progress and failed ones are open and show two lines of output.
        """
        app = CardsApp(status_store(), panel=False)
        assert snap_compare(app, terminal_size=SIZE)

    def test_tool_call_card_with_diff_changes_and_terminal(
        self, snap_compare: SnapCompare
    ) -> None:
        """An edit card with a git patch: a `modify /p/app.py  +1 -1` file header,
        a yellow warning that the hunk is shorter than its `@@` header says (the
        fixture's counts are wrong, as agents' often are), the violet hunk header,
        line numbers, the removed line on a dark red background and the added one
        on dark green, with `41`/`42` highlighted as the changed words; it stays
        open although completed (a small diff). Then a move card with a file tree:
        `▾ /p/`, `R b.png  move  from /p/a.png`, `D old.txt  delete`; and a
        running terminal card: `$ pytest -q  (in /p)`, green `....` and `4 passed
        in 0.12s` on a slightly raised background.
        """
        app = CardsApp(diff_store(), panel=False)
        assert snap_compare(app, terminal_size=SIZE)

    def test_the_same_cards_in_the_sessions_directory(
        self, snap_compare: SnapCompare, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The cards above in a session whose directory is /p: every path reads
        relative to it. The edit card's location is `↳ app.py:2` and its header
        `modify app.py  +1 -1`; the move card's tree has no root folder (`R b.png
        move  from a.png`, `D old.txt  delete`); the terminal reads `$ pytest -q
        (in .)`.
        """
        monkeypatch.setenv("HOME", "/home/snap")
        app = CardsApp(diff_store("/p"), panel=False)
        assert snap_compare(app, terminal_size=SIZE)


class TestPlans:
    def test_plan_inline(self, snap_compare: SnapCompare) -> None:
        """Two plans in the transcript, each in a rounded border. The first reads
        `Plan · Cards  1/4`, then a green filled dot for the completed entry
        (dimmed, `· high`), a blue half dot for the running one (`· high`), and
        grey hollow dots for the pending ones (`· low` on the last; no priority
        shown for medium). The second is `Plan  0/1` with one pending entry.
        """
        app = CardsApp(plan_store(), panel=False)
        assert snap_compare(app, terminal_size=SIZE)

    def test_plan_panel(self, snap_compare: SnapCompare) -> None:
        """The plan panel docked on the right (36 cells, panel background, a
        vertical rule on its left) titled `Plans`, listing both plans, separated
        by horizontal rules: `Plan · Cards  1/4` first, then the untitled one
        named by its id, `Plan · review  0/1`, last. The inline plans appear on
        the left as well (the untitled one just `Plan  0/1`).
        """
        app = CardsApp(plan_store(), panel=True)
        assert snap_compare(app, terminal_size=SIZE)

    def test_plan_panel_empty(self, snap_compare: SnapCompare) -> None:
        """The plan panel on the right with its title `Plans` and the italic,
        muted empty state `No plan yet`; the transcript on the left is empty.
        """
        app = CardsApp(SessionStore("snap"), panel=True)
        assert snap_compare(app, terminal_size=SIZE)


class TestPermissions:
    def test_permission_records(self, snap_compare: SnapCompare) -> None:
        """Four permission records, each `Permission  <title>` with the subject
        below. `Run a command` (`$ rm -rf build`, `in /p`) ends `✓ allowed once`
        in green with a green left border; `Edit a file` (`tool call: Edit a.py`)
        ends `✗ rejected always` in red with a red border; `Delete build` ends
        `⊘ cancelled` dimmed with a grey border; `Fetch a page` ends `… waiting for
        your answer` in yellow with a yellow border.
        """
        app = CardsApp(permission_store(), panel=False)
        assert snap_compare(app, terminal_size=SIZE)


class TestThemes:
    def test_light_theme_cards(self, snap_compare: SnapCompare) -> None:
        """The diff, move and terminal cards of the diff snapshot in `acp-light`:
        a near-white background, dark text, the added line dark green on pale
        green, the removed line dark red on pale pink, the hunk header violet.
        """
        app = CardsApp(diff_store(), theme="acp-light", panel=False)
        assert snap_compare(app, terminal_size=SIZE)

    def test_light_theme_plans_and_permissions(self, snap_compare: SnapCompare) -> None:
        """`acp-light`: the plan panel on the right (light grey panel) with both
        plans, and on the left the inline plans followed by the four permission
        records, their borders and outcomes green, red, grey and amber.
        """
        store = plan_store()
        store.apply_many(
            [
                ops.AddPermission("1", "Run a command", options=OPTIONS),
                ops.AddPermission("2", "Edit a file", options=OPTIONS),
                ops.AddPermission("3", "Delete build", options=OPTIONS),
                ops.AddPermission("4", "Fetch a page", options=OPTIONS),
                ops.ResolvePermission("1", {"outcome": "selected", "optionId": "yes"}),
                ops.ResolvePermission(
                    "2", {"outcome": "selected", "optionId": "never"}
                ),
                ops.ResolvePermission("3", {"outcome": "cancelled"}),
            ]
        )
        app = CardsApp(store, theme="acp-light", panel=True)
        assert snap_compare(app, terminal_size=(100, 40))
