"""Child sessions of subagents: their updates go to their parent's store.

An agent that speaks the subagents RFD (v2 baseline; v1 once the client
declares the `subagents` capability) announces each child session with a
`subagent_update` on its parent (`client.subagent_wire`), then sends the
child's own `session/update`s under the child's session id. `ChildSessions`
remembers each announced child (nested children too: a child may own
children), translates the child's updates with a translator of its own (the
dialect's, over the subagent's own store), and wraps the ops as
`ops.InSubagent` on the way to the root session's store, so the parent's
journal keeps them and its transcript replays them.

A parent cancel (`cancel`) marks its running subagents cancelled and sends
`session/cancel` to each child the agent lets the client cancel (the child's
`cancel` capability). A child's requests (permissions) are asked like its root
session's, and recorded in the child's store (`Child.session`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Final, Protocol

from acp_tui.client.subagent_wire import subagent_status
from acp_tui.store import ops
from acp_tui.store.store import SessionStore

if TYPE_CHECKING:
    from acp_tui.client.dialect import Dialect, SessionTranslator
    from acp_tui.client.tracked_session import TrackedSession

__all__ = ["Child", "ChildSessions", "HasDialect", "Notifier"]

_MIRRORED: Final = frozenset({"running", "idle", "requires_action"})
"""The child states its own stream reports that its lane mirrors."""


class HasDialect(Protocol):
    """The client: its dialect makes each child's translator."""

    @property
    def dialect(self) -> Dialect:
        """The connection's dialect."""


class Notifier(Protocol):
    """Sends a notification (the connection's dispatcher)."""

    async def notify(self, method: str, params: Any) -> None:
        """Send `method` with `params`."""


@dataclass(slots=True)
class Child:
    """An announced child session: where its ops go."""

    root: TrackedSession
    """The open session whose store holds it (its root parent)."""
    path: tuple[str, ...]
    """Subagent ids from the root's store down to this child."""
    translator: SessionTranslator
    store: SessionStore
    """The child's own store (inside the root's)."""

    def session(self) -> TrackedSession:
        """The root session, seen from the child: its store is the child's.

        A child's requests (permissions, elicitations) are recorded in the
        child's store (journaled with the root's) and answered like the root's:
        a cancel of the root's work answers them `cancelled`.
        """
        return replace(self.root, store=self.store)

    def wrap(self, operations: Sequence[ops.Op]) -> list[ops.Op]:
        """The child's ops as ops of the root's store.

        A state the child reports on its own stream (v2 `state_update`) is
        mirrored on its parent's association too, as the parent's
        `subagent_update` should (idempotent when the agent mirrors it itself).
        """
        wrapped: list[ops.Op] = []
        for op in operations:
            wrapped.append(self._wrapped(op, self.path))
            if isinstance(op, ops.SetState) and op.state in _MIRRORED:
                state = {"state": op.state, "stopReason": op.stop_reason}
                status, stop_reason, error = subagent_status(
                    {**state, "error": op.error}
                )
                mirror = ops.PatchSubagent(
                    self.path[-1],
                    status=status,
                    stop_reason=stop_reason,
                    error=error,
                    at_ms=int(time.time() * 1000),
                )
                wrapped.append(self._wrapped(mirror, self.path[:-1]))
        return wrapped

    @staticmethod
    def _wrapped(op: ops.Op, path: tuple[str, ...]) -> ops.Op:
        for subagent_id in reversed(path):
            op = ops.InSubagent(subagent_id, op)
        return op


class ChildSessions:
    """The announced child sessions of the client's open sessions.

    Args:
        make_translator: The dialect's translator for a store.
    """

    def __init__(
        self, make_translator: Callable[[SessionStore], SessionTranslator] | None
    ) -> None:
        self._make_translator = make_translator
        self._children: dict[str, Child] = {}

    def get(self, session_id: str) -> Child | None:
        """The child `session_id`, if one was announced."""
        return self._children.get(session_id)

    def note(
        self, root: TrackedSession, path: tuple[str, ...], operations: Sequence[ops.Op]
    ) -> None:
        """Remember the children that `operations` (applied already) announced.

        `path` is where the ops came from: () for the root session's own.
        """
        make_translator = self._make_translator
        if make_translator is None:  # no dialect: children are not followed
            return
        for op in operations:
            if not isinstance(op, ops.PatchSubagent):
                continue
            known = self._children.get(op.subagent_id)
            if known is not None and known.root is root:
                continue
            store: SessionStore | None = root.store
            for subagent_id in path:
                store = store.subagent_store(subagent_id) if store is not None else None
            child_store = store.subagent_store(op.subagent_id) if store else None
            if child_store is None:
                continue
            self._children[op.subagent_id] = Child(
                root,
                (*path, op.subagent_id),
                make_translator(child_store),
                child_store,
            )

    async def cancel(self, root: TrackedSession, dispatcher: Notifier) -> list[ops.Op]:
        """`root`'s work was cancelled: cancel its children's too.

        Sends `session/cancel` for each running child that the agent lets the
        client cancel (directly under `root`; the agent cancels deeper ones with
        them), and returns the ops that mark every running subagent of `root`
        (nested ones too) cancelled.
        """
        to_cancel, marks = self._cancel_marks(root)
        for child_id in to_cancel:
            await dispatcher.notify("session/cancel", {"sessionId": child_id})
        return marks

    def _cancel_marks(self, root: TrackedSession) -> tuple[list[str], list[ops.Op]]:
        now = int(time.time() * 1000)
        to_cancel: list[str] = []
        marks: list[ops.Op] = []

        def visit(store: SessionStore, path: tuple[str, ...]) -> None:
            for subagent in store.subagents():
                if not subagent.running:
                    continue
                if not path and subagent.can_cancel:
                    to_cancel.append(subagent.subagent_id)
                op: ops.Op = ops.PatchSubagent(
                    subagent.subagent_id, status="cancelled", at_ms=now
                )
                for outer in reversed(path):
                    op = ops.InSubagent(outer, op)
                marks.append(op)
                inner = store.subagent_store(subagent.subagent_id)
                if inner is not None:
                    visit(inner, (*path, subagent.subagent_id))

        visit(root.store, ())
        return to_cancel, marks
