"""Every demo test runs with its own data dir, no streaming delay and a fixed clock."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.demo.pacing import DELAY_ENV, NOW_ENV

FIXED_NOW = "2026-01-02T03:04:05Z"


@pytest.fixture(autouse=True)
def demo_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`ACP_TUI_HOME` in tmp, `ACP_TUI_DEMO_DELAY=0`, `ACP_TUI_DEMO_NOW` fixed."""
    home = tmp_path / "home"
    monkeypatch.setenv("ACP_TUI_HOME", str(home))
    monkeypatch.setenv(DELAY_ENV, "0")
    monkeypatch.setenv(NOW_ENV, FIXED_NOW)
    return home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A directory standing for the user's project (the session cwd)."""
    path = tmp_path / "project"
    path.mkdir()
    (path / "precious.txt").write_text("the user's own file\n")
    return path


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Report how many demo messages were validated against the schemas."""
    from tests.demo.schema_check import TOTALS

    if TOTALS:
        counts = ", ".join(f"v{v}: {n}" for v, n in sorted(TOTALS.items()))
        terminalreporter.write_line(
            f"demo agent messages validated against the ACP schemas: {counts}"
        )
