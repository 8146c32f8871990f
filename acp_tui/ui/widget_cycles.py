"""Keep removed widgets out of reference cycles, so refcounting frees them.

A Textual node holds its CSS styles (`DOMNode._css_styles`,
`DOMNode._inline_styles`, each a `Styles`), and each of them holds the node
back (`Styles.node`): every widget is a reference cycle, and so is every
"virtual" node Textual makes to read a component class's styles
(`Stylesheet._process_component_classes`, each time a node with
`COMPONENT_CLASSES` is styled again). So a card removed from the conversation,
with everything it holds (its children, their render caches, strips and
segments, markdown blocks, diff rows), was left to the cyclic collector; paging
through a long session left hundreds of such objects a page, and the cards
alive when the collector's policy froze what survived (`gc_policy`) became
frozen garbage that only a collection of the whole heap frees.

* `remove_released(parent, widgets)` removes widgets (as `remove_awaited`) and,
  once they are gone, breaks the cycles in every node of them (and of the
  scrollbars they made): the styles' back references, and the ring of links of
  `Widget._box_model_cache` (a Textual `LRUCache`). Reference counting then
  frees each node as soon as nothing else holds it.
* `break_component_style_cycles()` (process-wide, once, with the collector
  policy) has each virtual node kept by its node instead: its styles no longer
  hold it, and the node keeps the list of its current virtual nodes (their
  `RenderStyles` hold them weakly), so they die with it, or when the node is
  styled again.

Measured paging the resumed session of 100,000 updates (100 pages, collector
off, what `gc.collect()` then finds): 3,175 objects a page before (the cards,
the compositor's maps, strips), 44-70 after, none of them a node.

Invariants:
* Only removed nodes lose their styles' back reference; `Styles.node` is
  optional in Textual (None for styles not attached to a node), and reading
  the styles still works.
* A virtual node lives as long as its node uses its styles (the node holds it).
* Installing is idempotent and process-wide (it patches the class).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

from textual.cache import LRUCache
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.widget import Widget

from acp_tui.ui.textual_private import remove_awaited

__all__ = [
    "break_component_style_cycles",
    "release_nodes",
    "remove_released",
    "scrollbars",
    "subtree",
]

_MARK: Final = "_acp_tui_component_cycles"
_VIRTUAL: Final = "_acp_tui_virtual_nodes"
"""The attribute where a node keeps the virtual nodes of its component classes."""


def _unlink(node: DOMNode) -> None:
    """Drop the back references of `node`'s own styles to it."""
    node._css_styles.node = None
    node._inline_styles.node = None


def scrollbars(node: DOMNode) -> list[Widget]:
    """The scrollbars `node` made (they are not among its children)."""
    if not isinstance(node, Widget):
        return []
    made = (
        node._vertical_scrollbar,
        node._horizontal_scrollbar,
        node._scrollbar_corner,
    )
    return [bar for bar in made if bar is not None]


def subtree(widgets: Iterable[Widget]) -> list[DOMNode]:
    """Every node of `widgets`: each with its descendants and their scrollbars."""
    nodes: list[DOMNode] = []
    for widget in widgets:
        for node in widget.walk_children(with_self=True):
            nodes.append(node)
            nodes.extend(scrollbars(node))
    return nodes


def _unlink_cache(cache: LRUCache[Any, Any]) -> None:
    """Empty a Textual `LRUCache`, its links included.

    Its entries are a ring of lists, each holding its neighbours: emptied with
    `clear`, the ring stays, a cycle holding the values.
    """
    for link in cache._cache.values():
        link.clear()
    cache.clear()


def release_nodes(nodes: Iterable[DOMNode]) -> None:
    """Break the reference cycles of removed nodes (see the module)."""
    for node in nodes:
        _unlink(node)
        if isinstance(node, Widget):
            _unlink_cache(node._box_model_cache)


async def remove_released(parent: Widget, widgets: Sequence[Widget]) -> None:
    """Remove `widgets` from `parent` (`remove_awaited`), then release their nodes."""
    nodes = subtree(widgets)
    await remove_awaited(parent, widgets)
    release_nodes(node for node in nodes if not node.is_attached)


Process = Callable[[Stylesheet, DOMNode], None]


def break_component_style_cycles() -> None:
    """Make the virtual nodes of component classes hold no cycle (once)."""
    original: Process = Stylesheet._process_component_classes
    if getattr(original, _MARK, False):
        return

    @functools.wraps(original)
    def process(self: Stylesheet, node: DOMNode) -> None:
        original(self, node)
        virtual = [styles.node for styles in node._component_styles.values()]
        if virtual or hasattr(node, _VIRTUAL):
            for each in virtual:
                if each is not None:
                    _unlink(each)
            # Their styles hold them weakly (`RenderStyles.node`): the node
            # keeps them alive instead, as their styles did, without a cycle.
            setattr(node, _VIRTUAL, virtual)

    setattr(process, _MARK, True)
    Stylesheet._process_component_classes = process  # type: ignore[method-assign]
