"""Git plumbing for change sets: trees written through a temporary index.

Every call here leaves the user's index, stash, refs and work tree as they were:
the real index file is only read (copied to a temporary file, so its stat cache
keeps `git add` cheap), `git add -A` and `git write-tree` run against that copy
(`GIT_INDEX_FILE`), and the only thing written into the repository is loose
objects (blobs and trees, unreferenced: `git gc` may prune them after
`gc.pruneExpire`, two weeks by default). No ref, reflog or stash entry is made.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = ["GitError", "GitRoot", "find_root", "run_git", "write_tree"]

GIT_TIMEOUT: Final = 120.0
"""Seconds any one git command may take."""

# Settings that keep git from doing more than asked, whatever the user's config:
# no automatic gc, no external diff or text conversion, no fsmonitor daemon,
# no shared index file written beside the real one.
_CONFIG: Final = (
    "-c",
    "gc.auto=0",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.splitIndex=false",
    "-c",
    "diff.noprefix=false",
    "-c",
    "diff.mnemonicPrefix=false",
    "-c",
    "core.quotePath=true",
)

# Variables of the caller's environment that would point git elsewhere.
_DROPPED: Final = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_PREFIX",
    "GIT_EXTERNAL_DIFF",
    "GIT_DIFF_OPTS",
)


class GitError(RuntimeError):
    """A git command failed (its stderr is the message)."""


def _environment(extra: Mapping[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED}
    env["GIT_OPTIONAL_LOCKS"] = "0"
    env["GIT_TERMINAL_PROMPT"] = "0"
    env.update(extra)
    return env


def run_git(
    cwd: Path, args: Sequence[str], *, env: Mapping[str, str] | None = None
) -> bytes:
    """Run `git ARGS` in `cwd` and return its stdout.

    Raises:
        GitError: git is missing, failed or took longer than `GIT_TIMEOUT`.
    """
    command = ["git", *_CONFIG, *args]
    try:
        done = subprocess.run(
            command,
            cwd=cwd,
            env=_environment(env or {}),
            capture_output=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitError(f"git {args[0]}: {exc}") from exc
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip()
        raise GitError(f"git {args[0]}: {message or f'exit {done.returncode}'}")
    return done.stdout


@dataclass(frozen=True, slots=True)
class GitRoot:
    """Where a directory sits in its git work tree.

    Attributes:
        directory: The directory asked about (resolved).
        toplevel: The work tree's top directory.
        prefix: `directory` relative to `toplevel`, with a trailing `/` (empty
            at the top).
        index: The path of the work tree's real index file (it may not exist
            yet in a fresh repository).
    """

    directory: Path
    toplevel: Path
    prefix: str
    index: Path


def find_root(directory: Path) -> GitRoot | None:
    """The git work tree holding `directory`, or `None` (no git, not in one, bare)."""
    try:
        out = run_git(
            directory,
            [
                "rev-parse",
                "--is-inside-work-tree",
                "--show-toplevel",
                "--show-prefix",
                "--git-path",
                "index",
            ],
        )
    except GitError:
        return None
    lines = os.fsdecode(out).split("\n")
    if len(lines) < 4 or lines[0] != "true":
        return None
    index = Path(lines[3])
    if not index.is_absolute():
        index = directory / index
    return GitRoot(directory, Path(lines[1]), lines[2], index)


def write_tree(root: GitRoot, *, include_ignored: bool) -> str:
    """A tree object of the work tree as it is now; the user's index untouched.

    The real index is copied to a temporary file; `git add -A` of the directory
    (with `--force` to take ignored files too) and `git write-tree` run on the
    copy. Paths outside `root.directory` keep what the real index has.

    Returns:
        The tree's object id.
    """
    scratch = Path(tempfile.mkdtemp(prefix="acp-tui-changes-"))
    try:
        temp_index = scratch / "index"
        # A fresh repository may have no index yet: start from an empty one.
        with contextlib.suppress(FileNotFoundError):
            shutil.copyfile(root.index, temp_index)
        env = {"GIT_INDEX_FILE": str(temp_index)}
        add = ["add", "-A", "--force"] if include_ignored else ["add", "-A"]
        run_git(root.directory, [*add, "--", "."], env=env)
        out = run_git(root.directory, ["write-tree"], env=env)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return out.decode("ascii").strip()
