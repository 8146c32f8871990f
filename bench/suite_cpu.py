"""Where the machine's CPU goes during a test run: bench/suite.py's `--cpu`.

The suite's wall time on 2 cores is bound by the CPU of every process it starts,
and most of that is not the test processes' own (tests/cpu_times.py counts only
theirs): real agents (Node, opencode), demo and fake agents, `acp-tui bridge` and
CLI runs, Chromium. `Sampler` polls /proc every `PERIOD` seconds and charges each
process of the run's tree its CPU time (user + system, /proc/<pid>/stat) by kind
(`kind`, from its command line) and by the test file its test process was running
then (bench/suite_log.py writes when each test starts). A process that lives less
than a period is seen late or not at all: its CPU shows up in its parent's waited-
for children's time (`unseen`). `demand` is the mean number of the tree's threads
that ran or waited to run (/proc/<pid>/schedstat): near 2, the 2 cores were the
bound; below it, the run waited on something else.
"""

from __future__ import annotations

import os
import threading
import time
from bisect import bisect_right
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from tests.conftest import work_unit

PERIOD: Final = 0.2
TICK: Final = os.sysconf("SC_CLK_TCK")

KINDS: Final = (
    ("ts_sdk_agent", "ts-sdk peer"),
    ("pysdk", "python-sdk peer"),
    ("claude", "claude-agent-acp"),
    ("opencode", "opencode"),
    ("codex", "codex-acp"),
    ("gemini", "gemini-cli"),
    ("acp_tui.demo", "demo agent"),
    ("acp_tui bridge", "acp-tui bridge"),
    ("tests/fakes/", "fake agent"),
    ("chrom", "chromium"),
    ("acp_tui", "acp-tui cli"),
)
"""(what the command line holds, the kind), first match wins; else the parent's.
The run's own process is the `CONTROLLER`, its children `TEST_PROCESS`es."""

CONTROLLER: Final = "pytest (xdist controller)"
TEST_PROCESS: Final = "test process (pytest worker)"


def kind(command: str, parent: str) -> str:
    """The kind of a process, from its command line or else its parent's kind."""
    for marker, name in KINDS:
        if marker in command:
            return name
    return parent


@dataclass
class _Process:
    kind: str
    worker: int
    parent: _Process | None = None
    cpu: int = 0
    children: int = 0
    waited: int = 0
    gone: bool = False


def _stat(pid: str) -> tuple[int, int, int, str] | None:
    """(parent pid, own CPU ticks, waited-for children's ticks, start time)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[1].split()
    own = int(fields[11]) + int(fields[12])
    return int(fields[1]), own, int(fields[13]) + int(fields[14]), fields[19]


def _waited_ns(pid: str) -> int:
    try:
        run, wait = Path(f"/proc/{pid}/schedstat").read_text().split()[:2]
    except (OSError, ValueError):
        return 0
    return int(run) + int(wait)


def _command(pid: str) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    return raw.replace(b"\0", b" ").decode(errors="replace")


@dataclass
class Sampler:
    """Polls the process tree under `root` in a thread until `stop()`."""

    root: int
    log_dir: Path
    by_kind: Counter[str] = field(default_factory=Counter)
    by_unit: defaultdict[str, Counter[str]] = field(
        default_factory=lambda: defaultdict(Counter)
    )
    demand_s: float = 0.0
    machine: int = 0
    started: float = field(default_factory=time.monotonic)
    _known: dict[tuple[str, str], _Process] = field(default_factory=dict)
    _by_pid: dict[int, _Process] = field(default_factory=dict)
    _last_ns: dict[tuple[str, str], int] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _tests: dict[int, list[tuple[float, str]]] = field(default_factory=dict)
    _read: dict[int, int] = field(default_factory=dict)

    def start(self) -> None:
        """Start polling."""
        self.machine = -_machine_busy()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Poll once more and stop."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.machine += _machine_busy()

    def _run(self) -> None:
        while not self._stop.wait(PERIOD):
            self._sample()
        self._sample()

    def _read_logs(self) -> None:
        """Read what the test processes logged since the last look."""
        for path in self.log_dir.glob("*.log"):
            worker = int(path.stem)
            with path.open() as log:
                log.seek(self._read.get(worker, 0))
                text = log.read()
            complete = text[: text.rfind("\n") + 1]
            self._read[worker] = self._read.get(worker, 0) + len(complete.encode())
            tests = self._tests.setdefault(worker, [])
            for line in complete.splitlines():
                stamp, _, nodeid = line.partition(" ")
                tests.append((float(stamp), work_unit(nodeid)))

    def _unit(self, worker: int, now: float) -> str:
        """The work unit the test process `worker` was running at `now`."""
        tests = self._tests.get(worker, [])
        index = bisect_right(tests, (now, "\uffff")) - 1
        return tests[index][1] if index >= 0 else "(before the first test)"

    def _sample(self) -> None:
        now = time.time()
        self._read_logs()
        seen: set[tuple[str, str]] = set()
        charged: list[tuple[_Process, int]] = []
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            stat = _stat(pid)
            if stat is None:
                continue
            parent_pid, own, children, start = stat
            key = (pid, start)
            process = self._known.get(key)
            if process is None:
                parent = self._by_pid.get(parent_pid)
                if int(pid) != self.root and parent is None:
                    continue
                if parent is None:
                    process = _Process(CONTROLLER, 0)
                elif parent_pid == self.root:
                    process = _Process(TEST_PROCESS, int(pid), parent)
                else:
                    named = kind(_command(pid), parent.kind)
                    process = _Process(named, parent.worker, parent)
                self._known[key] = process
                self._by_pid[int(pid)] = process
            seen.add(key)
            charged.append((process, own - process.cpu))
            process.waited += children - process.children
            process.cpu, process.children = own, children
            ns = _waited_ns(pid)
            self.demand_s += (ns - self._last_ns.get(key, ns)) / 1e9
            self._last_ns[key] = ns
        for process, ticks in charged:
            if ticks:
                self.by_kind[process.kind] += ticks
                unit = self._unit(process.worker, now) if process.worker else "?"
                self.by_unit[unit][process.kind] += ticks
        for key, process in self._known.items():
            if key not in seen and not process.gone:
                process.gone = True

    def report(self, wall: float) -> str:
        """What each kind of process and each test file used, in CPU seconds."""
        seen = sum(self.by_kind.values()) / TICK
        reaped: Counter[int] = Counter()
        for process in self._known.values():
            if process.gone and process.parent is not None:
                reaped[id(process.parent)] += process.cpu + process.children
        processes = self._known.values()
        unseen = sum(max(0, p.waited - reaped[id(p)]) for p in processes) / TICK
        lines = [
            f"CPU of the run's processes: {seen:.1f} s seen, about {unseen:.1f} s "
            f"more in processes that lived less than {PERIOD} s or ended between "
            f"two looks ({wall:.1f} s of wall; the whole machine: "
            f"{self.machine / TICK:.1f} s)",
            f"demand: {self.demand_s / wall:.2f} threads running or waiting to run, "
            "on average",
            "by kind of process:",
        ]
        lines += [f"  {t / TICK:7.1f} s  {k}" for k, t in self.by_kind.most_common()]
        lines.append("by test file (what its test process and their children used):")
        totals = {unit: sum(kinds.values()) for unit, kinds in self.by_unit.items()}
        for unit, ticks in sorted(totals.items(), key=lambda item: -item[1])[:40]:
            kinds = self.by_unit[unit].most_common(3)
            parts = ", ".join(f"{k} {t / TICK:.1f}" for k, t in kinds)
            lines.append(f"  {ticks / TICK:7.1f} s  {unit}  ({parts})")
        return "\n".join(lines)


def _machine_busy() -> int:
    """CPU ticks of the whole machine, not idle and not waiting for I/O."""
    first = Path("/proc/stat").read_text().split("\n", 1)[0]
    fields = [int(x) for x in first.split()[1:]]
    return sum(fields) - fields[3] - fields[4]
