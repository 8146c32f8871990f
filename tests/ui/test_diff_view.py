"""Pilot tests of the diff widgets: layouts, folds, virtualisation, the card segment,
the full screen and the permission dialog; SVG snapshots of both layouts."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Protocol

import pytest
from textual.app import App, ComposeResult
from textual.content import Content
from textual.pilot import Pilot
from textual.widgets import Tooltip

from acp_tui.client.ports import PermissionChoice, PermissionRequest
from acp_tui.diff import parse_patch
from acp_tui.diff.model import DiffLine, row_pairs
from acp_tui.render import diff as render_diff
from acp_tui.render.diff import DiffDocument
from acp_tui.store import ops
from acp_tui.store.model import ToolCall
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject, JSONValue
from acp_tui.ui.screens.diff import DiffScreen
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.themes import register_themes, theme_variable_defaults
from acp_tui.ui.widgets.diff_view import (
    CARD_MAX_HEIGHT,
    DiffSegment,
    DiffView,
    diff_document,
)
from acp_tui.ui.widgets.path_lines import PathLines
from acp_tui.ui.widgets.tool_call_view import SEGMENT_VIEWS
from tests.ui.helpers import wait_for
from tests.ui.test_cards import CardsApp, diff_item

ROOT = "/home/user/project"


def context(start: int, stop: int) -> list[str]:
    return [f" # context line {n}" for n in range(start, stop)]


APP_LINES = [
    "@@ -1,35 +1,36 @@ import os",
    " import os",
    " ",
    "-def load(path):",
    '-    """Read the settings."""',
    "+def load(path, *, strict=False):",
    '+    """Read the settings (strictly if asked)."""',
    "     with open(path) as handle:",
    *context(6, 24),
    "-    return parse(handle.read())",
    "+    data = handle.read()",
    "+    return parse(data, strict=strict)",
    *context(25, 36),
]
PATCH = "\n".join(
    [
        f"diff --git {ROOT}/src/settings.py {ROOT}/src/settings.py",
        "index 1111111..2222222 100644",
        f"--- {ROOT}/src/settings.py",
        f"+++ {ROOT}/src/settings.py",
        *APP_LINES,
        f"diff --git {ROOT}/docs/old.md {ROOT}/docs/guide/new.md",
        "similarity index 88%",
        f"rename from {ROOT}/docs/old.md",
        f"rename to {ROOT}/docs/guide/new.md",
        f"--- {ROOT}/docs/old.md",
        f"+++ {ROOT}/docs/guide/new.md",
        "@@ -1,2 +1,2 @@",
        "-# Old title",
        "+# New title",
        " Some text.",
        "",
    ]
)
CHANGES: list[JSONValue] = [
    {"operation": "modify", "path": f"{ROOT}/src/settings.py"},
    {
        "operation": "move",
        "oldPath": f"{ROOT}/docs/old.md",
        "path": f"{ROOT}/docs/guide/new.md",
    },
    {"operation": "modify", "path": f"{ROOT}/assets/logo.png", "fileType": "binary"},
]
ITEM: JSONObject = {
    "type": "diff",
    "changes": CHANGES,
    "patch": {"format": "git_patch", "text": PATCH},
}


def big_patch(lines: int = 20_000) -> str:
    body = [f"@@ -1,{lines // 2} +1,{lines // 2} @@"]
    for n in range(lines // 2):
        body.append(f"-value_{n} = {n}")
        body.append(f"+value_{n} = {n * 2}")
    path = f"{ROOT}/big.py"
    head = [f"diff --git {path} {path}", f"--- {path}", f"+++ {path}"]
    return "\n".join([*head, *body, ""])


class DiffApp(App[None]):
    """One `DiffView` filling the screen."""

    def __init__(self, document: DiffDocument, *, theme: str = "acp-dark") -> None:
        super().__init__()
        self.document = document
        register_themes(self, dirs=[])
        self.theme = theme

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)

    def compose(self) -> ComposeResult:
        yield DiffView(self.document)

    @property
    def view(self) -> DiffView:
        return self.query_one(DiffView)


def document() -> DiffDocument:
    return DiffDocument(parse_patch(PATCH), [c for c in CHANGES if isinstance(c, dict)])


def layout_of(view: DiffView) -> str:
    return view.diff_layout  # (a fresh read: mypy would keep the narrowed type)


async def test_layout_follows_width_and_s_toggles() -> None:
    app = DiffApp(document())
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.view
        assert view.diff_layout == "unified"
        assert any(r.kind == "line" for r in view.rows)
        await pilot.press("s")
        assert layout_of(view) == "split"
        assert any(r.kind == "pair" for r in view.rows)
        assert not any(r.kind == "line" for r in view.rows)
        texts = view.row_texts()
        assert any("-def load(path):" in t and "+def load(path, *" in t for t in texts)
        await pilot.press("s")
        assert layout_of(view) == "unified"
    wide = DiffApp(document())
    async with wide.run_test(size=(160, 30)):
        assert wide.view.diff_layout == "split"


async def test_tree_headers_and_counts_are_shown() -> None:
    app = DiffApp(document())
    async with app.run_test(size=(100, 30)):
        texts = app.view.row_texts()
        assert texts[:7] == [
            f"▾ {ROOT}/",
            "  ▾ assets/",
            "    M logo.png  modify  (binary)",
            "  ▾ docs/guide/",
            f"    R new.md  move  from {ROOT}/docs/old.md +1 -1",
            "  ▾ src/",
            "    M settings.py  modify  +4 -3",
        ]
        assert f" modify {ROOT}/src/settings.py  +4 -3" in texts
        assert (
            f" move {ROOT}/docs/old.md → {ROOT}/docs/guide/new.md (88% similar)  +1 -1"
            in texts
        )


async def test_folds_expand_with_click_enter_and_e() -> None:
    app = DiffApp(document())
    async with app.run_test(size=(100, 40)) as pilot:
        view = app.view
        view.focus()
        folds = [i for i, r in enumerate(view.rows) if r.kind == "fold"]
        assert len(folds) == 2
        before = len(view.rows)
        assert view.document is not None
        hidden = view.document.folds[view.rows[folds[0]].fold][1].count
        assert hidden == 13
        await pilot.click(DiffView, offset=(10, folds[0]))
        assert len(view.rows) == before + hidden - 1
        assert sum(r.kind == "fold" for r in view.rows) == 1
        await pilot.press("end", "enter")  # Enter opens a fold on screen
        assert not any(r.kind == "fold" for r in view.rows)
    again = DiffApp(document())
    async with again.run_test(size=(100, 40)) as pilot:
        again.view.focus()
        await pilot.press("e")
        assert not any(r.kind == "fold" for r in again.view.rows)


async def test_a_20000_line_patch_paints_only_what_is_visible() -> None:
    big = DiffDocument(parse_patch(big_patch()))
    app = DiffApp(big)
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.view
        await pilot.pause()
        assert len(view.rows) == 20_002
        assert view.virtual_size.height == 20_002
        assert 0 < view.rows_painted <= 200  # a few screenfuls, not 20,000 rows
        view.focus()
        await pilot.press("end")
        await wait_for(pilot, lambda: view.scroll_offset.y > 19_000)
        await pilot.pause()
        assert view.rows_painted <= 2_000  # scrolling animates: a few screens more


def card_store(item: JSONObject) -> SessionStore:
    store = SessionStore("diff")
    store.apply(
        ops.PatchToolCall(
            "t1", title="Edit", kind="edit", status="completed", content=[item]
        )
    )
    return store


async def test_card_uses_the_diff_segment_and_opens_full_screen() -> None:
    assert SEGMENT_VIEWS["diff"] is DiffSegment
    assert SEGMENT_VIEWS["changes"] is DiffSegment
    app = CardsApp(card_store(ITEM), panel=False)
    async with app.run_test(size=(100, 40)) as pilot:
        card = app.card("t1")
        (segment,) = card.query(DiffSegment)
        assert card.content_text == PATCH.rstrip("\n")
        await wait_for(pilot, lambda: segment.size.height > 0)
        assert segment.size.height == CARD_MAX_HEIGHT  # bounded: the diff is longer
        segment.focus()
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, DiffScreen))
        screen = app.screen
        assert isinstance(screen, DiffScreen)
        full = screen.query_one(DiffView)
        assert full.size.height > CARD_MAX_HEIGHT
        title = screen.query_one("#diff-title", PathLines)
        assert title.text == "diff · 3 files  +5 -4"
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, DiffScreen))


async def test_card_without_patch_shows_the_changes_tree() -> None:
    item = diff_item(
        None,
        {"operation": "delete", "path": "/p/old.txt"},
        {"operation": "move", "oldPath": "/p/a.txt", "path": "/p/b.txt"},
    )
    app = CardsApp(card_store(item), panel=False)
    async with app.run_test(size=(100, 40)):
        (segment,) = app.card("t1").query(DiffSegment)
        assert segment.plain_text == "delete /p/old.txt\nmove /p/a.txt → /p/b.txt"
        assert segment.row_texts() == [
            "▾ /p/",
            "  R b.txt  move  from /p/a.txt",
            "  D old.txt  delete",
        ]


async def test_v1_diff_in_a_card_is_rendered_from_old_and_new_text() -> None:
    item: JSONObject = {
        "type": "diff",
        "path": "/p/x.py",
        "oldText": "a = 1\n",
        "newText": "a = 2\n",
    }
    app = CardsApp(card_store(item), panel=False)
    async with app.run_test(size=(100, 40)):
        (segment,) = app.card("t1").query(DiffSegment)
        assert segment.plain_text.startswith("diff --git /p/x.py /p/x.py\n")
        assert segment.row_texts() == [
            " modify /p/x.py  +1 -1",
            "@@ -1 +1 @@",
            "1   -a = 1",
            "  1 +a = 2",
        ]


async def test_a_cards_diff_reads_relative_to_the_sessions_directory() -> None:
    """Headers and the changes tree read from the session's directory; hovering a
    file header shows its full path(s); the full screen's title too, and `p`
    there shows them."""
    store = SessionStore("diff", cwd=ROOT)
    one = PATCH.split(f"diff --git {ROOT}/docs")[0]
    store.apply_many(
        [
            ops.PatchToolCall("t1", title="Edit", status="completed", content=[ITEM]),
            ops.PatchToolCall(
                "t2", title="Edit", status="completed", content=[diff_item(one)]
            ),
        ]
    )
    app = CardsApp(store, panel=False)
    async with app.run_test(size=(100, 60), tooltips=True) as pilot:
        (segment,) = app.card("t1").query(DiffSegment)
        texts = segment.row_texts()
        assert texts[:6] == [
            "▾ assets/",
            "  M logo.png  modify  (binary)",
            "▾ docs/guide/",
            "  R new.md  move  from docs/old.md +1 -1",
            "▾ src/",
            "  M settings.py  modify  +4 -3",
        ]
        header = texts.index(" modify src/settings.py  +4 -3")
        moved = " move docs/old.md → docs/guide/new.md (88% similar)  +1 -1"
        assert moved in texts
        await wait_for(pilot, lambda: segment.size.height > 0)
        await pilot.hover(segment, offset=(3, header))
        assert isinstance(segment.tooltip, Content)
        assert segment.tooltip.plain == f"{ROOT}/src/settings.py"
        tip = app.screen.query_one(Tooltip)
        await wait_for(pilot, lambda: tip.display)
        assert f"{ROOT}/src/settings.py" in str(tip.render())
        await pilot.hover(segment, offset=(3, header - 1))  # a gap: no tooltip
        assert segment.tooltip is None
        # (below the card's 24 rows: what its tooltip would list)
        assert segment.row_paths(texts.index(moved)) == [
            f"{ROOT}/docs/old.md",
            f"{ROOT}/docs/guide/new.md",
        ]

        (single,) = app.card("t2").query(DiffSegment)
        single.focus()
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, DiffScreen))
        title = app.screen.query_one("#diff-title", PathLines)
        assert title.text == "diff · src/settings.py  +4 -3"
        assert isinstance(title.tooltip, Content)
        assert title.tooltip.plain == f"{ROOT}/src/settings.py"
        await pilot.press("p")
        await pilot.pause()
        assert [n.message for n in app._notifications] == [f"{ROOT}/src/settings.py"]
        assert app.clipboard == f"{ROOT}/src/settings.py"


class Host(App[None]):
    def __init__(self, screen: PermissionScreen) -> None:
        super().__init__()
        self.dialog = screen
        register_themes(self, dirs=[])

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)

    def on_mount(self) -> None:
        self.push_screen(self.dialog)


async def test_permission_dialog_renders_the_diff() -> None:
    patch = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-old\n+new [bold]line[/]\n"
    item: JSONObject = {"type": "diff", "path": "/p/x.py", "patch": {"text": patch}}
    request = PermissionRequest(
        session_id="s",
        permission_id="p",
        title="Edit x.py",
        description=None,
        subject={"type": "tool_call", "toolCall": {"toolCallId": "t1"}},
        options=(PermissionChoice("ok", "Allow", "allow_once"),),
        tool_call_id="t1",
    )
    app = Host(PermissionScreen(request, ToolCall("t1", content=(item,))))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        (view,) = app.dialog.query(DiffView)
        assert "  1 +new [bold]line[/]" in view.row_texts()
        assert not view.can_focus  # the options keep the keyboard


# --- snapshots ---------------------------------------------------------------


class SnapCompare(Protocol):
    def __call__(
        self,
        app: App[None],
        *,
        press: tuple[str, ...] = (),
        terminal_size: tuple[int, int] = (80, 24),
        run_before: Callable[[Pilot[None]], Awaitable[None] | None] | None = None,
    ) -> bool: ...


@pytest.mark.snapshot
def test_diff_view_unified(snap_compare: SnapCompare) -> None:
    """Unified layout at 100 columns. A changes tree on top (`▾ /home/user/
    project/`, `M logo.png  modify  (binary)`, `R new.md  move  from ...`, `M
    settings.py  modify  +4 -3`), then a bold file header on a panel background
    per file with green `+4` and red `-3`; a violet `@@ ... @@ import os` hunk
    header; line numbers in muted grey; removed lines on dark red, added lines on
    dark green, with the changed words (`, *, strict=False`, `(strictly if
    asked)`) on a brighter tint; Python keywords (`def`, `return`, `with`) and
    strings coloured; two `⋯ N unchanged lines` folds in the long context.
    """
    assert snap_compare(DiffApp(document()), terminal_size=(100, 40))


@pytest.mark.snapshot
def test_diff_view_side_by_side(snap_compare: SnapCompare) -> None:
    """Side-by-side layout at 160 columns: old lines left, new lines right of a
    `│` divider, each side with its own line numbers; `-def load(path):` faces
    `+def load(path, *, strict=False):` with the changed words tinted; the
    three-line removal/addition at the end pairs `return parse(...)` with `data =
    handle.read()` and leaves the left side blank for the third added line.
    """
    assert snap_compare(DiffApp(document()), terminal_size=(160, 40))


@pytest.mark.snapshot
def test_diff_view_light_theme_expanded(snap_compare: SnapCompare) -> None:
    """The unified view in `acp-light`, after `e` opened every fold: no `⋯` rows,
    context lines 6-35 all shown; added lines on pale green, removed on pale red.
    """

    async def expand(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, DiffApp)
        app.view.focus()
        await pilot.press("e")

    app = DiffApp(document(), theme="acp-light")
    assert snap_compare(app, terminal_size=(100, 40), run_before=expand)


async def test_unknown_patch_format_is_shown_raw_with_the_changes() -> None:
    item: JSONObject = {
        "type": "diff",
        "changes": [{"operation": "modify", "path": "/p/a.txt"}],
        "patch": {"format": "svn_patch", "text": "Index: a.txt\n[b]x[/b]\n"},
    }
    app = DiffApp(diff_document(item))
    async with app.run_test(size=(100, 20)):
        assert app.view.row_texts() == [
            "▾ /p/",
            "  M a.txt  modify",
            "⚠ could not read the patch (patch format 'svn_patch' is not git_patch);"
            " shown as text",
            "Index: a.txt",
            "[b]x[/b]",
        ]


class TwoDiffsApp(DiffApp):
    """Three `DiffView`s, the third on another background (none focused)."""

    AUTO_FOCUS = None
    CSS = """
    DiffView { height: 1fr; }
    #other { background: red; }
    """

    def compose(self) -> ComposeResult:
        yield DiffView(self.document, id="first")
        yield DiffView(self.document, id="second")
        yield DiffView(self.document, id="other")


async def test_views_styled_alike_share_one_palette_read_once() -> None:
    app = TwoDiffsApp(document())
    async with app.run_test(size=(100, 30)) as pilot:
        first, second, other = app.query(DiffView).results()
        shared = first.shared_palette()
        assert shared == first.palette()
        assert second.shared_palette() is shared
        # Another background (its ancestors' blend): a palette of its own.
        assert other.shared_palette() == other.palette()
        assert other.shared_palette() != shared
        # Focused, the view is tinted: its own palette too.
        second.focus()
        await pilot.pause()
        assert second.shared_palette() is not shared
        assert second.shared_palette() == second.palette()
        # Another theme parses the rules anew: read again, with its colours.
        app.theme = "acp-light"
        await pilot.pause()
        light = first.shared_palette()
        assert light == first.palette()
        assert light.added_bg != shared.added_bg


async def test_theme_change_repaints_with_the_new_colours() -> None:
    app = DiffApp(document())
    async with app.run_test(size=(100, 30)) as pilot:
        dark = app.view.palette()
        app.theme = "acp-light"
        await pilot.pause()
        light = app.view.palette()
        assert light.added_bg != dark.added_bg
        assert light.text != dark.text
        painter = app.view._get_painter()
        assert painter is not None
        assert painter.palette == light


async def test_a_cards_first_paint_of_a_huge_diff_works_on_the_rows_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    highlighted: list[str] = []
    paired: list[int] = []
    highlight = render_diff.highlight_spans
    pairs = row_pairs

    def counting_highlight(path: str, text: str, roles: Iterable[str]) -> object:
        highlighted.append(text)
        return highlight(path, text, roles)

    def counting_pairs(lines: tuple[DiffLine, ...]) -> object:
        paired.append(len(lines))
        return pairs(lines)

    monkeypatch.setattr(render_diff, "highlight_spans", counting_highlight)
    monkeypatch.setattr(render_diff, "row_pairs", counting_pairs)
    item: JSONObject = {
        "type": "diff",
        "patch": {"format": "git_patch", "text": big_patch(6_000)},
    }
    store = SessionStore("diff")
    # Running: a finished card would fold a diff this long.
    store.apply(
        ops.PatchToolCall("t1", kind="edit", status="in_progress", content=[item])
    )
    app = CardsApp(store, panel=False)
    async with app.run_test(size=(100, 40)) as pilot:
        (segment,) = app.card("t1").query(DiffSegment)
        await wait_for(pilot, lambda: segment.rows_painted > 0)
        await pilot.pause()
        assert segment.size.height == CARD_MAX_HEIGHT
        assert len(segment.rows) == 6_002
        # The rows shown, not the 6,000 lines: each highlighted line is shown,
        # and no hunk was paired whole for word highlights.
        assert 0 < segment.rows_painted <= 2 * CARD_MAX_HEIGHT
        assert 0 < len(highlighted) <= 2 * CARD_MAX_HEIGHT
        assert set(highlighted) <= {
            f"value_{n} = {k}" for n in range(30) for k in (n, 2 * n)
        }
        assert paired == []
