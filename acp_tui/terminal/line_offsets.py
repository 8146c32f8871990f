"""Where the last lines of terminal output begin: bytes only, no emulator.

Apart from `terminal.emulator` so that `final_text` can find its tail without
importing pyte (and wcwidth's tables), which it needs only for unusual lines.
"""

from __future__ import annotations

__all__ = ["line_tail_offset"]


def line_tail_offset(data: bytes, lines: int) -> int:
    """Where the last `lines` lines of `data` begin (just after a line feed).

    Args:
        data: Output.
        lines: How many lines to keep (a final unterminated line counts).

    Returns:
        An offset into `data`: 0 if it holds no more than `lines` lines.
    """
    end = len(data)
    if data.endswith(b"\n"):
        end -= 1  # The final line feed ends the last line; it starts none.
    for _ in range(lines):
        end = data.rfind(b"\n", 0, end)
        if end == -1:
            return 0
    return end + 1
