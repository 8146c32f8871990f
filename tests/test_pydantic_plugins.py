"""acp-tui runs without pydantic plugins, and never imports their loader.

`acp_tui.pydantic_plugins`: the loader imported `importlib.metadata` (and
`email`, `zipfile`...) at the first schema pydantic built, about 2.5 MB of an
idle app and 10-15 ms of every start (issue 28).
"""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest
from pydantic.plugin import _schema_validator

from acp_tui.pydantic_plugins import LOADER

BUILD = (
    "from acp_tui.protocol.schema import v2\n"
    "v2.InitializeResponse.model_validate("
    "{'protocolVersion': 2, 'info': {'name': 'a', 'version': '1'}})\n"
    "import acp_tui.frontends.print_turn, acp_tui.config\n"
    "acp_tui.config.Settings()\n"
)


def _run(code: str) -> list[str]:
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout.split()


@pytest.mark.subprocess
def test_schemas_are_built_without_importing_the_plugin_loader() -> None:
    out = _run(
        BUILD + "import sys\n"
        "print('importlib.metadata' in sys.modules, 'zipfile' in sys.modules)\n"
        f"print(sys.modules[{LOADER!r}].get_plugins() == ())"
    )
    assert out == ["False", "False", "True"]


@pytest.mark.subprocess
def test_a_loader_already_imported_is_left_alone() -> None:
    out = _run(
        "import pydantic\n"
        "class M(pydantic.BaseModel):\n"
        "    x: int = 0\n"
        "M()\n" + BUILD + "import sys\n"
        f"print(hasattr(sys.modules[{LOADER!r}], 'PYDANTIC_ENTRY_POINT_GROUP'))"
    )
    assert out == ["True"]


def test_pydantic_still_asks_that_module_for_its_plugins() -> None:
    """The private layout this relies on (pinned by uv.lock; fails on an upgrade
    that moves it, rather than silently loading plugins again)."""
    source = inspect.getsource(_schema_validator.create_schema_validator)
    assert "from ._loader import get_plugins" in source
    assert f"{_schema_validator.__package__}._loader" == LOADER
