"""The correct-answer forms taken from a review's answers (docs/synthesis.md, "Seed 59", "Seed 61" and "Seed
67"): each is written where it applies, and the grader passes it."""

from __future__ import annotations

from envs.grading.scoring import score_episode
from envs.quality.classes import INFORMATION, POLICY_REFUSAL
from envs.quality.reported_answers import FORMS, _spelled, reported_answers

from .generated_envs import LABELLED, generated, of_class


def _graded() -> dict[str, list[float]]:
    rewards: dict[str, list[float]] = {form: [] for form in FORMS}
    for env, tasks in generated() + generated(LABELLED):
        for task in tasks:
            episode = env.episode(task)
            try:
                results = [r.content for r in episode.replay(task.gold_actions)]
                for form, text in reported_answers(env, task, results).items():
                    rewards[form].append(score_episode(env, task, episode, answer=text).reward)
            finally:
                episode.close()
    return rewards


def test_each_form_passes_wherever_it_is_written():
    rewards = _graded()
    assert rewards["names-the-record"] and rewards["denied-distractor"]
    assert all(r == 1.0 for form in FORMS for r in rewards[form])


def test_a_refused_payment_closes_with_its_total_unchanged_and_passes():
    # the generated domains refuse no payment: one of their refusals asked as a payment instead
    env, task = of_class(POLICY_REFUSAL)[0]
    refusal = task.refusals[0]
    paid = refusal.model_copy(update={"request": "pay " + refusal.request.split(" ", 1)[1], "claims": ["paid"]})
    task = task.model_copy(update={"refusals": [paid, *task.refusals[1:]]})
    episode = env.episode(task)
    try:
        results = [r.content for r in episode.replay(task.gold_actions)]
        text = reported_answers(env, task, results)["total-unchanged"]
        assert text.endswith("The total paid on it is unchanged.")
        assert score_episode(env, task, episode, answer=text).reward == 1.0
    finally:
        episode.close()


def test_a_question_names_its_record_by_id_and_states_only_that_record():
    env, task = next((e, t) for e, t in of_class(INFORMATION) if len(t.outputs) == 1 and t.distractors)
    episode = env.episode(task)
    try:
        results = [r.content for r in episode.replay(task.gold_actions)]
    finally:
        episode.close()
    text = reported_answers(env, task, results).get("names-the-record")
    if text is not None:
        assert text.startswith("Your ") and not any(d in text for d in task.distractors)


def test_a_reason_phrase_with_a_number_is_spelled_hyphenated_and_first():
    assert _spelled("continuous 1 month") == "one-month continuous"
    assert _spelled("flexi 10 days") == "ten-day flexi"
    assert _spelled("basic") is None and _spelled("2026-03-02") is None


def test_a_refusal_whose_reason_has_a_number_is_answered_with_it_in_words_and_passes():
    env, task = of_class(POLICY_REFUSAL)[0]
    refusal = task.refusals[0]
    # the generated domains give no such reason: the refused record's reason said as a pass type
    phrased = refusal.model_copy(update={"reason": ["continuous 1 month"]})
    task = task.model_copy(update={"refusals": [phrased, *task.refusals[1:]]})
    episode = env.episode(task)
    try:
        results = [r.content for r in episode.replay(task.gold_actions)]
        text = reported_answers(env, task, results).get("number-words")
        assert text is not None and "one-month continuous" in text and "1 month" not in text
    finally:
        episode.close()


def test_the_seed_67_forms_are_written_and_pass():
    # a label of another column beside a status reason, and an amount said as a change from a wrong one
    rewards = _graded()
    assert rewards["other-column-label"] and rewards["change-from"]
    assert all(r == 1.0 for form in ("other-column-label", "change-from") for r in rewards[form])


def test_the_seed_71_forms_are_written_and_pass():
    # a status said as kept beside a refusal on another rule, a record named with its parent's id, and
    # the record a write was done to described
    rewards = _graded()
    forms = ("status-kept", "id-and-parent", "outcome-described")
    assert all(rewards[form] for form in forms)
    assert all(r == 1.0 for form in forms for r in rewards[form])
