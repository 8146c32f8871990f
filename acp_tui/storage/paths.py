"""Where acp-tui keeps its files: configuration, data, logs and cache.

The directories come from `platformdirs` (XDG on Linux, `~/Library/...` on macOS,
`%LOCALAPPDATA%` on Windows) under the application name `acp-tui`.

Invariants:

* Setting the `ACP_TUI_HOME` environment variable puts *every* directory under that
  one root (`$ACP_TUI_HOME/config`, `/data`, `/logs`, `/cache`). Tests use it so that
  nothing they do touches the real home directory. The variable is read on every
  call, so changing it (for instance with `monkeypatch.setenv`) takes effect at once.
* These functions only compute paths: they never create directories. Whoever writes
  a file creates its directory (`path.mkdir(parents=True, exist_ok=True)`).
* This module imports the standard library and `platformdirs` only.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Final

import platformdirs

__all__ = [
    "APP_NAME",
    "HOME_ENV_VAR",
    "cache_dir",
    "config_dir",
    "data_dir",
    "demo_project_dir",
    "log_dir",
    "log_file",
    "project_file",
    "project_key",
    "user_themes_dir",
]

APP_NAME: Final = "acp-tui"
"""Application name handed to `platformdirs`."""

HOME_ENV_VAR: Final = "ACP_TUI_HOME"
"""Environment variable that, when set and non-empty, roots all directories."""


def _home() -> Path | None:
    """The `ACP_TUI_HOME` override as an absolute path, or None when unset."""
    value = os.environ.get(HOME_ENV_VAR)
    if not value:
        return None
    return Path(value).expanduser().absolute()


def _app_dir(name: str, platform_dir: Callable[..., str]) -> Path:
    """`$ACP_TUI_HOME/<name>` when the override is set, else `platform_dir`'s answer.

    The one place the `ACP_TUI_HOME` rule is applied, for every directory.
    """
    home = _home()
    if home is not None:
        return home / name
    return Path(platform_dir(APP_NAME, appauthor=False))


def config_dir() -> Path:
    """Directory for user configuration (settings, saved agents).

    Returns:
        `$ACP_TUI_HOME/config`, or the platform's user config directory.
    """
    return _app_dir("config", platformdirs.user_config_dir)


def data_dir() -> Path:
    """Directory for persistent application data (history, sessions).

    Returns:
        `$ACP_TUI_HOME/data`, or the platform's user data directory.
    """
    return _app_dir("data", platformdirs.user_data_dir)


def demo_project_dir() -> Path:
    """The built-in demo agent's scratch project (`<data_dir>/demo/workspaces/project`).

    acp-tui opens demo sessions there when no `--cwd` is given: the demo agent
    works in the directory it is opened in when that lies among its own
    workspaces (`acp_tui.demo.workspace`), never in the user's files, so what it
    shows reads as a project's paths do (`notes.txt`).
    """
    return data_dir() / "demo" / "workspaces" / "project"


def log_dir() -> Path:
    """Directory for log files, including the per-agent stderr logs.

    Returns:
        `$ACP_TUI_HOME/logs`, or the platform's user log directory.
    """
    return _app_dir("logs", platformdirs.user_log_dir)


def log_file() -> Path:
    """The app's own log file (in `log_dir`)."""
    return log_dir() / f"{APP_NAME}.log"


def cache_dir() -> Path:
    """Directory for disposable cached data.

    Returns:
        `$ACP_TUI_HOME/cache`, or the platform's user cache directory.
    """
    return _app_dir("cache", platformdirs.user_cache_dir)


def user_themes_dir() -> Path:
    """Directory where users drop their own theme files.

    Returns:
        The `themes` subdirectory of `config_dir()`.
    """
    return config_dir() / "themes"


def project_key(cwd: Path) -> str:
    """The resolved form of a project directory, as files about it record it."""
    try:
        return str(cwd.expanduser().resolve())
    except OSError:
        return str(cwd.expanduser().absolute())


def project_file(cwd: Path, folder: str, suffix: str) -> Path:
    """A project's file in a folder of the data directory (history, drafts).

    Returns:
        `data_dir()/<folder>/<sha256 of the resolved cwd, 32 hex digits><suffix>`.
    """
    digest = hashlib.sha256(project_key(cwd).encode("utf-8")).hexdigest()[:32]
    return data_dir() / folder / f"{digest}{suffix}"
