"""The prompt editor: Enter submits, ctrl+j inserts a newline."""

from __future__ import annotations

from dataclasses import dataclass

from textual import events
from textual.message import Message
from textual.widgets import TextArea

__all__ = ["PromptInput"]


class PromptInput(TextArea):
    """A multi-line prompt; posts `Submitted` with the text on Enter."""

    DEFAULT_CSS = """
    PromptInput {
        height: auto;
        min-height: 3;
        max-height: 10;
        border: tall $border-blurred;
        &:focus { border: tall $primary; }
    }
    """

    @dataclass
    class Submitted(Message):
        """The user sent a prompt."""

        prompt_input: PromptInput
        text: str

        @property
        def control(self) -> PromptInput:
            """The prompt input that sent it."""
            return self.prompt_input

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False)

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            text = self.text
            if text.strip():
                self.clear()
                self.post_message(self.Submitted(self, text))
            return
        if event.key == "ctrl+j":
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        await super()._on_key(event)
