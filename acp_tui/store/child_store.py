"""A subagent's own store: a `SessionStore` whose ops go through its parent.

Ops applied to a `ChildStore` (a permission about one of its tool calls, asked
in its root session) are applied to its parent as `ops.InSubagent`: so they are
journaled with the parent's, and the parent's listeners (the UI's bridge, the
`print` transcript) see them, exactly as if the child's own update had brought
them. The parent applies them here with `apply_here`. Stdlib only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from acp_tui.store.changes import Change
from acp_tui.store.ops import InSubagent, Op
from acp_tui.store.store import SessionStore

__all__ = ["ChildStore"]


class ChildStore(SessionStore):
    """The store of subagent `session_id`, applying through `parent_apply`.

    Args:
        session_id: The child's session id (the subagent's id).
        parent_apply: The parent store's `apply_many`.
        **options: As for `SessionStore`.
    """

    def __init__(
        self,
        session_id: str,
        parent_apply: Callable[[Iterable[Op]], tuple[Change, ...]],
        **options: Any,
    ) -> None:
        super().__init__(session_id, **options)
        self._parent_apply = parent_apply

    def apply(self, op: Op) -> tuple[Change, ...]:
        """Apply `op` through the parent; return what it changed here."""
        return self.apply_many((op,))

    def apply_many(self, ops: Iterable[Op]) -> tuple[Change, ...]:
        """Apply `ops` through the parent; return what they changed here."""
        wrapped = [InSubagent(self.session_id, op) for op in ops]
        changes = self._parent_apply(wrapped)
        return tuple(inner for change in changes for inner in change.inner)

    def apply_here(self, op: Op) -> tuple[Change, ...]:
        """Apply `op` to this store only (the parent's `InSubagent` does)."""
        return SessionStore.apply(self, op)
