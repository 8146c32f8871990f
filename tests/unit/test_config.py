"""Settings file loading."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.config import ConfigError, Settings, load_settings


def test_missing_file_gives_defaults(tmp_path: Path) -> None:
    assert load_settings(tmp_path / "none.toml") == Settings()
    assert Settings().protocol == "auto"


def test_values_are_read(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('protocol = "2"\ninit_timeout = 5\n')
    assert load_settings(path) == Settings(protocol="2", init_timeout=5)


def test_integer_protocol_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("protocol = 1\n")
    assert load_settings(path).protocol == "1"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("protocol = ", "not valid TOML"),
        ('protocl = "1"\n', "protocl"),
        ("init_timeout = -1\n", "init_timeout"),
        ('protocol = "3"\n', "protocol"),
    ],
)
def test_bad_files_name_the_file_and_the_problem(
    tmp_path: Path, text: str, fragment: str
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_settings(path)
    assert str(path) in str(caught.value)
    assert fragment in str(caught.value)


def test_agent_tables_are_left_to_the_catalogue(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('protocol = "2"\n[agents.mine]\ncommand = "mine --acp"\n')
    assert load_settings(path) == Settings(protocol="2")
