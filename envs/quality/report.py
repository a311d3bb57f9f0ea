"""The catalog quality report: measures of how realistic and varied environments and tasks are.

``quality_report(entries)`` measures each environment from its spec, seed and tasks alone (gold
actions are replayed on the engine) and sums them into totals; ``write_quality_report`` writes it
as ``quality-report.json`` and ``quality-report.md`` (deterministic: no timings). Every measure is
defined in docs/synthesis.md ("Quality report"); ``envfarm envs quality`` prints it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..catalog import CatalogEntry
from .agreement import parents_against_children
from .already import refusals_of_done_actions
from .amount_bands import amounts_out_of_proportion
from .amounts import amounts_beyond_parent
from .arranged_twice import arranged_twice
from .asked import asked_counts
from .awaited import awaited_long_past
from .balances import balances_not_adding_up
from .believable import believable_counts
from .bounds import values_beyond_record
from .catalog_names import catalog_names_repeated
from .child_dates import children_before_parent
from .counts import EnvQuality, QualityCounts, share
from .date_order import rows_out_of_order
from .deadlines import deadlines_before_record
from .derived import derived_arguments
from .dual import dual_counts
from .edges import refusals_on_edge
from .effects import effect_counts
from .ended_parents import waiting_under_ended
from .event_children import children_before_event
from .event_sides import rows_on_wrong_side
from .event_values import values_before_event
from .filled_dates import dates_off_their_move
from .fixed_charges import charges_off_fixed_amount
from .generator_words import generator_word_counts
from .horizons import dates_beyond_horizon
from .implied_parents import rows_without_arrangement
from .in_use import used_before_start
from .judgment import judgment_counts
from .kin_ages import kin_age_contradictions
from .kind_fits import kinds_and_sizes_unfit
from .labels import labels_apart
from .lapses import lapse_dates_against_status
from .live_at_once import live_at_once
from .made_amounts import amounts_against_their_making
from .money_bands import money_out_of_band
from .money_dates import money_dates_against_record
from .motive_fit import motive_fit_counts
from .motive_premises import motive_premise_counts
from .moved_parents import children_on_unmoved_parents
from .one_off import recorded_many_times
from .own_names import own_names_repeated
from .own_row import states_against_own_row
from .owned_twice import owned_twice
from .paid_nothing import paid_amounts_of_nothing
from .parent_kinds import children_parent_denies
from .passed_rules import rows_past_their_rules
from .periodic_rows import periodic_rows_off
from .periods import rows_outside_period
from .presentation import render_markdown
from .priced_lines import lines_off_their_units
from .rank_names import rank_name_counts
from .relations import relation_counts
from .requests import request_counts
from .retrieval import retrieval_counts
from .running_totals import running_totals_below_parts
from .seed import coherence_violations, status_date_contradictions
from .seed_time import SeedTimeCounts, seed_time
from .set_amounts import amounts_off_their_setting
from .spec import Ownership, guard_shapes, list_parameters, staff_role, write_skeleton
from .status_dates import statuses_against_own_dates
from .status_fields import fields_ruled_out
from .status_notes import notes_against_status
from .surnames import surnames_apart
from .tasks import TaskReplay
from .terms import dates_against_terms
from .tiers import tier_prices_inverted
from .trade_forms import trade_values_off_form
from .transient import transient_counts
from .two_parties import one_party_twice
from .visit_charges import charges_against_visit
from .wholes import parts_above_whole
from .won_once import won_twice
from .wording import wording_counts
from .write_rules import rows_against_their_writes

REFUSAL_TAGS = ("refusal", "partial-refusal")
JSON_FILE, MARKDOWN_FILE = "quality-report.json", "quality-report.md"


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
        return render_markdown(self.totals, self.envs)


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
        counts.amended_after_filing += bool(found.amends_filed)
        counts.pointless_write_chains += bool(found.made_pointless)
        counts.amount_updates_checked += found.moved.amounts_checked
        counts.amount_updates_far += len(found.moved.amounts_far)
        counts.moves_checked += found.moved.dates_checked
        counts.moves_landing_past += len(found.moved.dates_past)
        counts.written_dates_checked += found.written_dates_checked
        counts.written_dates_implausible += len(found.implausible_dates)
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
    for name, value in asdict(request_counts(entry.tasks)).items():
        setattr(counts, name, value)
    for name, value in asdict(motive_fit_counts(spec, entry.tasks)).items():
        setattr(counts, name, value)
    for name, value in asdict(motive_premise_counts(spec, entry.tasks)).items():
        setattr(counts, name, value)
    for name, value in asdict(asked_counts(spec, entry.tasks)).items():
        setattr(counts, name, value)
    for name, value in asdict(wording_counts(spec, entry.tasks)).items():
        setattr(counts, name, value)
    for name, value in asdict(generator_word_counts(spec, entry.tasks)).items():
        setattr(counts, name, value)
    for name, value in asdict(refusals_on_edge(spec, entry.tasks)).items():
        setattr(counts, name, value)
    for name, value in asdict(refusals_of_done_actions(spec, entry.tasks)).items():
        setattr(counts, name, value)
    for name, value in asdict(rank_name_counts(spec, entry.tasks, seed)).items():
        setattr(counts, name, value)
    for name, value in asdict(effect_counts(env)).items():
        setattr(counts, name, value)
    counts.derived_value_tasks = sum(bool(derived_arguments(env, ownership, t, seed)) for t in entry.tasks)
    across_rows = (
        rows_outside_period,
        children_before_parent,
        deadlines_before_record,
        amounts_beyond_parent,
        amounts_out_of_proportion,
        awaited_long_past,
        recorded_many_times,
        values_beyond_record,
        dates_against_terms,
        parents_against_children,
        states_against_own_row,
        live_at_once,
        charges_against_visit,
        charges_off_fixed_amount,
        amounts_against_their_making,
        rows_past_their_rules,
        fields_ruled_out,
        labels_apart,
        balances_not_adding_up,
        amounts_off_their_setting,
        catalog_names_repeated,
        kin_age_contradictions,
        surnames_apart,
        transient_counts,
        lapse_dates_against_status,
        tier_prices_inverted,
        children_before_event,
        periodic_rows_off,
        running_totals_below_parts,
        rows_without_arrangement,
        lines_off_their_units,
        rows_against_their_writes,
        owned_twice,
        own_names_repeated,
        rows_out_of_order,
        dates_off_their_move,
        one_party_twice,
        won_twice,
        notes_against_status,
        values_before_event,
        children_on_unmoved_parents,
        rows_on_wrong_side,
        children_parent_denies,
        kinds_and_sizes_unfit,
        trade_values_off_form,
        money_out_of_band,
        dates_beyond_horizon,
        paid_amounts_of_nothing,
        statuses_against_own_dates,
        used_before_start,
        money_dates_against_record,
        parts_above_whole,
        arranged_twice,
        waiting_under_ended,
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
        write_tool_usage={name: share(n, len(entry.tasks)) for name, n in tasks_calling.items()},
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
