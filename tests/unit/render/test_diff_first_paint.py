"""A diff's first screenful costs what it shows: painting the first rows of a huge
patch highlights, word-diffs and pairs only those rows' lines (counted), and every
row is painted as the whole-hunk pairing painted it, on tricky patches."""

from __future__ import annotations

import pytest
from rich.segment import Segment

from acp_tui.diff import parse_patch
from acp_tui.diff.model import DiffLine, row_pairs
from acp_tui.diff.words import Ranges, word_diff
from acp_tui.render import diff as render_diff
from acp_tui.render.diff import (
    TAB_SIZE,
    DiffDocument,
    DiffLayout,
    DiffPainter,
    DiffRow,
    display_text,
)
from tests.unit.diff.test_properties import PALETTE

SHOWN = 24


def huge_patch(pairs: int) -> str:
    """One Python file: `pairs` removed/added pairs between context lines, then
    one block of `pairs` removals followed by `pairs` additions."""
    path = "/p/src/table.py"
    body = [
        f"diff --git a/{path} b/{path}",
        f"--- a/{path}",
        f"+++ b/{path}",
        f"@@ -1,{4 * pairs} +1,{4 * pairs} @@",
    ]
    for n in range(pairs):
        body.append(f" def row_{n}(value):")
        body.append(f"-    return value + {n}")
        body.append(f"+    return value * {n}")
    body.extend(f"-old_{n} = {n}" for n in range(pairs))
    body.extend(f"+new_{n} = {n + 1}" for n in range(pairs))
    return "\n".join(body) + "\n"


class Counted:
    def __init__(self) -> None:
        self.highlighted = 0
        self.word_diffs = 0
        self.paired_hunks = 0


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counted:
    counts = Counted()
    highlight = render_diff.highlight_spans
    words = word_diff
    pairs = row_pairs

    def counting_highlight(*args: object) -> object:
        counts.highlighted += 1
        return highlight(*args)  # type: ignore[arg-type]

    def counting_words(old: str, new: str) -> object:
        counts.word_diffs += 1
        return words(old, new)

    def counting_pairs(lines: tuple[DiffLine, ...]) -> object:
        counts.paired_hunks += 1
        return pairs(lines)

    monkeypatch.setattr(render_diff, "highlight_spans", counting_highlight)
    monkeypatch.setattr(render_diff, "word_diff", counting_words)
    monkeypatch.setattr(render_diff, "row_pairs", counting_pairs)
    return counts


@pytest.mark.parametrize("place", ["top", "middle", "bottom"])
def test_a_screenful_of_a_huge_patch_works_on_its_own_lines(
    counted: Counted, place: str
) -> None:
    document = DiffDocument(parse_patch(huge_patch(10_000)))
    rows = document.rows("unified")
    assert len(rows) > 40_000
    start = {"top": 0, "middle": 15_000, "bottom": len(rows) - SHOWN}[place]
    painter = DiffPainter(document, PALETTE)
    for row in rows[start : start + SHOWN]:
        painter.row(row, 100, "unified")
    # Each shown line is highlighted once and word-diffed at most once; no
    # hunk is paired as a whole (the old painter paired all 40,000 lines).
    assert counted.highlighted <= SHOWN
    assert 0 < counted.word_diffs <= SHOWN
    assert counted.paired_hunks == 0


def test_the_widest_line_is_read_from_the_hunks() -> None:
    document = DiffDocument(parse_patch(huge_patch(50)))
    texts = [line.text for f in document.files for h in f.hunks for line in h.lines]
    assert document.widest_line == max(map(len, texts)) + TAB_SIZE


class WholeHunkPainter(DiffPainter):
    """The painter as it was: each hunk's lines paired all at once."""

    def _line_parts(
        self, file_index: int, row: DiffRow, side: int
    ) -> tuple[DiffLine, Ranges]:
        lines = self.document.files[file_index].hunks[row.hunk].lines
        index = row.old if side == 0 else row.new
        line = lines[index]
        if line.kind == "context":
            return line, ()
        partners = [-1] * len(lines)
        for old, new in row_pairs(lines):
            if old is not None and new is not None and old != new:
                partners[old] = new
                partners[new] = old
        facing = partners[index]
        if facing < 0:
            return line, ()
        old, new = (index, facing) if line.kind == "removed" else (facing, index)
        ranges = word_diff(display_text(lines[old].text), display_text(lines[new].text))
        return line, ranges[0] if line.kind == "removed" else ranges[1]


LONG = "x = " + "+".join(f"value_{n}" for n in range(60))
TRICKY = (
    "diff --git a/src/app.py b/src/app.py\n"
    "--- a/src/app.py\n"
    "+++ b/src/app.py\n"
    "@@ -1,16 +1,17 @@ class App:\n"
    " import os\n"
    "-def load(path):\n"
    "-\treturn open(path)\n"
    "+def load(path, *, strict=False):\n"
    "+\treturn open(path, 'rb')\n"
    "+# added \x1b[31mred\x1b[0m and a bell \x07\n"
    + "".join(f" # context {n}\n" for n in range(14))
    + f"-{LONG}\n"
    f"+{LONG.replace('value_30', 'renamed_30')}\n"
    "+only added\n"
    "-only removed\r\n"
    " tail\n"
    "\\ No newline at end of file\n"
    "diff --git a/docs/old.md b/docs/guide/new.md\n"
    "similarity index 88%\n"
    "rename from docs/old.md\n"
    "rename to docs/guide/new.md\n"
    "--- a/docs/old.md\n"
    "+++ b/docs/guide/new.md\n"
    "@@ -1,3 +1,3 @@\n"
    "-# Old title\n"
    "+# New title\n"
    " Some text.\n"
    "+more\n"
    "diff --git a/bin/tool b/bin/tool\n"
    "old mode 100644\n"
    "new mode 100755\n"
)


def painted(
    painter: DiffPainter, document: DiffDocument, layout: DiffLayout, width: int
) -> list[list[Segment]]:
    out: list[list[Segment]] = []
    for row in document.rows(layout):
        out.append(painter.row(row, width, layout))
        if layout == "unified" and row.kind == "line":
            out.append(painter.row(row, width, layout, scroll_x=7))
    return out


@pytest.mark.parametrize("layout", ["unified", "split"])
@pytest.mark.parametrize("width", [30, 80, 200])
@pytest.mark.parametrize("expanded", [False, True])
def test_tricky_patches_paint_as_the_whole_hunk_pairing_did(
    layout: DiffLayout, width: int, expanded: bool
) -> None:
    patch = parse_patch(TRICKY)
    assert not patch.unparsed
    assert len(patch.files) == 3
    document = DiffDocument(patch, [{"operation": "modify", "path": "src/app.py"}])
    assert document.folds
    if expanded:
        document.expand_all()
    now = painted(DiffPainter(document, PALETTE), document, layout, width)
    before = painted(WholeHunkPainter(document, PALETTE), document, layout, width)
    assert now == before
    # Word emphasis is part of what was compared.
    emphasis = {PALETTE.added_word_bg, PALETTE.removed_word_bg}
    assert any(
        s.style is not None and str(s.style.bgcolor.name) in emphasis
        for row in now
        for s in row
        if s.style is not None and s.style.bgcolor is not None
    )
