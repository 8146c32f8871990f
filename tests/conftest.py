"""Test-wide set-up.

`tests.ui.helpers` (`wait_for`, `screen_settled`) is imported by UI, fault and
integration tests alike; registered here, before any test module is imported, its
asserts are rewritten like a test module's wherever it is first imported.
"""

import pytest

pytest.register_assert_rewrite("tests.ui.helpers")
