"""The ``>>>`` examples in the host package's docstrings run, as `pytest --doctest-modules
host/tablesense` would run them, inside the normal suite."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import tablesense

MODULES = sorted(m.name for m in pkgutil.walk_packages(tablesense.__path__, "tablesense."))
# Known wrong examples, each with who fixes it; strict: the mark must go once it passes.
KNOWN: dict[str, str] = {}


def test_the_package_has_examples_to_run() -> None:
    total = 0
    for name in MODULES:
        total += sum(len(t.examples) for t in doctest.DocTestFinder().find(
            importlib.import_module(name)))
    assert total >= 20, total


@pytest.mark.parametrize("name", [
    pytest.param(m, marks=pytest.mark.xfail(strict=True, reason=KNOWN[m])) if m in KNOWN else m
    for m in MODULES])
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"
