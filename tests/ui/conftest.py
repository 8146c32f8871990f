"""UI tests: the shared helpers live in `tests.ui.helpers` (`wait_for`).

Their asserts are rewritten by pytest like a test module's, so a failing wait
says what it waited for.
"""

import pytest

pytest.register_assert_rewrite("tests.ui.helpers")
