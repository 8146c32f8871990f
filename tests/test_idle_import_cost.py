"""An idle app loads only what it shows (issue 28: idle RSS with the demo agent).

Module code is most of an idle app's memory, so what only some sessions need is
imported when first needed: the terminal emulator's pyte (and wcwidth's tables)
with the first terminal emulated.
"""

from __future__ import annotations

import subprocess
import sys

import pytest


def loaded_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running `code`."""
    completed = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys; print(' '.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return set(completed.stdout.split())


@pytest.mark.subprocess
def test_terminal_cards_load_pyte_with_the_first_terminal() -> None:
    modules = loaded_after("import acp_tui.render.terminal")
    assert "acp_tui.terminal.emulator" in modules
    assert not modules & {"pyte", "wcwidth", "acp_tui.terminal.sandbox"}
    modules = loaded_after(
        "from acp_tui.terminal.emulator import TerminalEmulator\n"
        "emulator = TerminalEmulator(20, 4)\n"
        "emulator.feed(b'hi')\n"
        "assert emulator.text() == 'hi'"
    )
    assert {"pyte", "acp_tui.terminal.sandbox"} <= modules
