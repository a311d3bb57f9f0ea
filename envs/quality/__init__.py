"""The catalog quality report (:mod:`.report`) and the measures it sums: of specs (:mod:`.spec`),
seed data (:mod:`.seed`, :mod:`.seed_time`), tasks replayed on the engine (:mod:`.tasks`) and task
text (:mod:`.text`). Every measure is defined in docs/synthesis.md ("Quality report")."""

from .counts import EnvQuality
from .presentation import ENV_COLUMNS, total_lines
from .report import QualityReport, env_quality, quality_report, write_quality_report

__all__ = [
    "ENV_COLUMNS",
    "EnvQuality",
    "QualityReport",
    "env_quality",
    "quality_report",
    "total_lines",
    "write_quality_report",
]
