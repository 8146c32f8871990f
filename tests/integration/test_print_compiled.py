"""`acp-tui print` reuses the code its start-up compiled in an earlier run
(`frontends.print_compiled`; issue 28).

Every dataclass method (`dataclasses` compiles their source text) and every
string annotation pydantic resolves (`typing.ForwardRef` compiles it) was
compiled again by every `print` run: about 2,500 compilations, 60-70 ms of
its start-up.
"""

from __future__ import annotations

import dataclasses
import json
import marshal
import os
import subprocess
import sys
import typing
from pathlib import Path
from types import CodeType
from typing import Any

import pytest

from acp_tui.frontends.print_compiled import (
    CompiledSources,
    cache_file,
    compiled_code_reused,
)
from tests.integration.print_probe import AGENT

# Counts the texts compiled for dataclasses and annotations while `print` runs:
# `exec` of a text by `dataclasses` (without the cache), `compile` of a text by
# `typing` (`ForwardRef`, without the cache) or by the cache (what it misses).
PROBE = """
import builtins, io, json, os, sys
from acp_tui import cli
texts = []
real_exec, real_compile = builtins.exec, builtins.compile
def caller():
    return sys._getframe(2).f_globals.get("__name__")
def counting_exec(source, *args, **kwargs):
    if isinstance(source, str) and caller() == "dataclasses":
        texts.append(source)
    return real_exec(source, *args, **kwargs)
def counting_compile(source, *args, **kwargs):
    if isinstance(source, str) and caller() in COMPILERS:
        texts.append(source)
    return real_compile(source, *args, **kwargs)
COMPILERS = {"typing", "acp_tui.frontends.print_compiled"}
builtins.exec, builtins.compile = counting_exec, counting_compile
out, sys.stdout = sys.stdout, io.StringIO()
code = cli.main(["--agent", sys.argv[1], "print", "--format", "json", "go"])
document, sys.stdout = sys.stdout.getvalue(), out
builtins.exec, builtins.compile = real_exec, real_compile
seen = {"code": code, "compiled": texts, "document": document}
print(json.dumps(seen))
"""


def _print_run(home: Path, bytecode: Path) -> dict[str, Any]:
    completed = subprocess.run(
        [sys.executable, "-c", PROBE, f"{sys.executable} {AGENT} 50"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env={
            "ACP_TUI_HOME": str(home),
            "PATH": "/usr/bin:/bin",
            "PYTHONPYCACHEPREFIX": str(bytecode),
        },
    )
    result: dict[str, Any] = json.loads(completed.stdout.splitlines()[-1])
    assert result["code"] == 0, completed.stderr
    return result


@pytest.mark.subprocess
def test_a_second_print_compiles_no_text_its_first_compiled(tmp_path: Path) -> None:
    first = _print_run(tmp_path / "home", tmp_path / "bytecode")
    second = _print_run(tmp_path / "home", tmp_path / "bytecode")
    assert len(first["compiled"]) > 500  # (the probe sees what is compiled)
    assert second["compiled"] == []
    assert second["document"] == first["document"]
    kept = list((tmp_path / "bytecode").rglob("print_compiled.*.codes"))
    assert len(kept) == 1  # beside the bytecode, not in the user's home
    assert not list((tmp_path / "home").rglob("*.codes"))


def test_nothing_is_written_without_bytecode_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # PYTHONDONTWRITEBYTECODE
    path = tmp_path / "kept.codes"
    with compiled_code_reused(path) as sources:
        sources.exec("x = 1", {})
    assert sources.added == 1
    assert not path.exists()


SOURCE = """
@dataclasses.dataclass(frozen=True, slots=True)
class Point:
    x: int
    y: "list[str]" = dataclasses.field(default_factory=list)
    z: typing.ClassVar[int] = 3
"""


def _point() -> type[Any]:
    namespace: dict[str, Any] = {"dataclasses": dataclasses, "typing": typing}
    exec(SOURCE, namespace)
    point: type[Any] = namespace["Point"]
    return point


def _hints(cls: type[Any]) -> dict[str, Any]:
    return typing.get_type_hints(cls, {"typing": typing})


def _codes(cls: type[Any]) -> dict[str, bytes]:
    methods = {
        name: value
        for name, value in vars(cls).items()
        if callable(value) and hasattr(value, "__code__")
    }
    return {name: marshal.dumps(f.__code__) for name, f in methods.items()}


def test_reused_code_makes_the_classes_the_text_makes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "kept.codes"
    plain = _point()
    with compiled_code_reused(path) as filling:
        filled = _point()
        hint = _hints(filled)
    assert filling.added > 3
    with compiled_code_reused(path) as reusing:
        reused = _point()
        reused_hint = _hints(reused)
    assert reusing.added == 0
    assert reusing.used  # (every text found)
    assert _codes(plain) == _codes(filled) == _codes(reused)
    assert set(_codes(plain)) >= {"__init__", "__repr__", "__eq__", "__setattr__"}
    assert hint == reused_hint == {"x": int, "y": list[str], "z": typing.ClassVar[int]}
    assert hint == _hints(plain)
    assert reused(1, ["a"]) == reused(1, ["a"]) != reused(2)
    assert repr(reused(1, ["a"])) == repr(plain(1, ["a"])) == "Point(x=1, y=['a'], z=3)"
    with pytest.raises(dataclasses.FrozenInstanceError):
        reused(1).x = 2
    assert "exec" not in vars(dataclasses)  # the hooks are gone
    assert "compile" not in vars(typing)


def _cached(path: Path, mode: int, header: str | None = None) -> None:
    """A cache file that says the text `pass` compiles to `x = 1`."""
    sources = CompiledSources()
    sources.code("x = 1", "exec")
    fake: CodeType = sources.codes[("exec", "x = 1")]
    from acp_tui.frontends import print_compiled

    data = (header or print_compiled._HEADER, {("exec", "pass"): fake})
    path.write_bytes(marshal.dumps(data))
    path.chmod(mode)


@pytest.mark.parametrize(
    ("mode", "header", "used"),
    [
        (0o600, None, True),
        (0o644, None, True),
        (0o664, None, False),  # others may write it: it holds code
        (0o646, None, False),
        (0o600, "acp-tui compiled code|another python|4", False),
    ],
)
def test_only_the_users_own_file_of_this_python_is_read(
    tmp_path: Path, mode: int, header: str | None, used: bool
) -> None:
    path = tmp_path / "kept.codes"
    _cached(path, mode, header)
    namespace: dict[str, Any] = {}
    with compiled_code_reused(path) as sources:
        sources.exec("pass", namespace)
    assert ("x" in namespace) is used


def test_an_unreadable_file_is_compiled_around_and_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "kept.codes"
    path.write_bytes(b"\x00not marshal")
    with compiled_code_reused(path) as sources:
        namespace: dict[str, Any] = {}
        sources.exec("y = 2", namespace)
    assert namespace["y"] == 2
    with compiled_code_reused(path) as again:
        again.exec("y = 2", namespace)
    assert again.added == 0
    assert os.stat(path).st_mode & 0o077 == 0  # (written privately)


def test_the_file_is_beside_this_modules_bytecode() -> None:
    from acp_tui.frontends import print_compiled

    bytecode = Path(print_compiled.__spec__.cached or "")
    assert cache_file() == bytecode.with_suffix(".codes")
