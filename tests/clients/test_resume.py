"""Resuming a half-finished run: finished trials are kept, missing and infra-errored ones are redone."""

from __future__ import annotations

import json

from clients import run_eval
from envfarm.cli import main
from envs import Catalog

from .fakes import call, say

TASK = "clinic-001"
KEY = "Dr. Osei on Wednesday morning"
GOLD = Catalog().task(TASK)[1].gold_actions
CALLS_PER_TRIAL = len(GOLD) + 1


def script(llm) -> None:
    llm.script(KEY, *[call((a.tool, a.arguments)) for a in GOLD], say("A1001, Wednesday 10:30, copay 20."))


def lines(config) -> list[dict]:
    """Readable records (the torn line a crash left stays in the file, sealed by a newline)."""
    out = []
    for line in (config.out / "results.jsonl").read_text().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            assert line == '{"task_id": "clinic-0'
    return out


def test_resume_after_infra_error_and_interruption(llm, make_config, capsys):
    script(llm)
    llm.fail(*[500] * 4)  # the first trial's first request fails every attempt
    config = make_config(agent="openai", base_url=llm.base_url, tasks=TASK, trials=3, concurrency=1)
    first = run_eval(config)
    records = lines(config)
    assert [(r["trial"], r["error_class"]) for r in records] == [(0, "infra"), (1, None), (2, None)]
    assert first.trials_counted == 2 and len(first.infra_errors) == 1
    assert first.overall.pass_hat == {1: 1.0, 2: 1.0, 3: None}  # one task with 2 counted trials

    # An interrupted run: trial 2's record never made it, and a write was torn mid-line.
    kept = (config.out / "results.jsonl").read_text().splitlines()[:2]
    (config.out / "results.jsonl").write_text("\n".join(kept) + '\n{"task_id": "clinic-0', encoding="utf-8")
    before = len(llm.calls_to("chat"))

    second = run_eval(config)
    assert len(llm.calls_to("chat")) - before == 2 * CALLS_PER_TRIAL  # trials 0 and 2 only
    latest = {r["trial"]: r for r in lines(config)}
    assert sorted(latest) == [0, 1, 2]
    assert all(r["reward"] == 1.0 and r["error_class"] is None for r in latest.values())
    assert second.trials_counted == 3 and second.infra_errors == []
    assert second.overall.pass_hat == {1: 1.0, 2: 1.0, 3: 1.0}

    # Nothing left to do: a third run makes no model call.
    before = len(llm.calls_to("chat"))
    run_eval(config)
    assert len(llm.calls_to("chat")) == before

    # More trials into the same directory run only the new ones.
    run_eval(config.model_copy(update={"trials": 4}))
    assert len(llm.calls_to("chat")) - before == CALLS_PER_TRIAL

    # Another model cannot be resumed into the same directory.
    code = main(
        [
            "eval",
            "--agent",
            "openai",
            "--model",
            "other",
            "--base-url",
            llm.base_url,
            "--api-key-env",
            "FAKE_LLM_KEY",
            "--tasks",
            TASK,
            "--out",
            str(config.out),
            "--server",
            config.server,
            "--no-progress",
        ]
    )
    err = capsys.readouterr().err
    assert code == 1
    assert "holds another run" in err and "model='fake-model'" in err and len(err.strip().splitlines()) == 1


def test_resuming_a_finished_run_says_everything_is_done(make_config, capsys):
    config = make_config(agent="oracle", tasks=TASK, show_progress=True)
    run_eval(config)
    capsys.readouterr()
    again = run_eval(config)
    err = capsys.readouterr().err
    assert f"all 1 trials in {config.out} are already done" in err and "0/0" not in err
    assert again.trials_counted == again.trials_expected == 1 and not again.infra_errors
