"""The Markdown export shows notices, compactions and session messages in place."""

from __future__ import annotations

from acp_tui.export import session_markdown
from acp_tui.store import ops
from acp_tui.store.store import SessionStore


def text(value: str) -> dict[str, str]:
    return {"type": "text", "text": value}


def test_reports_are_written_in_timeline_order() -> None:
    store = SessionStore("own")
    store.apply_many(
        [
            ops.AppendMessageChunk("m1", "agent", text("Before.")),
            ops.AddNotice("warning", "MCP server unavailable", "Continuing."),
            ops.PatchCompaction("c1", "completed", summary=[text("## Kept\nthe plan")]),
            ops.PatchSessionMessage(
                "sm1", sender_session_id="helper", content=[text("Found it.")]
            ),
        ]
    )
    markdown = session_markdown(store)
    expected = [
        "Before.",
        "> **⚠ warning: MCP server unavailable**\n>\n> Continuing.",
        "**— context compacted —**\n\n> ## Kept\n> the plan",
        "**↘ from session helper**\n\n> Found it.",
    ]
    positions = [markdown.find(piece) for piece in expected]
    assert -1 not in positions, markdown
    assert positions == sorted(positions)


def test_a_failed_compaction_says_why_and_markup_stays_inert() -> None:
    store = SessionStore("own")
    store.apply(ops.PatchCompaction("c1", "failed", error="<script>x</script>"))
    markdown = session_markdown(store)
    assert "context compaction failed" in markdown
    assert "<script>" not in markdown
