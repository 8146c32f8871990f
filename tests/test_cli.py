"""The command line: version, usage errors, config, exit codes and safe output."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tui import __version__
from acp_tui.cli import build_parser, main

FAKE_AGENT = Path(__file__).resolve().parent / "fakes" / "agent.py"


def fake(scenario: str) -> str:
    return f"{sys.executable} {FAKE_AGENT} {scenario}"


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("ACP_TUI_HOME", str(home))
    return home


@pytest.fixture(autouse=True)
def _a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if run in a terminal: the app (stood in for here) may start."""
    from acp_tui import cli

    monkeypatch.setattr(cli, "_screen_problem", lambda: None)


def write_config(home: Path, text: str) -> None:
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.toml").write_text(text)


@pytest.mark.subprocess
def test_version_runs_as_a_program() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "acp_tui", "--version"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert completed.stdout.strip() == f"acp-tui {__version__}"


@pytest.mark.subprocess
def test_no_agent_runs_the_demo_agent_with_a_hint(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--probe"]) == 0
    captured = capsys.readouterr()
    assert "running the built-in demo agent" in captured.err
    assert "--agent claude-code" in captured.err
    assert "agent:    acp-tui demo agent" in captured.out


@pytest.mark.subprocess
def test_configured_default_agent_is_used(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(home, f"agent = {fake('v1')!r}\n")
    assert main(["--probe"]) == 0
    captured = capsys.readouterr()
    assert "demo" not in captured.err
    assert "protocol: ACP v1" in captured.out


def test_bad_config_is_a_usage_error_naming_the_file(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(home, 'protocol = "3"\n')
    assert main(["--probe", "--agent", "x"]) == 2
    err = capsys.readouterr().err
    assert "config.toml" in err
    assert "protocol" in err


@pytest.mark.subprocess
def test_connects_and_reports(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--probe", "--agent", fake("v2"), "--init-timeout", "20"]) == 0
    out = capsys.readouterr().out
    assert "agent:    Fake Agent 1.0.0" in out
    assert "protocol: ACP v2" in out
    assert "session:  s1" in out


@pytest.mark.subprocess
def test_config_file_pins_the_protocol(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(home, "protocol = 1\n")
    assert main(["--probe", "--agent", fake("v2")]) == 0
    assert "protocol: ACP v1" in capsys.readouterr().out
    # The command line wins over the file.
    assert main(["--probe", "--agent", fake("v2"), "--protocol", "auto"]) == 0
    assert "protocol: ACP v2" in capsys.readouterr().out


@pytest.mark.subprocess
def test_fallback_is_explained(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--probe", "--agent", fake("lying-v2")]) == 0
    out = capsys.readouterr().out
    assert "protocol: ACP v1" in out
    assert "fell back: the agent claimed protocol 2" in out


def test_missing_program_is_a_usage_error_naming_the_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Found missing before anything starts, like a catalogue agent not installed.
    assert main(["--probe", "--agent", "no-such-agent-binary --acp"]) == 2
    err = capsys.readouterr().err
    assert "no-such-agent-binary --acp" in err
    assert "Traceback" not in err


@pytest.mark.subprocess
def test_agent_exit_during_initialize_exits_3_with_stderr_tail(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--probe", "--agent", fake("exit-on-init")]) == 3
    err = capsys.readouterr().err
    assert "stopped during initialize" in err
    assert "exited with code 3" in err
    assert "| fake-agent: cannot start: missing credentials" in err
    assert "Traceback" not in err


@pytest.mark.subprocess
def test_hanging_agent_times_out(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--probe", "--agent", fake("hang"), "--init-timeout", "0.5"]) == 3
    assert "did not answer initialize within 0.5 s" in capsys.readouterr().err


@pytest.mark.subprocess
def test_unsupported_version_exits_3(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--probe", "--agent", fake("unsupported")]) == 3
    assert "protocolVersion 7" in capsys.readouterr().err


@pytest.mark.subprocess
def test_agent_text_never_carries_escape_sequences(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--probe", "--agent", fake("evil")]) == 0
    captured = capsys.readouterr()
    assert "Evil" in captured.out
    assert "\x1b" not in captured.out
    assert "\x07" not in captured.out
    assert "\x1b" not in captured.err


def test_agents_lists_the_catalogue(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agents"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split() == ["NAME", "SOURCE", "STATUS", "COMMAND"]
    names = [line.split()[0] for line in lines[1:]]
    assert {"demo", "claude-code", "opencode", "gemini", "codex", "goose"} <= set(names)
    [demo] = [line for line in lines if line.startswith("demo ")]
    assert "installed" in demo


@pytest.mark.subprocess
def test_user_agent_from_config_is_resolved_by_name(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(
        home,
        f"[agents.fake]\nargs = [{str(sys.executable)!r}, {str(FAKE_AGENT)!r}, 'v2']\n",
    )
    assert main(["agents"]) == 0
    assert "fake" in capsys.readouterr().out
    assert main(["--probe", "--agent", "fake"]) == 0
    assert "agent:    Fake Agent" in capsys.readouterr().out


def test_unparsable_agent_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--probe", "--agent", '"unbalanced']) == 2
    assert "cannot parse --agent" in capsys.readouterr().err


class CapturedApp:
    """Stands in for the app: records `make_app`'s arguments, runs nothing."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __call__(self, *args: Any, **kwargs: Any) -> CapturedApp:
        self.calls.append(kwargs)
        return self

    def run(self) -> None:
        pass


def test_add_dir_and_the_config_reach_the_app_as_absolute_directories(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from acp_tui.ui import app as app_module

    project, configured, added = (tmp_path / n for n in ("project", "conf", "added"))
    for directory in (project, configured, added):
        directory.mkdir()
    write_config(home, f"additional_directories = [{str(configured)!r}]\n")
    captured = CapturedApp()
    monkeypatch.setattr(app_module, "make_app", captured)
    monkeypatch.chdir(tmp_path)
    argv = ["--agent", fake("v2"), "--cwd", str(project)]
    # Relative to the shell's directory; the project itself and repeats are dropped.
    argv += ["--add-dir", "added", "--add-dir", str(configured), "--add-dir", "project"]
    assert main(argv) == 0
    (call,) = captured.calls
    assert call["cwd"] == project.resolve()
    assert call["additional_directories"] == (configured.resolve(), added.resolve())


def test_the_demo_agent_opens_its_sessions_in_its_scratch_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its paths then read as a project's (`notes.txt`); an explicit `--cwd`, or
    another agent, keeps the directory asked for."""
    from acp_tui.frontends import print_turn as headless
    from acp_tui.storage import paths
    from acp_tui.ui import app as app_module

    captured = CapturedApp()
    monkeypatch.setattr(app_module, "make_app", captured)
    monkeypatch.chdir(tmp_path)
    scratch = paths.demo_project_dir()
    assert main([]) == 0
    assert main(["--agent", "demo"]) == 0
    assert main(["--agent", "demo", "--cwd", str(tmp_path)]) == 0
    assert main(["--agent", fake("v2")]) == 0
    cwds = [call["cwd"] for call in captured.calls]
    assert cwds == [scratch.resolve(), scratch.resolve(), tmp_path, tmp_path]
    assert scratch.is_dir()
    assert scratch.stat().st_mode & 0o077 == 0  # private, as the data dir is

    seen: list[headless.PrintOptions] = []

    async def run_print(
        options: headless.PrintOptions, *_: object, **__: object
    ) -> int:
        seen.append(options)
        return 0

    monkeypatch.setattr(headless, "run_print", run_print)
    assert main(["print", "hi"]) == 0
    assert seen[0].cwd == scratch.resolve()


@pytest.mark.parametrize("configured", [None, "false", "true"])
def test_allow_git_writes_from_the_config_reaches_the_app_and_print(
    configured: str | None,
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from acp_tui.frontends import print_turn as headless
    from acp_tui.ui import app as app_module

    if configured is not None:
        write_config(home, f"allow_git_writes = {configured}\n")
    expected = configured == "true"
    captured = CapturedApp()
    monkeypatch.setattr(app_module, "make_app", captured)
    assert main(["--agent", fake("v2"), "--cwd", str(tmp_path)]) == 0
    assert captured.calls[0]["allow_git_writes"] is expected

    seen: list[headless.PrintOptions] = []

    async def run_print(
        options: headless.PrintOptions, *_: object, **__: object
    ) -> int:
        seen.append(options)
        return 0

    monkeypatch.setattr(headless, "run_print", run_print)
    assert main(["print", "--agent", fake("v2"), "--cwd", str(tmp_path), "hi"]) == 0
    assert seen[0].allow_git_writes is expected


@pytest.mark.parametrize("command", [[], ["print"], ["replay", "x.jsonl"], ["serve"]])
def test_a_missing_add_dir_is_a_usage_error(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing"
    argv = [*command[:1], "--add-dir", str(missing), *command[1:]]
    if command[:1] == ["print"]:
        argv.append("hi")
    assert main(argv) == 2
    assert f"acp-tui: --add-dir {missing} does not exist" in capsys.readouterr().err


def test_a_config_with_a_missing_directory_is_a_usage_error(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(home, 'additional_directories = ["/no/such/dir"]\n')
    assert main(["--probe", "--agent", "x"]) == 2
    err = capsys.readouterr().err
    assert "config.toml: additional_directories: /no/such/dir does not exist" in err


def test_serve_passes_the_added_directories_to_each_app(tmp_path: Path) -> None:
    from acp_tui.ui.serve import ServedApp, served_argv

    app = ServedApp(additional_directories=(tmp_path / "a", tmp_path / "b"))
    assert served_argv(app)[3:] == [
        "--add-dir",
        str(tmp_path / "a"),
        "--add-dir",
        str(tmp_path / "b"),
    ]


@pytest.mark.subprocess
def test_app_log_is_private_and_rotates(home: Path) -> None:
    from acp_tui.storage.private_files import APP_LOG_MAX_BYTES

    logs = home / "logs"
    logs.mkdir(parents=True)
    log = logs / "acp-tui.log"
    log.write_text("x" * APP_LOG_MAX_BYTES)  # full: the next record rotates it
    log.chmod(0o644)
    script = (
        "import logging, os; os.umask(0o022)\n"
        "from acp_tui.cli import _setup_logging\n"
        "path = _setup_logging()\n"
        "logging.getLogger('acp_tui.test').warning('hello from the app')\n"
        "print(path)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env={**os.environ, "ACP_TUI_HOME": str(home)},
    )
    assert Path(completed.stdout.strip()) == log
    assert "hello from the app" in log.read_text()
    assert (logs / "acp-tui.log.1").stat().st_size == APP_LOG_MAX_BYTES
    for path in (log, logs / "acp-tui.log.1"):
        assert path.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("command", ["print", "sessions", "serve"])
def test_options_given_before_the_command_stand(command: str) -> None:
    """`acp-tui --agent X print P` runs X in --cwd: the command's own defaults
    used to replace them (the built-in demo ran, in the current directory)."""
    tail = ["hi"] if command == "print" else []
    before = build_parser().parse_args(
        [
            "--agent",
            "opencode acp",
            "--cwd",
            "/srv/p",
            "--protocol",
            "1",
            command,
            *tail,
        ]
    )
    assert before.agent == "opencode acp"
    assert before.cwd == Path("/srv/p")
    assert before.protocol == "1"
    after = build_parser().parse_args(
        [command, "--agent", "opencode acp", "--cwd", "/srv/p", *tail]
    )
    assert (after.agent, after.cwd) == ("opencode acp", Path("/srv/p"))
    neither = build_parser().parse_args([command, *tail])
    assert (neither.agent, neither.cwd, neither.protocol) == (None, None, None)
