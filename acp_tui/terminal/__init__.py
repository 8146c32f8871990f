"""Terminal emulation for agent terminals (pyte + stdlib; never Textual or Rich)."""
