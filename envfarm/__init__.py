"""The ``envfarm`` command line: one console script whose subcommands call into the packages.

The training adapters are not here: they ship in envfarm-client (``clients.training``), which installs
into a trainer's own environment (docs/training.md); verifiers loads its taskset as ``envfarm-verifiers``.
"""
