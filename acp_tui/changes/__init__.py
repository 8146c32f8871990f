"""Change sets: what a turn changed in the session's directories, from the tree.

`snapshot(directories)` when a turn starts, `diff(snapshot)` when it ends (or
at any moment while it runs) gives a `ChangeSet`: every file added, modified,
deleted, renamed or changed in type or mode, by whatever means (the agent's
tools, a shell command, a formatter), each with its git patch parsed by
`acp_tui.diff`, so the existing diff views show it. No Textual, no client.

Invariants:

* **The user's repository is never changed.** In a git work tree both sides
  are tree objects written through a temporary copy of the index
  (`GIT_INDEX_FILE`); the real index file is only read. No ref, reflog,
  stash entry or work-tree file is written; the only writes are loose objects
  (unreferenced: `git gc` may prune them after `gc.pruneExpire`). `git status
  --porcelain`, `git stash list`, `git for-each-ref`, `HEAD` and the index's
  bytes are identical before and after (tests/unit/changes checks each).
* **Ignored files stay out** unless `include_ignored=True`.
* **A subdirectory of a repository** is compared alone, paths relative to it.
* **Outside git**, files are hashed (every change is seen, up to `MAX_FILES`)
  and text under the caps is kept for patches; what the caps left out is a
  sentence in `Snapshot.notices` / `ChangeSet.notices` and `FileChange.note`.
* **Cost**: one `git add -A` with the index's stat cache plus `write-tree`
  per side, about a `git status` each (`bench/changes.py`).
"""

from __future__ import annotations

from acp_tui.changes.changeset import diff
from acp_tui.changes.model import ChangeSet, ChangeStatus, FileChange
from acp_tui.changes.snapshot import GitSnapshot, RootSnapshot, Snapshot, snapshot

__all__ = [
    "ChangeSet",
    "ChangeStatus",
    "FileChange",
    "GitSnapshot",
    "RootSnapshot",
    "Snapshot",
    "diff",
    "snapshot",
]
