"""Diffs as rows of Rich `Segment`s: unified and side-by-side, one row at a time.

`DiffDocument` lays a parsed patch (and the diff item's `changes`) out as a flat
list of `DiffRow`s, cheap records that say what a row shows without styling it;
`DiffPainter` turns one row into `Segment`s at a given width. A widget keeps the
document, asks only for the rows on screen, and caches the result, so a patch of
tens of thousands of lines costs one pass to lay out and a screenful to paint.

Colours come in as a `DiffPalette` (the UI resolves theme variables into it);
nothing here picks a colour of its own. Paths in file headers and the changes
tree are shown as the document's `PathDisplay` shows them (relative to the
session's directory, `~`), a header's shortened from the left to the row's
width; warnings about paths keep them exact. Syntax highlighting uses the pygments
lexer for each file's name, one line at a time (cached), with token colours from
the palette. Agent text is data: it is made printable and never read as markup.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise
from typing import Final, Literal, TypeAlias

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_for_filename
from pygments.token import _TokenType
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from acp_tui.diff.model import (
    DiffLine,
    FilePatch,
    Fold,
    ParsedPatch,
    context_folds,
    partner,
    row_pairs,
)
from acp_tui.diff.parse import check_paths
from acp_tui.diff.words import Ranges, word_diff
from acp_tui.display_paths import AS_SENT, PathDisplay
from acp_tui.render.highlight import find_lexer
from acp_tui.safe_text import printable

__all__ = [
    "SPLIT_MIN_WIDTH",
    "SYNTAX_ROLES",
    "DiffDocument",
    "DiffLayout",
    "DiffPainter",
    "DiffPalette",
    "DiffRow",
    "RowKind",
    "SyntaxSpans",
    "TreeEntry",
    "changes_tree",
    "display_text",
    "file_paths",
    "file_title",
    "highlight_spans",
    "lexer_spans",
]

DiffLayout: TypeAlias = Literal["unified", "split"]
"""Unified (one column, `-` above `+`) or split (old left, new right)."""

RowKind: TypeAlias = Literal[
    "tree", "file", "note", "hunk", "line", "pair", "fold", "raw", "gap"
]
"""What a row shows (see `DiffRow`)."""

SPLIT_MIN_WIDTH: Final = 140
"""From this width on, the automatic layout is side by side."""

TAB_SIZE: Final = 4

SyntaxSpans: TypeAlias = tuple[tuple[int, int, str], ...]
"""`(start, end, token type name)` per coloured token of a line."""

SYNTAX_ROLES: Final = (
    "Comment",
    "Keyword",
    "Name.Builtin",
    "Name.Class",
    "Name.Decorator",
    "Name.Function",
    "Name.Tag",
    "Name.Attribute",
    "String",
    "Number",
    "Operator",
    "Literal",
    "Generic.Error",
)
"""Pygments token types a palette may colour (subtypes inherit the colour)."""

_OPERATION_LABELS: Final = {
    "add": "add",
    "delete": "delete",
    "modify": "modify",
    "rename": "move",
    "copy": "copy",
}
_OPERATION_MARKS: Final = {
    "add": "A",
    "delete": "D",
    "modify": "M",
    "move": "R",
    "rename": "R",
    "copy": "C",
}


@dataclass(frozen=True, slots=True)
class DiffPalette:
    """The colours a diff is painted with (any Rich colour: `#rrggbb`, names).

    Attributes:
        text: Ordinary text.
        muted: Line numbers, folds and other secondary text.
        added: Added-line text and `+` marks.
        added_bg: Added-line background.
        added_word_bg: Background of the changed words of an added line.
        removed: Removed-line text and `-` marks.
        removed_bg: Removed-line background.
        removed_word_bg: Background of the changed words of a removed line.
        hunk: Hunk headers.
        header: File headers.
        header_bg: File header background.
        warning: Notes about problems (unparsed text, unexpected paths).
        syntax: Token colours by pygments type name (see `SYNTAX_ROLES`).
    """

    text: str
    muted: str
    added: str
    added_bg: str
    added_word_bg: str
    removed: str
    removed_bg: str
    removed_word_bg: str
    hunk: str
    header: str
    header_bg: str
    warning: str
    syntax: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class DiffRow:
    """One screen row of a laid-out diff.

    Attributes:
        kind: `tree` (a line of the changes summary), `file` (a file header),
            `note` (a remark, `text`), `hunk` (a hunk header), `line` (one hunk
            line, unified), `pair` (old and new side by side), `fold` (hidden
            context), `raw` (unparsed text) or `gap` (blank separator).
        file: The file's index in the patch (-1 if none).
        hunk: The hunk's index in the file (-1 if none).
        old: The hunk line shown (unified), or the old side's line (split); -1
            for none.
        new: The new side's line (split only); -1 for none.
        fold: The fold's index in `DiffDocument.folds` (fold rows).
        text: The text of tree, note and raw rows.
        tone: How a note or tree row is coloured.
    """

    kind: RowKind
    file: int = -1
    hunk: int = -1
    old: int = -1
    new: int = -1
    fold: int = -1
    text: str = ""
    tone: str = ""


@dataclass(frozen=True, slots=True)
class TreeEntry:
    """One line of the changes tree: a folder, or a file with its operation.

    Attributes:
        depth: Nesting level (0 for the common root).
        name: The folder path (ending in `/`) or file name.
        operation: The change's operation (`None` for folders).
        detail: Extra words: the old path of a move, the file type, +/- counts.
        file: The patch file index with this file's text diff (-1 if none).
    """

    depth: int
    name: str
    operation: str | None = None
    detail: str = ""
    file: int = -1


def display_text(text: str) -> str:
    """A line as shown: control characters escaped, tabs expanded."""
    return printable(text, keep="\t").expandtabs(TAB_SIZE)


def _change_str(change: Mapping[str, object], key: str) -> str | None:
    value = change.get(key)
    return value if isinstance(value, str) else None


@dataclass(frozen=True, slots=True)
class _Leaf:
    change: Mapping[str, object]


def changes_tree(
    changes: Sequence[Mapping[str, object]],
    patch: ParsedPatch | None = None,
    paths: PathDisplay = AS_SENT,
) -> list[TreeEntry]:
    """The `changes` of a diff item as a folder tree.

    Folders are grouped under their common root; a chain of folders holding only
    one folder is shown as one entry (`src/acp/`). Files carry their operation,
    the old path of a move or copy, a non-text file type, and the +/- counts of
    the patch section with that path. Paths are grouped as `paths` shows them:
    files inside the session's directory need no root.

    Args:
        changes: The diff item's `changes` (authoritative).
        patch: The parsed patch, for counts.
        paths: How paths are shown.

    Returns:
        The entries in display order.
    """
    by_path: dict[str, int] = {}
    if patch is not None:
        for index, file in enumerate(patch.files):
            for path in (file.new_path, file.old_path):
                if path is not None:
                    by_path.setdefault(path, index)
    entries: list[tuple[str, Mapping[str, object]]] = []
    for change in changes:
        path = _change_str(change, "path") or _change_str(change, "oldPath") or "?"
        entries.append((paths.show(path), change))
    if not entries:
        return []
    dirs = [posixpath.dirname(path) for path, _ in entries]
    try:
        root = posixpath.commonpath(dirs) if all(dirs) else ""
    except ValueError:  # absolute and relative paths mixed
        root = ""
    tree: dict[str, object] = {}
    for path, change in entries:
        relative = path[len(root) :].lstrip("/") if root else path
        parts = relative.split("/")
        node = tree
        for part in parts[:-1]:
            child = node.setdefault(part + "/", {})
            node = child if isinstance(child, dict) else {}
        node[parts[-1]] = _Leaf(change)
    out: list[TreeEntry] = []
    if root:
        out.append(TreeEntry(0, root.rstrip("/") + "/"))

    def walk(node: Mapping[str, object], depth: int) -> None:
        for name, value in sorted(
            node.items(), key=lambda kv: (not isinstance(kv[1], dict), kv[0])
        ):
            if isinstance(value, dict):
                label = name
                while len(value) == 1:
                    (only, inner), *_ = value.items()
                    if not isinstance(inner, dict):
                        break
                    label += only
                    value = inner
                out.append(TreeEntry(depth, label))
                walk(value, depth + 1)
            elif isinstance(value, _Leaf):
                out.append(_tree_file(depth, name, value.change, patch, by_path, paths))

    walk(tree, 1 if root else 0)
    return out


def _tree_file(
    depth: int,
    name: str,
    change: Mapping[str, object],
    patch: ParsedPatch | None,
    by_path: Mapping[str, int],
    paths: PathDisplay,
) -> TreeEntry:
    operation = printable(str(change.get("operation") or "change"))
    details: list[str] = []
    old_path = _change_str(change, "oldPath")
    if old_path:
        details.append(f"from {paths.show(old_path)}")
    file_type = _change_str(change, "fileType")
    if file_type and file_type != "text":
        details.append(f"({printable(file_type)})")
    path = _change_str(change, "path") or old_path or ""
    index = by_path.get(path, -1)
    if patch is not None and index >= 0:
        file = patch.files[index]
        if file.added or file.removed:
            details.append(f"+{file.added} -{file.removed}")
    return TreeEntry(depth, name, operation, " ".join(details), index)


def _lexer_for(path: str) -> Lexer | None:
    name = posixpath.basename(path)
    return _lexer_for_name(name)


@lru_cache(maxsize=256)
def _lexer_for_name(name: str) -> Lexer | None:
    return find_lexer(get_lexer_for_filename, name)


def _role(token: _TokenType, roles: frozenset[str]) -> str | None:
    current: _TokenType | None = token
    while current is not None and len(current):
        name = ".".join(current)
        if name in roles:
            return name
        if name.startswith("Literal."):  # pygments' `String` is `Literal.String`
            short = name[len("Literal.") :]
            if short in roles:
                return short
        current = current.parent
    return None


@lru_cache(maxsize=20_000)
def lexer_spans(lexer: Lexer, text: str, roles: frozenset[str]) -> SyntaxSpans:
    """`(start, end, role)` for each token of `text` whose type is in `roles`.

    Subtypes report the role of their nearest listed parent; adjacent tokens of
    the same role are merged. Shared with code fences (`render.markdown`).
    """
    spans: list[tuple[int, int, str]] = []
    offset = 0
    for token, value in lexer.get_tokens(text):
        end = offset + len(value)
        role = _role(token, roles)
        if role is not None and end > offset:
            if spans and spans[-1][1] == offset and spans[-1][2] == role:
                spans[-1] = (spans[-1][0], end, role)
            else:
                spans.append((offset, end, role))
        offset = end
    return tuple(spans)


def highlight_spans(
    path: str, text: str, roles: Iterable[str] = SYNTAX_ROLES
) -> SyntaxSpans:
    """Syntax spans of one display line: `(start, end, role)` per coloured token.

    Args:
        path: The file's path (picks the pygments lexer by its name).
        text: The line as displayed (`display_text`).
        roles: Token type names to report (subtypes report their parent's name).

    Returns:
        Spans in order; empty for files without a lexer.
    """
    lexer = _lexer_for(path)
    if lexer is None or not text:
        return ()
    try:
        return lexer_spans(lexer, text, frozenset(roles))
    except Exception:  # a lexer bug must not break the diff
        return ()


class DiffDocument:
    """A diff laid out as rows, in either layout, with expandable folds.

    Args:
        patch: The parsed patch, or `None` when the diff has no patch text.
        changes: The diff item's `changes` (drives the tree and path checks).
        notes: Extra remarks shown first (e.g. an unknown patch format).
        tree: Show the changes tree: `None` decides (several changes, or no
            usable patch), `True`/`False` force it.
        paths: How paths are shown (default: as sent).
    """

    def __init__(
        self,
        patch: ParsedPatch | None,
        changes: Sequence[Mapping[str, object]] = (),
        *,
        notes: Sequence[str] = (),
        tree: bool | None = None,
        paths: PathDisplay = AS_SENT,
    ) -> None:
        self.patch = patch
        self.changes = tuple(changes)
        self.notes = tuple(notes)
        self.paths = paths
        """How paths are shown in file headers and the changes tree."""
        usable = patch is not None and not patch.unparsed
        self.show_tree = (
            tree
            if tree is not None
            else bool(changes) and (len(changes) > 1 or not usable)
        )
        self.folds: list[tuple[int, Fold]] = []
        files = patch.files if patch is not None else ()
        for index, file in enumerate(files):
            self.folds.extend((index, fold) for fold in context_folds(file))
        self.expanded: set[int] = set()
        self._rows: dict[DiffLayout, list[DiffRow]] = {}
        self._number_widths = [_number_width(f) for f in files]
        self._widest: int | None = None

    @property
    def files(self) -> tuple[FilePatch, ...]:
        """The patch's file sections (none without a patch)."""
        return self.patch.files if self.patch is not None else ()

    def rows(self, layout: DiffLayout) -> list[DiffRow]:
        """The rows in `layout` (built once per layout and fold state)."""
        rows = self._rows.get(layout)
        if rows is None:
            rows = self._rows[layout] = self._build(layout)
        return rows

    def number_width(self, file: int) -> int:
        """Digits of the widest line number of a file."""
        return self._number_widths[file] if 0 <= file < len(self._number_widths) else 1

    def expand(self, fold: int) -> bool:
        """Show the lines of one fold; `False` if it was already open or unknown."""
        if not 0 <= fold < len(self.folds) or fold in self.expanded:
            return False
        self.expanded.add(fold)
        self._rows.clear()
        return True

    def expand_all(self) -> bool:
        """Open every fold; `False` if there was none closed."""
        closed = set(range(len(self.folds))) - self.expanded
        if not closed:
            return False
        self.expanded.update(closed)
        self._rows.clear()
        return True

    @property
    def widest_line(self) -> int:
        """Cells of the widest hunk line (for horizontal scrolling)."""
        if self._widest is None:
            widest = max(
                (hunk.widest for file in self.files for hunk in file.hunks), default=0
            )
            self._widest = widest + TAB_SIZE
        return self._widest

    def _build(self, layout: DiffLayout) -> list[DiffRow]:
        rows: list[DiffRow] = [
            DiffRow("note", text=n, tone="warning") for n in self.notes
        ]
        patch = self.patch
        if self.show_tree:
            for entry in changes_tree(self.changes, patch, self.paths):
                rows.append(_tree_row(entry))
        if patch is None:
            if not self.changes:
                rows.append(DiffRow("note", text="(no changes listed)", tone="muted"))
            return rows
        if patch.unparsed:
            rows.append(
                DiffRow(
                    "note",
                    text=f"could not read the patch ({patch.error}); shown as text",
                    tone="warning",
                )
            )
            rows.extend(_raw_rows(patch.raw, -1))
            return rows
        for note in check_paths(patch, self.changes or None):
            rows.append(DiffRow("note", text=note, tone="warning"))
        if self.show_tree and rows:
            rows.append(DiffRow("gap"))
        fold_ids = {
            (file, fold.hunk, fold.start): index
            for index, (file, fold) in enumerate(self.folds)
            if index not in self.expanded
        }
        for index, file in enumerate(patch.files):
            if index:
                rows.append(DiffRow("gap"))
            rows.append(DiffRow("file", index))
            rows.extend(_file_notes(file, index))
            if file.error is not None:
                rows.extend(_raw_rows(file.raw, index))
                continue
            for number, hunk in enumerate(file.hunks):
                rows.append(DiffRow("hunk", index, number))
                if layout == "unified":
                    self._unified(rows, index, number, len(hunk.lines), fold_ids)
                else:
                    self._split(rows, index, number, row_pairs(hunk.lines), fold_ids)
        return rows

    def _unified(
        self,
        rows: list[DiffRow],
        file: int,
        hunk: int,
        count: int,
        fold_ids: Mapping[tuple[int, int, int], int],
    ) -> None:
        line = 0
        while line < count:
            fold_id = fold_ids.get((file, hunk, line))
            if fold_id is not None:
                rows.append(DiffRow("fold", file, hunk, fold=fold_id))
                line = self.folds[fold_id][1].end
                continue
            rows.append(DiffRow("line", file, hunk, line))
            line += 1

    def _split(
        self,
        rows: list[DiffRow],
        file: int,
        hunk: int,
        pairs: list[tuple[int | None, int | None]],
        fold_ids: Mapping[tuple[int, int, int], int],
    ) -> None:
        skip_to = -1
        for old, new in pairs:
            if old is not None and old < skip_to:
                continue
            fold_id = fold_ids.get((file, hunk, old)) if old is not None else None
            if fold_id is not None:
                rows.append(DiffRow("fold", file, hunk, fold=fold_id))
                skip_to = self.folds[fold_id][1].end
                continue
            rows.append(
                DiffRow(
                    "pair",
                    file,
                    hunk,
                    old if old is not None else -1,
                    new if new is not None else -1,
                )
            )


def _number_width(file: FilePatch) -> int:
    top = 1
    for hunk in file.hunks:
        top = max(top, hunk.old_start + hunk.old_count, hunk.new_start + hunk.new_count)
    return len(str(top))


def _tree_row(entry: TreeEntry) -> DiffRow:
    indent = "  " * entry.depth
    if entry.operation is None:
        return DiffRow("tree", entry.file, text=f"{indent}▾ {entry.name}", tone="muted")
    mark = _OPERATION_MARKS.get(entry.operation, "?")
    detail = f"  {entry.detail}" if entry.detail else ""
    return DiffRow(
        "tree",
        entry.file,
        text=f"{indent}{mark} {entry.name}  {entry.operation}{detail}",
        tone=entry.operation,
    )


def _raw_rows(raw: str, file: int) -> list[DiffRow]:
    lines = raw.rstrip("\n").split("\n")
    return [DiffRow("raw", file, text=line) for line in lines]


def _file_notes(file: FilePatch, index: int) -> list[DiffRow]:
    notes: list[str] = []
    if file.error is not None:
        notes.append(f"could not read this file's hunks ({file.error}); shown as text")
    if file.mode_changed:
        notes.append(f"mode {file.old_mode} → {file.new_mode}")
    elif file.operation == "add" and file.new_mode not in (None, "100644"):
        notes.append(f"mode {file.new_mode}")
    if file.binary:
        notes.append("binary file: no text diff")
    elif not file.hunks and file.error is None and file.operation in ("add", "delete"):
        notes.append("empty file")
    elif not file.hunks and file.error is None and not file.mode_changed:
        if file.operation in ("rename", "copy"):
            notes.append("content unchanged")
        else:
            notes.append("no text changes")
    tone = "warning" if file.error is not None else "muted"
    rows = [DiffRow("note", index, text=w, tone="warning") for w in file.warnings]
    rows.extend(DiffRow("note", index, text=note, tone=tone) for note in notes)
    return rows


def file_title(
    file: FilePatch, paths: PathDisplay = AS_SENT, width: int | None = None
) -> str:
    """A file header's words: `modify src/a.py`, `move a.py → b.py (92% similar)`.

    Args:
        file: The file's patch section.
        paths: How paths are shown.
        width: The most cells the words may take: the paths are shortened from
            the left to fit (a move's old path gets half the room, the new one
            the rest). None: no limit.
    """
    label = _OPERATION_LABELS[file.operation]
    similar = f" ({file.similarity}% similar)" if file.similarity is not None else ""
    room = None if width is None else width - cell_len(f"{label} {similar}")
    if file.operation in ("rename", "copy"):
        arrow = " → "
        half = None if room is None else (room - len(arrow)) // 2
        old = paths.show(file.old_path or "?", half)
        rest = None if room is None else room - len(arrow) - paths.measure(old)
        where = f"{old}{arrow}{paths.show(file.new_path or '?', rest)}"
    else:
        where = paths.show(file.path, room)
    return f"{label} {where}{similar}"


def file_paths(file: FilePatch) -> list[str]:
    """The paths a file header names, as sent: a move's old one, then the new."""
    if file.operation in ("rename", "copy"):
        return [p for p in (file.old_path, file.new_path) if p is not None]
    return [file.path]


@lru_cache(maxsize=1024)
def _style(color: str | None, bgcolor: str | None, bold: bool = False) -> Style:
    return Style(color=color, bgcolor=bgcolor, bold=bold or None)


class DiffPainter:
    """Paints `DiffRow`s of one document as `Segment`s with one palette.

    Args:
        document: The laid-out diff.
        palette: The colours.
    """

    def __init__(self, document: DiffDocument, palette: DiffPalette) -> None:
        self.document = document
        self.palette = palette
        self._roles = frozenset(palette.syntax)

    def row(
        self, row: DiffRow, width: int, layout: DiffLayout, scroll_x: int = 0
    ) -> list[Segment]:
        """One row as segments exactly `width` cells wide.

        Args:
            row: The row (from `document.rows(layout)`).
            width: Cells available.
            layout: The layout the row belongs to.
            scroll_x: Cells of code scrolled off to the left (unified lines).

        Returns:
            The segments.
        """
        width = max(1, width)
        palette = self.palette
        kind = row.kind
        if kind in ("line", "pair"):
            file = self.document.files[row.file]
            if kind == "line":
                return self._unified_line(file, row, width, scroll_x)
            return self._split_line(file, row, width)
        if kind == "file":
            return self._file_header(row, width)
        if kind == "hunk":
            hunk = self.document.files[row.file].hunks[row.hunk]
            return _fit(
                [Segment(printable(hunk.header), _style(palette.hunk, None))], width
            )
        if kind == "fold":
            count = self.document.folds[row.fold][1].count
            text = f"  ⋯ {count} unchanged lines (click or Enter to show)"
            return _fit([Segment(text, _style(palette.muted, None))], width)
        if kind == "tree":
            return _fit([Segment(row.text, _style(self._tone(row.tone), None))], width)
        if kind == "note":
            mark = "⚠ " if row.tone == "warning" else "  "
            text = printable(mark + row.text)
            return _fit([Segment(text, _style(self._tone(row.tone), None))], width)
        if kind == "raw":
            return _fit(
                [Segment(display_text(row.text), _style(palette.text, None))], width
            )
        return _fit([], width)

    def row_text(self, row: DiffRow, layout: DiffLayout, width: int = 400) -> str:
        """A row as plain text (trailing blanks removed), for tests and export."""
        return "".join(s.text for s in self.row(row, width, layout)).rstrip()

    def text(self, row: DiffRow, layout: DiffLayout, width: int) -> Text:
        """A row as a Rich `Text` (for static displays such as dialogs)."""
        text = Text(no_wrap=True, overflow="crop")
        for segment in self.row(row, width, layout):
            text.append(segment.text, segment.style)
        return text

    def _tone(self, tone: str) -> str:
        palette = self.palette
        if tone == "warning":
            return palette.warning
        if tone in ("add",):
            return palette.added
        if tone == "delete":
            return palette.removed
        if tone in ("move", "copy", "rename"):
            return palette.hunk
        if tone == "modify":
            return palette.text
        return palette.muted

    def _file_header(self, row: DiffRow, width: int) -> list[Segment]:
        palette = self.palette
        file = self.document.files[row.file]
        base = _style(palette.header, palette.header_bg, bold=True)
        counts: list[Segment] = []
        if file.added or file.removed:
            counts.append(
                Segment(f" +{file.added}", _style(palette.added, palette.header_bg))
            )
            counts.append(
                Segment(
                    f" -{file.removed} ", _style(palette.removed, palette.header_bg)
                )
            )
        room = width - 2 - sum(cell_len(segment.text) for segment in counts)
        title = file_title(file, self.document.paths, room)
        segments = [Segment(" " + title + " ", base), *counts]
        return _fit(segments, width, _style(None, palette.header_bg))

    def _line_parts(
        self, file_index: int, row: DiffRow, side: int
    ) -> tuple[DiffLine, Ranges]:
        """A hunk line and its changed-word ranges (if it has a partner)."""
        hunk = self.document.files[file_index].hunks[row.hunk]
        lines = hunk.lines
        index = row.old if side == 0 else row.new
        line = lines[index]
        if line.kind == "context":
            return line, ()
        facing = partner(hunk, index)
        if facing < 0:
            return line, ()
        old, new = (index, facing) if line.kind == "removed" else (facing, index)
        ranges = word_diff(display_text(lines[old].text), display_text(lines[new].text))
        return line, ranges[0] if line.kind == "removed" else ranges[1]

    def _code(
        self,
        path: str,
        line: DiffLine,
        ranges: Ranges,
        width: int,
        scroll_x: int = 0,
    ) -> list[Segment]:
        """A line's code: syntax colours, changed words, markers; `width` cells."""
        palette = self.palette
        text = display_text(line.text)
        bg: str | None
        word_bg: str | None
        if line.kind == "added":
            bg, word_bg = palette.added_bg, palette.added_word_bg
        elif line.kind == "removed":
            bg, word_bg = palette.removed_bg, palette.removed_word_bg
        else:
            bg = word_bg = None
        spans = highlight_spans(path, text, self._roles) if self._roles else ()
        cuts = {0, len(text)}
        for start, end, _ in spans:
            cuts.update((start, end))
        for start, end in ranges:
            cuts.update((min(start, len(text)), min(end, len(text))))
        points = sorted(cuts)
        colour_at = [palette.text] * len(text)
        for start, end, role in spans:
            colour = palette.syntax.get(role, palette.text)
            for position in range(start, min(end, len(text))):
                colour_at[position] = colour
        changed = [False] * len(text)
        for start, end in ranges:
            for position in range(start, min(end, len(text))):
                changed[position] = True
        segments: list[Segment] = []
        for start, end in pairwise(points):
            if start >= end:
                continue
            style = _style(colour_at[start], word_bg if changed[start] else bg)
            segments.append(Segment(text[start:end], style))
        if line.crlf:
            segments.append(Segment("\\r", _style(palette.muted, bg)))
        if line.no_newline:
            segments.append(
                Segment(" ⊘ no newline at end of file", _style(palette.muted, bg))
            )
        if scroll_x:
            segments = _drop_cells(segments, scroll_x)
        return _fit(segments, width, _style(None, bg))

    def _unified_line(
        self, file: FilePatch, row: DiffRow, width: int, scroll_x: int
    ) -> list[Segment]:
        line, ranges = self._line_parts(row.file, row, 0)
        digits = self.document.number_width(row.file)
        old = str(line.old) if line.old is not None else ""
        new = str(line.new) if line.new is not None else ""
        gutter = f"{old:>{digits}} {new:>{digits}} "
        return self._numbered(file.path, line, ranges, gutter, width, scroll_x)

    def _numbered(
        self,
        path: str,
        line: DiffLine,
        ranges: Ranges,
        gutter: str,
        width: int,
        scroll_x: int = 0,
    ) -> list[Segment]:
        """A line behind its `gutter` (line numbers) and sign, in `width` cells."""
        sign, colour, bg = self._sign(line)
        segments = [
            Segment(gutter, _style(self.palette.muted, bg)),
            Segment(sign, _style(colour, bg, bold=True)),
        ]
        rest = width - cell_len(gutter) - 1
        if rest > 0:
            segments.extend(self._code(path, line, ranges, rest, scroll_x))
        return _fit(segments, width)

    def _sign(self, line: DiffLine) -> tuple[str, str, str | None]:
        palette = self.palette
        if line.kind == "added":
            return "+", palette.added, palette.added_bg
        if line.kind == "removed":
            return "-", palette.removed, palette.removed_bg
        return " ", palette.muted, None

    def _split_line(self, file: FilePatch, row: DiffRow, width: int) -> list[Segment]:
        palette = self.palette
        left_width = (width - 1) // 2
        right_width = width - 1 - left_width
        digits = self.document.number_width(row.file)
        segments: list[Segment] = []
        for side, side_width, index in (
            (0, left_width, row.old),
            (1, right_width, row.new),
        ):
            if side:
                segments.append(Segment("│", _style(palette.muted, None)))
            if index < 0:
                segments.append(Segment(" " * side_width))
                continue
            line, ranges = self._line_parts(row.file, row, side)
            number = line.old if side == 0 else line.new
            gutter = f"{number if number is not None else '':>{digits}} "
            segments.extend(self._numbered(file.path, line, ranges, gutter, side_width))
        return segments


def _drop_cells(segments: list[Segment], cells: int) -> list[Segment]:
    """Segments with their first `cells` cells cut off."""
    parts = list(Segment.divide(segments, [cells, cells + 1_000_000]))
    return parts[1] if len(parts) > 1 else []


def _fit(
    segments: list[Segment], width: int, pad: Style | None = None
) -> list[Segment]:
    """Crop or pad a row to exactly `width` cells."""
    return Segment.adjust_line_length(segments, width, style=pad, pad=True)
