"""The diff model: files, hunks and lines of a parsed patch (plain data).

Everything here is immutable and free of any parsing library, so renderers and
widgets depend only on this module (`acp_tui.diff.parse` builds it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import zip_longest
from typing import Final, Literal, TypeAlias

__all__ = [
    "DEV_NULL",
    "DiffLine",
    "FilePatch",
    "Fold",
    "Hunk",
    "LineKind",
    "Operation",
    "ParsedPatch",
    "context_folds",
    "partner",
    "row_pairs",
]

DEV_NULL: Final = "/dev/null"
"""The path git writes for the missing side of an added or deleted file."""

LineKind: TypeAlias = Literal["context", "added", "removed"]
"""What a hunk line does: kept, added on the new side, removed from the old."""

Operation: TypeAlias = Literal["add", "delete", "modify", "rename", "copy"]
"""What a file section does (ACP's `move` is git's `rename`)."""


@dataclass(frozen=True, slots=True)
class DiffLine:
    r"""One line of a hunk.

    Attributes:
        kind: Context, added or removed.
        old: The line number on the old side (`None` for added lines).
        new: The line number on the new side (`None` for removed lines).
        text: The line without its line ending (a CRLF ending is flagged, not kept).
        no_newline: The line is the last of its file and has no line ending
            (git's `\ No newline at end of file` followed it).
        crlf: The line ended with `\r\n`.
    """

    kind: LineKind
    old: int | None
    new: int | None
    text: str
    no_newline: bool = False
    crlf: bool = False


@dataclass(frozen=True, slots=True)
class Hunk:
    """One `@@` block of a file section.

    Attributes:
        old_start: First old line number (0 for an empty old side).
        old_count: Old lines covered.
        new_start: First new line number.
        new_count: New lines covered.
        section: The text after the closing `@@` (often the enclosing function).
        lines: The hunk's lines in patch order.
    """

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    section: str
    lines: tuple[DiffLine, ...]
    kinds: str = field(init=False, repr=False, compare=False)
    """One character per line: ` ` context, `-` removed, `+` added (lets
    `partner` find a line's block with string searches, not a walk)."""
    widest: int = field(init=False, repr=False, compare=False)
    """Characters of the longest line's text (0 without lines)."""

    def __post_init__(self) -> None:
        lines = self.lines
        object.__setattr__(
            self, "kinds", "".join([_KIND_MARKS[line.kind] for line in lines])
        )
        object.__setattr__(
            self, "widest", max([len(line.text) for line in lines], default=0)
        )

    @property
    def header(self) -> str:
        """The hunk header as git writes it: `@@ -1,3 +1,4 @@ section`."""
        old = _range(self.old_start, self.old_count)
        new = _range(self.new_start, self.new_count)
        tail = f" {self.section}" if self.section else ""
        return f"@@ -{old} +{new} @@{tail}"


_KIND_MARKS: Final[dict[str, str]] = {"context": " ", "removed": "-", "added": "+"}


def _range(start: int, count: int) -> str:
    return str(start) if count == 1 else f"{start},{count}"


@dataclass(frozen=True, slots=True)
class FilePatch:
    """One file section of a patch (one `diff --git`).

    Attributes:
        old_path: The path before the change (`None` for an added file).
        new_path: The path after the change (`None` for a deleted file).
        operation: add, delete, modify, rename or copy.
        hunks: The text hunks (none for binaries, pure renames and mode changes).
        similarity: The similarity index of a rename or copy, in percent.
        old_mode: The old git file mode (`100644`, `100755`, `120000`, ...).
        new_mode: The new git file mode.
        binary: The section changes a binary file (no text hunks).
        header: The extended header lines as written (`index ...`, `rename ...`).
        raw: The section's text as received.
        error: Why the section could not be parsed (then show `raw`), or `None`.
        warnings: Problems that did not stop the parse (hunk line counts that
            disagree with their `@@` header, read leniently).
    """

    old_path: str | None
    new_path: str | None
    operation: Operation
    hunks: tuple[Hunk, ...] = ()
    similarity: int | None = None
    old_mode: str | None = None
    new_mode: str | None = None
    binary: bool = False
    header: tuple[str, ...] = ()
    raw: str = ""
    error: str | None = None
    warnings: tuple[str, ...] = ()
    added: int = field(init=False)
    """Lines added, over all hunks."""
    removed: int = field(init=False)
    """Lines removed, over all hunks."""

    def __post_init__(self) -> None:
        added = removed = 0
        for hunk in self.hunks:
            for line in hunk.lines:
                if line.kind == "added":
                    added += 1
                elif line.kind == "removed":
                    removed += 1
        object.__setattr__(self, "added", added)
        object.__setattr__(self, "removed", removed)

    @property
    def path(self) -> str:
        """The path the file has after the change (the old one for a delete)."""
        return self.new_path or self.old_path or "?"

    @property
    def mode_changed(self) -> bool:
        """Whether the file mode changes (both modes known and different)."""
        return (
            self.old_mode is not None
            and self.new_mode is not None
            and self.old_mode != self.new_mode
        )

    @property
    def line_count(self) -> int:
        """Hunk lines over all hunks (context included)."""
        return sum(len(hunk.lines) for hunk in self.hunks)


@dataclass(frozen=True, slots=True)
class ParsedPatch:
    """A whole patch: its file sections, or why it could not be read.

    Attributes:
        files: The file sections found, in order.
        raw: The patch text as received.
        error: Set when the text could not be read as a patch at all (show `raw`
            with this note); sections that fail on their own carry their own
            `FilePatch.error` instead.
    """

    files: tuple[FilePatch, ...]
    raw: str
    error: str | None = None

    @property
    def unparsed(self) -> bool:
        """Whether nothing could be parsed (the UI shows `raw` with a note)."""
        return self.error is not None

    @property
    def added(self) -> int:
        """Lines added over all files."""
        return sum(f.added for f in self.files)

    @property
    def removed(self) -> int:
        """Lines removed over all files."""
        return sum(f.removed for f in self.files)


@dataclass(frozen=True, slots=True)
class Fold:
    """A run of unchanged lines hidden behind one "N unchanged lines" row.

    Attributes:
        hunk: The hunk's index in its file.
        start: The first hidden line (index into `Hunk.lines`).
        end: One past the last hidden line.
    """

    hunk: int
    start: int
    end: int

    @property
    def count(self) -> int:
        """How many lines the fold hides."""
        return self.end - self.start


def context_folds(
    file: FilePatch, keep: int = 3, min_hidden: int = 4
) -> tuple[Fold, ...]:
    """The runs of context worth folding in a file.

    A run of unchanged lines keeps `keep` lines next to each change and hides the
    rest, provided that hides at least `min_hidden` lines (git's own patches keep
    three lines of context, so they rarely fold; `-U`/`-W` patches and whole-file
    hunks do).

    Args:
        file: The file section.
        keep: Context lines kept on each side of a change.
        min_hidden: The smallest run worth a fold.

    Returns:
        The folds, in file order.
    """
    folds: list[Fold] = []
    for index, hunk in enumerate(file.hunks):
        lines = hunk.lines
        run_start = 0
        total = len(lines)
        position = 0
        while position <= total:
            if position < total and lines[position].kind == "context":
                position += 1
                continue
            # [run_start, position) is a context run.
            if position > run_start:
                start = run_start if run_start == 0 else run_start + keep
                end = position if position == total else position - keep
                if end - start >= min_hidden:
                    folds.append(Fold(index, start, end))
            position += 1
            run_start = position
    return tuple(folds)


def row_pairs(lines: tuple[DiffLine, ...]) -> list[tuple[int | None, int | None]]:
    """Line indices side by side: context against itself, removals against additions.

    Each block of removed lines followed by added lines is zipped row by row, the
    shorter side padded with `None`, which is the side-by-side layout and also the
    pairing used for intra-line word highlights.

    Args:
        lines: A hunk's lines.

    Returns:
        `(old index, new index)` per side-by-side row.
    """
    rows: list[tuple[int | None, int | None]] = []
    removed: list[int] = []
    added: list[int] = []

    def flush() -> None:
        rows.extend(zip_longest(removed, added))
        removed.clear()
        added.clear()

    for index, line in enumerate(lines):
        if line.kind == "context":
            flush()
            rows.append((index, index))
        elif line.kind == "removed":
            if added:
                flush()
            removed.append(index)
        else:
            added.append(index)
    flush()
    return rows


_OTHER_MARKS: Final = {" ": ("-", "+"), "-": (" ", "+"), "+": (" ", "-")}


def _run_start(kinds: str, index: int, mark: str) -> int:
    """The first index of the run of `mark` lines that holds `index`."""
    one, two = _OTHER_MARKS[mark]
    return 1 + max(kinds.rfind(one, 0, index), kinds.rfind(two, 0, index))


def _run_end(kinds: str, index: int, mark: str) -> int:
    """One past the last index of the run of `mark` lines from `index` on."""
    one, two = _OTHER_MARKS[mark]
    end = len(kinds)
    first, second = kinds.find(one, index), kinds.find(two, index)
    if 0 <= first < end:
        end = first
    if 0 <= second < end:
        end = second
    return end


def partner(hunk: Hunk, index: int) -> int:
    """The line a removed or added line faces side by side (-1 if none).

    The pairing of `row_pairs` (a block of removed lines zipped with the added
    lines right after it), found for one line from the runs around it with
    string searches in `Hunk.kinds`, so painting a few lines of a long hunk
    does not pair every line of it.

    Args:
        hunk: The hunk.
        index: A line's index in `hunk.lines`.

    Returns:
        The partner's index, or -1 (context lines, unpaired lines).
    """
    kinds = hunk.kinds
    mark = kinds[index]
    if mark == "-":
        start = _run_start(kinds, index, "-")
        added = _run_end(kinds, index, "-")
        if added >= len(kinds) or kinds[added] != "+":
            return -1
        facing = added + (index - start)
        return facing if facing < _run_end(kinds, added, "+") else -1
    if mark == "+":
        start = _run_start(kinds, index, "+")
        if start == 0 or kinds[start - 1] != "-":
            return -1
        removed = _run_start(kinds, start - 1, "-")
        facing = removed + (index - start)
        return facing if facing < start else -1
    return -1
