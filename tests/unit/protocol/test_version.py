"""Version negotiation rules."""

from __future__ import annotations

from typing import Any

import pytest

from acp_tui.protocol.version import (
    UnsupportedProtocolVersion,
    answered_instead,
    is_version_at_least,
    known_version,
    negotiate,
    offers_for,
)


def test_offers() -> None:
    assert offers_for("auto") == (2, 1)
    assert offers_for("2") == (2,)
    assert offers_for("1") == (1,)


@pytest.mark.parametrize(
    ("offered", "answered", "expected"), [(2, 2, 2), (2, 1, 1), (1, 1, 1)]
)
def test_negotiate_accepts(offered: int, answered: int, expected: int) -> None:
    assert negotiate(offered, answered) == expected


@pytest.mark.parametrize(
    ("offered", "answered", "allowed"),
    [
        (2, 7, (1, 2)),
        (2, 0, (1, 2)),
        (1, 2, (1, 2)),  # above the offer
        (2, "2", (1, 2)),
        (2, True, (1, 2)),
        (2, None, (1, 2)),
        (2, 1, (2,)),  # the user pinned 2
    ],
)
def test_negotiate_rejects(
    offered: int, answered: Any, allowed: tuple[int, ...]
) -> None:
    with pytest.raises(UnsupportedProtocolVersion) as caught:
        negotiate(offered, answered, allowed)
    assert repr(answered) in str(caught.value)


def test_unknown_versions_compare_conservatively() -> None:
    assert is_version_at_least(2, 1)
    assert not is_version_at_least(3, 1)
    with pytest.raises(ValueError, match="unknown"):
        is_version_at_least(2, 3)


def test_known_version() -> None:
    assert known_version(1) == 1
    assert known_version(2) == 2
    assert known_version(2.0) == 2
    for value in (True, False, 3, 0, "2", None, [2]):
        assert known_version(value) is None


@pytest.mark.parametrize(
    ("offered", "answered", "other"),
    [(2, 1, 1), (1, 2, 2), (2, 2, None), (1, 1, None), (2, 3, None), (1, "2", None)],
)
def test_answered_instead(offered: int, answered: Any, other: int | None) -> None:
    assert answered_instead(offered, answered) == other
