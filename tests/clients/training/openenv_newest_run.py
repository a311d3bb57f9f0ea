"""Run in a virtual environment of its own (test_openenv_newest.py): an OpenEnv session on the newest
openenv-core against envfarm-client's OpenEnv app (already started in that environment).

Arguments: the OpenEnv app's URL and a JSON file of ``{task_id: [calls, answer]}``. Prints
``{"openenv": version, "results": {task_id: [done, reward, partial credit, refused calls]}}``.
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import version

from clients.training.openenv_env import EnvfarmAction, EnvfarmClient

url, plans_file = sys.argv[1:3]
with open(plans_file, encoding="utf-8") as f:
    plans = json.load(f)
results = {}
for task_id, (calls, answer) in plans.items():
    client = EnvfarmClient(base_url=url)
    # openenv-core 0.3's EnvClient is asynchronous; .sync() is its synchronous wrapper
    with client.sync() if hasattr(client, "sync") else client as env:
        env.reset(task_id=task_id)
        refused = 0
        for name, arguments in calls:
            step = env.step(EnvfarmAction(tool=name, arguments=arguments))
            refused += step.observation.content.startswith("Error")
        end = env.step(EnvfarmAction(message=answer))
        results[task_id] = [end.done, end.reward, end.observation.partial_credit, refused]
print(json.dumps({"openenv": version("openenv-core"), "results": results}))
