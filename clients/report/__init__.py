"""The evaluation report: the aggregate of a run (:mod:`.model`), in words (:mod:`.summary`), as a
plot (:mod:`.plot`) and a page (:mod:`.page`), written as files (:mod:`.files`). The plot and the page
take an :class:`EvalReport` and import nothing that calls them."""

from .files import write_report
from .model import EvalReport, InfraFailure, build_report
from .summary import headline, lowest_sentence, summary_markdown

__all__ = [
    "EvalReport",
    "InfraFailure",
    "build_report",
    "headline",
    "lowest_sentence",
    "summary_markdown",
    "write_report",
]
