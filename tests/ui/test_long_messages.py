"""Long messages: drawn as a window with an exact notice, and whole in the pager.

Pilot tests of `MarkdownView`'s window (head, notice, tail), `MessageView` over a
store message the store capped, user and thought text cut the same way, and
`MessagePager` (all the store keeps, the cut marked, `s` saves it). No agent:
ops go to a store and its changes to the conversation, as the app does.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from acp_tui.render.markdown import FenceTracker
from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.ui.screens.pager import MessagePager, TextPager
from acp_tui.ui.widgets.markdown_styles import MarkdownStyles
from acp_tui.ui.widgets.markdown_view import HEAD_CHARS, TAIL_CHARS, MarkdownView
from acp_tui.ui.widgets.message_view import MessageView
from tests.ui.helpers import wait_for
from tests.ui.test_conversation import ConversationApp, show, text, view

SIZE = (100, 30)


class MarkdownApp(App[None]):
    """One markdown view, its styles beside it."""

    def compose(self) -> ComposeResult:
        yield MarkdownStyles()
        yield MarkdownView(id="md")

    @property
    def markdown(self) -> MarkdownView:
        return self.query_one(MarkdownView)


def paragraphs(count: int, width: int = 70) -> list[str]:
    """`count` paragraphs, each numbered and `width` characters or so."""
    return [f"paragraph {n:06d} " + "x" * (width - 18) + "\n\n" for n in range(count)]


def drawn(markdown: MarkdownView) -> str:
    markdown._layout(markdown.size.width)
    return markdown.plain_text


async def test_a_short_message_is_drawn_whole() -> None:
    app = MarkdownApp()
    async with app.run_test(size=SIZE) as pilot:
        app.markdown.append("".join(paragraphs(10)))
        await pilot.pause()
        assert not app.markdown.windowed
        assert app.markdown.hidden_chars == 0
        assert "not shown" not in drawn(app.markdown)
        assert not app.markdown.can_focus


async def test_a_long_message_is_drawn_as_head_notice_tail_with_the_exact_count() -> (
    None
):
    parts = paragraphs(5_000)  # 350,000 characters
    whole = "".join(parts)
    app = MarkdownApp()
    async with app.run_test(size=SIZE) as pilot:
        for part in parts:
            app.markdown.append(part)
        await pilot.pause()
        markdown = app.markdown
        assert markdown.windowed
        assert markdown.can_focus
        head = markdown.document.source
        tail = markdown.tail_source
        assert whole.startswith(head)
        assert whole.endswith(tail)
        assert len(head) <= HEAD_CHARS
        assert TAIL_CHARS // 2 <= len(tail) <= 2 * TAIL_CHARS
        assert markdown.hidden_chars == len(whole) - len(head) - len(tail)
        shown = drawn(markdown)
        assert f"⋯ {markdown.hidden_chars:,} characters not shown here" in shown
        assert "paragraph 000000" in shown
        assert "paragraph 004999" in shown
        assert "paragraph 002500" not in shown
        # What is drawn is bounded, not the 350,000 characters.
        assert len(markdown._lines) < 3 * (HEAD_CHARS + 2 * TAIL_CHARS) // 70


async def test_one_unbroken_line_of_megabytes_draws_a_bounded_window() -> None:
    line = "".join(f"w{n} " for n in range(400_000))  # 2.6 MB, no line break
    app = MarkdownApp()
    async with app.run_test(size=SIZE) as pilot:
        app.markdown.append(line)
        app.markdown.append(" the end")
        await pilot.pause()
        markdown = app.markdown
        assert markdown.windowed
        width = markdown.size.width
        assert len(markdown._lines) < (HEAD_CHARS + 2 * TAIL_CHARS) // width + 20
        shown = drawn(markdown).replace("\n", "")
        assert "w0 w1 w2" in shown
        assert "the end" in shown
        shown_chars = len(markdown.document.source) + len(markdown.tail_source)
        assert markdown.hidden_chars == len(line) + len(" the end") - shown_chars


async def test_the_tail_slides_by_whole_blocks_keeping_their_drawing() -> None:
    app = MarkdownApp()
    async with app.run_test(size=SIZE) as pilot:
        for part in paragraphs(3_000):
            app.markdown.append(part)
        await pilot.pause()
        tail = app.markdown.tail_document
        assert tail is not None
        kept = tail.blocks[-5]
        renders = app.markdown.renders
        for part in paragraphs(40):
            app.markdown.append(part.replace("paragraph", "later"))
        await pilot.pause()
        assert kept in tail.blocks  # the same block object, still drawn
        # Only the new paragraphs (and the growing last one) were drawn.
        assert app.markdown.renders - renders < 60


async def test_a_rebase_on_the_same_head_keeps_its_drawing() -> None:
    """A capped message shown anew from its unchanged head (more came at once
    than the store keeps) draws only its new tail; the result is what
    `update`, `note_gap` and `append` give."""
    head = "".join(paragraphs(200))[:HEAD_CHARS]
    app = MarkdownApp()
    async with app.run_test(size=SIZE) as pilot:
        markdown = app.markdown
        markdown.rebase(head, 1_000, "first tail\n\nparagraph two")
        await pilot.pause()
        renders = markdown.renders
        head_lines = markdown.document.blocks[0]
        markdown.rebase(head, 50_000, "```\ncode\n```\n\nsecond tail")
        await pilot.pause()
        assert markdown.document.blocks[0] is head_lines  # not parsed again
        assert markdown.renders - renders == 2  # the new tail's two blocks
        shown = drawn(markdown)
        other = MarkdownView()
        other.update(head)
        other.note_gap(50_000)
        other.append("```\ncode\n```\n\nsecond tail")
        assert (markdown.source, markdown.hidden_chars, markdown.given_chars) == (
            other.source,
            other.hidden_chars,
            other.given_chars,
        )
        assert "⋯ 50,000 characters not shown here" in shown
        assert "second tail" in shown
        assert "first tail" not in shown
        markdown.rebase("Another head.", 10, "tail")
        await pilot.pause()
        assert drawn(markdown).startswith("Another head.")


async def test_a_tail_cut_inside_a_code_fence_starts_with_the_fence() -> None:
    code = "".join(f"x_{n} = compute({n})  # line {n}\n" for n in range(20_000))
    app = MarkdownApp()
    async with app.run_test(size=SIZE) as pilot:
        app.markdown.append("Intro.\n\n```python\n")
        app.markdown.append(code)
        await pilot.pause()
        tail = app.markdown.tail_document
        assert tail is not None
        first = tail.blocks[0].tokens[0]
        assert first.type == "fence"
        assert first.info == "python"
        app.markdown.append("```\n\nAfter the code.")
        await pilot.pause()
        assert tail.blocks[-1].tokens[0].type == "paragraph_open"
        assert "After the code." in drawn(app.markdown)


def test_fence_tracker_follows_fences_in_pieces() -> None:
    text_ = "a\n```py\nx\n~~~\n```\nb\n  ~~~~\n~~~\n~~~~~\nc\n"
    tracker = FenceTracker()
    for start in range(0, len(text_), 3):
        tracker.feed(text_[start : start + 3])
    line = {n: text_.index(mark) for n, mark in enumerate(["x\n", "b\n", "c\n"])}
    assert tracker.opener_at(line[0]) == "```py"
    assert tracker.opener_at(line[1]) is None
    assert tracker.opener_at(line[2]) is None
    assert tracker.opener_at(text_.index("~~~\n~~~~~")) == "  ~~~~"


async def test_enter_and_a_click_on_the_notice_ask_for_everything() -> None:
    asked: list[MarkdownView] = []

    class Listening(MarkdownApp):
        def on_markdown_view_show_all(self, event: MarkdownView.ShowAll) -> None:
            asked.append(event.view)

    app = Listening()
    async with app.run_test(size=SIZE) as pilot:
        markdown = app.markdown
        markdown.append("".join(paragraphs(3_000)))
        await pilot.pause()
        markdown.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(asked) == 1)
        markdown._layout(markdown.size.width)
        row = markdown._notice_rows.start
        app.screen.scroll_to(y=row, animate=False, immediate=True)
        await pilot.pause()
        await pilot.click(MarkdownView, offset=(3, row))
        await wait_for(pilot, lambda: len(asked) == 2)
        assert asked == [markdown, markdown]
        await pilot.click(MarkdownView, offset=(3, row + 3))  # not the notice
        await pilot.pause()
        assert len(asked) == 2


# --- a message the store capped ----------------------------------------------------


CAP = 300_000


async def capped_app(
    pilot: Pilot[None], app: ConversationApp, store: SessionStore
) -> MessageView:
    body = "".join(f"chunk {n:07d} of a very long answer\n" for n in range(40_000))
    await show(app, store, ops.AppendMessageChunk("a1", "agent", text(body)))
    await show(app, store, ops.AppendMessageChunk("a1", "agent", text("THE END")))
    await pilot.pause()
    return view(app, "a1")


@pytest.mark.parametrize("cap", [None, CAP])
async def test_a_huge_chunk_is_drawn_from_its_ends_never_handed_over_whole(
    cap: int | None,
) -> None:
    """A chunk of megabytes (a store that keeps it all, and one that caps it):
    the view draws the window anew from the message's head and last characters;
    the text between is never given to the markdown (made printable, scanned)."""
    store = (
        SessionStore("s") if cap is None else SessionStore("s", max_message_chars=cap)
    )
    app = ConversationApp()
    async with app.run_test(size=SIZE) as pilot:
        await show(app, store, ops.AppendMessageChunk("a1", "agent", text("Hi. ")))
        await pilot.pause()
        body = "".join(f"line {n:07d} of a huge chunk\n" for n in range(60_000))
        await show(app, store, ops.AppendMessageChunk("a1", "agent", text(body)))
        message_view = view(app, "a1")
        await wait_for(pilot, lambda: not message_view.pending)
        markdown = message_view.query_one(MarkdownView)
        assert markdown.given_chars <= HEAD_CHARS + 2 * TAIL_CHARS
        shown = drawn(markdown)
        assert "Hi. line 0000000 of a huge chunk" in shown
        assert "line 0059999 of a huge chunk" in shown
        assert "not shown here" in shown
        assert message_view.truncated


async def test_a_capped_message_says_how_much_the_store_no_longer_keeps() -> None:
    app, store = ConversationApp(), SessionStore("s", max_message_chars=CAP)
    async with app.run_test(size=SIZE) as pilot:
        message_view = await capped_app(pilot, app, store)
        message = store.message("a1")
        assert message is not None
        assert message.cut_chars > 0
        markdown = message_view.query_one(MarkdownView)
        await wait_for(pilot, lambda: not message_view.pending)
        shown = drawn(markdown)
        total = message.text_size
        assert markdown.kept == (total - message.cut_chars, total)
        assert (
            f"{message.cut_chars:,} of the message's {total:,} are no longer kept"
            in shown
        )
        assert "THE END" in shown
        assert "chunk 0000000" in shown
        assert message_view.truncated


async def test_the_pager_shows_all_that_is_kept_and_saves_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))
    app, store = ConversationApp(), SessionStore("s", max_message_chars=CAP)
    async with app.run_test(size=SIZE) as pilot:
        message_view = await capped_app(pilot, app, store)
        message_view.action_show_all()
        await wait_for(pilot, lambda: bool(app.screen.query(TextPager)))
        pager = app.screen
        assert isinstance(pager, MessagePager)
        message = store.message("a1")
        assert message is not None
        assert pager.text.startswith(message.head_text)
        assert pager.text.endswith(message.tail or "")
        assert f"⋯ {message.cut_chars:,} characters of this message" in pager.text
        summary = pager.summary()
        assert f"{message.text_size:,} characters" in summary
        assert f"{message.cut_chars:,} were cut" in summary
        rows = pager.query_one(TextPager)
        # The pager is pushed on a message from the view: wait for its layout.
        await wait_for(pilot, lambda: rows.row_text(0).startswith("chunk 0000000"))
        await pilot.press("end")
        await pilot.pause()
        assert rows.row_text(rows.row_count - 1) == "THE END"
        await pilot.press("s")
        await wait_for(pilot, lambda: pager.saved_to is not None)
        assert pager.saved_to is not None
        assert pager.saved_to.is_relative_to(tmp_path / "home")
        assert pager.saved_to.read_text(encoding="utf-8") == pager.text
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, MessagePager))


async def test_a_long_user_message_is_cut_and_opens_whole_on_a_click() -> None:
    app, store = ConversationApp(), SessionStore("s")
    body = "".join(f"thinking {n:06d}\n" for n in range(20_000))  # 320,000
    async with app.run_test(size=SIZE) as pilot:
        await show(app, store, ops.UpsertMessage("u1", "user", content=[text(body)]))
        await pilot.pause()
        user = view(app, "u1")
        assert user.truncated
        shown = user.text
        hidden = len(body) - HEAD_CHARS - TAIL_CHARS
        assert f"⋯ {hidden:,} characters not shown here" in shown
        assert shown.startswith("thinking 000000")
        assert shown.endswith("thinking 019999\n")
        await pilot.click(MessageView, offset=(4, max(0, -user.region.y) + 1))
        await wait_for(pilot, lambda: isinstance(app.screen, MessagePager))
        pager = app.screen
        assert isinstance(pager, MessagePager)
        assert pager.text == body
