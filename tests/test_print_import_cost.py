"""`acp-tui print` pays only for what it uses at start-up (issue 28).

Its import time was a third of printing a 20,000-chunk turn (bench/print.py):
the terminal emulator (pyte, wcwidth's tables) is loaded only for output that
needs it, the wire models are built when first used, not at import, and so is
the table of media types (`@` mentions' files: it reads the system's files).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = (
    "import sys; import acp_tui.frontends.print_turn; "
    "from acp_tui.protocol.schema import v2; "
    "print(' '.join(sorted(sys.modules))); "
    "print(v2.UpdateSessionNotification.__pydantic_complete__); "
    "import mimetypes; print(mimetypes.inited)"
)


@pytest.fixture(scope="module")
def loaded() -> list[str]:
    completed = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return completed.stdout.splitlines()


@pytest.mark.subprocess
def test_print_leaves_the_terminal_emulator_for_output_that_needs_it(
    loaded: list[str],
) -> None:
    modules = set(loaded[0].split())
    assert "acp_tui.terminal.final_text" in modules
    assert not modules & {"pyte", "wcwidth", "acp_tui.terminal.emulator"}


@pytest.mark.subprocess
def test_print_leaves_the_diff_parser_to_markdown_exports(loaded: list[str]) -> None:
    modules = set(loaded[0].split())
    assert "acp_tui.export" in modules
    assert not modules & {"unidiff", "acp_tui.diff", "acp_tui.diff.parse"}


@pytest.mark.subprocess
def test_the_wire_models_are_built_when_first_used(loaded: list[str]) -> None:
    assert loaded[1] == "False"


@pytest.mark.subprocess
def test_the_media_types_table_is_built_when_first_used(loaded: list[str]) -> None:
    assert loaded[2] == "False"
