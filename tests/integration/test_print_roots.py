"""`acp-tui print`: where the agent may reach (`--cwd`, `--add-dir`, `--session`).

Against the scripted fake agent (`v1-full`): its prompt "read PATH" asks the
client's `fs/read_text_file` for PATH and says what came back, so each test shows
what the agent could and could not read. `FAKE_AGENT_RECORD` keeps what it was
sent; `FAKE_AGENT_LIST_CWD` makes it list its sessions in another directory, and
`FAKE_AGENT_ADDITIONAL_DIRECTORIES` makes it advertise `additionalDirectories`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from acp_tui.cli import main
from tests.ui.test_app_flows import sent
from tests.ui.test_session_roots import folder

pytestmark = pytest.mark.subprocess

FAKE_AGENT = Path(__file__).resolve().parents[1] / "fakes" / "agent.py"
AGENT = f"{sys.executable} {FAKE_AGENT} v1-full"


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "record.jsonl"
    monkeypatch.setenv("FAKE_AGENT_RECORD", str(path))
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return folder(tmp_path / "project", "notes.txt", "project notes\n")


@pytest.fixture
def shared(tmp_path: Path) -> Path:
    return folder(tmp_path / "shared", "lib.txt", "shared lib\n")


def print_read(
    capsys: pytest.CaptureFixture[str], project: Path, path: Path, *options: str
) -> tuple[int, str, str]:
    """`acp-tui print "read PATH"` in `project`; returns (code, stdout, stderr)."""
    code = main(
        ["print", "--agent", AGENT, "--cwd", str(project), *options, f"read {path}"]
    )
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_resumed_session_is_not_moved_to_the_directory_the_agent_lists(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    record: Path,
    project: Path,
) -> None:
    monkeypatch.setenv("FAKE_AGENT_LIST_CWD", "/")
    code, out, err = print_read(
        capsys, project, Path("/etc/hostname"), "--session", "s-alpha"
    )
    assert code == 0, err
    assert "read /etc/hostname: refused -32602" in out
    (resumed,) = sent(record, "session/resume")
    assert resumed["sessionId"] == "s-alpha"
    assert resumed["cwd"] == str(project.resolve())
    assert not sent(record, "session/list")  # nobody asks the agent where it was
    assert not sent(record, "session/new")
    code, out, err = print_read(
        capsys, project, project / "notes.txt", "--session", "s-alpha"
    )
    assert code == 0, err
    assert f"read {project / 'notes.txt'}: project notes" in out


def test_an_unknown_session_fails_cleanly(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    code, _, err = print_read(capsys, project, project, "--session", "nope")
    assert code == 3
    assert "no such session: nope (the agent said: Resource not found" in err
    assert "Traceback" not in err


def test_an_added_directory_is_sent_and_readable(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    record: Path,
    project: Path,
    shared: Path,
) -> None:
    monkeypatch.setenv("FAKE_AGENT_ADDITIONAL_DIRECTORIES", "1")
    code, out, err = print_read(
        capsys, project, shared / "lib.txt", "--add-dir", str(shared)
    )
    assert code == 0, err
    assert "shared lib" in out
    (params,) = sent(record, "session/new")
    assert params["additionalDirectories"] == [str(shared.resolve())]
    assert "additional directories" not in err


def test_an_added_directory_the_agent_cannot_take_is_still_a_root(
    capsys: pytest.CaptureFixture[str], record: Path, project: Path, shared: Path
) -> None:
    code, out, err = print_read(
        capsys, project, shared / "lib.txt", "--add-dir", str(shared)
    )
    assert code == 0, err
    assert "shared lib" in out
    (params,) = sent(record, "session/new")
    assert "additionalDirectories" not in params  # never unadvertised
    assert "does not take additional directories" in err
    assert str(shared.resolve()) in err


def test_without_add_dir_a_sibling_directory_is_refused(
    capsys: pytest.CaptureFixture[str], project: Path, shared: Path
) -> None:
    code, out, err = print_read(capsys, project, shared / "lib.txt")
    assert code == 0, err
    assert "refused -32602" in out
    assert "shared lib" not in out


def test_a_missing_added_directory_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    missing = project / "missing"
    code, out, err = print_read(capsys, project, project, "--add-dir", str(missing))
    assert code == 2
    assert f"--add-dir {missing} does not exist" in err
    assert out == ""
