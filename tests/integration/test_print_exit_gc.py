"""An `acp-tui print` process exits without collecting its whole heap
(`frontends.print_gc.exit_without_collection`; issue 28).

Run in a fresh interpreter, as the command runs: a hook registered before the
command (so it runs after every hook the command registers) looks at the
collector as the process exits.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.print_probe import run_probe

PROBE = """
import atexit, gc, io, json, os, sys
def at_exit():
    seen = {"frozen": gc.get_freeze_count(), "tracked": len(gc.get_objects())}
    os.write(1, (json.dumps(seen) + "\\n").encode())
atexit.register(at_exit)
from acp_tui import cli
out, sys.stdout = sys.stdout, io.StringIO()
code = cli.main(["--agent", sys.argv[1], "print", "--format", "json", "go"])
document, sys.stdout = sys.stdout.getvalue(), out
print(json.dumps({"code": code, "stop": json.loads(document)["stopReason"]}))
sys.stdout.flush()
"""


@pytest.mark.subprocess
def test_print_exits_with_its_heap_frozen(tmp_path: Path) -> None:
    completed = run_probe(PROBE, tmp_path)
    ran, at_exit = (json.loads(line) for line in completed.stdout.splitlines()[-2:])
    assert ran == {"code": 0, "stop": "end_turn"}, completed.stderr
    assert at_exit["frozen"] > 10_000  # the whole heap: no collection scans it
    assert at_exit["tracked"] < 100  # (what the collector would still look at)
