"""Knowledge-base variants in a catalog folder: every synthesized environment there with enough tasks
that can rest on an article (``variant.MIN_TASKS``) gets one, built, verified, checked with
``check_env`` and written beside it; the figures go to ``knowledge-base-measures.json``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from envs import paths
from envs.catalog import load_env_dir
from envs.check import check_env
from envs.engine import Environment
from envs.quality.retrieval import retrieval_counts

from ..dual.build import write_env
from .variant import MIN_TASKS, SUFFIX, TABLE, KbVariant, build_variant, eligible_tasks
from .verify import KnowledgeBuildError, verify_variant

MEASURES_FILE = "knowledge-base-measures.json"


def variant_for(env_dir: Path, *, check: bool = True) -> KbVariant | None:
    """The verified (and, with ``check``, checked) variant of the environment in ``env_dir``, or None
    when it has too few tasks that can rest on an article (counted again once its write tasks are
    choices or plain writes).

    Raises:
        KnowledgeBuildError: a task breaks the verification, or the variant fails ``check_env``.
    """
    entry = load_env_dir(env_dir)
    if entry.spec.id.endswith(SUFFIX) or eligible_tasks(entry.spec, entry.tasks) < MIN_TASKS:
        return None
    variant = build_variant(entry.spec, entry.tasks)
    if sum(bool(t.required_documents) for t in variant.tasks) < MIN_TASKS:
        return None  # its write tasks became plain writes, and too few choices could be made
    verify_variant(variant)
    if check:
        report = check_env(variant.spec, variant.tasks)
        if not report.ok:
            problem = report.problems[0]
            raise KnowledgeBuildError(
                variant.spec.id, problem.where.removeprefix("task "), f"[{problem.check}] {problem.message}"
            )
    return variant


def measures(variant: KbVariant) -> dict[str, Any]:
    rows = variant.spec.seed.get(TABLE, [])
    counts = retrieval_counts(Environment(variant.spec), variant.tasks)
    return {
        "env": variant.spec.id,
        "source": variant.source,
        "articles": len(rows),
        "distractors": sum(len(p.distractors) for p in variant.plans),
        "rules_in_articles": len(variant.plans),
        "tasks": len(variant.tasks),
        "retrieval_tasks": counts.retrieval_tasks,
        "retrieval_top3_hits": counts.retrieval_top3_hits,
    }


def write_kb_catalog(out: Path, sources: Sequence[str] | None = None) -> dict[str, Any]:
    """Build a variant of each environment folder of ``out`` (or of ``sources``) that qualifies, write
    it under ``out``, and return the figures (also written as ``out/knowledge-base-measures.json``)."""
    names = sources if sources is not None else sorted(p.name for p in out.iterdir() if (p / paths.SPEC_FILE).is_file())
    per_env = []
    for name in names:
        if not (out / name / paths.SPEC_FILE).is_file():  # a domain that did not pass synthesis
            continue
        variant = variant_for(out / name)
        if variant is None:
            continue
        write_env(variant.spec, variant.tasks, out)
        per_env.append(measures(variant))
    total = {
        key: sum(int(e[key]) for e in per_env)
        for key in ("articles", "distractors", "tasks", "retrieval_tasks", "retrieval_top3_hits")
    }
    total["envs"] = len(per_env)
    figures = {"total": total, "envs": per_env}
    (out / MEASURES_FILE).write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return figures
