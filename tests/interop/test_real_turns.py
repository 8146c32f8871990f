"""Real agents doing real work through acp-tui, offline, one flow per test.

Each agent runs its scenes once (`scenes.py`: a full `print` turn, a `print
--timeout` cancel, an app run); each test checks one flow of what a scene saw.
Which agents have which flow, and which flows fail on a known product bug (a
strict xfail), comes from `tested_with.json`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final, TypeVar

import pytest

from tests.interop.real_agents import (
    AGENTS,
    Workspace,
    cases,
    lines_at_column_0,
    runs,
    shown_output,
    thought_letters,
)
from tests.interop.scenes import (
    ANSWER,
    HELLO,
    INTRO,
    PARTIAL,
    PLAN,
    PROMPT,
    THOUGHT,
    WORLD,
    AppRun,
    Cancelled,
    FullTurn,
    app_run,
    cancelled,
    full_turn,
)
from tests.modelserver._script import is_side

pytestmark = [pytest.mark.interop, pytest.mark.subprocess]

T = TypeVar("T")


class Scenes:
    """Each scene runs once per agent; a failure is kept and raised again."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._done: dict[tuple[str, str], Any] = {}

    def _once(self, name: str, key: str, make: Callable[[], T]) -> T:
        if (name, key) not in self._done:
            try:
                self._done[name, key] = make()
            except (pytest.skip.Exception, pytest.fail.Exception):
                raise
            except Exception as error:
                self._done[name, key] = error
        value = self._done[name, key]
        if isinstance(value, Exception):
            raise AssertionError(f"the {name} scene of {key} failed") from value
        result: T = value
        return result

    def workspace(self, name: str, key: str) -> Workspace:
        return Workspace(self.root / key / name).create()

    def full_turn(self, key: str) -> FullTurn:
        return self._once(
            "full-turn",
            key,
            lambda: full_turn(AGENTS[key], self.workspace("full-turn", key)),
        )

    def cancelled(self, key: str) -> Cancelled:
        return self._once(
            "cancel",
            key,
            lambda: cancelled(
                AGENTS[key], lambda attempt: self.workspace(f"cancel-{attempt}", key)
            ),
        )

    def app(self, key: str) -> AppRun:
        def run() -> AppRun:
            turn = self.full_turn(key)
            return app_run(AGENTS[key], turn.workspace, turn.run.document["sessionId"])

        return self._once("app", key, run)


@pytest.fixture(scope="module")
def scenes(tmp_path_factory: pytest.TempPathFactory) -> Scenes:
    return Scenes(tmp_path_factory.mktemp("real-agents"))


def messages(document: dict[str, Any], role: str) -> list[str]:
    return [
        "".join(str(c.get("text", "")) for c in m["content"])
        for m in document["messages"]
        if m["role"] == role
    ]


def chunks(document: dict[str, Any], text: str) -> int:
    """How many content chunks the message holding `text` arrived in."""
    for m in document["messages"]:
        if text in "".join(str(c.get("text", "")) for c in m["content"]):
            return len(m["content"])
    return 0


def tool_calls(document: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [t for t in document["toolCalls"] if t.get("kind") == kind]


# --- The full turn (print). ----------------------------------------------------------


@pytest.mark.parametrize("key", cases("text"))
def test_text_streams_as_the_agents_message(scenes: Scenes, key: str) -> None:
    turn = scenes.full_turn(key)
    assert turn.run.code == 0, turn.run.err
    assert turn.run.document["stopReason"] == "end_turn"
    agent = messages(turn.run.document, "agent")
    assert any(INTRO in text for text in agent), agent
    assert any(ANSWER in text for text in agent), agent
    assert chunks(turn.run.document, ANSWER) > 1, "the answer arrived in pieces"
    assert messages(turn.run.document, "user")[0].endswith(PROMPT)


@pytest.mark.parametrize("key", cases("thinking"))
def test_thinking_streams_as_a_thought(scenes: Scenes, key: str) -> None:
    document = scenes.full_turn(key).run.document
    thoughts = [thought_letters(t) for t in messages(document, "thought")]
    assert thoughts == [thought_letters(THOUGHT)]
    thought = next(m for m in document["messages"] if m["role"] == "thought")
    assert len(thought["content"]) > 1, "the thought arrived in pieces"


def shell_call(turn: FullTurn) -> dict[str, Any]:
    calls = [
        t
        for t in tool_calls(turn.run.document, "execute")
        if "printf 'one" in json.dumps(t.get("rawInput"))
    ]
    assert len(calls) == 1, turn.run.document["toolCalls"]
    return calls[0]


@pytest.mark.parametrize("key", cases("shell"))
def test_shell_output_lines_start_at_column_0(scenes: Scenes, key: str) -> None:
    turn = scenes.full_turn(key)
    lines = lines_at_column_0(shown_output(turn.run.document, shell_call(turn)))
    assert "one\ntwo" in "\n".join(lines), lines
    # The model got the same output back.
    assert any("one\ntwo" in output for r in turn.requests for output in r.tool_outputs)


TOOL_NAMES: Final = {"claude-v1": "Bash", "claude-v2": "Bash"}
"""Agents that name their tools (`ToolCall.name`, the tool-call-name RFD), and
the name of the shell tool."""


@pytest.mark.parametrize(
    "key", [p for p in cases("shell") if p.values[0] in TOOL_NAMES]
)
def test_the_shell_tool_call_carries_its_tools_name(scenes: Scenes, key: str) -> None:
    """claude-agent-acp names each tool call's tool (in v1 too, TS SDK 2.4)."""
    call = shell_call(scenes.full_turn(key))
    assert call.get("name") == TOOL_NAMES[key], call


@pytest.mark.parametrize("key", cases("exit-status"))
def test_shell_exit_status_is_reported(scenes: Scenes, key: str) -> None:
    turn = scenes.full_turn(key)
    call = shell_call(turn)
    terminals = {t["terminalId"]: t for t in turn.run.document["terminals"]}
    codes = [
        (terminals[item["terminalId"]].get("exitStatus") or {}).get("exitCode")
        for item in call.get("content") or []
        if item.get("type") == "terminal"
    ]
    assert call["status"] == "failed" or 3 in codes, call


@pytest.mark.parametrize("key", cases("write-edit"))
def test_a_new_file_is_written_then_edited_with_permission(
    scenes: Scenes, key: str
) -> None:
    turn = scenes.full_turn(key)
    document = turn.run.document
    # seen: at each model request, the file: first, after the shell, after the
    # write, after the edit. On failure, what the agent's tools answered the model
    # (an edit the agent refused says why there) and its file tool calls.
    answered = [r.tool_outputs for r in turn.requests if not is_side(r)]
    files = [t for t in document["toolCalls"] if t.get("kind") in ("edit", "read")]
    assert turn.seen[:4] == [None, None, HELLO, WORLD], (turn.seen, answered, files)
    assert turn.hello.read_text() == WORLD
    asked = [p for p in document["permissions"] if "hello.py" in json.dumps(p)]
    assert len(asked) >= 2, document["permissions"]
    assert all(p["outcome"]["outcome"] == "selected" for p in asked)
    edits = [
        t
        for t in tool_calls(document, "edit")
        if any(item.get("type") == "diff" for item in t.get("content") or [])
    ]
    diffs = json.dumps([t["content"] for t in edits])
    assert "world" in diffs, document["toolCalls"]
    assert all(t["status"] == "completed" for t in tool_calls(document, "edit"))


@pytest.mark.parametrize("key", cases("read"))
def test_a_read_shows_its_location(scenes: Scenes, key: str) -> None:
    turn = scenes.full_turn(key)
    reads = tool_calls(turn.run.document, "read")
    assert reads, turn.run.document["toolCalls"]
    paths = [loc["path"] for t in reads for loc in t.get("locations") or []]
    assert str(turn.hello) in paths, reads


@pytest.mark.parametrize("key", cases("plan"))
def test_a_todo_list_is_a_plan(scenes: Scenes, key: str) -> None:
    plans = scenes.full_turn(key).run.document["plans"]
    assert plans, "no plan"
    entries = [(e["content"], e["status"]) for e in plans[-1]["entries"]]
    assert entries == PLAN


@pytest.mark.parametrize("key", cases("cancel"))
def test_print_timeout_cancels_mid_stream_and_leaves_no_process(
    scenes: Scenes, key: str
) -> None:
    scene = scenes.cancelled(key)
    assert scene.reached, "the stream never got to the gate before the timeout"
    assert scene.run.code == 4, scene.run.err
    assert scene.run.document["stopReason"] == "cancelled"
    assert any(PARTIAL in text for text in messages(scene.run.document, "agent"))
    assert "three" not in json.dumps(scene.run.document["messages"])
    assert scene.left == [], "agent processes left behind"


# --- The app. ------------------------------------------------------------------------


@pytest.mark.parametrize("key", cases("resume"))
def test_the_session_is_resumed_with_its_history(scenes: Scenes, key: str) -> None:
    run = scenes.app(key)
    resumed = run.step("resume").seen
    session_id = scenes.full_turn(key).run.document["sessionId"]
    assert resumed["session_id"] == session_id
    history = resumed["document"]
    assert any(text.endswith(PROMPT) for text in messages(history, "user"))
    assert any(ANSWER in text for text in messages(history, "agent"))


@pytest.mark.parametrize("key", cases("list"))
def test_the_session_is_listed_in_the_picker(scenes: Scenes, key: str) -> None:
    session_id = scenes.full_turn(key).run.document["sessionId"]
    assert session_id in scenes.app(key).step("listed").seen["sessions"]


@pytest.mark.parametrize("key", cases("app-shell"))
def test_the_apps_card_shows_the_shell_output_at_column_0(
    scenes: Scenes, key: str
) -> None:
    cards = scenes.app(key).step("shell").seen["cards"]
    assert cards, "no card shows the output"
    content = str(cards[-1]["content"])
    assert "one\ntwo" in "\n".join(lines_at_column_0(content))
    if runs(key, "exit-status"):
        assert "failed" in str(cards[-1]["header"]) or "exit 3" in content


@pytest.mark.parametrize("key", cases("reject"))
def test_a_rejected_write_leaves_no_file(scenes: Scenes, key: str) -> None:
    seen = scenes.app(key).step("reject").seen
    assert seen["asked"], "no permission dialog"
    assert seen["exists"] is False
    # The agent goes on (end_turn) or gives up the turn (codex: cancelled).
    assert seen["stop_reason"] in ("end_turn", "cancelled")


@pytest.mark.parametrize("key", cases("reject"))
def test_paths_read_relative_to_the_sessions_directory(
    scenes: Scenes, key: str
) -> None:
    """The file the agent asks to write is named as the project's (issue 21, item
    4): in the permission dialog's subject and in the card's locations, never by
    its absolute path in the project. (The title, `tool call: …`, is the agent's
    own text and reads as sent.)"""
    seen = scenes.app(key).step("reject").seen
    project = seen["project"]
    subjects = [a["subject"] for a in seen["asked"] if "rejected.py" in a["subject"]]
    named = [
        line
        for subject in subjects
        for line in subject.splitlines()
        if "rejected.py" in line and not line.startswith("tool call:")
    ] + seen["locations"]
    assert named, f"rejected.py is named nowhere: {seen['asked']}"
    assert not [line for line in named if project in line], named
    assert any(
        line.split(":", 1)[-1].strip().removeprefix("↳ ") == "rejected.py"
        for line in named
    ), named


@pytest.mark.parametrize("key", cases("error"))
def test_model_errors_are_shown_and_the_session_goes_on(
    scenes: Scenes, key: str
) -> None:
    run = scenes.app(key)
    for status in AGENTS[key].errors:
        seen = run.step(f"error-{status}").seen
        assert seen["reported"], "the agent reported no error"
        for text in seen["reported"]:
            assert text in seen["shown"], f"{text!r} is not shown"
    assert "Recovered fine." in run.step("after-error").seen["shown"]


@pytest.mark.parametrize("key", cases("model"))
def test_the_model_switch_reaches_the_model_api(scenes: Scenes, key: str) -> None:
    seen = scenes.app(key).step("model").seen
    _, api_name = AGENTS[key].models
    assert api_name in seen["model"], seen


@pytest.mark.parametrize("key", cases("mode"))
def test_the_mode_switch_reaches_the_agent(scenes: Scenes, key: str) -> None:
    seen = scenes.app(key).step("mode").seen
    before, after = seen["modes"]
    assert before != after
    marker = AGENTS[key].mode_marker
    if marker is None:  # a mode that lets edits through
        assert seen["asked"] == []
        assert seen["exists"]
    else:
        assert marker in seen["body"]


@pytest.mark.parametrize("key", cases("cancel-next"))
def test_escape_cancels_mid_stream_and_the_next_prompt_works(
    scenes: Scenes, key: str
) -> None:
    run = scenes.app(key)
    cancel = run.step("cancel").seen
    assert cancel["stop_reason"] == "cancelled"
    assert PARTIAL in cancel["shown"]
    assert "three" not in cancel["shown"]
    assert "Still here." in run.step("after-cancel").seen["shown"]
    assert run.left == []
