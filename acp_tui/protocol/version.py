"""ACP protocol versions: what acp-tui speaks and how a version is agreed.

ACP versions are integers. The client offers its highest version in `initialize`;
the agent answers with that version if it supports it, otherwise with its own
latest (the newer v2 draft says: its highest version not above the offer). acp-tui
speaks 1 and 2. v2 is a draft, so the user can pin a version (`--protocol 1|2` or
the config file); `auto` offers 2 and falls back to 1.
"""

from __future__ import annotations

from typing import Any, Final, Literal, TypeAlias

__all__ = [
    "LATEST",
    "SUPPORTED_VERSIONS",
    "ProtocolChoice",
    "ProtocolVersion",
    "UnsupportedProtocolVersion",
    "answered_instead",
    "is_version_at_least",
    "known_version",
    "negotiate",
    "offers_for",
]

ProtocolVersion: TypeAlias = Literal[1, 2]
"""A protocol version acp-tui speaks."""


def known_version(value: object) -> ProtocolVersion | None:
    """`value` (a wire `protocolVersion`) as a version acp-tui speaks, else None.

    JSON `true` is not 1.
    """
    if isinstance(value, bool) or value not in (1, 2):
        return None
    return 1 if value == 1 else 2


def answered_instead(offered: int, answered: object) -> ProtocolVersion | None:
    """The other version acp-tui speaks, if the agent answered it to `offered`.

    None when the answer is the offer itself or no version acp-tui speaks.
    """
    other: ProtocolVersion | None = 1 if answered == 1 else 2 if answered == 2 else None
    return None if other == offered else other


ProtocolChoice: TypeAlias = Literal["auto", "1", "2"]
"""What the user asked for: `auto` offers 2 and falls back to 1."""

SUPPORTED_VERSIONS: Final[tuple[ProtocolVersion, ...]] = (1, 2)
LATEST: Final[ProtocolVersion] = 2


class UnsupportedProtocolVersion(Exception):
    """The agent answered `initialize` with a version acp-tui cannot speak here."""

    def __init__(self, answered: Any, offered: int, allowed: tuple[int, ...]) -> None:
        names = " or ".join(str(version) for version in allowed)
        super().__init__(
            f"the agent answered protocolVersion {answered!r} to an offer of "
            f"{offered}; acp-tui can use {names} here"
        )
        self.answered = answered
        self.offered = offered
        self.allowed = allowed


def offers_for(choice: ProtocolChoice) -> tuple[ProtocolVersion, ...]:
    """The versions to offer, in order: the first, then each fallback."""
    if choice == "1":
        return (1,)
    if choice == "2":
        return (2,)
    return (2, 1)


def negotiate(
    offered: int, answered: Any, allowed: tuple[int, ...] = SUPPORTED_VERSIONS
) -> ProtocolVersion:
    """Check the agent's answer to an offer.

    Args:
        offered: The version sent in `initialize`.
        answered: The `protocolVersion` in the agent's result (any JSON value).
        allowed: The versions the user permits (a pinned `--protocol` narrows it).

    Returns:
        The version this connection speaks.

    Raises:
        UnsupportedProtocolVersion: The answer is not an integer, is above the
            offer, or is not one acp-tui speaks (or the user allowed).
    """
    if (
        isinstance(answered, int)
        and not isinstance(answered, bool)
        and answered <= offered
        and answered in allowed
        and answered in SUPPORTED_VERSIONS
    ):
        return 1 if answered == 1 else 2
    raise UnsupportedProtocolVersion(answered, offered, allowed)


def is_version_at_least(version: int, minimum: int) -> bool:
    """Compare conservatively: an unknown `version` is never "at least" anything.

    Raises:
        ValueError: `minimum` is not a version acp-tui knows.
    """
    if minimum not in SUPPORTED_VERSIONS:
        raise ValueError(f"unknown protocol version {minimum}")
    return version in SUPPORTED_VERSIONS and version >= minimum
