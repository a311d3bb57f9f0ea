"""Adapters that training frameworks load: verifiers, OpenEnv and TRL (each an extra of envfarm-client).

Every adapter talks to a farm over its REST API like any other client, one episode per rollout, so it
installs beside a trainer's own pins (``pip install "envfarm-client[trl]"``, ``[verifiers]``, ``[openenv]``):

* ``clients.training.verifiers_env`` — a verifiers 0.4 taskset, one farm episode per rollout
  (``vf-eval envfarm-verifiers`` loads it through the top-level ``envfarm_verifiers``);
* ``clients.training.openenv_env`` — an OpenEnv environment and its client;
* ``clients.training.trl_env`` — GRPO's ``environment_factory`` and reward functions, and SFT datasets;
* ``clients.training.bench`` — ``envfarm bench rollouts``, on the episode layer below (no trainer needed).

This package imports none of those libraries itself; each module imports its own. See docs/training.md.
"""

from __future__ import annotations

from .episode import LiveEpisode, load_task_rows, oracle_turn

__all__ = ["LiveEpisode", "load_task_rows", "oracle_turn"]
