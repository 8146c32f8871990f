"""acp-tui's own client core against the demo agent, end to end, per scenario.

Each test runs the real command line in-process,
`acp-tui print --agent "<python> -m acp_tui.demo" --format json ...`, for both
protocol versions (`--protocol 1|2`), and asserts the final state of the JSON
document: messages, tool calls and their content kinds, plans, terminals,
permissions, config options, stop reasons and exit codes.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any, Final

import pytest

from acp_tui.cli import main
from tests.processes import pid_exists

pytestmark = pytest.mark.subprocess

AGENT: Final = f"{sys.executable} -m acp_tui.demo"
VERSIONS: Final = pytest.mark.parametrize("version", [1, 2])

Doc = dict[str, Any]


def run(
    capsys: pytest.CaptureFixture[str],
    version: int,
    prompt: str,
    *extra: str,
    cwd: Path,
) -> tuple[int, Doc, str]:
    code = main(
        [
            "print",
            "--agent",
            AGENT,
            "--protocol",
            str(version),
            "--cwd",
            str(cwd),
            "--format",
            "json",
            *extra,
            prompt,
        ]
    )
    captured = capsys.readouterr()
    document: Doc = json.loads(captured.out)
    assert document["protocolVersion"] == version
    assert document["agent"]["name"] == "acp-tui-demo"
    return code, document, captured.err


def allow(
    capsys: pytest.CaptureFixture[str], version: int, prompt: str, cwd: Path
) -> tuple[int, Doc, str]:
    return run(capsys, version, prompt, "--permissions", "allow", cwd=cwd)


def texts(doc: Doc, role: str) -> list[str]:
    return [
        "".join(b.get("text", "") for b in m["content"])
        for m in doc["messages"]
        if m["role"] == role
    ]


def agent_text(doc: Doc) -> str:
    return "\n".join(texts(doc, "agent"))


def content_kinds(tool_call: Doc) -> list[str]:
    return [item["type"] for item in tool_call["content"]]


def content_text(tool_call: Doc) -> str:
    return "".join(
        item["content"].get("text", "")
        for item in tool_call["content"]
        if item["type"] == "content"
    )


def workspace(doc: Doc) -> Path:
    """The session's scratch workspace (from a path the agent reported)."""
    for call in doc["toolCalls"]:
        raw = call["rawInput"] if isinstance(call["rawInput"], dict) else {}
        paths = [Path(loc["path"]) for loc in call["locations"]]
        paths += [Path(raw[key]) / "x" for key in ("cwd",) if key in raw]
        for path in paths:
            for parent in path.parents:
                if parent.parent.name == "workspaces":
                    return parent
    raise AssertionError("no path in the workspace")


@VERSIONS
def test_plain_prompt_shows_several_features(
    capsys: pytest.CaptureFixture[str], version: int, project: Path
) -> None:
    code, doc, err = run(capsys, version, "Hello, demo!", cwd=project)
    assert code == 0, err
    assert (doc["state"], doc["stopReason"]) == ("idle", "end_turn")
    assert [m["role"] for m in doc["messages"]] == ["user", "thought", "agent"]
    assert texts(doc, "user") == ["Hello, demo!"]
    answer = agent_text(doc)
    for marker in (
        "## Hello from the demo agent",
        "- a **thought**",
        "```python",
        "| Option",
    ):
        assert marker in answer
    (read,) = doc["toolCalls"]
    assert (read["kind"], read["status"]) == ("read", "completed")
    assert read["locations"][0]["path"].endswith("/README.md")
    assert read["locations"][0]["line"] == 1
    (plan,) = doc["plans"]
    assert [e["status"] for e in plan["entries"]] == ["completed"] * 3
    assert doc["info"]["title"] == "Hello, demo!"
    assert doc["usage"]["size"] == 32_000
    assert doc["usage"]["used"] > 0
    assert [o["category"] for o in doc["configOptions"]] == [
        "mode",
        "model",
        "thought_level",
    ]
    commands = {c["name"]: c for c in doc["commands"]}
    assert {"help", "edit", "run", "permission", "misbehave", "title"} <= set(commands)
    expected_input = {"hint": "the new session title"}
    if version == 2:
        expected_input = {"type": "text", **expected_input}
    assert commands["title"]["input"] == expected_input
    assert "input" not in commands["help"]
    assert sorted(p.name for p in project.iterdir()) == ["precious.txt"]


@VERSIONS
def test_help_lists_every_scenario(
    capsys: pytest.CaptureFixture[str], version: int, project: Path
) -> None:
    code, doc, _ = run(capsys, version, "/help", cwd=project)
    assert code == 0
    answer = agent_text(doc)
    for name in ("/markdown", "/plan", "/read", "/edit", "/files", "/run", "/stream"):
        assert f"`{name}" in answer
    assert "acp-tui --agent claude-code" in answer


@VERSIONS
def test_markdown(
    capsys: pytest.CaptureFixture[str], version: int, project: Path
) -> None:
    code, doc, _ = run(capsys, version, "/markdown", cwd=project)
    assert code == 0
    answer = agent_text(doc)
    for marker in ("# Markdown tour", "```python", "```diff", "| Version |", "- [x]"):
        assert marker in answer
    (agent,) = [m for m in doc["messages"] if m["role"] == "agent"]
    # Streamed in many chunks, joined in the document, kept with --raw-chunks.
    assert agent["content"] == [{"type": "text", "text": answer}]
    code, raw, _ = run(capsys, version, "/markdown", "--raw-chunks", cwd=project)
    (streamed,) = [m for m in raw["messages"] if m["role"] == "agent"]
    assert len(streamed["content"]) > 50
    assert "".join(block["text"] for block in streamed["content"]) == answer


@VERSIONS
def test_two_plans(
    capsys: pytest.CaptureFixture[str], version: int, project: Path
) -> None:
    code, doc, _ = run(capsys, version, "/plan", cwd=project)
    assert code == 0
    if version == 2:
        assert [len(p["entries"]) for p in doc["plans"]] == [4, 3]
        assert len({p["planId"] for p in doc["plans"]}) == 2
    else:  # one plan per session in v1: the turn's plans merged
        (plan,) = doc["plans"]
        assert plan["planId"] == "main"
        assert len(plan["entries"]) == 7
    assert all(e["status"] == "completed" for p in doc["plans"] for e in p["entries"])


@VERSIONS
def test_read_and_search_with_locations(
    capsys: pytest.CaptureFixture[str], version: int, project: Path
) -> None:
    code, doc, _ = run(capsys, version, "/read", cwd=project)
    assert code == 0
    read, search = doc["toolCalls"]
    assert (read["kind"], search["kind"]) == ("read", "search")
    assert "def greet(name):" in content_text(read)
    assert len(search["locations"]) >= 3
    assert all(loc["path"].startswith("/") for loc in search["locations"])


@VERSIONS
def test_edit_reports_a_diff(
    capsys: pytest.CaptureFixture[str], version: int, project: Path
) -> None:
    code, doc, _ = allow(capsys, version, "/edit", project)
    assert code == 0
    (edit,) = doc["toolCalls"]
    assert (edit["kind"], edit["status"]) == ("edit", "completed")
    root = workspace(doc)
    greeting, farewell = root / "src" / "greeting.py", root / "src" / "farewell.py"
    assert "def greet(name: str) -> str:" in greeting.read_text()
    assert farewell.is_file()
    if version == 2:
        (diff,) = edit["content"]
        assert diff["type"] == "diff"
        assert [(c["operation"], c["path"]) for c in diff["changes"]] == [
            ("modify", str(greeting)),
            ("add", str(farewell)),
        ]
        patch = diff["patch"]
        assert patch["format"] == "git_patch"
        assert patch["text"].startswith(f"diff --git {greeting} {greeting}\n")
        assert f"+++ {farewell}" in patch["text"]
        assert "new file mode" in patch["text"]
    else:
        diffs = edit["content"]
        assert content_kinds(edit) == ["diff", "diff"]
        assert diffs[0]["path"] == str(greeting)
        assert "def greet(name):" in diffs[0]["oldText"]
        assert diffs[1]["path"] == str(farewell)
        assert diffs[1]["oldText"] is None
    (permission,) = doc["permissions"]
    assert permission["outcome"] == {"outcome": "selected", "optionId": "allow-once"}


@VERSIONS
def test_delete_move_and_binary_diffs_have_no_patch(
    capsys: pytest.CaptureFixture[str], version: int, project: Path
) -> None:
    code, doc, _ = allow(capsys, version, "/files", project)
    assert code == 0
    assert [t["kind"] for t in doc["toolCalls"]] == ["delete", "move", "edit"]
    assert all(t["status"] == "completed" for t in doc["toolCalls"])
    root = workspace(doc)
    assert not (root / "build.log").exists()
    assert (root / "docs" / "guide.md").is_file()
    assert not (root / "docs" / "draft.md").exists()
    assert (root / "assets" / "logo.png").read_bytes().startswith(b"\x89PNG")
    if version == 2:
        changes = []
        for call in doc["toolCalls"]:
            (diff,) = call["content"]
            assert diff["type"] == "diff"
            assert "patch" not in diff
            changes += diff["changes"]
        assert [c["operation"] for c in changes] == ["delete", "move", "modify"]
        assert changes[1]["oldPath"].endswith("/docs/draft.md")
        assert changes[2]["fileType"] == "binary"
    else:
        delete, move, binary = doc["toolCalls"]
        assert content_kinds(delete) == ["content", "diff"]
        assert content_kinds(move) == ["content", "diff"]
        assert content_kinds(binary) == ["content"]
        assert "Binary file" in content_text(binary)


@VERSIONS
def test_run_executes_in_a_terminal(
    capsys: pytest.CaptureFixture[str], version: int, project: Path
) -> None:
    code, doc, _ = allow(capsys, version, "/run", project)
    assert code == 0
    (call,) = doc["toolCalls"]
    assert (call["kind"], call["status"]) == ("execute", "completed")
    if version == 2:
        assert content_kinds(call) == ["terminal"]
        (terminal,) = doc["terminals"]
        assert terminal["terminalId"] == call["content"][0]["terminalId"]
        assert terminal["command"] == "python tools/progress.py"
        assert terminal["exitStatus"] == {"exitCode": 0}
        raw = base64.b64decode(terminal["output"])
        assert b"\x1b[32m" in raw
        assert b"\r\x1b[33m[" in raw
        assert "All 3 checks passed" in terminal["text"]
        assert "[####################] 100%" in terminal["text"]
    else:  # acp-tui advertises v1 terminals: it ran the command itself
        assert content_kinds(call) == ["terminal"]
        (terminal,) = doc["terminals"]
        assert terminal["terminalId"] == call["content"][0]["terminalId"]
        assert terminal["command"].endswith("/tools/progress.py 10 0")
        assert terminal["cwd"] == str(project)
        assert terminal["exitStatus"]["exitCode"] == 0
        raw = base64.b64decode(terminal["output"])
        assert b"\x1b[32m" in raw
        assert "All 3 checks passed" in terminal["text"]
        assert "[####################] 100%" in terminal["text"]
    (permission,) = doc["permissions"]
    if version == 2:
        assert permission["subject"]["type"] == "command"
        assert permission["subject"]["command"] == "python tools/progress.py"


@VERSIONS
def test_streamed_tool_content_is_replaced(
    capsys: pytest.CaptureFixture[str], version: int, project: Path
) -> None:
    code, doc, _ = run(capsys, version, "/stream", cwd=project)
    assert code == 0
    (call,) = doc["toolCalls"]
    assert call["status"] == "completed"
    assert content_kinds(call) == ["content"]
    assert content_text(call).startswith("**Summary:**")


@VERSIONS
def test_permission_subjects_allowed(
    capsys: pytest.CaptureFixture[str], version: int, project: Path
) -> None:
    code, doc, _ = allow(capsys, version, "/permission", project)
    assert code == 0
    edit, command = doc["toolCalls"]
    assert (edit["status"], command["status"]) == ("completed", "completed")
    assert [p["outcome"]["optionId"] for p in doc["permissions"]] == ["allow-once"] * 2
    if version == 2:
        subjects = [p["subject"]["type"] for p in doc["permissions"]]
        assert subjects == ["tool_call", "command"]
        assert doc["permissions"][1]["subject"]["toolCallId"] == command["toolCallId"]
        assert doc["permissions"][0]["description"].startswith("A tool-call subject")
    assert "- try acp-tui" in (workspace(doc) / "notes.txt").read_text()
    assert "edited `notes.txt`" in agent_text(doc)


@VERSIONS
def test_permission_rejections_are_honoured(
    capsys: pytest.CaptureFixture[str], version: int, project: Path
) -> None:
    code, doc, _ = run(capsys, version, "/permission", cwd=project)
    assert code == 0
    assert [t["status"] for t in doc["toolCalls"]] == ["failed", "failed"]
    assert doc["terminals"] == []
    assert "- try acp-tui" not in (workspace(doc) / "notes.txt").read_text()
    assert "left `notes.txt` alone and ran nothing" in agent_text(doc)


@VERSIONS
def test_misbehave_ends_with_a_refusal(
    capsys: pytest.CaptureFixture[str], version: int, project: Path
) -> None:
    code, doc, err = run(capsys, version, "/misbehave", cwd=project)
    assert code == 4
    assert doc["stopReason"] == "refusal"
    assert "refusal" in err
    (fetch,) = doc["toolCalls"]
    assert (fetch["kind"], fetch["status"]) == ("fetch", "failed")
    if version == 2:
        (unknown,) = doc["unknownUpdates"]
        assert unknown["sessionUpdate"] == "_demo_sparkles"
    else:
        assert doc["unknownUpdates"] == []


@VERSIONS
def test_title_renames_the_session(
    capsys: pytest.CaptureFixture[str], version: int, project: Path
) -> None:
    code, doc, _ = run(capsys, version, "/title  My   demo session ", cwd=project)
    assert code == 0
    assert doc["info"]["title"] == "My demo session"


@VERSIONS
def test_timeout_cancels_a_long_answer(
    capsys: pytest.CaptureFixture[str], version: int, project: Path
) -> None:
    code, doc, err = run(capsys, version, "/long", "--timeout", "0.5", cwd=project)
    assert code == 4
    assert (doc["state"], doc["stopReason"]) == ("idle", "cancelled")
    assert "cancelled after 0.5 s" in err
    answer = agent_text(doc)
    assert "Paragraph 1" in answer
    assert "Paragraph 40" not in answer
    assert "Cancelled: I stopped streaming" in answer


@VERSIONS
def test_timeout_kills_a_long_command(
    capsys: pytest.CaptureFixture[str], version: int, project: Path
) -> None:
    code, doc, _ = run(
        capsys,
        version,
        "/run long",
        "--permissions",
        "allow",
        "--timeout",
        "1",
        cwd=project,
    )
    assert code == 4
    assert doc["stopReason"] == "cancelled"
    (call,) = doc["toolCalls"]
    assert call["status"] == ("cancelled" if version == 2 else "failed")
    if version == 2:
        (terminal,) = doc["terminals"]
        assert terminal["exitStatus"]["signal"] in ("SIGTERM", "SIGKILL")
    pid = int((workspace(doc) / "run.pid").read_text())
    assert not pid_exists(pid)
