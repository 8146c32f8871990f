"""`acp-tui print` writes what the store keeps of a huge chunk, and says what not.

A chunk longer than a message keeps reaches the store as its ends
(`cut_chunk`): the printed transcript shows the first ones, a line with the exact
count left out, then the last ones; never the two spliced together silently.
"""

from __future__ import annotations

import io

from acp_tui.frontends.print_turn import Transcript
from acp_tui.store import AppendMessageChunk, SessionStore
from acp_tui.store.store import cut_chunk, kept_ends


def test_a_cut_chunk_is_printed_as_its_ends_and_the_count_between() -> None:
    cap = 2_000
    store = SessionStore("s", max_message_chars=cap)
    out = io.StringIO()
    store.subscribe(Transcript(store, out).on_changes)
    store.apply(AppendMessageChunk("m", "agent", {"type": "text", "text": "Hi. "}))
    body = "".join(chr(ord("a") + n % 26) for n in range(30_000))
    ends = kept_ends(cap, len(body))
    assert ends is not None
    first, last = ends
    op = AppendMessageChunk("m", "agent", {"type": "text", "text": body})
    omitted = len(body) - first - last
    store.apply_many(cut_chunk(op, body[:first], omitted, body[-last:]))
    store.apply(AppendMessageChunk("m", "agent", {"type": "text", "text": " Bye."}))
    printed = out.getvalue()
    head, notice, tail = printed.split("\n", 3)[1:]
    assert head == "Hi. " + body[:first]
    assert notice == f"[⋯ {omitted:,} characters not kept ⋯]"
    assert tail == body[-last:] + " Bye."
