"""Shared by the chunk fast-path tests (`test_v1_chunks`, `test_v2_chunks`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError


def assert_same_error(
    translate: Callable[[Any], object], validate: Callable[[Any], object], params: Any
) -> None:
    """`translate(params)` fails validation exactly as the models' `validate` does."""
    with pytest.raises(ValidationError) as caught:
        translate(params)
    with pytest.raises(ValidationError) as reference:
        validate(params)
    assert caught.value.errors() == reference.value.errors()


def without_models(
    model: Any, translate: Callable[[Any], object], params: Any, monkeypatch: Any
) -> object:
    """`translate(params)`, failing the test if `model.model_validate` is called."""

    def no_models(*args: object, **kwargs: object) -> None:
        raise AssertionError("the models were built")

    monkeypatch.setattr(model, "model_validate", no_models)
    return translate(params)
