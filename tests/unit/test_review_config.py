"""The config's `[review]` table: on by default, off when asked, typos named."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.config import ConfigError, Settings, load_settings


def test_review_is_on_by_default() -> None:
    assert Settings().review.enabled


def test_review_can_be_turned_off(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[review]\nenabled = false\n")
    assert not load_settings(path).review.enabled


def test_an_unknown_review_key_is_named(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[review]\nenable = false\n")
    with pytest.raises(ConfigError, match=r"\[review\].*enable.*enabled"):
        load_settings(path)
