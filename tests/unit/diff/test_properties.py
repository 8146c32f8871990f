"""Properties: parsing then rendering never raises, on any text and on mutated
real patches; v1 conversion round-trips."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len

from acp_tui.diff import parse_patch, patch_from_texts
from acp_tui.render.diff import DiffDocument, DiffPainter, DiffPalette
from tests.unit.diff.test_parse import apply

PALETTE = DiffPalette(
    text="#ffffff",
    muted="#888888",
    added="#00ff00",
    added_bg="#002200",
    added_word_bg="#005500",
    removed="#ff0000",
    removed_bg="#220000",
    removed_word_bg="#550000",
    hunk="#ff00ff",
    header="#00ffff",
    header_bg="#222222",
    warning="#ffff00",
    syntax={"Keyword": "#0000ff", "String": "#00ff88", "Comment": "#777777"},
)

# Real git output (`git diff --cached -M -C --binary`, absolute paths), kept as
# text so the property needs no git.
REAL = (
    "diff --git /r/b.bin /r/b.bin\n"
    "index 88768ef..3e3315e 100644\n"
    "GIT binary patch\nliteral 5\nMcmZQzO3KUw00MIXJOBUy\n\nliteral 5\n"
    "McmZQzOv=my00M6TI{*Lx\n\n"
    "diff --git /r/big.txt /r/copy.txt\n"
    "similarity index 92%\ncopy from /r/big.txt\ncopy to /r/copy.txt\n"
    "index 96cc558..33519ea 100644\n--- /r/big.txt\n+++ /r/copy.txt\n"
    "@@ -22,7 +22,7 @@ def f():\n 22\n 23\n 24\n-25\n+twenty-five\n 26\n 27\n 28\n"
    "diff --git /r/crlf.txt /r/crlf.txt\nold mode 100644\nnew mode 100755\n"
    "index 23eb407..e1598f5\n--- /r/crlf.txt\n+++ /r/crlf.txt\n"
    "@@ -1,2 +1,2 @@\n hello\r\n-world\r\n+World\r\n"
    "diff --git /r/del.txt /r/del.txt\ndeleted file mode 100644\n"
    "index 2fa992c..0000000\n--- /r/del.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-keep\n"
    'diff --git "/r/spa ce \\303\\251.py" "/r/spa ce \\303\\251.py"\n'
    "new file mode 100644\nindex 0000000..7284e55\n--- /dev/null\n"
    '+++ "/r/spa ce \\303\\251.py"\t\n@@ -0,0 +1,2 @@\n+x = "ünï"\n+\tdef 日本()\n'
    "diff --git /r/x.py /r/x.py\nindex de98044..36ef1ba 100644\n--- /r/x.py\n"
    "+++ /r/x.py\n@@ -1,3 +1,3 @@\n a\n-b = 1\n-c\n+b = 2\n+c\n"
    "\\ No newline at end of file\n"
)

WIDTHS = st.integers(min_value=1, max_value=160)


def render_everything(text: str, width: int, changes: list[dict[str, object]]) -> None:
    document = DiffDocument(parse_patch(text), changes)
    painter = DiffPainter(document, PALETTE)
    for layout in ("unified", "split"):
        for row in document.rows(layout):
            segments = painter.row(row, width, layout, scroll_x=width // 3)
            assert sum(cell_len(s.text) for s in segments) == width
    document.expand_all()
    for row in document.rows("unified"):
        painter.row(row, width, "unified")


@settings(max_examples=300, deadline=None)
@given(st.text(), WIDTHS)
def test_any_text_parses_and_renders(text: str, width: int) -> None:
    render_everything(text, width, [])


LINE_PIECES = st.sampled_from(
    [
        "diff --git /a /b\n",
        "--- /a\n",
        "+++ /b\n",
        "@@ -1,2 +1,2 @@\n",
        "@@ -0,0 +1 @@ x\n",
        " ctx\n",
        "-old\n",
        "+new\n",
        "\\ No newline at end of file\n",
        "rename from /a\n",
        "copy to /c\n",
        "similarity index 90%\n",
        "new file mode 100644\n",
        "GIT binary patch\n",
        "Binary files /a and /b differ\n",
        "\r\n",
        "\n",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(LINE_PIECES, max_size=30), WIDTHS)
def test_patch_like_line_soup_parses_and_renders(pieces: list[str], width: int) -> None:
    render_everything("".join(pieces), width, [{"operation": "modify", "path": "/a"}])


@st.composite
def mutated(draw: st.DrawFn) -> str:
    lines = REAL.split("\n")
    for _ in range(draw(st.integers(1, 6))):
        index = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["drop", "dup", "edit", "insert", "swap"]))
        if action == "drop" and len(lines) > 1:
            del lines[index]
        elif action == "dup":
            lines.insert(index, lines[index])
        elif action == "edit":
            line = lines[index]
            cut = draw(st.integers(0, len(line)))
            lines[index] = line[:cut] + draw(st.text(max_size=5)) + line[cut + 1 :]
        elif action == "insert":
            lines.insert(index, draw(st.text(max_size=20)))
        else:
            other = draw(st.integers(0, len(lines) - 1))
            lines[index], lines[other] = lines[other], lines[index]
    return "\n".join(lines)


@settings(max_examples=300, deadline=None)
@given(mutated(), WIDTHS)
def test_mutated_real_patches_parse_and_render(text: str, width: int) -> None:
    changes: list[dict[str, object]] = [
        {"operation": "modify", "path": "/r/x.py"},
        {"operation": "copy", "oldPath": "/r/big.txt", "path": "/r/copy.txt"},
    ]
    render_everything(text, width, changes)


def test_the_real_patch_parses_cleanly() -> None:
    patch = parse_patch(REAL)
    assert patch.error is None
    assert [f.operation for f in patch.files] == [
        "modify",
        "copy",
        "modify",
        "delete",
        "add",
        "modify",
    ]
    assert all(f.error is None for f in patch.files)


TEXTS = st.lists(
    st.sampled_from(["a", "b", "c", "", "x y", "\t", "é", "\r"]), max_size=12
).map("\n".join)


@settings(max_examples=300, deadline=None)
@given(TEXTS, TEXTS, st.booleans())
def test_v1_conversion_round_trips(old: str, new: str, new_file: bool) -> None:
    patch = parse_patch(patch_from_texts("/p/f.txt", None if new_file else old, new))
    assert patch.error is None
    (file,) = patch.files
    assert file.error is None
    assert apply("" if new_file else old, file) == new
