"""The v1/v2 seam is one place: the dialects (`client/v1.py`, `client/v2.py`).

No module outside the dialects, the wire models (`protocol/schema`) and
negotiation (`protocol/version.py`, the connection's `connect`) compares protocol
versions; the demo agent is an agent, not the client, and is left out. Both
dialects offer every member of the `Dialect` protocol, and neither imports the
other.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from acp_tui.client import dialect, v1, v2

PACKAGE = Path(__file__).resolve().parents[3] / "acp_tui"

ALLOWED_FILES = {
    "client/v1.py",
    "client/v2.py",
    "client/dialect.py",
    "protocol/version.py",
}
"""Files that may compare versions anywhere (besides `protocol/schema/`)."""

SKIPPED = ("demo/", "protocol/schema/")
"""The demo agent (an agent, not the client) and the wire models."""

NEGOTIATION = {"client/connection.py": {"connect"}}
"""Files whose named functions (negotiation steps) may compare versions."""


def _names_a_version(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id.endswith("version")
    if isinstance(node, ast.Attribute):
        return node.attr.endswith("version")
    return False


def _compares_versions(node: ast.Compare) -> bool:
    """Whether `node` is an `==` / `!=` with an operand named `...version`."""
    equality = any(isinstance(op, ast.Eq | ast.NotEq) for op in node.ops)
    operands = [node.left, *node.comparators]
    return equality and any(_names_a_version(e) for e in operands)


def _version_comparisons(tree: ast.AST) -> list[tuple[int, str | None]]:
    """(line, enclosing top-level function) of each `version ==` / `!=`."""
    found: list[tuple[int, str | None]] = []

    def visit(node: ast.AST, function: str | None) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            function = function or node.name
        if isinstance(node, ast.Compare) and _compares_versions(node):
            found.append((node.lineno, function))
        for child in ast.iter_child_nodes(node):
            visit(child, function)

    visit(tree, None)
    return found


def _checked_files() -> list[Path]:
    return [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if not path.relative_to(PACKAGE)
        .as_posix()
        .startswith(("demo/", "protocol/schema/"))
    ]


def test_only_the_dialects_and_negotiation_compare_versions() -> None:
    offending = []
    for path in _checked_files():
        relative = path.relative_to(PACKAGE).as_posix()
        if relative in ALLOWED_FILES:
            continue
        allowed = NEGOTIATION.get(relative, set())
        for line, function in _version_comparisons(ast.parse(path.read_text())):
            if function not in allowed:
                offending.append(f"acp_tui/{relative}:{line}")
    assert offending == []


def test_the_check_sees_a_comparison() -> None:
    tree = ast.parse("def f(c):\n    return c.protocol_version != 1 or version == 2\n")
    assert [line for line, _ in _version_comparisons(tree)] == [2, 2]


def _protocol_members(protocol: type) -> set[str]:
    return {
        name
        for name in vars(protocol)
        if not name.startswith("_") and name not in {"mro"}
    }


@pytest.mark.parametrize("implementation", [v1.V1Dialect, v2.V2Dialect])
def test_each_dialect_has_every_member(implementation: type) -> None:
    members = _protocol_members(dialect.Dialect)
    assert members
    assert members <= set(dir(implementation))


@pytest.mark.parametrize("implementation", [v1.V1Translator, v2.V2Translator])
def test_each_translator_has_every_member(implementation: type) -> None:
    members = _protocol_members(dialect.SessionTranslator)
    assert members
    assert members <= set(dir(implementation))


@pytest.mark.parametrize(
    ("module", "other"), [("v1.py", "client.v2"), ("v2.py", "client.v1")]
)
def test_a_dialect_never_imports_the_other(module: str, other: str) -> None:
    tree = ast.parse((PACKAGE / "client" / module).read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            imported.add(node.module)
            imported.update(f"{node.module}.{alias.name}" for alias in node.names)
    assert f"acp_tui.{other}" not in imported
