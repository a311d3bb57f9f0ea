"""Adapters that training frameworks load: verifiers, OpenEnv and TRL (each an optional extra).

Every adapter talks to a farm over HTTP and MCP like any other client, one episode per rollout:

* ``clients.training.verifiers_env`` — a verifiers 0.4 taskset, one farm episode per rollout over REST
  (``pip install "envfarm-client[verifiers]"``; ``vf-eval envfarm-verifiers`` loads it through the
  top-level ``envfarm_verifiers``);
* ``clients.training.openenv_env`` — an OpenEnv environment and its client (``envfarm[openenv]``);
* ``clients.training.trl`` — a GRPO reward function and rollout function, and SFT data checked with
  TRL's own dataset utilities (``envfarm[trl]``).

This package imports none of those libraries itself; each module imports its own. See docs/training.md.
"""

from __future__ import annotations

from .episode import LiveEpisode, load_task_rows, oracle_turn

__all__ = ["LiveEpisode", "load_task_rows", "oracle_turn"]
