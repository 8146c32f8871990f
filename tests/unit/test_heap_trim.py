"""`gc_policy.trim_heap`: the C allocator's free pages go back to the system."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.ui import gc_policy

BLOCK = 64 * 1024
"""Under glibc's mmap threshold (128 KiB at least): the blocks are in its heap."""


def resident_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(
    gc_policy._malloc_trim() is None, reason="no glibc malloc_trim here"
)
def test_free_pages_between_live_blocks_are_given_back() -> None:
    # Every other block freed: the free ones sit between live ones, so glibc's
    # own trimming of the heap's top never reaches them; their pages stay
    # resident until the heap is trimmed.
    blocks = [bytearray(b"x" * BLOCK) for _ in range(400)]
    del blocks[::2]
    before = resident_kib()
    assert gc_policy.trim_heap()
    freed = before - resident_kib()
    assert freed > 200 * BLOCK // 1024 // 2, (before, freed)  # half of 12.5 MiB
    assert len(blocks) == 200  # (alive until here)


def test_without_the_c_librarys_trim_nothing_is_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(gc_policy, "_malloc_trim", lambda: None)
    assert not gc_policy.trim_heap()
