"""Git-patch parsing into a diff model (never Textual or Rich).

* `model`: the immutable model (`ParsedPatch`, `FilePatch`, `Hunk`, `DiffLine`),
  context folds and side-by-side row pairs.
* `parse`: `parse_patch` (git patches, read with `unidiff`), `patch_from_texts`
  (ACP v1 old/new text as a git patch), `check_paths` (absolute, in `changes`).
* `words`: `word_diff`, the intra-line changes of a removed/added line pair.
"""

from __future__ import annotations

from acp_tui.diff import model
from acp_tui.diff.model import *  # noqa: F403 (the model's names are the package's)
from acp_tui.diff.parse import check_paths, parse_patch, patch_from_texts
from acp_tui.diff.words import word_diff

__all__ = ["check_paths", "parse_patch", "patch_from_texts", "word_diff"]
__all__ += model.__all__
