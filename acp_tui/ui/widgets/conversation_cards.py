"""The conversation's cards: the widget for each timeline entry, and its updates.

`Conversation` (`acp_tui.ui.widgets.conversation`) decides which timeline entries
have a widget mounted (its window); this module knows the widgets themselves:

* `SHOWN_KINDS`: the timeline kinds that get a card.
* `make_card`: the card for one entry, built from the store's newest snapshot: a
  message, a tool call, a plan, a permission, an elicitation, or a terminal no
  tool call refers to (`StandaloneTerminal`). A permission or an elicitation
  about a tool call the store knows gets no card of its own: its tool call's
  card records it.
* `update_cards`: one batch of changes reaches the mounted cards, each changed
  entity's newest snapshot handed to its card once (a replacement marked as
  such). A terminal's change refreshes the tool-call cards that show it, and a
  permission's or an elicitation's change the tool-call card that records it.
  Entries with no card mounted are left alone: they are built from the store
  when they are mounted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

from textual.widget import Widget

from acp_tui.store.changes import Change
from acp_tui.store.store import SessionStore
from acp_tui.ui.widgets.conversation_entries import StandaloneTerminal
from acp_tui.ui.widgets.conversation_follow import Key
from acp_tui.ui.widgets.elicitation_view import ElicitationView
from acp_tui.ui.widgets.message_view import MessageView
from acp_tui.ui.widgets.path_lines import session_paths
from acp_tui.ui.widgets.permission_view import PermissionView
from acp_tui.ui.widgets.plan_document_view import PlanDocumentView, plan_card
from acp_tui.ui.widgets.plan_view import PlanView
from acp_tui.ui.widgets.report_cards import (
    REPORT_KINDS,
    make_report_card,
    update_report_card,
)
from acp_tui.ui.widgets.subagent_lane import SubagentLane
from acp_tui.ui.widgets.tool_call_view import ToolCallView

__all__ = ["SHOWN_KINDS", "make_card", "update_cards"]

SHOWN_KINDS: Final = (
    frozenset(
        {
            "message",
            "tool_call",
            "plan",
            "permission",
            "elicitation",
            "terminal",
            "subagent",
        }
    )
    | REPORT_KINDS
)
"""Timeline kinds with a widget (unknown updates: later; notices, compactions and
session messages: `report_cards`)."""

_View = TypeVar("_View", bound=Widget)
_Entity = TypeVar("_Entity")


@dataclass(frozen=True, slots=True)
class _SnapshotCard(Generic[_View, _Entity]):
    """A card shown from one entity's snapshot: how it is read and handed over."""

    view: type[_View]
    snapshot: Callable[[SessionStore, str], _Entity | None]
    """The store's query for the entity (None: unknown)."""
    show: Callable[[_View, _Entity], None]
    """The card's method that shows a newer snapshot."""

    def update(self, widget: Widget, store: SessionStore, entity_id: str) -> bool:
        """Hand `widget` its entity's newest snapshot; False if it is another card."""
        if not isinstance(widget, self.view):
            return False
        entity = self.snapshot(store, entity_id)
        if entity is not None:
            self.show(widget, entity)
        return True


_SNAPSHOT_CARDS: Final[tuple[_SnapshotCard[Any, Any], ...]] = (
    _SnapshotCard(ToolCallView, SessionStore.tool_call, ToolCallView.update_tool_call),
    _SnapshotCard(PlanView, SessionStore.plan, PlanView.update_plan),
    _SnapshotCard(PlanDocumentView, SessionStore.plan, PlanDocumentView.update_plan),
    _SnapshotCard(
        PermissionView, SessionStore.permission, PermissionView.update_permission
    ),
    _SnapshotCard(
        ElicitationView, SessionStore.elicitation, ElicitationView.update_elicitation
    ),
)
"""The cards `update_cards` hands a snapshot to (messages and terminals aside)."""


def _in_card(store: SessionStore, tool_call_id: str | None) -> bool:
    """Whether a permission (elicitation) about `tool_call_id` is in its tool card.

    Such a request gets no entry of its own (`ToolCallView.refresh_permissions`).
    """
    return tool_call_id is not None and store.tool_call(tool_call_id) is not None


def make_card(store: SessionStore, key: Key) -> Widget | None:
    """The card for the timeline entry `key` (None: the entry has none)."""
    kind, entity_id = key
    if kind == "message":
        message = store.message(entity_id)
        return MessageView(message) if message is not None else None
    if kind == "tool_call":
        tool_call = store.tool_call(entity_id)
        return ToolCallView(store, tool_call) if tool_call is not None else None
    if kind == "plan":
        plan = store.plan(entity_id)
        if plan is None:
            return None
        return plan_card(plan, paths=session_paths(store))
    if kind == "permission":
        permission = store.permission(entity_id)
        if permission is None or _in_card(store, permission.tool_call_id):
            return None  # none, or recorded in its tool call's card
        return PermissionView(permission, session_paths(store))
    if kind == "elicitation":
        elicitation = store.elicitation(entity_id)
        if elicitation is None or _in_card(store, elicitation.tool_call_id):
            return None  # none, or recorded in its tool call's card
        return ElicitationView(elicitation)
    if kind == "terminal":
        return StandaloneTerminal(store, entity_id)
    if kind == "subagent":
        return SubagentLane(store, entity_id)
    return make_report_card(store, kind, entity_id)


def _changed(
    store: SessionStore, changes: Sequence[Change], cards: Mapping[Key, Widget]
) -> dict[Key, bool]:
    """The entries a batch changed, each once: whether one was replaced.

    A permission's (an elicitation's) change refreshes the tool-call card that
    records it, here.
    """
    changed: dict[Key, bool] = {}
    for change in changes:
        entity_id = change.id
        if entity_id is None:
            continue
        kind = change.kind
        if kind == "terminal":
            for owner in store.tool_call_ids_for_terminal(entity_id):
                changed.setdefault(("tool_call", owner), False)
            changed.setdefault(("terminal", entity_id), False)
            continue
        if kind in ("permission", "elicitation"):  # in its tool call's card?
            record = (
                store.permission(entity_id)
                if kind == "permission"
                else store.elicitation(entity_id)
            )
            about = record.tool_call_id if record is not None else None
            if about is not None:
                card = cards.get(("tool_call", about))
                if isinstance(card, ToolCallView):
                    card.refresh_permissions()
        key: Key = (kind, entity_id)
        if change.action == "replaced":
            changed[key] = True
        elif key not in changed:
            changed[key] = False
    return changed


async def update_cards(
    store: SessionStore,
    changes: Sequence[Change],
    cards: Mapping[Key, Widget],
    built: Set[Key],
) -> None:
    """Bring the mounted cards up to date with one batch of changes.

    Args:
        store: The store the changes were made to.
        changes: The batch, in order.
        cards: The mounted cards by timeline entry.
        built: Entries whose cards were just built from the newest snapshot
            (nothing to update).
    """
    lanes: dict[str, list[Change]] = {}
    for change in changes:
        if change.kind == "subagent" and change.id is not None:
            lanes.setdefault(change.id, []).append(change)
    for lane_id, lane_changes in lanes.items():
        lane = cards.get(("subagent", lane_id))
        if isinstance(lane, SubagentLane) and ("subagent", lane_id) not in built:
            await lane.apply_batch(lane_changes)
    for key, replaced in _changed(store, changes, cards).items():
        if key in built:
            continue
        widget = cards.get(key)
        if widget is None:
            continue  # not mounted: it is built from the store when it is
        entity_id = key[1]
        if isinstance(widget, StandaloneTerminal):
            widget.refresh_terminal()
        elif isinstance(widget, MessageView):
            message = store.message(entity_id)
            if message is not None:
                await widget.update_message(message, replaced=replaced)
        elif not update_report_card(widget, store, entity_id):
            for card in _SNAPSHOT_CARDS:
                if card.update(widget, store, entity_id):
                    break
