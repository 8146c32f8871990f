"""Issue 22's size bounds on the rooms of the client seam, so they stay small.

`client/session.py` (`AcpClient`) keeps the ACP methods; what it used to do
besides (the inbound update path: `client/update_intake.py`; the wiring of a
connection: `client/runner.py`) lives in rooms named for it. The app's runner is
a thin Textual adapter over `client/runner.py`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import pytest

import acp_tui

ROOT: Final = Path(acp_tui.__file__).parent


@pytest.mark.parametrize(
    ("module", "bound"),
    [("client/session.py", 650), ("ui/agent_runner.py", 600)],
)
def test_the_module_stays_small(module: str, bound: int) -> None:
    lines = len((ROOT / module).read_text(encoding="utf-8").splitlines())
    assert lines < bound, f"{module} has {lines} lines"
