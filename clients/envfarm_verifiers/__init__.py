"""The envfarm taskset under the top-level name verifiers loads: ``vf-eval envfarm-verifiers ...``.

verifiers 0.4 finds a taskset (with its ``Env`` and default harness) by importing the module its id
names, and reads the classes it exports in ``__all__``; see ``clients.training.verifiers_env``.
"""

from clients.training.verifiers_env import FarmEnv, FarmHarness, FarmTaskset, load_environment

__all__ = ["FarmEnv", "FarmHarness", "FarmTaskset", "load_environment"]
