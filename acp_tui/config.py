"""User settings, read from `config.toml` in the config directory.

The file is optional; every setting has a default. Unknown keys are rejected with a
message naming the file, so a typo is not silently ignored. Example:

    # ~/.config/acp-tui/config.toml
    protocol = "1"        # "auto" (default), "1" or "2"
    init_timeout = 120    # seconds to wait for the agent's initialize reply
    additional_directories = ["~/src/shared-lib", "/srv/docs"]   # like --add-dir

    [agents.my-agent]     # see acp_tui/client/agents.py
    command = "my-agent --acp"

    [attention]           # when the terminal window is not focused
    notify = "auto"       # "auto", "osc9", "osc777", "both" or "off"
    bell = false          # also ring the bell
    progress = false      # OSC 9;4 progress while a turn runs (where supported)

    [review]              # what each turn changed in the session's directories
    enabled = true        # snapshot at each turn's start, diff at its end

    [mcp_servers.filesystem]   # passed to agents that support the transport
    type = "stdio"             # "stdio" (default), "http" or "sse" (v1 only)
    command = "/usr/local/bin/mcp-filesystem"
    args = ["--root", "/home/me/project"]
    env = { LOG_LEVEL = "info" }

    [mcp_servers.docs]
    type = "http"
    url = "https://docs.example.com/mcp"
    headers = { Authorization = "Bearer ..." }

`additional_directories` (and `--add-dir`) name directories the agent may use
besides the project: `~` is expanded, a relative path is taken from the directory
of the file that names it (this file; the shell's for `--add-dir`), and each must
be an existing directory, or the file is refused. They are the only roots the user
adds: a directory an agent reports (say, a listed session's `cwd`) never is one.
"""

from __future__ import annotations

import tomllib
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import ErrorDetails

from acp_tui.storage import paths

__all__ = [
    "AttentionSettings",
    "ConfigError",
    "McpServerSettings",
    "ReviewSettings",
    "Settings",
    "config_file",
    "load_settings",
    "resolve_directories",
    "unknown_keys_message",
]


class ConfigError(Exception):
    """The config file exists but cannot be used. The message names the file."""

    def __init__(self, message: str, *, unreadable: bool = False) -> None:
        super().__init__(message)
        self.unreadable = unreadable
        """The file cannot be read or is not TOML (so nothing in it was checked)."""


def unknown_keys_message(keys: Iterable[str], allowed: Collection[str]) -> str:
    """Unknown keys as every config problem names them, with the closest known.

    For example "unknown key 'protocl' (did you mean 'protocol'?)".

    Each key gets the closest allowed key, if one is close; the allowed keys
    are listed when none is.
    """
    parts: list[str] = []
    lost = False
    import difflib  # only for this message: off every start's path

    for key in keys:
        close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
        if close:
            parts.append(f"unknown key {key!r} (did you mean {close[0]!r}?)")
        else:
            parts.append(f"unknown key {key!r}")
            lost = True
    message = "; ".join(parts)
    if lost:
        message += f" (allowed: {', '.join(sorted(allowed))})"
    return message


class McpServerSettings(BaseModel):
    """One MCP server to hand to agents on `session/new` and resume."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["stdio", "http", "sse"] = "stdio"
    """The transport. Servers are only sent to agents that advertise it (stdio is
    always supported; `sse` exists only in ACP v1)."""
    command: str | None = None
    """stdio: the absolute path of the server program."""
    args: list[str] = Field(default_factory=list)
    """stdio: its arguments."""
    env: dict[str, str] = Field(default_factory=dict)
    """stdio: environment variables for it."""
    url: str | None = None
    """http / sse: the server's URL."""
    headers: dict[str, str] = Field(default_factory=dict)
    """http / sse: request headers."""

    @model_validator(mode="after")
    def _complete(self) -> McpServerSettings:
        if self.type == "stdio" and not self.command:
            raise ValueError("a stdio server needs `command`")
        if self.type != "stdio" and not self.url:
            raise ValueError(f"an {self.type} server needs `url`")
        return self


class AttentionSettings(BaseModel):
    """Signals for a user who looks elsewhere (`acp_tui.ui.attention`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    notify: Literal["auto", "osc9", "osc777", "both", "off"] = "auto"
    """The desktop notification sent when a turn ends or the agent asks while
    the terminal window is not focused: OSC 9, OSC 777, both, or none (`auto`
    picks one for the terminal). Only where the terminal reports focus."""
    bell: bool = False
    """Ring the bell with the notification."""
    progress: bool = False
    """Show OSC 9;4 progress (a busy indicator in the tab or taskbar) while a
    turn runs. Off unless asked for: a terminal that takes every OSC 9 for a
    notification and knows no 9;4 would pop one up per turn."""


class ReviewSettings(BaseModel):
    """The review of each turn's changes (`acp_tui.client.turn_changes`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True
    """Snapshot the session's directories when a turn starts and diff them
    when it ends, for the review view (off: nothing is snapshotted)."""


class Settings(BaseModel):
    """Everything a user can set in `config.toml`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    agent: str | None = None
    """The agent to start when `--agent` is not given: a catalogue name or a
    command line. Unset: the built-in demo agent."""

    protocol: Literal["auto", "1", "2"] = "auto"
    """ACP version to offer: `auto` offers the v2 draft and falls back to v1; `1` or
    `2` pins that version (use `1` if a v2 agent misbehaves)."""

    init_timeout: float = Field(default=60.0, gt=0)
    """Seconds to wait for an agent to answer `initialize`. Agents started with
    `npx -y` download themselves on first run, so keep this generous."""

    mcp_servers: dict[str, McpServerSettings] = Field(default_factory=dict)
    """MCP servers by name, offered to every agent that supports their transport."""

    theme: str | None = None
    """The colour theme: `acp-dark` (default), `acp-light`, one of Textual's
    themes, or the `name` of a TOML theme in the config dir's `themes/`."""

    additional_directories: tuple[Path, ...] = ()
    """Directories the agent may use besides the project, as `--add-dir` (added
    before the command line's). `load_settings` makes them absolute."""
    attention: AttentionSettings = Field(default_factory=AttentionSettings)
    """Notifications, bell and progress for a window not looked at."""
    review: ReviewSettings = Field(default_factory=ReviewSettings)
    """The review of what each turn changed."""
    allow_git_writes: bool = False
    """Let a v1 agent's `fs/write_text_file` write under `.git` (hooks, config).
    Off by default: a hook or `core.fsmonitor` runs code at your next git
    command, so such writes are refused unless you set this."""

    @field_validator("additional_directories", mode="before")
    @classmethod
    def _named(cls, value: object) -> object:
        # A Path of "" is "." (the config file's own folder): refuse it instead.
        if isinstance(value, list) and any(
            isinstance(entry, str) and not entry.strip() for entry in value
        ):
            raise ValueError("an empty directory name")
        return value


def _problem(error: ErrorDetails) -> str:
    """One validation error as the user reads it: where, then what."""
    loc = [str(part) for part in error["loc"]]
    if error["type"] == "extra_forbidden" and loc:
        model: type[BaseModel] = Settings
        if loc[0] == "mcp_servers" and len(loc) == 3:
            model = McpServerSettings
        elif loc[0] == "attention" and len(loc) == 2:
            model = AttentionSettings
        elif loc[0] == "review" and len(loc) == 2:
            model = ReviewSettings
        where = f"[{'.'.join(loc[:-1])}]" if len(loc) > 1 else ""
        message = unknown_keys_message([loc[-1]], model.model_fields)
        return f"{where}: {message}" if where else message
    return f"{'.'.join(loc) or '(root)'}: {error['msg']}"


def resolve_directories(entries: Iterable[str | Path], base: Path) -> tuple[Path, ...]:
    """Directories as absolute, resolved paths, once each, in the order given.

    `~` is expanded and a relative entry is taken from `base`.

    Raises:
        ValueError: An entry is empty, or not an existing directory (the message
            names it).
    """
    resolved: list[Path] = []
    for entry in entries:
        if not str(entry).strip():
            raise ValueError("an empty directory name")
        path = (base / Path(entry).expanduser()).resolve()
        if not path.is_dir():
            what = "does not exist" if not path.exists() else "is not a directory"
            raise ValueError(f"{entry} {what}")
        if path not in resolved:
            resolved.append(path)
    return tuple(resolved)


def config_file() -> Path:
    """Where the settings file lives."""
    return paths.config_dir() / "config.toml"


def load_settings(path: Path | None = None) -> Settings:
    """Read the settings file; a missing file gives the defaults.

    Raises:
        ConfigError: The file is not valid TOML or has an invalid setting.
    """
    path = path or config_file()
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return Settings()
    except OSError as error:
        raise ConfigError(
            f"cannot read {path}: {error.strerror}", unreadable=True
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(
            f"{path} is not valid TOML: {error}", unreadable=True
        ) from None
    # `[agents.NAME]` tables belong to the agent catalogue (client/agents.py), which
    # reads them from the same file.
    data.pop("agents", None)
    if isinstance(data.get("protocol"), int):
        data["protocol"] = str(data["protocol"])  # `protocol = 1` means "1"
    try:
        settings = Settings.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(_problem(e) for e in error.errors(include_url=False))
        raise ConfigError(f"{path}: {problems}") from None
    try:
        directories = resolve_directories(settings.additional_directories, path.parent)
    except ValueError as error:
        raise ConfigError(f"{path}: additional_directories: {error}") from None
    return settings.model_copy(update={"additional_directories": directories})
