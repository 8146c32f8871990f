"""`acp-tui print` shows subagents: each lane's status, then its own work (text),
and the subagents with their own sessions (JSON); v1 and v2 (the fake agent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_print import fake, run, run_json

pytestmark = pytest.mark.subprocess

VERSIONS = ["v2", "v1"]


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


@pytest.mark.parametrize("scenario", VERSIONS)
def test_text_shows_each_lane_and_its_work(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, scenario: str
) -> None:
    code, out, err = run(
        capsys, "print", "--agent", fake(scenario), "--cwd", str(tmp_path), "subagents"
    )
    assert code == 0, err
    assert "[subagent Explore the code] running" in out
    done = out.index("[subagent Explore the code] done")
    assert out[done:].splitlines()[1:3] == [
        "  [agent] Looking at the parser.",
        "  [tool read] Read parser.py (completed)",
    ]
    failed = out.index("[subagent Run the tests] failed: tests crashed")
    assert "  [tool execute] pytest (failed)" in out[failed:]
    assert out.index("Both subagents reported.") > failed


@pytest.mark.parametrize("scenario", VERSIONS)
def test_a_subagent_still_running_when_the_turn_ends_is_shown_as_it_stands(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, scenario: str
) -> None:
    code, out, err = run(
        capsys,
        "print",
        "--agent",
        fake(scenario),
        "--cwd",
        str(tmp_path),
        "subagents background",
    )
    assert code == 0, err
    last = out.rindex("[subagent Background job] running")
    assert out[last:].splitlines()[1] == "  [agent] Still going."


@pytest.mark.parametrize("scenario", VERSIONS)
def test_json_holds_each_subagent_and_its_own_session(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, scenario: str
) -> None:
    code, doc, err = run_json(
        capsys, "--agent", fake(scenario), "--cwd", str(tmp_path), "subagents"
    )
    assert code == 0, err
    kinds = [entry["kind"] for entry in doc["timeline"]]
    assert kinds.count("subagent") == 2
    explore, tests = doc["subagents"]
    assert (explore["title"], explore["status"]) == ("Explore the code", "done")
    assert (tests["status"], tests["error"]) == ("failed", "tests crashed")
    assert [c["title"] for c in explore["session"]["toolCalls"]] == ["Read parser.py"]
    assert all("Looking" not in str(m) for m in doc["messages"])
