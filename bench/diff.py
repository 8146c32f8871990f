"""How fast the diff view opens and scrolls a 20,000-line patch, headless.

Builds a git patch of one Python file with 20,000 hunk lines (5,000 removed /
added pairs with word changes, between context lines), and shows it in a
`DiffView` in a headless app (`run_test(headless=True, size=(120, 40))`). Prints:

* **Time to first paint**: from reading the patch text (parse + layout + app
  start) to the first frame in which the diff view painted rows. Goal: <= 1 s.
* **Largest frame gap while scrolling**: a timer scrolls the view 60 times a
  second (like a key held down): 200 pages down, then end / home 10 times each,
  in both layouts. Frames are timestamped where Textual hands them to the driver
  (`App._display`, as in bench/ui.py); the largest gap between consecutive
  frames over the run is reported. Goal: none over 100 ms.
* **Slowest scroll**: the longest time from a scroll request to the next frame.

The garbage collector runs with the app's policy (`tune_garbage_collector`, as
the CLI sets it up). Figures only: nothing is asserted (wall-clock numbers
depend on the machine).

With `--json FILE`, the figures are also written to FILE as one JSON object
(bench/run_all.py reads it).

Usage: `uv run python bench/diff.py [--lines N] [--json FILE]`
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from rich.console import RenderableType
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.screen import Screen

from acp_tui.diff import parse_patch
from acp_tui.render.diff import DiffDocument, DiffLayout
from acp_tui.ui.gc_policy import tune_garbage_collector
from acp_tui.ui.themes import register_themes, theme_variable_defaults
from acp_tui.ui.widgets.diff_view import DiffView

SIZE: Final = (120, 40)
FRAME_GOAL: Final = 0.100
FIRST_PAINT_GOAL: Final = 1.0
PAGES: Final = 200
JUMPS: Final = 10
STEP: Final = 1 / 60
"""Seconds between two scroll requests (a key held down, roughly)."""


def big_patch(lines: int) -> str:
    """One file, `lines` hunk lines: pairs of changed lines between context."""
    path = "/home/user/project/src/generated_table.py"
    body: list[str] = []
    old = new = 1
    hunk: list[str] = []
    count = 0
    number = 0
    while count < lines:
        hunk.append(f" def entry_{number}(value: int) -> int:")
        hunk.append(f'-    return value * {number}  # "old" factor')
        hunk.append(f'+    return value * {number + 1}  # "new" factor')
        hunk.append(" ")
        count += 4
        number += 1
    old_count = sum(1 for line in hunk if line[0] in " -")
    new_count = sum(1 for line in hunk if line[0] in " +")
    body.append(f"@@ -{old},{old_count} +{new},{new_count} @@ class Table:")
    body.extend(hunk)
    head = [f"diff --git {path} {path}", f"--- {path}", f"+++ {path}"]
    return "\n".join([*head, *body, ""])


class BenchApp(App[None]):
    """A `DiffView` filling the screen; frames are timestamped."""

    def __init__(self, document: DiffDocument, layout: DiffLayout) -> None:
        super().__init__()
        register_themes(self, dirs=[])
        self.theme = "acp-dark"
        self.document = document
        self.layout_choice: DiffLayout = layout
        self.frames: list[float] = []
        self.first_paint: float | None = None
        original = self._display

        def display(screen: Screen[object], renderable: RenderableType | None) -> None:
            original(screen, renderable)
            if renderable is None or self._batch_count:
                return
            now = time.perf_counter()
            self.frames.append(now)
            if self.first_paint is None and self.painted():
                self.first_paint = now

        self._display = display  # type: ignore[method-assign]

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)

    def compose(self) -> ComposeResult:
        yield DiffView(self.document, layout=self.layout_choice)

    def painted(self) -> bool:
        views = self.query(DiffView)
        return bool(views) and views.first().rows_painted > 0


@dataclass(frozen=True)
class Result:
    layout: DiffLayout
    rows: int
    first_paint: float
    max_gap: float
    slowest_scroll: float
    rows_painted: int


async def until(pilot: Pilot[None], condition: object) -> None:
    assert callable(condition)
    deadline = time.perf_counter() + 60.0
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("condition not met")
        await pilot.pause(0.001)


async def run(lines: int, layout: DiffLayout) -> Result:
    text = big_patch(lines)
    start = time.perf_counter()
    document = DiffDocument(parse_patch(text))
    document.rows(layout)
    app = BenchApp(document, layout)
    async with app.run_test(headless=True, size=SIZE) as pilot:
        await until(pilot, lambda: app.first_paint is not None)
        assert app.first_paint is not None
        first_paint = app.first_paint - start
        view = app.query_one(DiffView)
        await pilot.pause()
        height = view.scrollable_content_region.height
        bottom = max(0, len(view.rows) - height)
        targets = [min(bottom, page * height) for page in range(1, PAGES + 1)]
        targets += [bottom if n % 2 == 0 else 0 for n in range(2 * JUMPS)]
        pending = iter(targets)
        done = asyncio.Event()
        asked: list[tuple[float, int]] = []

        def step() -> None:
            target = next(pending, None)
            if target is None:
                done.set()
                return
            asked.append((time.perf_counter(), len(app.frames)))
            view.scroll_to(y=target, animate=False, immediate=True)

        scroll_start = time.perf_counter()
        timer = app.set_interval(STEP, step)
        await done.wait()
        timer.stop()
        await pilot.pause()
        scroll_end = time.perf_counter()
        inside = [t for t in app.frames if scroll_start <= t <= scroll_end]
        points = [scroll_start, *inside, scroll_end]
        max_gap = max(b - a for a, b in itertools.pairwise(points))
        slowest = max(
            (
                app.frames[count] - when
                for when, count in asked
                if count < len(app.frames)
            ),
            default=0.0,
        )
        return Result(
            layout, len(view.rows), first_paint, max_gap, slowest, view.rows_painted
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument(
        "--json", type=Path, metavar="FILE", help="also write the figures to FILE"
    )
    args = parser.parse_args()
    tune_garbage_collector()  # the app's own policy (the CLI turns it on too)
    parse_start = time.perf_counter()
    patch = parse_patch(big_patch(args.lines))
    parse_time = time.perf_counter() - parse_start
    print(f"patch: {args.lines:,} hunk lines, parsed in {parse_time * 1000:.0f} ms")
    ok = True
    layouts: dict[str, dict[str, object]] = {}
    for layout in ("unified", "split"):
        result = asyncio.run(run(args.lines, layout))
        first_ok = result.first_paint <= FIRST_PAINT_GOAL
        gap_ok = result.max_gap <= FRAME_GOAL
        ok = ok and first_ok and gap_ok
        layouts[layout] = {
            "rows": result.rows,
            "first_paint_s": result.first_paint,
            "max_gap_s": result.max_gap,
            "slowest_scroll_s": result.slowest_scroll,
            "rows_painted": result.rows_painted,
            "first_paint_ok": first_ok,
            "gap_ok": gap_ok,
        }
        print(
            f"{layout:>8}: {result.rows:,} rows · first paint "
            f"{result.first_paint * 1000:.0f} ms ({'ok' if first_ok else 'SLOW'}) · "
            f"largest frame gap scrolling {result.max_gap * 1000:.1f} ms "
            f"({'ok' if gap_ok else 'OVER 100 ms'}) · slowest scroll "
            f"{result.slowest_scroll * 1000:.1f} ms · rows painted "
            f"{result.rows_painted:,}"
        )
    assert patch.error is None
    print("goals met" if ok else "goals NOT met")
    if args.json is not None:
        figures = {
            "lines": args.lines,
            "parse_s": parse_time,
            "goal_first_paint_s": FIRST_PAINT_GOAL,
            "goal_max_gap_s": FRAME_GOAL,
            "layouts": layouts,
            "goals_met": ok,
        }
        args.json.write_text(json.dumps(figures, indent=2) + "\n", "utf-8")


if __name__ == "__main__":
    main()
