"""`acp-tui serve`: its options, the served command line, and the missing extra.

The real server and a browser are driven in tests/serve/test_browser.py; here the
textual-serve `Server` is replaced by a recorder, so nothing listens.
"""

from __future__ import annotations

import shlex
import socket
import subprocess
import sys
from pathlib import Path
from typing import ClassVar

import pytest

from acp_tui.cli import build_parser, main
from acp_tui.ui.serve import INSTALL_HINT, ServedApp, served_argv, served_command

FAKE_AGENT = Path(__file__).resolve().parent / "fakes" / "agent.py"


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("ACP_TUI_HOME", str(home))
    return home


class RecordingServer:
    """Stands in for `textual_serve.server.Server`: records, never listens."""

    made: ClassVar[list[RecordingServer]] = []

    def __init__(
        self,
        command: str,
        host: str = "localhost",
        port: int = 8000,
        title: str | None = None,
        public_url: str | None = None,
    ) -> None:
        self.command = command
        self.host = host
        self.port = port
        self.title = title
        self.public_url = public_url
        self.served = False
        RecordingServer.made.append(self)

    def serve(self, debug: bool = False) -> None:
        self.served = True


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> type[RecordingServer]:
    import textual_serve.server

    RecordingServer.made = []
    monkeypatch.setattr(textual_serve.server, "Server", RecordingServer)
    return RecordingServer


def test_parser_defaults() -> None:
    args = build_parser().parse_args(["serve"])
    assert args.command == "serve"
    assert (args.host, args.port, args.public_url) == ("127.0.0.1", 8000, None)
    assert (args.agent, args.protocol, args.cwd, args.init_timeout) == (
        None,
        None,
        None,
        None,
    )
    assert (args.session, args.sessions, args.theme, args.record) == (
        None,
        False,
        None,
        None,
    )


def test_parser_takes_the_connection_options() -> None:
    args = build_parser().parse_args(
        [
            "serve",
            "--host",
            "0.0.0.0",
            "--port",
            "9001",
            "--public-url",
            "https://tui.example/",
            "--agent",
            "opencode acp",
            "--protocol",
            "1",
            "--init-timeout",
            "5",
            "--session",
            "s-1",
            "--theme",
            "acp-light",
        ]
    )
    assert (args.host, args.port, args.public_url) == (
        "0.0.0.0",
        9001,
        "https://tui.example/",
    )
    assert (args.agent, args.protocol, args.init_timeout) == ("opencode acp", "1", 5.0)
    assert (args.session, args.theme) == ("s-1", "acp-light")


def test_session_and_sessions_exclude_each_other(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["serve", "--sessions", "--session", "x"])
    assert exited.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_served_argv_passes_every_option_through(tmp_path: Path) -> None:
    app = ServedApp(
        agent="my agent --flag 'quoted arg'",
        protocol="2",
        cwd=tmp_path / "a dir",
        init_timeout=7.5,
        session="sess 1",
        theme="acp-light",
        record=tmp_path / "rec.jsonl",
    )
    argv = served_argv(app, python="/opt/py thon")
    assert argv == [
        "/opt/py thon",
        "-m",
        "acp_tui",
        "--agent",
        "my agent --flag 'quoted arg'",
        "--protocol",
        "2",
        "--cwd",
        str(tmp_path / "a dir"),
        "--init-timeout",
        "7.5",
        "--session",
        "sess 1",
        "--theme",
        "acp-light",
        "--record",
        str(tmp_path / "rec.jsonl"),
    ]
    # The shell that textual-serve starts splits the command back into the argv.
    assert shlex.split(served_command(app, python="/opt/py thon")) == argv


def test_served_argv_defaults_to_this_python_and_nothing_else() -> None:
    assert served_argv(ServedApp()) == [sys.executable, "-m", "acp_tui"]
    assert served_argv(ServedApp(sessions=True, session="ignored"))[3:] == [
        "--sessions"
    ]


def test_served_argv_parses_back_as_the_app_command(tmp_path: Path) -> None:
    """What serve builds is a valid `acp-tui` command line with the same values."""
    app = ServedApp(agent="demo", protocol="1", cwd=tmp_path, init_timeout=3.0)
    args = build_parser().parse_args(served_argv(app)[3:])
    assert args.command is None
    assert (args.agent, args.protocol, args.cwd, args.init_timeout) == (
        "demo",
        "1",
        tmp_path,
        3.0,
    )


def test_serve_runs_the_server_with_the_built_command(
    recorder: type[RecordingServer],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    agent = f"{sys.executable} {FAKE_AGENT} v1"
    status = main(
        [
            "serve",
            "--agent",
            agent,
            "--cwd",
            str(tmp_path),
            "--port",
            "9123",
            "--public-url",
            "https://tui.example/",
            "--protocol",
            "1",
            "--init-timeout",
            "4",
            "--sessions",
        ]
    )
    assert status == 0
    [server] = recorder.made
    assert server.served
    assert (server.host, server.port, server.public_url) == (
        "127.0.0.1",
        9123,
        "https://tui.example/",
    )
    assert shlex.split(server.command) == [
        sys.executable,
        "-m",
        "acp_tui",
        "--agent",
        agent,
        "--protocol",
        "1",
        "--cwd",
        str(tmp_path.resolve()),
        "--init-timeout",
        "4.0",
        "--sessions",
    ]
    assert "warning" not in capsys.readouterr().err


def test_serve_defaults_to_the_demo_agent_and_the_config(
    recorder: type[RecordingServer],
    home: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text('protocol = "2"\ninit_timeout = 9\n')
    assert main(["serve"]) == 0
    [server] = recorder.made
    argv = shlex.split(server.command)
    assert argv[3:9] == [
        "--agent",
        "demo",
        "--protocol",
        "2",
        "--cwd",
        str(Path.cwd().resolve()),
    ]
    assert argv[9:] == ["--init-timeout", "9.0"]
    assert server.title == "acp-tui: demo"
    assert "running the built-in demo agent" in capsys.readouterr().err


def test_serve_warns_when_listening_beyond_loopback(
    recorder: type[RecordingServer], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", "--host", "0.0.0.0"]) == 0
    assert recorder.made[0].host == "0.0.0.0"
    err = capsys.readouterr().err
    assert "warning: serving on 0.0.0.0" in err
    assert "agent session on this machine" in err


@pytest.mark.parametrize("port", ["0", "65536", "-1"])
def test_serve_rejects_a_bad_port(
    recorder: type[RecordingServer], port: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", f"--port={port}"]) == 2
    assert f"--port {port} is not a TCP port" in capsys.readouterr().err
    assert recorder.made == []


def test_serve_rejects_a_bad_config_before_serving(
    recorder: type[RecordingServer], home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text('protocol = "7"\n')
    assert main(["serve"]) == 2
    assert "config" in capsys.readouterr().err
    assert recorder.made == []


def test_missing_extra_says_how_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A None entry in sys.modules makes `import textual_serve...` raise ImportError.
    monkeypatch.setitem(sys.modules, "textual_serve", None)
    monkeypatch.setitem(sys.modules, "textual_serve.server", None)
    assert main(["serve"]) == 2
    err = capsys.readouterr().err
    assert f"acp-tui: {INSTALL_HINT}" in err
    assert "uv sync --extra serve" in err
    assert "pip install 'acp-tui[serve]'" in err


@pytest.mark.subprocess
def test_a_port_in_use_is_reported(home: Path, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        completed = subprocess.run(
            [sys.executable, "-m", "acp_tui", "serve", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
        )
    assert completed.returncode == 2
    assert f"cannot serve on 127.0.0.1:{port}" in completed.stderr
