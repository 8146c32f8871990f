"""Review comments, and the one prompt that sends them all to the agent.

A `ReviewComment` is what the user wrote about a hunk (or lines) of the turn's
changes: the file, the line range on the new side, the quoted diff lines and
the text. `review_prompt` turns several into one prompt text: a `path:line`
reference per comment with its quoted lines in a fence, then one `@path`
mention per file under the working directory, which `build_prompt`
(`acp_tui.client.prompt_content`) sends as a resource link, or as embedded
context where the agent accepts it. No Textual.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from acp_tui.client.prompt_content import mention_text

__all__ = ["ReviewComment", "comment_from_hunk", "review_prompt"]


@dataclass(frozen=True, slots=True)
class ReviewComment:
    """One comment on the turn's changes.

    Attributes:
        absolute: The file's absolute path.
        first: The first line it is about, on the new side (1-based; for lines
            that were only removed, the line where they were).
        last: The last such line (`first` for one line).
        quoted: The diff lines it is about, each with its `+`, `-` or space.
        text: What the user wrote.
    """

    absolute: Path
    first: int
    last: int
    quoted: tuple[str, ...]
    text: str


def comment_from_hunk(
    absolute: Path,
    new_start: int,
    lines: Sequence[tuple[str, str]],
    text: str,
) -> ReviewComment:
    """A comment on a hunk's lines: (`+`/`-`/` `, text) each, from `new_start`."""
    changed = [i for i, (sign, _t) in enumerate(lines) if sign != " "]
    span = lines[changed[0] : changed[-1] + 1] if changed else lines
    offset = changed[0] if changed else 0
    first = new_start + sum(1 for sign, _t in lines[:offset] if sign != "-")
    count = sum(1 for sign, _t in span if sign != "-")
    quoted = tuple(sign + line for sign, line in span)
    return ReviewComment(
        absolute, max(first, 1), max(first + count - 1, first, 1), quoted, text
    )


def _reference(comment: ReviewComment, cwd: Path) -> str:
    path = _shown(comment.absolute, cwd)
    if comment.last > comment.first:
        return f"{path}:{comment.first}-{comment.last}"
    return f"{path}:{comment.first}"


def _shown(absolute: Path, cwd: Path) -> str:
    """The path relative to the working directory when under it, else absolute."""
    try:
        return absolute.relative_to(cwd).as_posix()
    except ValueError:
        return str(absolute)


def _fence(lines: Sequence[str]) -> str:
    """A backtick fence longer than any run of backticks in `lines`."""
    longest = 0
    for line in lines:
        run = 0
        for character in line:
            run = run + 1 if character == "`" else 0
            longest = max(longest, run)
    return "`" * max(3, longest + 1)


def review_prompt(comments: Sequence[ReviewComment], cwd: Path) -> str:
    """The prompt text that sends `comments` (see the module docstring).

    Args:
        comments: The comments, in the order they were written.
        cwd: The session's working directory (paths are shown relative to it).

    Returns:
        The text, to be sent like a typed prompt.
    """
    count = len(comments)
    noun = "comment" if count == 1 else "comments"
    parts = [f"Review of your changes ({count} {noun}):"]
    for number, comment in enumerate(comments, 1):
        fence = _fence(comment.quoted)
        block = [f"{number}. {_reference(comment, cwd)}"]
        if comment.quoted:
            block += [fence + "diff", *comment.quoted, fence]
        block.append(comment.text.strip())
        parts.append("\n".join(block))
    files = dict.fromkeys(
        comment.absolute
        for comment in comments
        if comment.absolute.is_relative_to(cwd) and comment.absolute.is_file()
    )
    if files:
        mentions = " ".join(mention_text(_shown(path, cwd)) for path in files)
        parts.append(f"Files: {mentions}")
    return "\n\n".join(parts) + "\n"
