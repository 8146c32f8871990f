"""`display_path`: paths relative to the session's directory, `~`, shortened left."""

from __future__ import annotations

import posixpath
from collections.abc import Callable

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from rich.cells import cell_len

from acp_tui.display_paths import (
    ELLIPSIS,
    PathDisplay,
    cell_width,
    display_path,
)
from acp_tui.safe_text import printable

CWD = "/home/ann/proj"
HOME = "/home/ann"


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("/home/ann/proj/src/greeting.py", "src/greeting.py"),
        ("/home/ann/proj/notes.txt", "notes.txt"),
        ("/home/ann/proj", "."),
        ("/home/ann/proj/", "."),
        ("/home/ann/proj/./src//a.py", "src/a.py"),
        ("/home/ann/project2/a.py", "~/project2/a.py"),  # a sibling, not inside
        ("/home/ann/other/a.py", "~/other/a.py"),
        ("/home/ann", "~"),
        ("/home/ann/proj/../secret.txt", "~/secret.txt"),  # `..` never reads inside
        ("/home/annie/a.py", "/home/annie/a.py"),
        ("/etc/passwd", "/etc/passwd"),
        ("/", "/"),
        # Outside both, or relative already: exactly as sent (made printable).
        ("//srv/x", "//srv/x"),
        ("/etc/../srv/./x", "/etc/../srv/./x"),
        ("/p/[/]https://evil", "/p/[/]https://evil"),
        ("src/a.py", "src/a.py"),
        ("./src/a.py", "./src/a.py"),
        ("/home/ann/proj/~/a.py", "./~/a.py"),  # never read as the home directory
        ("", ""),
    ],
)
def test_relative_home_or_absolute(path: str, shown: str) -> None:
    assert display_path(path, CWD, HOME) == shown


def test_without_a_directory_or_home_the_path_stays_absolute() -> None:
    assert display_path("/home/ann/proj/a.py") == "/home/ann/proj/a.py"
    assert display_path("/home/ann/proj/a.py", None, HOME) == "~/proj/a.py"
    assert display_path("/home/ann/proj/a.py", CWD, None) == "a.py"


def test_a_root_directory_or_home_is_not_used() -> None:
    """Everything lies under `/`: `/etc/passwd` would read `etc/passwd`."""
    assert display_path("/etc/passwd", "/", "/") == "/etc/passwd"
    assert display_path("/etc/passwd", "relative/dir", "also/relative") == "/etc/passwd"


def test_control_characters_are_escaped() -> None:
    shown = display_path("/home/ann/proj/\x1b[31mred\x07.py", CWD, HOME)
    assert shown == "\\x1b[31mred\\x07.py"
    assert display_path("/tmp/a\nb", CWD, HOME) == "/tmp/a\\nb"
    # `printable` drops joiners; a component of nothing else is escaped instead,
    # or `/home/ann/proj/\u200c/a` would read `/a`.
    assert display_path("/home/ann/proj/\u200c/a", CWD, HOME) == "\\u200c/a"


@pytest.mark.parametrize(
    ("path", "width", "shown"),
    [
        ("/home/ann/proj/src/greeting.py", 40, "src/greeting.py"),
        ("/home/ann/proj/src/greeting.py", 15, "src/greeting.py"),
        ("/home/ann/proj/src/greeting.py", 14, "…/greeting.py"),
        ("/tmp/demo/data/src/greeting.py", 20, "…/src/greeting.py"),
        ("/tmp/demo/data/src/greeting.py", 22, "…/data/src/greeting.py"),
        ("/home/ann/x/y/z/greeting.py", 16, "…/z/greeting.py"),
        ("/home/ann/x/y/z/greeting.py", 13, "…/greeting.py"),
        # The name alone fits, with "…/" it would not: the name, whole.
        ("/home/ann/x/greeting.py", 12, "greeting.py"),
        ("/home/ann/x/greeting.py", 11, "greeting.py"),
        ("/srv/x/y/build/", 9, "…/build/"),  # a directory's name keeps its `/`
        # Only a name too long by itself is cut, from the left (its end stays).
        ("/home/ann/x/greeting.py", 8, "…ting.py"),
        ("/home/ann/x/greeting.py", 1, "…"),
        ("/home/ann/proj", 1, "."),
    ],
)
def test_shortened_from_the_left_at_component_boundaries(
    path: str, width: int, shown: str
) -> None:
    assert display_path(path, CWD, HOME, width) == shown


def test_wide_characters_count_two_cells() -> None:
    path = "/data/日本語/ファイル.txt"  # 6 + 6 + 1 + 12 cells
    assert cell_width("ファイル.txt") == 12
    assert display_path(path, width=25) == "/data/日本語/ファイル.txt"
    assert display_path(path, width=24) == "…/日本語/ファイル.txt"  # 21 cells
    assert display_path(path, width=20) == "…/ファイル.txt"
    assert display_path(path, width=14) == "…/ファイル.txt"
    assert display_path(path, width=11) == "…ァイル.txt"
    assert display_path(path, width=10) == "…イル.txt"  # 9 cells: ァ would make 11


def test_a_measure_can_be_given() -> None:
    """The UI measures with Rich, whose table is newer than `unicodedata`'s."""

    def doubled(text: str) -> int:
        return 2 * len(text)

    assert display_path("/a/bb/cc", width=10, measure=doubled) == "…/cc"


def test_the_stdlib_measure_agrees_with_rich_on_common_text() -> None:
    samples = ["greeting.py", "日本語", "ファイル", "café", "cafe\u0301", "😀", "Ωmega"]
    for sample in samples:
        assert cell_width(sample) == cell_len(sample), sample


def test_path_display_shows_and_gives_the_full_path() -> None:
    paths = PathDisplay(CWD, HOME)
    assert paths.show("/home/ann/proj/src/a.py") == "src/a.py"
    assert paths.show("/home/ann/proj/src/a.py", 6) == "…/a.py"
    assert paths.full("/home/ann/proj/src/\x1ba.py") == "/home/ann/proj/src/\\x1ba.py"
    assert PathDisplay().show("/home/ann/proj/a.py") == "/home/ann/proj/a.py"


def test_path_display_for_a_session_uses_the_users_home(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOME", "/home/bob")
    paths = PathDisplay.for_session("/work/proj")
    assert paths.show("/work/proj/a.py") == "a.py"
    assert paths.show("/home/bob/notes/b.md") == "~/notes/b.md"
    assert PathDisplay.for_session(None).show("/work/proj/a.py") == "/work/proj/a.py"


# --- properties -------------------------------------------------------------

_SEGMENT = st.text(
    st.characters(exclude_characters="/\x00", exclude_categories=["Cs"]),
    min_size=1,
    max_size=12,
).filter(lambda part: part not in (".", "..") and printable(part) != "")
_PARTS = st.lists(_SEGMENT, min_size=1, max_size=6)
_BASES = st.sampled_from(["/home/ann/proj", "/tmp/demo/ws-1", "/srv"])
_WIDTHS = st.integers(min_value=1, max_value=60)
_MEASURES: list[Callable[[str], int]] = [cell_width, cell_len]


def _name(parts: list[str]) -> str:
    return printable(parts[-1])


@given(base=_BASES, parts=_PARTS, width=_WIDTHS, measure=st.sampled_from(_MEASURES))
@example(base="/home/ann/proj", parts=["ファイル.txt"], width=3, measure=cell_width)
def test_the_result_fits_the_width(
    base: str, parts: list[str], width: int, measure: Callable[[str], int]
) -> None:
    path = posixpath.join(base, *parts)
    shown = display_path(path, CWD, HOME, width, measure=measure)
    assert measure(shown) <= width


@given(base=_BASES, parts=_PARTS, width=st.none() | _WIDTHS)
def test_the_result_ends_with_the_file_name_when_it_fits(
    base: str, parts: list[str], width: int | None
) -> None:
    path = posixpath.join(base, *parts)
    name = _name(parts)
    shown = display_path(path, CWD, HOME, width)
    if width is None or cell_width(name) <= width:
        assert shown.endswith(name)
    else:  # cut from the left: the name's end stays
        assert shown.startswith(ELLIPSIS)
        assert name.endswith(shown[len(ELLIPSIS) :])


@given(parts=_PARTS)
def test_a_relative_result_joined_to_the_directory_gives_the_path(
    parts: list[str],
) -> None:
    path = posixpath.join(CWD, *parts)
    shown = display_path(path, CWD, HOME)
    assert not shown.startswith(("/", "~"))
    if all(part.isprintable() for part in parts):  # nothing escaped
        assert posixpath.normpath(posixpath.join(CWD, shown)) == posixpath.normpath(
            path
        )


@given(base=_BASES, parts=_PARTS)
def test_home_paths_outside_the_directory_read_from_home(
    base: str, parts: list[str]
) -> None:
    path = posixpath.join(base, *parts)
    shown = display_path(path, "/elsewhere", HOME)
    if base.startswith(HOME + "/"):
        assert shown.startswith("~/")
        if all(part.isprintable() for part in parts):
            assert posixpath.join(HOME, shown[2:]) == posixpath.normpath(path)
    else:
        assert shown == printable(path)


@given(base=_BASES, parts=_PARTS, width=_WIDTHS)
def test_a_shortened_result_is_the_tail_of_the_whole(
    base: str, parts: list[str], width: int
) -> None:
    path = posixpath.join(base, *parts)
    whole = display_path(path, CWD, HOME)
    shown = display_path(path, CWD, HOME, width)
    assert shown.isprintable()
    if shown == whole:
        return
    if shown.startswith(ELLIPSIS + "/"):
        assert whole.endswith(shown[len(ELLIPSIS) :])  # at a "/" boundary
    elif shown.startswith(ELLIPSIS):
        assert whole.endswith(shown[len(ELLIPSIS) :])
    else:
        assert shown == _name(parts)  # the name alone


@given(text=st.text())
def test_any_text_is_shown_printable_and_never_raises(text: str) -> None:
    for width in (None, 1, 5, 30):
        shown = display_path(text, CWD, HOME, width)
        assert shown.isprintable() or shown == ""
        if width is not None:
            assert cell_width(shown) <= width
