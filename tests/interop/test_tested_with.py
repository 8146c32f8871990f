"""The "Tested with" table cannot drift from what the interop tests run.

`tested_with.json` says, per agent and protocol version, which flows pass, which
fail on a known acp-tui bug (strict xfail) and which the agent does not offer;
`test_real_turns.py` takes its parameters and marks from it. The README's
"Tested with" table (between its `tested-with` markers) must be the one rendered
from it, `.ci/install-peers` must pin the versions it names, and with the peers
installed, their versions must be the ones it names.
"""

from __future__ import annotations

import re

import pytest

from tests.interop.conftest import PEERS
from tests.interop.real_agents import AGENTS, HERE, KINDS, table, table_data

REPO = HERE.parents[1]
README = REPO / "README.md"
INSTALL_PEERS = REPO / ".ci" / "install-peers"
TESTS = HERE / "test_real_turns.py"
START, END = "<!-- tested-with:start -->\n", "<!-- tested-with:end -->\n"


def test_the_readme_table_is_rendered_from_the_data() -> None:
    text = README.read_text()
    assert START in text, "README.md lost its tested-with start marker"
    assert END in text, "README.md lost its tested-with end marker"
    shown = text.split(START, 1)[1].split(END, 1)[0]
    assert shown == table(), (
        "README.md's Tested with table is stale: put table() between its markers"
    )


def test_install_peers_pins_the_versions_in_the_table() -> None:
    script = INSTALL_PEERS.read_text()
    for row in table_data()["agents"]:
        package = AGENTS[row["key"]].package
        pin = f"$(pin {package} {row['version']})"
        assert pin in script, f".ci/install-peers does not pin {package}"


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
