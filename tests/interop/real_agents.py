"""Real agents doing real work offline: each agent, its scripted model server, and
how to drive both through acp-tui.

An agent (`RealAgent`) runs with a private HOME and project directory (a
`Workspace`), its model API pointed at a scripted server on 127.0.0.1
(`tests/modelserver`), and every other address made unreachable (a dead proxy,
a dead npm registry), so nothing reaches the network. Its own tools run for real
in the project directory.

The scripted replies name the agent's own tools, which differ by agent: a
`Toolkit` writes the steps (`shell`, `write`, `edit`, `read`, `todo`) in each
agent's terms.

`tested_with.json` (beside this file) lists, per agent and protocol version, the
version tested and each flow's expected result: `pass`, `xfail: <the bug>` (an
acp-tui bug: the test is marked strict xfail), `agent: <the bug>` (the agent fails
it: not run) or `n/a: <why>` (the agent has no such feature: not run). The
interop tests take their parameters and marks from it, and `test_tested_with.py`
checks the table rendered from it.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import pytest

from acp_tui.cli import main
from tests.interop.conftest import NODE22_BIN, PEERS, require
from tests.modelserver._script import ByPrompt, Reply, ScriptServer, Text, ToolUse
from tests.modelserver.anthropic import ModelServer
from tests.modelserver.gemini import GeminiServer
from tests.modelserver.openai import ChatServer, ResponsesServer

HERE: Final = Path(__file__).resolve().parent
TESTED_WITH: Final = HERE / "tested_with.json"

DEAD: Final = "http://127.0.0.1:9"
"""An address nothing listens on: every proxy and registry points here."""

OFFLINE: Final = {
    "HTTPS_PROXY": DEAD,
    "HTTP_PROXY": DEAD,
    "https_proxy": DEAD,
    "http_proxy": DEAD,
    "NO_PROXY": "127.0.0.1,localhost",
    "no_proxy": "127.0.0.1,localhost",
    "npm_config_registry": f"{DEAD}/",
}
"""What keeps an agent off the network: only 127.0.0.1 is reached directly."""


@dataclass(frozen=True)
class Workspace:
    """A private HOME, a project directory and acp-tui's own data directory."""

    root: Path

    @property
    def home(self) -> Path:
        """The agent's HOME."""
        return self.root / "home"

    @property
    def project(self) -> Path:
        """The session's working directory, where the agent's tools write."""
        return self.root / "project"

    @property
    def acp_home(self) -> Path:
        """`ACP_TUI_HOME`."""
        return self.root / "acp-tui-home"

    def create(self) -> Workspace:
        """Make the directories; return self."""
        for path in (self.home, self.project, self.acp_home):
            path.mkdir(parents=True, exist_ok=True)
        return self

    def processes(self) -> list[int]:
        """Pids of live processes whose environment has this workspace's HOME."""
        marker = f"HOME={self.home}".encode()
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError):
                environ = (entry / "environ").read_bytes().split(b"\0")
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
                if marker in environ and state != "Z":
                    found.append(int(entry.name))
        return found


@dataclass(frozen=True)
class Toolkit:
    """The scripted model's tool calls, in one agent's tool names and arguments.

    `edit(path, old, new)` replaces the whole line `old` with `new`.
    """

    shell: Callable[[str], Reply]
    write: Callable[[Path, str], Reply]
    edit: Callable[[Path, str, str], Reply]
    read: Callable[[Path], Reply]
    todo: Callable[[list[tuple[str, str]]], Reply] | None = None


def _claude_toolkit() -> Toolkit:
    return Toolkit(
        shell=lambda cmd: (ToolUse("Bash", {"command": cmd, "description": "Run"}),),
        write=lambda path, text: (
            ToolUse("Write", {"file_path": str(path), "content": text}),
        ),
        edit=lambda path, old, new: (
            ToolUse(
                "Edit",
                {"file_path": str(path), "old_string": old, "new_string": new},
            ),
        ),
        read=lambda path: (ToolUse("Read", {"file_path": str(path)}),),
        todo=lambda items: (
            ToolUse(
                "TodoWrite",
                {
                    "todos": [
                        {"content": text, "status": status, "activeForm": text}
                        for text, status in items
                    ]
                },
            ),
        ),
    )


def _opencode_toolkit() -> Toolkit:
    return Toolkit(
        shell=lambda cmd: (ToolUse("bash", {"command": cmd, "description": "Run"}),),
        write=lambda path, text: (
            ToolUse("write", {"filePath": str(path), "content": text}),
        ),
        edit=lambda path, old, new: (
            ToolUse(
                "edit", {"filePath": str(path), "oldString": old, "newString": new}
            ),
        ),
        read=lambda path: (ToolUse("read", {"filePath": str(path)}),),
    )


def _patch(body: str) -> Reply:
    """codex's file edits: `apply_patch` run through its shell tool (it intercepts
    the command and applies the patch itself, asking for approval as a file edit)."""
    script = f"apply_patch <<'PATCH'\n*** Begin Patch\n{body}*** End Patch\nPATCH\n"
    return (ToolUse("exec_command", {"cmd": script}),)


def _gemini_toolkit() -> Toolkit:
    return Toolkit(
        shell=lambda cmd: (
            ToolUse("run_shell_command", {"command": cmd, "description": "Run"}),
        ),
        write=lambda path, text: (
            ToolUse("write_file", {"file_path": str(path), "content": text}),
        ),
        edit=lambda path, old, new: (
            ToolUse(
                "replace",
                {
                    "file_path": str(path),
                    "old_string": old,
                    "new_string": new,
                    "instruction": "Change the line.",
                },
            ),
        ),
        read=lambda path: (ToolUse("read_file", {"file_path": str(path)}),),
    )


def _codex_toolkit() -> Toolkit:
    return Toolkit(
        shell=lambda cmd: (ToolUse("exec_command", {"cmd": cmd}),),
        write=lambda path, text: _patch(
            f"*** Add File: {path}\n" + "".join(f"+{x}\n" for x in text.splitlines())
        ),
        edit=lambda path, old, new: _patch(
            f"*** Update File: {path}\n@@\n-{old}\n+{new}\n"
        ),
        read=lambda path: (ToolUse("exec_command", {"cmd": f"cat {path}"}),),
        todo=lambda items: (
            ToolUse(
                "update_plan",
                {"plan": [{"step": text, "status": s} for text, s in items]},
            ),
        ),
    )


@dataclass(frozen=True)
class RealAgent:
    """A real agent at one protocol version, and how to run it offline.

    Attributes:
        key: The id in `tested_with.json` and in test ids (`claude-v2`).
        binary: The program in `.peers/node_modules/.bin`.
        args: Its arguments (`acp` for opencode).
        protocol: The ACP version acp-tui asks for (`--protocol`).
        server: The model API it speaks.
        toolkit: Its tools, for scripts.
        models: `(the model option's value to switch to, what the API then sees)`.
        side: The reply to side requests (titles, suggestions, classifications).
        mode_marker: What the next model request carries after the mode switch;
            None: the new mode lets a write through without asking.
        errors: The HTTP statuses the error flow sends (each a prompt). opencode
            retries 408, 409, 429 and 5xx for minutes (the AI SDK's `isRetryable`
            and its own retry loop), so it gets 400.
    """

    key: str
    binary: str
    args: tuple[str, ...]
    protocol: int
    server: type[ScriptServer]
    toolkit: Toolkit
    setup: Callable[[Workspace, ScriptServer], dict[str, str]]
    package: str
    models: tuple[str, str] = ("", "")
    errors: tuple[int, ...] = (400, 429, 500)
    mode_marker: str | None = None
    side: Reply = (Text("ok"),)

    def script(self, prompts: dict[str, list[Reply]] | None = None) -> ByPrompt:
        """A responder for these prompts, with this agent's side reply."""
        return ByPrompt(dict(prompts or {}), side=self.side)

    extra_path: tuple[Path, ...] = field(default=())

    def argv(self) -> tuple[str, ...]:
        """The command line (the program is required: a missing peer skips)."""
        return (str(require(self.binary)), *self.args)

    def version(self) -> str:
        """The installed package's version."""
        package = PEERS / "node_modules" / self.package / "package.json"
        return str(json.loads(package.read_text())["version"])

    def environment(self, workspace: Workspace, server: ScriptServer) -> dict[str, str]:
        """The agent's environment: what `setup` writes and asks for, offline."""
        env = dict(OFFLINE)
        env["HOME"] = str(workspace.home)
        env["ACP_TUI_HOME"] = str(workspace.acp_home)
        path = [str(p) for p in self.extra_path] + [os.environ.get("PATH", "")]
        env["PATH"] = os.pathsep.join(path)
        env.update(self.setup(workspace, server))
        return env


def _claude_setup(workspace: Workspace, server: ScriptServer) -> dict[str, str]:
    settings = workspace.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"permissions": {"defaultMode": "default"}}))
    return {
        "IS_SANDBOX": "1",
        "ANTHROPIC_API_KEY": "dummy",
        "ANTHROPIC_BASE_URL": server.url,
        "CLAUDE_CODE_MAX_RETRIES": "0",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        # Claude Code 2.1 offers no TodoWrite in SDK sessions unless asked to
        # ("No such tool available: TodoWrite. TodoWrite is disabled for this
        # session"); claude-agent-acp shows it as a plan.
        "CLAUDE_CODE_ENABLE_TODO_TOOLS": "1",
    }


OPENCODE_MODELS: Final = ("scripted-model", "scripted-other")


def _opencode_setup(workspace: Workspace, server: ScriptServer) -> dict[str, str]:
    config = {
        "$schema": "https://opencode.ai/config.json",
        "provider": {
            "scripted": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Scripted",
                "options": {"baseURL": f"{server.url}/v1", "apiKey": "dummy"},
                "models": {name: {"name": name} for name in OPENCODE_MODELS},
            }
        },
        "model": f"scripted/{OPENCODE_MODELS[0]}",
        "permission": {"edit": "ask", "bash": "ask"},
        "autoupdate": False,
        "share": "disabled",
    }
    (workspace.project / "opencode.json").write_text(json.dumps(config, indent=2))
    return {
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    }


CODEX_MODEL: Final = "gpt-5.1-codex"


def _codex_setup(workspace: Workspace, server: ScriptServer) -> dict[str, str]:
    config = workspace.home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'model = "{CODEX_MODEL}"\n'
        'model_provider = "scripted"\n'
        # Ask before every command and edit; no sandbox (bubblewrap is not here).
        'approval_policy = "untrusted"\n'
        'sandbox_mode = "danger-full-access"\n'
        "[model_providers.scripted]\n"
        'name = "Scripted"\n'
        f'base_url = "{server.url}/v1"\n'
        'env_key = "OPENAI_API_KEY"\n'
        'wire_api = "responses"\n'
        "request_max_retries = 0\n"
        "stream_max_retries = 0\n"
    )
    return {"OPENAI_API_KEY": "dummy"}


def _gemini_setup(workspace: Workspace, server: ScriptServer) -> dict[str, str]:
    settings = workspace.home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(
        json.dumps(
            {
                "security": {"auth": {"selectedType": "gemini-api-key"}},
                "general": {"disableAutoUpdate": True},
                "privacy": {"usageStatisticsEnabled": False},
                "telemetry": {"enabled": False},
            }
        )
    )
    # Modes other than the default need a trusted folder.
    trusted = {str(workspace.project): "TRUST_FOLDER"}
    (settings.parent / "trustedFolders.json").write_text(json.dumps(trusted))
    return {"GEMINI_API_KEY": "dummy", "GOOGLE_GEMINI_BASE_URL": server.url}


GEMINI_ROUTE: Final = {"complexity_reasoning": "scripted", "complexity_score": 10}


def _claude(key: str, protocol: int) -> RealAgent:
    return RealAgent(
        key=key,
        binary="claude-agent-acp",
        args=(),
        protocol=protocol,
        server=ModelServer,
        toolkit=_claude_toolkit(),
        setup=_claude_setup,
        package="@agentclientprotocol/claude-agent-acp",
        models=("haiku", "haiku"),
        extra_path=(NODE22_BIN,),
    )


AGENTS: Final = {
    agent.key: agent
    for agent in (
        _claude("claude-v2", 2),
        _claude("claude-v1", 1),
        RealAgent(
            key="opencode-v1",
            binary="opencode",
            args=("acp",),
            protocol=1,
            server=ChatServer,
            toolkit=_opencode_toolkit(),
            setup=_opencode_setup,
            package="opencode-ai",
            models=(f"scripted/{OPENCODE_MODELS[1]}", OPENCODE_MODELS[1]),
            errors=(400,),
            mode_marker="Plan mode ACTIVE",
        ),
        RealAgent(
            key="codex-v1",
            binary="codex-acp",
            args=(),
            protocol=1,
            server=ResponsesServer,
            toolkit=_codex_toolkit(),
            setup=_codex_setup,
            package="@zed-industries/codex-acp",
            models=("gpt-5.5", "gpt-5.5"),
            extra_path=(NODE22_BIN,),
        ),
        RealAgent(
            key="gemini-v1",
            binary="gemini",
            args=("--acp",),
            protocol=1,
            server=GeminiServer,
            toolkit=_gemini_toolkit(),
            setup=_gemini_setup,
            package="@google/gemini-cli",
            errors=(400,),
            mode_marker="operating in **Auto-Edit** mode",
            # Its model router asks for a JSON classification before each turn.
            side=(Text(json.dumps(GEMINI_ROUTE)),),
            extra_path=(NODE22_BIN,),
        ),
    )
}


# --- tested_with.json ------------------------------------------------------------


def table_data() -> dict[str, Any]:
    """The table's data."""
    data: dict[str, Any] = json.loads(TESTED_WITH.read_text())
    return data


def expectation(key: str, flow: str) -> str:
    """`pass`, `xfail: ...` or `n/a: ...` for `flow` of agent `key`."""
    row = next(r for r in table_data()["agents"] if r["key"] == key)
    return str(row["flows"][flow])


def thought_letters(thought: str) -> str:
    """A thought's text without whitespace and without the subject heading
    gemini-cli puts before each thought part (`**Subject**\n`, empty here; it also
    trims each part): what is left is the model's."""
    return "".join(re.sub(r"\*\*[^*\n]*\*\*\n", "", thought).split())


def shown_output(document: dict[str, Any], call: dict[str, Any]) -> str:
    """What the client shows of a tool call's output (in a print document): its
    terminals' text, and its text content."""
    terminals = {t["terminalId"]: t for t in document["terminals"]}
    parts = []
    for item in call.get("content") or []:
        if item.get("type") == "terminal":
            parts.append(str(terminals[item["terminalId"]]["text"]))
        elif item.get("type") == "content":
            parts.append(str(item["content"].get("text", "")))
    return "\n".join(parts)


def lines_at_column_0(text: str) -> list[str]:
    """The output's lines; each must start at column 0 (no staircase)."""
    lines = text.splitlines()
    for line in lines:
        assert line == line.lstrip(), f"indented line {line!r} in {text!r}"
    return lines


def runs(key: str, flow: str) -> bool:
    """Whether the tests run `flow` for agent `key` (`pass` or `xfail`)."""
    return expectation(key, flow).split(":", 1)[0] in ("pass", "xfail")


def cases(flow: str) -> list[Any]:
    """The `pytest.param`s of `flow`: each agent that runs it, marked as expected."""
    params = []
    for row in table_data()["agents"]:
        expected = str(row["flows"][flow])
        if not runs(row["key"], flow):
            continue
        marks: list[pytest.MarkDecorator] = []
        if expected.startswith("xfail:"):
            reason = expected.removeprefix("xfail:").strip()
            marks.append(pytest.mark.xfail(strict=True, reason=reason))
        params.append(pytest.param(row["key"], marks=marks, id=row["key"]))
    return params


# --- Running acp-tui. ------------------------------------------------------------


@contextlib.contextmanager
def environment(env: Mapping[str, str]) -> Iterator[None]:
    """`env` set in os.environ for the block (the in-process CLI spawns from it)."""
    with pytest.MonkeyPatch.context() as patch:
        for key, value in env.items():
            patch.setenv(key, value)
        yield


@dataclass
class PrintRun:
    """One `acp-tui print --format json` run."""

    code: int
    document: dict[str, Any]
    err: str


def print_json(
    agent: RealAgent,
    workspace: Workspace,
    env: Mapping[str, str],
    prompt: str,
    *options: str,
    command: str | None = None,
) -> PrintRun:
    """`acp-tui print --format json` in-process, with `env` and the agent's protocol
    (`command`: the agent's command line, by default its installed program)."""
    out = io.StringIO()
    err = io.StringIO()
    argv = [
        "print",
        "--format",
        "json",
        "--protocol",
        str(agent.protocol),
        "--agent",
        command or " ".join(agent.argv()),
        "--cwd",
        str(workspace.project),
        "--init-timeout",
        "120",
        *options,
        prompt,
    ]
    with (
        environment(env),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        code = main(argv)
    text = out.getvalue()
    document: dict[str, Any] = json.loads(text) if text.strip() else {}
    return PrintRun(code, document, err.getvalue())


KINDS: Final = ("pass", "xfail", "agent", "n/a")
"""A flow's result for an agent, as `tested_with.json` writes it (before a colon)."""


def table(data: dict[str, Any] | None = None) -> str:
    """The README's "Tested with" table, rendered from `tested_with.json`."""
    data = table_data() if data is None else data
    flows: dict[str, str] = data["flows"]
    lines = [
        "| Agent | Version | ACP | Passes | Fails: acp-tui bug | Fails: agent bug "
        "| Not offered |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in data["agents"]:
        by: dict[str, list[str]] = {kind: [] for kind in KINDS}
        for flow in flows:
            by[str(row["flows"][flow]).split(":", 1)[0]].append(flow)
        cells = [", ".join(by[kind]) or "–" for kind in KINDS]
        lines.append(
            f"| {row['agent']} | {row['version']} | v{row['protocol']} | "
            + " | ".join(cells)
            + " |"
        )
    lines.append("")
    lines.extend(f"- `{flow}`: {text}" for flow, text in flows.items())
    return "\n".join(lines) + "\n"
