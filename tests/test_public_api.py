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


def test_the_stdio_path_loads_no_engine_store_or_quality_modules_before_serving() -> None:
    """What ``envfarm mcp`` imports before it answers ``initialize`` (``envfarm bench stdio``
    measures the time): the CLI, the stdio server and the MCP adapter, but not the engine, the store
    (SQLAlchemy), the quality report (Faker) or the other commands' modules."""
    code = (
        "import sys\n"
        "from envfarm.cli import cli\n"
        "import click\n"
        "cli.get_command(click.Context(cli), 'mcp')\n"
        "import server.stdio, server.mcp_adapter\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(out.stdout.split())
    assert "envfarm.commands_serve" in loaded and "server.stdio" in loaded
    heavy = {"sqlalchemy", "faker", "jsonschema", "envs.engine", "envs.formats.spec", "envs.quality", "server.store"}
    heavy |= {"server.episodes", "envfarm.commands_envs", "envfarm.commands_bench", "envfarm.commands_eval"}
    assert sorted(heavy & loaded) == []


def test_the_cli_lists_every_command_without_loading_them() -> None:
    from click import Context

    from envfarm.cli import COMMANDS, cli

    names = cli.list_commands(Context(cli))
    assert set(COMMANDS) <= set(names)
    for name in names:  # each one loads, under its listed name
        command = cli.get_command(Context(cli), name)
        assert command is not None and command.name in (name, "eval", "mcp")
    envs_group = cli.get_command(Context(cli), "envs")
    assert "graph" in envs_group.list_commands(Context(envs_group))  # type: ignore[attr-defined]
