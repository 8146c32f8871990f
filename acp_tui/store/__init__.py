"""The version-neutral session store (stdlib only).

Never imports Textual, Rich, pydantic, anyio or the protocol layer; enforced by
import-linter and tests/test_import_hygiene.py.
"""
