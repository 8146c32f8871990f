"""Debian's Chromium and chromedriver for the browser test of `acp-tui serve`.

`.ci/install-browser` installs them with apt-get. If that failed, `.browser/SKIP`
holds the reason and the browser test skips with it, loudly (a banner on stderr,
and one at the end of the run from tests/conftest.py). Once both binaries are
installed, the test must pass.
Under CI, a browser that is neither installed nor explained by `.browser/SKIP` is
a failure. Nothing here ever downloads a browser or a driver.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest

REPO = Path(__file__).resolve().parents[2]
BROWSER_STATE = Path(os.environ.get("ACP_TUI_BROWSER_DIR", REPO / ".browser"))
BINARIES = ("chromium", "chromedriver")


@dataclass(frozen=True)
class Browser:
    """The installed browser and its WebDriver server."""

    chromium: Path
    chromedriver: Path


def _banner(message: str) -> None:
    rule = "!" * 72
    print(f"{rule}\n!! {message}\n{rule}", file=sys.stderr)


def _skip(reason: str) -> NoReturn:
    _banner(reason)
    pytest.skip(reason)


@pytest.fixture
def browser_binaries() -> Browser:
    """Chromium and chromedriver from PATH; skips (or fails under CI) without them."""
    found = {name: shutil.which(name) for name in BINARIES}
    missing = [name for name, path in found.items() if path is None]
    if not missing:
        return Browser(Path(str(found["chromium"])), Path(str(found["chromedriver"])))
    skip_file = BROWSER_STATE / "SKIP"
    if skip_file.exists():
        _skip(
            "BROWSER TEST SKIPPED (Chromium install failed): "
            f"{skip_file.read_text().strip()}"
        )
    message = (
        f"{' and '.join(missing)} not installed (Debian packages chromium and "
        "chromium-driver); run `bash .ci/install-browser`"
    )
    if os.environ.get("CI"):
        pytest.fail(f"BROWSER TEST: {message}, or record why not in {skip_file}")
    _skip(f"BROWSER TEST SKIPPED: {message}")
