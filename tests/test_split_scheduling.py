"""`--dist loadfile` with test_real_turns.py split by agent (issue 28)."""

from __future__ import annotations

from tests.conftest import work_unit

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
