"""`acp-tui print` starts without garbage collections, and its turn never scans
what start-up made (`frontends.print_gc`; issue 28).

Run in a fresh interpreter, as the command runs: the probe counts collections
from the command line read to the turn's start, and looks at the collector as
the turn starts and once the command is over. (The turn itself collects, from
when start-up's objects are frozen.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.print_probe import run_probe

PROBE = """
import gc, io, json, sys
collections = []
gc.callbacks.append(
    lambda phase, info: collections.append((phase, gc.get_freeze_count()))
)
from acp_tui import cli
from acp_tui.frontends import print_turn
seen = {}
run_print = print_turn.run_print

async def watched(*args, **kwargs):
    seen.update(
        collections=collections.count(("start", 0)),  # (none frozen yet)
        frozen=gc.get_freeze_count(),
        enabled=gc.isenabled(),
    )
    return await run_print(*args, **kwargs)

print_turn.run_print = watched
del collections[:]
out, sys.stdout = sys.stdout, io.StringIO()
code = cli.main(["--agent", sys.argv[1], "print", "--format", "json", "go"])
sys.stdout = out
seen.update(code=code, after=gc.get_freeze_count(), on=gc.isenabled())
print(json.dumps(seen))
"""


@pytest.mark.subprocess
def test_print_starts_without_collections_and_freezes_them(tmp_path: Path) -> None:
    completed = run_probe(PROBE, tmp_path)
    seen = json.loads(completed.stdout.splitlines()[-1])
    assert seen["code"] == 0, completed.stderr
    assert seen["collections"] == 0  # none while the command started
    assert seen["frozen"] > 10_000  # start-up's objects, out of the turn's way
    assert seen["enabled"] is True  # and the turn collects as usual
    assert seen["after"] == 0
    assert seen["on"] is True
