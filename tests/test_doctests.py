"""Every docstring example in core/ and db/ runs (the examples are part of the documentation,
so they must stay true)."""
import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted(".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
                 for package in ("core", "db") for p in (ROOT / package).rglob("*.py")
                 if ">>>" in p.read_text(encoding="utf-8"))


def test_the_examples_are_found():
    assert "core.judging.cascade" in MODULES and "core.text" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed"
