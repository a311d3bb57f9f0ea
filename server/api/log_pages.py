"""Call-log pages as JSON, built from the stored text of each call.

A log is read a page at a time (``Store.log_page``): however many calls an episode made, and however
large their arguments and results, one response holds about ``ENVFARM_LOG_PAGE_MAX_BYTES``. Each
call's arguments and result are stored as JSON text and go into the page as they are: parsing them
into Python objects and serializing those again took several times the log's size in memory (a
943 MB log read four times at once took a server to 6.9 GB).
"""

from __future__ import annotations

import json
from urllib.parse import quote

from ..store import StoredCall


def call_json(call: StoredCall) -> str:
    """One call as the JSON object ``CallRecord`` describes (same fields, same order)."""
    dumps = json.dumps
    return (
        f'{{"seq":{call.seq},"tool":{dumps(call.tool)},"arguments":{call.arguments_json},'
        f'"kind":{dumps(call.kind)},"is_error":{dumps(call.is_error)},"result":{call.result_json or "null"},'
        f'"error_type":{dumps(call.error_type)},"started_at":{dumps(call.started_at)},'
        f'"duration_ms":{dumps(call.duration_ms)},"transport":{dumps(call.transport)},"actor":{dumps(call.actor)}}}'
    )


def calls_json(page: list[StoredCall]) -> str:
    """The calls as a JSON array."""
    return "[" + ",".join(map(call_json, page)) + "]"


def next_page(episode_id: str, page: list[StoredCall], more: bool, limit: int) -> str | None:
    """The path of the page after ``page``, or None at the end of the log."""
    if not more or not page:
        return None
    return f"/episodes/{quote(episode_id, safe='')}/log?after={page[-1].seq}&limit={limit}"


def with_field(body: str, name: str, raw_json: str) -> bytes:
    """``body`` (a JSON object's text) with one more field whose value is already JSON text."""
    head = body.rstrip()
    assert head.endswith("}")
    separator = "" if head == "{}" else ","
    return f"{head[:-1]}{separator}{json.dumps(name)}:{raw_json}}}".encode()
