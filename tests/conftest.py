"""Test-wide set-up.

`tests.ui.helpers` (`wait_for`, `screen_settled`) is imported by UI, fault and
integration tests alike; registered here, before any test module is imported, its
asserts are rewritten like a test module's wherever it is first imported.

Skips that mean lost coverage (interop peers or the browser not installed) are
repeated in a red banner at the end of the run. The banner is built here, from the
skip reports, because under pytest-xdist only the controlling process writes the
summary, and it never imports tests/interop/conftest.py or tests/serve/conftest.py.
"""

from collections.abc import Sequence

import pytest

pytest.register_assert_rewrite("tests.ui.helpers")

LOUD_SKIPS = {
    "INTEROP SKIPPED": "INTEROP TESTS SKIPPED",
    "BROWSER TEST SKIPPED": "BROWSER TEST SKIPPED",
}
"""Reason prefix (see tests/interop/conftest.py, tests/serve/conftest.py): banner."""


def _skip_reason(report: pytest.TestReport) -> str | None:
    longrepr = report.longrepr
    if isinstance(longrepr, Sequence) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return None


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    found: dict[str, set[str]] = {}
    for report in terminalreporter.stats.get("skipped", []):
        reason = _skip_reason(report)
        for prefix, banner in LOUD_SKIPS.items():
            if reason is not None and reason.startswith(prefix):
                found.setdefault(banner, set()).add(reason)
    for banner, reasons in found.items():
        terminalreporter.write_sep("!", banner, red=True, bold=True)
        for reason in sorted(reasons):
            terminalreporter.write_line(reason, red=True)
