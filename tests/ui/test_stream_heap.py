"""What a streamed chunk leaves alive for the garbage collector to walk.

Every collection of the whole heap (the policy's forced or idle one,
`gc_policy`) walks each tracked object alive, so its pause grows with what a
stream leaves alive: bench/ui.py's paced turn of 5,000 chunks left 70,756
objects (26,609 of them the caches of the strips widgets keep), and the forced
collection they brought on was the largest gap between its frames.

Counted here in a conversation streaming a markdown message: what the
conversation keeps (the message's blocks and tokens, the strips its view drew
and cached) per chunk, all of it alive for every later collection to walk.
"""

from __future__ import annotations

import gc

from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.ui.gc_policy import restore_garbage_collector, tune_garbage_collector
from tests.ui.helpers import wait_for
from tests.ui.test_conversation import SIZE, ConversationApp, text

CHUNKS = 400


def alive() -> int:
    """Tracked objects alive now (the policy undone: nothing frozen, all collected)."""
    restore_garbage_collector()
    count = len(gc.get_objects())
    tune_garbage_collector()
    return count


async def test_a_streamed_chunk_leaves_few_objects_alive() -> None:
    tune_garbage_collector()
    try:
        app = ConversationApp()
        async with app.run_test(size=SIZE) as pilot:
            store = SessionStore("s1")
            store.apply(ops.AppendMessageChunk("a1", "agent", text("start\n\n")))
            await app.conversation.apply_changes(store, ())
            await pilot.pause()
            before = alive()
            for n in range(CHUNKS):
                chunk = f"line {n} with *some* `code` and words\n"
                if n % 5 == 4:
                    chunk += "\n"
                changes = store.apply(
                    ops.AppendMessageChunk("a1", "agent", text(chunk))
                )
                await app.conversation.apply_changes(store, changes)
                if n % 10 == 9:
                    await pilot.pause()
            await wait_for(pilot, lambda: True, 1.0)
            await pilot.pause()
            per_chunk = (alive() - before) / CHUNKS
    finally:
        restore_garbage_collector()
    # 76 before strips made their caches on first use (`strip_cycles`), 56 now.
    assert per_chunk <= 64
