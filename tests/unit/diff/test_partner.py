"""`partner`: one line's side-by-side partner, found from the runs around it,
equals the pairing `row_pairs` computes for the whole hunk; `Hunk.kinds` and
`Hunk.widest` describe the hunk's lines."""

from __future__ import annotations

import itertools
import random

from acp_tui.diff.model import DiffLine, Hunk, partner, row_pairs

NAMES = {" ": "context", "-": "removed", "+": "added"}


def hunk_of(kinds: str, texts: list[str] | None = None) -> Hunk:
    lines = tuple(
        DiffLine(NAMES[k], None, None, texts[i] if texts else str(i))  # type: ignore[arg-type]
        for i, k in enumerate(kinds)
    )
    return Hunk(1, len(kinds), 1, len(kinds), "", lines)


def paired(hunk: Hunk) -> list[int]:
    """Each line's partner by `row_pairs` over the whole hunk (-1: none)."""
    partners = [-1] * len(hunk.lines)
    for old, new in row_pairs(hunk.lines):
        if old is not None and new is not None and old != new:
            partners[old] = new
            partners[new] = old
    return partners


def test_every_short_hunk_pairs_as_row_pairs_does() -> None:
    for size in range(1, 8):
        for kinds in itertools.product(" -+", repeat=size):
            hunk = hunk_of("".join(kinds))
            assert [partner(hunk, i) for i in range(size)] == paired(hunk), kinds


def test_long_random_hunks_pair_as_row_pairs_does() -> None:
    rng = random.Random(28)
    for _ in range(200):
        runs = [
            rng.choice(" -+") * rng.randint(1, 30) for _ in range(rng.randint(1, 12))
        ]
        hunk = hunk_of("".join(runs))
        assert [partner(hunk, i) for i in range(len(hunk.lines))] == paired(hunk)


def test_a_removed_block_faces_the_added_lines_after_it() -> None:
    hunk = hunk_of(" ---++ +-")
    assert [partner(hunk, i) for i in range(9)] == [-1, 4, 5, -1, 1, 2, -1, -1, -1]


def test_kinds_and_widest_describe_the_lines() -> None:
    hunk = hunk_of(" -+", ["a", "longest", "\tx"])
    assert hunk.kinds == " -+"
    assert hunk.widest == 7
    assert hunk_of("").widest == 0
    # Derived fields take no part in equality.
    assert hunk == hunk_of(" -+", ["a", "longest", "\tx"])
