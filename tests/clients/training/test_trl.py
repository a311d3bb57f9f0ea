"""TRL end to end: GRPO with tool calling against the farm (the trainer's own tool loop, rewards from the
score endpoint) and SFT data from ``envfarm export sft`` checked with TRL's own dataset utilities."""

from __future__ import annotations

import json
import math

import httpx

from clients import export_sft, run_eval

from .conftest import need

need("trl")
from datasets import load_dataset  # noqa: E402
from trl import GRPOConfig, GRPOTrainer, SFTConfig, SFTTrainer  # noqa: E402
from trl.data_utils import is_conversational, maybe_apply_chat_template  # noqa: E402

from clients.training.trl_env import (  # noqa: E402
    farm_environment_factory,
    farm_partial_credit,
    farm_reward,
    grpo_dataset,
    sft_dataset,
)

from .tiny_model import gold_script, scripted_model, tiny_tokenizer  # noqa: E402

PERFECT, WRONG = "clinic-001", "clinic-002"


def test_grpo_trains_on_farm_rewards_through_trls_tool_loop(farm_url, tmp_path, monkeypatch):
    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    tokenizer = tiny_tokenizer()
    model = scripted_model(tokenizer, gold_script([PERFECT], [WRONG]))
    seen: list[tuple[str, float, float]] = []

    def recorded_reward(completions, environments, task_id, **kwargs):
        rewards = farm_reward(completions, environments, **kwargs)
        partial = farm_partial_credit(completions, environments, **kwargs)
        seen.extend(zip(task_id, rewards, partial, strict=True))
        return rewards

    args = GRPOConfig(
        output_dir=str(tmp_path),
        per_device_train_batch_size=2,
        num_generations=2,
        max_completion_length=8192,
        max_steps=4,
        learning_rate=1e-4,
        use_cpu=True,
        report_to="none",
        save_strategy="no",
        logging_steps=1,
        seed=0,
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[recorded_reward],
        args=args,
        train_dataset=grpo_dataset(farm_url, "clinic", tasks=f"{PERFECT},{WRONG}"),
        processing_class=tokenizer,
        environment_factory=farm_environment_factory(farm_url, "clinic"),
    )
    try:
        trainer.train()
    finally:
        for environment in trainer.environments:
            environment._close()
    by_task = {t: {(r, p) for task, r, p in seen if task == t} for t in (PERFECT, WRONG)}
    assert by_task[PERFECT] == {(1.0, 1.0)}
    assert {r for r, _ in by_task[WRONG]} == {0.0} and all(p < 1 for _, p in by_task[WRONG])


def test_sft_export_loads_as_trls_conversational_tool_format_and_trains(make_config, tmp_path):
    config = make_config(agent="oracle", tasks="clinic-001,retail-001,retail-002")  # two environments' tools
    run_eval(config)
    out = tmp_path / "sft.jsonl"
    assert export_sft(config.out, out) == 3
    exported = [json.loads(line) for line in out.read_text().splitlines()]
    tokenizer = tiny_tokenizer()

    raw = load_dataset("json", data_files=str(out), split="train")  # how a trainer loads it
    for row, original in zip(raw, exported, strict=True):
        assert is_conversational(row)
        tools = json.loads(row["tools"])
        assert tools == json.loads(original["tools"])  # each row keeps its own tools, as exported
        text = maybe_apply_chat_template({"messages": row["messages"]}, tokenizer, tools=tools)["text"]
        assert all(t["function"]["name"] in text for t in tools)
        calls = [c for m in original["messages"] for c in m.get("tool_calls") or []]
        assert calls and all(f'"name": "{c["function"]["name"]}"' in text for c in calls)
        assert original["messages"][-1]["content"] in text
    assert len(sft_dataset(out)) == 3

    args = SFTConfig(
        output_dir=str(tmp_path / "sft"),
        per_device_train_batch_size=3,
        max_steps=1,
        use_cpu=True,
        report_to="none",
        save_strategy="no",
        max_length=None,
    )
    model = scripted_model(tokenizer, lambda prompt: "")
    trainer = SFTTrainer(model=model, args=args, train_dataset=raw, processing_class=tokenizer)
    assert len(trainer.train_dataset[0]["input_ids"]) > 1000  # the whole conversation, tools included
    result = trainer.train()
    assert math.isfinite(result.training_loss)


def test_every_tool_of_the_reference_environments_is_described_as_trl_describes_tools(farm_url):
    from transformers.utils import get_json_schema

    for env_id in ("clinic", "retail"):
        environment = farm_environment_factory(farm_url, env_id)()
        try:
            advertised = httpx.get(f"{farm_url}/envs/{env_id}").json()["tool_list"]
            for tool in advertised:
                schema = get_json_schema(getattr(environment, tool["name"]))["function"]
                assert schema["name"] == tool["name"] and schema["description"]
                properties = tool["input_schema"]["properties"]
                assert set(schema["parameters"].get("properties", {})) == set(properties)
                for name, prop in properties.items():  # required stays required; optional (null allowed) does not
                    optional = any(o.get("type") == "null" for o in prop.get("anyOf", []))
                    assert (name in schema["parameters"].get("required", [])) is not optional
        finally:
            environment._close()
