"""What paging through the resumed long session leaves to the cyclic collector.

Resumes bench/long_session.py's session of 100,000 updates in the headless app
(the collector policy installed, as a real run), pages a few times to pay the
first-time costs, then turns the collector off, collects once, and pages
`--pages` times (PageUp sent from the prompt `SCROLL_RATE` times a second, as
long_session.py's scroll does). A collection then finds the cyclic garbage
those pages left (what reference counting could not free), kept with
`gc.DEBUG_SAVEALL` to be counted by type. Printed: objects a page, the types
found most, how many are nodes (widgets, virtual nodes), the objects made
while paging that are still alive, and this process's CPU time a page.

Figures only: nothing is asserted (tests/ui/test_page_garbage.py asserts a bound).

Usage: `uv run python bench/page_garbage.py [--pages N] [--key pageup|pagedown]`
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import gc
import os
import tempfile
import time
from pathlib import Path

from long_agent import LAST_TEXT
from long_session import SCROLL_RATE, SIZE, UPDATES, agent, history_file
from textual import events
from textual.dom import DOMNode
from ui import Frames, replayed

from acp_tui.storage.paths import HOME_ENV_VAR
from acp_tui.ui.agent_runner import SessionRequest
from acp_tui.ui.app import make_app
from acp_tui.ui.gc_policy import restore_garbage_collector
from acp_tui.ui.widgets.prompt_input import PromptInput

WARM_PAGES = 10


def type_name(value: object) -> str:
    kind = type(value)
    return f"{kind.__module__.rsplit('.', 1)[-1]}.{kind.__qualname__}"


async def measure(pages: int, key: str) -> None:
    os.environ[HOME_ENV_VAR] = tempfile.mkdtemp(prefix="acp-tui-garbage-home-")
    app = make_app(
        agent(history_file(UPDATES)),
        "bench",
        cwd=Path(tempfile.mkdtemp(prefix="acp-tui-garbage-cwd-")),
        init_timeout=30.0,
        tune_gc=True,
        request=SessionRequest("resume", "s1"),
    )
    frames = Frames(app)
    async with app.run_test(headless=True, size=SIZE) as pilot:
        await replayed(app, frames, LAST_TEXT)
        await asyncio.sleep(1.0)
        app.query_one(PromptInput).focus()
        driver = app._driver
        assert driver is not None
        for _ in range(WARM_PAGES):
            driver.process_message(events.Key(key, None))
            await asyncio.sleep(1 / SCROLL_RATE)
        await asyncio.sleep(1.0)
        # The policy's patches stay installed (process-wide); its freezing goes.
        restore_garbage_collector()
        gc.collect()
        gc.freeze()  # what is alive now is left out of the count
        gc.disable()
        started = time.process_time()
        try:
            for _ in range(pages):
                driver.process_message(events.Key(key, None))
                await asyncio.sleep(1 / SCROLL_RATE)
            await asyncio.sleep(1.0)
            cpu = time.process_time() - started
            gc.set_debug(gc.DEBUG_SAVEALL)
            found = gc.collect()
            garbage = list(gc.garbage)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()
        nodes = sum(1 for value in garbage if isinstance(value, DOMNode))
        counts = collections.Counter(type_name(value) for value in garbage)
        del garbage
        alive = len(gc.get_objects())  # made while paging, still alive
        print(
            f"{pages} x {key}: {found:,} objects for the collector "
            f"({found / pages:,.0f} a page), {nodes} of them nodes; "
            f"{alive:,} made while paging still alive; "
            f"CPU {1000 * cpu / pages:.1f} ms a page (1 s of settling included)"
        )
        for name, count in counts.most_common(15):
            print(f"  {count:8,} {name}")
        await pilot.pause()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=100)
    parser.add_argument("--key", choices=("pageup", "pagedown"), default="pageup")
    args = parser.parse_args()
    asyncio.run(measure(args.pages, args.key))


if __name__ == "__main__":
    main()
