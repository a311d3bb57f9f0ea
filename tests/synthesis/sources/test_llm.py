"""The LLM backend end to end: the real ``openai`` SDK against a fake OpenAI-compatible server on loopback."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from synthesis.sources.llm import ClientConfig, LLMError, domains_from_topics, synthesize_domain, write_task_texts
from synthesis.sources.mining import Topic

from ..domains import library_dict, transition
from ..fake_llm import FakeLLM, Reply

TOPIC = Topic(
    name="Library loans", sector="education", examples=["Renew my library loan"], keywords=["library", "loan"]
)


@pytest.fixture
def llm():
    server = FakeLLM().start()
    yield server
    server.stop()


@pytest.fixture
def config(llm, monkeypatch):
    monkeypatch.setenv("FAKE_LLM_KEY", "sk-test")
    return ClientConfig(base_url=llm.base_url, model="fake-model", api_key_env="FAKE_LLM_KEY", backoff=0.01)


def answer(**changes) -> str:
    data = library_dict()
    data.update(changes)
    return json.dumps(data)


def kinds(result) -> list[str | None]:
    return [a.error for a in result.attempts]


def last_user_message(request) -> str:
    return request["messages"][-1]["content"]


def test_valid_answer_is_accepted_and_the_prompt_carries_schema_example_and_topic(llm, config):
    llm.script(answer(id="city_library"))
    result = synthesize_domain(TOPIC, config)
    assert result.accepted and result.domain is not None and result.domain.id == "city_library"
    assert kinds(result) == [None] and result.rejected_reason is None and result.api_errors == 0
    [request] = llm.requests
    assert request["model"] == "fake-model" and request["response_format"] == {"type": "json_object"}
    system, user = request["messages"]
    assert system["role"] == "system" and "via:<ref>.<field>" in system["content"]
    assert '"$defs"' in user["content"] and '"library_loans"' in user["content"]  # schema and worked example
    assert "Topic: Library loans" in user["content"] and "- Renew my library loan" in user["content"]


def test_invalid_json_is_repaired_on_retry_with_the_error_fed_back(llm, config):
    bad = '{"id": "city_library", "entities": ['
    llm.script(bad, answer(id="city_library"))
    result = synthesize_domain(TOPIC, config)
    assert result.accepted and kinds(result) == ["invalid_json", None]
    assert [a.number for a in result.attempts] == [1, 2]
    second = llm.requests[1]["messages"]
    assert second[-2] == {"role": "assistant", "content": bad}
    assert second[-1]["role"] == "user"
    assert "rejected (invalid_json)" in second[-1]["content"] and "not valid JSON" in second[-1]["content"]
    assert result.attempts[0].message in second[-1]["content"]


def test_schema_violation_is_repaired_on_retry(llm, config):
    data = library_dict()
    data["entities"][1]["attributes"][4]["values"] = None  # an enum without values
    llm.script("```json\n" + json.dumps(data) + "\n```", answer())
    result = synthesize_domain(TOPIC, config)
    assert result.accepted and kinds(result) == ["schema", None]
    assert "needs 'values'" in result.attempts[0].message
    assert "needs 'values'" in last_user_message(llm.requests[1])


def test_retries_exhausted_gives_a_recorded_rejection(llm, config):
    broken_env = library_dict()  # validates as a Domain, but its generated tool updates a missing column
    transition(broken_env, "loan", "return")["effects"].append({"kind": "set", "target": "field:nope", "value": 1})
    ungenerable = library_dict()  # validates, but the generator cannot express it
    ungenerable["entities"][2]["create"]["inputs"] = ["nope"]
    llm.script("not json at all", json.dumps(ungenerable), json.dumps(broken_env), json.dumps([1, 2]))
    result = synthesize_domain(TOPIC, config)  # retries=3: four answers, all wrong
    assert result.domain is None and not result.accepted
    assert kinds(result) == ["invalid_json", "generation", "check", "invalid_json"]
    assert "input 'nope' is not an attribute" in result.attempts[1].message
    assert "no such column: nope" in result.attempts[2].message
    assert result.rejected_reason is not None and result.rejected_reason.startswith("no valid domain after 4 answer(s)")
    assert len(llm.requests) == 4 and not llm.replies
    assert "no such column: nope" in last_user_message(llm.requests[3])


def test_server_error_is_retried_with_backoff_and_counted(llm, config):
    llm.script(Reply(status=500, error="overloaded"), Reply(status=429, error="slow down"), answer())
    result = synthesize_domain(TOPIC, config)
    assert result.accepted and kinds(result) == ["api", "api", None] and result.api_errors == 2
    assert "overloaded" in result.attempts[0].message and "slow down" in result.attempts[1].message
    assert len(llm.requests) == 3 and llm.requests[0] == llm.requests[2]  # the same request, resent


def test_api_failures_that_persist_or_cannot_succeed_are_rejections_not_crashes(llm, config):
    llm.script(*[Reply(status=503)] * 4)
    result = synthesize_domain(TOPIC, config)  # api_retries=3: four requests
    assert result.domain is None and kinds(result) == ["api"] * 4
    assert result.rejected_reason is not None and result.rejected_reason.startswith("api: InternalServerError")
    llm.script(Reply(status=401, error="bad key"))
    result = synthesize_domain(TOPIC, config)
    assert result.domain is None and kinds(result) == ["api"] and "bad key" in (result.rejected_reason or "")


def test_server_rejecting_response_format_is_asked_again_without_it(config):
    server = FakeLLM(reject_response_format=True).start()
    try:
        server.script(answer())
        result = synthesize_domain(TOPIC, replace(config, base_url=server.base_url))
    finally:
        server.stop()
    assert result.accepted and kinds(result) == ["api", None]
    assert "response_format" in server.requests[0] and "response_format" not in server.requests[1]


def test_domains_from_topics_and_missing_key(llm, config, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    other = Topic(name="Library fines", sector="education", examples=["Pay my library fine"])
    llm.script(answer(), "[]", "[]", "[]", "[]", answer())
    domains = domains_from_topics([TOPIC, other, TOPIC], base_url=llm.base_url, model="m")
    assert [d.id for d in domains] == ["library_loans", "library_loans_2"]
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(LLMError, match="OPENAI_API_KEY is not set"):
        synthesize_domain(TOPIC, ClientConfig(base_url=llm.base_url, model="m"))


def test_write_task_texts_rephrases_with_the_facts(llm, config):
    llm.script("  Hi, I'm ann@example.com and I'd like to renew loan L-1.  ")
    text = write_task_texts("Renew loan L-1.", {"email": "ann@example.com"}, config, persona="a busy student")
    assert text == "Hi, I'm ann@example.com and I'd like to renew loan L-1."
    [request] = llm.requests
    prompt = last_user_message(request)
    assert "ann@example.com" in prompt and "Renew loan L-1." in prompt and "a busy student" in prompt
    assert "response_format" not in request


def test_pipeline_keeps_llm_rewrites_only_when_every_fact_survives(llm, config, tmp_path):
    from synthesis.catalog.pipeline import SynthesisConfig, synthesize_one
    from synthesis.tasks.rewrite import facts_of

    from ..domains import library

    def rewrite(request) -> str:  # keeps the facts for even-numbered requests, drops them otherwise
        prompt = request["messages"][-1]["content"]
        original = prompt.split("Request: ", 1)[1].split("\nFacts:", 1)[0]
        facts = facts_of(original)
        if rewrite.count % 2 == 0 or not facts:  # a text without facts has none to lose
            text = "Hello! " + " ".join(facts) + " — that is everything you need for my request."
            rewrite.kept += 1
        else:
            text = "Hello, please help me with my account."
        rewrite.count += 1
        return text

    rewrite.count = rewrite.kept = 0
    llm.script(*[Reply(content=rewrite) for _ in range(8)])
    out = synthesize_one(library(), 0, SynthesisConfig(out=tmp_path, tasks_per_env=6, llm=config))
    assert out.status == "accepted", out.reason
    kept, rejected = out.task_rejections["llm_rewrite_kept"], out.task_rejections["llm_rewrite_rejected"]
    assert kept == rewrite.kept and rejected == rewrite.count - rewrite.kept and rejected >= 2
    tasks = json.loads((tmp_path / "library_loans" / "tasks.json").read_text())
    assert sum(t["instruction"].startswith("Hello! ") for t in tasks) >= 3
    assert not any(t["instruction"] == "Hello, please help me with my account." for t in tasks)
