"""The review of what a turn changed: files, diffs, reverts, keeps, comments.

Opened from the session (f6 once a turn changed files, or the palette's
"Review changes"), over the last turn's change set
(`acp_tui.client.turn_changes.TurnChanges`): on the left the changed files as
a tree (`ReviewFiles`: status letter, +/- counts, kept mark), on the right the
file's diff (`ReviewDiff`, unified or side by side with `s`) with a hunk
cursor (`n`/`p`; shift+down/up select some of its lines). Keys: `r` reverts
the hunk, `R` the file, `T` the whole turn (after a question), `u` undoes the
last revert, `k` keeps (marks reviewed) the hunk, `c` comments on it (or on the
selected lines), ctrl+s sends the comments as one prompt, `g` diffs again, Esc
closes.

Invariants:

* A revert that would clobber a change made since refuses, and the refusal is
  a notification, never a crash; nothing is written then.
* Every revert runs off the event loop, and the change set is diffed again
  after it (the list and the diff show what is left).
* Paths and notices come from the tree and the agent: shown as printable
  text, never markup.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static, Tree

from acp_tui.changes import FileChange
from acp_tui.changes.plain import PlainSnapshot
from acp_tui.changes.revert import Undo
from acp_tui.client.review_prompt import ReviewComment, comment_from_hunk, review_prompt
from acp_tui.client.turn_changes import RevertRefused, TurnChanges, TurnReview
from acp_tui.safe_text import printable
from acp_tui.ui.deferred_work import later
from acp_tui.ui.screens.confirm import ConfirmRevertTurnScreen
from acp_tui.ui.screens.review_comment import CommentScreen
from acp_tui.ui.widgets.footer import Footer
from acp_tui.ui.widgets.review_diff import ReviewDiff
from acp_tui.ui.widgets.review_files import ReviewFiles

__all__ = ["ReviewScreen"]

_SIGNS = {"context": " ", "added": "+", "removed": "-"}


class ReviewScreen(Screen[None]):
    """A turn's changes, to revert, keep and comment on.

    Args:
        changes: The runner's change sets (the last turn's is reviewed).
        cwd: The session's working directory (paths in the prompt).
        send: Sends the review's prompt text like a typed prompt.
    """

    DEFAULT_CSS = """
    ReviewScreen {
        background: $surface;
        & > #review-title {
            height: 1;
            background: $panel;
            text-style: bold;
            padding: 0 1;
        }
        & > #review-notices {
            height: auto;
            max-height: 4;
            color: $text-warning;
            padding: 0 1;
        }
        & #review-main { height: 1fr; }
        & #review-right { width: 3fr; height: 1fr; }
        & #review-status {
            height: 1;
            background: $boost;
            color: $text-muted;
            padding: 0 1;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("r", "revert_hunk", "Revert hunk"),
        Binding("R", "revert_file", "Revert file"),
        Binding("T", "revert_turn", "Revert turn"),
        Binding("u", "undo", "Undo"),
        Binding("k", "keep", "Keep"),
        Binding("c", "comment", "Comment"),
        Binding("ctrl+s", "send_review", "Send review"),
        Binding("n,right_square_bracket", "next_hunk", "Next hunk"),
        Binding("p,left_square_bracket", "previous_hunk", "Prev hunk", show=False),
        # Priority: the file tree binds shift+up/down itself.
        Binding(
            "shift+down", "select_lines(1)", "Select lines", show=False, priority=True
        ),
        Binding(
            "shift+up", "select_lines(-1)", "Fewer lines", show=False, priority=True
        ),
        Binding("s", "toggle_layout", "Split/unified", show=False),
        Binding("g", "diff_again", "Diff again", show=False),
        Binding("q", "close", "Close", show=False),
    ]

    def __init__(
        self, changes: TurnChanges, cwd: Path, send: Callable[[str], None]
    ) -> None:
        super().__init__()
        self.changes = changes
        self.cwd = cwd
        self._send = send
        self.review: TurnReview | None = changes.review
        self._path: tuple[str, str] | None = None
        """(directory, path) of the file shown, kept across diffs."""
        self._unsubscribe: Callable[[], None] | None = None

    # ----------------------------------------------------------------- layout

    def compose(self) -> ComposeResult:
        """Title, notices, files beside the diff, status line, keys."""
        yield Static(id="review-title")
        yield Static(id="review-notices")
        with Horizontal(id="review-main"):
            yield ReviewFiles(id="review-files")
            with Vertical(id="review-right"):
                yield ReviewDiff(id="review-diff")
                yield Static(id="review-status")
        yield Footer()

    def on_mount(self) -> None:
        """Show the change set (diffed again at once if the turn still runs)."""
        self._unsubscribe = self.changes.subscribe(self._diffed)
        self._show(self.review)
        self.query_one(ReviewFiles).focus()
        if self.review is None or self.changes.running:
            self.action_diff_again()

    def on_unmount(self) -> None:
        """Stop listening to the runner's diffs."""
        if self._unsubscribe is not None:
            self._unsubscribe()

    def _diffed(self, review: TurnReview) -> None:
        if self.is_attached:
            self._show(review)

    @property
    def files(self) -> tuple[FileChange, ...]:
        """The changed files on screen."""
        return () if self.review is None else self.review.changes.files

    @property
    def change(self) -> FileChange | None:
        """The file shown in the diff."""
        return self.query_one(ReviewDiff).change

    def _show(self, review: TurnReview | None) -> None:
        self.review = review
        files = self.files
        title = "Review"
        notices: list[str] = []
        if review is None:
            title += " · no turn diffed yet"
        else:
            added = sum(f.patch.added for f in files if f.patch is not None)
            removed = sum(f.patch.removed for f in files if f.patch is not None)
            noun = "file" if len(files) == 1 else "files"
            title += f" · turn {review.turn}"
            if review.running:
                title += " (running)"
            title += f" · {len(files)} {noun} changed +{added} -{removed}"
            notices = [printable(n) for n in review.changes.notices]
            notices += [
                printable(
                    f"{root.directory.name}/ is not a git work tree: compared file "
                    "by file (ignored files included)"
                )
                for root in review.snapshot.roots
                if isinstance(root, PlainSnapshot)
            ]
            if not files:
                notices.append("Nothing changed in the session's directories.")
        self.query_one("#review-title", Static).update(Content(title))
        box = self.query_one("#review-notices", Static)
        box.update(Content("\n".join(notices)))
        box.display = bool(notices)
        select = 0
        if self._path is not None:
            select = next(
                (
                    i
                    for i, f in enumerate(files)
                    if (str(f.directory), f.path) == self._path
                ),
                0,
            )
        diff = self.query_one(ReviewDiff)
        hunk = diff.hunk
        tree = self.query_one(ReviewFiles)
        tree.show_files(files, self._file_kept, select)
        self._show_file(select, hunk)

    def _file_kept(self, change: FileChange) -> bool:
        return self.changes.is_kept(change, -1)

    def _show_file(self, index: int, hunk: int = 0) -> None:
        files = self.files
        change = files[index] if 0 <= index < len(files) else None
        self._path = None if change is None else (str(change.directory), change.path)
        diff = self.query_one(ReviewDiff)
        shown = diff.change
        same = (
            change is not None
            and shown is not None
            and (shown.directory, shown.path) == (change.directory, change.path)
        )
        diff.show_change(change, hunk if same else 0)
        self._status()

    @on(Tree.NodeHighlighted)
    def _highlighted(self, event: Tree.NodeHighlighted[int]) -> None:
        event.stop()
        index = event.node.data
        files = self.files
        if index is None or not 0 <= index < len(files):
            return
        change = files[index]
        if (str(change.directory), change.path) != self._path:
            self._show_file(index)  # (the same file keeps its hunk cursor)

    def _status(self) -> None:
        diff = self.query_one(ReviewDiff)
        change = diff.change
        parts: list[str] = []
        if change is not None:
            name = printable(change.path)
            hunk = diff.current
            if hunk is not None:
                last = hunk.new_start + max(hunk.new_count, 1) - 1
                lines = f"{hunk.new_start}" + (
                    f"-{last}" if last > hunk.new_start else ""
                )
                parts.append(f"hunk {diff.hunk + 1}/{len(diff.hunks)} · {name}:{lines}")
            else:
                parts.append(f"{name}: no hunks (R reverts the whole file)")
            if diff.selection is not None:
                first, last = diff.selection
                count = last - first + 1
                parts.append(f"{count} line{'s' if count != 1 else ''} selected")
            if self.changes.is_kept(change, diff.hunk if hunk is not None else -1):
                parts.append("kept ✓")
        count = len(self.changes.state.comments)
        if count:
            noun = "comment" if count == 1 else "comments"
            parts.append(f"{count} {noun} to send (ctrl+s)")
        undos = len(self.changes.state.undos)
        if undos:
            parts.append(f"u undoes ({undos})")
        self.query_one("#review-status", Static).update(Content(" · ".join(parts)))

    # ----------------------------------------------------------------- moving

    def action_next_hunk(self) -> None:
        """The cursor to the next hunk (or the next file's first)."""
        if not self.query_one(ReviewDiff).move_hunk(1):
            self._next_file(1)
        self._status()

    def action_previous_hunk(self) -> None:
        """The cursor to the previous hunk."""
        self.query_one(ReviewDiff).move_hunk(-1)
        self._status()

    def _next_file(self, step: int) -> None:
        tree = self.query_one(ReviewFiles)
        current = tree.selected_index
        files = self.files
        target = (current if current is not None else -1) + step
        if 0 <= target < len(files):
            tree.show_files(files, self._file_kept, target)
            self._show_file(target)

    def action_select_lines(self, step: int) -> None:
        """Select the hunk's lines one more (or fewer), for a comment on them."""
        self.query_one(ReviewDiff).select_lines(step)
        self._status()

    def action_toggle_layout(self) -> None:
        """Unified or side by side."""
        self.query_one(ReviewDiff).action_toggle_layout()

    def action_close(self) -> None:
        """Back to the session."""
        self.dismiss(None)

    # ----------------------------------------------------------------- reverts

    @work(group="review", exclusive=True, exit_on_error=False)
    async def _run(self, what: Callable[[], Awaitable[Undo]], done: str) -> None:
        try:
            record = await what()
        except RevertRefused as refused:
            self.notify(printable(str(refused)), severity="warning", markup=False)
            return
        except OSError as exc:
            self.notify(
                printable(f"not reverted: {exc}"), severity="error", markup=False
            )
            return
        self.notify(printable(f"{done} {record.description}"), markup=False, timeout=4)
        if self.is_attached:
            self._status()

    def action_revert_hunk(self) -> None:
        """Revert the hunk under the cursor."""
        diff = self.query_one(ReviewDiff)
        change = diff.change
        if change is None:
            return
        if diff.current is None or change.status not in ("modified", "renamed"):
            self.notify(
                printable(
                    f"{change.path} has no hunk to revert alone: R reverts the file"
                ),
                severity="warning",
                markup=False,
            )
            return
        index = diff.hunk
        self._run(lambda: self.changes.revert_hunk(change, index), "Reverted")

    def action_revert_file(self) -> None:
        """Revert the file shown."""
        change = self.change
        if change is not None:
            self._run(lambda: self.changes.revert_file(change), "Reverted")

    def action_revert_turn(self) -> None:
        """Revert every file, after a question."""
        count = len(self.files)
        if not count:
            self.notify("nothing to revert", severity="warning")
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._run(self.changes.revert_turn, "Reverted")

        self.app.push_screen(ConfirmRevertTurnScreen(count), answered)

    def action_undo(self) -> None:
        """Undo the last revert."""
        self._run(self.changes.undo, "Undone: the revert of")

    def action_diff_again(self) -> None:
        """Diff the turn again (the files as they are now)."""
        self.run_worker(
            later(self.changes.refresh), group="review-diff", exclusive=True
        )

    # ----------------------------------------------------------------- review

    def action_keep(self) -> None:
        """Mark the hunk (or a file without hunks) kept, then go to the next."""
        diff = self.query_one(ReviewDiff)
        change = diff.change
        if change is None:
            return
        index = diff.hunk if diff.current is not None else -1
        kept = self.changes.keep(change, index)
        if kept and all(
            self.changes.is_kept(change, i) for i in range(len(diff.hunks))
        ):
            self.changes.state.kept.add((str(change.directory), change.path, -1))
        elif not kept:
            self.changes.state.kept.discard((str(change.directory), change.path, -1))
        self.query_one(ReviewFiles).relabel(self.files, self._file_kept)
        if kept:
            diff.move_hunk(1)
        self._status()

    def action_comment(self) -> None:
        """Comment on the hunk under the cursor (or the file)."""
        diff = self.query_one(ReviewDiff)
        change = diff.change
        if change is None:
            return
        hunk = diff.current
        if hunk is None:
            lines: list[tuple[str, str]] = []
            start = 1
        else:
            chosen = hunk.lines
            start = hunk.new_start
            if diff.selection is not None:
                first, last = diff.selection
                chosen = hunk.lines[first : last + 1]
                start += sum(1 for line in hunk.lines[:first] if line.kind != "removed")
            lines = [(_SIGNS[line.kind], line.text) for line in chosen]
        absolute = change.absolute

        def written(text: str | None) -> None:
            if text is None:
                return
            comment = comment_from_hunk(absolute, start, lines, text)
            self.changes.state.comments.append(comment)
            if self.is_attached:
                self._status()

        preview = comment_from_hunk(absolute, start, lines, "")
        place = _place(preview, change)
        self.app.push_screen(CommentScreen(place, preview.quoted), written)

    def action_send_review(self) -> None:
        """Send the comments as one prompt, and close."""
        comments = self.changes.state.comments
        if not comments:
            self.notify(
                "no comments yet: c comments on the hunk under the cursor",
                severity="warning",
            )
            return
        text = review_prompt(comments, self.cwd)
        count = len(comments)
        comments.clear()
        self._send(text)
        noun = "comment" if count == 1 else "comments"
        self.notify(f"Review sent to the agent ({count} {noun})", timeout=4)
        self.dismiss(None)


def _place(comment: ReviewComment, change: FileChange) -> str:
    where = (
        f"{comment.first}"
        if comment.last <= comment.first
        else (f"{comment.first}-{comment.last}")
    )
    return f"{printable(change.path)}:{where}"
