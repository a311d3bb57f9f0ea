"""The counts behind the quality report: one field per measure, summed over a catalog.

Every measure is defined in docs/synthesis.md ("Quality report"); ``finish`` derives the shares.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


def share(part: int, whole: int) -> float:
    """``part`` of ``whole`` to four places (0 of nothing)."""
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
    amended_after_filing: int = 0
    pointless_write_chains: int = 0
    amount_updates_checked: int = 0
    amount_updates_far: int = 0
    moves_checked: int = 0
    moves_landing_past: int = 0
    written_dates_checked: int = 0
    written_dates_implausible: int = 0
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
    answer_rows_checked: int = 0
    answers_after_start: int = 0
    amount_groups_checked: int = 0
    amounts_beyond_parent: int = 0
    amount_pairs_checked: int = 0
    amounts_out_of_proportion: int = 0
    awaited_rows_checked: int = 0
    awaited_long_past: int = 0
    one_off_groups_checked: int = 0
    one_off_recorded_many_times: int = 0
    bounded_values_checked: int = 0
    values_beyond_their_record: int = 0
    term_dates_checked: int = 0
    dates_against_their_terms: int = 0
    parent_states_checked: int = 0
    parent_states_against_children: int = 0
    own_row_states_checked: int = 0
    states_against_own_row: int = 0
    live_groups_checked: int = 0
    live_beyond_one: int = 0
    home_jobs_checked: int = 0
    jobs_open_after_home_ended: int = 0
    visit_charges_checked: int = 0
    charges_against_visit: int = 0
    fixed_charges_checked: int = 0
    charges_off_fixed_amount: int = 0
    made_amounts_checked: int = 0
    amounts_against_their_making: int = 0
    capped_rows_checked: int = 0
    rows_past_their_rules: int = 0
    status_fields_checked: int = 0
    fields_ruled_out: int = 0
    keyed_labels_checked: int = 0
    labels_off_their_pool: int = 0
    named_labels_checked: int = 0
    labels_naming_another: int = 0
    balance_rows_checked: int = 0
    balances_not_adding_up: int = 0
    set_amounts_checked: int = 0
    amounts_off_their_setting: int = 0
    catalog_names_checked: int = 0
    catalog_names_repeated: int = 0
    transient_rows_checked: int = 0
    transient_rows_stale: int = 0
    moved_dates_checked: int = 0
    moved_dates_landing_past: int = 0
    holds_checked: int = 0
    holds_ending_before: int = 0
    transit_money_checked: int = 0
    transit_money_off: int = 0
    horizon_dates_checked: int = 0
    dates_beyond_horizon: int = 0
    paid_amounts_checked: int = 0
    paid_amounts_of_nothing: int = 0
    status_dates_checked: int = 0
    statuses_against_own_dates: int = 0
    started_rows_checked: int = 0
    used_before_start: int = 0
    money_dates_checked: int = 0
    money_dates_against_record: int = 0
    whole_parts_checked: int = 0
    parts_above_whole: int = 0
    arrangement_groups_checked: int = 0
    arranged_twice: int = 0
    term_groups_checked: int = 0
    terms_overlapping: int = 0
    periodic_waits_checked: int = 0
    waiting_under_ended: int = 0
    lapse_rows_checked: int = 0
    lapse_dates_against_status: int = 0
    tier_rows_checked: int = 0
    tier_prices_inverted: int = 0
    event_children_checked: int = 0
    children_before_event: int = 0
    periodic_rows_checked: int = 0
    periodic_rows_off: int = 0
    running_totals_checked: int = 0
    running_totals_below_parts: int = 0
    priced_lines_checked: int = 0
    lines_off_their_units: int = 0
    written_rows_checked: int = 0
    rows_against_their_writes: int = 0
    owned_rows_checked: int = 0
    owned_twice: int = 0
    own_names_checked: int = 0
    own_names_repeated: int = 0
    ordered_date_pairs: int = 0
    ordered_rows_checked: int = 0
    rows_out_of_order: int = 0
    filled_dates_checked: int = 0
    dates_off_their_move: int = 0
    party_rows_checked: int = 0
    one_party_twice: int = 0
    winning_rows_checked: int = 0
    won_twice: int = 0
    won_untaken: int = 0
    status_notes_checked: int = 0
    notes_against_status: int = 0
    event_values_checked: int = 0
    values_before_event: int = 0
    moved_parent_rows_checked: int = 0
    children_on_unmoved_parents: int = 0
    parent_kind_rows_checked: int = 0
    children_parent_denies: int = 0
    kind_pairs_checked: int = 0
    kinds_unfit_for_parent: int = 0
    priced_parts_checked: int = 0
    parts_out_of_band: int = 0
    trade_values_checked: int = 0
    trade_values_off_form: int = 0
    banded_amounts_checked: int = 0
    amounts_out_of_band: int = 0
    ratio_amounts_checked: int = 0
    ratios_out_of_range: int = 0
    event_records_checked: int = 0
    records_of_events_ahead: int = 0
    waiting_rows_checked: int = 0
    waiting_for_events_past: int = 0
    implied_rows_checked: int = 0
    rows_without_arrangement: int = 0
    time_refusals_checked: int = 0
    refusals_on_rule_edge: int = 0
    status_refusals_checked: int = 0
    refusals_of_done_action: int = 0
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
    parent_moves_checked: int = 0
    parent_moves_leaving_children_live: int = 0
    children_left_live: int = 0
    flag_checks: int = 0
    flag_checks_without_rows: int = 0
    whole_payments_checked: int = 0
    whole_payments_of_nothing: int = 0
    motive_requests: int = 0
    requests_without_motive: int = 0
    form_dictated_tasks: int = 0
    column_named_tasks: int = 0
    iso_date_tasks: int = 0
    unknown_value_named_tasks: int = 0
    form_choice_tasks: int = 0
    label_voiced_tasks: int = 0
    stitched_tasks: int = 0
    miscounted_tasks: int = 0
    motives_checked: int = 0
    motives_contradicting: int = 0
    late_motives_on_overdue: int = 0
    spend_motives_on_money_to_user: int = 0
    pay_day_motives_on_small_sums: int = 0
    plan_motives_on_claims_or_hosted: int = 0
    wrong_value_motives_on_settings: int = 0
    time_motives_far_off: int = 0
    money_motives_on_free_records: int = 0
    forget_motives_on_cover: int = 0
    motives_of_another_kind: int = 0
    prompt_motives_on_old_records: int = 0
    motive_premises_checked: int = 0
    motive_premises_against_state: int = 0
    motive_premises_against_kind: int = 0
    requests_unexplained: int = 0
    column_verb_tasks: int = 0
    repeated_kind_tasks: int = 0
    switch_garbled_tasks: int = 0
    form_request_tasks: int = 0
    role_as_beneficiary_tasks: int = 0
    status_ranked_tasks: int = 0
    kind_asked_tasks: int = 0
    staff_worded_tasks: int = 0
    dictated_reason_tasks: int = 0
    rank_named_tasks: int = 0
    rank_named_with_name: int = 0
    total_questions: int = 0
    totals_over_ended: int = 0
    value_questions: int = 0
    own_choice_questions: int = 0

    def finish(self) -> None:
        """Fill the shares and derived counts from the counts."""
        self.refusal_share = share(self.tasks_with_refusal_tag, self.tasks)
        self.used_write_tool_share = share(self.used_write_tools, self.write_tools)
        self.unused_write_tools = self.write_tools - self.used_write_tools
        self.status_date_contradictions = self.after_event_in_future + self.before_event_in_past
        self.clock_timestamps_checked = self.past_events_checked + self.future_events_checked
        self.clock_violations = self.past_events_after_clock + self.future_events_before_clock
        self.dependent_chain_share = share(self.dependent_chain_tasks, self.tasks)
        self.policy_only_share = share(self.policy_only_rules, self.rules)
        self.policy_refusal_share = share(self.policy_refusal_tasks, self.tasks)
        self.derived_value_share = share(self.derived_value_tasks, self.tasks)
        self.self_undoing_share = share(self.self_undoing_chains, self.tasks)
        self.internal_key_share = share(self.internal_key_references, self.tasks)
        self.title_share = share(self.title_references, self.tasks)

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
