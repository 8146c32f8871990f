"""What each turn changed in the session's directories, and its review state.

`ClientRunner` owns one `TurnChanges`: when a turn starts it snapshots the
session's directory and its additional ones (`acp_tui.changes.snapshot`), and
when the turn ends it diffs (`refresh` diffs on demand while it runs). Every
snapshot, diff and revert runs in a worker thread (`anyio.to_thread`), so a big
repository never blocks the event loop (the UI's). Listeners (the review view,
the pane) hear of each new `TurnReview`.

The review state of the last turn lives here too, free of Textual: which hunks
and files were kept (reviewed), the undo records of the reverts made since the
turn (undoable until the next turn starts), and the comments collected for the
agent (`acp_tui.client.review_prompt`). Off (`enabled=False`, config
`[review] enabled = false`), nothing is snapshotted.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from acp_tui.client.review_prompt import ReviewComment

if TYPE_CHECKING:
    from acp_tui.changes import ChangeSet, FileChange, Snapshot
    from acp_tui.changes.revert import Baseline, RevertRefused, Undo

# acp_tui.changes (and the diff parser, unidiff, under it) is imported where a
# turn is snapshotted, diffed or reverted: `acp-tui print` builds a runner too,
# and never reviews (tests/test_print_import_cost.py).

__all__ = ["SNAPSHOT_WAIT", "HunkKey", "RevertRefused", "TurnChanges", "TurnReview"]

log = logging.getLogger(__name__)

SNAPSHOT_WAIT = 1.0
"""Seconds a prompt waits for its turn's snapshot at most. A bigger tree (a
huge directory outside git) goes on being snapshotted while the prompt goes
out; the review then says that the first moments of the turn may be missed."""

_LATE = (
    "the snapshot of the session's directories took longer than the turn's "
    "start: a change made in the turn's first moments may be missing here"
)


HunkKey = tuple[str, str, int]
"""A hunk (or, with -1, a whole file) as the keep marks know it: (directory,
path, the hunk's first old line). The old side is the snapshot, so a hunk keeps
its key when other hunks are reverted and the set is diffed again."""


@dataclass(frozen=True, slots=True)
class TurnReview:
    """One turn's change set, as last diffed.

    Attributes:
        turn: The turn's number (1 for the session's first turn here).
        snapshot: The directories as the turn started.
        changes: What changed since (every file, any means).
        baseline: Each changed file's digest when diffed (`revert.Baseline`).
        running: The turn was still running when diffed.
    """

    turn: int
    snapshot: Snapshot
    changes: ChangeSet
    baseline: Baseline
    running: bool = False


@dataclass
class ReviewState:
    """What the user did in the review of the last turn."""

    kept: set[HunkKey] = field(default_factory=set)
    undos: list[Undo] = field(default_factory=list)
    comments: list[ReviewComment] = field(default_factory=list)


def hunk_key(change: FileChange, index: int) -> HunkKey:
    """The key of hunk `index` of `change` (-1: the whole file)."""
    start = -1
    if index >= 0 and change.patch is not None and index < len(change.patch.hunks):
        start = change.patch.hunks[index].old_start
    return (str(change.directory), change.path, start)


class TurnChanges:
    """The change sets of one runner's turns (see the module docstring).

    Args:
        enabled: Snapshot at all (the config's `[review] enabled`).
    """

    def __init__(self, *, enabled: bool) -> None:
        self.enabled = enabled
        self.turn = 0
        """Turns started so far."""
        self.review: TurnReview | None = None
        """The last turn's change set, once diffed."""
        self.state = ReviewState()
        self._snapshot: Snapshot | None = None
        self._pending: _Pending | None = None
        self._late = False
        self._running = False
        self._listeners: list[Callable[[TurnReview], None]] = []

    def subscribe(self, listener: Callable[[TurnReview], None]) -> Callable[[], None]:
        """Call `listener` with every new diff; returns the unsubscribe function."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    @property
    def running(self) -> bool:
        """A turn is running (its snapshot taken, not diffed at its end yet)."""
        return self._running

    async def begin(self, directories: Sequence[Path]) -> None:
        """A turn starts: snapshot `directories` (the undo records go).

        Waits for the snapshot up to `SNAPSHOT_WAIT` seconds; past that the
        turn starts anyway and the snapshot finishes beside it.
        """
        if not self.enabled:
            return
        self.turn += 1
        self.state.undos.clear()
        self.state.kept.clear()
        pending = _Pending(list(directories))
        self._pending = pending
        self._running = True
        done = await anyio.to_thread.run_sync(pending.done.wait, SNAPSHOT_WAIT)
        pending.late = not done

    async def _snapshot_now(self) -> Snapshot | None:
        pending = self._pending
        if pending is not None:
            await anyio.to_thread.run_sync(pending.done.wait)
            self._pending = None
            self._snapshot = pending.result
            self._late = pending.late
            if pending.result is None:
                self._running = False
        return self._snapshot

    async def end(self) -> TurnReview | None:
        """The turn ended: diff it (listeners hear of the result)."""
        if not self._running:
            return None
        self._running = False
        return await self.refresh()

    async def refresh(self) -> TurnReview | None:
        """Diff the last turn's snapshot against the tree now (None: no turn)."""
        snap = await self._snapshot_now()
        if snap is None:
            return None
        running = self._running
        turn = self.turn
        try:
            changes, baseline = await anyio.to_thread.run_sync(
                partial(_diff_and_capture, snap)
            )
        except Exception:
            log.exception("could not diff the turn's directories")
            return None
        if self._late:
            from acp_tui.changes import ChangeSet

            changes = ChangeSet(changes.files, (*changes.notices, _LATE))
        review = TurnReview(turn, snap, changes, baseline, running)
        self.review = review
        for listener in list(self._listeners):
            listener(review)
        return review

    # ------------------------------------------------------------- reverts

    async def _revert(self, work: Callable[[], Undo]) -> Undo:
        record = await anyio.to_thread.run_sync(work)
        self.state.undos.append(record)
        await self.refresh()
        return record

    def _current(self) -> TurnReview:
        review = self.review
        if review is None:
            raise _refused("no turn's changes to revert")
        return review

    async def revert_hunk(self, change: FileChange, index: int) -> Undo:
        """Revert one hunk (`RevertRefused` says why not)."""
        from acp_tui.changes.revert import revert_hunk

        return await self._revert(partial(revert_hunk, change, index))

    async def revert_file(self, change: FileChange) -> Undo:
        """Revert one file as a whole."""
        from acp_tui.changes.revert import revert_file

        review = self._current()
        return await self._revert(
            partial(revert_file, change, review.snapshot, review.baseline)
        )

    async def revert_turn(self) -> Undo:
        """Revert every file of the turn (all or nothing)."""
        from acp_tui.changes.revert import revert_turn

        review = self._current()
        return await self._revert(
            partial(revert_turn, review.changes, review.snapshot, review.baseline)
        )

    async def undo(self) -> Undo:
        """Undo the last revert (until the next turn starts)."""
        if not self.state.undos:
            raise _refused("nothing to undo")
        from acp_tui.changes.revert import undo

        record = self.state.undos[-1]
        redo = await anyio.to_thread.run_sync(partial(undo, record))
        self.state.undos.pop()
        await self.refresh()
        return redo

    # ------------------------------------------------------------- keeping

    def keep(self, change: FileChange, index: int) -> bool:
        """Mark a hunk (-1: the file) kept, or unmark it; whether it is now."""
        key = hunk_key(change, index)
        if key in self.state.kept:
            self.state.kept.discard(key)
            return False
        self.state.kept.add(key)
        return True

    def is_kept(self, change: FileChange, index: int) -> bool:
        """Whether the hunk, or its whole file, was marked kept."""
        kept = self.state.kept
        return hunk_key(change, index) in kept or hunk_key(change, -1) in kept


class _Pending:
    """A snapshot being taken in its own thread."""

    def __init__(self, directories: list[Path]) -> None:
        self.result: Snapshot | None = None
        self.late = False
        self.done = threading.Event()
        thread = threading.Thread(
            target=self._take, args=(directories,), name="turn-snapshot", daemon=True
        )
        thread.start()

    def _take(self, directories: list[Path]) -> None:
        try:
            self.result = snapshot(directories)
        except Exception:  # never stop a turn over its review
            log.exception("could not snapshot the turn's directories")
        finally:
            self.done.set()


def _diff_and_capture(snap: Snapshot) -> tuple[ChangeSet, Baseline]:
    from acp_tui.changes import diff
    from acp_tui.changes.revert import capture

    changes = diff(snap)
    return changes, capture(changes)


def snapshot(directories: Sequence[Path]) -> Snapshot:
    """`acp_tui.changes.snapshot`, imported when first used."""
    from acp_tui.changes import snapshot as take

    return take(directories)


def _refused(reason: str) -> RevertRefused:
    from acp_tui.changes.revert import RevertRefused

    return RevertRefused(reason)


def __getattr__(name: str) -> object:
    """`RevertRefused`, re-exported, without importing the changes up front."""
    if name == "RevertRefused":
        from acp_tui.changes.revert import RevertRefused

        return RevertRefused
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
