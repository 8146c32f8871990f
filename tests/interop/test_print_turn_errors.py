"""A failed turn in `acp-tui print` reads as the agent's words, through a real agent.

claude-agent-acp reports a model error as the turn's error (v2: an idle
`state_update` with `stopReason: "error"`; v1: an error answer to the prompt).
`print` used to dump the v2 error object as JSON (`\\u00b7` and all); it must say
the agent's message, with the code in brackets, in both versions.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.interop.real_agents import AGENTS, Workspace, print_json
from tests.modelserver._script import HttpError

pytestmark = pytest.mark.interop

OUTAGE = "scripted outage · retry in a moment"


@pytest.mark.parametrize("key", ["claude-v2", "claude-v1"])
def test_a_model_error_reads_as_the_agents_message(key: str, tmp_path: Path) -> None:
    agent = AGENTS[key]
    agent.argv()  # skips loudly when the peer is not installed
    workspace = Workspace(tmp_path).create()
    script = agent.script(
        {"fail please": [(HttpError(400, "invalid_request_error", OUTAGE),)]}
    )
    with agent.server(script) as server:
        run = print_json(
            agent, workspace, agent.environment(workspace, server), "fail please"
        )
    assert run.code == 3, run.err
    failure = next(line for line in run.err.splitlines() if "error" in line)
    assert OUTAGE in failure, run.err
    assert failure.rstrip().endswith(")"), failure  # the code, in brackets, last
    assert '{"code"' not in run.err
    assert "\\u00b7" not in run.err
