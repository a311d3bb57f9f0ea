"""A catalog holding one environment that does not validate: the server serves the others, lists the
invalid one under ``skipped`` with the reason, and answers its routes with a clear 409."""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from envs import paths
from server.bench.isolation import LAB_SPEC, write_lab_catalog

from .conftest import LiveServer


@pytest.fixture
def catalog_with_a_broken_env(tmp_path: Path) -> Path:
    catalog = tmp_path / "catalog"
    for env_id in ("clinic", "retail"):
        shutil.copytree(paths.BUILTIN_CATALOG / env_id, catalog / env_id)
    broken = catalog / "broken"
    broken.mkdir()
    spec = json.loads((catalog / "clinic" / paths.SPEC_FILE).read_text(encoding="utf-8"))
    spec["id"] = "broken"
    spec["tools"][0]["kind"] = "delete-everything"  # a kind no tool may have
    (broken / paths.SPEC_FILE).write_text(json.dumps(spec), encoding="utf-8")
    (broken / paths.TASKS_FILE).write_text(
        json.dumps([{"id": "broken-001", "env": "broken", "instruction": "Do it."}]), encoding="utf-8"
    )
    return catalog


def test_one_invalid_env_is_skipped_and_the_others_served(
    make_server: Callable[..., LiveServer], catalog_with_a_broken_env: Path
) -> None:
    server = make_server(catalog=catalog_with_a_broken_env)
    with server.http() as client:
        listing = client.get("/envs")
        assert listing.status_code == 200, listing.text
        body = listing.json()
        assert [e["id"] for e in body["items"]] == ["clinic", "retail"] and body["total"] == 2
        (skipped,) = body["skipped"]
        assert skipped["id"] == "broken"
        assert skipped["reason"].startswith("broken/spec.json: at tools[0].kind: ")
        assert str(catalog_with_a_broken_env) not in skipped["reason"]  # clients are not told where it lies

        # the others' tasks are listed and served; the broken one's answer 409 with the reason
        tasks = client.get("/tasks", params={"limit": 500}).json()
        assert {t["env"] for t in tasks["items"]} == {"clinic", "retail"}
        assert client.post("/episodes", json={"task_id": "clinic-001"}).status_code == 201
        for method, url, body_json in [
            ("GET", "/envs/broken", None),
            ("GET", "/envs/broken/tasks", None),
            ("GET", "/tasks/broken-001", None),
            ("POST", "/episodes", {"task_id": "broken-001"}),
            ("POST", "/episodes", {"env_id": "broken"}),
        ]:
            response = client.request(method, url, json=body_json)
            assert response.status_code == 409, (url, response.text)
            error = response.json()["error"]
            assert error["code"] == "env_invalid" and error["field"] == "env_id"
            assert error["message"].startswith("Environment 'broken' is in the catalog but invalid, so it is not")
            assert "broken/spec.json: at tools[0].kind" in error["message"]
        # once the task index is built (it holds the valid environments only), still 409, not 404
        assert client.get("/tasks/nowhere-001").status_code == 404
        assert client.get("/tasks/broken-001").json()["error"]["code"] == "env_invalid"
        assert client.get("/envs/nowhere").status_code == 404  # unknown stays unknown


def test_an_environment_whose_seed_cannot_be_built_is_tried_once_then_listed_as_invalid(
    make_server: Callable[..., LiveServer], tmp_path: Path
) -> None:
    """Its files validate, but building its seed database fails (here a CHECK refuses the last of many
    costly rows; a build past its time limit fails the same way): the first episode pays for the
    build once, every later request is a 409 ``env_invalid`` at once, and the listing says why."""
    catalog = tmp_path / "catalog"
    shutil.copytree(paths.BUILTIN_CATALOG / "clinic", catalog / "clinic")
    write_lab_catalog(catalog)
    spec = copy.deepcopy(LAB_SPEC)
    spec["id"], spec["name"] = "unbuildable", "Unbuildable"
    costly = "length(replace(printf('%.*c', 100000 + n, 'x'), 'x', 'y')) > 0 AND n < 40"
    spec["tables"][0]["columns"].append({"name": "n", "type": "integer", "check": costly})
    folder = catalog / "unbuildable"
    folder.mkdir()
    (folder / paths.SPEC_FILE).write_text(json.dumps(spec), encoding="utf-8")
    rows = [{"thing_id": f"T{i:04d}", "label": "x", "n": i} for i in range(41)]
    (folder / "seed.json").write_text(json.dumps({"things": rows}), encoding="utf-8")
    (folder / "policy.md").write_text("# Unbuildable\n", encoding="utf-8")
    (folder / paths.TASKS_FILE).write_text("[]", encoding="utf-8")
    server = make_server(catalog=catalog)
    with server.http() as client:
        assert "unbuildable" in [e["id"] for e in client.get("/envs", params={"limit": 500}).json()["items"]]
        for _ in range(3):
            response = client.post("/episodes", json={"env_id": "unbuildable"})
            assert response.status_code == 409, response.text
            error = response.json()["error"]
            assert error["code"] == "env_invalid" and error["field"] == "env_id"
            assert "unbuildable/seed.json: at seed.things[40]: row cannot be inserted" in error["message"]
        assert client.get("/envs/unbuildable").json()["error"]["code"] == "env_invalid"
        listing = client.get("/envs", params={"limit": 500}).json()
        assert "unbuildable" not in [e["id"] for e in listing["items"]]
        assert [s["id"] for s in listing["skipped"]] == ["unbuildable"]
        assert listing["skipped"][0]["reason"].startswith("unbuildable/seed.json: at seed.things[40]: ")
        assert client.post("/episodes", json={"env_id": "lab"}).status_code == 201  # the others are served
    assert server.metric("envfarm_environment_builds_total", env="unbuildable", outcome="failed") == 1
    assert server.metric("envfarm_environment_builds_total", env="unbuildable", outcome="built") == 0
