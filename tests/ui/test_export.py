"""`/export` in the app: the session on screen saved to a file, never sent."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from acp_tui.protocol.transport import AgentCommand
from acp_tui.safe_text import printable
from acp_tui.ui.app import make_app
from acp_tui.ui.commands import ExportRequest, export_request, with_local_commands
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.ui.helpers import wait_for
from tests.ui.test_app import FAKE_AGENT, SIZE, permission_armed, turn_ended


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


def sent_prompts(record: Path) -> list[str]:
    """The text of every session/prompt the fake agent received."""
    texts: list[str] = []
    for line in record.read_text().splitlines():
        message = json.loads(line)
        if message.get("method") == "session/prompt":
            for block in message["params"]["prompt"]:
                texts.append(block.get("text", ""))
    return texts


@pytest.mark.subprocess
async def test_export_writes_the_session_and_is_not_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "record.jsonl"
    monkeypatch.setenv("FAKE_AGENT_RECORD", str(record))
    project = tmp_path / "project"
    project.mkdir()
    command = AgentCommand(argv=(sys.executable, str(FAKE_AGENT), "v2"))
    app = make_app(command, "fake", cwd=project, init_timeout=10.0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        prompt = app.query_one(PromptInput)
        await wait_for(
            pilot, lambda: "export" in {c.name for c in prompt.completion.commands}
        )
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: permission_armed(app))
        await pilot.press("y", "y")  # select, then choose
        await wait_for(pilot, lambda: turn_ended(app))
        store = app.store
        assert store is not None
        agent_text = "".join(m.text for m in store.messages() if m.role == "agent")
        assert agent_text

        prompt.focus()
        prompt.text = "/export markdown notes/session.md"
        await pilot.press("end", "enter")
        target = project / "notes" / "session.md"
        await wait_for(pilot, target.exists)
        written = target.read_text(encoding="utf-8")
        for line in agent_text.strip().splitlines():
            assert printable(line) in written  # escape sequences made visible
        assert f"`{store.session_id}`" in written
        assert "\x1b" not in written

        app.action_export_session()  # the palette's "Export session"
        # Into the data directory, not the project, and the app says where.
        exports = tmp_path / "home" / "data" / "exports"
        default = exports / f"acp-tui-{store.session_id}.md"
        await wait_for(pilot, default.exists)
        assert not (project / default.name).exists()
        assert exports.stat().st_mode & 0o777 == 0o700
        await wait_for(
            pilot,
            lambda: any(
                n.title == "Session exported" and n.message == str(default)
                for n in app._notifications
            ),
        )

        await pilot.pause()
        assert store.state.turns_ended == 1
        assert not any("/export" in m.text for m in store.messages())
    prompts = sent_prompts(record)
    assert prompts
    assert not any("/export" in text for text in prompts)


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("/export", ExportRequest("markdown", Path("/d/acp-tui-s_1.md"))),
        ("  /export json ", ExportRequest("json", Path("/d/acp-tui-s_1.json"))),
        ("/export md out.md", ExportRequest("markdown", Path("/p/out.md"))),
        ("/export /tmp/x.json", ExportRequest("json", Path("/tmp/x.json"))),
        ("/export JSON a b.txt", ExportRequest("json", Path("/p/a b.txt"))),
        ("/export markdown sub/s.md", ExportRequest("markdown", Path("/p/sub/s.md"))),
    ],
)
def test_export_request_parses_format_and_path(
    typed: str, expected: ExportRequest
) -> None:
    request = export_request(
        typed, cwd=Path("/p"), session_id="s/1", default_dir=Path("/d")
    )
    assert request == expected


@pytest.mark.parametrize("typed", ["hello", "/exports", "/review /export", "export"])
def test_other_prompts_go_to_the_agent(typed: str) -> None:
    assert export_request(typed, cwd=Path("/p"), session_id="s") is None


def test_export_request_refuses_several_lines() -> None:
    result = export_request("/export json\nmore", cwd=Path("/p"), session_id="s")
    assert isinstance(result, str)
    assert "one line" in result


def test_local_export_replaces_an_agent_command_of_that_name() -> None:
    agent = [{"name": "review", "description": "r"}, {"name": "export"}]
    names = [c.get("name") for c in with_local_commands(agent)]
    assert names == ["review", "export"]
    assert with_local_commands(agent)[-1]["description"] != ""
