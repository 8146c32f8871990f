"""Searching a session of 10,000 updates: no frame gap over 100 ms.

Runs the real app headless (`run_test(headless=True, size=(120, 40))`) against
bench/ui_agent.py, resumed into a history of `--updates` updates (default
10,000: user, thought and agent messages, tool calls with output, as
bench/ui.py's replay figure), and then, as a user would:

1. ctrl+f, types "step 3 of the plan" (a key every 40 ms), waits for the scan,
   and Enter: a jump to the third turn, far above the mounted window.
2. ctrl+f again (the query selected), types "thinking it over" (in every turn's
   collapsed thought), waits for the scan, then Enter `--jumps` times (the next
   matches, each expanded and marked) and shift+Enter once (wrapping round to
   the last match, at the end of the session).
3. Esc.

It prints the figures (and, with `--json FILE`, writes them):

* **Largest frame gap** over the whole search: the longest time the event loop
  could not paint, measured by a ticker every 5 ms (a frame needs the loop), and
  the app's CPU time in it. Goal: <= 100 ms.
* **Key to frame**: from each key of the search to the next frame painted
  (max; goal: <= 100 ms).
* **Scan**: from the last key of a query until every entry was scanned and the
  count shows, for each query (the scan runs in steps between frames).
* **Jumps**: from Enter until the match's card is on screen (each, max, and the
  far one).

Figures only: nothing is asserted (wall-clock numbers depend on the machine).

Usage: `uv run python bench/search.py [--updates N] [--jumps N] [--json FILE]`
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, Final

from textual import events
from ui import SIZE, TIMEOUT, Frames, agent_command, last_text, until

from acp_tui.storage.paths import HOME_ENV_VAR
from acp_tui.ui.agent_runner import SessionRequest
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.pane_search import PaneSearch
from acp_tui.ui.widgets.conversation import Conversation

GOAL_GAP: Final = 0.1
"""The longest gap between frames allowed (seconds)."""
TICK: Final = 0.005
KEY_INTERVAL: Final = 0.04


class Stalls:
    """The longest time the event loop was held, from a ticker's lateness."""

    def __init__(self) -> None:
        self.worst = 0.0
        self.worst_cpu = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            before, cpu = time.perf_counter(), time.process_time()
            await asyncio.sleep(TICK)
            held = time.perf_counter() - before
            if held > self.worst:
                self.worst = held
                self.worst_cpu = time.process_time() - cpu

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()


def search_pane(app: AcpTuiApp) -> PaneSearch:
    pane = app.active_pane
    assert isinstance(pane, PaneSearch)
    return pane


CHARACTERS: Final = {"enter": "\r", "escape": "\x1b", "space": " "}


class Keys:
    """Types keys as the terminal would, and records each one's time to a frame."""

    def __init__(self, app: AcpTuiApp, frames: Frames) -> None:
        self.app = app
        self.frames = frames
        self.sent: list[float] = []

    async def press(self, *keys: str) -> float:
        """Post each key (one every `KEY_INTERVAL`); the time of the last one."""
        at = 0.0
        for key in keys:
            name = "space" if key == " " else key
            character = key if len(key) == 1 else CHARACTERS.get(name)
            at = time.perf_counter()
            self.sent.append(at)
            self.app.post_message(events.Key(name, character))
            await asyncio.sleep(KEY_INTERVAL)
        return at

    def latencies(self) -> list[float]:
        times = self.frames.times
        found: list[float] = []
        for sent in self.sent:
            later = [t for t in times if t > sent]
            if later:
                found.append(later[0] - sent)
        return found


async def scanned(app: AcpTuiApp, since: float) -> float:
    pane = search_pane(app)

    def done() -> bool:
        search = pane._search
        bar = pane.search_bar
        return (
            search is not None
            and bar is not None
            and search.query == bar.query_text
            and not search.pending
            and "…" not in bar.count_text
        )

    return await until(done, "the scan") - since


class Landing:
    """The first frame that shows the current match's card, once armed."""

    def __init__(self, app: AcpTuiApp, frames: Frames) -> None:
        self.pane = search_pane(app)
        self.conversation = app.query_one(Conversation)
        self.frames = frames
        self.shown: float | None = None
        self.card: object = None

    def _on_screen(self) -> bool:
        card = self.pane._search_card
        if card is None or card is self.card or not card.is_attached:
            return False
        region = card.region
        top = self.conversation.region
        return region.height > 0 and top.y <= region.y < top.bottom

    def _on_frame(self, now: float) -> None:
        if self.shown is None and self._on_screen():
            self.shown = now

    async def after(self, keys: Keys, key: str) -> float:
        """Press `key`; seconds until a frame shows the new match's card."""
        self.card = self.pane._search_card
        self.shown = None
        self.frames.on_frame = self._on_frame
        sent = await keys.press(key)
        try:
            await until(lambda: self.shown is not None, "the match's card on screen")
        finally:
            self.frames.on_frame = None
        assert self.shown is not None
        return self.shown - sent


async def run(updates: int, jumps: int, cwd: Path) -> dict[str, Any]:
    app = make_app(
        agent_command(2, "--replay", str(updates)),
        "bench",
        cwd=cwd,
        init_timeout=30.0,
        tune_gc=True,
        request=SessionRequest("resume", "s1"),
    )
    frames = Frames(app)
    async with app.run_test(headless=True, size=SIZE) as pilot:
        await until(lambda: last_text(app.store, "REPLAY-DONE"), "the replay")
        await asyncio.sleep(1.0)  # let the replay's last frames and mounts land
        store = app.store
        assert store is not None
        entries = len(store.timeline())
        keys = Keys(app, frames)
        stalls = Stalls()
        start, start_cpu = time.perf_counter(), time.process_time()
        stalls.start()

        await keys.press("ctrl+f")
        landing = Landing(app, frames)
        last = await keys.press(*"step 3 of the plan")
        scan_far = await scanned(app, last)
        far_jump = await landing.after(keys, "enter")

        await keys.press("ctrl+f")
        last = await keys.press(*"thinking it over")
        scan_all = await scanned(app, last)
        pane = search_pane(app)
        assert pane._search is not None
        matches = len(pane._search.matches)
        jump_times: list[float] = []
        for _ in range(jumps):
            jump_times.append(await landing.after(keys, "enter"))
        wrap_jump = await landing.after(keys, "shift+enter")
        await keys.press("escape")
        await asyncio.sleep(0.2)
        end = time.perf_counter()
        stalls.stop()
        gap, gap_cpu = frames.max_gap(start, start_cpu, end)
        latencies = keys.latencies()
        await pilot.pause()
    return {
        "updates": updates,
        "entries": entries,
        "matches": matches,
        "largest_stall_s": stalls.worst,
        "largest_stall_cpu_s": stalls.worst_cpu,
        # Between painted frames, idle waits included (no frame is due then).
        "largest_frame_gap_s": gap,
        "largest_frame_gap_cpu_s": gap_cpu,
        "key_to_frame_max_s": max(latencies) if latencies else None,
        "key_to_frame_p50_s": statistics.median(latencies) if latencies else None,
        "scan_far_s": scan_far,
        "scan_all_s": scan_all,
        "far_jump_s": far_jump,
        "jump_max_s": max(jump_times) if jump_times else None,
        "jump_p50_s": statistics.median(jump_times) if jump_times else None,
        "wrap_jump_s": wrap_jump,
        "goal_gap_s": GOAL_GAP,
        "gap_ok": max(stalls.worst, max(latencies, default=0.0)) <= GOAL_GAP,
    }


def ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 1000:,.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=10_000)
    parser.add_argument("--jumps", type=int, default=10)
    parser.add_argument("--json", type=Path, metavar="FILE")
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory(prefix="acp-tui-bench-home-") as home,
        tempfile.TemporaryDirectory() as cwd,
    ):
        os.environ[HOME_ENV_VAR] = home
        figures = asyncio.run(
            asyncio.wait_for(run(args.updates, args.jumps, Path(cwd)), TIMEOUT)
        )
    verdict = "met" if figures["gap_ok"] else "NOT MET"
    print(
        f"Search in a session of {figures['updates']:,} updates "
        f"({figures['entries']:,} timeline entries; "
        f"{figures['matches']:,} matches of the second query)"
    )
    print(
        f"  largest frame gap (event loop held): {ms(figures['largest_stall_s'])} "
        f"(app CPU {ms(figures['largest_stall_cpu_s'])}); key to frame: max "
        f"{ms(figures['key_to_frame_max_s'])}, p50 {ms(figures['key_to_frame_p50_s'])}"
        f" (goal <= 100 ms: {verdict})"
    )
    print(
        f"  scan after the last key: {ms(figures['scan_far_s'])} (one match), "
        f"{ms(figures['scan_all_s'])} (a match per turn)"
    )
    print(
        f"  jump to the card on screen: far back {ms(figures['far_jump_s'])}; next "
        f"match p50 {ms(figures['jump_p50_s'])}, max {ms(figures['jump_max_s'])}; "
        f"wrapping to the end {ms(figures['wrap_jump_s'])}"
    )
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", "utf-8")


if __name__ == "__main__":
    main()
