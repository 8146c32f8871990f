"""Git-patch parsing into a diff model (never Textual or Rich)."""
