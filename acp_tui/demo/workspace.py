r"""The demo's scratch workspace, and git-format patches built with `difflib`.

Every session gets its own directory, `<data_dir>/demo/workspaces/<session id>`
(`acp_tui.storage.paths.data_dir()`: platformdirs' user data dir, or
`$ACP_TUI_HOME/data`), unless its `cwd` already lies under
`<data_dir>/demo/workspaces`: then that is its workspace (acp-tui opens demo
sessions in `acp_tui.storage.paths.demo_project_dir()`, so
the paths the demo names lie in the session's directory and read relative to
it). Tool calls only ever read, write, move or delete files in there.

Invariants:

* **Never the user's files.** `Workspace.path()` resolves a relative name inside
  the root and refuses anything that escapes it (`..`, absolute names, symlinks
  pointing out). The session's `cwd` is only reported, never written to, unless
  it resolves to a directory under the demo's own workspaces root. Such a shared
  workspace outlives its sessions (deleting one leaves it).
* **Deterministic.** The seed files are constants. A scenario that changes a file
  first restores the files it touches (`reset`), so the same scenario always shows
  the same diff, however often it runs.
* `git_patch()` writes `diff --git` sections in Git's `-p` text format with
  *absolute* paths (ACP v2 `git_patch`), with no commit or email headers.
"""

from __future__ import annotations

import difflib
import os
import shutil
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from acp_tui.storage import paths

__all__ = [
    "PROGRESS_SCRIPT",
    "SEED_FILES",
    "TextChange",
    "Workspace",
    "git_patch",
    "png_bytes",
    "workspaces_root",
]


def workspaces_root() -> Path:
    """Where the session workspaces live: `<data_dir>/demo/workspaces`."""
    return paths.data_dir() / "demo" / "workspaces"


PROGRESS_SCRIPT: Final = '''\
"""The demo agent's build: coloured lines and a carriage-return progress bar."""
import os
import sys
import time

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 10
delay = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
if len(sys.argv) > 3:
    with open(sys.argv[3], "w") as pid_file:
        pid_file.write(str(os.getpid()))
out = sys.stdout
out.write("\\x1b[1;36m==> Building the demo project\\x1b[0m\\n")
for name in ("greeting", "farewell", "docs"):
    out.write("\\x1b[32m  \\u2714\\x1b[0m compiled \\x1b[1m%s\\x1b[0m\\n" % name)
out.flush()
for step in range(steps + 1):
    done = step * 20 // steps
    bar = "#" * done + "." * (20 - done)
    out.write("\\r\\x1b[33m[%s]\\x1b[0m %3d%%" % (bar, step * 100 // steps))
    out.flush()
    if step < steps:
        time.sleep(delay)
out.write("\\n\\x1b[1;32mAll 3 checks passed\\x1b[0m ")
out.write("\\x1b[2m(%d steps)\\x1b[0m\\n" % steps)
out.flush()
'''
"""The command `/run` executes in a PTY (`python progress.py STEPS DELAY [PIDFILE]`)."""

SEED_FILES: Final[dict[str, str]] = {
    "README.md": (
        "# Demo project\n"
        "\n"
        "A tiny project the acp-tui demo agent plays with.\n"
        "Nothing here is yours: the agent made it in its scratch workspace.\n"
    ),
    "src/greeting.py": (
        '"""Greetings."""\n'
        "\n"
        "\n"
        "def greet(name):\n"
        '    return "Hello, " + name\n'
        "\n"
        "\n"
        'if __name__ == "__main__":\n'
        '    print(greet("world"))\n'
    ),
    "notes.txt": "Things to remember:\n- water the plants\n",
    "docs/draft.md": "# Draft\n\nThis page moves to guide.md in /files.\n",
    "build.log": "build 41: ok\nbuild 42: ok\n",
    "tools/progress.py": PROGRESS_SCRIPT,
}
"""Text files every workspace starts with (relative path -> content)."""

_CRC: Final = zlib.crc32


def png_bytes(rgb: tuple[int, int, int], size: int = 4) -> bytes:
    """A valid, deterministic PNG of one colour (for the binary-change demo)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            len(data).to_bytes(4, "big")
            + kind
            + data
            + (_CRC(kind + data) & 0xFFFFFFFF).to_bytes(4, "big")
        )

    header = size.to_bytes(4, "big") * 2 + bytes([8, 2, 0, 0, 0])
    row = b"\x00" + bytes(rgb) * size
    pixels = zlib.compress(row * size, 9)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", pixels)
        + chunk(b"IEND", b"")
    )


LOGO_BEFORE: Final = png_bytes((40, 120, 200))
LOGO_AFTER: Final = png_bytes((230, 120, 40))


@dataclass(frozen=True, slots=True)
class TextChange:
    """A text file change, for `git_patch()`.

    `old_text` None means an added file, `new_text` None a deleted one.
    """

    path: str
    old_text: str | None
    new_text: str | None


class Workspace:
    """One session's scratch directory."""

    def __init__(self, root: Path) -> None:
        self.root = root.absolute()

    @classmethod
    def for_session(cls, session_id: str, cwd: str | None = None) -> Workspace:
        """The workspace of a session (not created yet: call `ensure()`).

        Args:
            session_id: The session.
            cwd: The session's `cwd`: its workspace when it lies under
                `workspaces_root()` (see the module docstring).
        """
        if cwd is not None and _under_workspaces(cwd):
            return cls(Path(cwd))
        return cls(workspaces_root() / session_id)

    def ensure(self) -> None:
        """Create the directory and any missing seed file."""
        self.root.mkdir(parents=True, exist_ok=True)
        for name, text in SEED_FILES.items():
            target = self.path(name)
            if not target.exists():
                self.write(name, text)
        logo = self.path("assets/logo.png")
        if not logo.exists():
            self.write_bytes("assets/logo.png", LOGO_BEFORE)

    def path(self, name: str) -> Path:
        """The absolute path of a file in the workspace.

        Raises:
            ValueError: The name would leave the workspace.
        """
        if os.path.isabs(name):
            raise ValueError(f"{name!r} is not relative to the workspace")
        candidate = (self.root / name).resolve()
        root = self.root.resolve()
        if candidate != root and root not in candidate.parents:
            raise ValueError(f"{name!r} is outside the workspace")
        return self.root / name

    def read(self, name: str) -> str:
        """A text file's content."""
        return self.path(name).read_text("utf-8")

    def write(self, name: str, text: str) -> None:
        """Write a text file (parents created)."""
        target = self.path(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, "utf-8")

    def write_bytes(self, name: str, data: bytes) -> None:
        """Write a binary file (parents created)."""
        target = self.path(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)

    def remove(self, name: str) -> None:
        """Delete a file if it exists."""
        target = self.path(name)
        if target.is_file() or target.is_symlink():
            target.unlink()

    def move(self, old: str, new: str) -> None:
        """Rename a file inside the workspace."""
        target = self.path(new)
        target.parent.mkdir(parents=True, exist_ok=True)
        self.path(old).replace(target)

    def reset(self, *names: str) -> None:
        """Restore seed files to their seed content."""
        for name in names:
            if name == "assets/logo.png":
                self.write_bytes(name, LOGO_BEFORE)
            else:
                self.write(name, SEED_FILES[name])

    def destroy(self) -> None:
        """Delete the whole workspace."""
        shutil.rmtree(self.root, ignore_errors=True)


def _under_workspaces(cwd: str) -> bool:
    """Whether `cwd` resolves to a directory below `workspaces_root()`."""
    if not os.path.isabs(cwd):
        return False
    root = workspaces_root().resolve()
    return root in Path(cwd).resolve().parents


def _lines(text: str | None) -> list[str]:
    return [] if text is None else text.splitlines(keepends=True)


def _hunks(old: str | None, new: str | None, before: str, after: str) -> list[str]:
    body = list(difflib.unified_diff(_lines(old), _lines(new), before, after, n=3))
    out: list[str] = []
    for line in body:
        if line.endswith("\n"):
            out.append(line)
        else:  # the last line of a file without a final newline
            out.append(line + "\n")
            out.append("\\ No newline at end of file\n")
    return out


def git_patch(changes: Sequence[TextChange]) -> str:
    """One `diff --git` section per change, with absolute paths (ACP `git_patch`)."""
    sections: list[str] = []
    for change in changes:
        path = change.path
        head = [f"diff --git {path} {path}\n"]
        if change.old_text is None:
            head.append("new file mode 100644\n")
            before, after = "/dev/null", path
        elif change.new_text is None:
            head.append("deleted file mode 100644\n")
            before, after = path, "/dev/null"
        else:
            before, after = path, path
        hunks = _hunks(change.old_text, change.new_text, before, after)
        if not hunks:
            continue
        sections.append("".join(head + hunks))
    return "".join(sections)
