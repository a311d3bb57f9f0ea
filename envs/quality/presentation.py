"""The quality report shown: the totals block, the per-environment columns, the markdown file.

Shared by ``quality-report.md`` and the CLI table (``envfarm envs quality``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .counts import EnvQuality, QualityCounts


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
        ("chains amending a record after filing it", str(c.amended_after_filing)),
        ("chains a write makes pointless (extend, then pay off)", str(c.pointless_write_chains)),
        ("implausible dates set by writes", f"{c.written_dates_implausible}/{c.written_dates_checked}"),
        ("amounts updated to under a fifth or over five times", f"{c.amount_updates_far}/{c.amount_updates_checked}"),
        ("dates moved on that still end in the past", f"{c.moves_landing_past}/{c.moves_checked}"),
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
        ("requests without a motive", f"{c.requests_without_motive}/{c.motive_requests} tasks asking for an action"),
        ("motives contradicting their record", f"{c.motives_contradicting}/{c.motives_checked} motives"),
        (
            "motive premises the record's state / kind contradicts",
            f"{c.motive_premises_against_state} / {c.motive_premises_against_kind}"
            f" of {c.motive_premises_checked} motives",
        ),
        (
            "garbled words: column verb / repeated kind / switch / 'request to' / role as served",
            f"{c.column_verb_tasks} / {c.repeated_kind_tasks} / {c.switch_garbled_tasks} / {c.form_request_tasks}"
            f" / {c.role_as_beneficiary_tasks} tasks",
        ),
        (
            "generator's words: status-ranked / kind as a field / staff's step / reason dictated",
            f"{c.status_ranked_tasks} / {c.kind_asked_tasks} / {c.staff_worded_tasks}"
            f" / {c.dictated_reason_tasks} tasks",
        ),
        (
            "records named by rank where a unique natural name exists",
            f"{c.rank_named_with_name}/{c.tasks} tasks ({c.rank_named_tasks} naming a record by a rank)",
        ),
        ("requests left without a reason beside others with one", str(c.requests_unexplained)),
        (
            "questions: totals over ended records / a field the user set",
            f"{c.totals_over_ended}/{c.total_questions} / {c.own_choice_questions}/{c.value_questions}",
        ),
        (
            "details dictated as form fields / records named by a column / ISO dates",
            f"{c.form_dictated_tasks} / {c.column_named_tasks} / {c.iso_date_tasks} tasks",
        ),
        ("records named by a value their owner does not know them by", f"{c.unknown_value_named_tasks} tasks"),
        ("details said as a choice off a form ('I'd go with jeep for the make')", f"{c.form_choice_tasks} tasks"),
        ("a field's label read out ('For the share percent, it's 10.')", f"{c.label_voiced_tasks} tasks"),
        ("requests stitched from parts ('It is for the same tour booking.')", f"{c.stitched_tasks} tasks"),
        ("a count of one said with a plural noun ('We'll be 1 people.')", f"{c.miscounted_tasks} tasks"),
        ("policy words per environment", f"{c.policy_words / max(envs, 1):.0f}"),
        ("reasons outside their state", f"{c.event_reasons_outside_their_state}/{c.event_reasons_checked}"),
        ("records outside the period their status names", f"{c.rows_outside_period}/{c.period_rows_checked}"),
        ("records dated before the record they belong to", f"{c.children_before_parent}/{c.child_rows_checked}"),
        ("deadlines before their record came to be", f"{c.deadlines_before_record}/{c.deadline_rows_checked}"),
        ("answers due after what they decide starts", f"{c.answers_after_start}/{c.answer_rows_checked}"),
        ("refunds or shares beyond their whole", f"{c.amounts_beyond_parent}/{c.amount_groups_checked}"),
        ("amounts out of proportion to what they are for", f"{c.amounts_out_of_proportion}/{c.amount_pairs_checked}"),
        ("records awaited long after their event", f"{c.awaited_long_past}/{c.awaited_rows_checked}"),
        ("one thing recorded many times", f"{c.one_off_recorded_many_times}/{c.one_off_groups_checked}"),
        ("counts, amounts or dates beyond their record", f"{c.values_beyond_their_record}/{c.bounded_values_checked}"),
        ("dates against the tool making their record", f"{c.dates_against_their_terms}/{c.term_dates_checked}"),
        (
            "records whose status disagrees with their rows",
            f"{c.parent_states_against_children}/{c.parent_states_checked}",
        ),
        ("statuses against their own row", f"{c.states_against_own_row}/{c.own_row_states_checked}"),
        ("more records live at once than a person holds", f"{c.live_beyond_one}/{c.live_groups_checked}"),
        ("jobs open on a home whose lease ended", f"{c.jobs_open_after_home_ended}/{c.home_jobs_checked}"),
        ("charges against their visit's status", f"{c.charges_against_visit}/{c.visit_charges_checked}"),
        ("charges off the amount a tool posts", f"{c.charges_off_fixed_amount}/{c.fixed_charges_checked}"),
        ("amounts against the tools making them", f"{c.amounts_against_their_making}/{c.made_amounts_checked}"),
        ("records past a rule they break", f"{c.rows_past_their_rules}/{c.capped_rows_checked}"),
        ("values their status or person rules out", f"{c.fields_ruled_out}/{c.status_fields_checked}"),
        ("labels off the pool their key names", f"{c.labels_off_their_pool}/{c.keyed_labels_checked}"),
        ("labels naming another value of a label beside them", f"{c.labels_naming_another}/{c.named_labels_checked}"),
        ("balances that do not add up on their row", f"{c.balances_not_adding_up}/{c.balance_rows_checked}"),
        ("amounts off what the tools set", f"{c.amounts_off_their_setting}/{c.set_amounts_checked}"),
        ("reference rows repeating a name", f"{c.catalog_names_repeated}/{c.catalog_names_checked}"),
        ("rows weeks into a passing state", f"{c.transient_rows_stale}/{c.transient_rows_checked}"),
        ("dates a tool moves on landing in the past", f"{c.moved_dates_landing_past}/{c.moved_dates_checked}"),
        ("holds ending before what they hold", f"{c.holds_ending_before}/{c.holds_checked}"),
        ("money in transit that moves nothing or sat for weeks", f"{c.transit_money_off}/{c.transit_money_checked}"),
        ("dates beyond their kind's horizon", f"{c.dates_beyond_horizon}/{c.horizon_dates_checked}"),
        ("statuses against their own dates", f"{c.statuses_against_own_dates}/{c.status_dates_checked}"),
        ("records used before they begin or followed up too soon", f"{c.used_before_start}/{c.started_rows_checked}"),
        (
            "money records of nothing in a settled or owed state",
            f"{c.paid_amounts_of_nothing}/{c.paid_amounts_checked}",
        ),
        (
            "money rows dated against their record or their siblings",
            f"{c.money_dates_against_record}/{c.money_dates_checked}",
        ),
        ("amounts above the whole they are part of", f"{c.parts_above_whole}/{c.whole_parts_checked}"),
        ("people or things under two covers of a kind at once", f"{c.arranged_twice}/{c.arrangement_groups_checked}"),
        ("people with two benefit years overlapping", f"{c.terms_overlapping}/{c.term_groups_checked}"),
        ("periodic rows waiting under a record that ended", f"{c.waiting_under_ended}/{c.periodic_waits_checked}"),
        ("records in good standing past their lapse date", f"{c.lapse_dates_against_status}/{c.lapse_rows_checked}"),
        ("prices below a lower tier's", f"{c.tier_prices_inverted}/{c.tier_rows_checked}"),
        ("records an event makes, before the event", f"{c.children_before_event}/{c.event_children_checked}"),
        ("periodic rows at the wrong spacing", f"{c.periodic_rows_off}/{c.periodic_rows_checked}"),
        ("running totals below their parts", f"{c.running_totals_below_parts}/{c.running_totals_checked}"),
        ("lines off their quantity times unit price", f"{c.lines_off_their_units}/{c.priced_lines_checked}"),
        ("rows carrying a write its rules forbid", f"{c.rows_against_their_writes}/{c.written_rows_checked}"),
        ("things one owner holds twice", f"{c.owned_twice}/{c.owned_rows_checked}"),
        ("names one owner gives twice", f"{c.own_names_repeated}/{c.own_names_checked}"),
        ("rows with two dates out of order", f"{c.rows_out_of_order}/{c.ordered_rows_checked}"),
        ("dates against the move that fills them", f"{c.dates_off_their_move}/{c.filled_dates_checked}"),
        ("rows naming one party in two roles", f"{c.one_party_twice}/{c.party_rows_checked}"),
        ("parents won by two children", f"{c.won_twice}/{c.winning_rows_checked}"),
        ("winners under a parent not taken", f"{c.won_untaken}/{c.winning_rows_checked}"),
        ("notes against their status", f"{c.notes_against_status}/{c.status_notes_checked}"),
        ("values an event makes, before the event", f"{c.values_before_event}/{c.event_values_checked}"),
        (
            "children under a parent their making never moved",
            f"{c.children_on_unmoved_parents}/{c.moved_parent_rows_checked}",
        ),
        ("children their parent's state denies", f"{c.children_parent_denies}/{c.parent_kind_rows_checked}"),
        ("kinds their parent's kind rules out", f"{c.kinds_unfit_for_parent}/{c.kind_pairs_checked}"),
        ("parts priced outside their band", f"{c.parts_out_of_band}/{c.priced_parts_checked}"),
        ("codes and company names off their trade's form", f"{c.trade_values_off_form}/{c.trade_values_checked}"),
        ("amounts outside their kind's band", f"{c.amounts_out_of_band}/{c.banded_amounts_checked}"),
        ("amounts outside their share of another", f"{c.ratios_out_of_range}/{c.ratio_amounts_checked}"),
        ("records of an event ahead", f"{c.records_of_events_ahead}/{c.event_records_checked}"),
        ("rows waiting for an event weeks past", f"{c.waiting_for_events_past}/{c.waiting_rows_checked}"),
        ("rows without the arrangement they imply", f"{c.rows_without_arrangement}/{c.implied_rows_checked}"),
        ("refusals on a time rule's edge", f"{c.refusals_on_rule_edge}/{c.time_refusals_checked}"),
        ("refusals of an action already done", f"{c.refusals_of_done_action}/{c.status_refusals_checked}"),
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
        (
            "tools whose effect or check disagrees with the rules",
            f"{c.parent_moves_leaving_children_live}/{c.parent_moves_checked} ends leaving children live "
            f"({c.children_left_live} children), {c.flag_checks_without_rows}/{c.flag_checks} flag checks without "
            f"their rows, {c.whole_payments_of_nothing}/{c.whole_payments_checked} payments of nothing",
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
    ("amends filed", lambda c: str(c.amended_after_filing)),
    ("written dates", lambda c: f"{c.written_dates_implausible}/{c.written_dates_checked}"),
    ("keys", lambda c: str(c.internal_key_references)),
    ("titles", lambda c: str(c.title_references)),
    ("undated", lambda c: f"{c.undated_time_rules}/{c.time_rules}"),
    ("column rules", lambda c: f"{c.rules_phrased_as_columns}/{c.rule_texts}"),
    ("policy words", lambda c: str(c.policy_words)),
    ("stray reasons", lambda c: f"{c.event_reasons_outside_their_state}/{c.event_reasons_checked}"),
    ("off-period", lambda c: f"{c.rows_outside_period}/{c.period_rows_checked}"),
    ("before parent", lambda c: f"{c.children_before_parent}/{c.child_rows_checked}"),
    ("early deadline", lambda c: f"{c.deadlines_before_record}/{c.deadline_rows_checked}"),
    ("late answer", lambda c: f"{c.answers_after_start}/{c.answer_rows_checked}"),
    ("over whole", lambda c: f"{c.amounts_beyond_parent}/{c.amount_groups_checked}"),
    ("off proportion", lambda c: f"{c.amounts_out_of_proportion}/{c.amount_pairs_checked}"),
    ("awaited past", lambda c: f"{c.awaited_long_past}/{c.awaited_rows_checked}"),
    ("many times", lambda c: f"{c.one_off_recorded_many_times}/{c.one_off_groups_checked}"),
    ("beyond record", lambda c: f"{c.values_beyond_their_record}/{c.bounded_values_checked}"),
    ("off term", lambda c: f"{c.dates_against_their_terms}/{c.term_dates_checked}"),
    ("status vs rows", lambda c: f"{c.parent_states_against_children}/{c.parent_states_checked}"),
    ("status vs own row", lambda c: f"{c.states_against_own_row}/{c.own_row_states_checked}"),
    ("live at once", lambda c: f"{c.live_beyond_one}/{c.live_groups_checked}"),
    ("visit charges", lambda c: f"{c.charges_against_visit}/{c.visit_charges_checked}"),
    ("fixed charges", lambda c: f"{c.charges_off_fixed_amount}/{c.fixed_charges_checked}"),
    ("made amounts", lambda c: f"{c.amounts_against_their_making}/{c.made_amounts_checked}"),
    ("past rules", lambda c: f"{c.rows_past_their_rules}/{c.capped_rows_checked}"),
    ("ruled out", lambda c: f"{c.fields_ruled_out}/{c.status_fields_checked}"),
    ("keyed labels", lambda c: f"{c.labels_off_their_pool}/{c.keyed_labels_checked}"),
    ("balances", lambda c: f"{c.balances_not_adding_up}/{c.balance_rows_checked}"),
    ("set amounts", lambda c: f"{c.amounts_off_their_setting}/{c.set_amounts_checked}"),
    ("repeated names", lambda c: f"{c.catalog_names_repeated}/{c.catalog_names_checked}"),
    ("stale states", lambda c: f"{c.transient_rows_stale}/{c.transient_rows_checked}"),
    ("moves to past", lambda c: f"{c.moved_dates_landing_past}/{c.moved_dates_checked}"),
    ("short holds", lambda c: f"{c.holds_ending_before}/{c.holds_checked}"),
    ("money in transit", lambda c: f"{c.transit_money_off}/{c.transit_money_checked}"),
    ("beyond horizon", lambda c: f"{c.dates_beyond_horizon}/{c.horizon_dates_checked}"),
    ("paid nothing", lambda c: f"{c.paid_amounts_of_nothing}/{c.paid_amounts_checked}"),
    ("status vs own date", lambda c: f"{c.statuses_against_own_dates}/{c.status_dates_checked}"),
    ("used before start", lambda c: f"{c.used_before_start}/{c.started_rows_checked}"),
    ("money dates", lambda c: f"{c.money_dates_against_record}/{c.money_dates_checked}"),
    ("above whole", lambda c: f"{c.parts_above_whole}/{c.whole_parts_checked}"),
    ("covers twice", lambda c: f"{c.arranged_twice}/{c.arrangement_groups_checked}"),
    ("terms overlap", lambda c: f"{c.terms_overlapping}/{c.term_groups_checked}"),
    ("waiting, ended", lambda c: f"{c.waiting_under_ended}/{c.periodic_waits_checked}"),
    ("lapse dates", lambda c: f"{c.lapse_dates_against_status}/{c.lapse_rows_checked}"),
    ("tier prices", lambda c: f"{c.tier_prices_inverted}/{c.tier_rows_checked}"),
    ("before event", lambda c: f"{c.children_before_event}/{c.event_children_checked}"),
    ("period spacing", lambda c: f"{c.periodic_rows_off}/{c.periodic_rows_checked}"),
    ("totals below parts", lambda c: f"{c.running_totals_below_parts}/{c.running_totals_checked}"),
    ("lines off units", lambda c: f"{c.lines_off_their_units}/{c.priced_lines_checked}"),
    ("against their write", lambda c: f"{c.rows_against_their_writes}/{c.written_rows_checked}"),
    ("owned twice", lambda c: f"{c.owned_twice}/{c.owned_rows_checked}"),
    ("named twice", lambda c: f"{c.own_names_repeated}/{c.own_names_checked}"),
    ("dates out of order", lambda c: f"{c.rows_out_of_order}/{c.ordered_rows_checked}"),
    ("dates off their move", lambda c: f"{c.dates_off_their_move}/{c.filled_dates_checked}"),
    ("one party twice", lambda c: f"{c.one_party_twice}/{c.party_rows_checked}"),
    ("won twice", lambda c: f"{c.won_twice}/{c.winning_rows_checked}"),
    ("won untaken", lambda c: f"{c.won_untaken}/{c.winning_rows_checked}"),
    ("notes vs status", lambda c: f"{c.notes_against_status}/{c.status_notes_checked}"),
    ("values pre-event", lambda c: f"{c.values_before_event}/{c.event_values_checked}"),
    ("parent unmoved", lambda c: f"{c.children_on_unmoved_parents}/{c.moved_parent_rows_checked}"),
    ("parent denies", lambda c: f"{c.children_parent_denies}/{c.parent_kind_rows_checked}"),
    ("kind unfit", lambda c: f"{c.kinds_unfit_for_parent}/{c.kind_pairs_checked}"),
    ("part price", lambda c: f"{c.parts_out_of_band}/{c.priced_parts_checked}"),
    ("off trade form", lambda c: f"{c.trade_values_off_form}/{c.trade_values_checked}"),
    ("money band", lambda c: f"{c.amounts_out_of_band}/{c.banded_amounts_checked}"),
    ("money share", lambda c: f"{c.ratios_out_of_range}/{c.ratio_amounts_checked}"),
    ("event ahead", lambda c: f"{c.records_of_events_ahead}/{c.event_records_checked}"),
    ("waiting, past", lambda c: f"{c.waiting_for_events_past}/{c.waiting_rows_checked}"),
    ("no arrangement", lambda c: f"{c.rows_without_arrangement}/{c.implied_rows_checked}"),
    ("on rule edge", lambda c: f"{c.refusals_on_rule_edge}/{c.time_refusals_checked}"),
    ("kin ages", lambda c: f"{c.kin_rows_contradicting}/{c.kin_rows_checked}"),
    ("surnames", lambda c: f"{c.children_with_other_surname}/{c.children_named}"),
    ("totals off", lambda c: f"{c.aggregate_rows_broken_in_seed}+{c.aggregate_rows_broken_after_gold}"),
    (
        "effects off",
        lambda c: f"{c.parent_moves_leaving_children_live}+{c.flag_checks_without_rows}+{c.whole_payments_of_nothing}",
    ),
    ("no motive", lambda c: f"{c.requests_without_motive}/{c.motive_requests}"),
    ("premise off", lambda c: f"{c.motive_premises_against_state}+{c.motive_premises_against_kind}"),
    ("rank named", lambda c: f"{c.rank_named_with_name}/{c.rank_named_tasks}"),
    ("form words", lambda c: f"{c.form_dictated_tasks}+{c.column_named_tasks}"),
    ("user acts", lambda c: f"{c.tasks_needing_user_writes}/{c.dual_tasks}" if c.dual_tasks else "–"),
]


def render_markdown(totals: QualityCounts, envs: Sequence[EnvQuality]) -> str:
    """The report as markdown: totals, then one row per environment."""
    lines = ["# Catalog quality report", "", 'Measures are defined in docs/synthesis.md ("Quality report").', ""]
    lines += ["| measure | total |", "|---|---|"]
    lines += [f"| {name} | {value} |" for name, value in total_lines(totals, len(envs))]
    lines += ["", "| environment | " + " | ".join(h for h, _ in ENV_COLUMNS) + " |"]
    lines.append("|---" * (len(ENV_COLUMNS) + 1) + "|")
    for e in envs:
        lines.append(f"| {e.env_id} | " + " | ".join(show(e.counts) for _, show in ENV_COLUMNS) + " |")
    named = [e for e in envs if e.unused_write_tools or e.staff_tools]
    if named:
        lines += ["", "## Unused write tools and staff tools", ""]
        for e in named:
            unused = ", ".join(e.unused_write_tools) or "none"
            staff = ", ".join(f"{n} ({r})" for n, r in e.staff_tools.items()) or "none"
            lines.append(f"- **{e.env_id}**: unused: {unused}; staff: {staff}")
    return "\n".join(lines) + "\n"
