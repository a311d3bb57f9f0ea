"""Retrieval tools over a document collection: data like every tool, made for a table whose text
columns are indexed for full-text search (``TableSpec.full_text``; the engine builds the FTS5 index
``<table>_fts`` when it builds the episode image).

:func:`retrieval_tools` writes three read tools for such a table, each with bounded results:

* ``search_<table>(query)``: the documents BM25 ranks first for the query's words (any of them;
  ``search_terms`` makes free text a query that cannot be malformed), at most ``search_limit``,
  each with its id, title and a snippet of about ``snippet_words`` words around the matches; in the
  ``embeddings`` knowledge mode (``envs.formats.knowledge_modes``) the documents closest in meaning
  (``similarity()``), each with the start of its text as the snippet;
* ``read_<document>(<id>)``: one document whole (its id, title, text and tags), or an error naming
  the id when there is none;
* ``grep_<table>(pattern)``: the documents whose text holds ``pattern`` (case-insensitive, at least
  three characters), at most ``grep_limit``, each with an excerpt around the first occurrence.

>>> from envs.formats.spec import TableSpec
>>> docs = TableSpec.model_validate({"name": "articles", "primary_key": ["article_id"], "full_text": ["title", "body"],
...     "columns": [{"name": n, "type": "text"} for n in ("article_id", "title", "body", "tags")]})
>>> [t["name"] for t in retrieval_tools(docs, id_column="article_id", title_column="title", text_column="body")]
['search_articles', 'read_article', 'grep_articles']
"""

from __future__ import annotations

from typing import Any

from .spec import TableSpec


def _singular(name: str) -> str:
    if name.endswith("ies"):
        return name[:-3] + "y"
    return name[:-1] if name.endswith("s") and not name.endswith("ss") else name


def _tool(name: str, description: str, params: dict[str, Any], sql: str, **step: Any) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "kind": "read",
        "parameters": {
            "type": "object",
            "required": list(params),
            "additionalProperties": False,
            "properties": params,
        },
        "steps": [{"kind": "return", "sql": sql, **step}],
    }


def retrieval_tools(
    table: TableSpec,
    *,
    id_column: str,
    title_column: str,
    text_column: str,
    tags_column: str | None = None,
    search_limit: int = 5,
    grep_limit: int = 10,
    snippet_words: int = 24,
) -> list[dict[str, Any]]:
    """Search, read and grep tools (``ToolSpec`` data) over ``table``'s documents.

    Raises:
        ValueError: ``table`` has no full-text columns, or ``text_column`` is not one of them.
    """
    if table.search_table is None or text_column not in table.full_text:
        raise ValueError(f"table '{table.name}' must index '{text_column}' for full-text search (full_text)")
    fts, doc = table.search_table, _singular(table.name)
    text_index = table.full_text.index(text_column)
    tags = f", {tags_column} AS tags" if tags_column else ""
    by_words = (
        f"SELECT d.{id_column} AS {id_column}, d.{title_column} AS title, "
        f"snippet({fts}, {text_index}, '', '', '…', {snippet_words}) AS snippet "
        f"FROM {fts} JOIN {table.name} d ON d.rowid = {fts}.rowid "
        f"WHERE {fts} MATCH search_terms(:query) AND knowledge_mode() <> 'embeddings' "
        f"ORDER BY bm25({fts}), d.{id_column} LIMIT {search_limit}"
    )
    # A snippet about as long as the one around the matches: some seven characters a word.
    by_meaning = (
        f"SELECT d.{id_column} AS {id_column}, d.{title_column} AS title, "
        f"substr(d.{text_column}, 1, {snippet_words * 7}) || '…' AS snippet FROM {table.name} d "
        f"WHERE knowledge_mode() = 'embeddings' "
        f"ORDER BY similarity(:query, d.{id_column}) DESC, d.{id_column} LIMIT {search_limit}"
    )
    # One arm gives rows: the other's condition holds for none, and it ranks nothing.
    search = f"SELECT * FROM ({by_meaning}) UNION ALL SELECT * FROM ({by_words})"
    read = (
        f"SELECT {id_column}, {title_column} AS title, {text_column} AS text{tags} "
        f"FROM {table.name} WHERE {id_column} = :{id_column}"
    )
    grep = (
        f"SELECT d.{id_column} AS {id_column}, d.{title_column} AS title, "
        f"substr(d.{text_column}, max(1, instr(lower(d.{text_column}), lower(:pattern)) - 80), 240) AS excerpt "
        f"FROM {table.name} d WHERE instr(lower(d.{text_column}), lower(:pattern)) > 0 "
        f"ORDER BY d.{id_column} LIMIT {grep_limit}"
    )
    words = {"type": "string", "minLength": 1, "maxLength": 500, "description": "What to look for, in words"}
    pattern = {"type": "string", "minLength": 3, "maxLength": 200, "description": "Text to find, as written"}
    key = {"type": "string", "minLength": 1, "maxLength": 200, "description": f"The {doc}'s id"}
    return [
        _tool(
            f"search_{table.name}",
            f"Search the {table.name.replace('_', ' ')} for the words of a query; the best-ranked first "
            f"(at most {search_limit}), each with its id, title and a snippet.",
            {"query": words},
            search,
        ),
        _tool(
            f"read_{doc}",
            f"Read one {doc.replace('_', ' ')} whole, by its id.",
            {id_column: key},
            read,
            shape="one",
            message=f"No {doc.replace('_', ' ')} has the id {{{id_column}}}",
        ),
        _tool(
            f"grep_{table.name}",
            f"Find the {table.name.replace('_', ' ')} whose text holds a phrase (any case; at most "
            f"{grep_limit}), each with an excerpt around it.",
            {"pattern": pattern},
            grep,
        ),
    ]
