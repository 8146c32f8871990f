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
        ('[attention]\nnotify = "growl"\n', "attention.notify"),
        ("[attention]\nbel = true\n", "[attention]: unknown key 'bel' (did you mean"),
        ('[attention]\nprogress = "maybe"\n', "attention.progress"),
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


def test_additional_directories_are_made_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / "shared").mkdir(parents=True)
    config_dir = tmp_path / "config"
    (config_dir / "docs").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("HOME", str(home))
    path = config_dir / "config.toml"
    path.write_text(
        f'additional_directories = ["~/shared", "docs", {str(elsewhere)!r}, "docs/"]\n'
    )
    assert load_settings(path).additional_directories == (
        (home / "shared").resolve(),
        (config_dir / "docs").resolve(),  # relative: from the config file's folder
        elsewhere.resolve(),
    )
    assert Settings().additional_directories == ()


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ('["missing"]', "missing does not exist"),
        ('["config.toml"]', "config.toml is not a directory"),
        ('[""]', "empty directory name"),
        ('"just-a-string"', "additional_directories"),
        ("[1]", "additional_directories"),
    ],
)
def test_bad_additional_directories_are_refused_with_the_reason(
    tmp_path: Path, value: str, fragment: str
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(f"additional_directories = {value}\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(path)
    assert str(path) in str(caught.value)
    assert fragment in str(caught.value)
