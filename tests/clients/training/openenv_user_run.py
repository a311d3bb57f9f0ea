"""Run in ``.venv-openenv`` (test_openenv.py): an OpenEnv episode with a simulated user, over OpenEnv's
own client. Argument: a JSON job file ``{"app"}`` (the adapter's app, served with a user model).

The agent's side is scripted here (no policy model): it resumes the line, asks the user to switch
airplane mode off, then thanks them. Prints one JSON line of what the client saw.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from clients.training.openenv_env import EnvfarmAction, EnvfarmClient

job = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
out: dict[str, Any] = {}
with EnvfarmClient(base_url=job["app"]).sync() as env:
    first = env.reset(task_id="phone_support-001").observation
    out["opening"], out["episode_id"] = first.user_message, first.episode_id
    resumed = env.step(EnvfarmAction(tool="resume_line", arguments={"line_id": "L1"}))
    assert not resumed.observation.is_error, resumed.observation.content
    asked = env.step(EnvfarmAction(message="Your line is active again. Please switch airplane mode off."))
    out["asked"] = {"done": asked.done, "user_message": asked.observation.user_message, "reward": asked.reward}
    end = env.step(EnvfarmAction(message="Great, you are connected."))
    out["end"] = {
        "done": end.done,
        "user_message": end.observation.user_message,
        "reward": end.reward,
        "partial_credit": end.observation.partial_credit,
    }
print(json.dumps(out))
