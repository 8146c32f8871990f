"""`acp-tui export SESSION`: a saved transcript written as Markdown or JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tui.cli import main
from acp_tui.storage.transcripts import close_transcript, journaled_store
from acp_tui.store.ops import (
    AppendMessageChunk,
    PatchToolCall,
    SetState,
    UpsertMessage,
)


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("ACP_TUI_HOME", str(home))
    return home


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def save_session(session_id: str, agent: str = "fake", reply: str = "Done.") -> None:
    """A saved transcript with one turn, as the app or `print` would write it."""
    store = journaled_store(
        agent, session_id, cwd="/work", how="new", protocol_version=2
    )
    store.apply_many(
        [
            UpsertMessage("u1", "user", content=[text("fix it")]),
            SetState("running"),
            AppendMessageChunk("a1", "agent", text(f"{reply} \x1b[31mred\x1b[0m")),
            PatchToolCall(
                "tc",
                title="Edit a.py",
                kind="edit",
                status="completed",
                content=[{"type": "diff", "path": "/work/a.py", "newText": "x\n"}],
            ),
            SetState("idle", "end_turn"),
        ]
    )
    close_transcript(store)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["export", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_markdown_to_stdout_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    save_session("sess-alpha")
    code, out, err = run(capsys, "sess-alpha")
    assert code == 0, err
    assert "- Session: `sess-alpha`" in out
    assert "## User\n\n> fix it" in out
    assert "Done." in out
    assert "```diff\n" in out
    assert "- Stop reason: end_turn" in out
    assert "\x1b" not in out
    assert "\\x1b[31mred" in out


def test_json_is_the_print_document(capsys: pytest.CaptureFixture[str]) -> None:
    save_session("sess-alpha")
    code, out, err = run(capsys, "sess-alpha", "--format", "json")
    assert code == 0, err
    assert "\x1b" not in out
    document = json.loads(out)
    assert document["sessionId"] == "sess-alpha"
    assert document["protocolVersion"] == 2
    assert document["agent"]["name"] == "fake"
    assert document["stopReason"] == "end_turn"
    assert [m["role"] for m in document["messages"]] == ["user", "agent"]
    assert document["messages"][1]["content"][0]["text"].startswith("Done. \x1b")
    assert document["toolCalls"][0]["title"] == "Edit a.py"


def test_output_file_and_unique_prefix(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    save_session("sess-alpha", reply="Alpha.")
    save_session("other-beta", reply="Beta.")
    target = tmp_path / "out.md"
    code, out, err = run(capsys, "sess-", "-o", str(target))
    assert code == 0, err
    assert out == ""
    assert str(target) in err
    written = target.read_text(encoding="utf-8")
    assert "Alpha." in written
    assert "Beta." not in written


def test_agent_option_limits_the_search(capsys: pytest.CaptureFixture[str]) -> None:
    save_session("shared", agent="one", reply="From one.")
    save_session("shared", agent="two", reply="From two.")
    code, _, err = run(capsys, "shared")
    assert code == 2
    assert "several" in err
    assert "(one)" in err
    assert "(two)" in err
    code, out, err = run(capsys, "shared", "--agent", "two")
    assert code == 0, err
    assert "From two." in out
    assert "From one." not in out


def test_agent_option_takes_the_command_name_too(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Filed under the name the agent reports; the user may know only the command."""
    store = journaled_store(
        "OpenCode", "s1", cwd="/w", how="new", protocol_version=1, command="opencode"
    )
    store.apply(UpsertMessage("u1", "user", content=[text("hello")]))
    close_transcript(store)
    save_session("s2", agent="other")
    for name in ("OpenCode", "opencode"):
        code, out, err = run(capsys, "s", "--agent", name)
        assert code == 0, err
        assert "hello" in out
        assert "- Agent: OpenCode" in out


def test_ambiguous_prefix_and_missing_session(
    capsys: pytest.CaptureFixture[str],
) -> None:
    save_session("sess-alpha")
    save_session("sess-beta")
    code, out, err = run(capsys, "sess")
    assert code == 2
    assert out == ""
    assert "sess-alpha" in err
    assert "sess-beta" in err
    code, out, err = run(capsys, "nope")
    assert code == 2
    assert out == ""
    assert "no saved session matches 'nope'" in err
    code, _, err = run(capsys, "sess-alpha", "--agent", "elsewhere")
    assert code == 2
    assert "of agent elsewhere" in err


def test_exact_id_wins_over_longer_ids(capsys: pytest.CaptureFixture[str]) -> None:
    save_session("s1", reply="Short.")
    save_session("s10", reply="Long.")
    code, out, err = run(capsys, "s1")
    assert code == 0, err
    assert "Short." in out


def test_unwritable_output_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    save_session("sess-alpha")
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, _, err = run(capsys, "sess-alpha", "-o", str(blocker / "out.md"))
    assert code == 2
    assert "cannot write" in err


@pytest.mark.subprocess
def test_export_runs_as_a_program(home: Path) -> None:
    save_session("sess-alpha")
    completed = subprocess.run(
        [sys.executable, "-m", "acp_tui", "export", "sess-a", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["sessionId"] == "sess-alpha"
