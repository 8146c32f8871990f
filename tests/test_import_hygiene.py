"""Headless layers never pull in Textual or Rich, checked at runtime.

import-linter checks the static import graph; this catches what it cannot see
(imports done by plugins, lazy imports executed at import time, and third-party
packages that import Textual or Rich themselves).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

HEADLESS = [
    "acp_tui",
    "acp_tui.cli",
    "acp_tui.config",
    "acp_tui.storage.paths",
    "acp_tui.display_paths",
    "acp_tui.protocol.framing",
    "acp_tui.protocol.jsonrpc",
    "acp_tui.protocol.dispatcher",
    "acp_tui.protocol.transport",
    "acp_tui.protocol.version",
    "acp_tui.protocol.schema.v1",
    "acp_tui.protocol.schema.v2",
    "acp_tui.client.connection",
    "acp_tui.frontends.probe",
    "acp_tui.client.runner",
    "acp_tui.frontends.check",
    "acp_tui.client.session",
    "acp_tui.client.agents",
    "acp_tui.export",
    "acp_tui.frontends.print_turn",
    "acp_tui.frontends.sessions",
    "acp_tui.frontends.export_transcript",
    "acp_tui.frontends.replay",
    "acp_tui.bridge.serve",
    "acp_tui.bridge.asgi",
    "acp_tui.demo.server",
    "acp_tui.store",
    "acp_tui.terminal.emulator",
    "acp_tui.diff",
    "acp_tui.changes",
]

# dir() runs a module that loads lazily (acp_tui.protocol.schema.v1).
PROBE = (
    "import importlib, sys; dir(importlib.import_module(sys.argv[1])); "
    "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
)


@pytest.mark.subprocess
@pytest.mark.parametrize("module", HEADLESS)
def test_headless_module_does_not_import_textual_or_rich(module: str) -> None:
    completed = subprocess.run(
        [sys.executable, "-c", PROBE, module],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    loaded = set(completed.stdout.split())
    assert "textual" not in loaded
    assert "rich" not in loaded


@pytest.mark.subprocess
def test_store_is_stdlib_only() -> None:
    completed = subprocess.run(
        [sys.executable, "-c", PROBE, "acp_tui.store"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    loaded = set(completed.stdout.split())
    assert not loaded & {"pydantic", "anyio", "textual", "rich"}


@pytest.mark.subprocess
def test_cli_import_stays_light_for_version() -> None:
    completed = subprocess.run(
        [sys.executable, "-c", PROBE, "acp_tui.cli"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    loaded = set(completed.stdout.split())
    assert not loaded & {"pydantic", "anyio", "textual", "rich"}


@pytest.mark.subprocess
def test_app_import_leaves_the_wire_models_for_later() -> None:
    """The first frame must not wait for the pydantic wire models: the app module
    imports the client stack lazily (in the agent worker)."""
    full_probe = PROBE.replace("{m.split('.')[0] for m in sys.modules}", "sys.modules")
    completed = subprocess.run(
        [sys.executable, "-c", full_probe, "acp_tui.ui.app"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    loaded = set(completed.stdout.split())
    assert "textual.app" in loaded
    assert not loaded & {
        "acp_tui.protocol.schema.v1",
        "acp_tui.protocol.schema.v2",
        "acp_tui.client.connection",
        "acp_tui.client.session",
    }
