"""``new_id()`` is bounded per episode: past the limit a call that needs a new id is a typed tool error
and the episode is unchanged, and scoring an episode that made many ids never fails (it once did
after about 400,000, with "string or blob too big")."""

from __future__ import annotations

from typing import Any

import pytest

from envs.engine import Environment, tool_calls
from envs.engine import episode as episode_module
from envs.errors import IdLimitReached
from envs.grading.scoring import score_episode
from tests.envs.grading.test_scoring_ids import SPEC as ORDERS_SPEC
from tests.envs.grading.test_scoring_ids import TASK as ORDERS_TASK
from tests.envs.specs import params, shop_env, tool, with_tools

LIMIT = 5
COUNT = {"type": "integer", "minimum": 1}
MAKE_ORDERS = tool(
    "make_orders",
    parameters=params(n=COUNT),
    steps=[
        {
            "kind": "exec",
            "sql": "INSERT INTO orders (order_id, account_id, status, total, created_at) "
            "SELECT new_id('B'), 'U1', 'pending', 1, :now FROM "
            "(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < :n) SELECT x FROM c)",
        },
        {"kind": "return", "shape": "value", "sql": "SELECT count(*) FROM orders"},
    ],
)
PEEK_IDS = tool(
    "peek_ids",
    kind="read",
    parameters=params(n=COUNT),
    steps=[
        {
            "kind": "return",
            "shape": "value",
            "sql": "SELECT count(DISTINCT new_id('P')) FROM "
            "(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < :n) SELECT x FROM c)",
        }
    ],
)
LONG_PREFIX = tool(
    "long_prefix",
    steps=[
        {
            "kind": "exec",
            "sql": "INSERT INTO orders (order_id, account_id, status, total, created_at) "
            "VALUES (new_id(printf('%.*c', 65, 'x')), 'U1', 'pending', 1, :now)",
        }
    ],
)


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> Environment:
    monkeypatch.setattr(tool_calls, "MAX_IDS_PER_EPISODE", LIMIT)
    spec = with_tools(*ORDERS_SPEC["tools"][-3:], MAKE_ORDERS, PEEK_IDS, LONG_PREFIX)
    return shop_env(spec)


def _call(tool_name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool": tool_name, "arguments": arguments}


def test_past_the_limit_a_new_id_is_a_typed_tool_error_and_nothing_changes(env: Environment) -> None:
    episode = env.episode(ORDERS_TASK)
    for _ in range(LIMIT):
        episode.call_tool("place_order", {"account_id": "U1", "total": 1})
    before = episode.state_hash()
    with pytest.raises(IdLimitReached, match=f"this episode has created the most records it may: {LIMIT}"):
        episode.call_tool("place_order", {"account_id": "U1", "total": 1})
    assert episode.state_hash() == before
    episode.call_tool("add_item", {"order_id": "N1001", "item_id": "I9", "price": 1})  # no new id needed: fine
    score = score_episode(env, ORDERS_TASK, episode, "N1002")  # scoring is not refused either
    assert 0.0 <= score.reward <= 1.0


def test_one_statement_crossing_the_limit_is_undone_whole(env: Environment) -> None:
    episode = env.episode()
    before, seeded = episode.state_hash(), len(episode.dump("orders"))
    with pytest.raises(IdLimitReached, match="the most records it may"):
        episode.call_tool("make_orders", {"n": LIMIT + 1})
    assert episode.state_hash() == before
    assert episode.call_tool("make_orders", {"n": LIMIT}).content == seeded + LIMIT  # all it may make, at once


def test_ids_a_read_tool_made_are_given_back(env: Environment) -> None:
    episode = env.episode()
    for _ in range(3):
        assert episode.call_tool("peek_ids", {"n": LIMIT}).content == LIMIT  # undone with the read each time
    with pytest.raises(IdLimitReached):
        episode.call_tool("peek_ids", {"n": LIMIT + 1})
    episode.call_tool("make_orders", {"n": LIMIT})  # the failed read gave its ids back too


def test_a_prefix_too_long_is_refused_by_name(env: Environment) -> None:
    with pytest.raises(IdLimitReached, match=f"at most {tool_calls.MAX_ID_PREFIX_CHARS} characters"):
        env.episode().call_tool("long_prefix")


def test_ids_are_looked_up_in_batches_when_scoring(env: Environment, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(episode_module, "_IDS_PER_LOOKUP", 1)  # every id its own batch: the batches must add up
    episode = env.episode(ORDERS_TASK)
    episode.replay(
        [
            _call("place_order", account_id="U2", total=20),
            _call("place_order", account_id="U1", total=10),
            _call("add_item", order_id="N1002", item_id="I9", price=10),
        ]
    )
    assert episode.generated_ids() == {"N": {"N1001", "N1002"}}
    score = score_episode(env, ORDERS_TASK, episode, "Bob's order is N1001.")
    assert score.reward == 1.0 and score.renamed_ids == {"N1001": "N1002", "N1002": "N1001"}
