"""`storage.paths`: every directory follows one rule, `ACP_TUI_HOME` or platformdirs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import platformdirs
import pytest

from acp_tui.storage import paths

DIRECTORIES: list[tuple[Callable[[], Path], str, Callable[..., str]]] = [
    (paths.config_dir, "config", platformdirs.user_config_dir),
    (paths.data_dir, "data", platformdirs.user_data_dir),
    (paths.log_dir, "logs", platformdirs.user_log_dir),
    (paths.cache_dir, "cache", platformdirs.user_cache_dir),
]


@pytest.mark.parametrize(
    ("directory", "name", "platform_dir"),
    DIRECTORIES,
    ids=["config", "data", "logs", "cache"],
)
@pytest.mark.parametrize("override", [None, ""], ids=["unset", "empty"])
def test_without_the_override_each_directory_is_the_platforms(
    monkeypatch: pytest.MonkeyPatch,
    directory: Callable[[], Path],
    name: str,
    platform_dir: Callable[..., str],
    override: str | None,
) -> None:
    if override is None:
        monkeypatch.delenv(paths.HOME_ENV_VAR, raising=False)
    else:
        monkeypatch.setenv(paths.HOME_ENV_VAR, override)  # empty counts as unset
    assert directory() == Path(platform_dir("acp-tui", appauthor=False))


@pytest.mark.parametrize(
    ("directory", "name", "platform_dir"),
    DIRECTORIES,
    ids=["config", "data", "logs", "cache"],
)
def test_the_override_roots_each_directory_and_is_read_on_every_call(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    directory: Callable[[], Path],
    name: str,
    platform_dir: Callable[..., str],
) -> None:
    monkeypatch.setenv(paths.HOME_ENV_VAR, str(tmp_path / "one"))
    assert directory() == tmp_path / "one" / name
    monkeypatch.setenv(paths.HOME_ENV_VAR, str(tmp_path / "two"))
    assert directory() == tmp_path / "two" / name
    assert not (tmp_path / "two").exists()  # paths are computed, never created
