"""Helpers of the probe tests (a module of its own: ``conftest`` is a name every test folder
has)."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest


def missing(what: str, error: Exception) -> None:
    """Outside CI, skip saying what to install; in CI, fail."""
    if os.environ.get("CI"):
        raise error
    pytest.skip(f"{what} needs the probe-backends extra: pip install -e '.[probe-backends]'")


def backend_module(name: str) -> ModuleType:
    """A backend module of this folder (its integration imported)."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        missing(name, exc)
        raise
