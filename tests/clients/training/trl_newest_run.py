"""Run in a virtual environment of its own (test_trl_newest.py): GRPO on the newest TRL with envfarm-client.

Arguments: the farm's URL, a JSON file of ``tiny_model.gold_plans``, the directory of ``tiny_model.py``.
Prints ``{"trl": version, "transformers": version, "seen": [[task_id, reward, partial credit], ...]}``.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

url, plans_file, here = sys.argv[1:4]
sys.path.insert(0, here)
os.environ["TRL_EXPERIMENTAL_SILENCE"] = "1"

import transformers  # noqa: E402
import trl  # noqa: E402
from tiny_model import plan_script, scripted_model, tiny_tokenizer  # noqa: E402
from trl import GRPOConfig, GRPOTrainer  # noqa: E402

from clients.training.trl_env import (  # noqa: E402
    farm_environment_factory,
    farm_partial_credit,
    farm_reward,
    grpo_dataset,
)

with open(plans_file, encoding="utf-8") as f:
    plans = {instruction: ([tuple(c) for c in calls], answer) for instruction, (calls, answer) in json.load(f).items()}
task_ids = sys.argv[4].split(",")
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
    train_dataset=grpo_dataset(url, "clinic", tasks=",".join(task_ids)),
    processing_class=tokenizer,
    environment_factory=farm_environment_factory(url, "clinic"),
)
try:
    trainer.train()
finally:  # the episodes of the last batch: TRL 1.x pools its environments and closes none of them
    for pool in getattr(trainer, "_environment_pool", {}).values():
        for environment in pool:
            environment._close()
print(json.dumps({"trl": trl.__version__, "transformers": transformers.__version__, "seen": seen}))
