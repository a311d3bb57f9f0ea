"""An environment's first episode compiles it (the seed database, its CHECKs on every row) in a worker
thread: the farm keeps answering meanwhile, and two first episodes compile it once."""

from __future__ import annotations

import copy
import json
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from server.bench.isolation import LAB_SPEC, write_lab_catalog

# each seed row's CHECK rewrites a fresh megabyte: about 40 ms a row here, seconds for the table
COSTLY_CHECK = "length(replace(printf('%.*c', 1000000 + n, 'x'), 'x', 'y')) > 0"
ROWS = 100


def _write_slow_env(catalog: Path) -> None:
    spec: dict[str, Any] = copy.deepcopy(LAB_SPEC)
    spec["id"], spec["name"] = "slowseed", "Slow seed"
    spec["tables"][0]["columns"].append({"name": "n", "type": "integer", "check": COSTLY_CHECK})
    folder = catalog / "slowseed"
    folder.mkdir(parents=True)
    (folder / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    rows = [{"thing_id": f"T{i:04d}", "label": "x", "n": i} for i in range(ROWS)]
    (folder / "seed.json").write_text(json.dumps({"things": rows}), encoding="utf-8")
    (folder / "policy.md").write_text("# Slow seed\n", encoding="utf-8")
    (folder / "tasks.json").write_text("[]", encoding="utf-8")


def test_the_farm_answers_while_an_environment_compiles(make_server, tmp_path: Path) -> None:
    write_lab_catalog(tmp_path / "catalog")
    _write_slow_env(tmp_path / "catalog")
    farm = make_server(catalog=tmp_path / "catalog")
    created: list[httpx.Response] = []

    def create() -> None:
        with httpx.Client(base_url=farm.base_url, timeout=300) as client:
            created.extend(client.post("/episodes", json={"env_id": "slowseed"}) for _ in range(2))

    answered_meanwhile = 0
    with httpx.Client(base_url=farm.base_url, timeout=300) as client:
        other = client.post("/episodes", json={"env_id": "lab"}).json()["episode_id"]
        starter = threading.Thread(target=create)
        starter.start()
        while starter.is_alive():
            health = client.get("/healthz")
            call = client.post(f"/episodes/{other}/calls", json={"tool": "list_things"})
            assert health.status_code == 200 and call.status_code == 200 and not call.json()["is_error"]
            if starter.is_alive() and not created:
                answered_meanwhile += 1
            time.sleep(0.05)  # pacing, not a measurement: an episode may make 500 calls
        starter.join()
    assert [r.status_code for r in created] == [201, 201], [r.text for r in created]
    # on the event loop, the compile held every other request until it was done: at most the one or
    # two sent before the create request arrived were answered (several seconds of compiling here)
    assert answered_meanwhile >= 5, answered_meanwhile
    assert sorted(farm.service._envs) == ["lab", "slowseed"]  # each compiled once
