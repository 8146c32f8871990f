"""The demo agent loads only what its client's protocol version needs (issue 28).

The test suite starts the demo agent a few hundred times, and most of a start is
import time (pydantic models above all): a v1 connection builds the v1 wire
models and never the v2 ones (about 40 ms of CPU each start), and serving a
client never loads the private log files of the agent-spawning side (their
`logging.handlers`, `pickle`).
"""

from __future__ import annotations

import pytest

from tests.test_idle_import_cost import loaded_after

V1_MODELS = """
from acp_tui.protocol.schema import wire_models
assert wire_models(1).InitializeResponse.__name__ == "InitializeResponse"
"""

DEMO_SERVER = "import acp_tui.demo.server"


@pytest.mark.subprocess
def test_the_v1_wire_models_come_without_the_v2_ones() -> None:
    modules = loaded_after(V1_MODELS)
    assert "acp_tui.protocol.schema.v1" in modules
    assert "acp_tui.protocol.schema.v2" not in modules


@pytest.mark.subprocess
def test_the_demo_agent_leaves_the_agent_log_files_to_the_client() -> None:
    modules = loaded_after(DEMO_SERVER)
    assert "acp_tui.protocol.transport" in modules
    assert not modules & {"acp_tui.storage.private_files", "logging.handlers"}
