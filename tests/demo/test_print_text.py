"""`acp-tui print` in text: what a reader of the transcript sees, per version."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Final

import pytest

from acp_tui.cli import main

pytestmark = pytest.mark.subprocess

AGENT: Final = f"{sys.executable} -m acp_tui.demo"


@pytest.mark.parametrize("version", [1, 2])
def test_a_plan_is_shown_once_then_only_its_changes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, version: int
) -> None:
    argv = ["print", "--agent", AGENT, "--protocol", str(version), "--cwd"]
    assert main([*argv, str(tmp_path), "/plan"]) == 0
    out = capsys.readouterr().out
    # The whole plan once: its pending entries appear in that first print only.
    assert out.count("  [ ] Implement greet()\n") == 1
    assert out.count("  [ ] Refactor helpers\n") == 1
    # Then each step once, under a "changed" header, with nothing else.
    assert out.count("  [>] Implement greet()\n") == 1
    assert out.count("  [x] Implement greet()\n") == 1
    assert "changed]\n  [x] Implement greet()\n\n" in out
    assert out.count("Sketch the greeting API") == 3  # pending, started, done
