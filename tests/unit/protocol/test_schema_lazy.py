"""The v1 wire models load on first use, and a v2 session never uses them.

Building them takes about 0.16 s, which would otherwise stand between starting
the app and its first session (bench/ui.py, time to interactive). Checked in a
fresh interpreter: this test process has long loaded them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

PROBE = """
import json, sys

def loaded():
    module = sys.modules["acp_tui.protocol.schema.v1"]
    # object's own __getattribute__: looking must not load the module.
    return "InitializeResponse" in object.__getattribute__(module, "__dict__")

import acp_tui.client.auth, acp_tui.frontends.check, acp_tui.client.connection
import acp_tui.client.prompt_content, acp_tui.client.session
from acp_tui.protocol.schema import v1
after_import = loaded()
from acp_tui.cli import main
code = main(["print", "--agent", "demo", "--protocol", sys.argv[1],
             "--format", "json", "hello"])
print(json.dumps({"after_import": after_import, "after_turn": loaded(),
                  "code": code, "model": v1.InitializeResponse.__name__}))
"""


def probe(protocol: str, home: Path) -> dict[str, object]:
    completed = subprocess.run(
        [sys.executable, "-c", PROBE, protocol],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=home,
        env={"ACP_TUI_HOME": str(home), "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    result: dict[str, object] = json.loads(completed.stdout.strip().splitlines()[-1])
    return result


def test_a_v2_session_never_loads_the_v1_models(tmp_path: Path) -> None:
    result = probe("2", tmp_path)
    assert result["code"] == 0  # the demo turn ended with end_turn
    assert result["after_import"] is False
    assert result["after_turn"] is False
    assert result["model"] == "InitializeResponse"  # first use loads them


def test_a_v1_session_loads_them_when_it_needs_them(tmp_path: Path) -> None:
    result = probe("1", tmp_path)
    assert result["code"] == 0
    assert result["after_import"] is False
    assert result["after_turn"] is True
