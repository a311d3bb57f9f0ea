"""``envfarm mcp`` over stdio with the real SDK client: one episode in a child process, scored on exit."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from envfarm.cli import main
from envs import Catalog
from envs.schemas.dialects import in_dialect

from .conftest import run

CATALOG = Catalog()
ROOT = Path(__file__).resolve().parents[2]
_SCRIPT = Path(sys.executable).with_name("envfarm")


def params(*args: str) -> StdioServerParameters:
    if _SCRIPT.exists():
        return StdioServerParameters(command=str(_SCRIPT), args=list(args), cwd=ROOT)
    return StdioServerParameters(command=sys.executable, args=["-m", "envfarm", *args], cwd=ROOT)


def exit_report(stderr: Path) -> dict:
    """The JSON line ``--score-on-exit`` printed on stderr (the last line that parses)."""
    for line in reversed(stderr.read_text().splitlines()):
        try:
            return json.loads(line)
        except ValueError:
            continue
    raise AssertionError(f"no score JSON on stderr: {stderr.read_text()!r}")


def test_stdio_episode_serves_tools_policy_prompt_and_scores_on_exit(tmp_path):
    entry, task = CATALOG.task("clinic-001")
    stderr = tmp_path / "stderr.txt"

    async def session():
        with stderr.open("w") as err:
            async with Client(
                stdio_client(params("mcp", "--task", task.id, "--score-on-exit"), errlog=err), mode="legacy"
            ) as c:
                tools = (await c.list_tools()).tools
                results = [await c.call_tool(a.tool, a.arguments) for a in task.gold_actions]
                bad = await c.call_tool("book_appointment", {"patient_id": "P0001", "slot_id": "S021", "reason": "x"})
                resources = (await c.list_resources()).resources
                policy = (await c.read_resource(resources[0].uri)).contents[0].text
                prompt = await c.get_prompt("instruction")
                return tools, results, bad, policy, prompt

    tools, results, bad, policy, prompt = run(session())
    assert [t.name for t in tools] == [t.name for t in entry.spec.tools]
    assert all(t.annotations.read_only_hint is (s.kind == "read") for t, s in zip(tools, entry.spec.tools, strict=True))
    assert not any(r.is_error for r in results)
    assert results[-1].structured_content["appointment_id"] == "A1001"
    assert bad.is_error and "S021" in bad.content[0].text  # the slot is taken now
    assert policy == entry.spec.policy
    assert prompt.messages[0].content.text == task.instruction

    report = exit_report(stderr)
    assert report["calls"] == len(task.gold_actions) + 1
    score = report["score"]
    assert score["task_id"] == task.id
    # The final state is exactly the gold one and every assertion holds. Stdio has no channel for the
    # agent's final answer, and no --answer-file was given, so the task's required outputs ("A1001",
    # "10:30", "20") are unmet: with outputs in the reward basis, the exact reward is 0 here.
    assert score["components"] == {"state": 1.0, "outputs": 0.0, "assertions": 1.0}
    assert score["diff"] == [] and score["unexpected_changes"] == 0
    assert score["achieved_changes"] == score["expected_changes"] > 0


def test_stdio_gold_actions_reach_reward_one_in_the_2026_era(tmp_path):
    # clinic-004 requires no stated outputs, so a stdio episode can earn the full reward.
    _, task = CATALOG.task("clinic-004")
    assert task.outputs == [] and task.gold_actions
    stderr = tmp_path / "stderr.txt"

    async def session():
        with stderr.open("w") as err:
            async with Client(
                stdio_client(params("mcp", "--task", task.id, "--score-on-exit"), errlog=err), mode="2026-07-28"
            ) as c:
                assert c.protocol_version == "2026-07-28"
                return [await c.call_tool(a.tool, a.arguments) for a in task.gold_actions]

    results = run(session())
    assert not any(r.is_error for r in results), [r.content for r in results]
    report = exit_report(stderr)
    assert report["calls"] == len(task.gold_actions)
    assert report["score"]["reward"] == 1.0 and report["score"]["partial_credit"] == 1.0


def test_stdio_answer_file_lets_required_outputs_count(tmp_path):
    # clinic-001 requires "A1001", "10:30" and "20" in the final answer; the user pastes it into a file.
    _, task = CATALOG.task("clinic-001")
    stderr, answer = tmp_path / "stderr.txt", tmp_path / "answer.txt"
    argv = ["mcp", "--task", task.id, "--score-on-exit", "--answer-file", str(answer)]

    async def session():
        with stderr.open("w") as err:
            async with Client(stdio_client(params(*argv), errlog=err), mode="2026-07-28") as c:
                results = [await c.call_tool(a.tool, a.arguments) for a in task.gold_actions]
                # written while the episode runs: it is read only when the client leaves
                answer.write_text("You're booked: A1001 on Wednesday at 10:30, with your copay of 20.")
                return results

    assert not any(r.is_error for r in run(session()))
    report = exit_report(stderr)
    assert report["answer_given"] is True
    assert report["score"]["components"] == {"state": 1.0, "outputs": 1.0, "assertions": 1.0}
    assert report["score"]["reward"] == 1.0


def test_stdio_free_play_has_no_score(tmp_path):
    stderr = tmp_path / "stderr.txt"

    async def session():
        with stderr.open("w") as err:
            async with Client(
                stdio_client(params("mcp", "--env", "retail", "--score-on-exit"), errlog=err), mode="legacy"
            ) as c:
                prompts = (await c.list_prompts()).prompts
                res = await c.call_tool("find_user_id_by_email", {"email": "nobody@example.com"})
                return prompts, res

    prompts, res = run(session())
    assert prompts == []
    assert res.is_error and "nobody@example.com" in res.content[0].text
    assert exit_report(stderr) == {"calls": 1, "answer_given": False, "score": None}


def test_stdio_lists_tools_in_the_dialect_asked_for(tmp_path):
    """``envfarm mcp --dialect strict``: the advertised schemas as they are, and calls in their shape
    (null for an optional parameter) work as in the default."""
    env = CATALOG.get("clinic").environment

    async def session():
        with (tmp_path / "stderr.txt").open("w") as err:
            async with Client(stdio_client(params("mcp", "--env", "clinic", "--dialect", "strict"), errlog=err)) as c:
                tools = (await c.list_tools()).tools
                slots = await c.call_tool("list_open_slots", {"provider_id": "PR01", "specialty": None, "date": None})
                return tools, slots

    tools, slots = run(session())
    assert [t.input_schema for t in tools] == [
        in_dialect(env.advertised_parameters(t.name), "strict") for t in env.spec.tools
    ]
    assert all(t.input_schema["additionalProperties"] is False for t in tools)
    assert not slots.is_error and json.loads(slots.content[0].text)


def test_stdio_refuses_an_unknown_dialect_in_one_line(capsys):
    assert main(["mcp", "--env", "clinic", "--dialect", "gemni"]) == 1  # before anything is served
    assert capsys.readouterr().err == (
        "error: --dialect: unknown schema dialect 'gemni'; choose one of default, strict, gemini. Did you mean 'gemini'?\n"
    )
