"""The parser without git: malformed text, plain unified diffs, v1 conversion,
path checks, word diffs, folds and side-by-side pairs."""

from __future__ import annotations

import pytest

from acp_tui.diff import (
    FilePatch,
    check_paths,
    context_folds,
    parse_patch,
    patch_from_texts,
    row_pairs,
    word_diff,
)
from acp_tui.diff.model import DiffLine, Hunk
from acp_tui.diff.parse import split_lines

SPEC_PATCH = (
    "diff --git /home/user/project/src/config.json /home/user/project/src/config.json\n"
    "--- /home/user/project/src/config.json\n"
    "+++ /home/user/project/src/config.json\n"
    "@@ -1,3 +1,3 @@\n"
    " {\n"
    '-  "debug": false\n'
    '+  "debug": true\n'
    " }\n"
)


def body(raw: str, line: DiffLine) -> str:
    """A source line without the ending the patch line says it has."""
    text = raw[:-1] if raw.endswith("\n") else raw
    return text[:-1] if line.crlf else text


def apply(old: str, file: FilePatch) -> str:
    """Apply a file's hunks to `old` (the test's own patch applier)."""
    lines = split_lines(old)
    out: list[str] = []
    position = 0
    for hunk in file.hunks:
        start = hunk.old_start - 1 if hunk.old_count else hunk.old_start
        out.extend(lines[position:start])
        position = start
        for line in hunk.lines:
            ending = "" if line.no_newline else ("\r\n" if line.crlf else "\n")
            if line.kind == "context":
                assert body(lines[position], line) == line.text
                out.append(line.text + ending)
                position += 1
            elif line.kind == "removed":
                assert body(lines[position], line) == line.text
                position += 1
            else:
                out.append(line.text + ending)
    out.extend(lines[position:])
    return "".join(out)


def test_spec_example_patch() -> None:
    patch = parse_patch(SPEC_PATCH)
    (file,) = patch.files
    assert file.operation == "modify"
    assert file.path == "/home/user/project/src/config.json"
    assert (file.added, file.removed) == (1, 1)
    assert file.hunks[0].header == "@@ -1,3 +1,3 @@"
    changes = [{"operation": "modify", "path": "/home/user/project/src/config.json"}]
    assert check_paths(patch, changes) == []


@pytest.mark.parametrize(
    "text",
    [
        "",
        "hello world\n",
        "diff --git\n",
        "\x00\x1b[31mred\x1b[0m",
    ],
)
def test_text_that_is_not_a_patch_is_unparsed(text: str) -> None:
    patch = parse_patch(text)
    assert patch.unparsed
    assert patch.raw == text
    assert patch.error


def test_a_broken_section_is_kept_raw_and_the_others_parse() -> None:
    broken = (
        "diff --git /p/b.txt /p/b.txt\n--- /p/b.txt\n+++ /p/b.txt\n"
        "@@ -1,5 +1,5 @@\n-x\n+y\nthis is no hunk line\n"
    )
    patch = parse_patch(SPEC_PATCH + broken)
    assert not patch.unparsed
    good, bad = patch.files
    assert good.error is None
    assert bad.error is not None
    assert bad.raw == broken
    assert bad.path == "/p/b.txt"


def test_all_sections_broken_makes_the_patch_unparsed() -> None:
    text = "diff --git /p/a /p/a\n--- /p/a\n+++ /p/a\n@@ -1,3 +1,3 @@\n ok\nbad\n"
    patch = parse_patch(text)
    assert patch.unparsed
    assert patch.files[0].error is not None


def test_hunks_with_wrong_counts_are_read_leniently_with_a_warning() -> None:
    text = (
        "diff --git /p/a.py /p/a.py\n--- /p/a.py\n+++ /p/a.py\n"
        "@@ -1,3 +1,3 @@\n def answer():\n-    return 41\n+    return 42\n"
        "@@ -10,2 +10,9 @@\n x\r\n+y\n\\ No newline at end of file\n\n"
    )
    patch = parse_patch(text)
    (file,) = patch.files
    assert patch.error is None
    assert file.error is None
    assert file.warnings
    assert "disagree" in file.warnings[0]
    first, second = file.hunks
    assert [(x.kind, x.old, x.new, x.text) for x in first.lines] == [
        ("context", 1, 1, "def answer():"),
        ("removed", 2, None, "    return 41"),
        ("added", None, 2, "    return 42"),
    ]
    assert [(x.kind, x.text, x.crlf, x.no_newline) for x in second.lines] == [
        ("context", "x", True, False),
        ("added", "y", False, True),
    ]


def test_plain_unified_diff_without_git_header() -> None:
    text = (
        "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-old\n+new\n"
        "--- a/y.py\n+++ b/y.py\n@@ -1 +1,2 @@\n keep\n+more\n"
    )
    patch = parse_patch(text)
    assert [(f.path, f.added, f.removed) for f in patch.files] == [
        ("x.py", 1, 1),
        ("y.py", 1, 0),
    ]


def test_bare_hunks_are_read_without_a_path() -> None:
    (file,) = parse_patch("@@ -1 +1 @@\n-a\n+b\n").files
    assert (file.path, file.added, file.removed, file.error) == ("?", 1, 1, None)
    assert check_paths(parse_patch("@@ -1 +1 @@\n-a\n+b\n")) == []


def test_git_header_only_sections() -> None:
    text = (
        "diff --git /p/a.sh /p/a.sh\nold mode 100644\nnew mode 100755\n"
        "diff --git /p/logo.png /p/logo.png\n"
        "index 1111111..2222222 100644\n"
        "Binary files /p/logo.png and /p/logo.png differ\n"
    )
    mode, binary = parse_patch(text).files
    assert mode.mode_changed
    assert mode.operation == "modify"
    assert mode.error is None
    assert binary.binary
    assert binary.hunks == ()


def test_check_paths_reports_relative_and_unlisted_paths() -> None:
    text = SPEC_PATCH.replace("/home/user/project/src/config.json", "src/config.json")
    assert check_paths(parse_patch(text)) == ["path is not absolute: src/config.json"]
    other = [{"operation": "modify", "path": "/elsewhere.json"}]
    assert check_paths(parse_patch(SPEC_PATCH), other) == [
        "path not listed in changes: /home/user/project/src/config.json"
    ]
    moved = [{"operation": "move", "oldPath": "/a", "path": "/b"}]
    rename = "diff --git /a /b\nsimilarity index 100%\nrename from /a\nrename to /b\n"
    (file,) = parse_patch(rename).files
    assert (file.operation, file.old_path, file.new_path) == ("rename", "/a", "/b")
    assert check_paths(parse_patch(rename), moved) == []


# --- v1 old/new text ---------------------------------------------------------


def test_v1_new_file() -> None:
    text = patch_from_texts("/p/new.txt", None, "a\nb\n")
    assert text.startswith("diff --git /p/new.txt /p/new.txt\nnew file mode 100644\n")
    assert "--- /dev/null\n+++ /p/new.txt\n@@ -0,0 +1,2 @@\n" in text
    (file,) = parse_patch(text).files
    assert (file.operation, file.old_path, file.new_path) == ("add", None, "/p/new.txt")
    assert apply("", file) == "a\nb\n"


def test_v1_modify_and_delete() -> None:
    (modify,) = parse_patch(patch_from_texts("/p/x", "a\nb\nc\n", "a\nB\nc\n")).files
    assert (modify.operation, modify.added, modify.removed) == ("modify", 1, 1)
    (delete,) = parse_patch(patch_from_texts("/p/x", "a\n", None)).files
    assert (delete.operation, delete.new_path, delete.removed) == ("delete", None, 1)


def test_v1_missing_newline_round_trips() -> None:
    text = patch_from_texts("/p/x", "one\ntwo", "one\ntwo\nthree")
    assert "\\ No newline at end of file" in text
    (file,) = parse_patch(text).files
    assert apply("one\ntwo", file) == "one\ntwo\nthree"


def test_v1_equal_texts_give_a_header_only_patch() -> None:
    (file,) = parse_patch(patch_from_texts("/p/x", "same\n", "same\n")).files
    assert (file.operation, file.hunks) == ("modify", ())


def test_v1_path_needing_quotes_round_trips() -> None:
    path = '/p/we"ird\tname é'
    (file,) = parse_patch(patch_from_texts(path, "a\n", "b\n")).files
    assert file.path == path


# --- word diff, folds, pairs ------------------------------------------------


def test_word_diff_marks_the_changed_words() -> None:
    old, new = word_diff("    return answer + 41", "    return answer + 42")
    assert [("    return answer + 41"[a:b]) for a, b in old] == ["41"]
    assert [("    return answer + 42"[a:b]) for a, b in new] == ["42"]


def test_word_diff_of_unrelated_or_equal_lines_is_empty() -> None:
    assert word_diff("same", "same") == ((), ())
    assert word_diff("alpha beta", "gamma delta epsilon") == ((), ())
    assert word_diff("x" * 1500, "y" * 1500) == ((), ())


def test_word_diff_merges_adjacent_changes() -> None:
    old, new = word_diff("call(a, b)", "call(x.y, b)")
    assert ["call(a, b)"[s:e] for s, e in old] == ["a"]
    assert ["call(x.y, b)"[s:e] for s, e in new] == ["x.y"]


def lines(kinds: str) -> tuple[DiffLine, ...]:
    names = {" ": "context", "-": "removed", "+": "added"}
    return tuple(
        DiffLine(names[k], None, None, str(i))  # type: ignore[arg-type]
        for i, k in enumerate(kinds)
    )


def test_row_pairs_zip_removals_with_additions() -> None:
    assert row_pairs(lines(" --+ +")) == [
        (0, 0),
        (1, 3),
        (2, None),
        (4, 4),
        (None, 5),
    ]
    assert row_pairs(lines("+-")) == [(None, 0), (1, None)]


def test_long_context_runs_fold_around_the_changes() -> None:
    hunk = Hunk(1, 30, 1, 30, "", lines(" " * 10 + "-+" + " " * 12 + "+" + " " * 5))
    file = FilePatch("/p", "/p", "modify", (hunk,))
    folds = context_folds(file)
    # Leading run: all but the last 3 lines; inner run: keep 3 on each side.
    assert [(f.start, f.end) for f in folds] == [(0, 7), (15, 21)]
    assert folds[1].count == 6
    # Git's usual 3-line context does not fold.
    small = Hunk(1, 7, 1, 7, "", lines("   -+   "))
    assert context_folds(FilePatch("/p", "/p", "modify", (small,))) == ()
