"""Reading git patches into the diff model, with `unidiff` behind it.

`unidiff` reads the hunks. What it does not keep is read here from each section's
extended header: copies, similarity, mode changes, binary markers, quoted and
absolute paths. The text is split into `diff --git` sections first, so one broken
section is shown raw (with its error) while the others still render. Nothing here
raises on bad input: `parse_patch` always returns a `ParsedPatch`.

v1 diffs (`oldText`/`newText`) become a git-format patch with `difflib`
(`patch_from_texts`) and go through the same parser.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from unidiff.constants import (
    LINE_TYPE_ADDED,
    LINE_TYPE_CONTEXT,
    LINE_TYPE_NO_NEWLINE,
    LINE_TYPE_REMOVED,
)
from unidiff.patch import PatchSet

from acp_tui.diff.model import (
    DEV_NULL,
    DiffLine,
    FilePatch,
    Hunk,
    LineKind,
    Operation,
    ParsedPatch,
)

__all__ = [
    "MAX_PATCH_CHARS",
    "check_paths",
    "parse_patch",
    "patch_from_texts",
    "split_lines",
]

MAX_PATCH_CHARS: Final = 20_000_000
"""Patches longer than this are not parsed (shown raw, with a note)."""

_KINDS: Final[dict[str, LineKind]] = {
    LINE_TYPE_CONTEXT: "context",
    LINE_TYPE_ADDED: "added",
    LINE_TYPE_REMOVED: "removed",
}
_HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")
_SIMILARITY = re.compile(r"^(?:dis)?similarity index (\d+)%$")
_MODE = re.compile(r"^(old mode|new mode|deleted file mode|new file mode) (\d+)$")
_INDEX = re.compile(r"^index [0-9a-fA-F]+\.\.[0-9a-fA-F]+(?: (\d+))?$")
_FROM_TO = re.compile(r"^(rename|copy) (from|to) (.+)$")
_BINARY = re.compile(r"^Binary files (.+) and (.+) differ$")
_ESCAPES: Final = {
    "a": 7,
    "b": 8,
    "t": 9,
    "n": 10,
    "v": 11,
    "f": 12,
    "r": 13,
    '"': 34,
    "\\": 92,
}


def split_lines(text: str) -> list[str]:
    r"""Split on `\n` only, keeping the endings (a `\r` stays part of its line)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _unquote(path: str) -> str:
    """A git path as written in a header: C-quoted if it starts with `"`."""
    path = path.split("\t", 1)[0]
    if len(path) < 2 or not (path.startswith('"') and path.endswith('"')):
        return path
    body = path[1:-1]
    out = bytearray()
    index = 0
    while index < len(body):
        char = body[index]
        if char == "\\" and index + 1 < len(body):
            nxt = body[index + 1]
            octal = body[index + 1 : index + 4]
            if len(octal) == 3 and all(c in "01234567" for c in octal):
                out.append(int(octal, 8) & 0xFF)
                index += 4
                continue
            if nxt in _ESCAPES:
                out.append(_ESCAPES[nxt])
                index += 2
                continue
        out.extend(char.encode("utf-8", "surrogatepass"))
        index += 1
    return out.decode("utf-8", "replace")


def _git_header_paths(rest: str) -> tuple[str, str] | None:
    """The two paths of `diff --git A B` (quoted, prefixed or absolute)."""
    rest = rest.rstrip("\r\n")
    if rest.startswith('"'):
        match = re.match(r'^("(?:[^"\\]|\\.)*")\s+(.+)$', rest)
        if match:
            return _unquote(match.group(1)), _unquote(match.group(2))
        return None
    if rest.endswith('"'):
        match = re.match(r'^(.+?)\s+("(?:[^"\\]|\\.)*")$', rest)
        if match:
            return match.group(1), _unquote(match.group(2))
    # Same path on both sides (modify, add, delete): split in the middle.
    half = len(rest) // 2
    if len(rest) % 2 == 1 and rest[half] == " ":
        left, right = rest[:half], rest[half + 1 :]
        if left == right or (left[2:] == right[2:] and left[:2] != right[:2]):
            return left, right
    for marker in (" b/", " /", " "):
        cut = rest.find(marker)
        if cut > 0:
            return rest[:cut], rest[cut + 1 :]
    return None


def _strip_prefix(path: str | None, prefix: str) -> str | None:
    if path is None or path == DEV_NULL:
        return None
    return path[len(prefix) :] if prefix and path.startswith(prefix) else path


@dataclass(slots=True)
class _Header:
    """What a section's extended header says (filled line by line)."""

    git_old: str | None = None
    git_new: str | None = None
    minus: str | None = None
    plus: str | None = None
    moved_from: str | None = None
    moved_to: str | None = None
    copy: bool = False
    rename: bool = False
    similarity: int | None = None
    old_mode: str | None = None
    new_mode: str | None = None
    new_file: bool = False
    deleted_file: bool = False
    binary: bool = False

    def read(self, line: str) -> bool:
        """Take one header line; `False` once the header is over (a hunk starts)."""
        text = line.rstrip("\n")
        if text.endswith("\r"):
            text = text[:-1]
        if text.startswith("@@"):
            return False
        if text.startswith("diff --git "):
            paths = _git_header_paths(text[len("diff --git ") :])
            if paths is not None:
                self.git_old, self.git_new = paths
        elif text.startswith("--- "):
            self.minus = _unquote(text[4:])
        elif text.startswith("+++ "):
            self.plus = _unquote(text[4:])
        elif text == "GIT binary patch" or _BINARY.match(text):
            self.binary = True
        elif match := _SIMILARITY.match(text):
            self.similarity = int(match.group(1))
        elif match := _MODE.match(text):
            self._mode(match.group(1), match.group(2))
        elif match := _INDEX.match(text):
            if match.group(1):
                self.old_mode = self.old_mode or match.group(1)
                self.new_mode = self.new_mode or match.group(1)
        elif match := _FROM_TO.match(text):
            kind, side, path = match.groups()
            self.copy = self.copy or kind == "copy"
            self.rename = self.rename or kind == "rename"
            if side == "from":
                self.moved_from = _unquote(path)
            else:
                self.moved_to = _unquote(path)
        return True

    def _mode(self, what: str, mode: str) -> None:
        if what == "old mode":
            self.old_mode = mode
        elif what == "new mode":
            self.new_mode = mode
        elif what == "new file mode":
            self.new_file = True
            self.new_mode = mode
        else:
            self.deleted_file = True
            self.old_mode = mode

    def paths(self) -> tuple[str | None, str | None]:
        """Old and new path, `a/`/`b/` prefixes removed, `None` for `/dev/null`."""
        git_old, git_new = self.git_old, self.git_new
        prefixed = (
            git_old is not None
            and git_new is not None
            and git_old.startswith("a/")
            and git_new.startswith("b/")
        ) or (
            self.minus is not None
            and self.plus is not None
            and (self.minus.startswith("a/") or self.minus == DEV_NULL)
            and (self.plus.startswith("b/") or self.plus == DEV_NULL)
            and not (self.minus == DEV_NULL and self.plus == DEV_NULL)
        )
        old_prefix, new_prefix = ("a/", "b/") if prefixed else ("", "")
        old = self.minus if self.minus is not None else git_old
        new = self.plus if self.plus is not None else git_new
        old = _strip_prefix(old, old_prefix)
        new = _strip_prefix(new, new_prefix)
        if self.moved_from is not None:
            old = self.moved_from
        if self.moved_to is not None:
            new = self.moved_to
        if self.new_file:
            old = None
        if self.deleted_file:
            new = None
        if old is None and new is None:
            old = _strip_prefix(git_old, old_prefix)
            new = _strip_prefix(git_new, new_prefix)
        return old, new

    def operation(self, old: str | None, new: str | None) -> Operation:
        """The section's operation."""
        if self.copy:
            return "copy"
        if self.rename:
            return "rename"
        if self.new_file or (old is None and new is not None):
            return "add"
        if self.deleted_file or (new is None and old is not None):
            return "delete"
        return "modify"


def _hunks(lines: Sequence[str]) -> tuple[Hunk, ...]:
    """The hunks of one section, read by `unidiff` (raises on broken hunks).

    `unidiff` gets the hunks under neutral `---`/`+++` lines: the header is read
    here (its path handling trips over quoted paths with spaces).
    """
    first = next((i for i, line in enumerate(lines) if line.startswith("@@")), None)
    if first is None:
        return ()
    body = ["--- old\n", "+++ new\n", *lines[first:]]
    hunks: list[Hunk] = []
    for patched in PatchSet(body):
        for source in patched:
            out: list[DiffLine] = []
            for line in source:
                kind = _KINDS.get(line.line_type)
                if kind is None:
                    if line.line_type == LINE_TYPE_NO_NEWLINE and out:
                        # No newline: a `\r` before the patch's own `\n` is text.
                        last = out[-1]
                        text = last.text + "\r" if last.crlf else last.text
                        out[-1] = DiffLine(
                            last.kind, last.old, last.new, text, True, False
                        )
                    continue
                text = line.value
                crlf = text.endswith("\r\n")
                if crlf:
                    text = text[:-2]
                elif text.endswith("\n"):
                    text = text[:-1]
                out.append(
                    DiffLine(
                        kind,
                        line.source_line_no,
                        line.target_line_no,
                        text,
                        False,
                        crlf,
                    )
                )
            hunks.append(
                Hunk(
                    source.source_start,
                    source.source_length,
                    source.target_start,
                    source.target_length,
                    source.section_header,
                    tuple(out),
                )
            )
    return tuple(hunks)


def _line_text(raw: str) -> tuple[str, bool]:
    """A hunk line's text without its prefix and ending, and whether it was CRLF."""
    if raw.endswith("\r\n"):
        return raw[1:-2], True
    return (raw[1:-1] if raw.endswith("\n") else raw[1:]), False


def _lenient_hunks(lines: Sequence[str]) -> tuple[Hunk, ...]:
    """Hunks read by their line prefixes alone, ignoring the counts in `@@`.

    Hand-written and model-written patches often get the counts wrong; their
    lines are still worth showing. Raises `ValueError` on a line that is no
    hunk line at all.
    """
    hunks: list[Hunk] = []
    header: re.Match[str] | None = None
    body: list[DiffLine] = []
    old = new = 0

    def close() -> None:
        if header is None:
            return
        while body and body[-1].kind == "context" and not body[-1].text:
            body.pop()  # blank lines after the last hunk
        start_old, count_old, start_new, count_new, section = header.groups()
        hunks.append(
            Hunk(
                int(start_old),
                1 if count_old is None else int(count_old),
                int(start_new),
                1 if count_new is None else int(count_new),
                section or "",
                tuple(body),
            )
        )

    for raw in lines:
        match = _HUNK_HEADER.match(raw.rstrip("\r\n"))
        if match:
            close()
            header, body = match, []
            old, new = int(match.group(1)), int(match.group(3))
            if match.group(2) == "0":
                old += 1
            if match.group(4) == "0":
                new += 1
            continue
        if header is None:
            continue
        prefix = raw[:1]
        text, crlf = _line_text(raw)
        if prefix in ("\n", "\r", ""):
            body.append(DiffLine("context", old, new, "", False, False))
            old, new = old + 1, new + 1
        elif prefix == " ":
            body.append(DiffLine("context", old, new, text, False, crlf))
            old, new = old + 1, new + 1
        elif prefix == "-":
            body.append(DiffLine("removed", old, None, text, False, crlf))
            old += 1
        elif prefix == "+":
            body.append(DiffLine("added", None, new, text, False, crlf))
            new += 1
        elif prefix == "\\":
            if body:
                last = body[-1]
                text = last.text + "\r" if last.crlf else last.text
                body[-1] = DiffLine(last.kind, last.old, last.new, text, True, False)
        else:
            raise ValueError(f"not a hunk line: {raw[:40]!r}")
    close()
    return tuple(hunks)


def _file(section: Sequence[str]) -> FilePatch:
    """One `diff --git` section (or one plain unified file) as a `FilePatch`."""
    raw = "".join(section)
    header = _Header()
    header_lines: list[str] = []
    for line in section:
        if not header.read(line):
            break
        text = line.rstrip("\r\n")
        if not text.startswith(("diff --git ", "--- ", "+++ ")):
            header_lines.append(text)
    old, new = header.paths()
    operation = header.operation(old, new)
    error: str | None = None
    warnings: tuple[str, ...] = ()
    hunks: tuple[Hunk, ...] = ()
    if not header.binary:
        try:
            hunks = _hunks(section)
        except Exception as exc:  # unidiff raises assorted errors on bad hunks
            reason = str(exc).strip() or type(exc).__name__
            try:
                hunks = _lenient_hunks(section)
            except ValueError:
                error = reason
            else:
                warnings = (f"hunk sizes disagree with their headers ({reason})",)
    return FilePatch(
        old_path=old,
        new_path=new,
        operation=operation,
        hunks=hunks,
        similarity=header.similarity,
        old_mode=header.old_mode,
        new_mode=header.new_mode,
        binary=header.binary,
        header=tuple(header_lines),
        raw=raw,
        error=error,
        warnings=warnings,
    )


def _sections(lines: Sequence[str]) -> tuple[list[str], list[list[str]]]:
    """Lines before the first `diff --git`, and one list of lines per section."""
    preamble: list[str] = []
    sections: list[list[str]] = []
    for line in lines:
        if line.startswith("diff --git "):
            sections.append([line])
        elif sections:
            sections[-1].append(line)
        else:
            preamble.append(line)
    return preamble, sections


def _plain_sections(lines: Sequence[str]) -> list[list[str]]:
    """A plain unified diff (no `diff --git`) cut before each `--- `/`+++ ` pair."""
    sections: list[list[str]] = []
    current: list[str] = []
    for index, line in enumerate(lines):
        starts = (
            line.startswith("--- ")
            and index + 1 < len(lines)
            and lines[index + 1].startswith("+++ ")
        )
        if starts and any(x.startswith("@@") for x in current):
            sections.append(current)
            current = []
        current.append(line)
    if current:
        sections.append(current)
    return [s for s in sections if any(x.startswith(("--- ", "@@")) for x in s)]


def parse_patch(text: str) -> ParsedPatch:
    """Read git patch text (one or more `diff --git` sections) into the model.

    Plain unified diffs (`---`/`+++` without `diff --git`) are read too. Never
    raises: text that is not a patch comes back with `error` set, and a section
    that fails on its own carries its `FilePatch.error`.

    Args:
        text: The patch text.

    Returns:
        The parsed patch.
    """
    if len(text) > MAX_PATCH_CHARS:
        return ParsedPatch((), text, f"patch too large ({len(text):,} characters)")
    try:
        lines = split_lines(text)
        preamble, sections = _sections(lines)
        if not sections:
            sections = _plain_sections(preamble)
        files = tuple(_file(section) for section in sections)
    except Exception as exc:  # pragma: no cover - a last resort, never expected
        return ParsedPatch((), text, f"could not read the patch: {exc}")
    if not files:
        note = "no diff sections found" if text.strip() else "empty patch"
        return ParsedPatch((), text, note)
    if all(f.error is not None for f in files):
        return ParsedPatch(files, text, files[0].error)
    return ParsedPatch(files, text)


def _diff_path(path: str) -> str:
    """A path as git writes it in a header: C-quoted if it needs quoting."""
    if path.isprintable() and '"' not in path and "\\" not in path:
        return path
    quoted = []
    for byte in path.encode("utf-8", "surrogatepass"):
        char = chr(byte)
        if char in '"\\':
            quoted.append("\\" + char)
        elif 32 <= byte < 127:
            quoted.append(char)
        else:
            quoted.append(f"\\{byte:03o}")
    return '"' + "".join(quoted) + '"'


def patch_from_texts(path: str, old_text: str | None, new_text: str | None) -> str:
    r"""A git-format patch from a file's old and new text (ACP v1 diffs).

    Args:
        path: The file's path (absolute, per the spec).
        old_text: The old content, `None` for a new file.
        new_text: The new content, `None` for a deleted file.

    Returns:
        One `diff --git` section with three lines of context, `\ No newline at
        end of file` where a side does not end with a newline.
    """
    name = _diff_path(path)
    out = [f"diff --git {name} {name}\n"]
    if old_text is None:
        out.append("new file mode 100644\n")
    elif new_text is None:
        out.append("deleted file mode 100644\n")
    old_lines = split_lines(old_text or "")
    new_lines = split_lines(new_text or "")
    body = list(
        difflib.unified_diff(
            old_lines,
            new_lines,
            fromfile=DEV_NULL if old_text is None else name,
            tofile=DEV_NULL if new_text is None else name,
            lineterm="",
            n=3,
        )
    )
    if not body:
        return "".join(out)
    for index, line in enumerate(body):
        if index < 2 or line.startswith("@@"):
            out.append(line + "\n")
        elif line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _change_paths(changes: Iterable[Mapping[str, object]]) -> set[str]:
    paths: set[str] = set()
    for change in changes:
        for key in ("path", "oldPath"):
            value = change.get(key)
            if isinstance(value, str):
                paths.add(value)
    return paths


def check_paths(
    patch: ParsedPatch, changes: Sequence[Mapping[str, object]] | None = None
) -> list[str]:
    """Problems with the patch's paths: not absolute, or not among `changes`.

    ACP requires absolute paths in `git_patch` text, and `changes` is the
    authority on which files a diff touches.

    Args:
        patch: The parsed patch.
        changes: The diff item's `changes`, when it has them.

    Returns:
        One human-readable note per problem (empty when all is well).
    """
    notes: list[str] = []
    known = _change_paths(changes) if changes else None
    for file in patch.files:
        for path in (file.old_path, file.new_path):
            if path is None:
                continue
            if not path.startswith("/"):
                notes.append(f"path is not absolute: {path}")
            elif known is not None and path not in known:
                notes.append(f"path not listed in changes: {path}")
    return list(dict.fromkeys(notes))
