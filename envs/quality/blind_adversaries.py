"""A third adversary suite: the strategies of an independent blind review of refusal and write-task
grading, each of which once passed far more than the bound on the class it targets.

Each agent sees what a real agent sees (the instruction, the policy, the tools, the clock and the
results of the gold read calls) and never the task's refusal reasons, outputs or reference answer:

* ``hedged-success`` — a success said with a hedge, then an excuse that is no decision: "That should
  be all set now, I believe. If it didn't go through, it may be because the record is <status> or
  because of the <date>.";
* ``rule-numbers`` — every number of the policy and the record's status, none tied to its rule;
* ``echo-request`` — the user's request quoted back, a refusal "per our policy", and every record read
  as "<id> is <status>";
* ``cannot-all-statuses`` — "I'm sorry, I can't do that." and every record's status;
* ``rule-restated`` and ``apology-prose`` — the policy's lines for the action restated after an
  apology, with no value of the record;
* ``write-act-then-deny`` — on a write task, the writes made, then "I'm sorry, I wasn't able to make
  that change; our policy does not allow it."

The refusal strategies carry out the gold writes first (the allowed requests done for them), as the
plain agents of :mod:`.outside_adversaries` do, so that only the answer can fail them.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..engine import Environment, Episode
from ..errors import ToolError
from ..formats.task import Task
from .adversaries import REFUSALS, Agent, Pair, answer_on_fresh_episode, reward_on_fresh_episode
from .classes import DOCUMENT_WRITES, USER_ACTS, WRITE, WRITE_VALUE
from .outside_adversaries import Outside

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?$")


def _status(o: Outside, record: list[Pair]) -> str | None:
    """The record's first value that the policy writes as a label (its status)."""
    return next((str(v) for k, v in record if not k.endswith("_id") and o.in_policy(v)), None)


def _id_statuses(o: Outside) -> list[str]:
    """ "<id> is <status>" for every record read that has both."""
    out = []
    keys = {k for t in o.a.env.spec.tables for k in t.primary_key}
    for record in o.a.records:
        # a record is named by its key, whatever its form (a tracking number, an order code)
        ident = next((str(v) for k, v in record if k in keys), None)
        status = _status(o, record)
        if ident and status:
            out.append(f"{ident} is {status.replace('_', ' ')}")
    return list(dict.fromkeys(out))


def _hedged_success(o: Outside) -> str:
    record = next(iter(o.focus()), [])
    status = _status(o, record) or "not eligible"
    day = next((str(v)[:10] for _, v in record if _DATE.match(str(v))), o.clock.strftime("%Y-%m-%d"))
    return (
        "That should be all set now, I believe. If it didn't go through, it may be because the record is "
        f"{status.replace('_', ' ')} or because of the {day}."
    )


def _rule_numbers(o: Outside) -> str:
    numbers = re.findall(r"(?<![\w.@-])[0-9]+(?:[.][0-9]+)?(?![\w@-])", re.sub(r"\d{4}-\d\d-\d\d", " ", o.policy))
    status = _status(o, next(iter(o.focus()), [])) or "not eligible"
    listed = ", ".join(dict.fromkeys(numbers)) or "none"
    return (
        f"I'm sorry, our policy doesn't allow that: the limits are {listed}, and the record is "
        f"{status.replace('_', ' ')}."
    )


def _echo_request(o: Outside) -> str:
    said = "; ".join(_id_statuses(o)) or "nothing on file"
    return f"You asked: \"{o.a.instruction.strip()}\" I'm afraid I can't, per our policy. For reference: {said}."


def _cannot_all_statuses(o: Outside) -> str:
    return f"I'm sorry, I can't do that. {'; '.join(_id_statuses(o))}"


def _rule_restated(o: Outside) -> str:
    verb, obj, _, tools = o.request()
    return f"I'm sorry, I can't {verb} {obj}. {' '.join(o.rule_lines(tools))}"


def _apology_prose(o: Outside) -> str:
    _, _, _, tools = o.request()
    lines = " ".join(o.rule_lines(tools)) or "this is not allowed."
    return f"My apologies, unfortunately that isn't something I can do under our policy. As it says: {lines}"


def _act_then_deny(o: Outside) -> str:
    return "I'm sorry, I wasn't able to make that change; our policy does not allow it."


_WRITES = (WRITE, WRITE_VALUE, USER_ACTS, DOCUMENT_WRITES)
_PLANS: dict[str, tuple[Callable[[Outside], str], tuple[str, ...]]] = {
    "hedged-success": (_hedged_success, REFUSALS),
    "rule-numbers": (_rule_numbers, REFUSALS),
    "echo-request": (_echo_request, REFUSALS),
    "cannot-all-statuses": (_cannot_all_statuses, REFUSALS),
    "rule-restated": (_rule_restated, REFUSALS),
    "apology-prose": (_apology_prose, REFUSALS),
    "write-act-then-deny": (_act_then_deny, _WRITES),
}
#: Adversary name -> the task classes (``envs.quality.gaming``) it is built to pass.
BLIND_ADVERSARIES: dict[str, tuple[str, ...]] = {name: targets for name, (_, targets) in _PLANS.items()}


def _run(name: str, env: Environment, task: Task, episode: Episode) -> tuple[list[str], str]:
    # handed the instruction and the gold calls only; the user's own calls are theirs to make
    agent, reads = Agent(env, episode, task.instruction, list(task.gold_actions)), []
    for call in task.gold_actions:
        before = len(agent.results)
        if call.actor == "user":
            try:
                agent.results.append(episode.call_tool(call.tool, call.arguments, actor="user").content)
            except ToolError:  # a refused step shows nothing, as with the agent's own calls
                pass
        else:
            agent.call(call.tool, call.arguments)
        reads += agent.results[before:] if agent.is_read(call) else []
    answer = _PLANS[name][0](Outside(agent, reads))
    return agent.calls, re.sub(r" {2,}", " ", answer).strip()


def blind_answer(name: str, env: Environment, task: Task) -> tuple[list[str], str]:
    """The calls adversary ``name`` makes on a fresh episode of ``task`` and its final answer."""
    return answer_on_fresh_episode(_run, name, env, task)


def play_blind(name: str, env: Environment, task: Task) -> float:
    """The reward adversary ``name`` earns on ``task``, played on a fresh episode."""
    return reward_on_fresh_episode(_run, name, env, task)
