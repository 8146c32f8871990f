"""Intra-line changes: which characters differ between a removed and an added line."""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Final, TypeAlias

__all__ = ["MAX_WORD_DIFF_CHARS", "Ranges", "word_diff"]

Ranges: TypeAlias = tuple[tuple[int, int], ...]
"""Character ranges `[start, end)` of a line, sorted and not overlapping."""

MAX_WORD_DIFF_CHARS: Final = 2_000
"""Line pairs longer than this (together) get no intra-line highlights."""

MIN_SIMILARITY: Final = 0.35
"""Below this token similarity the lines are unrelated: no intra-line highlights
(the whole line is the change)."""

_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _ranges(tokens: list[str], spans: list[tuple[int, int]]) -> Ranges:
    """Token index spans turned into merged character ranges."""
    offsets = [0]
    for token in tokens:
        offsets.append(offsets[-1] + len(token))
    merged: list[tuple[int, int]] = []
    for first, last in spans:
        start, end = offsets[first], offsets[last]
        if start == end:
            continue
        if merged and merged[-1][1] >= start:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return tuple(merged)


@lru_cache(maxsize=4096)
def word_diff(old: str, new: str) -> tuple[Ranges, Ranges]:
    """The character ranges that changed between a removed and an added line.

    Lines are compared word by word (runs of word characters, of whitespace, and
    single punctuation characters), so a renamed identifier is highlighted whole.

    Args:
        old: The removed line.
        new: The added line.

    Returns:
        `(old ranges, new ranges)`; both empty when the lines are equal, too long,
        or too different for a word highlight to help.
    """
    if old == new or len(old) + len(new) > MAX_WORD_DIFF_CHARS:
        return (), ()
    a, b = _tokens(old), _tokens(new)
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    if matcher.ratio() < MIN_SIMILARITY:
        return (), ()
    old_spans: list[tuple[int, int]] = []
    new_spans: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        old_spans.append((i1, i2))
        new_spans.append((j1, j2))
    return _ranges(a, old_spans), _ranges(b, new_spans)
