"""The agent catalogue: what `--agent NAME` starts.

`--agent` takes either a catalogue name (`gemini`, `claude-code`, a name from the
config file, ...) or a command line (`"opencode acp"`). `resolve_agent` turns the
value into an `AgentCommand` for the transport.

Resolution rules:

1. **A catalogue name wins.** The value, stripped, is looked up in the catalogue
   (the built-ins of `builtin_agents()`, extended and overridden by the user's
   `[agents.NAME]` tables, see `load_catalogue`).
2. **Binary on PATH first.** For a catalogue entry, `entry.binary` (then any of
   `entry.alt_binaries`) is looked up with `shutil.which` on PATH (injectable as
   `search_path` for tests). Found: the absolute path plus `entry.args` is run
   (found = `"path"`).
3. **Else `npx`.** If the entry has an npm package and `npx` is on PATH, run
   `npx -y --package=PKG -- BINARY ARGS...` (found = `"npx"`). The explicit
   `--package ... -- BINARY` form is used instead of `npx -y PKG` because bare
   `npx PKG` only works while the package has exactly one bin (or one named after
   the package); `--` keeps flags such as `--acp` away from npx itself.
4. **Else missing.** found = `"missing"`; `ResolvedAgent.require()` raises
   `AgentNotFoundError` whose message carries the entry's install hint.
5. **Anything else is a command line**: split with `shlex.split` and run as given
   (found = `"command"`). Empty values and unbalanced quotes raise
   `AgentSpecError`. `check_program` looks a bare program name up on PATH before
   anything starts: a missing one raises `UnknownAgentError`, with the closest
   catalogue names (a typo of a name), or the install hint of the catalogue
   agent whose program it is.

The entry's `env` (and, for user agents, `cwd`) is carried into the `AgentCommand`
whichever way the program was found.

User agents live in `config.toml` (`acp_tui.config.config_file()`); each table
extends the catalogue, and a table named like a built-in replaces it:

    [agents.my-claude]
    command = "claude-agent-acp --debug"   # a command line, split like a shell…
    title = "Claude (debug build)"         # optional, defaults to the name
    env = { ANTHROPIC_LOG = "debug" }      # optional, strings only
    cwd = "~/src/project"                  # optional working directory

    [agents.local]
    args = ["python3", "/opt/agent/main.py", "--stdio"]   # …or an argv list

Exactly one of `command` and `args` is required; other keys are rejected.
Names are letters, digits, `.`, `_` and `-`, starting with a letter or digit.

Extending the built-ins from code (e.g. the demo agent): call
`register_builtin(AgentEntry(...))` at import time of the registering module, or
add a table to `catalogue.toml` beside this module (read by `_builtin_entries`).

This module imports the standard library and `acp_tui.protocol.transport` only
(and `acp_tui.config`, lazily, for the default config path).
"""

from __future__ import annotations

import difflib
import functools
import os
import re
import shlex
import shutil
import sys
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final, Literal, TypeAlias

from acp_tui.protocol.remote.target import RemoteTarget, is_remote_url
from acp_tui.protocol.transport import AgentCommand

__all__ = [
    "DEMO_AGENT",
    "AgentCatalogueError",
    "AgentConfigError",
    "AgentEntry",
    "AgentNotFoundError",
    "AgentSpecError",
    "AgentStatus",
    "Found",
    "ResolvedAgent",
    "Status",
    "UnknownAgentError",
    "builtin_agents",
    "check_program",
    "describe_catalogue",
    "format_catalogue",
    "load_catalogue",
    "load_user_agents",
    "register_builtin",
    "resolve_agent",
    "resolve_entry",
    "suggest_agents",
]

Found: TypeAlias = Literal["path", "npx", "missing", "command"]
"""How a `--agent` value was turned into a command."""

Status: TypeAlias = Literal["installed", "via npx", "not found"]
"""What `acp-tui agents` says about a catalogue entry."""

NPX: Final = "npx"
"""The program used for the npm fallback."""

_NAME_RE: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_USER_KEYS: Final = frozenset(
    {
        "command",
        "args",
        "env",
        "title",
        "cwd",
        "url",
        "headers",
        "token_env",
        "transport",
    }
)
_STATUS_OF: Final[Mapping[Found, Status]] = {
    "path": "installed",
    "npx": "via npx",
    "missing": "not found",
    "command": "installed",
}


# --- Errors. -----------------------------------------------------------------------


class AgentCatalogueError(Exception):
    """Base class: an agent cannot be resolved or the catalogue cannot be loaded."""


class AgentSpecError(AgentCatalogueError):
    """A `--agent` value is neither a catalogue name nor a usable command line."""


class AgentConfigError(AgentCatalogueError):
    """The config file's agents cannot be used.

    Messages read `[agents.NAME]: problem` (`load_user_agents`); `load_catalogue`
    puts the file's path in front.
    """

    def __init__(self, message: str, *, agent: str | None = None) -> None:
        super().__init__(message)
        self.agent = agent
        """The agent's name, or None when the problem is not one agent's."""


def _bad_agent(agent: str, problem: str) -> AgentConfigError:
    return AgentConfigError(f"[agents.{agent}]: {problem}", agent=agent)


class AgentNotFoundError(AgentCatalogueError):
    """A catalogue agent is neither on PATH nor available through npx."""

    def __init__(self, entry: AgentEntry) -> None:
        looked_for = " or ".join(repr(b) for b in (entry.binary, *entry.alt_binaries))
        how = f"{looked_for} is not on PATH"
        if entry.npm_package:
            how += f" and npx (for {entry.npm_package}) is not on PATH either"
        super().__init__(
            f"agent {entry.name!r} is not installed: {how}. "
            f"To install it: {entry.install_hint}"
        )
        self.entry = entry
        """The entry that could not be found."""


class UnknownAgentError(AgentCatalogueError):
    """A `--agent` value is no catalogue name, and its program is not on PATH."""

    def __init__(self, message: str, *, suggestions: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.suggestions = suggestions
        """The closest catalogue names, best first (maybe none)."""


# --- Entries. ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AgentEntry:
    """One agent the catalogue knows by name."""

    name: str
    """The short name given to `--agent`."""
    title: str
    """Human-readable name, e.g. "Gemini CLI"."""
    binary: str
    """The program looked up on PATH (a bare name, or a path for user agents)."""
    args: tuple[str, ...] = ()
    """Arguments that put the program in ACP mode, e.g. `("--acp",)`."""
    npm_package: str | None = None
    """npm package whose bin named `binary` is run through `npx` when `binary` is not
    on PATH; None when the agent is not on npm."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Variables added to the agent's environment."""
    install_hint: str = ""
    """How to install the agent, shown when it is not found."""
    homepage: str = ""
    """Where to read about the agent."""
    source: Literal["builtin", "user"] = "builtin"
    """Built into acp-tui, or defined in the user's config file."""
    alt_binaries: tuple[str, ...] = ()
    """Other names the same program is installed under, tried after `binary`."""
    cwd: Path | None = None
    """Working directory for the agent (user agents); None inherits ours."""
    remote: RemoteTarget | None = None
    """A remote agent (`url = "…"`, `acp_tui.client.remote_agents`): `binary` is
    its URL and nothing is looked up or started."""

    def __post_init__(self) -> None:
        # Freeze the containers too, so a shared entry cannot be altered by a caller.
        object.__setattr__(self, "args", tuple(self.args))
        object.__setattr__(self, "alt_binaries", tuple(self.alt_binaries))
        object.__setattr__(self, "env", MappingProxyType(dict(self.env)))

    def path_command(self) -> tuple[str, ...]:
        """The command as it would run from PATH, unresolved: `binary` + `args`."""
        return (self.binary, *self.args)


DEMO_AGENT: Final = "demo"
"""The catalogue name of the built-in demo agent: the default when none is chosen."""


CATALOGUE_FILE: Final = "catalogue.toml"
"""The built-in catalogue beside this module: one table per agent, with its sources."""

_CATALOGUE_KEYS: Final = frozenset(
    {
        "title",
        "binary",
        "args",
        "alt_binaries",
        "npm_package",
        "env",
        "install_hint",
        "homepage",
    }
)


@functools.cache
def _builtin_entries() -> tuple[AgentEntry, ...]:
    """The agents acp-tui knows out of the box: the demo, then `CATALOGUE_FILE`.

    The demo agent (acp_tui/demo) runs with this interpreter, so it is always
    found, and it needs no account and no network.
    """
    demo = AgentEntry(
        name=DEMO_AGENT,
        title="acp-tui demo agent",
        binary=sys.executable,
        args=("-m", "acp_tui.demo"),
        install_hint="built in: nothing to install",
        homepage="https://github.com/acp-tui/acp-tui",
    )
    text = resources.files(__package__).joinpath(CATALOGUE_FILE).read_text("utf-8")
    entries = [demo]
    for name, table in tomllib.loads(text).items():
        unknown = sorted(set(table) - _CATALOGUE_KEYS)
        if unknown:  # a mistake in the shipped file, caught by the tests
            raise AgentCatalogueError(f"{CATALOGUE_FILE} [{name}]: unknown {unknown}")
        fields: dict[str, Any] = {
            key: tuple(value) if isinstance(value, list) else value
            for key, value in table.items()
        }
        entries.append(AgentEntry(name=name, **fields))
    return tuple(entries)


_EXTRA_BUILTINS: dict[str, AgentEntry] = {}
"""Built-ins registered by other modules (e.g. the demo agent)."""


def register_builtin(entry: AgentEntry) -> None:
    """Add (or replace) a built-in agent, e.g. the bundled demo agent.

    Call it when the registering module is imported. A built-in whose program is an
    absolute path (such as `sys.executable`) is found by that path, whatever PATH is.

    Raises:
        ValueError: The entry is not a built-in or its name is not a valid name.
    """
    if entry.source != "builtin":
        raise ValueError(f"register_builtin needs a builtin entry, got {entry.source}")
    if not _NAME_RE.fullmatch(entry.name):
        raise ValueError(f"invalid agent name {entry.name!r}")
    _EXTRA_BUILTINS[entry.name] = entry


def builtin_agents() -> dict[str, AgentEntry]:
    """The built-in catalogue, a fresh dict each call (safe to extend)."""
    catalogue = {entry.name: entry for entry in _builtin_entries()}
    catalogue.update(_EXTRA_BUILTINS)
    return catalogue


# --- User agents from config.toml. ---------------------------------------------------


def _type_name(value: object) -> str:
    """TOML-flavoured name of a value's type, for error messages."""
    names = {
        bool: "a boolean",
        int: "an integer",
        float: "a float",
        str: "a string",
        list: "an array",
        dict: "a table",
    }
    for kind, name in names.items():
        if type(value) is kind:
            return name
    return type(value).__name__


def _split_command(text: str) -> list[str]:
    """Split a command line like a POSIX shell (without expansions).

    Raises:
        ValueError: Unbalanced quotes, a trailing escape, nothing but blanks, or
            an empty program name (`"" args`).
    """
    try:
        argv = shlex.split(text)
    except ValueError as error:
        raise ValueError(f"cannot split {text!r}: {error}") from None
    if not argv:
        raise ValueError("the command is empty")
    if not argv[0]:
        raise ValueError(f"the program name is empty in {text!r}")
    return argv


def _user_entry(name: str, table: object) -> AgentEntry:
    """Validate one `[agents.NAME]` table."""
    if not _NAME_RE.fullmatch(name):
        raise _bad_agent(
            name,
            "invalid agent name: use letters, digits, '.', '_' and '-', "
            "starting with a letter or digit",
        )
    if not isinstance(table, Mapping):
        raise _bad_agent(name, f"must be a table, not {_type_name(table)}")
    unknown = sorted(str(key) for key in table if key not in _USER_KEYS)
    if unknown:
        from acp_tui.config import unknown_keys_message  # only on this error

        raise _bad_agent(name, unknown_keys_message(unknown, _USER_KEYS))

    if "url" in table:
        return _remote_user_entry(name, table)
    has_command = "command" in table
    has_args = "args" in table
    if has_command and has_args:
        raise _bad_agent(name, "set either 'command' or 'args', not both")
    if not has_command and not has_args:
        raise _bad_agent(
            name, "missing 'command' (a command line) or 'args' (an argv list)"
        )
    argv: list[str]
    if has_command:
        command = table["command"]
        if not isinstance(command, str):
            raise _bad_agent(
                name, f"'command' must be a string, not {_type_name(command)}"
            )
        try:
            argv = _split_command(command)
        except ValueError as error:
            raise _bad_agent(name, f"'command': {error}") from None
    else:
        args = table["args"]
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise _bad_agent(name, "'args' must be an array of strings")
        if not args or not args[0]:
            raise _bad_agent(
                name, "'args' must start with the program to run (it is empty)"
            )
        argv = list(args)

    env = table.get("env", {})
    if not isinstance(env, Mapping):
        raise _bad_agent(name, f"'env' must be a table, not {_type_name(env)}")
    for key, value in env.items():
        if not isinstance(value, str):
            raise _bad_agent(
                name,
                f"env {key!r} must be a string, not {_type_name(value)} "
                "(quote the value)",
            )
        if not key or "=" in key or "\0" in key:
            raise _bad_agent(name, f"invalid environment variable name {key!r}")

    title = table.get("title", name)
    if not isinstance(title, str):
        raise _bad_agent(name, f"'title' must be a string, not {_type_name(title)}")

    cwd: Path | None = None
    if "cwd" in table:
        raw_cwd = table["cwd"]
        if not isinstance(raw_cwd, str) or not raw_cwd:
            raise _bad_agent(name, "'cwd' must be a non-empty string")
        cwd = Path(raw_cwd).expanduser()

    return AgentEntry(
        name=name,
        title=title or name,
        binary=argv[0],
        args=tuple(argv[1:]),
        npm_package=None,
        env=dict(env),
        install_hint=(
            f"check [agents.{name}] in config.toml: {argv[0]!r} "
            "must be on PATH or a path to a program"
        ),
        homepage="",
        source="user",
        cwd=cwd,
    )


def _remote_user_entry(name: str, table: Mapping[str, object]) -> AgentEntry:
    """An `[agents.NAME]` table with `url`: a remote agent."""
    from acp_tui.client.remote_agents import remote_target

    try:
        target = remote_target(table)
    except ValueError as error:
        raise _bad_agent(name, str(error)) from None
    title = table.get("title", name)
    if not isinstance(title, str):
        raise _bad_agent(name, f"'title' must be a string, not {_type_name(title)}")
    return AgentEntry(
        name=name,
        title=title or name,
        binary=target.url,
        install_hint=f"check [agents.{name}] in config.toml: is {target.url} up?",
        source="user",
        remote=target,
    )


def load_user_agents(data: Mapping[str, object]) -> dict[str, AgentEntry]:
    """The user agents of an already parsed `config.toml`.

    Args:
        data: The whole parsed file; only its `agents` table is read (absent: no
            user agents).

    Returns:
        The user entries by name, in file order.

    Raises:
        AgentConfigError: A table is invalid; the message names the agent.
    """
    agents = data.get("agents")
    if agents is None:
        return {}
    if not isinstance(agents, Mapping):
        raise AgentConfigError(
            "[agents]: must be a table of agents ([agents.NAME]), "
            f"not {_type_name(agents)}"
        )
    return {str(name): _user_entry(str(name), table) for name, table in agents.items()}


def load_catalogue(path: Path | None = None) -> dict[str, AgentEntry]:
    """The built-ins extended and overridden by the config file's user agents.

    Args:
        path: The config file; defaults to `acp_tui.config.config_file()`. A
            missing file gives the built-ins only.

    Raises:
        AgentConfigError: The file cannot be read, is not TOML, or has an invalid
            `[agents.NAME]` table. The message starts with the file's path.
    """
    if path is None:
        from acp_tui.config import config_file  # lazy: keeps pydantic out of here

        path = config_file()
    catalogue = builtin_agents()
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return catalogue
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else str(error)
        raise AgentConfigError(f"cannot read {path}: {reason}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise AgentConfigError(f"{path} is not valid TOML: {error}") from None
    try:
        catalogue.update(load_user_agents(data))
    except AgentConfigError as error:
        raise AgentConfigError(f"{path}: {error}", agent=error.agent) from None
    return catalogue


# --- Resolution. ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ResolvedAgent:
    """The outcome of resolving a `--agent` value."""

    command: AgentCommand
    """What to run. When `found == "missing"`, the command that *would* run from
    PATH (`binary` + `args`), for messages only."""
    found: Found
    """`path` (program on PATH), `npx` (npm fallback), `missing`, or `command` (a
    literal command line, not looked up)."""
    entry: AgentEntry | None
    """The catalogue entry; None for a literal command line."""

    @property
    def name(self) -> str:
        """A short name for logs and the transport: the entry's, or the program's."""
        if self.entry is not None:
            return self.entry.name
        if self.command.remote is not None:
            return self.command.remote.name()
        return Path(self.command.argv[0]).name

    @property
    def ok(self) -> bool:
        """Whether there is something to run."""
        return self.found != "missing"

    def require(self) -> AgentCommand:
        """The command to run.

        Raises:
            AgentNotFoundError: The agent was not found; the message has the
                install hint.
        """
        if self.found == "missing":
            assert self.entry is not None  # only catalogue entries go missing
            raise AgentNotFoundError(self.entry)
        return self.command


def resolve_entry(
    entry: AgentEntry, *, search_path: str | None = None
) -> ResolvedAgent:
    """Find how to start a catalogue entry (see the module rules 2 to 4).

    Args:
        entry: The agent.
        search_path: PATH to search (`os.pathsep`-separated); None means the
            process's PATH.
    """
    if entry.remote is not None:
        command = AgentCommand((entry.remote.url,), remote=entry.remote)
        return ResolvedAgent(command, "command", entry)
    env = dict(entry.env)
    for binary in (entry.binary, *entry.alt_binaries):
        found = shutil.which(binary, path=search_path)
        if found is not None:
            argv = (found, *entry.args)
            return ResolvedAgent(AgentCommand(argv, env, entry.cwd), "path", entry)
    if entry.npm_package:
        npx = shutil.which(NPX, path=search_path)
        if npx is not None:
            argv = (
                npx,
                "-y",
                f"--package={entry.npm_package}",
                "--",
                entry.binary,
                *entry.args,
            )
            return ResolvedAgent(AgentCommand(argv, env, entry.cwd), "npx", entry)
    command = AgentCommand(entry.path_command(), env, entry.cwd)
    return ResolvedAgent(command, "missing", entry)


def resolve_agent(
    value: str,
    *,
    catalogue: Mapping[str, AgentEntry] | None = None,
    search_path: str | None = None,
) -> ResolvedAgent:
    """Turn a `--agent` value into something to run.

    Args:
        value: A catalogue name or a command line.
        catalogue: Names to recognise; defaults to `builtin_agents()`. Pass
            `load_catalogue()` to include the user's agents.
        search_path: PATH to search; None means the process's PATH.

    Returns:
        The resolution; check `found` (or call `require()`) before running it.

    Raises:
        AgentSpecError: The value is empty or not a valid command line.
    """
    if catalogue is None:
        catalogue = builtin_agents()
    key = value.strip()
    entry = catalogue.get(key)
    if entry is not None:
        return resolve_entry(entry, search_path=search_path)
    if not key:
        raise AgentSpecError("--agent is empty: give an agent name or a command line")
    if is_remote_url(key):
        from acp_tui.client.remote_agents import adhoc_target

        target = adhoc_target(key)
        return ResolvedAgent(AgentCommand((key,), remote=target), "command", None)
    try:
        argv = _split_command(value)
    except ValueError as error:
        raise AgentSpecError(f"cannot parse --agent: {error}") from None
    return ResolvedAgent(AgentCommand(tuple(argv)), "command", None)


def suggest_agents(
    word: str, catalogue: Mapping[str, AgentEntry], *, limit: int = 3
) -> tuple[str, ...]:
    """The catalogue names closest to `word`, best first, at most `limit`.

    A name is close when it, or its program's name, is spelled nearly like `word`
    (`gemni`: gemini; `claude-agent-acp`: claude-code), or starts with it (`co`:
    codex, copilot).
    """
    word = word.strip().lower()
    if not word:
        return ()
    spellings: dict[str, str] = {}
    for entry in catalogue.values():
        for spelling in (entry.name, Path(entry.binary).name, *entry.alt_binaries):
            spellings.setdefault(spelling.lower(), entry.name)
    close = difflib.get_close_matches(word, spellings, n=limit * 3, cutoff=0.7)
    names = [spellings[spelling] for spelling in close]
    names += sorted(name for name in catalogue if name.lower().startswith(word))
    return tuple(dict.fromkeys(names))[:limit]


def check_program(
    value: str,
    resolved: ResolvedAgent,
    catalogue: Mapping[str, AgentEntry],
    *,
    search_path: str | None = None,
) -> None:
    """Check, before starting it, that a command line's program can be found.

    Only a bare program name (no directory) of a literal command line is looked
    up on PATH; a path is left to the transport, which says why it cannot start.

    Raises:
        UnknownAgentError: The program is not on PATH. The message says so,
            with the closest catalogue names and `acp-tui agents`, or the
            install hint of the catalogue agent whose program it is.
    """
    if resolved.found != "command":
        return
    program = resolved.command.argv[0]
    if os.sep in program or (os.altsep and os.altsep in program):
        return
    if shutil.which(program, path=search_path) is not None:
        return
    owner = next(
        (
            entry
            for entry in catalogue.values()
            if program in (Path(entry.binary).name, *entry.alt_binaries)
        ),
        None,
    )
    if owner is not None and owner.install_hint:
        via = " (which can run it through npx)" if owner.npm_package else ""
        raise UnknownAgentError(
            f"no program {program!r} is on PATH: it is the program of the agent "
            f"{owner.name!r} ({owner.title}). Use --agent {owner.name}{via}, or "
            f"install it: {owner.install_hint}",
            suggestions=(owner.name,),
        )
    suggestions = suggest_agents(program, catalogue)
    if len(resolved.command.argv) == 1 and value.strip() == program:
        message = f"no agent named {program!r}: it is not in the catalogue, and "
        message += f"no program {program!r} is on PATH"
    else:
        message = f"cannot start --agent {value.strip()!r}: "
        message += f"no program {program!r} is on PATH"
    if suggestions:
        message += ". Did you mean: " + ", ".join(suggestions) + "?"
    message += " (`acp-tui agents` lists the agents acp-tui knows)"
    raise UnknownAgentError(message, suggestions=suggestions)


# --- Listing for `acp-tui agents`. -------------------------------------------------


@dataclass(frozen=True, slots=True)
class AgentStatus:
    """One line of `acp-tui agents`."""

    entry: AgentEntry
    status: Status
    command: AgentCommand
    """The resolved command (for `not found`: what would run from PATH)."""

    @property
    def name(self) -> str:
        """The entry's name."""
        return self.entry.name

    @property
    def command_line(self) -> str:
        """The command, shell-quoted."""
        return self.command.display()

    @property
    def install_hint(self) -> str:
        """The entry's install hint."""
        return self.entry.install_hint


def describe_catalogue(
    catalogue: Mapping[str, AgentEntry] | None = None,
    *,
    search_path: str | None = None,
) -> list[AgentStatus]:
    """The status of every agent: built-ins by name, then user agents by name.

    Args:
        catalogue: Defaults to `builtin_agents()`; pass `load_catalogue()` to
            include the user's agents. A user agent that overrides a built-in is
            listed with the user agents.
        search_path: PATH to search; None means the process's PATH.
    """
    if catalogue is None:
        catalogue = builtin_agents()
    entries = sorted(catalogue.values(), key=lambda e: (e.source != "builtin", e.name))
    statuses: list[AgentStatus] = []
    for entry in entries:
        resolved = resolve_entry(entry, search_path=search_path)
        statuses.append(
            AgentStatus(entry, _STATUS_OF[resolved.found], resolved.command)
        )
    return statuses


def _plain(text: str) -> str:
    """Escape control characters so config text cannot drive the terminal."""
    if text.isprintable():
        return text
    return "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
        for ch in text
    )


def format_catalogue(statuses: Iterable[AgentStatus]) -> list[str]:
    """Plain-text lines for `acp-tui agents`: aligned columns, no colour codes.

    Columns: name, source, status, then the command line, or for an agent that is
    not found, the install hint. Lines carry no trailing blanks or newlines.
    """
    rows: list[tuple[str, str, str, str]] = [("NAME", "SOURCE", "STATUS", "COMMAND")]
    for status in statuses:
        if status.status == "not found":
            last = f"install: {status.install_hint}"
        else:
            last = status.command_line
        source = "built-in" if status.entry.source == "builtin" else "user"
        rows.append((status.name, source, status.status, last))
    rows = [(_plain(a), b, c, _plain(d)) for a, b, c, d in rows]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    return [
        "  ".join(
            [
                *(
                    cell.ljust(width)
                    for cell, width in zip(row[:3], widths, strict=True)
                ),
                row[3],
            ]
        ).rstrip()
        for row in rows
    ]
