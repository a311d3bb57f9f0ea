"""Tenant A's side of ``envfarm bench isolation``: the lab environment whose tools misbehave on
purpose, and the client processes that send hostile calls to a farm.

Each client runs in a process of its own (``attack``) and reports its call durations, the 5xx it saw
(there must be none) and how its calls ended: refusals (413, tool errors) are what a hostile tenant
should get, not failures.
"""

from __future__ import annotations

import json
import selectors
import shutil
import socket
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from envs import paths
from envs.schemas.arguments import MAX_ARRAY_ITEMS, MAX_STRING_CHARS_CAP

from .serve import BenchError

TENANT_KEYS = "bench-key-aaaaaaaa attacker;bench-key-bbbbbbbb bystander"
ATTACKER, BYSTANDER = "bench-key-aaaaaaaa", "bench-key-bbbbbbbb"
#: The farm's request body limit (``ENVFARM_MAX_BODY_BYTES``, its default): the flood's text fills it.
MAX_BODY_BYTES = 1_000_000
#: Calls in the large episode whose log ``log_reads`` clients read, each with an 8,000-character result.
LOG_CALLS = 500

#: An environment whose tools misbehave on purpose (also used by the server's stall tests).
LAB_SPEC: dict[str, Any] = {
    "format_version": 1,
    "id": "lab",
    "name": "Lab",
    "sector": "testing",
    "description": "Tools that misbehave on purpose.",
    "clock": "2026-03-02T09:00:00",
    "tables": [
        {
            "name": "things",
            "description": "Things.",
            "primary_key": ["thing_id"],
            "columns": [{"name": "thing_id", "type": "text"}, {"name": "label", "type": "text"}],
        }
    ],
    "invariants": [],
    "tools": [
        {
            "name": "spin",
            "kind": "read",
            "description": "Counts for ever.",
            "steps": [
                {
                    "kind": "return",
                    "shape": "value",
                    "sql": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
                }
            ],
        },
        {
            "name": "broken_text",
            "kind": "read",
            "description": "Returns text that is not valid Unicode.",
            "steps": [{"kind": "return", "shape": "value", "sql": "SELECT 'a' || char(55296) || 'b'"}],
        },
        {
            "name": "broken_json",
            "kind": "read",
            "description": "Returns JSON whose string holds a lone surrogate.",
            "steps": [{"kind": "return", "shape": "one", "json_columns": ["j"], "sql": "SELECT '\"a\\ud800b\"' AS j"}],
        },
        {
            "name": "list_things",
            "kind": "read",
            "description": "Lists things.",
            "steps": [{"kind": "return", "sql": "SELECT * FROM things ORDER BY thing_id"}],
        },
        {
            "name": "ream",
            "kind": "read",
            "description": "Returns 8,000 characters.",
            "steps": [{"kind": "return", "shape": "value", "sql": "SELECT replace(hex(zeroblob(4000)), '0', 'x')"}],
        },
        {
            "name": "keep_note",
            "kind": "read",
            "description": "Reads a note of up to 65,536 characters (the most any spec may allow).",
            "parameters": {
                "type": "object",
                "properties": {"text": {"type": "string", "maxLength": MAX_STRING_CHARS_CAP}},
                "required": ["text"],
                "additionalProperties": False,
            },
            "steps": [{"kind": "return", "shape": "value", "sql": "SELECT length(:text)"}],
        },
        {
            "name": "spill",
            "kind": "read",
            "description": "Sorts 3,000 keys of a megabyte: spills to temporary files.",
            "steps": [
                {
                    "kind": "return",
                    "shape": "value",
                    "sql": "SELECT count(*) FROM (SELECT x FROM (WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL "
                    "SELECT n + 1 FROM c WHERE n < 3000) SELECT printf('%.*c', 1000000, 'k') || n AS x FROM c) "
                    "ORDER BY x)",
                }
            ],
        },
        {
            "name": "mint",
            "kind": "write",
            "description": "Makes n things.",
            "parameters": {
                "type": "object",
                "properties": {"n": {"type": "integer", "minimum": 1}},
                "required": ["n"],
                "additionalProperties": False,
            },
            "steps": [
                {
                    "kind": "exec",
                    "sql": "INSERT INTO things (thing_id, label) SELECT new_id('T'), 'made' FROM "
                    "(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < :n) SELECT x FROM c)",
                },
                {"kind": "return", "shape": "value", "sql": "SELECT count(*) FROM things"},
            ],
        },
    ],
}
LAB_TASK = {
    "id": "lab-001",
    "env": "lab",
    "instruction": "Make 40,000 things.",
    "gold_actions": [{"tool": "mint", "arguments": {"n": 40000}}],
    "reward_basis": ["state"],
}
#: The longest list the engine accepts (``MAX_ARRAY_ITEMS`` distinct ids).
LONGEST_LIST_CALL = {
    "tool": "return_delivered_order_items",
    "arguments": {
        "order_id": "#W0000000",
        "item_ids": [f"ITM{i:06d}" for i in range(MAX_ARRAY_ITEMS)],
        "payment_method_id": "gift_card_0000000",
    },
}
UNIQUE_ITEMS_CALL = {
    "tool": "return_delivered_order_items",
    "arguments": {
        "order_id": "#W0000000",
        "item_ids": [{"item": i} for i in range(6000)],
        "payment_method_id": "gift_card_0000000",
    },
}


def write_lab_catalog(catalog: Path) -> None:
    """A catalog of retail plus the lab environment."""
    shutil.copytree(paths.BUILTIN_CATALOG / "retail", catalog / "retail")
    lab = catalog / "lab"
    lab.mkdir(parents=True)
    (lab / "spec.json").write_text(json.dumps(LAB_SPEC), encoding="utf-8")
    (lab / "seed.json").write_text(json.dumps({"things": [{"thing_id": "T0001", "label": "first"}]}), encoding="utf-8")
    (lab / "policy.md").write_text("# Lab\n", encoding="utf-8")
    (lab / "tasks.json").write_text(json.dumps([LAB_TASK]), encoding="utf-8")


_EMPTY_FLOOD = json.dumps({"tool": "transfer_to_human_agents", "arguments": {"summary": ""}}).encode()
#: Characters of the flood's ``summary``: it fills the largest body the farm reads (about 1 MB).
FLOOD_CHARS = MAX_BODY_BYTES - len(_EMPTY_FLOOD)


def flood_body() -> bytes:
    """A hand-over whose ``summary`` has ``FLOOD_CHARS`` characters (the farm refuses a string over
    ``ENVFARM_MAX_STRING_CHARS`` as a tool error)."""
    return json.dumps({"tool": "transfer_to_human_agents", "arguments": {"summary": "x" * FLOOD_CHARS}}).encode()


#: The longest text any tool may accept, logged in full: what fills a tenant's call-log quota fastest.
NOTE_BODY = json.dumps({"tool": "keep_note", "arguments": {"text": "n" * MAX_STRING_CHARS_CAP}}).encode()


def episode(client: httpx.Client, **body: Any) -> str:
    """A new episode's id."""
    r = client.post("/episodes", json=body)
    if r.status_code != 201:
        raise BenchError(f"could not create an episode: {r.status_code} {r.text[:200]}")
    return str(r.json()["episode_id"])


def build_log(base: str, calls: int = LOG_CALLS) -> tuple[str, int]:
    """A lab episode of tenant A's with ``calls`` calls of 8,000-character results: its id and its
    ``log_bytes``."""
    headers = {"Authorization": f"Bearer {ATTACKER}"}
    with httpx.Client(base_url=base, headers=headers, timeout=120) as c:
        episode_id = episode(c, env_id="lab")
        for _ in range(calls):
            r = c.post(f"/episodes/{episode_id}/calls", json={"tool": "ream"})
            if r.status_code != 200 or r.json().get("is_error"):
                raise BenchError(f"could not build a call log: {r.status_code} {r.text[:200]}")
        return episode_id, int(c.get(f"/episodes/{episode_id}").json()["log_bytes"])


def _error_field(r: httpx.Response) -> str | None:
    """The ``field`` (else ``code``) of an error body, None if there is none."""
    try:
        error = r.json().get("error") or {}
    except ValueError:
        return None
    return error.get("field") or error.get("code") if isinstance(error, dict) else None


def _outcome(r: httpx.Response) -> str:
    """How a call ended: ``ok``, ``tool_error``, ``413 <field>``, or its status."""
    if r.status_code == 200:
        return "tool_error" if r.json().get("is_error") else "ok"
    if r.status_code == 413:
        return f"413 {_error_field(r)}"
    return str(r.status_code)


class _Tally:
    """One client's call durations, 5xx and outcomes."""

    def __init__(self) -> None:
        self.durations: list[float] = []
        self.codes: list[int] = []
        self.outcomes: Counter[str] = Counter()

    def send(self, c: httpx.Client, method: str, path: str, body: bytes | None = None) -> httpx.Response:
        t0 = time.perf_counter()
        r = c.request(method, path, content=body)
        self.durations.append((time.perf_counter() - t0) * 1e3)
        if r.status_code >= 500:
            self.codes.append(r.status_code)
        self.outcomes[_outcome(r)] += 1
        return r


def _flood(c: httpx.Client, tally: _Tally, stop: Any, ready: Any, full: Any) -> None:
    """Megabyte summaries to a retail episode, in turn with the longest notes a tool accepts to a lab
    episode; a lab episode whose log is full is closed for a new one, as long as the tenant may open
    one. Releases ``full`` once the tenant's store quota refuses it."""
    retail, lab = episode(c, task_id="retail-001"), episode(c, env_id="lab")
    huge = flood_body()
    refused = False
    ready.release()
    while not stop.is_set():
        tally.send(c, "POST", f"/episodes/{retail}/calls", huge)
        r = tally.send(c, "POST", f"/episodes/{lab}/calls", NOTE_BODY)
        field = _error_field(r) if r.status_code == 413 else None
        if field == "log_bytes":
            c.delete(f"/episodes/{lab}")
            created = c.post("/episodes", json={"env_id": "lab"})
            if created.status_code == 201:
                lab = str(created.json()["episode_id"])
            else:
                field = _error_field(created)
                tally.outcomes[f"new episode {_outcome(created)}"] += 1
        if field == "store_bytes" and not refused:
            refused = True
            full.release()


def _read_logs(c: httpx.Client, tally: _Tally, stop: Any, ready: Any, episode_id: str) -> None:
    """The whole call log of ``episode_id``, page after page, again and again; a duration is one page."""
    ready.release()
    while not stop.is_set():
        path: str | None = f"/episodes/{episode_id}/log?after=0&limit=500"
        while path is not None:
            r = tally.send(c, "GET", path)
            if r.status_code != 200:
                break
            path = r.json()["next"]
        tally.outcomes["full reads"] += 1


#: Where the header flood's sockets come from: another loopback address than the bystander's.
FLOOD_ADDRESS = "127.0.0.2"
#: A request that never ends its headers.
PARTIAL_HEADERS = b"POST /episodes HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "


def _answer_kind(data: bytes) -> str:
    if data.startswith(b"HTTP/1.1 "):
        return f"answered {data[9:12].decode(errors='replace')}"
    return "closed unanswered"


def _hold_sockets(base: str, tally: _Tally, stop: Any, ready: Any, sockets: int) -> None:
    """``sockets`` connections from ``FLOOD_ADDRESS``, each sending the start of a request and never
    its end, held until ``stop``; one the farm times out is opened again (a slowloris keeps its
    slots), one it refuses is not. A duration is one connection's opening; outcomes count how the
    farm ended the others, and how many were still held at the end."""
    host, port = base.removeprefix("http://").rsplit(":", 1)
    chooser = selectors.DefaultSelector()

    def open_one() -> None:
        t0 = time.perf_counter()
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.bind((FLOOD_ADDRESS, 0))
            s.settimeout(10)
            s.connect((host, int(port)))
            s.sendall(PARTIAL_HEADERS)
        except OSError as exc:
            s.close()
            tally.outcomes[f"not opened: {type(exc).__name__}"] += 1
            return
        s.setblocking(False)
        tally.durations.append((time.perf_counter() - t0) * 1e3)
        chooser.register(s, selectors.EVENT_READ)

    for _ in range(sockets):
        open_one()
    ready.release()
    while not stop.is_set():
        for key, _ in chooser.select(timeout=0.2):
            s = key.fileobj
            assert isinstance(s, socket.socket)
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if data and not data.startswith(b"HTTP/1.1 "):
                continue
            outcome = _answer_kind(data)
            tally.outcomes[outcome] += 1
            chooser.unregister(s)
            s.close()
            if outcome == "answered 408":
                open_one()
    tally.outcomes["held at the end"] = len(chooser.get_map())
    for key in list(chooser.get_map().values()):
        key.fileobj.close()  # type: ignore[union-attr]


def attack(
    base: str, kind: str, stop: Any, ready: Any, full: Any, target: str | None, results: Any, sockets: int = 0
) -> None:
    """One client of tenant A sending ``kind`` calls until ``stop``; releases ``ready`` as it starts
    sending; puts (durations ms, 5xx codes, outcomes)."""
    headers = {"Authorization": f"Bearer {ATTACKER}", "content-type": "application/json"}
    tally = _Tally()
    with httpx.Client(base_url=base, headers=headers, timeout=120) as c:
        if kind == "text_flood":
            _flood(c, tally, stop, ready, full)
        elif kind == "log_reads":
            assert target is not None
            _read_logs(c, tally, stop, ready, target)
        elif kind == "header_flood":
            _hold_sockets(base, tally, stop, ready, sockets)
        else:
            episode_id = episode(c, env_id="lab") if kind in ("spin", "spill") else episode(c, task_id="retail-001")
            call = {
                "spin": {"tool": "spin"},
                "spill": {"tool": "spill"},
                "unique_items": UNIQUE_ITEMS_CALL,
                "longest_list": LONGEST_LIST_CALL,
            }
            body = json.dumps(call[kind]).encode()
            ready.release()
            while not stop.is_set():
                tally.send(c, "POST", f"/episodes/{episode_id}/calls", body)
    results.put((tally.durations, tally.codes, dict(tally.outcomes)))
