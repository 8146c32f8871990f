"""Interop tests skipped for want of peers say so in a red banner at the end of the run.

Also when the suite runs in parallel (pytest-xdist), where only the controlling
process writes the summary and the skips happen in the workers.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest

ROOT: Final = Path(__file__).resolve().parents[1]
RUN_BOUND: Final = 120.0
UNUSED_PLUGINS: Final = ("hypothesispytest", "textual-snapshot", "syrupy")
"""Installed pytest plugins that the peers' handshake tests never use, left out of
the inner runs: loading them (hypothesis above all, about 0.3 s to import) took
about half of each inner pytest process's CPU time. With `-n 2`, three processes:
6.0 s of CPU with them, 3.1 s without; with `-n 0`, 1.9 s and 1.1 s. The banner
comes from tests/conftest.py, which the inner runs load as before."""


@pytest.mark.subprocess
@pytest.mark.parametrize("workers", ["0", "2"])
def test_missing_peers_end_the_run_with_a_banner(workers: str, tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    env["ACP_TUI_PEERS_DIR"] = str(tmp_path / "no-peers")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            *(f"-pno:{name}" for name in UNUSED_PLUGINS),
            "-n",
            workers,
            "tests/interop/test_peers.py",
            "-k",
            "negotiates",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_BOUND,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert any("INTEROP TESTS SKIPPED" in line and "!!!" in line for line in lines)
    # The banner's own lines (the short summary's start with "SKIPPED [1] ...").
    for peer in ("opencode", "claude-agent-acp"):
        reason = f"INTEROP SKIPPED: {peer} is not installed in {tmp_path / 'no-peers'}"
        assert any(line.startswith(reason) for line in lines), result.stdout
