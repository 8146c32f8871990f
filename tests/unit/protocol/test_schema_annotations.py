"""The wire models' annotations are objects, not strings (issue 28: start-up CPU).

With string annotations (`from __future__ import annotations`) pydantic compiles
and evaluates every field's annotation as it builds each model class: about a
tenth of importing `v2`, at every start of the app, `acp-tui print` and the demo
agent. See `acp_tui/protocol/schema/__init__.py`.
"""

from __future__ import annotations

from types import ModuleType

import pytest
from pydantic import BaseModel

from acp_tui.protocol.schema import common, unstable, v1, v2


@pytest.mark.parametrize("module", [v1, v2, common, unstable], ids=lambda m: m.__name__)
def test_model_annotations_are_evaluated_as_the_class_is_built(
    module: ModuleType,
) -> None:
    models = [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, BaseModel)
        and value.__module__ == module.__name__
    ]
    assert models
    strings = {
        f"{model.__name__}.{name}"
        for model in models
        for name, annotation in vars(model).get("__annotations__", {}).items()
        if isinstance(annotation, str)
    }
    assert strings == set()
