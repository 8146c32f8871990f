"""The assert-rewrite cache written before the xdist workers start (issue 28)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc

from tests import assert_cache

FAILING = "def test_it():\n    seen = [1, 2]\n    assert seen == [1, 3]\n"


def test_the_cache_holds_pytests_rewritten_module(tmp_path: Path) -> None:
    module = tmp_path / "test_it.py"
    module.write_text(FAILING)
    assert_cache.prepare([module], 1)
    code = _read_pyc(module, tmp_path / "__pycache__" / f"test_it{PYC_TAIL}")
    assert code is not None, "no valid cached pyc"
    space: dict[str, object] = {}
    exec(code, space)
    test = space["test_it"]
    assert callable(test)
    with pytest.raises(AssertionError) as raised:
        test()
    # Rewritten: the failure explains itself (a plain assert says nothing).
    assert "[1, 2] == [1, 3]" in str(raised.value)


def test_a_changed_module_is_rewritten_again(tmp_path: Path) -> None:
    module = tmp_path / "test_it.py"
    module.write_text(FAILING)
    assert_cache.prepare([module], 1)
    module.write_text(FAILING.replace("[1, 3]", "[1, 4]"))
    pyc = tmp_path / "__pycache__" / f"test_it{PYC_TAIL}"
    assert _read_pyc(module, pyc) is None, "pytest would take the stale pyc"
    assert_cache.prepare([module], 1)
    assert _read_pyc(module, pyc) is not None


def test_the_modules_are_those_pytest_rewrites(tmp_path: Path) -> None:
    root = tmp_path
    (root / "tests" / "ui").mkdir(parents=True)
    for name in (
        "tests/conftest.py",
        "tests/ui/conftest.py",
        "tests/ui/test_a.py",
        "tests/ui/helpers.py",
        "tests/ui/scenes.py",
        "tests/check_b.py",
    ):
        (root / name).write_text("")
    helper = root / "tests" / "ui" / "helpers.py"
    found = assert_cache.modules(
        [root / "tests" / "ui"], root, ["test_*.py", "check_*.py"], [helper]
    )
    assert found == [
        root / "tests" / "conftest.py",
        root / "tests" / "ui" / "conftest.py",
        helper,
        root / "tests" / "ui" / "test_a.py",
    ]
    whole = assert_cache.modules([root / "tests"], root, ["check_*.py"], [])
    assert root / "tests" / "check_b.py" in whole
    assert root / "tests" / "ui" / "test_a.py" not in whole
