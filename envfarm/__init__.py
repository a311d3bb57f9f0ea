"""The ``envfarm`` command line: one console script whose subcommands call into the packages."""
