"""The REST task service over real HTTP: catalog browsing, episodes, errors, limits, expiry, ops."""

from __future__ import annotations

import time

from envs import Catalog
from envs.schemas.dialects import in_dialect

from .conftest import API_KEYS, KEY_A, KEY_ADMIN, KEY_B, farm_error, mcp_session, rpc, run

CATALOG = Catalog()
SECRET_FIELDS = {"gold_actions", "outputs", "assertions", "reward_basis"}


def error_of(r, status: int, request_id: object = None) -> dict:
    """The JSON error body of a response that must have ``status`` (see ``farm_error``)."""
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    if "jsonrpc" not in body:
        assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "field"}
    return farm_error(r, request_id)


# -- catalog -------------------------------------------------------------------------------------------


def test_envs_pagination_and_sector_filter(client):
    everything = client.get("/envs").json()
    assert everything["total"] == 2 and [e["id"] for e in everything["items"]] == ["clinic", "retail"]
    clinic = everything["items"][0]
    assert clinic["sector"] == "healthcare"
    assert clinic["tools"] == len(CATALOG.get("clinic").spec.tools)
    assert clinic["tasks"] == len(CATALOG.get("clinic").tasks)

    first = client.get("/envs", params={"limit": 1}).json()
    second = client.get("/envs", params={"limit": 1, "offset": 1}).json()
    past = client.get("/envs", params={"limit": 1, "offset": 5}).json()
    assert (first["total"], first["limit"], first["offset"]) == (2, 1, 0)
    assert [e["id"] for e in first["items"]] == ["clinic"]
    assert [e["id"] for e in second["items"]] == ["retail"] and second["offset"] == 1
    assert past["items"] == [] and past["total"] == 2

    health = client.get("/envs", params={"sector": "healthcare"}).json()
    assert health["total"] == 1 and [e["id"] for e in health["items"]] == ["clinic"]
    assert client.get("/envs", params={"sector": "mining"}).json() == {
        "total": 0,
        "limit": 50,
        "offset": 0,
        "items": [],
        "skipped": [],  # every environment of the catalog validates
    }

    err = error_of(client.get("/envs", params={"limit": 0}), 422)
    assert err["field"] == "limit"
    assert error_of(client.get("/envs", params={"limit": 501}), 422)["field"] == "limit"
    assert error_of(client.get("/envs", params={"offset": -1}), 422)["field"] == "offset"


def test_env_detail(client):
    spec = CATALOG.get("retail").spec
    detail = client.get("/envs/retail").json()
    assert detail["id"] == "retail" and detail["policy"] == spec.policy
    assert [t["name"] for t in detail["tool_list"]] == [t.name for t in spec.tools]
    assert {t["name"]: t["kind"] for t in detail["tool_list"]} == {t.name: t.kind for t in spec.tools}
    env = CATALOG.get("retail").environment
    assert detail["tool_list"][0]["input_schema"] == in_dialect(
        env.advertised_parameters(spec.tools[0].name), "default"
    )
    assert [t["output_schema"] for t in detail["tool_list"]] == [env.output_schema(t.name) for t in spec.tools]
    assert {t["name"] for t in detail["tables"]} == {t.name for t in spec.tables}
    assert detail["write_tools"] == sum(t.kind == "write" for t in spec.tools)

    err = error_of(client.get("/envs/retial"), 404)
    assert err["code"] == "env_not_found" and "Did you mean 'retail'" in err["message"]


def test_env_tasks_difficulty_filter(client):
    tasks = CATALOG.get("clinic").tasks
    for difficulty in ("easy", "medium", "hard"):
        page = client.get("/envs/clinic/tasks", params={"difficulty": difficulty}).json()
        expected = [t.id for t in tasks if t.difficulty == difficulty]
        assert expected, difficulty
        assert page["total"] == len(expected) and [t["id"] for t in page["items"]] == expected
        assert all(t["difficulty"] == difficulty for t in page["items"])
    everything = client.get("/envs/clinic/tasks").json()
    assert everything["total"] == len(tasks)
    paged = client.get("/envs/clinic/tasks", params={"limit": 3, "offset": 3}).json()
    assert [t["id"] for t in paged["items"]] == [t.id for t in tasks[3:6]]
    err = error_of(client.get("/envs/clinic/tasks", params={"difficulty": "brutal"}), 422)
    assert err["field"] == "difficulty" and "brutal" in err["message"]
    assert error_of(client.get("/envs/nope/tasks"), 404)["code"] == "env_not_found"
    across = client.get("/tasks", params={"sector": "retail", "difficulty": "easy"}).json()
    assert {t["id"] for t in across["items"]} == {t.id for t in CATALOG.get("retail").tasks if t.difficulty == "easy"}


def test_task_gold_is_only_for_admin_keys(keyed_server):
    _, task = CATALOG.task("clinic-001")
    with keyed_server.http(KEY_A) as tenant, keyed_server.http(KEY_ADMIN) as admin:
        public = tenant.get("/tasks/clinic-001").json()
        assert public["instruction"] == task.instruction and public["gold_calls"] == len(task.gold_actions)
        assert not SECRET_FIELDS & set(public)
        listed = tenant.get("/envs/clinic/tasks").json()["items"]
        assert all(not SECRET_FIELDS & set(t) for t in listed)

        full = admin.get("/tasks/clinic-001").json()
        assert full["gold_actions"] == [a.model_dump() for a in task.gold_actions]
        assert full["outputs"] == task.outputs
        assert [a["sql"] for a in full["assertions"]] == [a.sql for a in task.assertions]
        assert all(set(t) >= SECRET_FIELDS for t in admin.get("/envs/clinic/tasks").json()["items"])

        err = error_of(tenant.get("/tasks/clinic-01"), 404)
        assert err["code"] == "task_not_found" and "Did you mean" in err["message"] and "'clinic-001'" in err["message"]


def test_rest_needs_a_valid_key(keyed_server):
    with keyed_server.http() as anonymous, keyed_server.http("key-not-a-real-one-xx") as wrong:
        for c in (anonymous, wrong):
            err = error_of(c.get("/envs"), 401)
            assert err["code"] == "unauthorized" and err["field"] == "authorization"
            assert error_of(c.post("/episodes", json={"task_id": "clinic-001"}), 401)["code"] == "unauthorized"
        assert anonymous.get("/healthz").json()["status"] == "ok"  # liveness needs no key


# -- episodes ------------------------------------------------------------------------------------------


def test_create_episode_from_task_and_from_env(server, client):
    before = time.time()
    ep = client.post("/episodes", json={"task_id": "clinic-001"})
    assert ep.status_code == 201, ep.text
    ep = ep.json()
    entry, task = CATALOG.task("clinic-001")
    assert ep["env_id"] == "clinic" and ep["task_id"] == "clinic-001"
    assert ep["episode_id"].startswith("ep_") and len(ep["episode_id"]) >= 24
    assert ep["mcp_url"] == f"{server.base_url}/episodes/{ep['episode_id']}/mcp"
    assert ep["instruction"] == task.instruction and ep["policy"] == entry.spec.policy
    assert [t["name"] for t in ep["tools"]] == [t.name for t in entry.spec.tools]
    ttl = server.settings.episode_ttl_seconds
    assert before + ttl - 5 <= ep["expires_at"] <= time.time() + ttl + 5

    free = client.post("/episodes", json={"env_id": "retail"}).json()
    assert free["task_id"] is None and free["instruction"] is None and free["env_id"] == "retail"
    assert len(free["tools"]) == len(CATALOG.get("retail").spec.tools)

    ids = {ep["episode_id"], free["episode_id"]}
    ids |= {client.post("/episodes", json={"env_id": "clinic"}).json()["episode_id"] for _ in range(5)}
    assert len(ids) == 7  # unguessable ids are at least never reused

    status = client.get(f"/episodes/{ep['episode_id']}").json()
    assert status["status"] == "open" and status["calls"] == 0 and status["log"] == []


def test_calls_are_logged_with_timing_and_transport(client):
    ep = client.post("/episodes", json={"task_id": "clinic-001"}).json()
    eid = ep["episode_id"]
    ok = client.post(f"/episodes/{eid}/calls", json={"tool": "list_providers", "arguments": {}})
    assert ok.status_code == 200
    ok = ok.json()
    assert ok["seq"] == 1 and ok["is_error"] is False and ok["content"][0]["provider_id"] == "PR01"
    assert ok["duration_ms"] > 0

    failed = client.post(
        f"/episodes/{eid}/calls",
        json={"tool": "book_appointment", "arguments": {"patient_id": "P0001", "slot_id": "S999", "reason": "x"}},
    )
    assert failed.status_code == 200
    assert failed.json() | {"duration_ms": 0} == {
        "seq": 2,
        "is_error": True,
        "content": None,
        "error_type": "StateError",
        "message": "Slot S999 not found",
        "duration_ms": 0,
    }
    booked = client.post(
        f"/episodes/{eid}/calls",
        json={"tool": "book_appointment", "arguments": {"patient_id": "P0001", "slot_id": "S021", "reason": "x"}},
    ).json()
    assert not booked["is_error"] and booked["content"]["appointment_id"] == "A1001"

    async def over_mcp():
        async with mcp_session(ep["mcp_url"], "legacy") as c:
            return await c.call_tool("get_patient_appointments", {"patient_id": "P0001"})

    assert "A1001" in run(over_mcp()).content[0].text

    status = client.get(f"/episodes/{eid}").json()
    assert status["calls"] == 4
    log = status["log"]
    assert [(c["seq"], c["tool"], c["kind"], c["is_error"], c["transport"]) for c in log] == [
        (1, "list_providers", "read", False, "rest"),
        (2, "book_appointment", "write", True, "rest"),
        (3, "book_appointment", "write", False, "rest"),
        (4, "get_patient_appointments", "read", False, "mcp"),
    ]
    assert all(c["duration_ms"] > 0 for c in log)
    assert [c["started_at"] for c in log] == sorted(c["started_at"] for c in log)
    assert log[1]["error_type"] == "StateError" and log[1]["result"] == "Slot S999 not found"
    assert log[2]["arguments"] == {"patient_id": "P0001", "slot_id": "S021", "reason": "x"}
    assert log[2]["result"]["appointment_id"] == "A1001"
    assert status["last_active_at"] == log[-1]["started_at"]
    assert client.get(f"/episodes/{eid}", params={"log": "false"}).json()["log"] is None


def test_score_free_play_is_a_conflict(client):
    free = client.post("/episodes", json={"env_id": "clinic"}).json()
    err = error_of(client.post(f"/episodes/{free['episode_id']}/score"), 409)
    assert err["code"] == "episode_has_no_task" and "free play" in err["message"]


def test_closed_episode_refuses_calls_but_keeps_its_log(client):
    ep = client.post("/episodes", json={"task_id": "clinic-001"}).json()
    eid = ep["episode_id"]
    client.post(f"/episodes/{eid}/calls", json={"tool": "list_providers"})
    closed = client.delete(f"/episodes/{eid}")
    assert closed.status_code == 200 and closed.json()["status"] == "closed"
    err = error_of(client.post(f"/episodes/{eid}/calls", json={"tool": "list_providers"}), 410)
    assert err["code"] == "episode_ended" and "closed" in err["message"]
    assert error_of(client.post(f"/episodes/{eid}/score"), 410)["code"] == "episode_ended"
    mcp = rpc(ep["mcp_url"], "tools/list")  # over MCP the same refusal, answered by MCP (test_mcp_gone.py)
    assert error_of(mcp, 200, request_id=1)["code"] == "episode_ended"
    status = client.get(f"/episodes/{eid}").json()
    assert status["status"] == "closed" and [c["tool"] for c in status["log"]] == ["list_providers"]
    assert client.delete(f"/episodes/{eid}").json()["status"] == "closed"  # idempotent


# -- errors --------------------------------------------------------------------------------------------


def test_bad_input_gets_json_errors_never_500(client):
    err = error_of(client.post("/episodes", json={"task_id": "clinic-01"}), 404)
    assert err["code"] == "task_not_found" and err["field"] == "task_id"
    assert "Did you mean 'clinic-001'" in err["message"]
    assert error_of(client.post("/episodes", json={"env_id": "retial"}), 404)["code"] == "env_not_found"

    err = error_of(client.post("/episodes", json={"task_id": 5}), 422)
    assert err["code"] == "invalid_request" and err["field"] == "task_id"
    err = error_of(client.post("/episodes", json={"task": "clinic-001"}), 422)
    assert err["field"] == "task" and "Extra inputs" in err["message"]
    err = error_of(client.post("/episodes", json={}), 400)
    assert err["field"] == "task_id"
    err = error_of(client.post("/episodes", json={"task_id": "clinic-001", "env_id": "retail"}), 409)
    assert err["field"] == "env_id" and "belongs to env 'clinic'" in err["message"] and err["code"] == "conflict"
    bad_json = client.post("/episodes", content=b"{not json", headers={"content-type": "application/json"})
    err = error_of(bad_json, 422)
    assert err["code"] == "invalid_json" and err["field"] == "body" and "invalid JSON" in err["message"]

    eid = client.post("/episodes", json={"env_id": "clinic"}).json()["episode_id"]
    err = error_of(client.post(f"/episodes/{eid}/calls", json={"tool": "list_providers", "arguments": [1]}), 422)
    assert err["field"] == "arguments"
    assert error_of(client.post(f"/episodes/{eid}/calls", json={"tool": ""}), 422)["field"] == "tool"
    assert error_of(client.post(f"/episodes/{eid}/calls", json={}), 422)["field"] == "tool"
    err = error_of(client.post(f"/episodes/{eid}/score", json={"answer": 5}), 422)
    assert err["field"] == "answer"
    assert error_of(client.get("/episodes/ep_doesnotexist"), 404)["code"] == "episode_not_found"
    assert error_of(client.post("/episodes/ep_doesnotexist/calls", json={"tool": "x"}), 404)["field"] == "episode_id"
    assert error_of(client.get("/no/such/route"), 404)["code"] == "not_found"
    assert error_of(client.put("/envs"), 405)["code"] == "method_not_allowed"


def test_body_over_the_limit_is_413(make_server):
    srv = make_server(max_body_bytes=4096)
    with srv.http() as client:
        eid = client.post("/episodes", json={"env_id": "clinic"}).json()["episode_id"]
        big = {"tool": "list_providers", "arguments": {"specialty": "x" * 10_000}}
        err = error_of(client.post(f"/episodes/{eid}/calls", json=big), 413)
        assert err["code"] == "body_too_large" and err["field"] == "body"

        def chunks():  # no Content-Length: the limit must hold while the body streams in
            for _ in range(10):
                yield b" " * 1000

        streamed = client.post(f"/episodes/{eid}/calls", content=chunks(), headers={"content-type": "application/json"})
        assert error_of(streamed, 413)["code"] == "body_too_large"
        streamed_mcp = client.post(
            f"/episodes/{eid}/mcp",
            content=chunks(),
            headers={"content-type": "application/json", "accept": "application/json, text/event-stream"},
        )
        assert error_of(streamed_mcp, 413)["code"] == "body_too_large"
        assert client.get(f"/episodes/{eid}").json()["calls"] == 0


# -- limits and expiry ---------------------------------------------------------------------------------


def test_open_episodes_per_tenant_are_limited(make_server):
    srv = make_server(max_live_episodes_per_tenant=2)
    with srv.http() as client:
        first = client.post("/episodes", json={"env_id": "clinic"}).json()["episode_id"]
        assert client.post("/episodes", json={"env_id": "retail"}).status_code == 201
        err = error_of(client.post("/episodes", json={"task_id": "clinic-001"}), 429)
        assert (
            err["code"] == "limit_exceeded"
            and "limit 2" in err["message"]
            and "GET /episodes?status=open" in err["message"]
        )
        client.delete(f"/episodes/{first}")
        assert client.post("/episodes", json={"task_id": "clinic-001"}).status_code == 201


def test_calls_per_episode_are_limited(make_server):
    srv = make_server(max_calls_per_episode=3)
    with srv.http() as client:
        ep = client.post("/episodes", json={"task_id": "clinic-001"}).json()
        eid = ep["episode_id"]
        for _ in range(2):
            assert client.post(f"/episodes/{eid}/calls", json={"tool": "list_providers"}).status_code == 200
        assert client.post(f"/episodes/{eid}/calls", json={"tool": "nope"}).json()["is_error"]  # errors count too
        err = error_of(client.post(f"/episodes/{eid}/calls", json={"tool": "list_providers"}), 429)
        assert err["code"] == "limit_exceeded" and "limit of 3 calls" in err["message"]

        async def over_mcp():
            async with mcp_session(ep["mcp_url"], "2026-07-28") as c:
                return await c.call_tool("list_providers", {})

        res = run(over_mcp())  # an agent sees the limit as a tool error it can read
        assert res.is_error and "limit of 3 calls" in res.content[0].text
        assert client.get(f"/episodes/{eid}").json()["calls"] == 3


def test_idle_episodes_expire_and_keep_their_log(make_server):
    srv = make_server(episode_ttl_seconds=0.5)
    with srv.http() as client:
        idle = client.post("/episodes", json={"task_id": "clinic-001"}).json()
        busy = client.post("/episodes", json={"task_id": "clinic-001"}).json()
        client.post(f"/episodes/{idle['episode_id']}/calls", json={"tool": "list_providers"})
        time.sleep(0.6)
        client.post(f"/episodes/{busy['episode_id']}/calls", json={"tool": "list_providers"})  # activity resets TTL
        expired, _ = srv.on_loop(srv.service.reap)
        assert expired == [idle["episode_id"]]

        eid = idle["episode_id"]
        status = client.get(f"/episodes/{eid}").json()
        assert status["status"] == "expired"
        assert [c["tool"] for c in status["log"]] == ["list_providers"]
        err = error_of(client.post(f"/episodes/{eid}/calls", json={"tool": "list_providers"}), 410)
        assert err["code"] == "episode_ended" and "expired" in err["message"]
        assert error_of(rpc(idle["mcp_url"], "tools/list"), 200, request_id=1)["code"] == "episode_ended"
        assert client.get(f"/episodes/{busy['episode_id']}").json()["status"] == "open"
        assert client.post(f"/episodes/{busy['episode_id']}/calls", json={"tool": "list_providers"}).status_code == 200
        metrics = client.get("/metrics").text
        assert "envfarm_episodes_live 1.0" in metrics


# -- ops -----------------------------------------------------------------------------------------------


def test_metrics(client):
    eid = client.post("/episodes", json={"task_id": "clinic-001"}).json()["episode_id"]
    client.post("/episodes", json={"env_id": "retail"})
    for tool in ("list_providers", "list_providers", "nope"):
        client.post(f"/episodes/{eid}/calls", json={"tool": tool})
    client.post(f"/episodes/{eid}/calls", json={"tool": "get_provider", "arguments": {"provider_id": "PR99"}})
    r = client.get("/metrics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    text = r.text
    assert 'envfarm_tool_calls_total{env="clinic",outcome="ok",tool="list_providers"} 2.0' in text
    assert 'envfarm_tool_calls_total{env="clinic",outcome="error",tool="(unknown)"} 1.0' in text
    assert 'envfarm_tool_calls_total{env="clinic",outcome="error",tool="get_provider"} 1.0' in text
    assert "envfarm_episodes_live 2.0" in text
    assert 'envfarm_episodes_created_total{env="clinic"} 1.0' in text
    assert 'envfarm_tool_call_seconds_count{env="clinic"} 4.0' in text


def test_healthz_and_openapi(client):
    health = client.get("/healthz").json()
    assert health["status"] == "ok" and health["store"] == "ok"
    assert health["envs"] == 2 and health["episodes_in_memory"] == 0
    paths = client.get("/openapi.json").json()["paths"]
    expected = {
        "/healthz": {"get"},
        "/metrics": {"get"},
        "/envs": {"get"},
        "/envs/{env_id}": {"get"},
        "/envs/{env_id}/tasks": {"get"},
        "/tasks/{task_id}": {"get"},
        "/episodes": {"post"},
        "/episodes/{episode_id}": {"get", "delete"},
        "/episodes/{episode_id}/calls": {"post"},
        "/episodes/{episode_id}/score": {"post"},
    }
    for path, methods in expected.items():
        assert path in paths, path
        assert methods <= set(paths[path]), (path, set(paths[path]))
    assert client.get("/docs").status_code == 200


def test_same_calls_give_the_same_results_in_every_episode(client):
    """Determinism seen from outside: ids and results do not depend on the episode or on other episodes."""
    book = {"patient_id": "P0001", "slot_id": "S021", "reason": "x"}
    results = []
    for _ in range(2):
        eid = client.post("/episodes", json={"task_id": "clinic-001"}).json()["episode_id"]
        calls = [
            ("list_providers", {}),
            ("book_appointment", book),
            ("get_patient_appointments", {"patient_id": "P0001"}),
        ]
        results.append(
            [
                client.post(f"/episodes/{eid}/calls", json={"tool": t, "arguments": a}).json()["content"]
                for t, a in calls
            ]
        )
    assert results[0] == results[1]
    assert results[0][1]["appointment_id"] == "A1001"


def test_metrics_need_an_admin_key_once_keys_are_configured(keyed_server, make_server):
    with keyed_server.http() as anonymous, keyed_server.http(KEY_A) as tenant, keyed_server.http(KEY_ADMIN) as admin:
        assert error_of(anonymous.get("/metrics"), 401)["field"] == "authorization"
        err = error_of(tenant.get("/metrics"), 403)
        assert err["code"] == "forbidden" and "ENVFARM_METRICS_PUBLIC" in err["message"]
        assert "envfarm_episodes_live" in admin.get("/metrics").text
    public = make_server(api_keys=API_KEYS, metrics_public=True)
    with public.http() as anonymous:
        assert "envfarm_episodes_live" in anonymous.get("/metrics").text


def test_openapi_documents_errors_keys_and_allowed_methods(server, keyed_server):
    with server.http() as local, keyed_server.http(KEY_A) as keyed:
        spec = local.get("/openapi.json").json()
        assert "securitySchemes" not in spec.get("components", {}) and "security" not in spec
        get_episode = spec["paths"]["/episodes/{episode_id}"]["get"]["responses"]
        assert get_episode["404"]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorResponse")
        assert get_episode["422"]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorResponse")
        assert "text/plain" in spec["paths"]["/metrics"]["get"]["responses"]["200"]["content"]

        with_keys = keyed.get("/openapi.json").json()
        assert with_keys["components"]["securitySchemes"]["apiKey"]["scheme"] == "bearer"
        assert with_keys["security"] == [{"apiKey": []}] and with_keys["paths"]["/healthz"]["get"]["security"] == []

        wrong_method = local.request("OPTIONS", "/episodes/ep_x")
        assert error_of(wrong_method, 405)["code"] == "method_not_allowed"
        assert wrong_method.headers["allow"] == "DELETE, GET, HEAD"
        not_utf8 = local.post("/episodes", content=b'{"task_id": "\xff"}', headers={"content-type": "application/json"})
        assert error_of(not_utf8, 422)["code"] == "invalid_json"


def test_episodes_are_listed_per_tenant_newest_first(keyed_server):
    with keyed_server.http(KEY_A) as a, keyed_server.http(KEY_B) as b:
        ids = [a.post("/episodes", json={"task_id": t}).json()["episode_id"] for t in ("clinic-001", "clinic-002")]
        ids.append(a.post("/episodes", json={"env_id": "retail"}).json()["episode_id"])
        a.post(f"/episodes/{ids[0]}/calls", json={"tool": "list_providers"})  # a read, still buffered
        a.delete(f"/episodes/{ids[1]}")
        b.post("/episodes", json={"task_id": "clinic-001"})

        listed = a.get("/episodes").json()
        assert listed["total"] == 3 and [e["episode_id"] for e in listed["items"]] == ids[::-1]
        assert listed["items"][-1]["calls"] == 1 and listed["items"][-1]["log"] is None
        assert [e["status"] for e in listed["items"]] == ["open", "closed", "open"]

        open_only = a.get("/episodes", params={"status": "open"}).json()
        assert open_only["total"] == 2 and [e["episode_id"] for e in open_only["items"]] == [ids[2], ids[0]]
        page = a.get("/episodes", params={"limit": 1, "offset": 1}).json()
        assert page["total"] == 3 and [e["episode_id"] for e in page["items"]] == [ids[1]]
        assert b.get("/episodes").json()["total"] == 1  # another tenant's episodes are not listed
        err = error_of(a.get("/episodes", params={"status": "gone"}), 422)
        assert err["field"] == "status" and "gone" in err["message"]
