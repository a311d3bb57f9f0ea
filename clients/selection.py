"""Task selectors: ``all``, an env id, a task id, a comma list of either, or ``env:retail,clinic``."""

from __future__ import annotations

import difflib

from .errors import SelectionError
from .farm import FarmClient
from .models import TaskView


def _suggest(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    return (" Did you mean " + " or ".join(f"'{c}'" for c in close) + "?") if close else ""


def select(selector: str, env_ids: list[str], tasks: list[TaskView]) -> list[TaskView]:
    """The tasks a selector names, in catalog order within each item, without duplicates.

    Args:
        selector: ``all``; ``env:ID[,ID...]``; or a comma list of environment and task ids.
        env_ids: the environments of the catalog.
        tasks: every task of the catalog.

    Raises:
        SelectionError: an item names no environment or task, or the selection is empty.

    >>> ts = [TaskView(id="r-1", env="retail", instruction="x"), TaskView(id="c-1", env="clinic", instruction="y")]
    >>> [t.id for t in select("env:clinic", ["retail", "clinic"], ts)]
    ['c-1']
    >>> [t.id for t in select("c-1,retail", ["retail", "clinic"], ts)]
    ['c-1', 'r-1']
    """
    text = selector.strip()
    if not text:
        raise SelectionError("empty task selector: use 'all', an environment id, task ids or 'env:ID,...'")
    if text == "all":
        chosen = list(tasks)
    else:
        envs_only = text.startswith("env:")
        items = [i.strip() for i in text.removeprefix("env:").split(",") if i.strip()]
        by_id = {t.id: t for t in tasks}
        chosen = []
        for item in items:
            if item in env_ids:
                chosen += [t for t in tasks if t.env == item]
            elif item in by_id and not envs_only:
                chosen.append(by_id[item])
            elif envs_only:
                raise SelectionError(f"Environment '{item}' doesn't exist.{_suggest(item, env_ids)}")
            else:
                known = env_ids + list(by_id)
                raise SelectionError(f"'{item}' is neither an environment nor a task.{_suggest(item, known)}")
    unique = list({t.id: t for t in chosen}.values())  # first occurrence order, no duplicates
    if not unique:
        raise SelectionError(f"task selector '{selector}' matches no task")
    return unique


async def resolve_tasks(farm: FarmClient, selector: str) -> list[TaskView]:
    """Resolve a selector against the task service's catalog.

    Raises:
        SelectionError: the selector names nothing the service knows.
    """
    env_ids = [e.id for e in await farm.list_envs()]
    return select(selector, env_ids, await farm.list_tasks())
