"""Values the agent must work out: write arguments that the user's words neither state nor single out.

A gold write call's argument value (each string or number inside it; booleans and free text of
four words or more left out) is one of:

* **stated** — the user's words (instruction, persona, known facts, facts revealed when asked)
  contain it (a date also as "May 26");
* **made** — an earlier gold write returned or inserted it (the id a create handed out);
* **copied** — a value of the user's own row (the user whose id a gold call names), or of a row
  another argument of the same call names (the owner id passed along with the record's id);
* **looked up** — it is the primary key of a row, unless it is *chosen*: the user's words describe
  the row (its own columns and those of the rows it references, as the ambiguous goals measure reads
  them) and another row of its kind fits the description as well (among the user's rows of that
  table, or, for a row that belongs to nobody, all of them), so the agent picked it by something
  the user did not name — the cheapest flight on the date, the loan due soonest; or the words name
  it by nothing but a superlative of one of its columns ("my booking with the earliest check-in
  date") that it alone holds;
* **derived** — a chosen id, or any other value the user never said: an amount, a date, a count
  worked out.

A required output that no gold call's result shows (a total, an amount worked out from the policy)
is derived too. A task is a *derived-value task* when some gold write argument or required output
is derived. The same code measures
tau2-bench's imported domains (docs/synthesis.md, "Quality report").
"""

from __future__ import annotations

import json
import re
from datetime import date
from typing import Any

from ..engine import Environment
from ..errors import EnvFarmError
from ..formats.task import Task
from ..grading.outputs import output_present
from .spec import Ownership, State
from .tasks import (
    _dump,
    _row,
    _scalars,
    feature_keys,
    picked_by_superlative,
    record_features,
    state_after_write,
)
from .text import MONTHS, mentions, normalize, numbers_in

_WHOLE_MINUTE = re.compile(r"\d{4}-\d\d-\d\d[ t]\d\d:\d\d:00")
#: Text of this many words or more is prose the agent writes (a summary), not a value it works out.
PROSE_WORDS = 4


def _stated(value: Any, evidence: str, numbers: set[float]) -> bool:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value) in numbers or mentions(evidence, str(value))
    text = normalize(str(value))
    if any(mentions(evidence, t) for t in {text, text.replace("_", " "), text.replace("_", "-")}):
        return True
    if _WHOLE_MINUTE.fullmatch(text) and mentions(evidence, text[:16]):  # "10:00" for 10:00:00
        return True
    try:  # a date said as "May 26" or "26th of May"
        day = date.fromisoformat(text[:10])
    except ValueError:
        return False
    month = MONTHS[day.month - 1]
    return (
        re.search(rf"\b{month} {day.day}(?:st|nd|rd|th)?\b|\b{day.day}(?:st|nd|rd|th)? (?:of )?{month}\b", evidence)
        is not None
    )


def _chosen(state: State, table: str, row: dict[str, Any], evidence: str, numbers: set[float]) -> bool:
    """Whether what the user said fits ``row`` and another row of its kind alike, so the agent had
    to choose between them by something the user did not name (the cheapest, the earliest)."""
    if table == state.users:
        return False
    said = {f.key for f in record_features(state, table, row) if f.said_in(evidence, numbers)}
    owner = state.owner(table, row)
    others = [
        r for r in state.rows.get(table, []) if r is not row and (owner is None or state.owner(table, r) == owner)
    ]
    fitting = [r for r in others if said <= feature_keys(state, table, r)]
    if not said:
        # named by a superlative ("my booking with the earliest check-in"), or some way the measure
        # cannot read (a product two hops away), which counts as a lookup
        return bool(fitting) and picked_by_superlative(state, table, row, fitting, evidence)
    return bool(fitting)


def _profile_values(state: State, task: Task) -> set[str]:
    """The column values of the user's own row (whose id a gold call names): copied from the
    profile, not worked out (a passenger's date of birth)."""
    if state.users is None:
        return set()
    for call in task.gold_actions:
        for value in _scalars(call.arguments):
            if state.users in state.tables_with_id(value):
                row = _row(state, (state.users, (value,)))
                return {str(v) for v in (row or {}).values() if v is not None}
    return set()


def derived_arguments(env: Environment, ownership: Ownership, task: Task, seed: State | None = None) -> list[str]:
    """``tool.argument=value`` of every derived write argument of ``task`` (empty: none); ``seed`` is the
    environment's seed state if the caller holds it (read from the episode otherwise, and always for a task
    with an initial patch)."""
    user = task.user
    evidence = normalize("\n".join([task.instruction, user.persona, *user.known_facts, *user.reveal_if_asked]))
    numbers = numbers_in(evidence)
    tables = [t.name for t in env.spec.tables]
    episode = env.episode(task)
    out: list[str] = []
    results: list[Any] = []
    made: set[str] = set()
    try:
        state = seed if seed is not None and not task.initial_patch else ownership.state(_dump(episode, tables))
        profile = _profile_values(state, task)
        for call in task.gold_actions:
            tool = env.tools.get(call.tool)
            result = episode.call_tool(call.tool, call.arguments, actor=call.actor)
            results.append(result.content)
            if tool is None or tool.kind != "write":
                continue
            # a value of the record the call acts on (its owner's id, passed along) is copied from it
            related = {
                str(v)
                for value in _scalars(call.arguments)
                for t in state.tables_with_id(value)
                for v in (_row(state, (t, (value,))) or {}).values()
                if v is not None and v != value
            }
            for name, argument in call.arguments.items():
                for value in _scalars(argument):
                    text = str(value)
                    if text in made or text in profile or text in related or _stated(value, evidence, numbers):
                        continue
                    if isinstance(value, str) and len(value.split()) >= PROSE_WORDS:
                        continue
                    rows = [(t, _row(state, (t, (value,)))) for t in state.tables_with_id(value)]
                    if rows and not any(r is not None and _chosen(state, t, r, evidence, numbers) for t, r in rows):
                        continue
                    out.append(f"{call.tool}.{name}={text}")
            made |= {str(v) for v in _scalars(result.content)}
            changed = {t for t, n in result.changes.items() if n}
            if changed:
                state, _ = state_after_write(ownership, state, episode, changed)
    except EnvFarmError:
        return out
    finally:
        episode.close()
    shown = json.dumps(results, default=str)
    shown += " " + shown.replace("_", " ")
    out += [f"output={value}" for value in task.outputs if not output_present(value, shown)]
    return out
