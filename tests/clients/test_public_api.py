"""The package's public API is the sorted ``__all__``, and ``clients`` never imports ``server``."""

from __future__ import annotations

import ast
from pathlib import Path

import clients


def test_all_is_sorted_and_importable():
    assert clients.__all__ == sorted(clients.__all__)
    for name in clients.__all__:
        assert getattr(clients, name) is not None


def test_clients_talks_to_the_server_only_over_http():
    root = Path(clients.__file__).parent
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            assert not any(n == "server" or n.startswith("server.") for n in names), path
