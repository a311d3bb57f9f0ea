"""``envfarm``: the entry point. Subcommand groups live in ``envfarm/commands_*.py`` and stay thin.

Errors that envfarm raises on purpose become one line on stderr and exit code 1; usage errors are
click's (exit code 2). No traceback reaches a user.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from clients.errors import ClientError
from envs.errors import EnvFarmError

#: Each subcommand and where it is defined. A command's module is imported only when that command
#: runs (or help lists it): ``envfarm mcp`` must answer a desktop client's ``initialize`` without
#: loading the quality report, the bench or the evaluation runner (``envfarm bench stdio``).
COMMANDS = {
    "bench": "commands_bench:bench",
    "catalog": "commands_catalog:catalog",
    "envs": "commands_envs:envs",
    "eval": "commands_eval:eval_cmd",
    "export": "commands_eval:export",
    "import": "commands_import:import_group",
    "mcp": "commands_serve:mcp_stdio",
    "serve": "commands_serve:serve",
    "synthesize": "commands_synth:synthesize",
    "tasks": "commands_envs:tasks",
}


def _load(where: str) -> click.Command:
    module_name, attr = where.split(":")
    command: click.Command = getattr(importlib.import_module(f".{module_name}", __package__), attr)
    if isinstance(command, click.Group) and command.name == "envs" and "graph" not in command.commands:
        from .commands_synth import envs_graph

        command.add_command(envs_graph)
    return command


class _Group(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        where = COMMANDS.get(cmd_name)
        if where is None:
            return None
        command = _load(where)
        self.add_command(command, cmd_name)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (EnvFarmError, ClientError) as exc:
            click.echo(f"error: {exc}", err=True)
            ctx.exit(1)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="envfarm")
def cli() -> None:
    """envfarm: synthesized tool-use environments for LLM agents."""


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
