"""Real agents' recorded turns, replayed: regression fixtures that need no Node.

`tests/fixtures/recordings/<key>.jsonl` is one full turn of a real agent
(`scripts/record_real_agents.py` re-records them all), and `<key>.json` the print
document of that live run. Played by the replay agent
(`python -m acp_tui.demo.replay FILE --instant`) to `acp-tui print`, each must give
the same document, and that document must show the turn: the prompt and the
answer, the shell command's output with every line at column 0, the write that
asked for permission, the plan. Which agent has which of these (and which flows
fail on a known bug) comes from `tests/interop/tested_with.json`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Final

import pytest

from acp_tui.cli import main
from acp_tui.render.markdown import (
    MarkdownDocument,
    MarkdownTheme,
    line_text,
    render_block,
)
from tests.interop.real_agents import (
    cases,
    lines_at_column_0,
    runs,
    shown_output,
    thought_letters,
)
from tests.interop.scenes import INTRO, PLAN, PROMPT, RECORDED_ANSWER, THOUGHT

pytestmark = pytest.mark.subprocess

RECORDINGS: Final = Path(__file__).resolve().parents[1] / "fixtures" / "recordings"
KEYS: Final = sorted(path.stem for path in RECORDINGS.glob("*.jsonl"))

Document = dict[str, Any]


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


def live(key: str) -> Document:
    document: Document = json.loads((RECORDINGS / f"{key}.json").read_text())
    return document


def replay(key: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Document:
    """The replayed turn's print document."""
    agent = (
        f"{sys.executable} -m acp_tui.demo.replay {RECORDINGS / key}.jsonl --instant"
    )
    protocol = str(live(key)["protocolVersion"])
    argv = ["print", "--format", "json", "--agent", agent, "--protocol", protocol]
    argv += ["--permissions", "allow", "--cwd", str(tmp_path), PROMPT]
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    document: Document = json.loads(captured.out)
    return document


def texts(document: Document, role: str) -> list[str]:
    return [
        "".join(str(c.get("text", "")) for c in m["content"])
        for m in document["messages"]
        if m["role"] == role
    ]


def present(key: str, flow: str) -> bool:
    return runs(key, flow)


def with_recording(flow: str) -> list[Any]:
    return [case for case in cases(flow) if case.values[0] in KEYS]


def test_every_real_agent_has_a_recording() -> None:
    assert sorted(case.values[0] for case in cases("text")) == KEYS, (
        "re-record with scripts/record_real_agents.py"
    )


@pytest.mark.parametrize("key", KEYS)
def test_the_replay_gives_the_live_document(
    key: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert replay(key, tmp_path, capsys) == live(key)


@pytest.mark.parametrize("key", KEYS)
def test_the_replayed_turn_shows_the_prompt_the_write_and_the_answer(
    key: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = replay(key, tmp_path, capsys)
    assert document["stopReason"] == "end_turn"
    assert texts(document, "user")[0].endswith(PROMPT)
    assert any(RECORDED_ANSWER in text for text in texts(document, "agent"))
    if present(key, "write-edit"):
        writes = [t for t in document["toolCalls"] if t.get("kind") == "edit"]
        assert [t["status"] for t in writes] == ["completed"]
        asked = [p for p in document["permissions"] if "hello.py" in json.dumps(p)]
        assert asked, document["permissions"]
        assert asked[0]["outcome"]["outcome"] == "selected"
    if present(key, "plan"):
        entries = [
            (e["content"], e["status"]) for e in document["plans"][-1]["entries"]
        ]
        assert entries == PLAN


@pytest.mark.parametrize("key", [key for key in KEYS if present(key, "shell")])
def test_the_replayed_shell_output_starts_each_line_at_column_0(
    key: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = replay(key, tmp_path, capsys)
    call = next(t for t in document["toolCalls"] if t.get("kind") == "execute")
    lines = lines_at_column_0(shown_output(document, call))
    assert "one\ntwo" in "\n".join(lines)


@pytest.mark.parametrize("key", with_recording("thinking"))
def test_the_replayed_thinking_is_a_thought_and_the_text_is_the_agents(
    key: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = replay(key, tmp_path, capsys)
    thoughts = [thought_letters(t) for t in texts(document, "thought")]
    assert thoughts == [thought_letters(THOUGHT)]
    assert any(INTRO in text for text in texts(document, "agent"))


@pytest.mark.parametrize("key", KEYS)
def test_the_replayed_answer_names_files_without_making_them_links(
    key: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Agents' answers are full of file names: `hello.py` is no domain."""
    answers = [t for t in texts(replay(key, tmp_path, capsys), "agent") if t]
    assert any("hello.py" in answer for answer in answers)
    theme = MarkdownTheme()
    for answer in answers:
        for block in MarkdownDocument(answer).blocks:
            for line in render_block(block, 200, theme):
                assert "http://" not in line_text(line), line_text(line)
                assert not any(s.style is not None and s.style.link for s in line)
