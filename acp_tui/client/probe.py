"""Connect to an agent, open a session, and report what it offers.

This is what `acp-tui --agent …` does until the full-screen UI lands, and the seed
of `acp-tui check`. It uses exactly the connection path the UI will use.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from acp_tui.client.connection import (
    INITIALIZE_TIMEOUT,
    AgentIdentity,
    Connection,
    connect,
)
from acp_tui.client.errors import AgentError, AgentExited
from acp_tui.protocol.dispatcher import Diagnostic, RequestTimeout
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.schema import v1, v2
from acp_tui.protocol.transport import (
    AgentCommand,
    AgentStartError,
    ConnectionClosed,
    StdioTransport,
)
from acp_tui.protocol.version import ProtocolChoice, UnsupportedProtocolVersion

__all__ = ["ProbeReport", "probe"]

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
def _agent_errors(transport: list[StdioTransport]) -> Iterator[None]:
    """Attach the agent's exit status and stderr tail to connection failures."""
    try:
        yield
    except AgentStartError as error:
        raise AgentError(str(error)) from None
    except (AgentError, UnsupportedProtocolVersion) as error:
        current = transport[-1] if transport else None
        message = str(error)
        tail: tuple[str, ...] = ()
        if current is not None:
            if isinstance(error, AgentExited):  # it stopped by itself: say how
                message += f"; the agent {current.exit_description()}"
            tail = tuple(current.stderr_tail()[-20:])
        raise AgentError(message, stderr_tail=tail) from None


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
    transports: list[StdioTransport] = []
    diagnostics: list[Diagnostic] = []

    def open_stream() -> StdioTransport:
        transport = StdioTransport(command, name=name)
        transports.append(transport)
        return transport

    with _agent_errors(transports):
        async with connect(
            open_stream,
            choice=choice,
            init_timeout=init_timeout,
            on_diagnostic=diagnostics.append,
        ) as connection:
            report = ProbeReport(
                protocol_version=connection.protocol_version,
                agent=connection.agent,
                fallbacks=list(connection.fallbacks),
                auth_methods=_auth_methods(connection),
            )
            await _new_session(connection, cwd, report)
    report.diagnostics = [str(d) for d in diagnostics]
    return report


def _auth_methods(connection: Connection) -> list[str]:
    result = connection.initialize_result
    names: list[str] = []
    for method in result.auth_methods or []:
        names.append(str(getattr(method, "name", None) or "?"))
    return names


async def _new_session(connection: Connection, cwd: Path, report: ProbeReport) -> None:
    params: v1.NewSessionRequest | v2.NewSessionRequest
    if connection.protocol_version == 1:
        params = v1.NewSessionRequest(cwd=str(cwd), mcp_servers=[])
    else:
        params = v2.NewSessionRequest(cwd=str(cwd))
    try:
        raw = await connection.dispatcher.request(
            "session/new", params, timeout=SESSION_NEW_TIMEOUT
        )
    except (RpcError, RequestTimeout, ConnectionClosed) as error:
        report.session_error = str(error)
        return
    result: v1.NewSessionResponse | v2.NewSessionResponse
    if connection.protocol_version == 1:
        result = v1.NewSessionResponse.model_validate(raw)
    else:
        result = v2.NewSessionResponse.model_validate(raw)
    report.session_id = result.session_id
    report.config_options = [_describe_option(o) for o in result.config_options or []]


def _describe_option(option: Any) -> str:
    name = getattr(option, "name", None) or "?"
    current = getattr(option, "current_value", None)
    return f"{name} = {current}" if current is not None else str(name)


async def run_probe(**kwargs: Any) -> ProbeReport:
    """`probe()` with an overall bound, for the command line."""
    bound = kwargs.get("init_timeout", INITIALIZE_TIMEOUT) * 2 + SESSION_NEW_TIMEOUT
    with anyio.fail_after(bound):
        return await probe(**kwargs)
