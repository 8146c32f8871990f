"""Connect to an agent, open a session, and report what it offers.

`acp-tui --probe`: it uses exactly the connection path of the app and every other
front end (`client.runner.ClientRunner`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import anyio

from acp_tui import __version__
from acp_tui.client.connection import INITIALIZE_TIMEOUT, AgentIdentity, Connection
from acp_tui.client.errors import AgentError
from acp_tui.client.launch import AGENT_FAILURES, AgentLauncher
from acp_tui.client.ports import PermissionPolicy
from acp_tui.client.runner import AgentSettings, ClientRunner, SilentPort
from acp_tui.client.session import AcpClient, UnsupportedOperation
from acp_tui.frontends.print_turn import EXIT_AGENT, EXIT_OK, write_stderr_tail
from acp_tui.protocol.dispatcher import Diagnostic
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.transport import (
    AgentCommand,
    ConnectionClosed,
)
from acp_tui.protocol.version import ProtocolChoice
from acp_tui.safe_text import printable
from acp_tui.store.values import JSONObject

__all__ = ["ProbeReport", "probe", "probe_command", "run_probe"]

SESSION_NEW_TIMEOUT = 60.0
"""Seconds allowed for `session/new` (agents may load models or MCP servers)."""


@dataclass(slots=True)
class ProbeReport:
    """What one connection to an agent showed."""

    protocol_version: int
    agent: AgentIdentity
    fallbacks: list[str]
    session_id: str | None = None
    session_error: str | None = None
    auth_methods: list[str] = field(default_factory=list)
    config_options: list[str] = field(default_factory=list)
    """`name = current value` for each config option of the new session."""
    diagnostics: list[str] = field(default_factory=list)


@contextmanager
def _agent_errors(launcher: AgentLauncher) -> Iterator[None]:
    """Turn connection failures into `AgentError` with the exit status and tail."""
    try:
        yield
    except AGENT_FAILURES as error:
        failure = launcher.explain(error)
        raise AgentError(failure.message, stderr_tail=failure.stderr_tail) from None


async def probe(
    command: AgentCommand,
    *,
    name: str,
    choice: ProtocolChoice = "auto",
    init_timeout: float = INITIALIZE_TIMEOUT,
    cwd: Path,
) -> ProbeReport:
    """Negotiate, create a session in `cwd` (absolute), and describe the agent.

    Raises:
        AgentError: The agent could not be started or initialized; the message says
            why and carries the agent's stderr tail.
    """
    port = _ProbePort()
    runner = ClientRunner(
        AgentSettings(command, name, cwd, choice=choice, init_timeout=init_timeout),
        port,
        prompter=PermissionPolicy("reject"),
        roots=(),
    )
    with _agent_errors(runner.launcher):
        async with runner.connect() as client:
            connection = client.connection
            report = ProbeReport(
                protocol_version=connection.protocol_version,
                agent=connection.agent,
                fallbacks=list(connection.fallbacks),
                auth_methods=_auth_methods(connection),
            )
            await _new_session(client, cwd, report)
    report.diagnostics = [str(d) for d in port.diagnostics]
    return report


class _ProbePort(SilentPort):
    """Keeps the protocol problems for the report."""

    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []

    def diagnostic(self, diagnostic: Diagnostic) -> None:
        """Kept for the report."""
        self.diagnostics.append(diagnostic)


def _auth_methods(connection: Connection) -> list[str]:
    result = connection.initialize_result
    names: list[str] = []
    for method in result.auth_methods or []:
        names.append(str(getattr(method, "name", None) or "?"))
    return names


async def _new_session(client: AcpClient, cwd: Path, report: ProbeReport) -> None:
    try:
        with anyio.fail_after(SESSION_NEW_TIMEOUT):
            store = await client.new_session(cwd)
    except (RpcError, TimeoutError, ConnectionClosed, UnsupportedOperation) as error:
        report.session_error = str(error) or type(error).__name__
        return
    report.session_id = store.session_id
    report.config_options = [_describe_option(o) for o in store.config_options]


def _describe_option(option: JSONObject) -> str:
    name = option.get("name") or "?"
    current = option.get("currentValue")
    return f"{name} = {current}" if current is not None else str(name)


async def run_probe(**kwargs: Any) -> ProbeReport:
    """`probe()` with an overall bound, for the command line."""
    bound = kwargs.get("init_timeout", INITIALIZE_TIMEOUT) * 2 + SESSION_NEW_TIMEOUT
    with anyio.fail_after(bound):
        return await probe(**kwargs)


def probe_command(
    name: str,
    command: AgentCommand,
    *,
    choice: ProtocolChoice,
    init_timeout: float,
    cwd: Path,
    log_file: Path,
    out: TextIO,
    err: TextIO,
) -> int:
    """`acp-tui --probe`: probe the agent and print the report; the exit status."""
    print(
        printable(f"acp-tui {__version__}: starting {name} ({command.display()}) …"),
        file=err,
    )
    try:
        report = anyio.run(
            lambda: run_probe(
                command=command,
                name=name,
                choice=choice,
                init_timeout=init_timeout,
                cwd=cwd,
            )
        )
    except AgentError as error:
        print(printable(f"acp-tui: {error}"), file=err)
        write_stderr_tail(error.stderr_tail, err)
        print(f"(log: {log_file})", file=err)
        return EXIT_AGENT
    except TimeoutError:
        print("acp-tui: the agent did not finish starting in time", file=err)
        return EXIT_AGENT
    _print_report(report, out)
    return EXIT_OK


def _print_report(report: ProbeReport, out: TextIO) -> None:
    agent = report.agent
    lines = [f"agent:    {agent.display_name} {agent.version or ''}".rstrip()]
    lines.append(f"protocol: ACP v{report.protocol_version}")
    lines.extend(f"          (fell back: {reason})" for reason in report.fallbacks)
    if report.auth_methods:
        lines.append(f"auth:     {', '.join(report.auth_methods)}")
    if report.session_id:
        lines.append(f"session:  {report.session_id}")
    else:
        lines.append(f"session:  not created ({report.session_error})")
    lines.extend(f"option:   {option}" for option in report.config_options)
    lines.extend(f"warning:  {diagnostic}" for diagnostic in report.diagnostics)
    for line in lines:
        print(printable(line), file=out)
    print(
        "(a probe: run acp-tui without --probe for the full-screen app, or "
        "`acp-tui check` for a conformance table)",
        file=out,
    )
