"""`plain_json`: a JSON-ready deep copy, whatever read-only form the store holds.

Its fast path (exact types, scalars taken without a call) gives the same JSON
value as the generic one (the ABCs), for the store's containers and for
subclasses: plain dicts and lists, all the way down.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_tui.store._buffers import ContentView
from acp_tui.store.values import plain_json


class _Text(str):
    pass


class _Level(enum.IntEnum):
    HIGH = 3


def _reference(value: object) -> Any:
    """The copy through JSON text (plain_json's contract: the same JSON value)."""
    return json.loads(json.dumps(value, default=_unpacked))


def _unpacked(value: object) -> object:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, Sequence):
        return list(value)
    raise TypeError(type(value).__name__)


def _plain(value: object) -> bool:
    """Only dicts (with str keys), lists and JSON scalars, all the way down."""
    if type(value) is dict:
        return all(type(k) is str and _plain(v) for k, v in value.items())
    if type(value) is list:
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, str | int | float | bool)


_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=5)
    | st.builds(_Text, st.text(max_size=5))
    | st.just(_Level.HIGH)
)
_KEYS = st.text(max_size=4) | st.builds(_Text, st.text(max_size=4))


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    lists = st.lists(children, max_size=4)
    dicts = st.dictionaries(_KEYS, children, max_size=4)
    return (
        lists
        | lists.map(tuple)
        | lists.map(ContentView)
        | dicts
        | dicts.map(MappingProxyType)
    )


@given(st.recursive(_SCALARS, _containers, max_leaves=15))
def test_the_copy_is_the_generic_one(value: object) -> None:
    copy = plain_json(value)
    assert copy == _reference(value)
    assert _plain(copy)


def test_the_copy_is_plain_and_its_keys_are_plain_strings() -> None:
    block: MappingProxyType[str, object] = MappingProxyType(
        {_Text("type"): "text", "n": (1, MappingProxyType({}))}
    )
    copy = plain_json(ContentView([block]))
    assert copy == [{"type": "text", "n": [1, {}]}]
    assert isinstance(copy, list)
    assert isinstance(copy[0], dict)
    assert [type(key) for key in copy[0]] == [str, str]
    assert type(copy[0]["n"]) is list


@pytest.mark.parametrize("value", [b"x", {"a": bytearray(b"x")}, [object()], {1.5}])
def test_what_is_not_json_is_refused(value: object) -> None:
    with pytest.raises(TypeError, match="not a JSON value"):
        plain_json(value)
