"""`frontends.print_gc`: start-up without collections, a turn that never scans it."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from acp_tui.frontends.print_gc import start_without_collections, turn


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    if enabled:
        gc.enable()
    else:  # pragma: no cover - pytest runs with the collector on
        gc.disable()


def test_start_up_holds_collections_and_the_turn_freezes_what_it_made() -> None:
    gc.enable()
    with start_without_collections():
        assert not gc.isenabled()
        kept = [object() for _ in range(10)]
        with turn():
            assert gc.isenabled()
            assert gc.get_freeze_count() >= len(kept)
        assert gc.get_freeze_count() == 0  # handed back
    assert gc.isenabled()


def test_a_collector_turned_off_stays_off() -> None:
    gc.disable()
    with start_without_collections(), turn():
        assert not gc.isenabled()
        assert gc.get_freeze_count() == 0
    assert not gc.isenabled()


def test_a_turn_without_a_quiet_start_changes_nothing() -> None:
    gc.enable()
    with turn():
        assert gc.isenabled()
        assert gc.get_freeze_count() == 0
