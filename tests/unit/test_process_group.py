"""`group_alive`: live members count, zombies do not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from acp_tui.process_group import group_alive

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="no process groups")


def fake_proc(root: Path, members: dict[int, tuple[str, int]]) -> Path:
    """A /proc with one `stat` per pid: (state, process group)."""
    (root / "self").mkdir(parents=True)
    for pid, (state, pgrp) in members.items():
        (root / str(pid)).mkdir()
        comm = "(odd) name )"  # comm may hold spaces and parentheses
        (root / str(pid) / "stat").write_text(f"{pid} {comm} {state} 1 {pgrp} 0 0\n")
    (root / "meminfo").write_text("not a process\n")
    return root


def test_a_group_of_only_zombies_is_not_alive(tmp_path: Path) -> None:
    pgid = os.getpgid(0)  # exists, so the signal check passes
    proc = fake_proc(tmp_path / "proc", {101: ("Z", pgid), 102: ("S", pgid + 1)})
    assert not group_alive(pgid, proc=proc)


def test_a_live_member_keeps_the_group_alive(tmp_path: Path) -> None:
    pgid = os.getpgid(0)
    proc = fake_proc(tmp_path / "proc", {101: ("Z", pgid), 103: ("S", pgid)})
    assert group_alive(pgid, proc=proc)


def test_without_proc_the_signal_decides(tmp_path: Path) -> None:
    assert group_alive(os.getpgid(0), proc=tmp_path / "no-proc")


@pytest.mark.subprocess
def test_a_real_group_is_alive_until_its_members_exit() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"],
        stdin=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert group_alive(child.pid)
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=10)
    assert not group_alive(child.pid)
