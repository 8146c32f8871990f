"""The JSON document of `acp-tui print` on every demo scenario, pinned byte for byte.

`tests/fixtures/print_documents/v<N>-<scenario>.json` were written by
`acp-tui print --format json --permissions allow` before the client runner
(issue 22) took over the wiring, so a refactor of the client path cannot change
the document unseen. The only normalisation: the temporary project directory
reads `<PROJECT>`, the temporary root `<TMP>`, the interpreter that runs the demo's
tools `<PYTHON>` (the checkout's `.venv`), and the demo's context usage
and cost (`"used"`, `"amount"`: counted from the characters of the conversation,
temporary paths included) read `<N>`. The demo's session ids and clock are fixed by
`tests/demo/conftest.py`. The exit status is pinned too.

A deliberate change of the document (issue 23: adjacent text chunks joined) is
written by running this file with `ACP_TUI_UPDATE_DOCUMENTS=1` set; review the
diff before committing it.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Final

import pytest

from acp_tui.cli import main
from acp_tui.demo.pacing import FLOOR_ENV

pytestmark = pytest.mark.subprocess

AGENT: Final = f"{sys.executable} -m acp_tui.demo"
DOCUMENTS: Final = Path(__file__).parent.parent / "fixtures" / "print_documents"
SCENARIOS: Final = [
    "hello",
    "/help",
    "/markdown",
    "/plan",
    "/read",
    "/edit",
    "/files",
    "/run",
    "/stream",
    "/permission",
    "/misbehave",
    "/long",
    "/title",
    "/usage",
    "/slow",
    "/notice",
    "/compact",
    "/subagents",
    "/cancel-tool",
    "/plan-docs",
    "/changes",
]
EXIT_CODES: Final = {"/misbehave": 4}
USAGE: Final = re.compile(r'"(used|amount)": [0-9.]+')


def normalised(text: str) -> str:
    return USAGE.sub(r'"\1": <N>', text)


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("prompt", SCENARIOS)
def test_print_document_is_unchanged(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    project: Path,
    version: int,
    prompt: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(
        FLOOR_ENV, "0"
    )  # `/long` at full speed: only its document counts
    code = main(
        [
            "print",
            "--agent",
            AGENT,
            "--protocol",
            str(version),
            "--cwd",
            str(project),
            "--format",
            "json",
            "--permissions",
            "allow",
            prompt,
        ]
    )
    out = capsys.readouterr().out
    text = out.replace(str(project), "<PROJECT>").replace(str(tmp_path), "<TMP>")
    text = text.replace(sys.executable, "<PYTHON>")
    expected = DOCUMENTS / f"v{version}-{prompt.strip('/')}.json"
    if os.environ.get("ACP_TUI_UPDATE_DOCUMENTS") == "1":
        expected.write_text(text, encoding="utf-8")
    assert normalised(text) == normalised(expected.read_text(encoding="utf-8"))
    assert code == EXIT_CODES.get(prompt, 0)
