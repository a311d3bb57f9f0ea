"""Load environments and tasks from a catalog directory (``<root>/<env_id>/spec.json`` ...).

Every file is validated strictly; an error names the file and the JSON path of the mistake.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from . import paths
from .engine import Environment
from .errors import CatalogError, InvalidEnvironment, SpecError, UnknownEnvironment, UnknownTask
from .formats.spec import EnvSpec
from .formats.task import Task

log = logging.getLogger("envfarm.catalog")


def _json_path(loc: tuple[int | str, ...], data: Any = None) -> str:
    """``loc`` of a pydantic error as a JSON path into ``data``. Pydantic puts the tag of a tagged union
    in ``loc`` (``tools.0.steps.0.query.sql``); it is no key of the JSON, so it is left out."""
    out = ""
    node = data
    for part in loc:
        if isinstance(node, dict) and isinstance(part, str) and part not in node and node.get("kind") == part:
            continue
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
        if isinstance(node, dict):
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            node = None
    return out or "(root)"


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CatalogError("file not found", source=str(path)) from None
    except json.JSONDecodeError as exc:
        raise SpecError(f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})", source=str(path)) from None


def _validate(model: type[BaseModel], data: Any, *, source: str, prefix: tuple[int | str, ...] = ()) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        more = f" (and {exc.error_count() - 1} more error(s))" if exc.error_count() > 1 else ""
        msg = err["msg"].removeprefix("Value error, ")
        root = data
        for part in reversed(prefix):
            root = {part: root}
        location = _json_path(prefix + tuple(err["loc"]), root)
        raise SpecError(msg + more, source=source, location=location) from None


def parse_tasks(data: Any, *, source: str, env_id: str | None = None) -> list[Task]:
    """Validate a list of task objects; each must belong to ``env_id`` when given."""
    if not isinstance(data, list):
        raise SpecError("expected a JSON list of tasks", source=source)
    tasks = [_validate(Task, t, source=source, prefix=(i,)) for i, t in enumerate(data)]
    seen: set[str] = set()
    for i, task in enumerate(tasks):
        if env_id is not None and task.env != env_id:
            raise SpecError(
                f"task '{task.id}' belongs to env '{task.env}', not '{env_id}'", source=source, location=f"[{i}].env"
            )
        if task.id in seen:
            raise SpecError(f"task id '{task.id}' appears twice", source=source, location=f"[{i}].id")
        seen.add(task.id)
    return tasks


@dataclass(frozen=True)
class CatalogEntry:
    """One environment as loaded from disk."""

    spec: EnvSpec
    tasks: list[Task]
    path: Path | None = None

    @cached_property
    def environment(self) -> Environment:
        """The compiled environment (built on first use)."""
        return Environment(self.spec)

    def task(self, task_id: str) -> Task:
        """The task with id ``task_id`` (UnknownTask if none)."""
        for t in self.tasks:
            if t.id == task_id:
                return t
        raise UnknownTask(task_id, [t.id for t in self.tasks])


def load_env_dir(path: Path) -> CatalogEntry:
    """Load one environment directory.

    Raises:
        SpecError: a file is invalid; the message names the file and JSON path.
    """
    spec_file = path / paths.SPEC_FILE
    data = _read_json(spec_file)
    if not isinstance(data, dict):
        raise SpecError("expected a JSON object", source=str(spec_file))
    if (path / paths.SEED_FILE).exists():
        seed_file = path / paths.SEED_FILE
        seed = _read_json(seed_file)
        if "seed" in data:
            raise SpecError("seed rows are given both here and in seed.json", source=str(spec_file), location="seed")
        if not isinstance(seed, dict):
            raise SpecError('expected {"table": [rows...]}', source=str(seed_file))
        # Validate the rows' shape against the spec before merging, so errors name seed.json.
        data = {**data, "seed": seed}
    if (path / paths.POLICY_FILE).exists() and "policy" not in data:
        data = {**data, "policy": (path / paths.POLICY_FILE).read_text(encoding="utf-8")}
    try:
        spec = EnvSpec.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        # Seed rows are checked against the tables by EnvSpec's model validator, whose errors have no loc.
        in_seed = loc[:1] == ("seed",) or (not loc and msg.startswith("seed"))
        source = str(path / paths.SEED_FILE) if in_seed and (path / paths.SEED_FILE).exists() else str(spec_file)
        more = f" (and {exc.error_count() - 1} more error(s))" if exc.error_count() > 1 else ""
        location = None if in_seed and not loc else _json_path(loc, data)  # the message names the seed row
        raise SpecError(msg + more, source=source, location=location) from None
    if spec.id != path.name:
        raise SpecError(
            f"spec id '{spec.id}' differs from its directory name '{path.name}'", source=str(spec_file), location="id"
        )
    tasks_file = path / paths.TASKS_FILE
    tasks = parse_tasks(_read_json(tasks_file), source=str(tasks_file), env_id=spec.id) if tasks_file.exists() else []
    return CatalogEntry(spec=spec, tasks=tasks, path=path)


class Catalog:
    """One or more directories of environments, loaded lazily and cached. Earlier roots win when
    two hold the same environment id.

    >>> cat = Catalog()
    >>> "retail" in cat.ids()
    True
    """

    def __init__(self, root: Path | str | Sequence[Path | str] | None = None) -> None:
        if root is None:
            self.roots = paths.default_catalog_roots()
        elif isinstance(root, str | Path):
            self.roots = [Path(root)]
        else:
            self.roots = [Path(r) for r in root]
        for r in self.roots:
            if not r.is_dir():
                raise CatalogError("catalog directory not found", source=str(r))
            if root is not None and not any((p / paths.SPEC_FILE).is_file() for p in r.iterdir()):
                # a folder given by mistake (a run folder, a catalog's parent) would serve nothing
                raise CatalogError(
                    f"not a catalog: no environment folder (one holding {paths.SPEC_FILE}) in it", source=str(r)
                )
        self.root = self.roots[0]
        self._entries: dict[str, CatalogEntry] = {}
        self._invalid: dict[str, InvalidEnvironment] = {}
        self._task_index: dict[str, str] | None = None
        self._dirs: dict[str, Path] | None = None

    def _env_dirs(self) -> dict[str, Path]:
        if self._dirs is None:
            found: dict[str, Path] = {}
            for root in self.roots:
                for p in sorted(root.iterdir()):
                    if (p / paths.SPEC_FILE).is_file():
                        found.setdefault(p.name, p)
            self._dirs = found
        return self._dirs

    def ids(self) -> list[str]:
        """Environment ids in the catalog, sorted."""
        return sorted(self._env_dirs())

    def get(self, env_id: str) -> CatalogEntry:
        """The environment ``env_id``.

        Raises:
            UnknownEnvironment: no such environment (with suggestions).
            InvalidEnvironment: its files do not validate (remembered: it is not read again).
        """
        entry = self._entries.get(env_id)
        if entry is not None:
            return entry
        if env_id in self._invalid:
            raise self._invalid[env_id]
        path = self._env_dirs().get(env_id)
        if path is None:
            raise UnknownEnvironment(env_id, self.ids())
        try:
            entry = self._entries[env_id] = load_env_dir(path)
        except SpecError as exc:
            invalid = self._invalid[env_id] = InvalidEnvironment(env_id, exc, catalog_root=str(path.parent))
            log.warning("environment not served: %s", exc, extra={"env": env_id})
            raise invalid from None
        return entry

    def mark_invalid(self, env_id: str, error: SpecError) -> InvalidEnvironment:
        """Stop serving ``env_id``: its files validated but its seed database cannot be built (a CHECK
        refuses a row, or the build passes its time limit). Remembered like a validation error, so the
        build is never tried again on this catalog; returns the error its routes answer with."""
        entry = self._entries.pop(env_id, None)
        path = entry.path if entry is not None and entry.path is not None else self._env_dirs().get(env_id)
        if path is not None and error.source is None:  # name the file the failing rows are in
            seeds_apart = (error.location or "").startswith("seed") and (path / paths.SEED_FILE).is_file()
            error = SpecError(str(error), source=str(path / (paths.SEED_FILE if seeds_apart else paths.SPEC_FILE)))
        root = str(path.parent) if path is not None else str(self.root)
        invalid = self._invalid[env_id] = InvalidEnvironment(env_id, error, catalog_root=root)
        self._task_index = None
        log.warning("environment not served: %s", error, extra={"env": env_id})
        return invalid

    def entries(self) -> list[CatalogEntry]:
        """Every valid environment, sorted by id. An invalid one is left out (see :meth:`invalid`), so
        one broken environment never hides the others."""
        found = []
        for env_id in self.ids():
            try:
                found.append(self.get(env_id))
            except InvalidEnvironment:
                continue
        return found

    def invalid(self) -> dict[str, InvalidEnvironment]:
        """The environments found invalid so far, by id (all of them once :meth:`entries` ran)."""
        return dict(sorted(self._invalid.items()))

    def task(self, task_id: str) -> tuple[CatalogEntry, Task]:
        """Find a task by id anywhere in the catalog."""
        # Task ids conventionally start with their environment's id ("retail-001"): try that
        # environment first, so a lookup does not have to load the whole catalog.
        env_guess = task_id.rsplit("-", 1)[0]
        if self._task_index is None and env_guess in self._env_dirs():
            entry = self.get(env_guess)
            found = next((t for t in entry.tasks if t.id == task_id), None)
            if found is not None:
                return entry, found
        if self._task_index is None:
            self._task_index = {t.id: entry.spec.id for entry in self.entries() for t in entry.tasks}
        env_id = self._task_index.get(task_id)
        if env_id is None and env_guess in self._invalid:  # the index holds valid environments only
            raise self._invalid[env_guess]
        if env_id is None:
            raise UnknownTask(task_id, self._task_index)
        entry = self.get(env_id)
        return entry, entry.task(task_id)


def load_env(env_id: str, root: Path | str | None = None) -> CatalogEntry:
    """Load one environment from the default (or given) catalog."""
    return Catalog(root).get(env_id)
