"""`acp-tui serve`: its options, the served command line, the printed URL with its
token, and the missing extra.

The real server is driven in tests/serve/ (test_server.py, and a browser in
test_browser.py); here `GuardedServer.serve` is replaced by a recorder that only
prints the URL, so nothing listens.
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
from acp_tui.storage.paths import demo_project_dir
from acp_tui.ui import serve_server
from acp_tui.ui.serve import INSTALL_HINT, ServedApp, served_argv, served_command
from acp_tui.ui.serve_server import GuardedServer

FAKE_AGENT = Path(__file__).resolve().parent / "fakes" / "agent.py"


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("ACP_TUI_HOME", str(home))
    return home


class RecordingServer(GuardedServer):
    """The real `GuardedServer`, except that `serve` announces and never listens."""

    made: ClassVar[list[RecordingServer]] = []
    """The servers asked to serve, in order."""

    def serve(self, debug: bool = False) -> None:
        RecordingServer.made.append(self)
        self.announce()


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> type[RecordingServer]:
    RecordingServer.made = []
    monkeypatch.setattr(serve_server, "GuardedServer", RecordingServer)
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
    assert (server.host, server.port, server.public_url) == (
        "127.0.0.1",
        9123,
        "https://tui.example",
    )
    assert server.guard.url == f"https://tui.example/?token={server.guard.token}"
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
    printed = capsys.readouterr()
    assert "warning" not in printed.err
    assert f"  {server.guard.url}\n" in printed.out


def test_serve_prints_the_url_with_a_new_token_each_run(
    recorder: type[RecordingServer], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", "--port", "8123"]) == 0
    assert main(["serve", "--port", "8123"]) == 0
    first, second = recorder.made
    assert first.guard.token != second.guard.token
    out = capsys.readouterr().out
    for server in (first, second):
        assert len(server.guard.token) >= 43
        assert f"  http://127.0.0.1:8123/?token={server.guard.token}\n" in out
    # The token is this process's alone: never on the app's command line.
    assert first.guard.token not in first.command


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
        # With no --cwd, the demo works in its scratch project, as in the app.
        str(demo_project_dir().resolve()),
    ]
    assert argv[9:] == ["--init-timeout", "9.0"]
    assert server.title == "acp-tui: demo"
    assert "running the built-in demo agent" in capsys.readouterr().err


def test_serve_warns_when_listening_beyond_loopback(
    recorder: type[RecordingServer], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", "--host", "0.0.0.0"]) == 0
    [server] = recorder.made
    assert server.host == "0.0.0.0"
    err = capsys.readouterr().err
    assert "warning: serving on 0.0.0.0" in err
    assert "agent session on this machine" in err
    assert "--public-url" in err
    # The token stays mandatory; browsers elsewhere need the public URL.
    assert server.guard.url.startswith("http://127.0.0.1:8000/?token=")
    assert ("192.168.1.5", 8000) not in server.guard.hosts


@pytest.mark.parametrize("url", ["tui.example", "ftp://tui.example", "https://x/?a"])
def test_serve_rejects_a_bad_public_url(
    recorder: type[RecordingServer], url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", "--public-url", url]) == 2
    assert f"--public-url {url!r} is not an http:// or https:// URL" in (
        capsys.readouterr().err
    )
    assert recorder.made == []


def test_serve_rejects_a_bad_host(
    recorder: type[RecordingServer], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", "--host", "bad host"]) == 2
    assert "--host 'bad host' is not a host name or address" in (
        capsys.readouterr().err
    )
    assert recorder.made == []


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
    # serve_server imports textual_serve: import it afresh, as without the extra.
    monkeypatch.delitem(sys.modules, "acp_tui.ui.serve_server", raising=False)
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
