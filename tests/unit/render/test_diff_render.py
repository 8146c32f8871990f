"""Diff rendering: rows in both layouts, colours from the palette, word and syntax
highlights, folds, the changes tree, unparsed and patch-less diffs."""

from __future__ import annotations

from rich.cells import cell_len
from rich.segment import Segment

from acp_tui.diff import parse_patch, patch_from_texts
from acp_tui.display_paths import PathDisplay
from acp_tui.render.diff import (
    DiffDocument,
    DiffPainter,
    DiffRow,
    changes_tree,
    highlight_spans,
)
from tests.unit.diff.test_properties import PALETTE, REAL

PATCH = (
    "diff --git /p/app.py /p/app.py\n"
    "--- /p/app.py\n"
    "+++ /p/app.py\n"
    "@@ -1,3 +1,3 @@ class A:\n"
    " def answer():\n"
    "-    return 41\n"
    "+    return 42\n"
    " # done\n"
)


def texts(
    document: DiffDocument, layout: str = "unified", width: int = 80
) -> list[str]:
    painter = DiffPainter(document, PALETTE)
    return [
        painter.row_text(row, "unified" if layout == "unified" else "split", width)
        for row in document.rows("unified" if layout == "unified" else "split")
    ]


def find(segments: list[Segment], text: str) -> Segment:
    return next(s for s in segments if s.text == text)


def test_unified_rows() -> None:
    document = DiffDocument(parse_patch(PATCH))
    assert texts(document) == [
        " modify /p/app.py  +1 -1",
        "@@ -1,3 +1,3 @@ class A:",
        "1 1  def answer():",
        "2   -    return 41",
        "  2 +    return 42",
        "3 3  # done",
    ]


def test_split_rows_put_old_left_and_new_right() -> None:
    document = DiffDocument(parse_patch(PATCH))
    rows = texts(document, "split", 61)
    assert rows[2] == "1  def answer():" + " " * 14 + "│1  def answer():"
    left, right = rows[3].split("│")
    assert left.rstrip() == "2 -    return 41"
    assert right == "2 +    return 42"
    assert len(left) == 30


def test_every_row_is_exactly_the_width_asked_for() -> None:
    wide = patch_from_texts(
        "/p/wide.txt", "日本語のテキスト\n", "日本語テキスト\tタブ\n"
    )
    for text in (PATCH, REAL, wide):
        document = DiffDocument(parse_patch(text))
        painter = DiffPainter(document, PALETTE)
        for layout in ("unified", "split"):
            for row in document.rows(layout):
                for width in (1, 7, 33, 120):
                    segments = painter.row(row, width, layout)
                    assert sum(cell_len(s.text) for s in segments) == width


def test_lines_are_coloured_from_the_palette() -> None:
    document = DiffDocument(parse_patch(PATCH))
    painter = DiffPainter(document, PALETTE)
    rows = document.rows("unified")
    removed = painter.row(rows[3], 60, "unified")
    added = painter.row(rows[4], 60, "unified")
    assert find(removed, "-").style is not None
    assert str(find(removed, "-").style.color.name) == PALETTE.removed  # type: ignore[union-attr]
    assert all(
        s.style is not None and s.style.bgcolor is not None for s in added
    )  # the whole row, padding included, has the added background
    hunk = painter.row(rows[1], 60, "unified")
    assert hunk[0].style is not None
    assert hunk[0].style.color is not None
    assert hunk[0].style.color.name == PALETTE.hunk


def test_changed_words_get_the_word_background() -> None:
    document = DiffDocument(parse_patch(PATCH))
    painter = DiffPainter(document, PALETTE)
    rows = document.rows("unified")
    old = painter.row(rows[3], 60, "unified")
    new = painter.row(rows[4], 60, "unified")
    assert find(old, "41").style.bgcolor.name == PALETTE.removed_word_bg  # type: ignore[union-attr]
    assert find(new, "42").style.bgcolor.name == PALETTE.added_word_bg  # type: ignore[union-attr]
    unchanged = [s for s in new if "return" in s.text]
    assert unchanged
    assert all(s.style.bgcolor.name == PALETTE.added_bg for s in unchanged)  # type: ignore[union-attr]


def test_syntax_is_highlighted_by_file_type() -> None:
    assert highlight_spans("/p/a.py", "def f(): return 'x'", ("Keyword", "String")) == (
        (0, 3, "Keyword"),
        (9, 15, "Keyword"),
        (16, 19, "String"),
    )
    assert highlight_spans("/p/notes.unknown-ext", "def f()", ("Keyword",)) == ()
    document = DiffDocument(parse_patch(PATCH))
    painter = DiffPainter(document, PALETTE)
    row = painter.row(document.rows("unified")[4], 60, "unified")
    assert find(row, "return").style.color.name == PALETTE.syntax["Keyword"]  # type: ignore[union-attr]


def test_folds_hide_long_context_until_expanded() -> None:
    old = "".join(f"line {n}\n" for n in range(1, 41))
    new = old.replace("line 20\n", "line twenty\n")
    # A whole-file hunk (as `git diff -U40` writes it) folds its long context.
    text = patch_from_texts("/p/f.txt", old, new)
    full = text.replace("@@ -17,7 +17,7 @@", "@@ -1,40 +1,40 @@")
    lines = full.split("\n")
    head = lines[:3]
    body = [" " + f"line {n}" for n in range(1, 20)]
    body += ["-line 20", "+line twenty"]
    body += [" " + f"line {n}" for n in range(21, 41)]
    full = "\n".join([*head, "@@ -1,40 +1,40 @@", *body, ""])
    document = DiffDocument(parse_patch(full))
    assert len(document.folds) == 2
    rows = texts(document)
    assert rows[2] == "  ⋯ 16 unchanged lines (click or Enter to show)"
    assert rows[3].endswith(" line 17")
    assert rows[-1] == "  ⋯ 17 unchanged lines (click or Enter to show)"
    split = texts(document, "split", 100)
    assert split[2].startswith("  ⋯ 16 unchanged")
    fold = next(r.fold for r in document.rows("unified") if r.kind == "fold")
    assert document.expand(fold)
    assert not document.expand(fold)
    rows = texts(document)
    assert rows[2].endswith(" line 1")
    assert document.expand_all()
    assert not any(r.kind == "fold" for r in document.rows("split"))


def test_header_notes_for_renames_modes_binaries() -> None:
    document = DiffDocument(parse_patch(REAL))
    rows = texts(document, width=200)
    assert " copy /r/big.txt → /r/copy.txt (92% similar)  +1 -1" in rows
    assert "  binary file: no text diff" in rows
    assert "  mode 100644 → 100755" in rows
    assert " delete /r/del.txt  +0 -1" in rows
    assert " add /r/spa ce é.py  +2 -0" in rows
    assert any(r.endswith("c ⊘ no newline at end of file") for r in rows)
    assert any(r.endswith("hello\\r") for r in rows)
    assert any(r.endswith('x = "ünï"') for r in rows)


def test_changes_tree_groups_by_folder() -> None:
    changes: list[dict[str, object]] = [
        {"operation": "modify", "path": "/home/u/proj/src/app.py"},
        {"operation": "add", "path": "/home/u/proj/src/util/new.py"},
        {"operation": "delete", "path": "/home/u/proj/README.md"},
        {
            "operation": "move",
            "oldPath": "/home/u/proj/a.png",
            "path": "/home/u/proj/img/b.png",
            "fileType": "binary",
        },
    ]
    patch = parse_patch(
        patch_from_texts("/home/u/proj/src/app.py", "a\nb\n", "a\nc\nd\n")
    )
    entries = changes_tree(changes, patch)
    lines = ["  " * e.depth + e.name for e in entries]
    assert lines == [
        "/home/u/proj/",
        "  img/",
        "    b.png",
        "  src/",
        "    util/",
        "      new.py",
        "    app.py",
        "  README.md",
    ]
    app = next(e for e in entries if e.name == "app.py")
    assert (app.operation, app.detail, app.file) == ("modify", "+2 -1", 0)
    png = next(e for e in entries if e.name == "b.png")
    assert png.detail == "from /home/u/proj/a.png (binary)"


PROJECT = PathDisplay("/home/u/proj", "/home/u")
"""Paths relative to /home/u/proj, with /home/u as `~`."""


def test_file_headers_read_relative_to_the_sessions_directory() -> None:
    patch = PATCH.replace("/p/app.py", "/home/u/proj/src/app.py")
    document = DiffDocument(parse_patch(patch), paths=PROJECT)
    assert texts(document)[0] == " modify src/app.py  +1 -1"
    elsewhere = DiffDocument(
        parse_patch(PATCH.replace("/p/", "/home/u/x/")), paths=PROJECT
    )
    assert texts(elsewhere)[0] == " modify ~/x/app.py  +1 -1"
    assert texts(DiffDocument(parse_patch(PATCH), paths=PROJECT))[0] == (
        " modify /p/app.py  +1 -1"
    )


def test_file_headers_shorten_the_path_from_the_left_to_the_width() -> None:
    deep = "/srv/ws/demo-0001/src/pkg/greeting.py"
    document = DiffDocument(parse_patch(PATCH.replace("/p/app.py", deep)))
    assert texts(document, width=80)[0] == f" modify {deep}  +1 -1"
    # 30 cells: " modify " (8), the path, "  +1 -1 " (8): 14 cells for the path.
    assert texts(document, width=30)[0] == " modify …/greeting.py  +1 -1"
    assert texts(document, width=36)[0] == " modify …/pkg/greeting.py  +1 -1"


def test_a_moves_two_paths_share_the_width() -> None:
    document = DiffDocument(parse_patch(REAL), paths=PathDisplay("/r"))
    rows = texts(document, width=200)
    assert " copy big.txt → copy.txt (92% similar)  +1 -1" in rows
    deep = DiffDocument(parse_patch(REAL.replace("/r/", "/srv/ws/demo-0001/src/pkg/")))
    # 58 cells: " copy ", " → ", " (92% similar)", "  +1 -1 " leave 27 for the
    # paths: the old one gets half, the new one the rest.
    rows = texts(deep, width=58)
    assert " copy …/pkg/big.txt → …/pkg/copy.txt (92% similar)  +1 -1" in rows
    rows = texts(deep, width=50)
    assert " copy …/big.txt → …/copy.txt (92% similar)  +1 -1" in rows


def test_the_changes_tree_reads_relative_to_the_sessions_directory() -> None:
    changes: list[dict[str, object]] = [
        {"operation": "modify", "path": "/home/u/proj/src/app.py"},
        {"operation": "delete", "path": "/home/u/proj/README.md"},
        {"operation": "move", "oldPath": "/home/u/proj/a.png", "path": "/home/u/b.png"},
    ]
    entries = changes_tree(changes, None, PROJECT)
    lines = [
        "  " * e.depth + e.name + (f"  {e.detail}" if e.detail else "") for e in entries
    ]
    assert lines == ["src/", "  app.py", "~/", "  b.png  from a.png", "README.md"]


def test_patchless_diff_shows_the_changes_tree_alone() -> None:
    changes = [
        {"operation": "delete", "path": "/p/old.txt"},
        {"operation": "modify", "path": "/p/logo.png", "fileType": "binary"},
    ]
    document = DiffDocument(None, changes)
    assert texts(document) == [
        "▾ /p/",
        "  M logo.png  modify  (binary)",
        "  D old.txt  delete",
    ]
    assert texts(DiffDocument(None, [])) == ["  (no changes listed)"]


def test_unparsed_patch_is_shown_raw_with_a_note() -> None:
    document = DiffDocument(parse_patch("this is \x1b[31mnot\x1b[0m a patch\nline 2\n"))
    assert texts(document) == [
        "⚠ could not read the patch (no diff sections found); shown as text",
        "this is \\x1b[31mnot\\x1b[0m a patch",
        "line 2",
    ]


def test_paths_outside_changes_are_noted() -> None:
    changes = [{"operation": "modify", "path": "/other.py"}]
    rows = texts(DiffDocument(parse_patch(PATCH), changes))
    assert rows[0] == "⚠ path not listed in changes: /p/app.py"


def test_scroll_x_shifts_code_but_not_the_gutter() -> None:
    document = DiffDocument(parse_patch(PATCH))
    painter = DiffPainter(document, PALETTE)
    row = document.rows("unified")[4]
    shifted = "".join(s.text for s in painter.row(row, 30, "unified", scroll_x=4))
    assert shifted.rstrip() == "  2 +return 42"


def test_markup_in_agent_text_is_kept_literally() -> None:
    text = patch_from_texts("/p/x.txt", "a\n", "[bold]b[/bold] [link=x]c\n")
    document = DiffDocument(parse_patch(text))
    assert "  1 +[bold]b[/bold] [link=x]c" in texts(document)
    row = DiffRow("note", text="[red]x[/red]")
    painter = DiffPainter(document, PALETTE)
    assert painter.row_text(row, "unified") == "  [red]x[/red]"


def test_leniently_read_hunks_carry_a_warning_row() -> None:
    text = "diff --git /p/a /p/a\n--- /p/a\n+++ /p/a\n@@ -1,9 +1,9 @@\n-x\n+y\n"
    rows = texts(DiffDocument(parse_patch(text)))
    assert rows[:2] == [
        " modify /p/a  +1 -1",
        "⚠ hunk sizes disagree with their headers (Hunk is shorter than expected)",
    ]
    assert rows[-2:] == [" 1    -x", "    1 +y"]  # numbers sized for -1,9
