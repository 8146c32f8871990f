"""The slowest diff paints while paging through the resumed long session.

Runs bench/scroll_trace.py (its arguments pass through) with every
`DiffView.render_lines` call timed in this process's CPU time, with what each
call painted (rows), the collections that ran inside it, and whether it
compiled a Pygments lexer class. Printed after scroll_trace's report: how many
calls, their median and largest, and the `--slowest` calls each with those
details; with `--profile-slowest MS`, every call is profiled on its own
(cProfile; roughly doubles it) and the calls over MS ms show their profile.

Figures only: nothing is asserted.

Usage: `uv run python bench/diff_paint_trace.py [--slowest N] [--profile-slowest MS]
[scroll_trace.py's arguments]`
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import resource
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.geometry import Region
from textual.strip import Strip

sys.path.insert(0, str(Path(__file__).parent))

import scroll_trace

from acp_tui.ui.widgets.diff_view import DiffView


@dataclass
class Call:
    cpu: float
    gc: float
    rows: int
    compiled: int
    widget: str
    system: float = 0.0
    major_faults: int = 0
    minor_faults: int = 0
    profile: str = ""


CALLS: list[Call] = []
_gc_time = [0.0]
_gc_began = [0.0]


def _on_gc(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        _gc_began[0] = time.process_time()
    else:
        _gc_time[0] += time.process_time() - _gc_began[0]


_COMPILES = [0]
"""Pygments lexer classes compiled so far (`RegexLexerMeta.process_tokendef`)."""


def _compiled() -> int:
    return _COMPILES[0]


def _count_compiles() -> None:
    from pygments.lexer import RegexLexerMeta

    original: Any = RegexLexerMeta.process_tokendef

    def counted(cls: Any, name: str, tokendefs: Any = None) -> Any:
        _COMPILES[0] += 1
        return original(cls, name, tokendefs)

    RegexLexerMeta.process_tokendef = counted  # type: ignore[method-assign]


def install(profile_over: float | None) -> None:
    original = DiffView.render_lines

    def timed(self: DiffView, crop: Region) -> list[Strip]:
        painted = self.rows_painted
        gc_before = _gc_time[0]
        compiled = _compiled()
        profile = cProfile.Profile() if profile_over is not None else None
        usage = resource.getrusage(resource.RUSAGE_SELF)
        began = time.process_time()
        if profile is not None:
            profile.enable()
        try:
            return original(self, crop)
        finally:
            if profile is not None:
                profile.disable()
            cpu = time.process_time() - began
            after = resource.getrusage(resource.RUSAGE_SELF)
            call = Call(
                cpu,
                _gc_time[0] - gc_before,
                self.rows_painted - painted,
                _compiled() - compiled,
                type(self).__name__,
                after.ru_stime - usage.ru_stime,
                after.ru_majflt - usage.ru_majflt,
                after.ru_minflt - usage.ru_minflt,
            )
            over = profile_over is not None and 1000 * cpu >= profile_over
            if profile is not None and over:
                out = io.StringIO()
                stats = pstats.Stats(profile, stream=out)
                stats.sort_stats("cumulative").print_stats(25)
                call.profile = out.getvalue()
            CALLS.append(call)

    DiffView.render_lines = timed  # type: ignore[method-assign]
    gc.callbacks.append(_on_gc)
    _count_compiles()


def report(slowest: int) -> None:
    if not CALLS:
        print("no diff paints")
        return
    painting = [c for c in CALLS if c.rows]
    ms = sorted(1000 * c.cpu for c in painting) or [0.0]
    print(
        f"\ndiff render_lines: {len(CALLS)} calls, {len(painting)} painted rows; "
        f"those: median {statistics.median(ms):.2f} ms, "
        f"p99 {ms[int(0.99 * (len(ms) - 1))]:.2f} ms, largest {ms[-1]:.2f} ms, "
        f"rows painted {sum(c.rows for c in CALLS)}"
    )
    for call in sorted(CALLS, key=lambda c: -c.cpu)[:slowest]:
        print(
            f"  {1000 * call.cpu:6.1f} ms CPU, {1000 * call.gc:5.1f} ms of it "
            f"collecting, {1000 * call.system:5.1f} ms in the kernel "
            f"({call.major_faults} major, {call.minor_faults} minor page faults), "
            f"{call.rows} rows, {call.compiled} lexer classes compiled ({call.widget})"
        )
        if call.profile:
            print(call.profile)


def main() -> None:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--slowest", type=int, default=12)
    parser.add_argument("--profile-slowest", type=float, metavar="MS")
    ours, rest = parser.parse_known_args()
    install(ours.profile_slowest)
    sys.argv = [sys.argv[0], *rest]
    try:
        scroll_trace.main()
    finally:
        report(ours.slowest)


if __name__ == "__main__":
    main()
