"""The `acp-tui` command line.

Imports stay light at module level so `acp-tui --version` is instant; the
connection machinery is imported when it is needed.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from acp_tui import __version__

__all__ = ["build_parser", "main"]

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_AGENT = 3


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (also used by tests)."""
    parser = argparse.ArgumentParser(
        prog="acp-tui",
        description="A terminal UI for coding agents over the Agent Client Protocol.",
    )
    parser.add_argument("--version", action="version", version=f"acp-tui {__version__}")
    parser.add_argument(
        "--agent",
        metavar="CMD",
        help='the agent to start, as a command line, e.g. "opencode acp"',
    )
    parser.add_argument(
        "--protocol",
        choices=("auto", "1", "2"),
        default=None,
        help="ACP version: auto offers 2 and falls back to 1 "
        "(default: the config file's `protocol`, else auto)",
    )
    parser.add_argument(
        "--cwd",
        type=Path,
        default=Path.cwd(),
        help="the session's working directory (default: the current one)",
    )
    parser.add_argument(
        "--init-timeout",
        type=float,
        default=None,
        metavar="S",
        help="seconds to wait for the agent to answer initialize "
        "(default: the config file's `init_timeout`, else 60)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    from acp_tui.config import ConfigError, load_settings

    try:
        settings = load_settings()
    except ConfigError as error:
        print(f"acp-tui: {error}", file=sys.stderr)
        return EXIT_USAGE
    if args.protocol is None:
        args.protocol = settings.protocol
    if args.init_timeout is None:
        args.init_timeout = settings.init_timeout
    if args.init_timeout <= 0:
        parser.error("--init-timeout must be positive")
    if not args.agent:
        print(
            "acp-tui: no agent given. Start one with --agent, e.g.\n"
            '  acp-tui --agent "opencode acp"\n'
            "(the built-in demo agent and the full-screen UI are not built yet)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        argv_list = shlex.split(args.agent)
    except ValueError as error:
        print(f"acp-tui: cannot parse --agent: {error}", file=sys.stderr)
        return EXIT_USAGE
    if not argv_list:
        print("acp-tui: --agent is empty", file=sys.stderr)
        return EXIT_USAGE
    if not args.cwd.is_dir():
        print(f"acp-tui: --cwd {args.cwd} is not a directory", file=sys.stderr)
        return EXIT_USAGE
    return _probe(argv_list, args)


def _probe(argv_list: list[str], args: argparse.Namespace) -> int:
    import anyio

    from acp_tui.client.errors import AgentError
    from acp_tui.client.probe import run_probe
    from acp_tui.protocol.framing import printable as safe
    from acp_tui.protocol.transport import AgentCommand

    log_file = _setup_logging()
    command = AgentCommand(argv=tuple(argv_list), cwd=args.cwd)
    name = Path(argv_list[0]).name
    print(f"acp-tui {__version__}: starting {command.display()} …", file=sys.stderr)
    try:
        report = anyio.run(
            lambda: run_probe(
                command=command,
                name=name,
                choice=args.protocol,
                init_timeout=args.init_timeout,
                cwd=args.cwd.resolve(),
            )
        )
    except AgentError as error:
        print(safe(f"acp-tui: {error}"), file=sys.stderr)
        if error.stderr_tail:
            print("the agent's last stderr lines:", file=sys.stderr)
            for line in error.stderr_tail:
                print(safe(f"  | {line}"), file=sys.stderr)
        print(f"(log: {log_file})", file=sys.stderr)
        return EXIT_AGENT
    except TimeoutError:
        print("acp-tui: the agent did not finish starting in time", file=sys.stderr)
        return EXIT_AGENT
    agent = report.agent
    print(safe(f"agent:    {agent.display_name} {agent.version or ''}".rstrip()))
    print(f"protocol: ACP v{report.protocol_version}")
    for reason in report.fallbacks:
        print(safe(f"          (fell back: {reason})"))
    if report.auth_methods:
        print(safe(f"auth:     {', '.join(report.auth_methods)}"))
    if report.session_id:
        print(safe(f"session:  {report.session_id}"))
    else:
        print(safe(f"session:  not created ({report.session_error})"))
    for option in report.config_options:
        print(safe(f"option:   {option}"))
    for diagnostic in report.diagnostics:
        print(safe(f"warning:  {diagnostic}"))
    print("(the full-screen interface is not built yet)")
    return EXIT_OK


def _setup_logging() -> Path:
    """Send log records to a file, never to the terminal the UI owns."""
    import logging

    from acp_tui import paths

    directory = paths.log_dir()
    directory.mkdir(parents=True, exist_ok=True)
    log_file = directory / "acp-tui.log"
    logging.basicConfig(
        filename=log_file,
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    return log_file
