"""`process_tree`: who belongs to a command's lineage, and which zombies are reaped.

The first tests read a fake `/proc` (no process is signalled or reaped: `os.kill`
and the reaping are replaced); the last ones use real processes and the real
subreaper, bounded by `anyio.fail_after`.
"""

from __future__ import annotations

import ctypes
import logging
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import anyio
import pytest

from acp_tui import process_tree
from acp_tui.process_group import start_in_new_group
from acp_tui.process_tree import (
    MARKER_VARIABLE,
    Lineage,
    enable_subreaper,
    read_processes,
    sweep,
)
from tests.processes import pid_exists

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="/proc and prctl are Linux's"
)

OWN: Final = os.getpid()
LEADER: Final = 5000
MARKER: Final = "0123456789abcdef"


@dataclass
class FakeProc:
    """A fake `/proc`: one directory per process, with `stat`, `environ`, `fd/`."""

    root: Path
    channel: Path
    """A file standing for the command's terminal (fds linking to it hold it)."""
    states: dict[int, str] = field(default_factory=dict)

    def add(
        self,
        pid: int,
        ppid: int,
        *,
        pgrp: int | None = None,
        session: int | None = None,
        state: str = "S",
        start: int = 100,
        env: dict[str, str] | None = None,
        holds_channel: bool = False,
    ) -> None:
        directory = self.root / str(pid)
        if directory.exists():  # the pid again: a new process, or a changed one
            shutil.rmtree(directory)
        directory.mkdir()
        pgrp = pid if pgrp is None else pgrp
        session = pgrp if session is None else session
        after = " ".join(["0"] * 15)  # tty_nr ... itrealvalue
        (directory / "stat").write_text(
            f"{pid} (odd) name)) {state} {ppid} {pgrp} {session} {after} {start} 0\n"
        )
        variables = env or {"PATH": "/bin"}
        (directory / "environ").write_bytes(
            b"".join(f"{k}={v}\0".encode() for k, v in variables.items())
        )
        fds = directory / "fd"
        fds.mkdir()
        (fds / "0").symlink_to(os.devnull)
        if holds_channel:
            (fds / "1").symlink_to(self.channel)
        task = directory / "task" / str(pid)
        task.mkdir(parents=True)
        (task / "children").write_text("")
        self.states[pid] = state

    def link_children(self) -> None:
        """Fill each `task/PID/children` from the `stat` files."""
        processes = read_processes(self.root) or {}
        for pid in processes:
            kids = [str(p.pid) for p in processes.values() if p.ppid == pid]
            (self.root / str(pid) / "task" / str(pid) / "children").write_text(
                " ".join(kids)
            )

    def lineage(self) -> Lineage:
        info = os.stat(self.channel)
        return Lineage(LEADER, MARKER, (info.st_dev, info.st_ino), proc=self.root)


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeProc:
    """acp-tui (this process) with an agent, and a terminal whose command is
    `LEADER`; the subreaper on, as it is once a terminal runs."""
    root = tmp_path / "proc"
    root.mkdir()
    (root / "self").mkdir()
    channel = tmp_path / "pts-7"
    channel.write_text("")
    proc = FakeProc(root, channel)
    proc.add(1, 0)
    proc.add(OWN, 1, pgrp=OWN, session=OWN)
    proc.add(4000, OWN)  # the agent
    proc.add(4001, 4000, pgrp=4000)  # the agent's child
    proc.add(LEADER, OWN, env={MARKER_VARIABLE: MARKER})
    monkeypatch.setattr(process_tree, "_enabled", True)
    return proc


def members(fake: FakeProc) -> set[int]:
    return set(fake.lineage().members() or {})


# -- who belongs to the lineage -------------------------------------------------------


def test_the_leader_its_group_and_its_session_are_members(fake: FakeProc) -> None:
    fake.add(5001, LEADER, pgrp=LEADER)
    fake.add(5002, LEADER, pgrp=5002, session=LEADER)  # setpgid
    assert members(fake) == {LEADER, 5001, 5002}


def test_an_escapee_with_the_marker_is_a_member_wherever_it_sits(
    fake: FakeProc,
) -> None:
    """A daemon re-parented to acp-tui, in a session of its own, marker kept."""
    fake.add(5003, OWN, pgrp=5003, env={"A": "1", MARKER_VARIABLE: MARKER})
    fake.add(5004, 5003, pgrp=5003)  # its child, environment emptied
    assert members(fake) == {LEADER, 5003, 5004}


def test_an_escapee_holding_the_terminal_is_a_member(fake: FakeProc) -> None:
    fake.add(5005, OWN, pgrp=5005, env={}, holds_channel=True)
    assert members(fake) == {LEADER, 5005}


def test_an_escapee_linked_only_by_the_tree_is_a_member(fake: FakeProc) -> None:
    fake.add(5006, LEADER, pgrp=5006, env={})  # setsid, empty environment
    assert members(fake) == {LEADER, 5006}


def test_a_member_seen_before_stays_one_while_its_pid_is_its_own(
    fake: FakeProc,
) -> None:
    """Seen under the leader, then orphaned without a marker: still a member; but
    once its pid is reused (another start time), the newcomer is not."""
    fake.add(5007, LEADER, pgrp=5007, env={}, start=200)
    lineage = fake.lineage()
    assert set(lineage.members() or {}) == {LEADER, 5007}
    fake.add(5007, OWN, pgrp=5007, env={}, start=200)  # the leader exited
    assert set(lineage.members() or {}) == {LEADER, 5007}
    fake.add(5007, OWN, pgrp=5007, env={}, start=900)  # a new process
    assert set(lineage.members() or {}) == {LEADER}


def test_other_processes_are_not_members(fake: FakeProc) -> None:
    fake.add(5008, 1, pgrp=5008, env={MARKER_VARIABLE: "another-terminal"})
    fake.add(5009, OWN, pgrp=5009, env={MARKER_VARIABLE: MARKER + "0"})
    assert members(fake) == {LEADER}


def test_not_below_acp_tui_is_not_looked_at_with_the_subreaper(
    fake: FakeProc,
) -> None:
    """With the subreaper, every descendant stays below acp-tui: a marked
    process elsewhere (copied environment, another app) is none of ours."""
    fake.add(5010, 1, pgrp=5010, env={MARKER_VARIABLE: MARKER})
    assert members(fake) == {LEADER}


def test_without_the_subreaper_orphans_under_init_are_found(
    fake: FakeProc, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(process_tree, "_enabled", False)
    fake.add(5011, 1, pgrp=5011, env={MARKER_VARIABLE: MARKER})
    assert members(fake) == {LEADER, 5011}


def test_other_sessions_of_spawns_are_not_looked_into(
    fake: FakeProc, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process in the agent's session (or another command's) can never have
    come from this command: no environment or descriptor of it is read."""
    fake.add(4002, 4000, pgrp=4002, session=4000, holds_channel=True)
    monkeypatch.setattr(process_tree, "is_live_spawn", lambda pid: pid == 4000)
    assert members(fake) == {LEADER}


def test_signal_escapees_signals_the_live_ones_outside_the_group(
    fake: FakeProc, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.add(5012, LEADER, pgrp=LEADER)
    fake.add(5013, LEADER, pgrp=5013, session=5013)
    fake.add(5014, LEADER, pgrp=5014, session=5014, state="Z")
    sent: list[tuple[int, int]] = []
    monkeypatch.setattr(os, "kill", lambda pid, sig: sent.append((pid, sig)))
    lineage = fake.lineage()
    assert lineage.signal_escapees(signal.SIGTERM, lineage.members()) == 1
    assert sent == [(5013, signal.SIGTERM)]


def test_no_proc_no_members(tmp_path: Path) -> None:
    lineage = Lineage(LEADER, MARKER, proc=tmp_path / "missing")
    assert lineage.members() is None
    assert lineage.signal_escapees(signal.SIGKILL, None) == 0
    assert lineage.reap()


# -- reaping ------------------------------------------------------------------------


@pytest.fixture
def reaped(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    monkeypatch.setattr(process_tree, "_reap", calls.append)
    return calls


def test_reap_takes_zombie_members_that_are_our_children_never_the_leader(
    fake: FakeProc, reaped: list[int]
) -> None:
    fake.add(LEADER, OWN, state="Z", env={})
    fake.add(5015, OWN, pgrp=LEADER, state="Z")  # orphaned, died
    fake.add(5016, 5017, pgrp=LEADER, state="Z")  # its parent has not reaped it
    fake.add(5017, OWN, pgrp=LEADER, state="S")
    lineage = fake.lineage()
    assert not lineage.reap()
    assert reaped == [5015]


def test_reap_leaves_zombies_that_will_never_be_ours(
    fake: FakeProc, reaped: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the subreaper, an orphan's zombie is init's: nothing to wait for."""
    monkeypatch.setattr(process_tree, "_enabled", False)
    fake.add(5018, 1, pgrp=LEADER, state="Z")
    lineage = fake.lineage()
    assert 5018 in (lineage.members() or {})
    assert lineage.reap()
    assert reaped == []


def test_reap_reports_when_only_the_leader_is_left(
    fake: FakeProc, reaped: list[int]
) -> None:
    fake.add(5015, OWN, pgrp=LEADER, state="Z")
    assert fake.lineage().reap()
    assert reaped == [5015]


def test_the_sweep_reaps_a_zombie_orphan_after_the_grace(
    fake: FakeProc, reaped: list[int]
) -> None:
    fake.add(6000, OWN, pgrp=6000, state="Z")  # an agent's orphan, exited
    fake.add(6001, OWN, pgrp=6001, state="S")  # alive: left alone
    fake.add(6002, 4000, pgrp=4000, state="Z")  # the agent's to reap
    fake.link_children()
    due = round(process_tree.ORPHAN_GRACE / process_tree.SWEEP_INTERVAL)
    zombies: dict[tuple[int, int], int] = {}
    for _ in range(due):
        zombies = sweep(zombies, proc=fake.root)
        assert reaped == []
    sweep(zombies, proc=fake.root)
    assert reaped == [6000]


def test_the_sweep_never_reaps_a_live_spawn(
    fake: FakeProc, reaped: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A zombie that asyncio has not reaped yet keeps its exit status for it."""
    fake.add(6003, OWN, pgrp=6003, state="Z")
    fake.link_children()
    monkeypatch.setattr(process_tree, "is_live_spawn", lambda pid: pid == 6003)
    zombies: dict[tuple[int, int], int] = {}
    for _ in range(20):
        zombies = sweep(zombies, proc=fake.root)
    assert reaped == []


def test_the_sweep_counts_a_reused_pid_anew(fake: FakeProc, reaped: list[int]) -> None:
    fake.add(6004, OWN, pgrp=6004, state="Z", start=300)
    fake.link_children()
    due = round(process_tree.ORPHAN_GRACE / process_tree.SWEEP_INTERVAL)
    zombies: dict[tuple[int, int], int] = {}
    for _ in range(due):
        zombies = sweep(zombies, proc=fake.root)
    fake.add(6004, OWN, pgrp=6004, state="Z", start=301)
    sweep(zombies, proc=fake.root)
    assert reaped == []


def test_a_refused_prctl_leaves_the_subreaper_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(process_tree, "_enabled", False)
    calls: list[tuple[int, ...]] = []

    def refuse(*args: int) -> int:
        calls.append(args)
        return -1

    assert not enable_subreaper(refuse)
    assert calls == [(36, 1, 0, 0, 0)]
    assert not process_tree.subreaper_enabled()


# -- real processes ------------------------------------------------------------------

BOUND: Final = 15

_PR_GET_CHILD_SUBREAPER: Final = 37


@pytest.mark.subprocess
async def test_orphans_are_reaped_and_asyncio_keeps_its_childrens_status(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """With the subreaper on, an orphan (here a shell's background `sleep`, the
    shell gone) becomes this process's child and is reaped once it exits, while
    every child asyncio waits for still gets its own exit status."""
    assert enable_subreaper()
    flag = ctypes.c_int(0)
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0) == 0
    assert flag.value == 1
    monkeypatch.setattr(process_tree, "SWEEP_INTERVAL", 0.05)
    monkeypatch.setattr(process_tree, "ORPHAN_GRACE", 0.2)
    caplog.set_level(logging.WARNING)
    with anyio.fail_after(BOUND):
        done = await anyio.run_process(["sh", "-c", "sleep 1 >/dev/null & echo $!"])
        orphan = int(done.stdout)
        processes = read_processes() or {}
        assert processes[orphan].ppid == OWN  # the shell is gone: it came to us
        statuses: list[int] = []

        async def run(code: int) -> None:
            process = await start_in_new_group(
                ["sh", "-c", f"exit {code}"],
                cwd=None,
                env=dict(os.environ),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            statuses.append(await process.wait())
            await process.aclose()
            plain = await anyio.run_process(["sh", "-c", f"exit {code}"], check=False)
            statuses.append(plain.returncode)

        async with anyio.create_task_group() as group:
            for code in range(1, 21):
                group.start_soon(run, code)
        while pid_exists(orphan):  # noqa: ASYNC110 - reaped by the sweeper thread
            await anyio.sleep(0.02)
    assert sorted(statuses) == sorted(list(range(1, 21)) * 2)
    assert "Unknown child process" not in caplog.text
