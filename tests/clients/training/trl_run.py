"""Run in ``.venv-trl`` (test_trl.py): the TRL adapter on the newest TRL, where only the client is installed.

Argument: a JSON job file ``{"farm", "plans", "tasks", "sft", "out"}``. Three checks, one import of torch:

* ``grpo``: GRPO with TRL's own tool loop on a scripted tiny model (``tiny_model``), rewards from the farm;
* ``schemas``: how TRL (transformers' ``get_json_schema``) describes every tool of clinic and retail;
* ``sft``: an ``envfarm export sft`` file loaded as a trainer loads it, rendered by the chat template, and
  one ``SFTTrainer`` step.

Prints one JSON line: versions and what each check saw.
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import transformers
import trl
from datasets import load_dataset
from tiny_model import plan_script, scripted_model, tiny_tokenizer
from transformers.utils import get_json_schema
from trl import GRPOConfig, GRPOTrainer, SFTConfig, SFTTrainer
from trl.data_utils import is_conversational, maybe_apply_chat_template

from clients.training.trl_env import (
    farm_environment_factory,
    farm_partial_credit,
    farm_reward,
    grpo_dataset,
    sft_dataset,
)

job = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
farm = job["farm"]


def grpo() -> list[tuple[str, float, float]]:
    plans = {i: ([tuple(c) for c in calls], answer) for i, (calls, answer) in job["plans"].items()}
    tokenizer = tiny_tokenizer()
    model = scripted_model(tokenizer, plan_script(plans))
    seen: list[tuple[str, float, float]] = []

    def recorded_reward(completions, environments, task_id, **kwargs):  # type: ignore[no-untyped-def]
        rewards = farm_reward(completions, environments, **kwargs)
        partial = farm_partial_credit(completions, environments, **kwargs)
        seen.extend(zip(task_id, rewards, partial, strict=True))
        return rewards

    args = GRPOConfig(
        output_dir=tempfile.mkdtemp(),
        per_device_train_batch_size=2,
        num_generations=2,
        max_completion_length=8192,
        max_steps=2,
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
        train_dataset=grpo_dataset(farm, "clinic", tasks=job["tasks"]),
        processing_class=tokenizer,
        environment_factory=farm_environment_factory(farm, "clinic"),
    )
    try:
        trainer.train()
    finally:  # the episodes of the last batch: TRL 1.x pools its environments and closes none of them
        for pool in getattr(trainer, "_environment_pool", {}).values():
            for environment in pool:
                environment._close()
    return seen


def schemas() -> dict[str, list[dict]]:
    described = {}
    for env_id in ("clinic", "retail"):
        environment = farm_environment_factory(farm, env_id)()
        try:
            names = [n for n in dir(type(environment)) if not n.startswith("_") and n not in ("reset", "get_reward")]
            described[env_id] = [get_json_schema(getattr(environment, n))["function"] for n in names]
        finally:
            environment._close()
    return described


def sft() -> dict:
    path = Path(job["sft"])
    exported = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    tokenizer = tiny_tokenizer()
    raw = load_dataset("json", data_files=str(path), split="train")  # how a trainer loads it
    rows = []
    for row, original in zip(raw, exported, strict=True):
        tools = json.loads(row["tools"])
        text = maybe_apply_chat_template({"messages": row["messages"]}, tokenizer, tools=tools)["text"]
        calls = [c for m in original["messages"] for c in m.get("tool_calls") or []]
        rows.append(
            {
                "conversational": is_conversational(row),
                "tools_kept": tools == json.loads(original["tools"]),
                "tools_rendered": all(t["function"]["name"] in text for t in tools),
                "calls": len(calls),
                "calls_rendered": all(f'"name": "{c["function"]["name"]}"' in text for c in calls),
                "answer_rendered": original["messages"][-1]["content"] in text,
            }
        )
    args = SFTConfig(
        output_dir=tempfile.mkdtemp(),
        per_device_train_batch_size=len(rows),
        max_steps=1,
        use_cpu=True,
        report_to="none",
        save_strategy="no",
        max_length=None,
    )
    model = scripted_model(tokenizer, lambda prompt: "")
    trainer = SFTTrainer(model=model, args=args, train_dataset=raw, processing_class=tokenizer)
    tokens = len(trainer.train_dataset[0]["input_ids"])
    loss = trainer.train().training_loss
    return {
        "rows": rows,
        "sft_dataset_rows": len(sft_dataset(path)),
        "tokens": tokens,
        "loss_finite": math.isfinite(loss),
    }


out = {"trl": trl.__version__, "transformers": transformers.__version__}
out |= {"grpo": grpo(), "schemas": schemas(), "sft": sft()}
print(json.dumps(out))
