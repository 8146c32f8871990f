"""The `acp-tui` command line.

It only parses the arguments (and the config file's defaults) and dispatches:
the app (`acp_tui.ui`), or a front end of `acp_tui.frontends` (print, sessions,
check, the probe, export, replay), or `acp-tui serve`'s launcher
(`acp_tui.ui.serve`). Imports stay light at module level so `acp-tui --version`
is instant; a command's machinery is imported when it runs.

Commands:
  acp-tui [--agent A] ...   the full-screen app, connected to an agent
  acp-tui --probe           connect, open a session, print what the agent offers
  acp-tui print PROMPT      run one prompt turn without a screen (text or JSON)
  acp-tui sessions          list the agent's sessions (session/list, every page)
  acp-tui agents            list the agent catalogue with installed / not found
  acp-tui check             a conformance probe: a pass/fail table per check
  acp-tui replay FILE       play a `--record` recording into the UI, no agent
  acp-tui export SESSION    write a saved session as Markdown or JSON
  acp-tui serve             serve the app in a web browser (the `serve` extra)
  acp-tui bridge -- CMD...  serve a stdio agent over WebSocket / Streamable HTTP
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from acp_tui import __version__
from acp_tui.sigint import release_sigint, sigint_held
from acp_tui.ui.serve_defaults import DEFAULT_HOST, DEFAULT_PORT

if TYPE_CHECKING:
    from acp_tui.config import McpServerSettings, Settings
    from acp_tui.frontends.print_turn import PrintOptions
    from acp_tui.protocol.transport import AgentCommand

__all__ = ["build_parser", "main"]

_Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""The subcommands' parsers (`add_subparsers`), which each `_*_parser` adds to."""

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_AGENT = 3
EXIT_INTERRUPTED = 130
"""ctrl+c (SIGINT), as a shell reports a process it interrupted."""


def _connection_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--agent",
        metavar="AGENT",
        help="a catalogue name (see `acp-tui agents`) or a command line, "
        'e.g. claude-code or "opencode acp"',
    )
    parser.add_argument(
        "--protocol",
        choices=("auto", "1", "2"),
        default=None,
        help="ACP version: auto offers 2 and falls back to 1 "
        "(default: the config file's `protocol`, else auto)",
    )
    _directory_options(parser)
    parser.add_argument(
        "--cacert",
        type=Path,
        default=None,
        metavar="PATH",
        help="a remote agent (--agent wss://… or https://…): trust this CA "
        "certificate (PEM) for its TLS, e.g. a private CA",
    )
    parser.add_argument(
        "--insecure",
        action="store_true",
        default=None,
        help="a remote agent: allow plain ws:// or http:// to a host other than "
        "this machine (unencrypted; TLS is still verified for wss:// and https://)",
    )
    parser.add_argument(
        "--init-timeout",
        type=float,
        default=None,
        metavar="S",
        help="seconds to wait for the agent to answer initialize "
        "(default: the config file's `init_timeout`, else 60)",
    )


def _directory_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cwd",
        type=Path,
        default=None,
        help="the project: the session's working directory, where the agent may "
        "read, write and run commands (default: the current directory)",
    )
    parser.add_argument(
        "--add-dir",
        action="append",
        default=None,
        metavar="DIR",
        help="another directory the agent may use (repeatable; added to the config "
        "file's `additional_directories`)",
    )


def _record_option(
    parser: argparse.ArgumentParser,
    help: str = "record all traffic with the agent, with timestamps, to FILE "
    "(JSONL; play it with `acp-tui replay FILE`)",
) -> None:
    parser.add_argument("--record", type=Path, default=None, metavar="FILE", help=help)


def _format_option(parser: argparse.ArgumentParser, help: str) -> None:
    """`--format text|json` (default: text); `help` says what each one writes."""
    parser.add_argument("--format", choices=("text", "json"), default="text", help=help)


def _session_options(
    parser: argparse.ArgumentParser, sessions_help: str, session_help: str
) -> None:
    """`--sessions` (start with the session picker) or `--session ID` (resume)."""
    picking = parser.add_mutually_exclusive_group()
    picking.add_argument("--sessions", action="store_true", help=sessions_help)
    picking.add_argument("--session", metavar="ID", help=session_help)


def _keep_values_given_before(
    command: argparse.ArgumentParser, parser: argparse.ArgumentParser
) -> None:
    """Let a command's options not given keep what was given before the command.

    `acp-tui --agent X print P` must run X: argparse fills a subcommand's
    defaults into the same namespace after the main parser's values, so the
    command's own `--agent` default (None) silently replaced X (the built-in
    demo ran instead, in the current directory). An option the command shares
    with the main parser, with the same default, is left out of the namespace
    when not given, so the value given before the command stands.
    """
    shared = {action.dest: action.default for action in parser._actions}
    for action in command._actions:
        given_before = action.dest in shared and action.dest != "help"
        if given_before and action.default == shared[action.dest]:
            action.default = argparse.SUPPRESS


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (also used by tests)."""
    parser = argparse.ArgumentParser(
        prog="acp-tui",
        description="A terminal UI for coding agents over the Agent Client Protocol.",
    )
    parser.add_argument("--version", action="version", version=f"acp-tui {__version__}")
    parser.add_argument(
        "--probe",
        action="store_true",
        help="connect, open a session, print what the agent offers, and exit "
        "(no full-screen interface)",
    )
    _connection_options(parser)
    _record_option(parser)
    _session_options(
        parser,
        sessions_help="start with the session picker (the agent's sessions, to "
        "resume one)",
        session_help="resume the agent's session ID (its history is replayed)",
    )
    parser.add_argument(
        "--theme",
        metavar="NAME",
        help="the colour theme (built-in acp-dark, acp-light, Textual's themes, "
        "or a TOML theme from the config dir's themes/)",
    )
    commands = parser.add_subparsers(
        dest="command",
        metavar="COMMAND",
        help="what to run instead of the full-screen app (each has its own --help)",
    )
    printer = commands.add_parser(
        "print",
        help="run one prompt turn without a screen",
        description="Start the agent, open a session, send PROMPT, and print the "
        "turn: a streamed transcript (text) or one JSON document of the final state. "
        "Exit codes: 0 end_turn, 2 usage, 3 agent or protocol failure, "
        "4 cancelled / refusal / max_* / timed out.",
    )
    _connection_options(printer)
    _format_option(
        printer,
        help="text: a streamed, readable transcript; json: one document of the "
        "final state (default: text)",
    )
    printer.add_argument(
        "--raw-chunks",
        action="store_true",
        help="json: keep each message's text chunks as the agent streamed them "
        "(default: adjacent text chunks joined into one block)",
    )
    printer.add_argument(
        "--permissions",
        choices=("allow", "reject"),
        default="reject",
        help="how to answer the agent's permission requests (default: reject)",
    )
    printer.add_argument(
        "--elicitation",
        choices=("decline", "cancel"),
        default="decline",
        help="how to answer the agent's questions (elicitations: a form, or a URL "
        "to open) that --answers does not (default: decline)",
    )
    printer.add_argument(
        "--answers",
        type=Path,
        metavar="FILE",
        help="answer forms from FILE: a JSON object of field values, or a list of "
        "them (the first that gives every required field is sent)",
    )
    printer.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="S",
        help="after S seconds, send session/cancel and wait for the turn to end",
    )
    _record_option(printer)
    printer.add_argument(
        "--session",
        metavar="ID",
        help="continue the agent's session ID instead of starting one (resumed in "
        "--cwd, whatever directory the agent lists for it)",
    )
    printer.add_argument(
        "prompt",
        metavar="PROMPT",
        help="the prompt to send (quote it; a slash command such as /help too)",
    )
    sessions = commands.add_parser(
        "sessions",
        help="list the agent's sessions",
        description="List the agent's sessions (session/list, following every page).",
    )
    _connection_options(sessions)
    _format_option(
        sessions,
        help="text: one line per session; json: the list as JSON (default: text)",
    )
    sessions.add_argument(
        "--archived",
        choices=("exclude", "include", "only"),
        default=None,
        help="archived sessions: leave them out (the agent's default), include "
        "them, or list only them (agents that archive sessions)",
    )
    sessions.add_argument(
        "--rename",
        nargs=2,
        metavar=("ID", "TITLE"),
        default=None,
        help="first set session ID's title (session/set_title, where offered)",
    )
    checker = commands.add_parser(
        "check",
        help="check an agent's conformance to ACP (a pass/fail table)",
        description="Start the agent once per protocol version and exercise "
        "initialize, session/new, a prompt turn, cancellation, session/list, "
        "resume or load with replay, close and delete, validating every message "
        "the agent sends against the schema. Exit codes: 0 nothing failed, "
        "1 a check failed, 2 usage, 3 the agent could not be started.",
    )
    checker.add_argument(
        "--agent",
        metavar="AGENT",
        help="a catalogue name or a command line (default: the configured agent, "
        "else the built-in demo agent)",
    )
    checker.add_argument(
        "--protocol",
        choices=("auto", "1", "2"),
        default="auto",
        help="the versions to check: auto checks v2 and v1 (default: auto)",
    )
    checker.add_argument(
        "--timeout",
        type=_positive_seconds,
        default=30.0,
        metavar="S",
        help="seconds each step may take (default: 30)",
    )
    _format_option(
        checker,
        help="text: a pass/fail table; json: the results as JSON (default: text)",
    )
    commands.add_parser(
        "agents",
        help="list the agent catalogue and which agents are installed",
        description="List the built-in and configured agents: installed (on PATH), "
        "via npx, or not found (with how to install).",
    )
    _export_parser(commands)
    _replay_parser(commands)
    _serve_parser(commands)
    _bridge_parser(commands)
    for command in commands.choices.values():
        _keep_values_given_before(command, parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        return _main(argv)
    except BrokenPipeError:  # e.g. `acp-tui print … | head`: stop quietly
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:  # ctrl+c outside a turn (in `print`'s, it cancels)
        print("acp-tui: interrupted", file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED


def _main(argv: Sequence[str] | None) -> int:
    from acp_tui.frontends.print_gc import start_without_collections

    with start_without_collections():  # `print`'s start-up (`print_gc`)
        parser = build_parser()
        args = parser.parse_args(argv)
        if args.command == "print":
            from acp_tui.frontends.print_compiled import compiled_code_reused

            # (start-up compiles no text it compiled before: `print_compiled`)
            with sigint_held(), compiled_code_reused():
                return _dispatch(parser, args)
    return _dispatch(parser, args)


def _dispatch(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    settings = _load_config()
    if settings is None:
        return EXIT_USAGE
    if args.command == "agents":
        return _agents()
    if args.command == "export":
        return _export(args)
    if args.command == "bridge":
        return _bridge(args)

    from acp_tui.config import config_file, resolve_directories
    from acp_tui.safe_text import printable as safe

    if args.protocol is None:
        args.protocol = settings.protocol
    if args.init_timeout is None:
        args.init_timeout = settings.init_timeout
    if args.init_timeout <= 0:
        parser.error("--init-timeout must be positive")
    cwd_given = args.cwd is not None
    if args.cwd is None:
        args.cwd = Path.cwd()
    if not args.cwd.is_dir():
        print(f"acp-tui: --cwd {args.cwd} is not a directory", file=sys.stderr)
        return EXIT_USAGE
    try:
        added = resolve_directories(args.add_dir or (), Path.cwd())
    except ValueError as error:
        print(safe(f"acp-tui: --add-dir {error}"), file=sys.stderr)
        return EXIT_USAGE
    project = args.cwd.resolve()
    args.allow_git_writes = settings.allow_git_writes
    args.attention = settings.attention
    args.review = settings.review.enabled
    args.additional_directories = tuple(
        d
        for d in dict.fromkeys(settings.additional_directories + added)
        if d != project
    )
    if args.command == "print" and args.timeout is not None and args.timeout <= 0:
        parser.error("--timeout must be positive")
    if args.command in (None, "replay", "serve") and not args.probe:
        theme = getattr(args, "theme", None) or settings.theme
        problem = _theme_problem(theme)
        if problem is not None:
            from_config = not getattr(args, "theme", None)
            where = f"{config_file()}: theme" if from_config else "--theme"
            print(safe(f"acp-tui: {where}: {problem}"), file=sys.stderr)
            return EXIT_USAGE
    if args.command == "replay":
        return _replay(args, settings.mcp_servers, settings.theme)
    if not args.agent:
        args.agent = settings.agent
    if not args.agent:
        from acp_tui.client.agents import DEMO_AGENT

        args.agent = DEMO_AGENT
        if args.command is not None or args.probe:  # the app shows it on screen
            print(
                "acp-tui: running the built-in demo agent; choose a real one with "
                "--agent claude-code (see `acp-tui agents`)",
                file=sys.stderr,
            )
    resolved = _resolve(args.agent)
    if resolved is None:
        return EXIT_USAGE
    name, command = resolved
    if command.remote is not None:
        remote = _remote_command(command, args)
        if remote is None:
            return EXIT_USAGE
        command = remote
        resolved = name, command
    if not cwd_given and _is_builtin_demo(name, command):
        args.cwd = _demo_project() or args.cwd
    if command.cwd is None:  # a user agent may pin its own working directory
        resolved = name, dataclasses.replace(command, cwd=args.cwd)
    if args.command == "serve":
        return _serve(args)
    if args.command in ("print", "sessions"):
        return _headless(args, *resolved, settings.mcp_servers)
    if args.command == "check":
        return _check(*resolved, args)
    if args.probe:
        return _probe(*resolved, args)
    return _tui(*resolved, args, settings.mcp_servers, settings.theme)


def _load_config() -> Settings | None:
    """The config file's settings; None after reporting every problem in it.

    Every command checks the whole file, its settings and its `[agents.NAME]`
    tables, so a typo reads the same whichever command meets it.
    """
    from acp_tui.client.agents import AgentCatalogueError, load_catalogue
    from acp_tui.config import ConfigError, load_settings
    from acp_tui.safe_text import printable

    problems: list[str] = []
    settings: Settings | None = None
    unreadable = False
    try:
        settings = load_settings()
    except ConfigError as error:
        problems.append(str(error))
        unreadable = error.unreadable  # then the agents cannot be read either
    if not unreadable:
        try:
            load_catalogue()
        except AgentCatalogueError as error:
            problems.append(str(error))
    for problem in problems:
        print(printable(f"acp-tui: {problem}"), file=sys.stderr)
    return None if problems else settings


def _screen_problem() -> str | None:
    """Why the full-screen app cannot run here (None: it can).

    It needs a terminal on stdin and stdout; `acp-tui serve` runs it with
    Textual's web driver (named in `TEXTUAL_DRIVER`) instead, over pipes.
    """
    import os

    if os.environ.get("TEXTUAL_DRIVER"):
        return None
    streams = [
        name
        for name, stream in (("stdout", sys.stdout), ("stdin", sys.stdin))
        if stream is None or not stream.isatty()
    ]
    if not streams:
        return None
    return (
        f"the full-screen app needs a terminal, and {' and '.join(streams)} "
        f"{'is' if len(streams) == 1 else 'are'} not one. Without a screen, run one "
        'turn with `acp-tui print "PROMPT"` (add --format json for a JSON '
        "document); `acp-tui serve` shows the app in a web browser"
    )


def _theme_problem(theme: str | None) -> str | None:
    """What is wrong with the theme chosen (None: none chosen, or a known one)."""
    if not theme:
        return None
    from acp_tui.ui.themes import unknown_theme_message

    return unknown_theme_message(theme)


def _tui(
    name: str,
    command: AgentCommand,
    args: argparse.Namespace,
    mcp_servers: dict[str, McpServerSettings],
    theme: str | None,
    *,
    banner: str | None = None,
) -> int:
    problem = _screen_problem()
    if problem is not None:
        print(f"acp-tui: {problem}", file=sys.stderr)
        return EXIT_USAGE

    from acp_tui.ui.agent_runner import SessionRequest
    from acp_tui.ui.app import make_app

    _setup_logging()
    request = SessionRequest()
    if args.sessions:
        request = SessionRequest("pick")
    elif args.session:
        request = SessionRequest("resume", args.session, pick_if_missing=True)
    make_app(
        command,
        name,
        cwd=args.cwd.resolve(),
        choice=args.protocol,
        init_timeout=args.init_timeout,
        request=request,
        mcp_servers=mcp_servers,
        theme=args.theme or theme,
        tune_gc=True,
        record=args.record,
        additional_directories=args.additional_directories,
        allow_git_writes=args.allow_git_writes,
        banner=banner,
        attention=args.attention,
        review=args.review,
    ).run()
    return EXIT_OK


def _agents() -> int:
    from acp_tui.client.agents import (
        AgentCatalogueError,
        describe_catalogue,
        format_catalogue,
        load_catalogue,
    )

    try:
        catalogue = load_catalogue()
    except AgentCatalogueError as error:
        print(f"acp-tui: {error}", file=sys.stderr)
        return EXIT_USAGE
    for line in format_catalogue(describe_catalogue(catalogue)):
        print(line)
    return EXIT_OK


def _is_builtin_demo(name: str, command: AgentCommand) -> bool:
    """Whether the agent is the bundled demo (not a user's agent named `demo`)."""
    from acp_tui.client.agents import DEMO_AGENT

    return name == DEMO_AGENT and command.argv[1:] == ("-m", "acp_tui.demo")


def _demo_project() -> Path | None:
    """The demo's scratch project (created, private), where its sessions open.

    The demo agent works in its own scratch workspace, never in the user's files;
    opened there, its paths read as a project's (`notes.txt`, not the whole path
    under the data directory). None (after a warning) if it cannot be created.
    """
    from acp_tui.storage.paths import demo_project_dir
    from acp_tui.storage.private_files import make_private_dir

    directory = demo_project_dir()
    try:
        make_private_dir(directory)
    except OSError as error:
        print(f"acp-tui: cannot create {directory}: {error}", file=sys.stderr)
        return None
    return directory


def _resolve(value: str) -> tuple[str, AgentCommand] | None:
    """A `--agent` value as (name, command); None after printing a usage error."""
    from acp_tui.client.agents import (
        AgentCatalogueError,
        check_program,
        load_catalogue,
        resolve_agent,
    )

    try:
        catalogue = load_catalogue()
        resolved = resolve_agent(value, catalogue=catalogue)
        command = resolved.require()
        check_program(value, resolved, catalogue)
    except AgentCatalogueError as error:
        from acp_tui.safe_text import printable

        print(printable(f"acp-tui: {error}"), file=sys.stderr)
        return None
    return resolved.name, command


def _remote_command(
    command: AgentCommand, args: argparse.Namespace
) -> AgentCommand | None:
    """A remote agent's command with --cacert and --insecure; None if refused."""
    assert command.remote is not None
    target = dataclasses.replace(
        command.remote,
        cacert=getattr(args, "cacert", None) or command.remote.cacert,
        insecure=bool(getattr(args, "insecure", None)) or command.remote.insecure,
    )
    problem = target.problem()
    if problem is not None:
        from acp_tui.safe_text import printable

        print(printable(f"acp-tui: {problem}"), file=sys.stderr)
        return None
    return dataclasses.replace(command, remote=target)


def _headless(
    args: argparse.Namespace,
    name: str,
    command: AgentCommand,
    mcp_servers: dict[str, McpServerSettings],
) -> int:

    import anyio

    _setup_logging()
    if args.command == "print":
        from acp_tui.frontends.print_answers import read_answers
        from acp_tui.frontends.print_early import agent_started_early
        from acp_tui.frontends.print_gc import exit_without_collection, turn

        exit_without_collection()  # (`print_gc`)
        try:
            read_answers(getattr(args, "answers", None))
            answers_read = True
        except ValueError:  # (said by run_print: no agent started for it)
            answers_read = False

        async def print_turn() -> int:
            release_sigint()  # now the event loop takes ctrl+c (see sigint_held)
            # The agent boots while the client stack is imported (`print_early`).
            async with agent_started_early(
                command, name, start=answers_read
            ) as launcher:
                from acp_tui.frontends.print_turn import run_print

                options = _print_options(args, name, command, mcp_servers)
                with turn():  # (start-up ran without collections: `print_gc`)
                    return await run_print(
                        options, sys.stdout, sys.stderr, launcher=launcher
                    )

        result: int = anyio.run(print_turn)
        return result
    options = _print_options(args, name, command, mcp_servers)
    from acp_tui.frontends.sessions import list_sessions  # (not `print`'s)

    listing = functools.partial(
        list_sessions,
        archived=args.archived,
        rename=tuple(args.rename) if args.rename else None,
    )
    result = anyio.run(listing, options, sys.stdout, sys.stderr)
    return result


def _print_options(
    args: argparse.Namespace,
    name: str,
    command: AgentCommand,
    mcp_servers: dict[str, McpServerSettings],
) -> PrintOptions:
    """`print`'s and `sessions`' options (imports `print_turn`: the client stack)."""
    from acp_tui.frontends.print_turn import PrintOptions

    return PrintOptions(
        command=command,
        name=name,
        prompt=getattr(args, "prompt", ""),
        cwd=args.cwd.resolve(),
        choice=args.protocol,
        init_timeout=args.init_timeout,
        output_format=args.format,
        permissions=getattr(args, "permissions", "reject"),
        timeout=getattr(args, "timeout", None),
        mcp_servers=mcp_servers,
        record=getattr(args, "record", None),
        additional_directories=args.additional_directories,
        allow_git_writes=args.allow_git_writes,
        session=getattr(args, "session", None),
        raw_chunks=getattr(args, "raw_chunks", False),
        elicitation=getattr(args, "elicitation", "decline"),
        answers=getattr(args, "answers", None),
    )


def _probe(name: str, command: AgentCommand, args: argparse.Namespace) -> int:
    from acp_tui.frontends.probe import probe_command

    return probe_command(
        name,
        command,
        choice=args.protocol,
        init_timeout=args.init_timeout,
        cwd=args.cwd.resolve(),
        log_file=_setup_logging(),
        out=sys.stdout,
        err=sys.stderr,
    )


def _positive_seconds(text: str) -> float:
    """An argparse type: a positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError("must be positive")
    return value


def _check(name: str, command: AgentCommand, args: argparse.Namespace) -> int:
    from acp_tui.frontends.check import check_command

    return check_command(
        name,
        command,
        choice=args.protocol,
        timeout=args.timeout,
        output_format=args.format,
        log_file=_setup_logging(),
        out=sys.stdout,
        err=sys.stderr,
    )


def _export_parser(commands: _Commands) -> None:
    exporter = commands.add_parser(
        "export",
        help="write a saved session as Markdown or JSON",
        description="Find the saved transcript of SESSION (an id, or a unique "
        "prefix of one), rebuild it, and write it as Markdown or as the JSON "
        "document of `acp-tui print --format json`. Exit codes: 0 written, "
        "2 no such session, an ambiguous prefix, or an unwritable file.",
    )
    exporter.add_argument(
        "session",
        metavar="SESSION",
        help="the session's id, or a unique prefix of one",
    )
    exporter.add_argument(
        "--agent", metavar="NAME", help="only this agent's saved sessions"
    )
    exporter.add_argument(
        "--format",
        choices=("markdown", "json"),
        default="markdown",
        help="markdown: a readable transcript; json: the document of `acp-tui "
        "print --format json` (default: markdown)",
    )
    exporter.add_argument(
        "-o",
        "--output",
        type=Path,
        default=None,
        metavar="FILE",
        help="write to FILE (default: standard output)",
    )


def _export(args: argparse.Namespace) -> int:
    from acp_tui.frontends.export_transcript import export_session

    return export_session(
        args.session,
        agent=args.agent,
        output_format=args.format,
        output=args.output,
        out=sys.stdout,
        err=sys.stderr,
    )


def _replay_parser(commands: _Commands) -> None:
    replayer = commands.add_parser(
        "replay",
        help="play a recording (--record) into the UI, without an agent",
        description="Run the full-screen UI against a replay agent that plays "
        "FILE, a recording made with --record: the agent's messages come from "
        "the recording, paced by its timestamps. Each recorded request (such as a "
        "prompt) waits for the client to make it: type any prompt to play the "
        "next turn. Exit codes: 0 done, 2 FILE is not a recording.",
    )
    replayer.add_argument(
        "file",
        type=Path,
        metavar="FILE",
        help="a recording made with --record (JSONL)",
    )
    pace = replayer.add_mutually_exclusive_group()
    pace.add_argument(
        "--speed",
        type=_positive_seconds,
        default=1.0,
        metavar="N",
        help="play N times as fast as recorded (default: 1)",
    )
    pace.add_argument("--instant", action="store_true", help="play without any pauses")
    replayer.add_argument(
        "--connection",
        type=int,
        default=-1,
        metavar="K",
        help="which recorded connection to play, from 0 (default: the last)",
    )
    replayer.add_argument(
        "--client-effects",
        action="store_true",
        help="also replay the recorded v1 requests that make acp-tui write files "
        "or run commands on this machine (only for recordings you trust)",
    )
    _directory_options(replayer)
    replayer.set_defaults(agent=None, protocol=None, init_timeout=None)


def _replay(
    args: argparse.Namespace,
    mcp_servers: dict[str, McpServerSettings],
    theme: str | None,
) -> int:
    from acp_tui.frontends.replay import replay_agent

    command = replay_agent(
        args.file,
        speed=None if args.instant else args.speed,
        connection=args.connection,
        client_effects=args.client_effects,
        err=sys.stderr,
    )
    if command is None:
        return EXIT_USAGE
    from acp_tui.frontends.replay import replay_banner

    banner = replay_banner(args.file, args.connection)
    return _tui("replay", command, args, mcp_servers, theme, banner=banner)


def _serve_parser(commands: _Commands) -> None:
    server = commands.add_parser(
        "serve",
        help="serve the app in a web browser (needs the `serve` extra)",
        description="Serve the full-screen UI in a web browser through "
        "textual-serve (install the extra: `pip install 'acp-tui[serve]'`). Each "
        "browser that opens the page gets its own app and agent process, with the "
        "connection options given here. It prints the URL to open, with a token "
        "made for this run: every request needs that token (after the first page "
        "load, a cookie carries it) and must name the served address (Host) and, "
        "from a web page, come from the served origin; anything else gets 403 and "
        "starts nothing. Whoever has the URL gets an agent session on this "
        "machine: keep the default host unless you mean it. "
        "Exit codes: 0 stopped, 2 usage, the extra missing, a bad --public-url, or "
        "the port unusable.",
    )
    _connection_options(server)
    _record_option(
        server,
        help="record each app's traffic with its agent to FILE (JSONL); every "
        "browser connection starts a new app, which starts FILE anew",
    )
    _session_options(
        server,
        sessions_help="start each app with the session picker",
        session_help="resume the agent's session ID in each app",
    )
    server.add_argument("--theme", metavar="NAME", help="the colour theme")
    server.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=f"the address to listen on (default: {DEFAULT_HOST})",
    )
    server.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"the TCP port to listen on (default: {DEFAULT_PORT})",
    )
    server.add_argument(
        "--public-url",
        metavar="URL",
        default=None,
        help="the URL browsers use to reach the server, if not http://HOST:PORT "
        "(e.g. behind a proxy, or from other machines with --host 0.0.0.0); the "
        "only origin and, with the bound address, Host the server accepts",
    )


def _serve(args: argparse.Namespace) -> int:
    from acp_tui.ui.serve import ServedApp, serve, served_command

    if not 0 < args.port < 65536:
        print(f"acp-tui: --port {args.port} is not a TCP port", file=sys.stderr)
        return EXIT_USAGE
    app = ServedApp(
        agent=args.agent,
        protocol=args.protocol,
        cwd=args.cwd.resolve(),
        init_timeout=args.init_timeout,
        session=args.session,
        sessions=args.sessions,
        theme=args.theme,
        record=args.record,
        additional_directories=args.additional_directories,
    )
    return serve(
        served_command(app),
        host=args.host,
        port=args.port,
        public_url=args.public_url,
        title=f"acp-tui: {args.agent}",
    )


def _bridge_parser(commands: _Commands) -> None:
    bridge = commands.add_parser(
        "bridge",
        help="serve a stdio agent remotely (needs the `remote` extra)",
        description="Serve the agent command given after `--` at /acp over ACP's "
        "remote transport (WebSocket and Streamable HTTP). Each connection gets "
        "its own agent process. Every request needs the bearer token (printed at "
        "start unless given). Exit codes: 0 stopped, 2 usage (no command, a "
        "non-loopback address without --allow-remote, the port unusable, the "
        "extra missing).",
    )
    bridge.add_argument(
        "--listen",
        metavar="HOST:PORT",
        default="127.0.0.1:8765",
        help="where to listen (default: 127.0.0.1:8765; port 0: any free port)",
    )
    bridge.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --listen address other than loopback",
    )
    bridge.add_argument(
        "--token",
        default=None,
        help="the bearer token to require (default: $ACP_TUI_BRIDGE_TOKEN, else "
        "a new one, printed)",
    )
    bridge.add_argument(
        "--allow-origin",
        metavar="ORIGIN",
        action="append",
        default=[],
        help="a browser origin (scheme://host[:port]) allowed to connect; "
        "requests from any other Origin get 403 (repeatable)",
    )
    limits: tuple[tuple[str, type[float] | type[int], str, str], ...] = (
        (
            "--grace",
            float,
            "S",
            "seconds a dropped connection's agent waits for its client to come "
            "back (default: 60)",
        ),
        (
            "--max-connections",
            int,
            "N",
            "connections (agent processes) at once (default: 8)",
        ),
        (
            "--max-message-bytes",
            int,
            "N",
            "largest message either way (default: 64 MiB)",
        ),
    )
    for flag, kind, metavar, text in limits:  # None: the bridge's default
        bridge.add_argument(flag, type=kind, default=None, metavar=metavar, help=text)
    bridge.add_argument(
        "agent_command",
        nargs=argparse.REMAINDER,
        metavar="-- AGENT_CMD",
        help="the agent's command line, after --",
    )


def _bridge(args: argparse.Namespace) -> int:
    from acp_tui.bridge.cli_args import bridge_options
    from acp_tui.bridge.serve import run_bridge

    parsed = bridge_options(args)
    if isinstance(parsed, str):
        print(f"acp-tui bridge: {parsed}", file=sys.stderr)
        return EXIT_USAGE
    options, generated = parsed
    return run_bridge(
        options, allow_remote=args.allow_remote, token_generated=generated
    )


def _setup_logging() -> Path:
    """Send log records to a file, never to the terminal the UI owns.

    The file is private (0600, its directory 0700 if created) and rotates, so it
    neither leaks nor grows without bound (`acp_tui.storage.private_files`).
    """
    import logging

    from acp_tui.storage import paths
    from acp_tui.storage.private_files import PrivateRotatingFileHandler

    log_file = paths.log_file()
    handler = PrivateRotatingFileHandler(log_file)
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    )
    logging.basicConfig(level=logging.INFO, handlers=[handler])
    return log_file
