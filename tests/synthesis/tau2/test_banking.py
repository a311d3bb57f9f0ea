"""τ³ banking_knowledge imported from tau2's own data and checked against tau2's replay of each of its 97
tasks (``expected/banking_knowledge.jsonl``): every task's initial state (``agent_data`` merged as tau2's
``update_db`` merges it) and tau2's DB hash of it, and, for every task whose gold actions use only the
tools this port has, each gold action's result text and error flag and the final state and its hash.

The data (../shared/tau2, or $ENVFARM_TAU2_DIR) is tau2-bench's, MIT-licensed, and is not part of this
repository; without it these tests are skipped and say so.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from envs.catalog import CatalogEntry, load_env_dir
from envs.check import check_env
from envs.engine import Environment
from envs.errors import ToolError, UnknownTool
from envs.formats.task import Task
from synthesis.tau2 import detect_domain, import_domain
from synthesis.tau2.banking import ENV_ID, read_tasks, task_patch, uses
from synthesis.tau2.banking_data import db_hash, export_db
from synthesis.tau2.banking_fidelity import compare_banking
from synthesis.tau2.common import db_diff
from synthesis.tau2.fidelity import _normalized_diff

from .reference import TAU2_DIR, needs_tau2

BANKING = TAU2_DIR / "data" / "banking_knowledge"
#: tau2's hash of ``db.json`` as its model dumps it (the reference data's README)
PRISTINE_HASH = "af324a7d72aced5889daf6cc044e573ad94ffa3bfe7cf65114fd3cfed5daaa48"
AGENT_TOOLS = {
    "transfer_to_human_agents",
    "get_current_time",
    "get_user_information_by_id",
    "get_user_information_by_name",
    "get_user_information_by_email",
    "change_user_email",
    "get_referrals_by_user",
    "get_credit_card_transactions_by_user",
    "get_credit_card_accounts_by_user",
    "log_verification",
    "give_discoverable_user_tool",
    "unlock_discoverable_agent_tool",
    "call_discoverable_agent_tool",
    "list_discoverable_agent_tools",
}
USER_TOOLS = {
    "apply_for_credit_card",
    "submit_referral",
    "request_human_agent_transfer",
    "submit_transaction",
    "call_discoverable_user_tool",
    "list_discoverable_user_tools",
}

pytestmark = needs_tau2


@pytest.fixture(scope="module")
def banking(tmp_path_factory: pytest.TempPathFactory) -> CatalogEntry:
    out = tmp_path_factory.mktemp("banking-catalog")
    result = import_domain(BANKING, out)
    assert result.env_id == ENV_ID
    return load_env_dir(out / ENV_ID)


@pytest.fixture(scope="module")
def expected() -> list[dict[str, Any]]:
    with (TAU2_DIR / "expected" / "banking_knowledge.jsonl").open(encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def _data(dump: dict[str, Any]) -> dict[str, Any]:
    return {table: content["data"] for table, content in dump.items()}


def test_the_folder_is_detected_and_the_pristine_database_is_tau2s(banking: CatalogEntry) -> None:
    assert detect_domain(BANKING) == "banking_knowledge"
    episode = banking.environment.episode()
    dump = export_db(episode)
    assert db_hash(dump) == PRISTINE_HASH
    db = json.loads((BANKING / "db.json").read_text(encoding="utf-8"))
    for table, content in db.items():  # the same records in the same order, key order included
        assert list(dump[table]["data"]) == list(content["data"])
        assert all(list(dump[table]["data"][k]) == list(v) for k, v in content["data"].items())
    assert episode.query("SELECT count(*) AS n FROM documents") == [{"n": 698}]


def test_every_tasks_initial_state_is_tau2s(banking: CatalogEntry, expected: list[dict[str, Any]]) -> None:
    """All 97 tasks, those not imported yet included: ``agent_data`` merged as tau2 merges it."""
    env = banking.environment
    pristine_episode = env.episode()
    pristine = export_db(pristine_episode)
    pristine_episode.close()
    _, tasks = read_tasks(BANKING)
    assert [t["id"] for t in tasks] == [r["task_id"] for r in expected]
    equal = hashes = 0
    for task, record in zip(tasks, expected, strict=True):
        made = Task(id=f"t-{task['id']}", env=ENV_ID, instruction="x", initial_patch=task_patch(pristine, task))
        episode = env.episode(made)
        initial = export_db(episode)
        episode.close()
        equal += _normalized_diff(db_diff(_data(pristine), _data(initial))) == _normalized_diff(record["init_diff"])
        hashes += db_hash(initial) == record["initial_db_hash"]
    print(f"\ntau2 banking_knowledge: initial states {equal}/97, initial DB hashes {hashes}/97")
    assert equal == hashes == len(expected) == 97


def test_every_imported_task_replays_as_tau2s(banking: CatalogEntry, expected: list[dict[str, Any]]) -> None:
    """Every task whose gold actions use only the tools this port has is imported, and its gold actions
    give tau2's results, error flags and final state (tau2's DB hash included). Results that quote a tool's
    docstring (unlocking a tool, handing one over) differ in those descriptions only: ours are our own."""
    report = compare_banking(banking.environment, banking.tasks, expected)
    print(f"\ntau2 banking_knowledge: {report.summary()}")
    _, tasks = read_tasks(BANKING)
    have = {t.name for t in banking.spec.tools}
    assert report.imported == sum(1 for t in tasks if uses(t) <= have) == len(banking.tasks)
    assert report.mismatches == [], report.mismatches[:5]
    assert report.tasks_equal_but_descriptions == report.imported
    assert report.actions_equal_but_descriptions == report.actions
    assert report.initial_hashes_equal == report.final_hashes_equal == report.imported


def test_discoverable_tools_are_reached_only_by_unlocking(banking: CatalogEntry) -> None:
    spec = banking.spec
    assert {t.name for t in spec.tools_of("agent")} == AGENT_TOOLS | {"KB_search", "grep"}  # tau2's bm25 variant
    assert {t.name for t in spec.tools_of("user")} == USER_TOOLS
    episode = banking.environment.episode()
    hidden = "get_all_user_accounts_by_user_id_3847"
    with pytest.raises(UnknownTool):
        episode.call_tool(hidden, {"user_id": "123"})
    call = {"agent_tool_name": hidden, "arguments": json.dumps({"user_id": "123"})}
    locked = episode.call_tool("call_discoverable_agent_tool", call)
    assert locked.content.startswith(f"Error: Tool '{hidden}' has not been unlocked.") and not locked.wrote
    assert episode.call_tool("unlock_discoverable_agent_tool", {"agent_tool_name": hidden}).content.startswith(
        f"Tool unlocked: {hidden}\n"
    )
    listing = episode.call_tool("call_discoverable_agent_tool", call)
    assert "Accounts for user 123:" in listing.content
    assert not listing.wrote  # a read tool the task's gold does not call is not logged
    unknown = episode.call_tool("unlock_discoverable_agent_tool", {"agent_tool_name": "no_such_tool_0000"})
    assert unknown.content == "Error: Unknown agent tool 'no_such_tool_0000'. This tool is not available."


def test_the_imported_environment_passes_envs_check(banking: CatalogEntry) -> None:
    report = check_env(banking.spec, banking.tasks)
    assert report.ok, report.problems[:5]


def test_the_policy_and_documents_are_read_from_the_folder(tmp_path: Path) -> None:
    """Nothing of tau2's text is in the repository: the policy is the folder's prompt parts."""
    out = tmp_path / "out"
    import_domain(BANKING, out)
    policy = (out / ENV_ID / "policy.md").read_text(encoding="utf-8")
    header = (BANKING / "prompts" / "components" / "policy_header.md").read_text(encoding="utf-8")
    assert policy.startswith(header) and "{{" not in policy
    env = Environment(load_env_dir(out / ENV_ID).spec)
    titles = env.episode().query(
        "SELECT title FROM documents WHERE doc_id = 'doc_bank_accounts_bank_accounts_(general)_001'"
    )
    first = json.loads((BANKING / "documents" / "doc_bank_accounts_bank_accounts_(general)_001.json").read_text())
    assert titles == [{"title": first["title"]}]


def test_each_knowledge_mode_has_tau2s_own_prompt(banking: CatalogEntry) -> None:
    """search: tau2's bm25 prompt (KB_search and grep); full, required and none: its full_kb,
    golden_retrieval and no_knowledge prompts, the documents where tau2 puts them; embeddings: its
    classic_rag prompt."""
    from envs.formats.knowledge_modes import check_mode, knowledge_policy, withheld_tools

    spec, prompts = banking.spec, BANKING / "prompts"
    header = (prompts / "components" / "policy_header.md").read_text(encoding="utf-8")
    assert spec.policy.startswith(header) and "`KB_search` (uses BM25 for retrieval) and `grep`" in spec.policy
    first = json.loads(sorted((BANKING / "documents").glob("*.json"))[0].read_text(encoding="utf-8"))
    full = knowledge_policy(spec, "full")
    assert full.startswith(header) and "The complete knowledge base is provided." in full
    assert f"<knowledge_base>\n## {first['title']}\n\n{first['content']}\n\n---\n\n## " in full
    documents = [json.loads(p.read_text(encoding="utf-8")) for p in (BANKING / "documents").glob("*.json")]
    assert all(f"## {d['title']}\n\n{d['content']}" in full for d in documents) and "{{documents}}" not in full
    task = next(t for t in banking.tasks if t.required_documents)
    required = knowledge_policy(spec, "required", task)
    shown = {d["id"] for d in documents if f"## {d['title']}\n\n{d['content']}" in required}
    assert "<required_documents>\n## " in required and shown >= set(task.required_documents)
    assert len(required) < len(full) / 5  # only those
    assert knowledge_policy(spec, "none").startswith(header) and "KB_search" not in knowledge_policy(spec, "none")
    assert withheld_tools(spec, "full") == {"KB_search", "grep"} and not withheld_tools(spec, "search")
    embeddings = knowledge_policy(spec, "embeddings")  # tau2's embedding prompt that names no model
    assert embeddings.startswith(header) and "provided `KB_search` and `grep` tools" in embeddings
    assert "BM25" not in embeddings and "OpenAI" not in embeddings and not withheld_tools(spec, "embeddings")
    check_mode(spec, task, "embeddings")


def _tools_py_from_reference(expected: list[dict[str, Any]]) -> str:
    """A ``tools.py`` whose discoverable tools carry the docstrings tau2's unlock and hand-over results quote
    (rebuilt from the reference replay: the descriptions and each parameter's type, optional flag and text)."""
    unlocked = re.compile(r"\n\nTool: (\w+)\nDescription: (.*?)\nParameters:\n(.*?)\n\nYou can now use", re.DOTALL)
    given = re.compile(r"^Tool given to user: (\w+)\nDescription: (.*?)\nArguments: ", re.DOTALL)
    param = re.compile(r"^  - (\w+): (\w+) \((required|optional)\) - (.*)$")
    docs: dict[str, str] = {}
    for record in expected:
        for action in record["actions"]:
            if (m := unlocked.search(action["result"])) is not None:
                args = [param.match(line) for line in m.group(3).splitlines() if line != "  (no parameters)"]
                lines = [f"    {p[1]} ({p[2]}{', optional' if p[3] == 'optional' else ''}): {p[4]}" for p in args if p]
                docs[m.group(1)] = m.group(2) + ("\n\nArgs:\n" + "\n".join(lines) if lines else "")
            elif (m := given.match(action["result"])) is not None:
                docs[m.group(1)] = m.group(2)
    body = "".join(
        f'\n    @is_discoverable_tool(ToolType.WRITE)\n    def {name}(self):\n        """{doc}\n        """\n'
        for name, doc in docs.items()
    )
    return f"class KnowledgeTools:{body}"


@pytest.fixture(scope="module")
def with_texts(tmp_path_factory: pytest.TempPathFactory, expected: list[dict[str, Any]]) -> CatalogEntry:
    """The folder imported with a ``tools.py`` holding tau2's docstrings (rebuilt from the reference replay)."""
    tmp_path = tmp_path_factory.mktemp("banking-texts")
    folder = tmp_path / "banking_knowledge"
    shutil.copytree(BANKING, folder)
    (folder / "tools.py").write_text(_tools_py_from_reference(expected), encoding="utf-8")
    import_domain(folder, tmp_path / "out")
    return load_env_dir(tmp_path / "out" / ENV_ID)


def test_with_tau2s_tools_py_every_result_is_tau2s_text(
    with_texts: CatalogEntry, expected: list[dict[str, Any]]
) -> None:
    """Given tau2's ``tools.py`` (in a checkout, or in the folder), unlocking a tool or handing one over shows
    tau2's own description and parameters, parsed from the docstrings as tau2 parses them, so every gold
    action's result is tau2's text. The docstrings here are rebuilt from the reference replay."""
    entry = with_texts
    report = compare_banking(entry.environment, entry.tasks, expected)
    print(f"\ntau2 banking_knowledge with tau2's tool descriptions: {report.summary()}")
    assert report.mismatches == []
    assert report.tasks_equal == report.imported == 97 and report.actions_equal == report.actions == 955


def test_docstrings_are_parsed_as_tau2_parses_them() -> None:
    from synthesis.tau2.banking_texts import parse_docstring

    doc = (
        "Move a thing.\n\nSecond paragraph.\n\nArgs:\n    thing_id (string): Which thing\n"
        "    count (integer, optional): How many: at most 3\n    plain: No type given\n\nReturns:\n    Moved."
    )
    description, info = parse_docstring("move_thing_0001", doc)
    assert description == "Move a thing.\n\nSecond paragraph."
    assert info == (
        "Tool: move_thing_0001\nDescription: Move a thing.\n\nSecond paragraph.\nParameters:\n"
        "  - thing_id: string (required) - Which thing\n  - count: integer (optional) - How many: at most 3\n"
        "  - plain: string (required) - No type given"
    )
    assert parse_docstring("noop_0002", "Do nothing.\n\nReturns:\n    Done.")[1] == (
        "Tool: noop_0002\nDescription: Do nothing.\n\nReturns:\n    Done.\nParameters:\n  (no parameters)"
    )


def test_an_unlock_the_gold_does_not_make_changes_no_score(banking: CatalogEntry) -> None:
    """tau2 keeps unlocked tools in memory, outside the database it compares: an agent that unlocks one
    more tool than the gold still matches it."""
    from envs.grading.scoring import score_episode

    task = next(t for t in banking.tasks if t.gold_actions and t.expects_change)
    episode = banking.environment.episode(task)
    for call in task.gold_actions:
        episode.call_tool(call.tool, call.arguments, actor=call.actor)
    extra = episode.call_tool("unlock_discoverable_agent_tool", {"agent_tool_name": "example_agent_tool_0000"})
    assert extra.content.startswith("Tool unlocked: example_agent_tool_0000\n") and extra.wrote
    assert score_episode(banking.environment, task, episode).reward == 1.0


class KnowledgeTools:
    """A method with the signature of tau2's ``change_debit_card_pin_6285``, for Python's own TypeError text."""

    def change_debit_card_pin_6285(self, card_id: str, current_pin: str, new_pin: str) -> None: ...


@pytest.mark.parametrize(
    "arguments",
    [{}, {"card_id": "c1"}, {"card_id": "c1", "current_pin": "1357"}, {"card_id": "c1", "colour": "red"}],
)
def test_missing_and_unexpected_arguments_answer_with_pythons_own_text(
    banking: CatalogEntry, arguments: dict[str, Any]
) -> None:
    """tau2 calls the method with the arguments as keywords; Python's TypeError names what is missing or
    unexpected. The same call on a method of the same signature gives the text expected here."""
    try:
        KnowledgeTools().change_debit_card_pin_6285(**arguments)  # type: ignore[call-arg]
    except TypeError as exc:
        wanted = f"Error: Invalid arguments: {exc}"
    episode = banking.environment.episode()
    name = "change_debit_card_pin_6285"
    episode.call_tool("unlock_discoverable_agent_tool", {"agent_tool_name": name})
    got = episode.call_tool(
        "call_discoverable_agent_tool", {"agent_tool_name": name, "arguments": json.dumps(arguments)}
    )
    assert got.content == wanted and not got.wrote


@pytest.mark.parametrize("text", ["", "{", '{"card_id": "c1",}', "[1, 2]", '"c1"', "7"])
def test_arguments_that_are_no_json_object_answer_with_pythons_own_text(banking: CatalogEntry, text: str) -> None:
    """tau2 reads the arguments with ``json.loads`` and calls the method with them as keywords: Python's
    ``JSONDecodeError`` or ``TypeError`` text, for the agent's and the customer's dispatchers alike."""
    name = "change_debit_card_pin_6285"
    try:
        value = json.loads(text, parse_int=float)
        try:
            KnowledgeTools().change_debit_card_pin_6285(**value)
        except TypeError as exc:  # this one names the function with its module: tau2's is its tools module
            tau2_module = "tau2.domains.banking_knowledge.tools."
            wanted = f"Error: Invalid arguments: {exc}".replace(f"{KnowledgeTools.__module__}.", tau2_module)
    except json.JSONDecodeError as exc:
        wanted = f"Error: Invalid JSON in arguments: {exc}"
    episode = banking.environment.episode()
    episode.call_tool("unlock_discoverable_agent_tool", {"agent_tool_name": name})
    got = episode.call_tool("call_discoverable_agent_tool", {"agent_tool_name": name, "arguments": text})
    assert got.content == wanted and not got.wrote
    if text in ("", "{", '{"card_id": "c1",}'):
        user = episode.call_tool(
            "call_discoverable_user_tool",
            {"discoverable_tool_name": "get_card_last_4_digits", "arguments": text},
            actor="user",
        )
        assert user.content == wanted and not user.wrote
        given = episode.call_tool(
            "give_discoverable_user_tool", {"discoverable_tool_name": "get_card_last_4_digits", "arguments": text}
        )
        assert given.content == wanted and not given.wrote


def test_calls_no_gold_action_makes_answer_as_tau2s_code_does(
    with_texts: CatalogEntry, expected: list[dict[str, Any]]
) -> None:
    """621 calls on 13 tasks' initial states, none a gold action's: every base, customer and discoverable
    tool with ids that exist and do not, wrong states and amounts, missing arguments, tools not handed
    over or not unlocked (``banking_off_gold.json``). Each result's SHA-256 and error flag, and the final
    DB hash, were recorded by running tau2's banking toolkits (the reference commit's code) on the same
    calls; no tau2 text is kept, only digests. Unlocks quote tau2's docstrings, so the import holds those
    the reference replay shows; unlocking or handing over a tool it does not show is held to its layout."""
    banking = with_texts
    described = set(re.findall(r"def (\w+)\(self\)", _tools_py_from_reference(expected)))
    quoting = {
        "unlock_discoverable_agent_tool": "agent_tool_name",
        "give_discoverable_user_tool": "discoverable_tool_name",
    }
    recorded = json.loads((Path(__file__).parent / "banking_off_gold.json").read_text(encoding="utf-8"))
    by_id = {tag.removeprefix("tau2-id:"): t for t in banking.tasks for tag in t.tags if tag.startswith("tau2-id:")}
    calls = 0
    for record in recorded:
        episode = banking.environment.episode(by_id[record["task_id"]])
        for i, call in enumerate(record["calls"]):
            try:
                content, error = episode.call_tool(call["name"], call["arguments"], actor=call["actor"]).content, False
            except ToolError as exc:
                content, error = f"Error: {exc}", True
            text = content if isinstance(content, str) else json.dumps(content)
            digest = hashlib.sha256(text.encode()).hexdigest()
            where = f"{record['task_id']} call {i} {call['name']} {call['arguments']}"
            tool = call["arguments"].get(quoting.get(call["name"], ""), "")
            if call["name"] in quoting and tool not in described and not text.startswith("Error"):
                assert text.startswith(("Tool unlocked: ", "Tool given to user: ")) and not error, where
            else:
                assert (error, digest) == (call["error"], call["result_sha256"]), f"{where}: {text[:300]!r}"
            calls += 1
        assert db_hash(export_db(episode)) == record["final_db_hash"], record["task_id"]
        episode.close()
    assert calls == 621
