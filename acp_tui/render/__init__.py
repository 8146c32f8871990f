"""Rich renderables for store entities, terminals and diffs (never Textual)."""
