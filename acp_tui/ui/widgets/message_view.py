"""One message of the conversation: user, agent (streamed markdown) or thought."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Collapsible, Markdown, Static
from textual.widgets.markdown import MarkdownStream

from acp_tui.protocol.framing import printable
from acp_tui.store.model import Message

__all__ = ["MessageView"]


def _safe(text: str) -> str:
    return printable(text, keep="\n\t")


class MessageView(Widget):
    """Renders a `Message`; agent text streams through a `MarkdownStream`.

    Args:
        message: The message snapshot to show first.
    """

    DEFAULT_CSS = """
    MessageView {
        height: auto;
        margin: 0 0 1 0;
        &.-user {
            border-left: thick $primary;
            padding: 0 1;
            background: $boost;
        }
        &.-agent > Markdown { margin: 0; padding: 0 1; }
        &.-thought { color: $text-muted; }
        & Collapsible { margin: 0; }
    }
    """

    def __init__(self, message: Message) -> None:
        super().__init__(classes=f"-{message.role}")
        self.message = message
        self.role = message.role
        self._rendered = ""
        self._stream: MarkdownStream | None = None

    def compose(self) -> ComposeResult:
        """Build the child widgets."""
        text = _safe(self.message.text)
        self._rendered = self.message.text
        if self.role == "agent":
            yield Markdown(text)
        elif self.role == "thought":
            with Collapsible(title="Thought", collapsed=True):
                yield Static(Text(text), classes="body")
        else:
            yield Static(Text(text), classes="body")

    @property
    def text(self) -> str:
        """The text rendered so far."""
        return self._rendered

    async def update_message(self, message: Message, *, replaced: bool) -> None:
        """Show a newer snapshot; appended text is streamed, `replaced` re-renders."""
        self.message = message
        text = message.text
        if text == self._rendered:
            return
        if self.role != "agent":
            self._rendered = text
            self.query_one(".body", Static).update(Text(_safe(text)))
            return
        markdown = self.query_one(Markdown)
        if replaced or not text.startswith(self._rendered):
            await self._stop_stream()
            self._rendered = text
            await markdown.update(_safe(text))
            return
        delta = text[len(self._rendered) :]
        self._rendered = text
        if self._stream is None:
            self._stream = Markdown.get_stream(markdown)
        await self._stream.write(_safe(delta))

    async def _stop_stream(self) -> None:
        if self._stream is not None:
            stream, self._stream = self._stream, None
            await stream.stop()

    async def finish(self) -> None:
        """Flush and stop streaming (the turn is over)."""
        await self._stop_stream()

    async def on_unmount(self) -> None:
        """Stop the stream's background task."""
        await self._stop_stream()
