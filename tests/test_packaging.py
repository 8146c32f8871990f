"""Set-up and packaging: what `uv run` installs, what the wheel and sdist ship.

- `uv run acp-tui` installs the app and the test group (so that the README's
  `uv run pytest` works on a fresh clone), never the static checks' tools;
  `.ci/run` installs those explicitly.
- The wheel ships the example themes as `acp_tui/themes`, where the installed app
  finds them.
- The README's hero image shows on the package index: a PNG in the sdist, kept in
  step with `screenshots/hero.svg`.
- The README's relative links point to files that exist.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import tomllib
import zipfile
import zlib
from pathlib import Path
from typing import Any, Final

import pytest

ROOT: Final = Path(__file__).resolve().parents[1]
PYPROJECT: Final = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
README: Final = (ROOT / "README.md").read_text("utf-8")
STATIC_TOOLS: Final = frozenset({"ruff", "mypy", "import-linter", "textual-dev"})
"""Packages only the static checks (and `dev`) need: never installed by `uv run`.
(grimp, import-linter's graph library, is in the test group: two tests read import
graphs with it.)"""
BUILD_BOUND: Final = 300.0
"""`uv build` may fetch hatchling on a fresh machine."""


# --- what `uv run acp-tui` installs ----------------------------------------------


def _lock() -> dict[str, Any]:
    return tomllib.loads((ROOT / "uv.lock").read_text("utf-8"))


def _default_install() -> set[str]:
    """Every package `uv run` installs: the project, its default groups, their deps.

    Markers are ignored (every platform's packages count), so this is an upper bound.
    """
    entries: dict[str, list[dict[str, Any]]] = {}
    for package in _lock()["package"]:
        entries.setdefault(package["name"], []).append(package)
    (project,) = entries["acp-tui"]
    wanted: list[dict[str, Any]] = list(project.get("dependencies", []))
    for group in project.get("default-groups", []):
        wanted += project["dev-dependencies"][group]
    seen: set[str] = set()
    while wanted:
        dependency = wanted.pop()
        name = dependency["name"]
        extras = dependency.get("extra", [])
        if name in seen and not extras:
            continue
        seen.add(name)
        for entry in entries[name]:
            wanted += entry.get("dependencies", [])
            for extra in extras:
                wanted += entry.get("optional-dependencies", {}).get(extra, [])
    return seen


def test_only_the_test_group_is_a_default_group() -> None:
    assert PYPROJECT["tool"]["uv"]["default-groups"] == ["test"]
    (project,) = (p for p in _lock()["package"] if p["name"] == "acp-tui")
    assert project["default-groups"] == ["test"], "uv.lock is stale: run `uv lock`"


def test_uv_run_installs_no_static_tools_but_pytest() -> None:
    installed = _default_install()
    assert not installed & STATIC_TOOLS
    assert not {name for name in installed if name.startswith("types-")}
    assert {"pytest", "pytest-xdist", "grimp", "textual", "pyte"} <= installed


def test_every_static_tool_is_in_the_static_or_dev_group() -> None:
    groups = PYPROJECT["dependency-groups"]
    named = {
        re.split(r"[<>=\[;~! ]", requirement, maxsplit=1)[0]
        for group in ("static", "dev")
        for requirement in groups[group]
    }
    assert {"ruff", "mypy", "import-linter", "textual-dev"} <= named


def test_ci_installs_the_static_group_for_the_static_checks() -> None:
    script = (ROOT / ".ci" / "run").read_text("utf-8")
    lines = [line.strip() for line in script.splitlines()]
    commands = [line for line in lines if line.startswith("uv ")]
    assert "uv sync --locked --group static" in commands
    for tool in ("ruff check", "ruff format", "mypy", "lint-imports"):
        (command,) = (c for c in commands if tool in c)
        assert command.startswith("uv run --locked --group static "), command
    # The README's test command, last, exactly as a user types it.
    assert commands[-1] == "uv run pytest"


def test_readme_commands_stay_the_short_ones() -> None:
    assert "| run it | `uv run acp-tui` |" in README
    assert "| test it | `uv run pytest` |" in README


# --- the built wheel and sdist ----------------------------------------------------


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    uv = os.environ.get("UV") or shutil.which("uv")
    if uv is None:  # pragma: no cover - `uv run pytest` always has it
        pytest.skip("uv is not on PATH")
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [uv, "build", "--quiet", "--no-create-gitignore", "--out-dir", str(out)],
        cwd=ROOT,
        check=True,
        timeout=BUILD_BOUND,
    )
    return out


def _wheel(dist: Path) -> zipfile.ZipFile:
    (path,) = dist.glob("acp_tui-*.whl")
    return zipfile.ZipFile(path)


def _sdist_files(dist: Path) -> dict[str, bytes]:
    (path,) = dist.glob("acp_tui-*.tar.gz")
    files: dict[str, bytes] = {}
    with tarfile.open(path) as archive:
        for member in archive.getmembers():
            handle = archive.extractfile(member)
            if handle is not None:
                files[member.name.split("/", 1)[1]] = handle.read()
    return files


SHIPPED_THEMES: Final = sorted(p.name for p in (ROOT / "themes").glob("*.toml"))


def test_wheel_ships_every_example_theme(dist: Path) -> None:
    assert SHIPPED_THEMES, "no example themes in themes/"
    with _wheel(dist) as wheel:
        for name in SHIPPED_THEMES:
            shipped = wheel.read(f"acp_tui/themes/{name}")
            assert shipped == (ROOT / "themes" / name).read_bytes()


def test_installed_wheel_finds_its_themes(dist: Path, tmp_path: Path) -> None:
    """The wheel's acp_tui, imported first, lists and loads the shipped themes."""
    with _wheel(dist) as wheel:
        wheel.extractall(tmp_path / "site")
    probe = (
        "import acp_tui\n"
        "from acp_tui.ui.themes import load_themes, theme_dirs\n"
        "dirs = theme_dirs()\n"
        "themes, errors = load_themes(dirs[:-1])\n"
        "print(acp_tui.__file__)\n"
        "print(dirs[0])\n"
        "print(sorted(t.name for t in themes), errors)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"))
    env["ACP_TUI_HOME"] = str(tmp_path / "home")
    result = subprocess.run(
        [sys.executable, "-c", probe],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    module, first_dir, loaded = result.stdout.splitlines()
    assert Path(module).is_relative_to(tmp_path / "site")
    assert Path(first_dir) == tmp_path / "site" / "acp_tui" / "themes"
    assert loaded == "['acp-solarized-dark', 'paper-light'] []"


def test_sdist_ships_the_readme_images_and_no_caches(dist: Path) -> None:
    files = _sdist_files(dist)
    for image in _readme_images():
        if "://" not in image:
            assert image in files, f"{image} is not in the sdist"
    assert "themes/paper-light.toml" in files
    assert not [name for name in files if name.startswith(".grimp_cache/")]


# --- the hero image ---------------------------------------------------------------


def _readme_images() -> list[str]:
    return re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", README)


def _png_text(png: bytes) -> dict[bytes, bytes]:
    """The `tEXt` chunks of a PNG, checking every chunk's CRC on the way."""
    assert png.startswith(b"\x89PNG\r\n\x1a\n"), "not a PNG"
    texts: dict[bytes, bytes] = {}
    at = 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, data = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", png[at + 8 + length : at + 12 + length])
        assert zlib.crc32(kind + data) == crc, f"bad {kind!r} chunk"
        if kind == b"tEXt":
            key, _, value = data.partition(b"\0")
            texts[key] = value
        at += 12 + length
    return texts


def test_hero_image_works_on_the_package_index() -> None:
    """An absolute URL once the project names its repository, else a shipped PNG."""
    hero = _readme_images()[0]
    urls = PYPROJECT["project"].get("urls", {})
    if urls:  # pragma: no cover - no public repository is named yet
        assert hero.startswith(("https://", "http://")), hero
        return
    assert hero == "screenshots/hero.png"
    assert (ROOT / hero).read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_hero_png_is_drawn_from_the_current_svg() -> None:
    png = (ROOT / "screenshots" / "hero.png").read_bytes()
    svg = (ROOT / "screenshots" / "hero.svg").read_bytes()
    recorded = _png_text(png).get(b"acp-tui-source-sha256", b"").decode()
    assert recorded == hashlib.sha256(svg).hexdigest(), (
        "screenshots/hero.svg changed: run `uv run python scripts/hero_png.py`"
    )


# --- the README's links -----------------------------------------------------------


def test_readme_relative_links_resolve() -> None:
    links = re.findall(r"\]\(([^)\s]+)\)", README)
    relative = [link.split("#")[0] for link in links if "://" not in link]
    relative = [link for link in relative if link]
    assert "docs/benchmarks.md" in relative
    missing = [link for link in relative if not (ROOT / link).exists()]
    assert missing == []


def test_installed_wheel_knows_its_agent_catalogue(dist: Path, tmp_path: Path) -> None:
    """The catalogue ships as data in the wheel, and the installed copy reads it."""
    with _wheel(dist) as wheel:
        shipped = wheel.read("acp_tui/client/catalogue.toml")
        wheel.extractall(tmp_path / "site")
    assert shipped == (ROOT / "acp_tui" / "client" / "catalogue.toml").read_bytes()
    probe = (
        "import acp_tui\n"
        "from acp_tui.client.agents import builtin_agents\n"
        "print(acp_tui.__file__)\n"
        "print(' '.join(builtin_agents()))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"))
    result = subprocess.run(
        [sys.executable, "-c", probe],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    module, names = result.stdout.splitlines()
    assert module.startswith(str(tmp_path / "site"))
    assert {"demo", "claude-code", "codex", "gemini", "opencode"} <= set(names.split())
