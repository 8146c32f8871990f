"""Errors that say what to do: programs that are not agents, unknown names.

Each case runs the real command line (`main`), so what is checked is what the
user reads on stderr, and that no internal error or traceback reaches them.
"""

from __future__ import annotations

import argparse
import io
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tui import cli
from acp_tui.cli import main

PLAIN_CLI = Path(__file__).resolve().parent / "fakes" / "procs" / "plain_cli.py"

NOT_AGENTS = {
    "cat": "it sent acp-tui's own initialize request back",
    "echo hi": "it wrote 'hi' instead of JSON-RPC and exited",
    "true": "it exited without answering initialize",
    f"{shlex.quote(sys.executable)} {shlex.quote(str(PLAIN_CLI))}": (
        "it wrote 'Hello! What would you like to build today?' instead of JSON-RPC"
    ),
}


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("ACP_TUI_HOME", str(home))
    return home


SCREEN_PROBLEM = cli._screen_problem


@pytest.fixture(autouse=True)
def _a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if run in a terminal: the app (stood in for here) may start."""
    monkeypatch.setattr(cli, "_screen_problem", lambda: None)


def assert_no_internals(err: str) -> None:
    assert "Traceback" not in err
    assert "RuntimeError" not in err
    assert "attach()" not in err


@pytest.mark.subprocess
@pytest.mark.parametrize("agent", NOT_AGENTS)
@pytest.mark.parametrize("command", ["print", "probe"])
def test_a_program_that_is_not_an_agent_is_named_with_a_hint(
    agent: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Told apart early, not after the initialize timeout (which is 60 s here:
    waiting for it would end in "did not answer initialize")."""
    argv = ["--agent", agent, "--init-timeout", "60"]
    argv = ["print", *argv, "hello"] if command == "print" else ["--probe", *argv]
    assert main(argv) == 3
    err = capsys.readouterr().err
    assert_no_internals(err)
    program = agent if len(agent) <= 60 else agent[:59] + "…"
    assert f"`{program}` is not an ACP agent: {NOT_AGENTS[agent]}" in err
    assert "ACP mode" in err
    assert "acp-tui agents" in err
    assert "did not answer initialize" not in err


@pytest.mark.parametrize("command", [["print", "hi"], ["--probe"], ["sessions"]])
def test_an_unknown_agent_name_suggests_the_closest_names(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*command[:1], "--agent", "gemni", *command[1:]]) == 2
    err = capsys.readouterr().err
    assert "no agent named 'gemni'" in err
    assert "Did you mean: gemini?" in err
    assert "`acp-tui agents`" in err


def test_a_missing_program_shows_the_catalogue_install_hint(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # neither gemini nor npx
    assert main(["print", "--agent", "gemini --acp", "hi"]) == 2
    err = capsys.readouterr().err
    assert "no program 'gemini' is on PATH" in err
    assert "npm install -g @google/gemini-cli" in err


def test_an_unknown_agent_with_escapes_is_shown_escaped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["print", "--agent", "bad\x1b]0;x\x07name", "hi"]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err
    assert "\x07" not in err


FAKE_AGENT = Path(__file__).resolve().parent / "fakes" / "agent.py"


def fake(scenario: str) -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(FAKE_AGENT))} {scenario}"


@pytest.mark.subprocess
def test_print_with_an_unknown_session_says_no_such_session(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["print", "--agent", fake("v2-full"), "--session", "nope", "hi"]) == 3
    err = capsys.readouterr().err
    assert "no such session: nope (the agent said: Resource not found" in err
    assert "`acp-tui sessions`" in err


def test_the_app_is_asked_to_pick_when_the_session_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from acp_tui.ui import app as app_module
    from acp_tui.ui.agent_runner import SessionRequest

    requests: list[SessionRequest] = []

    class Captured:
        def __init__(self, *args: object, request: SessionRequest, **kw: object):
            requests.append(request)

        def run(self) -> None:
            pass

    monkeypatch.setattr(app_module, "make_app", Captured)
    assert main(["--agent", "demo", "--session", "nope"]) == 0
    assert requests == [SessionRequest("resume", "nope", pick_if_missing=True)]


def write_config(home: Path, text: str) -> None:
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.toml").write_text(text)


class NoApp:
    """Stands in for the app (and `serve`): a test that gets this far failed."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    def run(self) -> None:
        pass


@pytest.fixture
def no_app(monkeypatch: pytest.MonkeyPatch) -> None:
    from acp_tui.ui import app as app_module
    from acp_tui.ui import serve

    monkeypatch.setattr(app_module, "make_app", NoApp)
    monkeypatch.setattr(serve, "serve", lambda *args, **kwargs: 0)


@pytest.mark.usefixtures("no_app")
@pytest.mark.parametrize(
    "argv",
    [
        ["--agent", "demo", "--theme", "drakula"],
        ["--theme", "drakula", "serve", "--agent", "demo"],
        ["--theme", "drakula", "replay", "missing.jsonl"],
    ],
)
def test_an_unknown_theme_is_an_error_listing_the_themes(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "acp-tui: --theme: no theme named 'drakula' (did you mean: dracula?)" in err
    assert "the themes are: acp-dark, acp-light," in err
    assert "nord" in err


@pytest.mark.usefixtures("no_app")
def test_an_unknown_theme_in_the_config_names_the_file(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(home, 'theme = "nope"\n')
    assert main(["--agent", "demo"]) == 2
    err = capsys.readouterr().err
    assert "config.toml: theme: no theme named 'nope'" in err
    assert "acp-dark" in err


@pytest.mark.usefixtures("no_app")
def test_a_theme_file_that_failed_to_load_is_named(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    themes = home / "config" / "themes"
    themes.mkdir(parents=True)
    (themes / "mine.toml").write_text('name = "mine"\nprimary = "not-a-colour"\n')
    assert main(["--agent", "demo", "--theme", "mine"]) == 2
    err = capsys.readouterr().err
    assert "no theme named 'mine'" in err
    assert "mine.toml" in err


def test_a_known_theme_reaches_the_app(
    monkeypatch: pytest.MonkeyPatch, home: Path
) -> None:
    from acp_tui.ui import app as app_module

    themes: list[object] = []

    class Captured:
        def __init__(self, *args: object, theme: object, **kw: object) -> None:
            themes.append(theme)

        def run(self) -> None:
            pass

    monkeypatch.setattr(app_module, "make_app", Captured)
    assert main(["--agent", "demo", "--theme", "nord"]) == 0
    assert themes == ["nord"]


TYPOS = (
    'protocl = "1"\n[agents.mine]\ncomand = "x"\n'
    '[mcp_servers.fs]\ncommand = "/x"\nargz = []\n'
)
TYPO_MESSAGES = (
    "config.toml: [mcp_servers.fs]: unknown key 'argz' (did you mean 'args'?); "
    "unknown key 'protocl' (did you mean 'protocol'?)",
    "config.toml: [agents.mine]: unknown key 'comand' (did you mean 'command'?)",
)


@pytest.mark.usefixtures("no_app")
@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--probe"],
        ["agents"],
        ["export", "abc"],
        ["print", "hi"],
        ["sessions"],
        ["check"],
        ["replay", "missing.jsonl"],
        ["serve"],
    ],
    ids=lambda argv: argv[0] if argv else "app",
)
def test_config_typos_are_reported_the_same_way_by_every_command(
    argv: list[str], home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(home, TYPOS)
    assert main(argv) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2
    for line, message in zip(lines, TYPO_MESSAGES, strict=True):
        assert line.startswith("acp-tui: ")
        assert line.endswith(message)


def test_a_file_that_is_not_toml_is_reported_once(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(home, 'protocol = "1\n')
    assert main(["agents"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "config.toml is not valid TOML" in line


class Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize(
    ("stdout", "stdin", "which"),
    [
        (False, True, "stdout is"),
        (True, False, "stdin is"),
        (False, False, "stdout and stdin are"),
    ],
)
def test_the_app_without_a_terminal_points_to_print(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    stdout: bool,
    stdin: bool,
    which: str,
) -> None:
    monkeypatch.setattr(cli, "_screen_problem", SCREEN_PROBLEM)
    monkeypatch.delenv("TEXTUAL_DRIVER", raising=False)
    monkeypatch.setattr(sys, "stdin", Stream(stdin))
    with capsys.disabled():
        err = io.StringIO()
        monkeypatch.setattr(sys, "stdout", Stream(stdout))
        monkeypatch.setattr(sys, "stderr", err)
        code = main(["--agent", "demo"])
    assert code == 2
    message = err.getvalue()
    assert f"the full-screen app needs a terminal, and {which}" in message
    assert '`acp-tui print "PROMPT"`' in message
    assert "Traceback" not in message


def test_a_served_app_needs_no_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEXTUAL_DRIVER", "textual.drivers.web_driver:WebDriver")
    monkeypatch.setattr(sys, "stdin", Stream(False))
    monkeypatch.setattr(sys, "stdout", Stream(False))
    assert SCREEN_PROBLEM() is None


@pytest.mark.subprocess
def test_the_probe_says_what_it_is_and_what_to_run_next(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--probe", "--agent", "demo"]) == 0
    out = capsys.readouterr().out
    assert "not built yet" not in out
    assert out.splitlines()[-1] == (
        "(a probe: run acp-tui without --probe for the full-screen app, or "
        "`acp-tui check` for a conformance table)"
    )


def _parsers(
    parser: argparse.ArgumentParser, name: str = "acp-tui"
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command, sub in action.choices.items():
                yield from _parsers(sub, f"{name} {command}")


def test_every_argument_has_help_text() -> None:
    missing = [
        f"{name}: {'/'.join(action.option_strings) or action.dest}"
        for name, parser in _parsers(cli.build_parser())
        for action in parser._actions
        if not action.help or action.help == argparse.SUPPRESS
    ]
    assert missing == []


@pytest.mark.subprocess
def test_check_names_a_program_that_is_not_an_agent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["check", "--agent", "cat", "--protocol", "2", "--timeout", "20"])
    out = capsys.readouterr().out
    assert "`cat` is not an ACP agent: it sent acp-tui's own initialize" in out
    assert "RuntimeError" not in out
