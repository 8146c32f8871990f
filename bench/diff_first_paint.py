"""What a diff card's first paint costs, by the rows it shows, headless.

A tool-call card shows at most `CARD_MAX_HEIGHT` (24) rows of its diff, so its
first paint should cost a screenful whatever the patch's size. This builds
diff items like the long session's (bench/long_agent.py `session_patch`: one Python
file, 3-12 changed lines between context, each in a file of its own name), and
larger ones (`--lines`), and times, in this process's CPU time:

* **build** and **paint**: for each item, what the card asks of the render
  layer: `diff_document` and its unified rows (parse, layout: when the card is
  built), then a `DiffPainter` and the first 24 rows painted at the card's
  width (its first paint);
* **widget**: each item shown in a fresh `DiffSegment` in a headless app
  (`run_test(headless=True, size=(120, 40))`), its first `render_lines` timed.

Printed per kind of item: the median, 90th percentile and largest per-item CPU
time. `--profile` prints a cProfile of the render pass (cumulative time).
Figures only: nothing is asserted.

Usage: `uv run python bench/diff_first_paint.py [--items N] [--lines N ...]
[--profile]`
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any, Final

from long_agent import session_patch
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.strip import Strip

from acp_tui.render.diff import DiffPainter, DiffPalette
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject
from acp_tui.ui.themes import register_themes, theme_variable_defaults
from acp_tui.ui.widgets.diff_view import CARD_MAX_HEIGHT, DiffSegment, diff_document

WIDTH: Final = 112
"""A card's diff width in a 120-column terminal (borders and padding off)."""

PALETTE: Final = DiffPalette(
    text="#e0e0e0",
    muted="#808080",
    added="#a0e0a0",
    added_bg="#103010",
    added_word_bg="#205020",
    removed="#e0a0a0",
    removed_bg="#301010",
    removed_word_bg="#502020",
    hunk="#a0a0e0",
    header="#ffffff",
    header_bg="#202020",
    warning="#e0e000",
    syntax={
        "Comment": "#808080",
        "Keyword": "#c0a0ff",
        "Name.Builtin": "#a0c0ff",
        "Name.Function": "#80c0ff",
        "String": "#a0ffa0",
        "Number": "#ffc080",
    },
)


def items(count: int, lines: int | None, seed: int) -> list[JSONObject]:
    """`count` diff items, each of a file of its own name.

    `lines`: changed lines per patch (None: 3-12, as the long session).
    """
    rng = random.Random(seed)
    made: list[JSONObject] = []
    for n in range(count):
        path = f"/work/project/src/module_{seed}_{n}.py"
        size = lines if lines is not None else rng.randint(3, 12)
        made.append(
            {
                "type": "diff",
                "changes": [{"operation": "modify", "path": path}],
                "patch": {
                    "format": "git_patch",
                    "text": session_patch(path, rng, size),
                },
            }
        )
    return made


def render_pass(batch: Sequence[JSONObject]) -> tuple[list[float], list[float]]:
    """Each item's build (parse, layout) and first paint in the render layer.

    Returns:
        The builds' and the paints' CPU seconds, item by item.
    """
    built: list[float] = []
    painted: list[float] = []
    for item in batch:
        began = time.process_time()
        document = diff_document(item)
        rows = document.rows("unified")
        middle = time.process_time()
        painter = DiffPainter(document, PALETTE)
        for row in rows[:CARD_MAX_HEIGHT]:
            painter.row(row, WIDTH, "unified")
        ended = time.process_time()
        built.append(middle - began)
        painted.append(ended - middle)
    return built, painted


class Cards(App[None]):
    def __init__(self) -> None:
        super().__init__()
        register_themes(self)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults()

    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="cards")


class TimedSegment(DiffSegment):
    """A `DiffSegment` that notes the CPU time of its first `render_lines`."""

    first: float | None = None

    def render_lines(self, crop: Region) -> list[Strip]:
        began = time.process_time()
        try:
            return super().render_lines(crop)
        finally:
            if self.first is None and self.document is not None:
                self.first = time.process_time() - began


async def widget_pass(batch: Sequence[JSONObject]) -> list[float]:
    """Each item's first `render_lines` in a fresh `DiffSegment`, CPU seconds."""
    spent: list[float] = []
    app = Cards()
    async with app.run_test(headless=True, size=(120, 40)) as pilot:
        store = SessionStore("s1")
        box = app.query_one("#cards", VerticalScroll)
        for item in batch:
            segment = TimedSegment()
            segment.show_segment(store, [item], 0, 1)
            await box.mount(segment)
            await pilot.pause()
            await pilot.pause()
            if segment.first is not None:
                spent.append(segment.first)
            await segment.remove()
    return spent


def summary(label: str, spent: Sequence[float]) -> str:
    ms = sorted(1000 * s for s in spent)
    p90 = ms[int(0.9 * (len(ms) - 1))]
    return (
        f"{label:<34} n={len(ms):>4}  median {statistics.median(ms):6.2f} ms"
        f"  p90 {p90:6.2f} ms  max {ms[-1]:6.2f} ms  total {sum(ms):8.1f} ms"
    )


def profiled(run: Callable[[], Any]) -> None:
    profile = cProfile.Profile()
    profile.enable()
    run()
    profile.disable()
    pstats.Stats(profile).sort_stats("cumulative").print_stats(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=300)
    parser.add_argument(
        "--lines",
        type=int,
        nargs="*",
        default=[200, 5_000],
        help="changed lines per patch of the larger items",
    )
    parser.add_argument("--widget", action="store_true", help="time DiffSegment too")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    kinds: list[tuple[str, int | None, int]] = [("long session (3-12)", None, 1)]
    kinds += [(f"{n:,} changed lines", n, 2 + n) for n in args.lines]
    for label, lines, seed in kinds:
        count = args.items if lines is None else max(3, min(args.items, 2000 // lines))
        batch = items(count, lines, seed)
        if args.profile:
            print(f"--- {label}")
            profiled(lambda batch=batch: render_pass(batch))  # type: ignore[misc]
            continue
        built, painted = render_pass(batch)
        print(summary(f"build: {label}", built))
        print(summary(f"paint: {label}", painted))
        if args.widget:
            batch = items(count, lines, seed + 1000)
            spent = asyncio.run(widget_pass(batch))
            print(summary(f"widget: {label}", spent))


if __name__ == "__main__":
    main()
