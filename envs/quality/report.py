"""The catalog quality report: measures of how realistic and varied environments and tasks are.

``quality_report(entries)`` measures each environment from its spec, seed and tasks alone (gold
actions are replayed on the engine) and sums them into totals; ``write_quality_report`` writes it
as ``quality-report.json`` and ``quality-report.md`` (deterministic: no timings). Every measure is
defined in docs/synthesis.md ("Quality report"); ``envfarm envs quality`` prints it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..catalog import CatalogEntry
from .amount_bands import amounts_out_of_proportion
from .amounts import amounts_beyond_parent
from .awaited import awaited_long_past
from .believable import believable_counts
from .child_dates import children_before_parent
from .deadlines import deadlines_before_record
from .derived import derived_arguments
from .dual import dual_counts
from .judgment import judgment_counts
from .kin_ages import kin_age_contradictions
from .periods import rows_outside_period
from .relations import relation_counts
from .retrieval import retrieval_counts
from .seed import coherence_violations, status_date_contradictions
from .seed_time import SeedTimeCounts, seed_time
from .spec import Ownership, guard_shapes, list_parameters, staff_role, write_skeleton
from .surnames import surnames_apart
from .tasks import TaskReplay

REFUSAL_TAGS = ("refusal", "partial-refusal")
JSON_FILE, MARKDOWN_FILE = "quality-report.json", "quality-report.md"


def _share(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


@dataclass
class QualityCounts:
    """The measures of one environment or, summed, of a whole catalog (see docs/synthesis.md)."""

    tasks: int = 0
    refusal_tasks: int = 0
    partial_refusal_tasks: int = 0
    tasks_with_refusal_tag: int = 0
    refusal_share: float = 0.0
    write_tools: int = 0
    used_write_tools: int = 0
    used_write_tool_share: float = 0.0
    unused_write_tools: int = 0
    write_skeletons: int = 0
    guard_kinds: int = 0
    list_parameters: int = 0
    envs_with_list_parameter: int = 0
    coherence_rows_checked: int = 0
    coherence_violations: int = 0
    after_event_rows_checked: int = 0
    after_event_in_future: int = 0
    before_event_rows_checked: int = 0
    before_event_in_past: int = 0
    status_date_contradictions: int = 0
    date_pairs_checked: int = 0
    inverted_date_pairs: int = 0
    past_events_checked: int = 0
    past_events_after_clock: int = 0
    future_events_checked: int = 0
    future_events_before_clock: int = 0
    clock_timestamps_checked: int = 0
    clock_violations: int = 0
    reveal_facts: int = 0
    reveal_facts_in_instruction: int = 0
    write_goals: int = 0
    ambiguous_goals: int = 0
    write_tasks: int = 0
    cross_user_write_tasks: int = 0
    staff_tools: int = 0
    dependent_chain_tasks: int = 0
    dependent_chain_share: float = 0.0
    self_undoing_chains: int = 0
    self_undoing_share: float = 0.0
    fields_set_twice: int = 0
    filler_values: int = 0
    unchanged_field_tasks: int = 0
    unchanged_field_writes: int = 0
    writes_changing_nothing: int = 0
    internal_key_references: int = 0
    internal_key_share: float = 0.0
    title_references: int = 0
    title_share: float = 0.0
    replay_errors: int = 0
    rules: int = 0
    policy_only_rules: int = 0
    policy_only_share: float = 0.0
    policy_refusal_tasks: int = 0
    policy_refusal_share: float = 0.0
    why_clause_refusal_tasks: int = 0
    why_clause_other_tasks: int = 0
    information_tasks: int = 0
    information_tasks_with_distractors: int = 0
    derived_value_tasks: int = 0
    derived_value_share: float = 0.0
    time_rules: int = 0
    undated_time_rules: int = 0
    birth_dates_checked: int = 0
    birth_dates_under_16: int = 0
    rule_texts: int = 0
    rules_phrased_as_columns: int = 0
    instructions_copying_tools: int = 0
    policy_words: int = 0
    event_reasons_checked: int = 0
    event_reasons_outside_their_state: int = 0
    period_rows_checked: int = 0
    rows_outside_period: int = 0
    child_rows_checked: int = 0
    children_before_parent: int = 0
    deadline_rows_checked: int = 0
    deadlines_before_record: int = 0
    amount_groups_checked: int = 0
    amounts_beyond_parent: int = 0
    amount_pairs_checked: int = 0
    amounts_out_of_proportion: int = 0
    awaited_rows_checked: int = 0
    awaited_long_past: int = 0
    kin_rows_checked: int = 0
    kin_rows_contradicting: int = 0
    children_named: int = 0
    children_with_other_surname: int = 0
    relatives_named: int = 0
    relatives_with_other_surname: int = 0
    dual_control_envs: int = 0
    dual_tasks: int = 0
    tasks_needing_user_writes: int = 0
    user_actions: int = 0
    user_writes: int = 0
    agent_actions_in_dual: int = 0
    user_fault_tasks_solved_alone: int = 0
    retrieval_tasks: int = 0
    retrieval_top3_hits: int = 0
    aggregate_relations: int = 0
    aggregate_rows_broken_in_seed: int = 0
    aggregate_rows_broken_after_gold: int = 0

    def finish(self) -> None:
        """Fill the shares and derived counts from the counts."""
        self.refusal_share = _share(self.tasks_with_refusal_tag, self.tasks)
        self.used_write_tool_share = _share(self.used_write_tools, self.write_tools)
        self.unused_write_tools = self.write_tools - self.used_write_tools
        self.status_date_contradictions = self.after_event_in_future + self.before_event_in_past
        self.clock_timestamps_checked = self.past_events_checked + self.future_events_checked
        self.clock_violations = self.past_events_after_clock + self.future_events_before_clock
        self.dependent_chain_share = _share(self.dependent_chain_tasks, self.tasks)
        self.policy_only_share = _share(self.policy_only_rules, self.rules)
        self.policy_refusal_share = _share(self.policy_refusal_tasks, self.tasks)
        self.derived_value_share = _share(self.derived_value_tasks, self.tasks)
        self.self_undoing_share = _share(self.self_undoing_chains, self.tasks)
        self.internal_key_share = _share(self.internal_key_references, self.tasks)
        self.title_share = _share(self.title_references, self.tasks)

    def to_dict(self) -> dict[str, Any]:
        """Every measure by its field name."""
        return asdict(self)


@dataclass
class EnvQuality:
    """One environment's measures, with the names behind its counts."""

    env_id: str
    counts: QualityCounts
    write_tool_usage: dict[str, float]
    unused_write_tools: list[str]
    staff_tools: dict[str, str]
    list_parameters: list[str]
    replay_errors: list[str]
    naming: dict[str, list[str]] = field(default_factory=dict)
    skeletons: set[str] = field(default_factory=set, repr=False)
    guards: set[str] = field(default_factory=set, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the counts, then the names (tools, parameters) behind them."""
        return {
            "env_id": self.env_id,
            **self.counts.to_dict(),
            "write_tool_usage": self.write_tool_usage,
            "unused_write_tool_names": self.unused_write_tools,
            "staff_tool_names": self.staff_tools,
            "list_parameter_names": self.list_parameters,
            "replay_error_messages": self.replay_errors,
            "named_by_key_or_title": self.naming,
        }


@dataclass
class QualityReport:
    """Per-environment measures and the catalog totals."""

    envs: list[EnvQuality]
    totals: QualityCounts

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"totals": {...}, "envs": [...]}``."""
        return {
            "envs_measured": len(self.envs),
            "totals": self.totals.to_dict(),
            "envs": [e.to_dict() for e in self.envs],
        }

    def to_json(self) -> str:
        """The report as indented JSON (sorted environments; same catalog, same bytes)."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    def to_markdown(self) -> str:
        """A totals table, then one row per environment."""
        return render_markdown(self)


def env_quality(entry: CatalogEntry) -> EnvQuality:
    """Measure one environment (see docs/synthesis.md, "Quality report")."""
    spec, env = entry.spec, entry.environment
    ownership = Ownership.of(spec)
    replay = TaskReplay(env, ownership)
    counts = QualityCounts(tasks=len(entry.tasks))
    writes = [t for t in spec.tools if t.kind == "write"]
    counts.write_tools = len(writes)

    for task in entry.tasks:
        counts.refusal_tasks += "refusal" in task.tags
        counts.partial_refusal_tasks += "partial-refusal" in task.tags
        counts.tasks_with_refusal_tag += any(tag in task.tags for tag in REFUSAL_TAGS)
    tasks_calling: dict[str, int] = {t.name: 0 for t in writes}
    replay_errors: list[str] = []
    naming: dict[str, list[str]] = {}
    for task in entry.tasks:
        found = replay.run(task)
        for name in found.write_tools:
            tasks_calling[name] = tasks_calling.get(name, 0) + 1
        counts.write_tasks += found.is_write_task
        counts.cross_user_write_tasks += found.cross_user
        counts.dependent_chain_tasks += found.dependent
        counts.write_goals += found.goals
        counts.ambiguous_goals += found.ambiguous_goals
        counts.reveal_facts += found.reveal_facts
        counts.reveal_facts_in_instruction += found.reveal_facts_in_instruction
        counts.self_undoing_chains += found.self_undoing
        counts.fields_set_twice += found.sets_field_twice
        counts.filler_values += found.filler_values
        counts.unchanged_field_tasks += bool(found.unchanged_field_writes)
        counts.unchanged_field_writes += found.unchanged_field_writes
        counts.writes_changing_nothing += found.writes_changing_nothing
        counts.internal_key_references += bool(found.internal_keys)
        counts.title_references += bool(found.titles)
        if found.internal_keys or found.titles:
            naming[task.id] = found.internal_keys + [f"'{t}'" for t in found.titles]
        if found.replay_error:
            replay_errors.append(f"{task.id}: {found.replay_error}")
    counts.replay_errors = len(replay_errors)
    unused = [name for name, n in tasks_calling.items() if n == 0]
    counts.used_write_tools = counts.write_tools - len(unused)

    skeletons = {write_skeleton(t) for t in writes}
    guards = {g for t in spec.tools for g in guard_shapes(t)}
    counts.write_skeletons, counts.guard_kinds = len(skeletons), len(guards)
    lists = [f"{t.name}.{p}" for t in spec.tools for p in list_parameters(t)]
    counts.list_parameters, counts.envs_with_list_parameter = len(lists), int(bool(lists))
    # the user's own tools (dual control) are never the agent's: a customer's button is no staff tool
    staff = {t.name: role for t in spec.tools_of("agent") if (role := staff_role(t, ownership.users))}
    counts.staff_tools = len(staff)

    seed = replay.seed_state()
    counts.coherence_rows_checked, counts.coherence_violations = coherence_violations(spec, seed)
    dates = status_date_contradictions(spec, seed, spec.clock)
    counts.after_event_rows_checked, counts.after_event_in_future = dates.after_checked, dates.after_in_future
    counts.before_event_rows_checked, counts.before_event_in_past = dates.before_checked, dates.before_in_past
    for name, value in asdict(judgment_counts(spec, entry.tasks)).items():
        setattr(counts, name, value)
    for name, value in asdict(believable_counts(spec, entry.tasks)).items():
        setattr(counts, name, value)
    for name, value in asdict(dual_counts(env, entry.tasks)).items():
        setattr(counts, name, value)
    for name, value in asdict(retrieval_counts(env, entry.tasks)).items():
        setattr(counts, name, value)
    for name, value in asdict(relation_counts(env, entry.tasks)).items():
        setattr(counts, name, value)
    counts.derived_value_tasks = sum(bool(derived_arguments(env, ownership, t, seed)) for t in entry.tasks)
    across_rows = (
        rows_outside_period,
        children_before_parent,
        deadlines_before_record,
        amounts_beyond_parent,
        amounts_out_of_proportion,
        awaited_long_past,
        kin_age_contradictions,
        surnames_apart,
    )
    for measure in (measure_rows(spec, seed.rows) for measure_rows in across_rows):
        for name, value in asdict(measure).items():
            setattr(counts, name, value)
    timeline = seed_time(spec, seed.rows, spec.clock)
    for name in SeedTimeCounts.__dataclass_fields__:  # pairs and timestamps, checked and breaking the rules
        setattr(counts, name, getattr(timeline, name))
    counts.finish()
    return EnvQuality(
        env_id=spec.id,
        counts=counts,
        write_tool_usage={name: _share(n, len(entry.tasks)) for name, n in tasks_calling.items()},
        unused_write_tools=unused,
        staff_tools=staff,
        list_parameters=lists,
        replay_errors=replay_errors,
        naming=naming,
        skeletons=skeletons,
        guards=guards,
    )


# Totals sum every count except those ``finish`` derives (shares, unused tools, contradictions) and
# the distinct shapes, which are counted over the union of the environments' shapes.
_NOT_SUMMED = {
    "refusal_share",
    "used_write_tool_share",
    "unused_write_tools",
    "dependent_chain_share",
    "self_undoing_share",
    "internal_key_share",
    "title_share",
    "status_date_contradictions",
    "policy_only_share",
    "policy_refusal_share",
    "derived_value_share",
    "clock_timestamps_checked",
    "clock_violations",
    "write_skeletons",
    "guard_kinds",
}
_SUMMED = [name for name in QualityCounts.__dataclass_fields__ if name not in _NOT_SUMMED]


def quality_report(
    entries: Iterable[CatalogEntry], progress: Callable[[EnvQuality], None] | None = None
) -> QualityReport:
    """Measure every entry and total the counts: counts are summed, shares are taken over all tasks
    and tools, and distinct skeletons and guard kinds are counted over the union of all entries (a
    shape that two environments share counts once). ``progress`` is called after each entry."""
    envs: list[EnvQuality] = []
    for entry in entries:
        envs.append(env_quality(entry))
        if progress is not None:
            progress(envs[-1])
    envs.sort(key=lambda e: e.env_id)
    totals = QualityCounts()
    for e in envs:
        for name in _SUMMED:
            setattr(totals, name, getattr(totals, name) + getattr(e.counts, name))
    totals.write_skeletons = len(set().union(*(e.skeletons for e in envs)))
    totals.guard_kinds = len(set().union(*(e.guards for e in envs)))
    totals.finish()
    return QualityReport(envs=envs, totals=totals)


def write_quality_report(report: QualityReport, out_dir: Path | str) -> tuple[Path, Path]:
    """Write ``quality-report.json`` and ``quality-report.md`` into ``out_dir``; return their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out / JSON_FILE, out / MARKDOWN_FILE
    json_path.write_text(report.to_json(), encoding="utf-8")
    md_path.write_text(report.to_markdown(), encoding="utf-8")
    return json_path, md_path


# -- presentation (shared by the markdown file and the CLI table) -----------------------------------


def total_lines(c: QualityCounts, envs: int) -> list[tuple[str, str]]:
    """(measure, value) rows of the totals block."""
    return [
        ("environments / tasks", f"{envs} / {c.tasks}"),
        ("refusal share", f"{c.refusal_share:.1%} ({c.refusal_tasks} refusal, {c.partial_refusal_tasks} partial)"),
        ("write tools used by ≥1 task", f"{c.used_write_tools}/{c.write_tools} ({c.used_write_tool_share:.1%})"),
        ("unused write tools", str(c.unused_write_tools)),
        ("distinct write-tool skeletons", str(c.write_skeletons)),
        ("distinct guard kinds", str(c.guard_kinds)),
        ("list parameters", f"{c.list_parameters} (in {c.envs_with_list_parameter} env(s))"),
        ("reference-coherence violations", f"{c.coherence_violations}/{c.coherence_rows_checked} rows"),
        ("after-event status, date in the future", f"{c.after_event_in_future}/{c.after_event_rows_checked} rows"),
        ("before-event status, date in the past", f"{c.before_event_in_past}/{c.before_event_rows_checked} rows"),
        ("inverted date pairs (end before start)", f"{c.inverted_date_pairs}/{c.date_pairs_checked} pairs"),
        (
            "clock violations (past event ahead, coming event past)",
            f"{c.clock_violations}/{c.clock_timestamps_checked} timestamps "
            f"({c.past_events_after_clock} + {c.future_events_before_clock})",
        ),
        ("reveal-if-asked facts already in the instruction", f"{c.reveal_facts_in_instruction}/{c.reveal_facts}"),
        ("ambiguous goals", f"{c.ambiguous_goals}/{c.write_goals} assessed write goals"),
        ("cross-user write tasks", f"{c.cross_user_write_tasks}/{c.write_tasks} write tasks"),
        ("staff tools exposed to the agent", str(c.staff_tools)),
        ("dependent write chains", f"{c.dependent_chain_share:.1%} ({c.dependent_chain_tasks} tasks)"),
        ("self-undoing chains", f"{c.self_undoing_share:.1%} ({c.self_undoing_chains} tasks)"),
        ("tasks setting a field twice", str(c.fields_set_twice)),
        ("filler values in structured fields", str(c.filler_values)),
        (
            "writes setting a field to the value it holds",
            f"{c.unchanged_field_writes} calls in {c.unchanged_field_tasks} tasks "
            f"({c.writes_changing_nothing} changing nothing)",
        ),
        ("internal keys in the user's words", f"{c.internal_key_share:.1%} ({c.internal_key_references} tasks)"),
        ("generated titles in the user's words", f"{c.title_share:.1%} ({c.title_references} tasks)"),
        ("gold replay errors", str(c.replay_errors)),
        ("policy-only rules", f"{c.policy_only_share:.1%} ({c.policy_only_rules}/{c.rules} rules)"),
        ("refusals resting on a policy-only rule", f"{c.policy_refusal_share:.1%} ({c.policy_refusal_tasks} tasks)"),
        (
            '"tell me why" clause',
            f"{c.why_clause_refusal_tasks} tasks with a refusal, {c.why_clause_other_tasks} others",
        ),
        (
            "questions with distractors",
            f"{c.information_tasks_with_distractors}/{c.information_tasks} information tasks",
        ),
        ("values the agent must work out", f"{c.derived_value_share:.1%} ({c.derived_value_tasks} tasks)"),
        ("time rules in a policy with no current time", f"{c.undated_time_rules}/{c.time_rules} time rules"),
        ("birth dates under 16 years", f"{c.birth_dates_under_16}/{c.birth_dates_checked}"),
        ("rules phrased as column names", f"{c.rules_phrased_as_columns}/{c.rule_texts} rules"),
        ("instructions copying a tool description", str(c.instructions_copying_tools)),
        ("policy words per environment", f"{c.policy_words / max(envs, 1):.0f}"),
        ("reasons outside their state", f"{c.event_reasons_outside_their_state}/{c.event_reasons_checked}"),
        ("records outside the period their status names", f"{c.rows_outside_period}/{c.period_rows_checked}"),
        ("records dated before the record they belong to", f"{c.children_before_parent}/{c.child_rows_checked}"),
        ("deadlines before their record came to be", f"{c.deadlines_before_record}/{c.deadline_rows_checked}"),
        ("refunds or shares beyond their whole", f"{c.amounts_beyond_parent}/{c.amount_groups_checked}"),
        ("amounts out of proportion to what they are for", f"{c.amounts_out_of_proportion}/{c.amount_pairs_checked}"),
        ("records awaited long after their event", f"{c.awaited_long_past}/{c.awaited_rows_checked}"),
        (
            "relatives' birth dates or documents against the relationship",
            f"{c.kin_rows_contradicting}/{c.kin_rows_checked}",
        ),
        (
            "surnames apart from the family's",
            f"{c.children_with_other_surname}/{c.children_named} children, "
            f"{c.relatives_with_other_surname}/{c.relatives_named} spouses, parents and siblings",
        ),
        ("dual-control environments / tasks", f"{c.dual_control_envs} / {c.dual_tasks}"),
        ("dual-control tasks needing the user to act", f"{c.tasks_needing_user_writes}/{c.dual_tasks}"),
        (
            "gold calls per dual-control task",
            f"user {c.user_actions / max(c.dual_tasks, 1):.2f} ({c.user_writes / max(c.dual_tasks, 1):.2f} changes), "
            f"agent {c.agent_actions_in_dual / max(c.dual_tasks, 1):.2f}",
        ),
        ("user-side faults an agent alone fixes", f"{c.user_fault_tasks_solved_alone}/{c.tasks_needing_user_writes}"),
        ("required documents in BM25's top 3 for the request", f"{c.retrieval_top3_hits}/{c.retrieval_tasks} tasks"),
        (
            "totals their records do not add up to",
            f"{c.aggregate_rows_broken_in_seed} rows in the seed, {c.aggregate_rows_broken_after_gold} after the "
            f"gold actions ({c.aggregate_relations} relations)",
        ),
    ]


#: Per-environment columns: (header, how to show the measure).
ENV_COLUMNS: list[tuple[str, Callable[[QualityCounts], str]]] = [
    ("tasks", lambda c: str(c.tasks)),
    ("refusal", lambda c: f"{c.refusal_share:.0%}"),
    ("writes used", lambda c: f"{c.used_write_tools}/{c.write_tools}"),
    ("skeletons", lambda c: str(c.write_skeletons)),
    ("guards", lambda c: str(c.guard_kinds)),
    ("lists", lambda c: str(c.list_parameters)),
    ("incoherent", lambda c: f"{c.coherence_violations}/{c.coherence_rows_checked}"),
    ("done>now", lambda c: f"{c.after_event_in_future}/{c.after_event_rows_checked}"),
    ("sched<now", lambda c: f"{c.before_event_in_past}/{c.before_event_rows_checked}"),
    ("end<start", lambda c: f"{c.inverted_date_pairs}/{c.date_pairs_checked}"),
    ("off-clock", lambda c: f"{c.clock_violations}/{c.clock_timestamps_checked}"),
    ("reveal said", lambda c: f"{c.reveal_facts_in_instruction}/{c.reveal_facts}"),
    ("ambiguous", lambda c: f"{c.ambiguous_goals}/{c.write_goals}"),
    ("cross-user", lambda c: f"{c.cross_user_write_tasks}/{c.write_tasks}"),
    ("staff", lambda c: str(c.staff_tools)),
    ("dependent", lambda c: f"{c.dependent_chain_share:.0%}"),
    ("policy-only", lambda c: f"{c.policy_only_rules}/{c.rules}"),
    ("policy refusals", lambda c: f"{c.policy_refusal_share:.0%}"),
    ("derived", lambda c: f"{c.derived_value_share:.0%}"),
    ("undoing", lambda c: str(c.self_undoing_chains)),
    ("set twice", lambda c: str(c.fields_set_twice)),
    ("filler", lambda c: str(c.filler_values)),
    ("same value", lambda c: str(c.unchanged_field_writes)),
    ("keys", lambda c: str(c.internal_key_references)),
    ("titles", lambda c: str(c.title_references)),
    ("undated", lambda c: f"{c.undated_time_rules}/{c.time_rules}"),
    ("column rules", lambda c: f"{c.rules_phrased_as_columns}/{c.rule_texts}"),
    ("policy words", lambda c: str(c.policy_words)),
    ("stray reasons", lambda c: f"{c.event_reasons_outside_their_state}/{c.event_reasons_checked}"),
    ("off-period", lambda c: f"{c.rows_outside_period}/{c.period_rows_checked}"),
    ("before parent", lambda c: f"{c.children_before_parent}/{c.child_rows_checked}"),
    ("early deadline", lambda c: f"{c.deadlines_before_record}/{c.deadline_rows_checked}"),
    ("over whole", lambda c: f"{c.amounts_beyond_parent}/{c.amount_groups_checked}"),
    ("off proportion", lambda c: f"{c.amounts_out_of_proportion}/{c.amount_pairs_checked}"),
    ("awaited past", lambda c: f"{c.awaited_long_past}/{c.awaited_rows_checked}"),
    ("kin ages", lambda c: f"{c.kin_rows_contradicting}/{c.kin_rows_checked}"),
    ("surnames", lambda c: f"{c.children_with_other_surname}/{c.children_named}"),
    ("totals off", lambda c: f"{c.aggregate_rows_broken_in_seed}+{c.aggregate_rows_broken_after_gold}"),
    ("user acts", lambda c: f"{c.tasks_needing_user_writes}/{c.dual_tasks}" if c.dual_tasks else "–"),
]


def render_markdown(report: QualityReport) -> str:
    """The report as markdown: totals, then one row per environment."""
    lines = ["# Catalog quality report", "", 'Measures are defined in docs/synthesis.md ("Quality report").', ""]
    lines += ["| measure | total |", "|---|---|"]
    lines += [f"| {name} | {value} |" for name, value in total_lines(report.totals, len(report.envs))]
    lines += ["", "| environment | " + " | ".join(h for h, _ in ENV_COLUMNS) + " |"]
    lines.append("|---" * (len(ENV_COLUMNS) + 1) + "|")
    for e in report.envs:
        lines.append(f"| {e.env_id} | " + " | ".join(show(e.counts) for _, show in ENV_COLUMNS) + " |")
    named = [e for e in report.envs if e.unused_write_tools or e.staff_tools]
    if named:
        lines += ["", "## Unused write tools and staff tools", ""]
        for e in named:
            unused = ", ".join(e.unused_write_tools) or "none"
            staff = ", ".join(f"{n} ({r})" for n, r in e.staff_tools.items()) or "none"
            lines.append(f"- **{e.env_id}**: unused: {unused}; staff: {staff}")
    return "\n".join(lines) + "\n"
