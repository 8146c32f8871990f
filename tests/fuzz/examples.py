"""Example budgets for the fuzz tests, counted and reported.

Each fuzz test is a hypothesis test with a quota (its `max_examples`), run through
`Examples.run`, which counts the examples that actually ran, records the count as
the test's `fuzz_examples` user property (`tests/fuzz/conftest.py` prints the
counts and their total in pytest's terminal summary) and fails if fewer ran than
the quota.

The runs are derandomized, like the rest of the suite, so CI is reproducible.
`ACP_TUI_FUZZ_SCALE=10` multiplies every quota; `ACP_TUI_FUZZ_RANDOM=1` draws new
examples on each run (a failure then prints a `@reproduce_failure` blob).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from typing import Final

from hypothesis import HealthCheck, settings

FUZZ_PROPERTY: Final = "fuzz_examples"
"""The user property that carries a test's example count."""

SCALE: Final = float(os.environ.get("ACP_TUI_FUZZ_SCALE", "1"))
RANDOM: Final = os.environ.get("ACP_TUI_FUZZ_RANDOM", "") not in ("", "0")


class Examples:
    """The example budget of one fuzz test, and what its examples saw."""

    def __init__(self, quota: int) -> None:
        self.quota = max(1, round(quota * SCALE))
        self.count = 0
        self.tally: Counter[str] = Counter()
        """Free-form counts the examples add up (outcomes seen, and so on)."""

    @property
    def settings(self) -> settings:
        """The hypothesis settings for this budget."""
        return settings(
            max_examples=self.quota,
            deadline=None,
            derandomize=not RANDOM,
            database=None,
            print_blob=True,
            suppress_health_check=list(HealthCheck),
        )

    def tick(self) -> None:
        """Count one example (call it first thing in the test body)."""
        self.count += 1

    def reached(self, *names: str) -> None:
        """Assert that the examples counted each of `names` at least once.

        Checks that the generators still reach the cases a test is about. Skipped
        when `ACP_TUI_FUZZ_SCALE` shrinks the budget below the default.
        """
        if SCALE < 1:
            return
        missing = [name for name in names if not self.tally[name]]
        assert not missing, (missing, dict(self.tally))

    def run(
        self, test: Callable[[], None], record_property: Callable[[str, object], None]
    ) -> None:
        """Run the hypothesis `test`, record its example count, check the quota."""
        self.count = 0
        self.tally.clear()
        test()
        record_property(FUZZ_PROPERTY, self.count)
        assert self.count >= self.quota, (self.count, self.quota)
