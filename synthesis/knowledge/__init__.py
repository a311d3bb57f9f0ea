"""Knowledge-base variants of synthesized environments: the rules move from the prompt into a help
center of articles (with close-but-wrong distractors), and the tasks that a rule decides name the
article stating it (docs/synthesis.md, "Knowledge-base variants")."""

from .catalog import MEASURES_FILE, measures, variant_for, write_kb_catalog
from .variant import SUFFIX, KbVariant, build_variant, eligible_tasks
from .verify import KnowledgeBuildError, verify_variant

__all__ = [
    "MEASURES_FILE",
    "SUFFIX",
    "KbVariant",
    "KnowledgeBuildError",
    "build_variant",
    "eligible_tasks",
    "measures",
    "variant_for",
    "verify_variant",
    "write_kb_catalog",
]
