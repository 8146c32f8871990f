"""Per-version ACP wire models. `v1` and `v2` never import each other."""
