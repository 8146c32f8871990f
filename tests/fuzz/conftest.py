"""Print how many examples the fuzz tests ran, in pytest's terminal summary.

Each fuzz test records its count as the `fuzz_examples` user property (see
`tests/fuzz/examples.py`); the summary lists them and their total whenever any
fuzz test ran, with or without `-s` or `-r`.
"""

from __future__ import annotations

import pytest

from tests.fuzz.examples import FUZZ_PROPERTY


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    counts: list[tuple[str, int]] = []
    for reports in terminalreporter.stats.values():
        for report in reports:
            if not isinstance(report, pytest.TestReport) or report.when != "call":
                continue
            for name, value in report.user_properties:
                if name == FUZZ_PROPERTY and isinstance(value, int):
                    counts.append((report.nodeid, value))
    if not counts:
        return
    terminalreporter.write_sep("=", "fuzz examples")
    for nodeid, count in sorted(counts):
        terminalreporter.write_line(f"{count:>8,}  {nodeid}")
    total = sum(count for _, count in counts)
    terminalreporter.write_line(f"{total:>8,}  examples in {len(counts)} fuzz tests")
