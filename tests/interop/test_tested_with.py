"""The "Tested with" table cannot drift from what the interop tests run.

`tested_with.json` says, per agent and protocol version, which flows pass, which
fail on a known acp-tui bug (strict xfail) and which the agent does not offer;
`test_real_turns.py` takes its parameters and marks from it. The table
(`tested_with.md`, meant for the README) must be the one rendered from it, and
with the peers installed, their versions must be the ones it names.
"""

from __future__ import annotations

import re

import pytest

from tests.interop.conftest import PEERS
from tests.interop.real_agents import AGENTS, HERE, KINDS, table, table_data

TABLE = HERE / "tested_with.md"
TESTS = HERE / "test_real_turns.py"


def test_the_table_is_rendered_from_the_data() -> None:
    assert TABLE.read_text() == table(), (
        "tests/interop/tested_with.md is stale: write table() to it"
    )


def test_every_flow_has_a_test_and_every_agent_an_answer_for_it() -> None:
    data = table_data()
    flows = set(data["flows"])
    tested = set(re.findall(r'cases\("([^"]+)"\)', TESTS.read_text()))
    assert tested == flows
    for row in data["agents"]:
        assert set(row["flows"]) == flows, row["key"]
        for flow, expected in row["flows"].items():
            kind, _, reason = str(expected).partition(":")
            assert kind in KINDS, (row["key"], flow)
            assert bool(reason.strip()) == (kind != "pass"), (row["key"], flow)
    assert [row["key"] for row in data["agents"]] == list(AGENTS)


def test_the_rendering_groups_flows_by_result() -> None:
    data = {
        "flows": {"a": "flow a", "b": "flow b", "c": "flow c", "d": "flow d"},
        "agents": [
            {
                "key": "x-v2",
                "agent": "x",
                "version": "1.0",
                "protocol": 2,
                "flows": {"a": "pass", "b": "xfail: bug", "c": "n/a: none"}
                | {"d": "agent: its bug"},
            }
        ],
    }
    assert table(data).splitlines()[2] == "| x | 1.0 | v2 | a | b | d | c |"
    assert table(data).splitlines()[-1] == "- `d`: flow d"


@pytest.mark.interop
@pytest.mark.parametrize("key", list(AGENTS))
def test_the_installed_peer_is_the_version_in_the_table(key: str) -> None:
    agent = AGENTS[key]
    agent.argv()  # skips (loudly) when the peer is not installed
    row = next(r for r in table_data()["agents"] if r["key"] == key)
    assert agent.version() == row["version"], (
        f"{agent.package} is {agent.version()} in {PEERS}: re-run "
        "scripts/record_real_agents.py and the interop tests, then update "
        "tests/interop/tested_with.json"
    )
