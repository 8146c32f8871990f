"""`plain_json`: a JSON-ready deep copy, whatever read-only form the store holds.

Its fast path (exact types, scalars taken without a call) gives what the
generic one (the ABCs) gives, for the store's containers and for subclasses.
"""

from __future__ import annotations

import enum
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
    """The copy as the ABCs define it (plain_json's contract)."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, Mapping):
        return {str(k): _reference(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return [_reference(v) for v in value]
    raise TypeError(type(value).__name__)


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
    assert type(copy) is type(_reference(value))


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
