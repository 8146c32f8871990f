"""The agent catalogue: names, PATH and npx resolution, user agents, listing."""

from __future__ import annotations

import os
import stat
import sys
import tomllib
from pathlib import Path

import pytest

from acp_tui.client import agents
from acp_tui.client.agents import (
    AgentConfigError,
    AgentEntry,
    AgentNotFoundError,
    AgentSpecError,
    builtin_agents,
    describe_catalogue,
    format_catalogue,
    load_catalogue,
    load_user_agents,
    register_builtin,
    resolve_agent,
    resolve_entry,
)

BUILTIN_NAMES = [
    "auggie",
    "claude-code",
    "codex",
    "copilot",
    "cursor",
    "demo",
    "gemini",
    "goose",
    "kimi",
    "mistral-vibe",
    "opencode",
    "qwen",
]


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    path = tmp_path / "bin"
    path.mkdir()
    return path


def make_exe(directory: Path, name: str) -> Path:
    path = directory / name
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def user_catalogue(text: str) -> dict[str, AgentEntry]:
    catalogue = builtin_agents()
    catalogue.update(load_user_agents(tomllib.loads(text)))
    return catalogue


# --- The built-in catalogue. -------------------------------------------------------


def test_builtin_names() -> None:
    assert sorted(builtin_agents()) == BUILTIN_NAMES


@pytest.mark.parametrize(
    ("name", "command", "package"),
    [
        ("claude-code", ("claude-agent-acp",), "@agentclientprotocol/claude-agent-acp"),
        ("codex", ("codex-acp",), "@agentclientprotocol/codex-acp"),
        ("gemini", ("gemini", "--acp"), "@google/gemini-cli"),
        ("opencode", ("opencode", "acp"), "opencode-ai"),
        ("goose", ("goose", "acp"), None),
        ("qwen", ("qwen", "--acp"), "@qwen-code/qwen-code"),
        ("copilot", ("copilot", "--acp"), "@github/copilot"),
        ("auggie", ("auggie", "--acp"), "@augmentcode/auggie"),
        ("cursor", ("cursor-agent", "acp"), None),
        ("kimi", ("kimi", "acp"), "@moonshot-ai/kimi-code"),
        ("mistral-vibe", ("vibe-acp",), None),
    ],
)
def test_builtin_commands(
    name: str, command: tuple[str, ...], package: str | None
) -> None:
    entry = builtin_agents()[name]
    assert entry.name == name
    assert entry.path_command() == command
    assert entry.npm_package == package
    assert entry.source == "builtin"
    assert entry.title
    assert entry.install_hint
    assert entry.homepage.startswith("https://")


def test_builtin_agents_is_a_fresh_dict() -> None:
    first = builtin_agents()
    del first["gemini"]
    assert "gemini" in builtin_agents()


def test_entry_containers_are_frozen() -> None:
    entry = AgentEntry(name="x", title="X", binary="x", args=("a",), env={"K": "v"})
    with pytest.raises(TypeError):
        entry.env["K"] = "w"  # type: ignore[index]
    assert entry.env == {"K": "v"}
    assert entry.args == ("a",)


# --- Resolution of catalogue names. ------------------------------------------------


def test_binary_on_path_is_used(bin_dir: Path) -> None:
    gemini = make_exe(bin_dir, "gemini")
    resolved = resolve_agent("gemini", search_path=str(bin_dir))
    assert resolved.found == "path"
    assert resolved.ok
    assert resolved.command.argv == (str(gemini), "--acp")
    assert resolved.entry == builtin_agents()["gemini"]
    assert resolved.name == "gemini"
    assert resolved.require() is resolved.command


def test_path_is_searched_in_order(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    make_exe(second, "opencode")
    winner = make_exe(first, "opencode")
    search_path = os.pathsep.join([str(first), str(second)])
    resolved = resolve_agent("opencode", search_path=search_path)
    assert resolved.command.argv == (str(winner), "acp")


def test_path_wins_over_npx(bin_dir: Path) -> None:
    make_exe(bin_dir, "npx")
    gemini = make_exe(bin_dir, "gemini")
    resolved = resolve_agent("gemini", search_path=str(bin_dir))
    assert resolved.found == "path"
    assert resolved.command.argv[0] == str(gemini)


def test_non_executable_file_is_not_found(bin_dir: Path) -> None:
    (bin_dir / "goose").write_text("not a program")
    (bin_dir / "goose").chmod(0o644)
    assert resolve_agent("goose", search_path=str(bin_dir)).found == "missing"


def test_npx_fallback_runs_the_package_bin(bin_dir: Path) -> None:
    npx = make_exe(bin_dir, "npx")
    resolved = resolve_agent("gemini", search_path=str(bin_dir))
    assert resolved.found == "npx"
    assert resolved.command.argv == (
        str(npx),
        "-y",
        "--package=@google/gemini-cli",
        "--",
        "gemini",
        "--acp",
    )
    assert resolved.require() == resolved.command


def test_npx_fallback_without_args(bin_dir: Path) -> None:
    npx = make_exe(bin_dir, "npx")
    resolved = resolve_agent("claude-code", search_path=str(bin_dir))
    assert resolved.command.argv == (
        str(npx),
        "-y",
        "--package=@agentclientprotocol/claude-agent-acp",
        "--",
        "claude-agent-acp",
    )


def test_no_npx_fallback_without_a_package(bin_dir: Path) -> None:
    make_exe(bin_dir, "npx")
    resolved = resolve_agent("goose", search_path=str(bin_dir))
    assert resolved.found == "missing"


def test_missing_agent_carries_the_install_hint(bin_dir: Path) -> None:
    resolved = resolve_agent("gemini", search_path=str(bin_dir))
    assert resolved.found == "missing"
    assert not resolved.ok
    assert resolved.command.argv == ("gemini", "--acp")
    with pytest.raises(AgentNotFoundError) as caught:
        resolved.require()
    message = str(caught.value)
    assert "'gemini'" in message
    assert "npm install -g @google/gemini-cli" in message
    assert "npx" in message
    assert caught.value.entry.name == "gemini"


def test_missing_agent_without_package_does_not_mention_npx(bin_dir: Path) -> None:
    with pytest.raises(AgentNotFoundError) as caught:
        resolve_agent("mistral-vibe", search_path=str(bin_dir)).require()
    assert "npx" not in str(caught.value)
    assert "uv tool install mistral-vibe" in str(caught.value)


def test_alternative_binary_names(bin_dir: Path) -> None:
    agent = make_exe(bin_dir, "agent")
    resolved = resolve_agent("cursor", search_path=str(bin_dir))
    assert resolved.command.argv == (str(agent), "acp")
    cursor_agent = make_exe(bin_dir, "cursor-agent")
    resolved = resolve_agent("cursor", search_path=str(bin_dir))
    assert resolved.command.argv == (str(cursor_agent), "acp")


def test_name_is_stripped(bin_dir: Path) -> None:
    make_exe(bin_dir, "qwen")
    resolved = resolve_agent("  qwen\n", search_path=str(bin_dir))
    assert resolved.found == "path"
    assert resolved.entry is not None
    assert resolved.entry.name == "qwen"


@pytest.mark.parametrize("found_as", ["path", "npx", "missing"])
def test_entry_env_is_carried_into_the_command(bin_dir: Path, found_as: str) -> None:
    if found_as == "path":
        make_exe(bin_dir, "auggie")
    elif found_as == "npx":
        make_exe(bin_dir, "npx")
    resolved = resolve_agent("auggie", search_path=str(bin_dir))
    assert resolved.found == found_as
    assert dict(resolved.command.env) == {"AUGMENT_DISABLE_AUTO_UPDATE": "1"}


def test_absolute_binary_is_found_whatever_the_path(tmp_path: Path) -> None:
    entry = AgentEntry(
        name="demo",
        title="Demo",
        binary=sys.executable,
        args=("-m", "demo"),
        install_hint="bundled",
        homepage="https://example.invalid",
    )
    resolved = resolve_entry(entry, search_path=str(tmp_path))
    assert resolved.found == "path"
    assert resolved.command.argv == (sys.executable, "-m", "demo")


# --- Command lines. ----------------------------------------------------------------


def test_unknown_value_is_a_command_line(bin_dir: Path) -> None:
    resolved = resolve_agent("opencode acp --port 0", search_path=str(bin_dir))
    assert resolved.found == "command"
    assert resolved.entry is None
    assert resolved.ok
    assert resolved.command.argv == ("opencode", "acp", "--port", "0")
    assert dict(resolved.command.env) == {}
    assert resolved.name == "opencode"
    assert resolved.require() == resolved.command


def test_command_line_quotes_and_spaces() -> None:
    resolved = resolve_agent("'/opt/my agent/run' --name \"two words\" plain\\ space")
    assert resolved.command.argv == (
        "/opt/my agent/run",
        "--name",
        "two words",
        "plain space",
    )
    assert resolved.name == "run"


def test_a_name_with_arguments_is_a_command_line() -> None:
    resolved = resolve_agent("gemini --model flash")
    assert resolved.found == "command"
    assert resolved.command.argv == ("gemini", "--model", "flash")


@pytest.mark.parametrize("value", ["", "   ", "\t\n"])
def test_empty_value_is_an_error(value: str) -> None:
    with pytest.raises(AgentSpecError, match="empty"):
        resolve_agent(value)


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("agent 'unclosed", "No closing quotation"),
        ('agent "unclosed', "No closing quotation"),
        ("agent trailing\\", "No escaped character"),
    ],
)
def test_unbalanced_quotes_are_an_error(value: str, fragment: str) -> None:
    with pytest.raises(AgentSpecError, match="cannot parse --agent") as caught:
        resolve_agent(value)
    assert fragment in str(caught.value)


def test_quotes_only_is_empty() -> None:
    with pytest.raises(AgentSpecError, match="empty"):
        resolve_agent("''")  # shlex gives [""]: a program with no name
    with pytest.raises(AgentSpecError):
        resolve_agent('""  ')


# --- User agents. ------------------------------------------------------------------


def test_user_agent_extends_the_catalogue(bin_dir: Path) -> None:
    tool = make_exe(bin_dir, "my-tool")
    catalogue = user_catalogue(
        """
        [agents.mine]
        command = "my-tool --acp 'a b'"
        title = "My tool"
        env = { TOKEN = "x", MODE = "fast" }
        """
    )
    assert set(BUILTIN_NAMES) < set(catalogue)
    entry = catalogue["mine"]
    assert entry.source == "user"
    assert entry.title == "My tool"
    assert entry.npm_package is None
    resolved = resolve_agent("mine", catalogue=catalogue, search_path=str(bin_dir))
    assert resolved.found == "path"
    assert resolved.command.argv == (str(tool), "--acp", "a b")
    assert dict(resolved.command.env) == {"TOKEN": "x", "MODE": "fast"}
    assert resolved.command.cwd is None


def test_user_agent_overrides_a_builtin(bin_dir: Path) -> None:
    make_exe(bin_dir, "npx")
    catalogue = user_catalogue(
        """
        [agents.gemini]
        args = ["/opt/gemini-nightly", "--acp", "--debug"]
        """
    )
    entry = catalogue["gemini"]
    assert entry.source == "user"
    assert entry.title == "gemini"
    resolved = resolve_agent("gemini", catalogue=catalogue, search_path=str(bin_dir))
    # The user's program does not exist and user agents have no npx fallback.
    assert resolved.found == "missing"
    assert resolved.command.argv == ("/opt/gemini-nightly", "--acp", "--debug")
    with pytest.raises(AgentNotFoundError, match=r"\[agents\.gemini\]"):
        resolved.require()


def test_user_agent_cwd_is_expanded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    entries = load_user_agents(
        tomllib.loads('[agents.a]\nargs = ["x"]\ncwd = "~/work"\n')
    )
    assert entries["a"].cwd == tmp_path / "work"
    resolved = resolve_entry(entries["a"], search_path=str(tmp_path))
    assert resolved.command.cwd == tmp_path / "work"


def test_user_agents_keep_file_order() -> None:
    entries = load_user_agents(
        tomllib.loads('[agents.zed]\nargs = ["z"]\n[agents.alpha]\nargs = ["a"]\n')
    )
    assert list(entries) == ["zed", "alpha"]


def test_no_agents_table_means_no_user_agents() -> None:
    assert load_user_agents({}) == {}
    assert load_user_agents({"protocol": "1"}) == {}


@pytest.mark.parametrize(
    ("toml", "fragment"),
    [
        ('command = "x"\nargs = ["x"]', "not both"),
        ('title = "x"', "missing 'command'"),
        ("command = 3", "'command' must be a string, not an integer"),
        ('command = ""', "empty"),
        ('command = "   "', "empty"),
        ("command = '\"\" --flag'", "program name is empty"),
        ('command = "x \'open"', "No closing quotation"),
        ('args = "x"', "'args' must be an array of strings"),
        ('args = ["x", 1]', "'args' must be an array of strings"),
        ("args = []", "must start with the program"),
        ('args = ["", "x"]', "must start with the program"),
        ('command = "x"\nenv = "A=1"', "'env' must be a table, not a string"),
        ('command = "x"\nenv = { A = 1 }', "env 'A' must be a string, not an integer"),
        ('command = "x"\nenv = { A = true }', "not a boolean"),
        ('command = "x"\nenv = { "A=B" = "1" }', "invalid environment variable"),
        ('command = "x"\ntitle = 5', "'title' must be a string"),
        ('command = "x"\ncwd = 5', "'cwd' must be a non-empty string"),
        ('command = "x"\ncommnd = "y"', "unknown key 'commnd'"),
    ],
)
def test_bad_user_agent_tables_name_the_agent(toml: str, fragment: str) -> None:
    data = tomllib.loads(f"[agents.broken]\n{toml}\n")
    with pytest.raises(AgentConfigError) as caught:
        load_user_agents(data)
    message = str(caught.value)
    assert message.startswith("[agents.broken]: ")
    assert fragment in message
    assert caught.value.agent == "broken"


def test_agent_that_is_not_a_table() -> None:
    with pytest.raises(AgentConfigError, match=r"\[agents\.x\]: must be a table"):
        load_user_agents(tomllib.loads('[agents]\nx = "opencode acp"\n'))


def test_agents_that_is_not_a_table() -> None:
    with pytest.raises(AgentConfigError, match=r"^\[agents\]: must be a table") as c:
        load_user_agents(tomllib.loads('agents = ["a"]\n'))
    assert c.value.agent is None


@pytest.mark.parametrize("name", ["has space", "-dash", "a/b", ""])
def test_bad_agent_names(name: str) -> None:
    with pytest.raises(AgentConfigError, match="invalid agent name"):
        load_user_agents({"agents": {name: {"command": "x"}}})


# --- Loading the config file. ------------------------------------------------------


def test_missing_config_file_gives_builtins(tmp_path: Path) -> None:
    assert load_catalogue(tmp_path / "none.toml") == builtin_agents()


def test_config_file_agents_are_loaded(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('protocol = "1"\n\n[agents.local]\ncommand = "python3 a.py"\n')
    catalogue = load_catalogue(path)
    assert catalogue["local"].path_command() == ("python3", "a.py")
    assert set(BUILTIN_NAMES) < set(catalogue)


def test_default_config_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path))
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.toml").write_text('[agents.x]\nargs = ["x"]\n')
    assert load_catalogue()["x"].source == "user"


def test_invalid_toml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[agents.x\n")
    with pytest.raises(AgentConfigError, match="not valid TOML") as caught:
        load_catalogue(path)
    assert str(path) in str(caught.value)


def test_bad_agent_in_file_names_file_and_agent(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[agents.oops]\ncommand = 1\n")
    with pytest.raises(AgentConfigError) as caught:
        load_catalogue(path)
    assert str(caught.value).startswith(f"{path}: [agents.oops]: ")
    assert caught.value.agent == "oops"


def test_unreadable_config_file(tmp_path: Path) -> None:
    with pytest.raises(AgentConfigError, match="cannot read"):
        load_catalogue(tmp_path)  # a directory


# --- Extending the built-ins. --------------------------------------------------------


def test_register_builtin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(agents, "_EXTRA_BUILTINS", {})
    demo = AgentEntry(
        name="demo",
        title="Demo agent",
        binary=sys.executable,
        args=("-m", "acp_tui.demo"),
        install_hint="bundled with acp-tui",
        homepage="https://example.invalid",
    )
    register_builtin(demo)
    assert builtin_agents()["demo"] is demo
    resolved = resolve_agent("demo", search_path=str(tmp_path))
    assert resolved.command.argv == (sys.executable, "-m", "acp_tui.demo")
    names = [s.name for s in describe_catalogue(search_path=str(tmp_path))]
    assert names == BUILTIN_NAMES


def test_register_builtin_rejects_user_entries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(agents, "_EXTRA_BUILTINS", {})
    with pytest.raises(ValueError, match="builtin"):
        register_builtin(AgentEntry(name="u", title="U", binary="u", source="user"))
    with pytest.raises(ValueError, match="invalid agent name"):
        register_builtin(AgentEntry(name="bad name", title="B", binary="b"))


# --- Listing. ------------------------------------------------------------------------


def test_describe_catalogue_statuses_and_order(bin_dir: Path) -> None:
    gemini = make_exe(bin_dir, "gemini")
    npx = make_exe(bin_dir, "npx")
    make_exe(bin_dir, "mine")
    catalogue = user_catalogue(
        """
        [agents.zzz]
        command = "not-installed --x"
        [agents.mine]
        command = "mine --acp"
        [agents.codex]
        command = "custom-codex"
        """
    )
    statuses = describe_catalogue(catalogue, search_path=str(bin_dir))
    builtins = [n for n in BUILTIN_NAMES if n != "codex"]
    assert [s.name for s in statuses] == [*builtins, "codex", "mine", "zzz"]
    by_name = {s.name: s for s in statuses}
    assert by_name["gemini"].status == "installed"
    assert by_name["gemini"].command_line == f"{gemini} --acp"
    assert by_name["opencode"].status == "via npx"
    assert by_name["opencode"].command.argv[0] == str(npx)
    assert by_name["goose"].status == "not found"
    assert by_name["goose"].command_line == "goose acp"
    assert "goose" in by_name["goose"].install_hint
    assert by_name["mine"].status == "installed"
    assert by_name["zzz"].status == "not found"
    assert by_name["codex"].entry.source == "user"
    assert by_name["codex"].status == "not found"  # the user's, not npx's


def test_describe_defaults_to_builtins(tmp_path: Path) -> None:
    statuses = describe_catalogue(search_path=str(tmp_path))
    assert [s.name for s in statuses] == BUILTIN_NAMES
    # Only the demo agent (this interpreter, an absolute path) is always there.
    assert {s.name: s.status for s in statuses if s.status != "not found"} == {
        "demo": "installed"
    }


def test_format_catalogue(bin_dir: Path) -> None:
    gemini = make_exe(bin_dir, "gemini")
    catalogue = user_catalogue('[agents.x]\ncommand = "x"\n')
    lines = format_catalogue(describe_catalogue(catalogue, search_path=str(bin_dir)))
    assert lines[0].split() == ["NAME", "SOURCE", "STATUS", "COMMAND"]
    assert len(lines) == len(BUILTIN_NAMES) + 2
    # Every column starts at the same offset on every line.
    source_at = lines[0].index("SOURCE")
    status_at = lines[0].index("STATUS")
    command_at = lines[0].index("COMMAND")
    for line in lines[1:]:
        assert line[source_at - 2 : source_at] == "  "
        assert line[source_at] != " "
        assert line[status_at - 1] == " "
        assert line[status_at] != " "
        assert line[command_at - 1] == " "
        assert line[command_at] != " "
        assert line == line.rstrip()
        assert "\x1b" not in line
        assert "\n" not in line
    gemini_line = next(line for line in lines if line.startswith("gemini "))
    assert gemini_line.split()[1:3] == ["built-in", "installed"]
    assert gemini_line.endswith(f"{gemini} --acp")
    goose_line = next(line for line in lines if line.startswith("goose "))
    assert "not found" in goose_line
    assert "install: " in goose_line
    assert lines[-1].startswith("x ")
    assert lines[-1].split()[1] == "user"


def test_format_catalogue_escapes_control_characters(bin_dir: Path) -> None:
    make_exe(bin_dir, "x")
    catalogue = load_user_agents({"agents": {"evil": {"args": ["x", "\x1b[31mred"]}}})
    lines = format_catalogue(describe_catalogue(catalogue, search_path=str(bin_dir)))
    assert lines[1].split()[2] == "installed"
    assert all("\x1b" not in line for line in lines)
    assert "\\x1b[31mred" in lines[1]


def test_format_empty_catalogue() -> None:
    assert format_catalogue([]) == ["NAME  SOURCE  STATUS  COMMAND"]


def test_the_shipped_catalogue_has_only_known_keys_and_sources() -> None:
    """Every table of catalogue.toml makes an entry, and each names its sources."""
    text = Path(agents.__file__).with_name(agents.CATALOGUE_FILE).read_text("utf-8")
    tables = [line for line in text.splitlines() if line.startswith("[")]
    assert len(builtin_agents()) == len(tables) + 1  # and the demo
    for block in text.split("\n\n")[1:]:
        assert "# Source" in block, block
