"""Run every benchmark and print one table of their headline figures.

Runs bench/protocol.py, bench/store.py, bench/ui.py, bench/terminal.py,
bench/diff.py, bench/print.py, bench/search.py, bench/exhaustion.py (`--quick`:
a tenth of each flood) and bench/long_session.py (one run; its own `--repeat 5`
gives the spread, and `$ACP_TUI_BENCH_SPEEDUPS` adds its textual-speedups A/B)
one after the other (never side by side: they would share the CPUs), each as a
subprocess of this interpreter with options chosen to keep the whole run under
7 minutes on a slow 2-core machine, and each bounded by a timeout
(bench/remote.py too). bench/suite.py, the whole test suite timed, runs only
when named: `--only suite`. From each
output it takes the headline figures and prints them in one table: the
benchmark, the figure, the measured value, its baseline (the reference it is
compared to, such as `json.loads` or raw pyte, or else the goal itself), the
ratio of the two, the goal and whether it is met.

protocol, store, diff, print, search, exhaustion and long-session write their
figures as JSON (`--json FILE`); ui and terminal are read from their printed
output. A figure that cannot be found is shown as "missing" (the run goes on); a
benchmark that fails or times out is reported under the table, and makes the
exit status 1. Goals not met do not: these are figures, not tests.

Under the table, the share of the machine's CPU time the host took (steal, from
`/proc/stat`) while each benchmark ran. On a shared virtual machine it can be a
quarter or more while the benches keep both CPUs busy, and every wall-clock
figure grows with it. So the ui, terminal and search rows also give the app's own CPU
time within its largest frame gap.

`--runs N` runs the whole set N times, one after the other, prints each run's
table, then one table of each figure's spread over the runs (min-max) and in how
many runs its goal held: a goal holds only when it holds in all N.

Usage: `uv run python bench/run_all.py [--only NAME[,NAME]] [--runs N]
[--markdown] [--verbose]`
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, TextIO

BENCH_DIR: Final = Path(__file__).resolve().parent
ROOT: Final = BENCH_DIR.parent
MISSING: Final = "missing"

JSONObject = Mapping[str, Any]

# --- figures ------------------------------------------------------------------


@dataclass(frozen=True)
class Goal:
    """A threshold on a figure's value (or, with `on_ratio`, on its ratio)."""

    op: Literal["<=", ">="]
    limit: float
    on_ratio: bool = False

    def holds(self, value: float | None, ratio: float | None) -> bool | None:
        """Whether the goal is met; None when the figure it needs is missing."""
        subject = ratio if self.on_ratio else value
        if subject is None:
            return None
        return subject <= self.limit if self.op == "<=" else subject >= self.limit

    def describe(self, unit: str) -> str:
        sign = "≤" if self.op == "<=" else "≥"
        limit = format(self.limit, ",g")
        if self.on_ratio:
            return f"{sign} {limit}x"
        return f"{sign} {limit} {unit}".rstrip()


@dataclass(frozen=True)
class Figure:
    """One row of the table.

    `verdict` is the benchmark's own verdict where it prints one (it judges the
    unrounded figures, or every run); otherwise the goals are checked here.
    `bench_ratio` is likewise the benchmark's own ratio, where it prints one.
    """

    bench: str
    name: str
    value: float | None
    unit: str = ""
    baseline: float | None = None
    baseline_label: str = ""
    goals: tuple[Goal, ...] = ()
    goal_note: str = ""
    verdict: bool | None = None
    bench_ratio: float | None = None

    @property
    def ratio(self) -> float | None:
        if self.bench_ratio is not None:
            return self.bench_ratio
        if self.value is None or not self.baseline:
            return None
        return self.value / self.baseline

    @property
    def met(self) -> bool | None:
        """Met, not met, or None (no goal, or a figure it needs is missing)."""
        if self.verdict is not None:
            return self.verdict
        if not self.goals:
            return None
        checks = [goal.holds(self.value, self.ratio) for goal in self.goals]
        if any(check is None for check in checks):
            return None
        return all(checks)

    @property
    def goal_text(self) -> str:
        if self.goals:
            return ", ".join(goal.describe(self.unit) for goal in self.goals)
        return self.goal_note


def number(text: str) -> float:
    """A printed number (`12,345.6`) as a float."""
    return float(text.replace(",", ""))


def fmt(value: float) -> str:
    """About three significant digits, thousands separated (`72`, not `72.0`)."""
    size = abs(value)
    if size >= 100 or value == int(value):
        return f"{value:,.0f}"
    if size >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def with_unit(value: float, unit: str) -> str:
    if unit == "x":
        return f"{fmt(value)}x"
    return f"{fmt(value)} {unit}".rstrip()


# --- reading printed output (ui, terminal) -------------------------------------

_NUM: Final = r"(\d[\d,]*(?:\.\d+)?)"

FIRST_FRAME_MS: Final = 300.0
"""The first frame once the app is built (issue 28: warm, <= 0.3 s)."""
COLD_FRAME_MS: Final = 800.0
"""The first frame from a cold start, imports and all (<= 0.8 s)."""
_VERDICT: Final = re.compile(r"[\s(:](NOT MET|met)\)?\s*$")


def search(pattern: str, text: str) -> re.Match[str] | None:
    return re.search(pattern, text, re.MULTILINE)


def found(pattern: str, text: str, group: int = 1) -> float | None:
    """The number in `group` of the first match of `pattern`, if any."""
    match = search(pattern, text)
    if match is None or match.group(group) is None:
        return None
    try:
        return number(match.group(group))
    except ValueError:
        return None


def verdict_on(pattern: str, text: str) -> bool | None:
    """The `(met)` / `(NOT MET)` verdict at the end of the line matching `pattern`."""
    match = search(pattern + r".*$", text)
    if match is None:
        return None
    verdict = _VERDICT.search(match.group(0))
    if verdict is None:
        return None
    return verdict.group(1) == "met"


def parse_ui(text: str, data: JSONObject | None = None) -> list[Figure]:
    """The headline figures of bench/ui.py's printed output."""
    bench = "ui"
    figures: list[Figure] = []

    def at_most(name: str, phrase: str, value: str, unit: str, limit: float) -> Figure:
        """A goal of at most `limit`: the number after `phrase` (by the pattern
        `value`), and the verdict the bench printed on its line."""
        return Figure(
            bench,
            name,
            found(phrase + value, text),
            unit,
            limit,
            "goal",
            (Goal("<=", limit),),
            verdict=verdict_on(phrase, text),
        )

    goal = r"goal >= 5,000 chunks/s"
    chunks = found(goal + rf" at {_NUM}", text)
    size = f"{chunks:,.0f} chunks" if chunks is not None else "the largest turn"
    figures.append(
        Figure(
            bench,
            f"streaming throughput, {size}",
            found(goal + rf"[^:\n]*:\s*{_NUM}", text),
            "chunks/s",
            5000,
            "goal",
            (Goal(">=", 5000),),
            verdict=verdict_on(goal, text),
        )
    )

    gap = r"largest gap between frames while streaming"
    in_ms = rf":\s*{_NUM}\s*ms"
    figures.append(at_most("largest frame gap while streaming", gap, in_ms, "ms", 100))
    figures.append(
        at_most(
            "median frame gap while streaming, the most of the turns",
            r"median gap between frames while streaming, the most of these turns",
            in_ms,
            "ms",
            20,
        )
    )
    figures.append(
        Figure(
            bench,
            "largest frame gap while streaming: the app's CPU time in it",
            found(gap + rf"[^\n]*CPU time in it\s+{_NUM}\s*ms", text),
            "ms",
        )
    )

    # "ratios (subagents / one agent): time 0.55x, max gap 0.71x, cpu 1.00x
    # (goal <= 1.5x: met)": the same turn dealt to 20 subagents' lanes.
    lanes = r"ratios \(subagents / one agent\)"
    for what, label in (("time", "time"), ("max gap", "largest frame gap")):
        figures.append(
            Figure(
                bench,
                f"20 parallel subagents: {label}, x one agent",
                found(lanes + rf":[^\n]*{what}\s+{_NUM}x", text),
                "x",
                1.5,
                "goal",
                (Goal("<=", 1.5),),
            )
        )

    # "paced at 1,000/s: cpu ratios 1.96 (x2 chunks), 2.79 (x3 chunks)": the
    # last ratio against linear growth (the chunk factor).
    line = search(r"^paced at .*cpu ratios.*$", text)
    pairs = re.findall(rf"{_NUM}\s*\(x{_NUM} chunks\)", line.group(0)) if line else []
    cpu_ratio = number(pairs[-1][0]) if pairs else None
    factor = number(pairs[-1][1]) if pairs else None
    figures.append(
        Figure(
            bench,
            "long paragraph, paced: CPU growth "
            + (f"for x{factor:g} chunks" if factor is not None else "(last step)"),
            cpu_ratio,
            "x",
            factor,
            "linear",
            goal_note="linear, not quadratic",
        )
    )

    later_in_ms = rf"[^\n]*?:\s*{_NUM}\s*ms"
    figures.append(
        at_most(
            "time to first frame",
            r"time to first frame",
            later_in_ms,
            "ms",
            FIRST_FRAME_MS,
        )
    )
    figures.append(
        at_most(
            "first frame from a cold start",
            r"from a cold start",
            later_in_ms,
            "ms",
            COLD_FRAME_MS,
        )
    )

    updates = found(rf"replay of {_NUM} updates", text)
    replay = f"{updates:,.0f}-update" if updates is not None else "a"
    figures.append(
        at_most(
            f"time to interactive after a {replay} replay",
            r"time to interactive",
            rf"[^:\n]*:\s*{_NUM}\s*s\b",
            "s",
            2,
        )
    )
    figures.append(
        Figure(
            bench,
            f"key echoed after a {replay} flood after session/new",
            found(rf"flooded right after session/new[^\n]*?after\s*{_NUM}\s*s", text),
            "s",
        )
    )
    return figures


def parse_terminal(text: str, data: JSONObject | None = None) -> list[Figure]:
    """The headline figures of bench/terminal.py's printed output."""
    bench = "terminal"
    history = found(rf"pyte HistoryScreen\s+{_NUM}\s*MB/s", text)
    baseline = "raw pyte HistoryScreen"
    megabytes = found(rf"terminal bench:\s*{_NUM}\s*MB", text)
    runs = found(rf"\(prompt sent[^\n]*?,\s*{_NUM} runs", text)
    what = f"{megabytes:g} MB" if megabytes is not None else "build output"
    if runs is not None:
        what += f", median of {runs:g} runs"
    effective = r"^\s*effective"
    figures = [
        Figure(
            bench,
            f"effective throughput, {what}",
            found(effective + rf"\s+{_NUM}\s*MB/s", text),
            "MB/s",
            history,
            baseline,
            (Goal(">=", 20), Goal(">=", 40, on_ratio=True)),
            verdict=verdict_on(effective, text),
            bench_ratio=found(rf"{_NUM}x raw HistoryScreen", text),
        ),
        Figure(
            bench,
            "TerminalEmulator alone (every byte)",
            found(rf"TerminalEmulator\s+{_NUM}\s*MB/s", text),
            "MB/s",
            history,
            baseline,
        ),
    ]

    gap = r"largest frame gap"
    figures.append(
        Figure(
            bench,
            "largest frame gap, worst run",
            found(r"^\s*" + gap + rf"\s+{_NUM}\s*ms", text),
            "ms",
            100,
            "goal",
            (Goal("<=", 100),),
            verdict=verdict_on(r"^\s*" + gap, text),
        )
    )
    figures.append(
        Figure(
            bench,
            "largest frame gap, worst run: the app's CPU time in it",
            found(r"^\s*" + gap + rf"[^\n]*CPU time in it\s+{_NUM}\s*ms", text),
            "ms",
        )
    )

    retained = found(rf"the store holds\s+{_NUM}\s*MB", text)
    figures.append(
        Figure(
            bench,
            "peak RSS growth, median run",
            found(rf"peak RSS[^\n]*?,\s*{_NUM}\s*MB above", text),
            "MB",
            3 * retained + 64 if retained is not None else None,
            "cap",
            goal_note="≤ cap (3x retained + 64 MB), every run",
            verdict=verdict_on(r"memory bounded", text),
        )
    )
    return figures


# --- reading JSON figures (protocol, store, diff) ------------------------------


def get(data: JSONObject | None, *keys: str) -> float | None:
    """The number at `data[k1][k2]...`, or None if absent or not a number."""
    node: Any = data
    for key in keys:
        if not isinstance(node, Mapping) or key not in node:
            return None
        node = node[key]
    if isinstance(node, bool) or not isinstance(node, int | float):
        return None
    return float(node)


def get_bool(data: JSONObject | None, *keys: str) -> bool | None:
    node: Any = data
    for key in keys:
        if not isinstance(node, Mapping) or key not in node:
            return None
        node = node[key]
    return node if isinstance(node, bool) else None


def parse_protocol(text: str, data: JSONObject | None) -> list[Figure]:
    """bench/protocol.py's figures (`--json`): time per message vs json.loads."""
    floor = get(data, "paths", "json_loads", "us_per_msg")
    limit = get(data, "goal_x_json_loads") or 3.0
    messages = get(data, "messages")
    stream = f", {messages:,.0f} v2 updates" if messages is not None else ""
    return [
        Figure(
            "protocol",
            f"inbound parse+validate{stream}",
            get(data, "paths", "inbound", "us_per_msg"),
            "µs/msg",
            floor,
            "json.loads",
            (Goal("<=", limit, on_ratio=True),),
            verdict=get_bool(data, "goal_met"),
            bench_ratio=get(data, "paths", "inbound", "x_json_loads"),
        ),
        Figure(
            "protocol",
            "pydantic validate_json, one pass",
            get(data, "paths", "pydantic_one_pass", "us_per_msg"),
            "µs/msg",
            floor,
            "json.loads",
            bench_ratio=get(data, "paths", "pydantic_one_pass", "x_json_loads"),
        ),
    ]


def parse_print(text: str, data: JSONObject | None) -> list[Figure]:
    """bench/print.py's figures (`--json`): print --format json vs json.loads.

    The goal holds when the ratio holds in every run (the worst run's ratio).
    """
    prints = data.get("print_s") if data else None
    loads = data.get("loads_s") if data else None
    worst = get(data, "worst_ratio")
    limit = get(data, "goal") or 3.0
    chunks, megabytes = get(data, "chunks"), get(data, "megabytes")
    stream = (
        f", {chunks:,.0f} chunks + {megabytes:g} MB terminal"
        if chunks is not None and megabytes is not None
        else ""
    )
    return [
        Figure(
            "print",
            f"print --format json{stream} (median)",
            statistics.median(prints) if prints else None,
            "s",
            statistics.median(loads) if loads else None,
            "json.loads client",
            (Goal("<=", limit, on_ratio=True),),
            verdict=None if worst is None else worst <= limit,
            bench_ratio=get(data, "ratio"),
        )
    ]


def parse_remote(text: str, data: JSONObject | None) -> list[Figure]:
    """bench/remote.py's figures (`--json`): the streaming turn over WebSocket and
    Streamable HTTP beside stdio (goal: at most 1.5x slower)."""
    limit = get(data, "goal") or 1.5
    stdio = get(data, "stdio", "chunks_per_s")
    rows: list[Figure] = []
    for transport in ("websocket", "http"):
        slowdown = get(data, transport, "slowdown")
        rows.append(
            Figure(
                "remote",
                f"streaming over {transport} (chunks/s)",
                get(data, transport, "chunks_per_s"),
                "/s",
                stdio,
                "stdio",
                goal_note=f"≤ {limit:g}x slower",
                verdict=None if slowdown is None else slowdown <= limit,
            )
        )
        gap = get(data, transport, "max_gap_s")
        rows.append(
            Figure(
                "remote",
                f"largest frame gap over {transport}",
                None if gap is None else gap * 1000,
                "ms",
            )
        )
    return rows


def parse_store(text: str, data: JSONObject | None) -> list[Figure]:
    """bench/store.py's figures (`--json`): rates and the slow-down ratios."""
    updates = get(data, "updates")
    window = get(data, "window")
    count = f"{updates:,.0f} " if updates is not None else ""
    last = f"{window:,.0f}" if window is not None else "window"
    rows: list[Figure] = []
    for key, label in (
        ("realistic", f"realistic stream, {count}ops"),
        ("one_message", f"one message, {count}chunks"),
    ):
        goals = (Goal(">=", 100_000),) if key == "realistic" else ()
        rows.append(
            Figure(
                "store",
                label,
                get(data, key, "overall"),
                "updates/s",
                100_000 if goals else None,
                "goal" if goals else "",
                goals,
            )
        )
        rows.append(
            Figure(
                "store",
                f"{label}, last/first {last} rate",
                get(data, key, "last_over_first"),
                "",
                1.0,
                "no slow-down",
                goal_note="≈ 1",
            )
        )
    return rows


def parse_diff(text: str, data: JSONObject | None) -> list[Figure]:
    """bench/diff.py's figures (`--json`): first paint and frame gaps, per layout."""
    lines = get(data, "lines")
    patch = f"{lines:,.0f} lines" if lines is not None else "patch"
    paint_goal = 1000 * (get(data, "goal_first_paint_s") or 1.0)
    gap_goal = 1000 * (get(data, "goal_max_gap_s") or 0.1)
    rows: list[Figure] = []
    for measure, goal, key, ok in (
        ("first paint", paint_goal, "first_paint_s", "first_paint_ok"),
        ("largest gap scrolling", gap_goal, "max_gap_s", "gap_ok"),
    ):
        for layout in ("unified", "split"):
            seconds = get(data, "layouts", layout, key)
            rows.append(
                Figure(
                    "diff",
                    f"{measure}, {patch}, {layout}",
                    None if seconds is None else seconds * 1000,
                    "ms",
                    goal,
                    "goal",
                    (Goal("<=", goal),),
                    verdict=get_bool(data, "layouts", layout, ok),
                )
            )
    return rows


def parse_suite(text: str, data: JSONObject | None) -> list[Figure]:
    """bench/suite.py's figure (`--json`): the full suite's wall time."""
    goal = get(data, "goal_s") or 360.0
    summary = data.get("summary") if data is not None else None
    name = "full test suite (uv run pytest), wall time"
    if isinstance(summary, str) and summary:
        name += f": {summary}"
    return [
        Figure(
            "suite", name, get(data, "seconds"), "s", goal, "goal", (Goal("<=", goal),)
        )
    ]


def parse_search(text: str, data: JSONObject | None) -> list[Figure]:
    """bench/search.py's figures (`--json`): frame gap, key to frame, scan, jumps."""
    updates = get(data, "updates")
    size = f"{updates:,.0f} updates" if updates is not None else "a long session"
    goal = 1000 * (get(data, "goal_gap_s") or 0.1)

    def millis(*keys: str) -> float | None:
        seconds = get(data, *keys)
        return None if seconds is None else seconds * 1000

    return [
        Figure(
            "search",
            f"largest frame gap searching {size}",
            millis("largest_stall_s"),
            "ms",
            goal,
            "goal",
            (Goal("<=", goal),),
        ),
        Figure(
            "search",
            "largest frame gap searching: the app's CPU time in it",
            millis("largest_stall_cpu_s"),
            "ms",
        ),
        Figure(
            "search",
            "key to frame while searching, max",
            millis("key_to_frame_max_s"),
            "ms",
            goal,
            "goal",
            (Goal("<=", goal),),
        ),
        Figure("search", "scan after the last key", millis("scan_all_s"), "ms"),
        Figure(
            "search", "jump far back, to the card on screen", millis("far_jump_s"), "ms"
        ),
    ]


def parse_exhaustion(text: str, data: JSONObject | None) -> list[Figure]:
    """bench/exhaustion.py's figures (`--json`): per flood, the largest frame gap,
    the worst key echo and the peak RSS, each with the bench's verdict."""
    scenarios = data.get("scenarios") if data is not None else None
    if not isinstance(scenarios, list) or not scenarios:
        return [
            Figure("exhaustion", f"floods: {name}", None, unit, limit, "goal")
            for name, unit, limit in (
                ("largest frame gap", "ms", 250.0),
                ("key echo, worst", "ms", 250.0),
                ("peak RSS", "MB", 1000.0),
            )
        ]
    rows: list[Figure] = []
    for row in scenarios:
        if not isinstance(row, Mapping):
            continue
        label = str(row.get("label") or row.get("scenario") or "flood")
        for name, key, ok, unit, limit in (
            ("largest frame gap", "max_gap_ms", "gap_ok", "ms", 250.0),
            ("key echo, worst", "echo_max_ms", "echo_ok", "ms", 250.0),
            ("peak RSS", "rss_peak_mb", "rss_ok", "MB", 1000.0),
        ):
            rows.append(
                Figure(
                    "exhaustion",
                    f"{label}: {name}",
                    get(row, key),
                    unit,
                    limit,
                    "goal",
                    (Goal("<=", limit),),
                    verdict=get_bool(row, ok),
                )
            )
    return rows


def _values(data: JSONObject | None, key: str) -> list[float]:
    """The numbers of the list at `data[key]` (one per run)."""
    node = data.get(key) if data is not None else None
    if not isinstance(node, list):
        return []
    return [float(v) for v in node if isinstance(v, int | float)]


def parse_long_session(text: str, data: JSONObject | None) -> list[Figure]:
    """bench/long_session.py's figures (`--json`): each the worst of its runs
    (the goal holds only when it holds in every run); the spread is printed by
    the bench itself."""
    bench = "long-session"
    updates = get(data, "updates")
    size = f"{updates:,.0f} updates" if updates is not None else "a long session"

    def worst(key: str, high: bool = True) -> float | None:
        values = _values(data, key)
        if not values:
            return None
        return max(values) if high else min(values)

    fresh, long = _values(data, "fresh_rate"), _values(data, "long_rate")
    ratios = _values(data, "stream_ratio")
    # The stream row shows the run with the worst ratio: its two rates.
    worst_run = ratios.index(min(ratios)) if ratios else None
    paired = worst_run is not None and len(fresh) == len(long) == len(ratios)
    scroll_gap = worst("scroll_gap_ms")
    whole = data.get("scroll_whole") if data is not None else None
    scroll_ok = (
        None
        if scroll_gap is None
        else scroll_gap <= 100 and isinstance(whole, list) and all(whole)
    )

    def at_most(name: str, key: str, unit: str, limit: float) -> Figure:
        """The worst run's value of `key` against a goal of at most `limit`."""
        value = worst(key)
        return Figure(bench, name, value, unit, limit, "goal", (Goal("<=", limit),))

    cpu_ratios = _values(data, "stream_cpu_ratio")
    echo = "while streaming 10,000 chunks, worst run"
    rows = [
        at_most(f"resume {size} to interactive, worst run", "resume_s", "s", 2),
        Figure(
            bench,
            "resume: the app's CPU time in it, worst run",
            worst("resume_cpu_s"),
            "s",
        ),
        at_most("RSS after that resume, worst run", "rss_resumed_mb", "MB", 300),
        at_most(
            "RSS after streaming 10,000 more chunks, worst run",
            "rss_stream_mb",
            "MB",
            300,
        ),
        Figure(
            bench,
            "streaming at the end of it, the run of the worst ratio",
            long[worst_run] if paired and worst_run is not None else None,
            "chunks/s",
            fresh[worst_run] if paired and worst_run is not None else None,
            "fresh session, same run",
            (Goal(">=", 0.8, on_ratio=True),),
            bench_ratio=worst("stream_ratio", high=False),
        ),
        Figure(
            bench,
            "streaming at the end of it by CPU time per chunk, worst ratio",
            min(cpu_ratios) if cpu_ratios else None,
            "x",
            goal_note="figure only (steadier than wall clock)",
        ),
        at_most(f"key echo p99 {echo}", "echo_p99_ms", "ms", 50),
        at_most(f"key echo max {echo}", "echo_max_ms", "ms", 100),
        Figure(
            bench,
            "scrolling it top to bottom by page: largest gap",
            scroll_gap,
            "ms",
            100,
            "goal",
            (Goal("<=", 100),),
            verdict=scroll_ok,
        ),
        at_most(
            "idle RSS, demo agent connected (app process)", "idle_rss_mb", "MB", 70
        ),
    ]
    speedups = data.get("speedups") if data is not None else None
    if isinstance(speedups, Mapping) and "on" in speedups and "off" in speedups:
        for key, label, unit in (
            ("fresh_rate", "stream, fresh session", "chunks/s"),
            ("long_rate", "stream, long session", "chunks/s"),
            ("resume", "resume to interactive", "s"),
        ):
            on = _values(speedups["on"], key)
            off = _values(speedups["off"], key)
            rows.append(
                Figure(
                    bench,
                    f"textual-speedups on: {label} (median)",
                    statistics.median(on) if on else None,
                    unit,
                    statistics.median(off) if off else None,
                    "speedups off",
                )
            )
    return rows


# --- running ---------------------------------------------------------------------

Parser = Callable[[str, JSONObject | None], list[Figure]]


@dataclass(frozen=True)
class Bench:
    """One benchmark script, how to run it, and how to read its figures."""

    name: str
    script: Path
    args: tuple[str, ...]
    timeout: float
    parse: Parser
    json: bool = False
    default: bool = True
    """Run without `--only`; False for one run only when named (the suite)."""


# Runtimes on the 2-core development machine, quiet / shared with a test run:
# protocol 6-10 s, store 2-4 s, ui 45-90 s (each figure from one fresh process;
# `--repeat 2` doubles it, which a busy machine cannot fit in 5 minutes),
# terminal 30-60 s (its goals judged on the median of 5 runs), diff 10-13 s,
# exhaustion 1-2 min quick (each flood a fresh app; the full-size floods, run
# as `bench/exhaustion.py` alone, take several minutes).
BENCHES: Final = (
    Bench("protocol", BENCH_DIR / "protocol.py", (), 60, parse_protocol, json=True),
    Bench("store", BENCH_DIR / "store.py", (), 60, parse_store, json=True),
    Bench("ui", BENCH_DIR / "ui.py", ("--repeat", "1"), 180, parse_ui),
    Bench(
        "terminal", BENCH_DIR / "terminal.py", ("--repeat", "5"), 150, parse_terminal
    ),
    Bench("diff", BENCH_DIR / "diff.py", (), 60, parse_diff, json=True),
    Bench("print", BENCH_DIR / "print.py", (), 120, parse_print, json=True),
    Bench("search", BENCH_DIR / "search.py", (), 120, parse_search, json=True),
    Bench(
        "remote",
        BENCH_DIR / "remote.py",
        ("--chunks", "5000"),
        180,
        parse_remote,
        json=True,
    ),
    Bench(
        "exhaustion",
        BENCH_DIR / "exhaustion.py",
        ("--quick",),
        600,
        parse_exhaustion,
        json=True,
    ),
    Bench(
        "long-session",
        BENCH_DIR / "long_session.py",
        ("--scroll-budget", "15"),
        300,
        parse_long_session,
        json=True,
    ),
    # The whole test suite: as long as the suite (minutes), so only by name.
    Bench(
        "suite", BENCH_DIR / "suite.py", (), 1200, parse_suite, json=True, default=False
    ),
)


@dataclass
class Outcome:
    """What running one benchmark gave."""

    bench: str
    figures: list[Figure]
    seconds: float
    error: str | None = None
    stdout: str = ""
    stderr: str = ""
    command: list[str] = field(default_factory=list)
    stolen: float | None = None
    """CPU seconds the host took from this machine while the bench ran (steal)."""


def _text(output: str | bytes | None) -> str:
    if output is None:
        return ""
    if isinstance(output, bytes):
        return output.decode("utf-8", "replace")
    return output


def host_steal() -> float | None:
    """CPU seconds the hypervisor has taken from this machine since boot (steal).

    The eighth figure of `/proc/stat`'s `cpu` line, summed over all CPUs, in
    clock ticks: time a virtual CPU had work but the host ran something else.
    None where there is no such file (not Linux).
    """
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = stat.readline().split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def _kill_group(process: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def run_bench(bench: Bench, python: str = sys.executable) -> Outcome:
    """Run one benchmark (in its own process group, bounded) and read its figures.

    Output is unbuffered, so a run that times out still yields what it printed.
    """
    with tempfile.TemporaryDirectory(prefix="acp-tui-bench-") as tmp:
        json_path = Path(tmp) / f"{bench.name}.json"
        command = [python, str(bench.script), *bench.args]
        if bench.json:
            command += ["--json", str(json_path)]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        error: str | None = None
        steal_before = host_steal()
        start = time.perf_counter()
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            stdout, stderr = process.communicate(timeout=bench.timeout)
        except subprocess.TimeoutExpired as expired:
            _kill_group(process)
            error = f"timed out after {bench.timeout:g} s"
            # A second communicate() returns everything, from the start.
            try:
                stdout, stderr = process.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                # Something outside the group holds the pipes: keep what came.
                stdout, stderr = _text(expired.stdout), _text(expired.stderr)
        finally:
            _kill_group(process)  # whatever it left behind
        seconds = time.perf_counter() - start
        steal_after = host_steal()
        stolen = (
            None
            if steal_before is None or steal_after is None
            else steal_after - steal_before
        )
        last = stderr.strip().splitlines()[-1:] or ["no error output"]
        if error is None and process.returncode != 0:
            error = f"exit status {process.returncode}: {last[0]}"
        elif error is not None:
            printed = "printed nothing" if not stdout.strip() else "output cut short"
            error += f" ({printed}; stderr: {last[0]})"
        data: JSONObject | None = None
        if bench.json and json_path.exists():
            try:
                loaded = json.loads(json_path.read_text("utf-8"))
            except ValueError as exc:
                error = error or f"unreadable --json output: {exc}"
            else:
                data = loaded if isinstance(loaded, Mapping) else None
        elif bench.json and error is None:
            error = "wrote no --json output"
    figures = bench.parse(stdout, data)
    return Outcome(bench.name, figures, seconds, error, stdout, stderr, command, stolen)


def select(benches: Sequence[Bench], only: Sequence[str] | None) -> list[Bench]:
    """The benchmarks named in `only` (names, or comma-separated lists), in order."""
    if not only:
        return [bench for bench in benches if bench.default]
    names = {name.strip() for item in only for name in item.split(",") if name.strip()}
    known = {bench.name for bench in benches}
    unknown = sorted(names - known)
    if unknown:
        raise ValueError(
            f"unknown benchmark(s): {', '.join(unknown)} "
            f"(known: {', '.join(b.name for b in benches)})"
        )
    return [bench for bench in benches if bench.name in names]


# --- the table --------------------------------------------------------------------

HEADER: Final = ("benchmark", "figure", "measured", "baseline", "ratio", "goal", "met")
RIGHT: Final = frozenset({2, 4})
"""Columns aligned right (measured, ratio)."""


def cells(figure: Figure) -> tuple[str, ...]:
    """One table row of text."""
    measured = MISSING if figure.value is None else with_unit(figure.value, figure.unit)
    label = figure.baseline_label
    if figure.baseline is not None:
        baseline = with_unit(figure.baseline, figure.unit)
        baseline += f" ({label})" if label else ""
    else:
        baseline = f"{MISSING} ({label})" if label else ""
    ratio = "" if figure.ratio is None else f"{fmt(figure.ratio)}x"
    met = figure.met
    if met is None:
        verdict = MISSING if figure.goals and figure.value is None else "—"
    else:
        verdict = "met" if met else "NOT MET"
    return (
        figure.bench,
        figure.name,
        measured,
        baseline,
        ratio,
        figure.goal_text,
        verdict,
    )


def plain_table(figures: Sequence[Figure]) -> str:
    """An aligned text table."""
    rows = [HEADER, *(cells(figure) for figure in figures)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER))]

    def line(row: Sequence[str]) -> str:
        parts = [
            cell.rjust(width) if i in RIGHT else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([line(rows[0]), rule, *(line(row) for row in rows[1:])])


def markdown_table(figures: Sequence[Figure]) -> str:
    """A GitHub-flavoured Markdown table."""

    def line(row: Sequence[str]) -> str:
        return "| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |"

    rule = "| " + " | ".join(
        "---:" if i in RIGHT else "---" for i in range(len(HEADER))
    )
    return "\n".join(
        [line(HEADER), rule + " |", *(line(cells(figure)) for figure in figures)]
    )


def duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest:02d} s"


def summary(outcomes: Sequence[Outcome], total: float) -> list[str]:
    """The lines under the table: runtimes, failures, missing figures."""
    each = ", ".join(f"{o.bench} {duration(o.seconds)}" for o in outcomes)
    cpus = os.cpu_count() or 1
    lines = [
        f"Total runtime {duration(total)} ({each}); "
        f"{cpus} CPUs, Python {platform.python_version()}."
    ]
    stolen = [
        f"{o.bench} {o.stolen / (o.seconds * cpus):.0%}"
        for o in outcomes
        if o.stolen is not None and o.seconds > 0
    ]
    if stolen:
        lines.append(
            f"CPU time the host took from this machine (steal) while each ran, of "
            f"its {cpus} CPUs' time: {', '.join(stolen)}. Wall-clock figures grow "
            "with it: a frame gap is the app's CPU time in it plus the time it "
            "waited for a CPU."
        )
    for outcome in outcomes:
        if outcome.error is not None:
            lines.append(f"FAILED: {outcome.bench}: {outcome.error}")
        missing = [f.name for f in outcome.figures if f.value is None]
        if missing and outcome.error is None:
            lines.append(
                f"Missing from {outcome.bench}'s output: {'; '.join(missing)}."
            )
    return lines


def report(
    outcomes: Sequence[Outcome], total: float, markdown: bool, out: TextIO
) -> None:
    figures = [figure for outcome in outcomes for figure in outcome.figures]
    table = markdown_table(figures) if markdown else plain_table(figures)
    out.write(table + "\n\n")
    out.write("\n".join(summary(outcomes, total)) + "\n")


# --- several runs: the spread ------------------------------------------------------

SPREAD_HEADER: Final = (
    "benchmark",
    "figure",
    "measured, min-max",
    "ratio, min-max",
    "goal",
    "met",
)


@dataclass(frozen=True)
class Spread:
    """One figure over several runs of the whole set.

    `values` and `verdicts` hold one item per run in which the figure was
    printed (a run that lost it counts as a run the goal did not hold in).
    """

    first: Figure
    values: tuple[float | None, ...]
    ratios: tuple[float | None, ...]
    verdicts: tuple[bool | None, ...]
    runs: int

    @property
    def met_in(self) -> int:
        return sum(1 for verdict in self.verdicts if verdict)

    @property
    def judged(self) -> bool:
        """Whether the figure has a goal (judged in some run)."""
        return any(verdict is not None for verdict in self.verdicts)

    @property
    def met(self) -> bool:
        """A goal holds only when it holds in every run."""
        return self.judged and self.met_in == self.runs


def spreads(runs: Sequence[Sequence[Figure]]) -> list[Spread]:
    """Each figure (by benchmark and name, in first-seen order) over `runs`."""
    seen: dict[tuple[str, str], list[Figure]] = {}
    for figures in runs:
        for figure in figures:
            seen.setdefault((figure.bench, figure.name), []).append(figure)
    return [
        Spread(
            first=found[0],
            values=tuple(figure.value for figure in found),
            ratios=tuple(figure.ratio for figure in found),
            verdicts=tuple(figure.met for figure in found),
            runs=len(runs),
        )
        for found in seen.values()
    ]


def _range(values: Sequence[float | None], show: Callable[[float], str]) -> str:
    known = [value for value in values if value is not None]
    if not known:
        return MISSING if values else ""
    low, high = min(known), max(known)
    text = show(low) if show(low) == show(high) else f"{show(low)}-{show(high)}"
    lost = len(values) - len(known)
    return f"{text} ({lost} missing)" if lost else text


def spread_cells(spread: Spread) -> tuple[str, ...]:
    figure = spread.first
    if spread.judged:
        met = f"{'met' if spread.met else 'NOT MET'} ({spread.met_in}/{spread.runs})"
    else:
        met = "—"
    ratios = spread.ratios if any(r is not None for r in spread.ratios) else ()
    return (
        figure.bench,
        figure.name,
        _range(spread.values, lambda value: with_unit(value, figure.unit)),
        _range(ratios, lambda value: f"{fmt(value)}x"),
        figure.goal_text,
        met,
    )


def spread_table(rows: Sequence[Spread], markdown: bool) -> str:
    """The spread of each figure over the runs, as text or Markdown."""
    lines = [SPREAD_HEADER, *(spread_cells(row) for row in rows)]
    if markdown:
        body = [
            "| " + " | ".join(cell.replace("|", "\\|") for cell in line) + " |"
            for line in lines
        ]
        rule = "| " + " | ".join(
            "---:" if i in (2, 3) else "---" for i in range(len(SPREAD_HEADER))
        )
        return "\n".join([body[0], rule + " |", *body[1:]])
    widths = [max(len(line[i]) for line in lines) for i in range(len(SPREAD_HEADER))]
    text = [
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True))
        for line in lines
    ]
    rule = "  ".join("-" * width for width in widths)
    return "\n".join([text[0].rstrip(), rule, *(line.rstrip() for line in text[1:])])


def main(argv: Sequence[str] | None = None, benches: Sequence[Bench] = BENCHES) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help=f"run only these ({', '.join(b.name for b in benches)}); "
        "repeat it or separate names with commas",
    )
    parser.add_argument(
        "--markdown", action="store_true", help="print the table as Markdown"
    )
    parser.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="also echo each benchmark's own output (to stderr)",
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=1,
        metavar="N",
        help="run the whole set N times, one after the other, and also print each "
        "figure's spread (min-max); a goal is met only when met in all N",
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs takes a whole number of at least 1")
    try:
        chosen = select(benches, args.only)
    except ValueError as exc:
        parser.error(str(exc))

    failed = False
    runs: list[list[Figure]] = []
    started = time.perf_counter()
    for run in range(1, args.runs + 1):
        outcomes: list[Outcome] = []
        start = time.perf_counter()
        for n, bench in enumerate(chosen, 1):
            shown = " ".join([f"bench/{bench.script.name}", *bench.args])
            of_runs = f" (run {run}/{args.runs})" if args.runs > 1 else ""
            print(
                f"[{n}/{len(chosen)}] {shown} ...{of_runs}", file=sys.stderr, flush=True
            )
            outcome = run_bench(bench)
            status = "ok" if outcome.error is None else f"FAILED ({outcome.error})"
            print(
                f"      {duration(outcome.seconds)}, {status}",
                file=sys.stderr,
                flush=True,
            )
            if args.verbose:
                sys.stderr.write(outcome.stdout)
                if outcome.error is not None:
                    sys.stderr.write(outcome.stderr)
            outcomes.append(outcome)
        total = time.perf_counter() - start
        if args.runs > 1:
            print(f"Run {run} of {args.runs}:\n")
        report(outcomes, total, args.markdown, sys.stdout)
        failed = failed or any(outcome.error is not None for outcome in outcomes)
        runs.append([figure for outcome in outcomes for figure in outcome.figures])
    if args.runs > 1:
        print(
            f"\nSpread over {args.runs} runs ({duration(time.perf_counter() - started)}"
            "); a goal is met only when it is met in every run:\n"
        )
        print(spread_table(spreads(runs), args.markdown))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
