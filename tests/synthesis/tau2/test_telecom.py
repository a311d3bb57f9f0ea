"""tau2-bench's telecom domain (dual control: the customer holds the phone) imported from tau2's own data and
checked against tau2's replay of each of the 20 tasks of ``tasks_small.json``: the initial state of both
sides, every gold action's result text (as its requestor), the final state of both sides, and each env
assertion's ``met``.

The data (../shared/tau2, or $ENVFARM_TAU2_DIR) is tau2-bench's, MIT-licensed, and is not part of this
repository; without it these tests are skipped and say so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from envs.catalog import CatalogEntry, load_env_dir
from envs.check import check_env
from envs.errors import StateError, UnknownTool
from envs.grading.scoring import score_episode
from synthesis.tau2 import Tau2ImportError, detect_domain, domain_folders, import_domain
from synthesis.tau2.telecom_fidelity import compare_telecom

from .reference import TAU2_DIR, needs_tau2

TELECOM = TAU2_DIR / "data" / "telecom"

#: Every tool tau2's telecom declares (``@is_tool``), with its parameters and the required ones.
AGENT_TOOLS = {
    "get_customer_by_phone": ["phone_number"],
    "get_customer_by_id": ["customer_id"],
    "get_customer_by_name": ["full_name", "dob"],
    "get_details_by_id": ["id"],
    "suspend_line": ["customer_id", "line_id", "reason"],
    "resume_line": ["customer_id", "line_id"],
    "get_bills_for_customer": ["customer_id", "limit?"],
    "send_payment_request": ["customer_id", "bill_id"],
    "get_data_usage": ["customer_id", "line_id"],
    "enable_roaming": ["customer_id", "line_id"],
    "disable_roaming": ["customer_id", "line_id"],
    "transfer_to_human_agents": ["summary"],
    "refuel_data": ["customer_id", "line_id", "gb_amount"],
}
_NO_PARAMETERS = (
    "check_status_bar",
    "check_network_status",
    "check_network_mode_preference",
    "run_speed_test",
    "toggle_airplane_mode",
    "check_sim_status",
    "reseat_sim_card",
    "toggle_data",
    "toggle_roaming",
    "check_data_restriction_status",
    "toggle_data_saver_mode",
    "check_apn_settings",
    "reset_apn_settings",
    "check_wifi_status",
    "toggle_wifi",
    "check_wifi_calling_status",
    "toggle_wifi_calling",
    "check_vpn_status",
    "connect_vpn",
    "disconnect_vpn",
    "check_installed_apps",
    "can_send_mms",
    "reboot_device",
    "check_payment_request",
    "make_payment",
)
USER_TOOLS: dict[str, list[str]] = {
    **{name: [] for name in _NO_PARAMETERS},
    "set_network_mode_preference": ["mode"],
    "set_apn_settings": ["apn_settings"],
    "check_app_status": ["app_name"],
    "check_app_permissions": ["app_name"],
    "grant_app_permission": ["app_name", "permission"],
}


def _expected() -> list[dict[str, Any]]:
    return [json.loads(line) for line in (TAU2_DIR / "expected" / "telecom.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def telecom(catalog: Path) -> CatalogEntry:
    return load_env_dir(catalog / "tau2_telecom")


@needs_tau2
def test_every_task_starts_acts_ends_and_is_checked_as_in_tau2(telecom: CatalogEntry) -> None:
    expected = _expected()
    report = compare_telecom(telecom.environment, telecom.tasks, expected)
    print(f"tau2 telecom: {report.summary()}")
    assert report.mismatches == []
    assert (report.tasks, report.tasks_equal, report.initial_states_equal) == (20, 20, 20)
    assert (report.actions, report.actions_equal) == (27, 27)
    assert (report.agent_states_equal, report.user_states_equal) == (20, 20)
    assert (report.assertions, report.assertions_equal) == (33, 33)
    # each task's gold is tau2's actions, each made by its requestor
    for task, record in zip(telecom.tasks, expected, strict=True):
        actors = [{"assistant": "agent", "user": "user"}[a["requestor"]] for a in record["actions"]]
        assert [(g.tool, g.arguments, g.actor) for g in task.gold_actions] == [
            (a["name"], a["arguments"], actor) for a, actor in zip(record["actions"], actors, strict=True)
        ]


@needs_tau2
def test_the_agent_path_is_followed_where_tau2s_gold_loop_skips_the_sync(telecom: CatalogEntry) -> None:
    """tau2's evaluator replays gold without syncing the carrier's facts onto the phone; the reference (and
    the import) follow the tool-call path an agent takes, which syncs after every call."""
    expected = {r["task_id"]: r for r in _expected()}
    skipped = sorted(tid for tid, r in expected.items() if not r["evaluator"]["db_match"])
    assert sorted(tid.split("]")[1].split("[")[0] for tid in skipped) == [
        "data_usage_exceeded",
        "overdue_bill_suspension",
        "user_abroad_roaming_disabled_off",
        "user_abroad_roaming_disabled_on",
    ]
    tasks = {t.tags[1].removeprefix("tau2-id:"): t for t in telecom.tasks}
    env = telecom.environment
    overdue = next(tid for tid in skipped if "overdue" in tid)
    episode = env.episode(tasks[overdue])
    for call in tasks[overdue].gold_actions:
        episode.call_tool(call.tool, call.arguments, actor=call.actor)
    # the payment reached the bill, the line's resumption the phone, and the reboot found service
    assert episode.query("SELECT status FROM bills WHERE bill_id = 'B1234321'") == [{"status": "Paid"}]
    assert episode.query("SELECT line_active, payment_request FROM surroundings") == [
        {"line_active": 1, "payment_request": None}
    ]
    assert episode.query("SELECT network_connection_status FROM phone") == [{"network_connection_status": "connected"}]


@needs_tau2
def test_checks_fail_before_the_fix_and_the_gold_scores_1(telecom: CatalogEntry) -> None:
    env = telecom.environment
    for task in telecom.tasks:
        before = env.episode(task)
        unmet = [c.description for c in task.assertions if not next(iter(before.query(c.sql)[0].values()))]
        if any(call.tool != "transfer_to_human_agents" for call in task.gold_actions):
            assert unmet, f"{task.id}: every check holds before the customer is helped"
        else:  # a locked SIM, an ended contract: nothing to fix here, the agent transfers
            assert not unmet, task.id
        for call in task.gold_actions:
            before.call_tool(call.tool, call.arguments, actor=call.actor)
        assert task.reward_basis == ["assertions"]
        assert score_episode(env, task, before).reward == 1.0, task.id
    report = check_env(telecom.spec, telecom.tasks)
    assert report.ok, report.problems


@needs_tau2
def test_every_tau2_tool_exists_with_its_name_parameters_and_actor(telecom: CatalogEntry) -> None:
    for actor, declared in (("agent", AGENT_TOOLS), ("user", USER_TOOLS)):
        tools = {t.name: t for t in telecom.spec.tools_of(actor)}
        assert sorted(tools) == sorted(declared)
        for name, params in declared.items():
            schema = tools[name].parameters
            assert list(schema["properties"]) == [p.rstrip("?") for p in params], name
            assert schema.get("required", []) == [p for p in params if not p.endswith("?")], name
    # the agent cannot see the phone's tools, nor the customer the carrier's
    episode = telecom.environment.episode()
    with pytest.raises(UnknownTool):
        episode.call_tool("toggle_airplane_mode", {})
    with pytest.raises(UnknownTool):
        episode.call_tool("resume_line", {"customer_id": "C1001", "line_id": "L1002"}, actor="user")
    assert telecom.spec.user_guide.startswith("You are a mobile phone customer")
    policy = (TELECOM / "main_policy.md").read_text()
    assert telecom.spec.policy.startswith(f"<main_policy>\n{policy}\n</main_policy>\n<tech_support_policy>\n")


@needs_tau2
def test_tools_off_the_gold_path_answer_as_tau2s_code_does(telecom: CatalogEntry) -> None:
    episode = telecom.environment.episode(telecom.tasks[6])  # bad_vpn: a slow VPN is connected

    def user(name: str, **args: Any) -> Any:
        return episode.call_tool(name, args, actor="user").content

    def agent(name: str, **args: Any) -> Any:
        return episode.call_tool(name, args).content

    assert user("run_speed_test") == (
        "Speed Test Result: 22.00 Mbps (Fair). Connection is okay for web browsing and some standard definition "
        "streaming."
    )
    assert user("check_vpn_status") == (
        "VPN is ON and connected. Details: {'server_address': '192.168.1.1', 'protocol': 'OpenVPN', "
        "'server_performance': <PerformanceLevel.POOR: 'poor'>}"
    )
    assert user("set_network_mode_preference", mode="5g") == (
        "Failed to set network mode: '5g' is not a valid option. Please use one of: 4g_5g_preferred, 4g_only, "
        "3g_only, 2g_only\nStatus Bar: 📶³ Good | 5G | 📱 Data Enabled | 🔒 VPN Connected | 🔋 80%"
    )
    assert user("grant_app_permission", app_name="messaging", permission="Camera").startswith(
        "Error. Permission 'camera' not tracked for app 'messaging', available permissions: "
        "['sms', 'storage', 'phone', 'network']\n"
    )
    assert user("toggle_airplane_mode") == "Airplane Mode is now ON.\nStatus Bar: ✈️ Airplane Mode | 🔋 80%"
    assert user("check_vpn_status") == "VPN is turned OFF."  # airplane mode disconnects it
    assert user("toggle_wifi").startswith("Cannot change Wi-Fi settings while Airplane Mode is ON.")
    # a VPN connected again gets the default details (tau2's set-up had changed its shared default: see
    # docs/tau2.md, "telecom: known differences")
    user("toggle_airplane_mode")
    assert user("connect_vpn").startswith("VPN connected successfully.\nStatus Bar: ")
    assert user("check_vpn_status").endswith("'server_performance': <PerformanceLevel.EXCELLENT: 'excellent'>}")
    assert user("connect_vpn") == "VPN already connected."
    # Python's slice: a negative limit leaves out that many of the oldest bills
    bills = [
        [b["bill_id"] for b in agent("get_bills_for_customer", customer_id="C1001", **limit)]
        for limit in ({}, {"limit": 1}, {"limit": -1}, {"limit": -5})
    ]
    assert bills == [["B1003", "B1002", "B1001"], ["B1003"], ["B1003", "B1002"], []]
    # tau2 turns float values of a dict result into text, and keeps them in a record it returns
    assert agent("get_data_usage", customer_id="C1001", line_id="L1002") == {
        "line_id": "L1002",
        "data_used_gb": "8.7",
        "data_limit_gb": "15.0",
        "data_refueling_gb": "0.0",
        "cycle_end_date": "2025-02-28",
    }
    assert agent("refuel_data", customer_id="C1002", line_id="L1004", gb_amount=1) == {
        "message": "Successfully added 1 GB of data for line L1004 for $0.10",
        "new_data_refueling_gb": "1.0",
        "charge": "0.1",
    }
    with pytest.raises(StateError, match=r"^Refuel amount must be positive$"):
        agent("refuel_data", customer_id="C1002", line_id="L1004", gb_amount=0)
    with pytest.raises(StateError, match=r"^Line L1009 not found for customer C1001$"):
        agent("disable_roaming", customer_id="C1001", line_id="L1009")
    with pytest.raises(StateError, match=r"^Unknown ID format or type: X1$"):
        agent("get_details_by_id", id="X1")
    assert agent("get_details_by_id", id="D1002")["activation_date"] == "2025-02-15 11:45:00"
    # a payment request reaches the phone; paying it marks the carrier's bill paid
    assert user("make_payment") == "You do not have a payment request."
    assert agent("send_payment_request", customer_id="C1001", bill_id="B1002") == (
        "Payment request sent to the customer for bill B1002"
    )
    assert user("check_payment_request") == "You have a payment request for bill B1002 of 150.0 USD."
    assert user("make_payment") == "Payment of 150.0 USD has been made for bill B1002."
    assert episode.query("SELECT status FROM bills WHERE bill_id = 'B1002'") == [{"status": "Paid"}]
    assert user("check_payment_request") == "No payment request has been made."


@needs_tau2
def test_a_new_draft_bill_gets_an_id_from_the_episode_not_a_random_one(telecom: CatalogEntry) -> None:
    """tau2 names a new draft bill ``B`` + 8 random hex digits; here ``new_id`` numbers it (B-1001, ...),
    so the same calls give the same state."""
    episode = telecom.environment.episode()
    episode.call_tool("refuel_data", {"customer_id": "C1002", "line_id": "L1004", "gb_amount": 0.5})
    rows = episode.query(
        "SELECT bill_id, total_due, line_items FROM bills WHERE status = 'Draft' AND customer_id = 'C1002'"
    )
    assert [(r["bill_id"], r["total_due"]) for r in rows] == [("B-1001", 0.05)]
    assert json.loads(rows[0]["line_items"])[0]["description"] == "Data refueling: 0.5 GB at $0.1/GB"


@needs_tau2
def test_the_telecom_folder_is_found_and_a_task_it_cannot_set_up_is_refused(tmp_path: Path) -> None:
    assert detect_domain(TELECOM) == "telecom"
    assert TELECOM in domain_folders(TAU2_DIR / "data")
    folder = tmp_path / "telecom"
    folder.mkdir()
    for name in ("db.toml", "user_db.toml", "main_policy.md", "tech_support_manual.md"):
        (folder / name).write_bytes((TELECOM / name).read_bytes())
    task = json.loads((TELECOM / "tasks_small.json").read_text())[0]
    task["initial_state"]["initialization_actions"].append({"env_type": "user", "func_name": "melt_phone"})
    (folder / "tasks_small.json").write_text(json.dumps([task]))
    with pytest.raises(Tau2ImportError, match=r"\[0\].initial_state.initialization_actions\[4\]: melt_phone"):
        import_domain(folder, tmp_path / "out")
    task["initial_state"]["initialization_actions"].pop()
    task["evaluation_criteria"]["env_assertions"][0]["func_name"] = "assert_phone_is_happy"
    (folder / "tasks_small.json").write_text(json.dumps([task]))
    with pytest.raises(Tau2ImportError, match=r"env_assertions\[0\]: 'assert_phone_is_happy' unknown"):
        import_domain(folder, tmp_path / "out")
    assert not (tmp_path / "out").exists()
