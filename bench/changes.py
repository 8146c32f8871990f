"""Cost of a turn's change set on a big git repository (issue 26).

Builds once, cached under the temp directory, a git repository of `--files`
files (50,000 by default, 500 directories of 100 small text files, one commit),
then, in the same run and on the same warm tree, times:

* `git status --porcelain` (the baseline: what any git front end pays);
* `acp_tui.changes.snapshot` (a tree written through a temporary index);
* `acp_tui.changes.diff` after `--changed` files were changed (modified, one
  added, one deleted, one renamed), checking that it lists all of them;
* the walk a directory outside git costs (`plain.read_directory` on the same
  files, `.git` skipped), paid once by the snapshot and once by each diff.

Each figure is the best of `--repeat` runs. Goal: under 1 s each, and the
ratios to `git status` are printed. Figures only: nothing is asserted beyond
the change set listing every change. With `--json FILE` the figures are
written as one JSON object.

Usage: `uv run python bench/changes.py [--files N] [--changed K] [--repeat R]
[--json FILE]`
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from acp_tui.changes import diff, snapshot
from acp_tui.changes.plain import read_directory

T = TypeVar("T")

PER_DIRECTORY = 100


def _git(repo: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env |= {
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.com",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.com",
    }
    return subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, check=True, text=True
    ).stdout


def _path(index: int) -> str:
    return f"pkg{index // PER_DIRECTORY:04d}/module_{index % PER_DIRECTORY:03d}.py"


def build(files: int) -> Path:
    """The cached repository of `files` files (built on the first run)."""
    repo = Path(tempfile.gettempdir()) / f"acp-tui-bench-changes-{files}"
    done = repo / ".git" / "acp-tui-bench-built"
    if done.exists():
        return repo
    if repo.exists():
        subprocess.run(["rm", "-rf", str(repo)], check=True)
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    for index in range(files):
        path = repo / _path(index)
        path.parent.mkdir(exist_ok=True)
        body = "".join(f"def f{n}(x):\n    return x + {index}\n\n" for n in range(4))
        path.write_text(f"# file {index}\n{body}")
    (repo / ".gitignore").write_text("*.pyc\n__pycache__/\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "bench tree")
    done.write_text("built\n")
    return repo


def reset(repo: Path) -> None:
    """The tree back to its commit (undo the last round's changes)."""
    _git(repo, "reset", "-q", "--hard")
    _git(repo, "clean", "-fdq")
    _git(repo, "status", "--porcelain")  # refresh the index's stat cache


def change(repo: Path, files: int, count: int) -> int:
    """Change `count` files spread over the tree; return how many changed."""
    step = max(1, files // count)
    targets = [repo / _path(i * step) for i in range(count)]
    for path in targets[:-3]:
        with path.open("a") as handle:
            handle.write("\ndef added_by_the_agent():\n    return 42\n")
    targets[-3].unlink()
    targets[-2].rename(targets[-2].with_name("renamed_module.py"))
    (targets[-1].parent / "brand_new.py").write_text("print('new')\n")
    return count


def best(
    repeat: int, setup: Callable[[], None], run: Callable[[], T]
) -> tuple[float, T]:
    times: list[float] = []
    result: T | None = None
    for _ in range(repeat):
        setup()
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    assert result is not None
    return min(times), result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--changed", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)

    start = time.perf_counter()
    repo = build(args.files)
    built = time.perf_counter() - start
    tracked = len(_git(repo, "ls-files", "-z").split("\0")) - 1
    print(f"repository: {repo} ({tracked:,} files; ready in {built:.1f} s)")

    def clean() -> None:
        reset(repo)

    status_s, _ = best(args.repeat, clean, lambda: _git(repo, "status", "--porcelain"))
    snapshot_s, _ = best(args.repeat, clean, lambda: snapshot([repo]))

    reset(repo)
    base = snapshot([repo])
    changed = change(repo, args.files, args.changed)
    status_changed_s, _ = best(
        args.repeat, lambda: None, lambda: _git(repo, "status", "--porcelain")
    )
    diff_s, changes = best(args.repeat, lambda: None, lambda: diff(base))
    listed = len(changes.files)
    expected = changed  # 17 modified, 1 deleted, 1 renamed, 1 added
    kinds: dict[str, int] = {}
    for file in changes.files:
        kinds[file.status] = kinds.get(file.status, 0) + 1
    reset(repo)
    # The same files as if outside git: walked, hashed, text kept under caps.
    plain_s, plain = best(args.repeat, lambda: None, lambda: read_directory(repo))

    ratio_snapshot = snapshot_s / status_s
    ratio_diff = diff_s / status_changed_s
    print(f"git status --porcelain (clean):    {status_s * 1000:8.1f} ms")
    print(
        f"git status --porcelain ({changed} changed): {status_changed_s * 1000:5.1f} ms"
    )
    print(
        f"snapshot:                          {snapshot_s * 1000:8.1f} ms"
        f"  ({ratio_snapshot:.1f}x git status)"
    )
    print(
        f"diff ({changed} changed files):       {diff_s * 1000:8.1f} ms"
        f"  ({ratio_diff:.1f}x git status)"
    )
    print(
        f"outside git, one walk ({len(plain.files):,} files hashed): "
        f"{plain_s * 1000:.1f} ms (a snapshot, and again per diff)"
    )
    if plain.notice:
        print(f"  notice: {plain.notice}")
    print(f"change set: {listed} files listed, {expected} expected", end="")
    print("" if listed == expected else "  MISMATCH")
    print("  " + ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items())))
    goal = snapshot_s < 1 and diff_s < 1
    print(f"goal (< 1 s each): {'met' if goal else 'NOT met'}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "files": tracked,
                    "changed": changed,
                    "listed": listed,
                    "status_s": status_s,
                    "status_changed_s": status_changed_s,
                    "snapshot_s": snapshot_s,
                    "diff_s": diff_s,
                    "plain_walk_s": plain_s,
                    "goal_met": goal,
                }
            )
        )
    return 0 if listed == expected else 1


if __name__ == "__main__":
    raise SystemExit(main())
