"""An unknown `--agent`: the closest catalogue names, or the install hint."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from acp_tui.client.agents import (
    UnknownAgentError,
    builtin_agents,
    check_program,
    resolve_agent,
    suggest_agents,
)


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    path = tmp_path / "bin"
    path.mkdir()
    return path


def check(value: str, search_path: str) -> None:
    catalogue = builtin_agents()
    resolved = resolve_agent(value, catalogue=catalogue, search_path=search_path)
    check_program(value, resolved, catalogue, search_path=search_path)


@pytest.mark.parametrize(
    ("word", "names"),
    [
        ("gemni", ("gemini",)),
        ("claude", ("claude-code",)),
        ("claude-agent-acp", ("claude-code",)),  # the program's name
        ("co", ("codex", "copilot")),  # a beginning
        ("OpenCod", ("opencode",)),
        ("xyzzy", ()),
        ("", ()),
    ],
)
def test_suggestions(word: str, names: tuple[str, ...]) -> None:
    assert suggest_agents(word, builtin_agents()) == names


def test_an_unknown_name_suggests_the_closest_and_the_agents_command(
    bin_dir: Path,
) -> None:
    with pytest.raises(UnknownAgentError) as raised:
        check("gemni", str(bin_dir))
    message = str(raised.value)
    assert message.startswith("no agent named 'gemni': it is not in the catalogue")
    assert "Did you mean: gemini?" in message
    assert "`acp-tui agents`" in message
    assert raised.value.suggestions == ("gemini",)


def test_a_missing_program_of_a_command_line_is_named(bin_dir: Path) -> None:
    with pytest.raises(UnknownAgentError) as raised:
        check("nosuchprog --acp", str(bin_dir))
    message = str(raised.value)
    assert "no program 'nosuchprog' is on PATH" in message
    assert "--agent 'nosuchprog --acp'" in message
    assert "Did you mean" not in message


def test_a_catalogue_agents_program_gives_its_install_hint(bin_dir: Path) -> None:
    with pytest.raises(UnknownAgentError) as raised:
        check("gemini --acp --debug", str(bin_dir))
    message = str(raised.value)
    assert "no program 'gemini' is on PATH" in message
    assert "Use --agent gemini" in message
    assert "npm install -g @google/gemini-cli" in message


def test_a_program_on_path_and_a_path_are_left_to_run(bin_dir: Path) -> None:
    program = bin_dir / "my-agent"
    program.write_text("#!/bin/sh\n")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    check("my-agent --acp", str(bin_dir))
    check(f"{bin_dir}/elsewhere --acp", str(bin_dir))  # the transport explains


def test_a_catalogue_name_is_not_checked_here(bin_dir: Path) -> None:
    check("demo", str(bin_dir))  # found as this interpreter, by path
