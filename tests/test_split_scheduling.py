"""`--dist loadfile` with test_real_turns.py split by agent, the files that wait
handed out in turn with the others, most computing files spread among the Pilot
files, the test processes' garbage collection (issue 28), and the Node agents'
shared code cache."""

from __future__ import annotations

import gc
import os
import subprocess
import sys

from tests.conftest import (
    FULL_COLLECTION_EVERY,
    NODE_COMPILE_CACHE,
    _long_ones_early,
    blended,
    interleaved,
    work_unit,
)

REAL_TURNS = "tests/interop/test_real_turns.py"


def test_each_agent_of_the_real_turns_is_a_work_unit_of_its_own() -> None:
    text = f"{REAL_TURNS}::test_text_streams_as_the_agents_message"
    resume = f"{REAL_TURNS}::test_the_session_is_resumed_with_its_history"
    assert work_unit(f"{text}[claude-v2]") == work_unit(f"{resume}[claude-v2]")
    assert work_unit(f"{text}[claude-v2]") != work_unit(f"{text}[claude-v1]")
    assert work_unit(f"{text}[opencode-v1]").startswith(REAL_TURNS)


def test_other_files_stay_whole() -> None:
    path = "tests/ui/test_app.py"
    assert work_unit(f"{path}::test_a[v1]") == work_unit(f"{path}::test_b[v2]") == path
    assert work_unit(f"{path}::TestClass::test_c") == path


def test_the_files_that_wait_are_handed_out_in_turn_with_the_others() -> None:
    units = [
        f"{REAL_TURNS}[claude-v1]",
        f"{REAL_TURNS}[opencode-v1]",
        "tests/interop/test_peers.py",
        "tests/bridge/test_bridge_client.py",
        "tests/faults/test_app_faults.py",
        "tests/fuzz/test_replay.py",
        "tests/ui/test_app.py",
    ]
    assert interleaved(units) == [
        f"{REAL_TURNS}[claude-v1]",
        "tests/faults/test_app_faults.py",
        f"{REAL_TURNS}[opencode-v1]",
        "tests/fuzz/test_replay.py",
        "tests/interop/test_peers.py",
        "tests/ui/test_app.py",
        "tests/bridge/test_bridge_client.py",
    ]
    assert interleaved(units[4:]) == units[4:]  # nothing waits: the usual order


def test_most_computing_files_are_spread_among_the_pilot_files() -> None:
    ui = [f"tests/ui/test_{n}.py" for n in "abcd"]
    unit = [f"tests/unit/test_{n}.py" for n in "efghijkl"]
    units = ["tests/faults/test_x.py", "tests/test_cli.py", *ui, *unit]
    order = blended(units)
    assert sorted(order) == sorted(units)  # nothing lost, nothing twice
    assert order[:3] == ["tests/faults/test_x.py", "tests/test_cli.py", ui[0]]
    # Six of the eight computing units among the Pilot ones, in their order,
    # one or two after each; the last two after the last Pilot unit.
    assert order[2:] == [
        ui[0], unit[0], ui[1], unit[1], unit[2], ui[2], unit[3],
        ui[3], unit[4], unit[5], unit[6], unit[7],
    ]  # fmt: skip
    assert [u for u in order if u.startswith("tests/ui/")] == ui
    assert [u for u in order if u.startswith("tests/unit/")] == unit


def test_the_longest_pilot_files_come_first_among_them() -> None:
    units = [
        "tests/ui/test_a.py",
        "tests/ui/test_tabs.py",
        "tests/ui/test_conversation_window.py",
        "tests/unit/test_e.py",
    ]
    assert blended(units) == [
        "tests/ui/test_conversation_window.py",
        "tests/ui/test_tabs.py",
        "tests/ui/test_a.py",
        "tests/unit/test_e.py",
    ]


def test_the_long_ones_are_spread_over_the_first_half() -> None:
    units = [f"u{n}" for n in range(12)]
    # Three long ones: one every 12 // 6 = 2 units from the first; a unit not
    # collected is ignored; the others keep their order.
    assert _long_ones_early(units, ["u9", "u1", "u11", "gone"]) == [
        "u9", "u0", "u1", "u2", "u11", "u3", "u4", "u5", "u6", "u7", "u8", "u10",
    ]  # fmt: skip
    assert _long_ones_early(units, ["gone"]) == units


def test_without_pilot_or_computing_files_the_order_stays() -> None:
    units = ["tests/faults/test_x.py", "tests/ui/test_a.py", "tests/test_cli.py"]
    assert blended(units) == units
    assert blended(units[::-1]) == units[::-1]


def test_a_test_process_collects_its_whole_heap_less_often() -> None:
    """The worker's full collections (tests/conftest.py, `pytest_configure`)."""
    assert gc.get_threshold()[2] == FULL_COLLECTION_EVERY > 10


def test_the_processes_the_tests_start_share_a_node_code_cache() -> None:
    """tests/conftest.py's `pytest_configure` (unless one was set already)."""
    cache = os.environ.get(NODE_COMPILE_CACHE)
    assert cache, "pytest_configure sets it, to node_compile_cache() by default"
    child = subprocess.run(
        [sys.executable, "-c", f"import os; print(os.environ[{NODE_COMPILE_CACHE!r}])"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert child.stdout.strip() == cache
