"""User settings, read from `config.toml` in the config directory.

The file is optional; every setting has a default. Unknown keys are rejected with a
message naming the file, so a typo is not silently ignored. Example:

    # ~/.config/acp-tui/config.toml
    protocol = "1"        # "auto" (default), "1" or "2"
    init_timeout = 120    # seconds to wait for the agent's initialize reply

    [agents.my-agent]     # see acp_tui/client/agents.py
    command = "my-agent --acp"
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from acp_tui import paths

__all__ = ["ConfigError", "Settings", "config_file", "load_settings"]


class ConfigError(Exception):
    """The config file exists but cannot be used. The message names the file."""


class Settings(BaseModel):
    """Everything a user can set in `config.toml`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    protocol: Literal["auto", "1", "2"] = "auto"
    """ACP version to offer: `auto` offers the v2 draft and falls back to v1; `1` or
    `2` pins that version (use `1` if a v2 agent misbehaves)."""

    init_timeout: float = Field(default=60.0, gt=0)
    """Seconds to wait for an agent to answer `initialize`. Agents started with
    `npx -y` download themselves on first run, so keep this generous."""


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
        raise ConfigError(f"cannot read {path}: {error.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path} is not valid TOML: {error}") from None
    # `[agents.NAME]` tables belong to the agent catalogue (client/agents.py), which
    # reads them from the same file.
    data.pop("agents", None)
    if isinstance(data.get("protocol"), int):
        data["protocol"] = str(data["protocol"])  # `protocol = 1` means "1"
    try:
        return Settings.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}"
            for e in error.errors(include_url=False)
        )
        raise ConfigError(f"{path}: {problems}") from None
