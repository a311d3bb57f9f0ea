"""``envfarm``: the entry point. Subcommand groups live in ``envfarm/commands_*.py`` and stay thin.

Errors that envfarm raises on purpose become one line on stderr and exit code 1; usage errors are
click's (exit code 2). No traceback reaches a user.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from envs.errors import EnvFarmError

from .commands_bench import bench
from .commands_catalog import catalog
from .commands_envs import envs, tasks
from .commands_eval import eval_cmd, export
from .commands_import import import_group
from .commands_serve import mcp_stdio, serve
from .commands_synth import envs_graph, synthesize


class _Group(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except EnvFarmError as exc:
            click.echo(f"error: {exc}", err=True)
            ctx.exit(1)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="envfarm")
def cli() -> None:
    """envfarm: synthesized tool-use environments for LLM agents."""


cli.add_command(envs)
cli.add_command(tasks)
cli.add_command(bench)
cli.add_command(serve)
cli.add_command(mcp_stdio)
cli.add_command(eval_cmd)
cli.add_command(export)
cli.add_command(synthesize)
cli.add_command(catalog)
cli.add_command(import_group)
envs.add_command(envs_graph)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; return the exit code."""
    try:
        # Without standalone mode, click *returns* the code of a ctx.exit(n) rather than raising Exit.
        rv = cli.main(args=argv, prog_name="envfarm", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 130
    return rv if isinstance(rv, int) else 0


if __name__ == "__main__":
    sys.exit(main())
