"""A catalog holding one environment that does not validate: the server serves the others, lists the
invalid one under ``skipped`` with the reason, and answers its routes with a clear 409."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from envs import paths

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
