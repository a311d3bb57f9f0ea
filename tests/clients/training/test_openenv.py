"""The OpenEnv environment end to end: OpenEnv's own app and WebSocket client, the real farm, the fake
OpenAI-compatible server as the policy (through the real ``openai`` SDK)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator

import httpx
import openai
import pytest
import uvicorn

from envfarm.embedded import free_port

from .conftest import need
from .policies import script_perfect, script_wrong

need("openenv")
from clients.training.openenv_env import (  # noqa: E402
    EnvfarmAction,
    EnvfarmClient,
    app_from_env,
    create_openenv_app,
)

PERFECT, WRONG = "clinic-001", "clinic-002"


@pytest.fixture
def openenv_url(farm_url: str) -> Iterator[str]:
    """An OpenEnv server (WebSockets on) for the test farm, in a thread."""
    port = free_port()
    app = create_openenv_app(farm_url, tasks=f"{PERFECT},{WRONG}", max_steps=8)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the OpenEnv server did not start"
        time.sleep(0.01)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=20)


def play(env: EnvfarmClient, llm, task_id: str) -> tuple[float | None, object]:
    """A chat-completions policy loop over the OpenEnv client: tool calls become steps, text is the answer."""
    first = env.reset(task_id=task_id).observation
    messages = [{"role": "system", "content": first.policy}, {"role": "user", "content": first.instruction}]
    chat = openai.OpenAI(base_url=llm.base_url, api_key="sk-test", max_retries=0)
    for _ in range(20):
        reply = chat.chat.completions.create(model="fake-model", messages=messages, tools=first.openai_tools())
        message = reply.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            result = env.step(EnvfarmAction(message=message.content or ""))
            assert result.done
            return result.reward, result.observation
        for call in message.tool_calls:
            step = env.step(EnvfarmAction(tool=call.function.name, arguments=json.loads(call.function.arguments)))
            assert not step.done and step.reward == 0.0
            messages.append({"role": "tool", "tool_call_id": call.id, "content": step.observation.content})
    raise AssertionError("the policy never answered")


def test_a_perfect_policy_earns_1_and_a_wrong_one_less(openenv_url, farm_url, llm):
    script_perfect(llm, PERFECT)
    script_wrong(llm, WRONG)
    with EnvfarmClient(base_url=openenv_url) as env:
        reward, last = play(env, llm, PERFECT)
        assert reward == 1.0 and last.partial_credit == 1.0
        state = env.state()
        assert state.task_id == PERFECT and state.done and state.step_count == 4
        reward, last = play(env, llm, WRONG)
        assert reward == 0.0 and last.partial_credit < 1.0
    ids = [state.episode_id, last.episode_id]
    statuses = {httpx.get(f"{farm_url}/episodes/{i}").json()["status"] for i in ids}
    assert statuses == {"closed"}


def test_observations_errors_truncation_and_closing_on_disconnect(openenv_url, farm_url):
    with EnvfarmClient(base_url=openenv_url) as env:
        first = env.reset(seed=1).observation  # a seed picks one of the served tasks
        assert first.task_id == WRONG and first.instruction and first.policy
        assert {"name", "description", "input_schema"} <= set(first.tools[0])
        assert first.openai_tools()[0]["type"] == "function"
        bad = env.step(EnvfarmAction(tool="no_such_tool", arguments={})).observation
        assert bad.is_error and bad.content.startswith("Error: ") and "no_such_tool" in bad.content
        ok = env.step(EnvfarmAction(tool="list_providers")).observation
        assert not ok.is_error and isinstance(ok.result, (list, dict)) and ok.content.startswith(("[", "{"))
        for _ in range(5):
            result = env.step(EnvfarmAction(tool="list_providers"))
        last = env.step(EnvfarmAction(tool="list_providers"))  # the 8th call: max_steps
        assert last.done and last.observation.truncated and last.reward == 0.0
        open_one = env.reset(task_id=PERFECT).observation.episode_id
        assert result.done is False
    # leaving the session closes its open episode
    deadline = time.monotonic() + 10
    while httpx.get(f"{farm_url}/episodes/{open_one}").json()["status"] != "closed":
        assert time.monotonic() < deadline, "the episode of a closed session stayed open"
        time.sleep(0.05)
    with pytest.raises(ValueError, match="either a tool call"):
        EnvfarmAction(tool="x", message="y")


def test_the_uvicorn_factory_is_configured_from_the_environment(farm_url, monkeypatch):
    monkeypatch.setenv("ENVFARM_SERVER", farm_url)
    monkeypatch.setenv("ENVFARM_OPENENV_MAX_STEPS", "3")
    app = app_from_env()
    assert {"/ws", "/reset", "/step", "/schema"} <= {getattr(r, "path", "") for r in app.routes}
