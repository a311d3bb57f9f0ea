"""The ``envfarm`` command line: one console script whose subcommands call into the packages.

It is also the module verifiers loads by name (``vf-eval envfarm``, ``vf.load_environment("envfarm")``):
``load_environment`` is ``clients.training.verifiers_env.load_environment``, imported on first use.
"""

from __future__ import annotations

from typing import Any


def load_environment(**env_args: Any) -> Any:
    """The verifiers environment of a farm (needs ``pip install envfarm[verifiers]``); see docs/training.md."""
    from clients.training.verifiers_env import load_environment as load

    return load(**env_args)
