"""TRL end to end on its newest release, in ``.venv-trl`` (TRL, CPU torch and ``envfarm-client[trl]`` only):
GRPO with TRL's own tool loop against the farm (rewards from the score endpoint), every tool described as
TRL describes tools, and SFT data from ``envfarm export sft`` read by TRL's own dataset utilities and
trained on for a step. One run of ``trl_run.py`` does all three (torch is imported once)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from packaging.version import Version

from clients import EvalConfig, export_sft, run_eval

from .policies import gold_plans
from .trainers import assert_trainer_kept, run_script

PERFECT, WRONG = "clinic-001", "clinic-002"


@pytest.fixture(scope="module")
def trl_run(farm_url: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What ``trl_run.py`` saw, given gold plans for PERFECT and WRONG and an SFT export of three oracle runs."""
    tmp = tmp_path_factory.mktemp("trl")
    config = EvalConfig(server=farm_url, agent="oracle", tasks="clinic-001,retail-001,retail-002", out=tmp / "run")
    run_eval(config)  # two environments' tools in one export
    assert export_sft(config.out, tmp / "sft.jsonl") == 3
    job = {"farm": farm_url, "plans": gold_plans([PERFECT], [WRONG]), "tasks": f"{PERFECT},{WRONG}"}
    (tmp / "job.json").write_text(json.dumps(job | {"sft": str(tmp / "sft.jsonl")}))
    return dict(run_script("trl", "trl_run.py", str(tmp / "job.json"), cwd=tmp))


def test_the_client_installs_beside_the_newest_trl_without_replacing_anything(trl_run):
    versions = assert_trainer_kept("trl")
    assert Version(versions["trl"]) >= Version("1.16") and "mcp" not in versions
    assert trl_run["trl"] == versions["trl"]


def test_grpo_trains_on_farm_rewards_through_trls_tool_loop(trl_run):
    seen = trl_run["grpo"]
    by_task = {t: {(r, p) for task, r, p in seen if task == t} for t in (PERFECT, WRONG)}
    assert by_task[PERFECT] == {(1.0, 1.0)}
    assert {r for r, _ in by_task[WRONG]} == {0.0} and all(p < 1 for _, p in by_task[WRONG])


def test_every_tool_of_the_reference_environments_is_described_as_trl_describes_tools(trl_run, farm_url):
    for env_id in ("clinic", "retail"):
        described = {s["name"]: s for s in trl_run["schemas"][env_id]}
        advertised = httpx.get(f"{farm_url}/envs/{env_id}").json()["tool_list"]
        assert set(described) == {t["name"] for t in advertised}
        for tool in advertised:
            schema = described[tool["name"]]
            assert schema["description"]
            properties = tool["input_schema"]["properties"]
            assert set(schema["parameters"].get("properties", {})) == set(properties)
            for name, prop in properties.items():  # required stays required; optional (null allowed) does not
                optional = any(o.get("type") == "null" for o in prop.get("anyOf", []))
                assert (name in schema["parameters"].get("required", [])) is not optional


def test_sft_export_loads_as_trls_conversational_tool_format_and_trains(trl_run):
    sft = trl_run["sft"]
    assert len(sft["rows"]) == 3 and sft["sft_dataset_rows"] == 3
    for row in sft["rows"]:
        assert row["conversational"] and row["tools_kept"] and row["tools_rendered"]
        assert row["calls"] > 0 and row["calls_rendered"] and row["answer_rendered"]
    assert sft["tokens"] > 1000 and sft["loss_finite"]  # the whole conversation, tools included
