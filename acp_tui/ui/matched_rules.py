"""Match a node's CSS once for every node in the same place, process-wide.

Every time Textual styles a node (`Stylesheet.apply`: a widget mounted, a class
added, the focus moved, a screen resumed, and each of a node's component
classes, through a "virtual" node, each time the node is styled) it checks the
rules that may apply to it against the node and its ancestors and works out the
node's rules from the ones that match. The answer depends on nothing but the
stylesheet's rules and, for each node from the app down to this one, what a
selector can test: its type, its id, its classes and its pseudo-classes (hover,
focus, disabled, ...). Yet it is worked out again for each node, each time,
even when nothing it depends on changed: as the app opens a session, 86 nodes
and 145 virtual ones are styled, 30 of them again when the screen resumes, and
each card mounted into the conversation is styled as the one before it was. A
test process boots about 700 apps, each styling the same nodes the same way
(issue 28: about a quarter of a boot's CPU time went to styling).

`share_matched_rules` wraps `Stylesheet.apply`, process-wide, so that the rules
worked out for a node are kept under a key made of everything the matching
reads, and a node with the same key gets the same rules without matching again.
Textual then sets them on the node as before (`Stylesheet.replace_rules`, which
notices what changed and refreshes the node), and styles its component classes
(each one a node with a key of its own).

The key: the rules that may apply to the node, as Textual picks them (those
whose selectors end in the node's type, id or classes, or `*`), in the
stylesheet's order: the same `RuleSet` objects in the same order, whatever
else the stylesheet holds (Textual parses it again as each new widget class
brings its CSS, and when the theme or its variables change, which makes new
rules); and for each node on the path from the app to the node: its type
(which gives its type names), its id if a selector names it, its classes that
a selector names, and whether it has each pseudo-class those rules test on it:
on the node itself, those of the last compound part of their selectors, on an
ancestor, those of the parts before. A pseudo-class that cannot be read leaves
the node to Textual's own apply, uncached.

Measured (20 boots of the app against the fake agent in one process, as
tests/ui does, A/B in the same minutes): styling 29.4 -> 18.5 ms of CPU a boot.

Invariants:
* A node gets the rules (and the flags Textual sets from the rules that may
  apply: hover, focus-within, order and odd/even styles) that Textual's own
  apply works out for it, without its cache of a single update pass.
* A change of anything those rules' selectors can test changes the key, and
  so does a change of those rules. Results are kept for a bounded number of
  keys; what is worked out from a stylesheet's rules, for a bounded number of
  its parses.
* Installing is idempotent and process-wide (it patches the class).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from textual.css.model import CombinatorType, RuleSet, SelectorType
from textual.css.styles import RulesMap
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode

__all__ = ["KEYS_KEPT", "VERSIONS_KEPT", "share_matched_rules"]

_MARK: Final = "_acp_tui_shares_matched_rules"

VERSIONS_KEPT: Final = 64
"""Lists of rules (a stylesheet's, one per parse: Textual parses again as each
new widget class brings its CSS) whose kinds of node are kept; the oldest go
first."""

KEYS_KEPT: Final = 20_000
"""Keys (and lists of rules that may apply to a node) kept; past it they start
again (an app styles a few hundred kinds of node)."""

Flags = tuple[bool, bool, bool, bool]
"""What Textual's apply sets from the rules that may apply to a node:
`_has_hover_style`, `_has_focus_within`, `_has_order_style`, `_has_odd_or_even`."""

_ORDER: Final = frozenset(
    {"first-of-type", "last-of-type", "first-child", "last-child", "empty"}
)


@dataclass(frozen=True, slots=True)
class _Kind:
    """What a node's own type, id and classes decide, for one list of rules."""

    rules: int
    """The number of the rules that may apply to it, in Textual's order."""
    own: tuple[str, ...]
    """The pseudo-classes their selectors test on the node itself."""
    above: tuple[str, ...]
    """The pseudo-classes their selectors test on the node's ancestors."""
    flags: Flags


@dataclass(slots=True)
class _Version:
    """One list of rules (a stylesheet's, as one parse made it)."""

    rules: list[RuleSet]
    """Held, so that no other rule takes the place (and id) of one of them."""
    ids: frozenset[str]
    """The ids any selector names."""
    classes: frozenset[str]
    """The classes any selector names."""
    kinds: dict[tuple[object, ...], _Kind] = field(default_factory=dict)


_versions: dict[tuple[int, ...], _Version] = {}
"""By the ids of the rules, in order; the most recently used last."""
_seen: dict[int, tuple[list[RuleSet], _Version]] = {}
"""By the id of a stylesheet: its list of rules last seen, and its version."""
_numbers: dict[tuple[int, ...], tuple[int, tuple[RuleSet, ...]]] = {}
"""A number for each list of rules that may apply to a node (by their ids; the
rules held, so that no other rule takes the id of one of them)."""
_matched: dict[tuple[object, ...], tuple[Flags, RulesMap | None]] = {}
"""What Textual's apply worked out, by key (see the module)."""
_next_number = itertools.count()

_capture: list[Any] = [None, None]
"""The node whose rules `replace_rules` should hand over, and those rules."""


def _named(rules: Iterable[RuleSet]) -> tuple[frozenset[str], frozenset[str]]:
    ids: set[str] = set()
    classes: set[str] = set()
    for rule in rules:
        for selector_set in rule.selector_set:
            for selector in selector_set.selectors:
                if selector.type == SelectorType.ID:
                    ids.add(selector.name)
                elif selector.type == SelectorType.CLASS:
                    classes.add(selector.name)
    return frozenset(ids), frozenset(classes)


def _version(stylesheet: Stylesheet) -> _Version:
    """The version of the stylesheet's rules as they are now."""
    rules = stylesheet.rules
    seen = _seen.get(id(stylesheet))
    if seen is not None and seen[0] is rules:
        return seen[1]
    signature = tuple(map(id, rules))
    version = _versions.pop(signature, None)
    if version is None:
        ids, classes = _named(rules)
        version = _Version(list(rules), ids, classes)
        while len(_versions) >= VERSIONS_KEPT:
            del _versions[next(iter(_versions))]
    _versions[signature] = version
    if len(_seen) >= VERSIONS_KEPT:
        _seen.clear()
    _seen[id(stylesheet)] = (rules, version)
    return version


def _number(rules: tuple[RuleSet, ...]) -> int:
    ids = tuple(map(id, rules))
    found = _numbers.get(ids)
    if found is None:
        if len(_numbers) >= KEYS_KEPT:
            _numbers.clear()
            _matched.clear()
        found = _numbers[ids] = (next(_next_number), rules)
    return found[0]


def _kind(
    stylesheet: Stylesheet, version: _Version, node: DOMNode, itself: tuple[object, ...]
) -> _Kind:
    """The rules that may apply to the node, as Textual picks them."""
    kind = version.kinds.get(itself)
    if kind is None:
        rules_map = stylesheet.rules_map
        may_apply = {
            rule
            for name in rules_map.keys() & node._selector_names
            for rule in rules_map[name]
        }
        rules = tuple(filter(may_apply.__contains__, reversed(version.rules)))
        pseudo: set[str] = set().union(*(rule.pseudo_classes for rule in rules))
        own, above = _tested(rules)
        flags = (
            "hover" in pseudo,
            "focus-within" in pseudo,
            not pseudo.isdisjoint(_ORDER),
            "odd" in pseudo or "even" in pseudo,
        )
        kind = _Kind(_number(rules), own, above, flags)
        version.kinds[itself] = kind
    return kind


def _tested(rules: Iterable[RuleSet]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The pseudo-classes the rules test on the node, and on its ancestors.

    A selector's last compound part (its last selector and those joined to it
    with no combinator) must match the node; the parts before it, ancestors.
    """
    own: set[str] = set()
    above: set[str] = set()
    for rule in rules:
        for selector_set in rule.selector_set:
            selectors = selector_set.selectors
            last = len(selectors) - 1
            while last > 0 and selectors[last].combinator == CombinatorType.SAME:
                last -= 1
            for index, selector in enumerate(selectors):
                (own if index >= last else above).update(selector.pseudo_classes)
    return tuple(sorted(own)), tuple(sorted(above))


def _own(version: _Version, node: DOMNode) -> tuple[object, ...]:
    """What of the node itself a selector can test, but its pseudo-classes."""
    node_id = node._id
    return (
        type(node),
        node_id if node_id in version.ids else None,
        version.classes.intersection(node._classes),
    )


def _has(node: DOMNode, name: str) -> bool:
    checks: dict[str, Callable[[Any], bool]] = node._PSEUDO_CLASSES
    check = checks.get(name)
    return check is not None and bool(check(node))


def _key(
    stylesheet: Stylesheet, version: _Version, node: DOMNode
) -> tuple[_Kind, tuple[object, ...]]:
    """The node's kind and its key (see the module)."""
    itself = _own(version, node)
    kind = _kind(stylesheet, version, node, itself)
    parts: list[object] = [kind.rules, itself]
    if kind.own:
        parts.append(tuple([_has(node, name) for name in kind.own]))
    above = kind.above
    parent = node._parent
    while isinstance(parent, DOMNode):
        parts.append(_own(version, parent))
        if above:
            parts.append(tuple([_has(parent, name) for name in above]))
        parent = parent._parent
    return kind, tuple(parts)


Apply = Callable[..., None]


def share_matched_rules() -> None:
    """Make `Stylesheet.apply` reuse the rules it matched for an equal node."""
    original: Apply = Stylesheet.apply
    if getattr(original, _MARK, False):
        return
    replace: Callable[..., None] = Stylesheet.replace_rules.__func__  # type: ignore[attr-defined]

    @functools.wraps(replace)
    def replace_rules(
        cls: type[Stylesheet], node: DOMNode, rules: RulesMap, animate: bool = False
    ) -> None:
        if node is _capture[0]:
            _capture[1] = rules
        replace(cls, node, rules, animate)

    @functools.wraps(original)
    def apply(
        self: Stylesheet,
        node: DOMNode,
        *,
        animate: bool = False,
        cache: dict[tuple[Any, ...], RulesMap] | None = None,
    ) -> None:
        version = _version(self)
        try:
            kind, key = _key(self, version, node)
        except Exception:  # a pseudo-class that cannot be read now: Textual's
            original(self, node, animate=animate, cache=cache)
            return
        found = _matched.get(key)
        if found is not None:
            flags, rules = found
            (
                node._has_hover_style,
                node._has_focus_within,
                node._has_order_style,
                node._has_odd_or_even,
            ) = flags
            if rules is not None:
                self.replace_rules(node, rules, animate=animate)
            self._process_component_classes(node)
            return
        outer = tuple(_capture)
        _capture[:] = [node, None]
        try:
            original(self, node, animate=animate)
            matched: Any = _capture[1]
        finally:
            _capture[:] = outer
        if len(_matched) >= KEYS_KEPT:
            _matched.clear()
        _matched[key] = (kind.flags, matched)

    setattr(apply, _MARK, True)
    Stylesheet.replace_rules = classmethod(replace_rules)  # type: ignore[method-assign,assignment]
    Stylesheet.apply = apply  # type: ignore[method-assign]
