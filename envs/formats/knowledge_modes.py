"""Where an episode's knowledge sits: searched with tools, or given in the agent's prompt.

An environment with a document collection (a table with ``full_text``, docs/formats.md "Documents")
can be served in four modes, chosen when an episode starts (τ³-bench's retrieval variants of the
same name in brackets):

* ``search`` (the default; τ³ ``bm25``): the policy as the environment states it, and the tools that
  search, read and grep the documents;
* ``full`` (τ³ ``full_kb``): every document written into the prompt after the policy, and no
  document tools — the long-context baseline;
* ``required`` (τ³ ``golden_retrieval``): only the documents the task names in
  ``required_documents``, in the prompt, and no document tools — what retrieval at its best gives;
* ``none`` (τ³ ``no_knowledge``): the policy alone and no document tools — the floor;
* ``embeddings`` (τ³ ``openai_embeddings_grep``): as ``search``, but the search tools rank documents by
  the meaning of the query (the cosine of embeddings) instead of its words. Only for an environment
  whose search tool calls ``similarity()`` (``envs.engine.knowledge_functions``), and only where the
  server was given an embedding model (``envs.embeddings``): never by default.

The document tools are found, not declared: read tools whose SQL reaches a document table (or its
search index) and otherwise only tables no tool changes (an index made from the documents). A
document's title is the first of its table's ``full_text`` columns and its text the last, as
:func:`envs.formats.knowledge.retrieval_tools` makes them; the documents are the environment's seed
rows (no tool writes a document table).

>>> from envs.formats.spec import EnvSpec
>>> spec = EnvSpec.model_validate({"id": "kb", "name": "KB", "sector": "s", "description": "d",
...     "policy": "# Help desk",
...     "tables": [{"name": "articles", "primary_key": ["article_id"], "full_text": ["title", "body"],
...                 "columns": [{"name": n, "type": "text"} for n in ("article_id", "title", "body")]}],
...     "seed": {"articles": [{"article_id": "a1", "title": "Refunds", "body": "Within 30 days."}]},
...     "tools": [{"name": "read_article", "description": "Read one", "kind": "read",
...                "parameters": {"type": "object", "properties": {"article_id": {"type": "string"}}},
...                "steps": [{"kind": "return", "sql": "SELECT * FROM articles WHERE article_id = :article_id"}]}]})
>>> sorted(document_tools(spec))
['read_article']
>>> print(knowledge_policy(spec, "full"))
# Help desk
<BLANKLINE>
## Knowledge base
<BLANKLINE>
The whole knowledge base follows; there are no tools to search it in this session. Use it to answer \
the customer's questions and to decide what to do.
<BLANKLINE>
<knowledge_base>
## Refunds
<BLANKLINE>
Within 30 days.
</knowledge_base>
<BLANKLINE>
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Literal, get_args

if TYPE_CHECKING:  # annotations only: the MCP adapter imports this on ``envfarm mcp``'s fast path
    from .spec import EnvSpec, TableSpec
    from .task import Task

KnowledgeMode = Literal["search", "full", "required", "none", "embeddings"]
KNOWLEDGE_MODES: tuple[str, ...] = get_args(KnowledgeMode)
DEFAULT_KNOWLEDGE: KnowledgeMode = "search"
_DOCUMENT_SEPARATOR = "\n\n---\n\n"


class KnowledgeModeError(ValueError):
    """A knowledge mode the environment or task cannot be served in (names the mode and why)."""


def document_tables(spec: EnvSpec) -> list[TableSpec]:
    """The tables that hold documents: those indexed for full-text search."""
    return [t for t in spec.tables if t.full_text]


def _mentions(sql: str, name: str) -> bool:
    return re.search(rf'(?<![\w"]){re.escape(name)}(?![\w"])|"{re.escape(name)}"', sql) is not None


def _written_tables(spec: EnvSpec) -> set[str]:
    sql = " ".join(getattr(step, "sql", "") for tool in spec.tools for step in tool.steps)
    verbs = re.findall(r'(?i)\b(?:insert\s+(?:or\s+\w+\s+)?into|replace\s+into|update|delete\s+from)\s+"?(\w+)', sql)
    return {name.lower() for name in verbs}


def _find_document_tools(spec: EnvSpec) -> frozenset[str]:
    docs = document_tables(spec)
    if not docs:
        return frozenset()
    doc_names = {t.name for t in docs} | {t.search_table for t in docs if t.search_table}
    written = _written_tables(spec)
    others = [t.name for t in spec.tables if t.name not in doc_names and t.name.lower() in written]
    found = set()
    for tool in spec.tools:
        sql = " ".join(getattr(step, "sql", "") for step in tool.steps)
        reaches_docs = any(_mentions(sql, name) for name in doc_names)
        if tool.kind == "read" and reaches_docs and not any(_mentions(sql, name) for name in others):
            found.add(tool.name)
    return frozenset(found)


#: Specs whose document tools were found, by identity: finding them reads every tool's SQL (some
#: 200 ms for τ³ banking's), and an episode out of search mode asks on every call. Bounded, and each
#: entry keeps its spec so that an id is never mistaken for a freed spec's.
_FOUND: OrderedDict[int, tuple[EnvSpec, frozenset[str]]] = OrderedDict()
_FOUND_MAX = 512
_FOUND_LOCK = threading.Lock()


def document_tools(spec: EnvSpec) -> frozenset[str]:
    """The read tools that reach a document table (or its search index) and otherwise only tables no
    tool changes (an index made from the documents, such as a ranking's word counts)."""
    with _FOUND_LOCK:
        kept = _FOUND.get(id(spec))
        if kept is not None and kept[0] is spec:
            _FOUND.move_to_end(id(spec))
            return kept[1]
    found = _find_document_tools(spec)
    with _FOUND_LOCK:
        _FOUND[id(spec)] = (spec, found)
        while len(_FOUND) > _FOUND_MAX:
            _FOUND.popitem(last=False)
    return found


#: The modes whose agent searches the documents with tools.
SEARCHING_MODES = frozenset({"search", "embeddings"})
_SIMILARITY = re.compile(r"(?i)\bsimilarity\s*\(")


def ranks_by_meaning(spec: EnvSpec) -> bool:
    """Whether a document tool of ``spec`` ranks by meaning (calls ``similarity()``): the ``embeddings``
    mode applies."""
    names = document_tools(spec)
    return any(_SIMILARITY.search(step.sql) for tool in spec.tools if tool.name in names for step in tool.steps)


def withheld_tools(spec: EnvSpec, mode: str) -> frozenset[str]:
    """The tools an episode in ``mode`` neither lists nor runs: the document tools, unless searching."""
    return frozenset() if mode in SEARCHING_MODES else document_tools(spec)


def check_mode(spec: EnvSpec, task: Task | None, mode: str) -> None:
    """Raise :class:`KnowledgeModeError` unless an episode of ``task`` (or free play) in ``spec`` can be
    served in ``mode``."""
    if mode not in KNOWLEDGE_MODES:
        raise KnowledgeModeError(f"knowledge '{mode}' is not one of {', '.join(KNOWLEDGE_MODES)}")
    if mode != "search" and not document_tables(spec):
        raise KnowledgeModeError(
            f"knowledge '{mode}' needs documents, and environment '{spec.id}' has none (only 'search' applies)"
        )
    if mode == "embeddings" and not ranks_by_meaning(spec):
        raise KnowledgeModeError(
            f"knowledge 'embeddings' ranks documents by meaning, and no search tool of environment '{spec.id}' "
            "does (none calls similarity())"
        )
    if mode == "required" and (task is None or not task.required_documents):
        what = f"task '{task.id}' names" if task else "free play has"
        raise KnowledgeModeError(f"knowledge 'required' puts the task's required documents in the prompt: {what} none")


def documents(spec: EnvSpec) -> list[tuple[str, str, str]]:
    """Every document as (id, title, text), in each table's seed order."""
    found = []
    for table in document_tables(spec):
        key, title, text = table.primary_key[0], table.full_text[0], table.full_text[-1]
        rows: list[dict[str, Any]] = spec.seed.get(table.name, [])
        found += [(str(r.get(key)), str(r.get(title) or ""), str(r.get(text) or "")) for r in rows]
    return found


def _block(documents: list[tuple[str, str, str]]) -> str:
    return _DOCUMENT_SEPARATOR.join(f"## {title}\n\n{text}" for _, title, text in documents)


def _with_documents(policy: str, intro: str, documents: list[tuple[str, str, str]]) -> str:
    return f"{policy}\n\n## Knowledge base\n\n{intro}\n\n<knowledge_base>\n{_block(documents)}\n</knowledge_base>\n"


def _given(spec: EnvSpec, mode: str, task: Task | None) -> list[tuple[str, str, str]]:
    """The documents ``mode`` puts in the prompt."""
    if mode == "full":
        return documents(spec)
    if mode == "required":
        by_id = {doc[0]: doc for doc in documents(spec)}
        return [by_id[d] for d in (task.required_documents if task else []) if d in by_id]
    return []


def knowledge_policy(spec: EnvSpec, mode: str, task: Task | None = None) -> str:
    """The agent's policy for an episode in ``mode``: the environment's own policy for that mode
    (``knowledge_policies``, its ``{{documents}}`` filled in), else its policy with the documents the mode
    gives appended (``check_mode`` first: this assumes the mode applies)."""
    template = next((text for name, text in spec.knowledge_policies.items() if name == mode), None)
    if template is not None:
        return template.replace("{{documents}}", _block(_given(spec, mode, task)))
    policy = spec.policy.rstrip("\n")
    if mode == "full":
        intro = (
            "The whole knowledge base follows; there are no tools to search it in this session. "
            "Use it to answer the customer's questions and to decide what to do."
        )
        return _with_documents(policy, intro, _given(spec, mode, task))
    if mode == "required":
        intro = (
            "The documents that apply to this conversation follow; there are no tools to search the "
            "knowledge base in this session."
        )
        return _with_documents(policy, intro, _given(spec, mode, task))
    return spec.policy
