"""bench/print_phases.py: its arithmetic on captured figures (no print runs here)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH_DIR = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH_DIR))
try:
    import print_phases
finally:
    sys.path.remove(str(BENCH_DIR))

IMPORTTIME = """\
import time: self [us] | cumulative | imported package
import time:       100 |        100 |       decimal
import time:       300 |        400 |     pydantic_core
import time:       200 |        600 |   pydantic
import time:        50 |         50 |     re
import time:       150 |        200 |   acp_tui.protocol.schema.v2
import time:       100 |        900 | acp_tui.client.v2
import time:       100 |        100 | json
"""


def test_a_standard_module_counts_for_the_package_that_imported_it() -> None:
    shares = print_phases.import_shares(IMPORTTIME)
    total = 1000
    assert shares["pydantic"] == pytest.approx(600 / total)  # decimal included
    assert shares["schema"] == pytest.approx(200 / total)  # its `re` included
    assert shares["acp_tui"] == pytest.approx(100 / total)
    assert shares["other"] == pytest.approx(100 / total)  # json: imported by none


def test_each_phase_runs_from_the_mark_before_it() -> None:
    figures = {
        "marks": {
            "start": 0.02,
            "config": 0.08,
            "client": 0.17,
            "first": 0.18,
            "stream": 0.38,
            "document": 0.45,
            "written": 0.47,
        },
        "total": 0.48,
    }
    phases = print_phases.phase_times(figures)
    assert phases["config"] == pytest.approx(0.06)
    assert phases["stream"] == pytest.approx(0.20)
    assert phases["exit"] == pytest.approx(0.01)
    assert sum(phases.values()) == pytest.approx(0.48)


def test_a_phase_never_reached_takes_no_time() -> None:
    figures = {"marks": {"start": 0.02, "config": 0.08}, "total": 0.1}
    phases = print_phases.phase_times(figures)
    assert phases["client"] == 0.0
    assert phases["exit"] == pytest.approx(0.02)
