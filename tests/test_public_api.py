"""The public API of ``envs``: ``__all__`` is sorted, complete for what it names, and importable."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys

import envs


def test_all_is_sorted_and_unique() -> None:
    assert list(envs.__all__) == sorted(envs.__all__)
    assert len(set(envs.__all__)) == len(envs.__all__)


def test_every_name_in_all_is_importable() -> None:
    namespace: dict[str, object] = {}
    exec("from envs import *", namespace)
    for name in envs.__all__:
        assert name in namespace, name
        assert getattr(envs, name) is namespace[name]
        module = importlib.import_module(getattr(envs, name).__module__)
        assert getattr(module, name) is getattr(envs, name), f"{name} is not defined where it claims"


def test_every_public_name_is_documented() -> None:
    for name in envs.__all__:
        obj = getattr(envs, name)
        assert inspect.isclass(obj) or inspect.isfunction(obj), name
        assert inspect.getdoc(obj), f"{name} has no docstring"


def test_importing_envs_pulls_in_no_server_libraries() -> None:
    code = "import sys, envs, envs.bench; print(sorted(m for m in ('mcp', 'fastapi', 'uvicorn', 'httpx') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
