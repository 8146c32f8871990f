"""Run a probe that drives `acp-tui print` in a fresh interpreter, as the command runs.

The agent is `tests/fakes/plain_stream_agent.py` (50 chunks), given to the probe as
its first argument; `ACP_TUI_HOME` is the test's own directory.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

AGENT = Path(__file__).resolve().parent.parent / "fakes" / "plain_stream_agent.py"


def run_probe(probe: str, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -c probe AGENT *args`, its output as text (raises if it fails)."""
    return subprocess.run(
        [sys.executable, "-c", probe, f"{sys.executable} {AGENT} 50", *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env={"ACP_TUI_HOME": str(home), "PATH": "/usr/bin:/bin"},
    )
