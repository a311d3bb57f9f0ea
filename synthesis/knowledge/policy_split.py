"""A generated policy taken apart into the pieces a help center is made of.

Generated policies have one layout (``synthesis.tools.envgen._policy`` and ``policy_text``): a
preamble (title, description, the current time), ``## Identity``, ``## Conduct``, optionally
``## Always``, one section per entity (its status table, then "What you can do" with each write
tool's line and, under it, each rule again with why it is there), then ``## What only our staff can
do``. The sections are told apart by their ``##`` headings, which the generator writes; a rule's
reason is read from its own line ("  - <Rule text>, <why>."), found by the rule's text from
``spec.rules``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

#: Sections that stay in the agent's prompt: who to serve and how to behave.
HEADER_SECTIONS = ("Identity", "Conduct")
STAFF = "What only our staff can do"
ALWAYS = "Always"
_ACTIONS = "What you can do"


@dataclass
class Section:
    heading: str
    lines: list[str] = field(default_factory=list)

    @property
    def body(self) -> str:
        return "\n".join(self.lines).strip()


@dataclass
class SplitPolicy:
    preamble: list[str]
    sections: list[Section]

    def section(self, heading: str) -> Section | None:
        return next((s for s in self.sections if s.heading == heading), None)

    @property
    def entity_sections(self) -> list[Section]:
        named = (*HEADER_SECTIONS, STAFF, ALWAYS)
        return [s for s in self.sections if s.heading not in named]


def split_policy(policy: str) -> SplitPolicy:
    """The preamble and the ``##`` sections of ``policy``, in order.

    >>> p = split_policy("# T\\n\\nThe current time is X.\\n\\n## Identity\\nWho.\\n\\n## Loans\\nA loan.\\n")
    >>> p.preamble, [(s.heading, s.body) for s in p.sections]
    (['# T', '', 'The current time is X.', ''], [('Identity', 'Who.'), ('Loans', 'A loan.')])
    """
    preamble: list[str] = []
    sections: list[Section] = []
    for line in policy.splitlines():
        if line.startswith("## "):
            sections.append(Section(line[3:].strip()))
        elif sections:
            sections[-1].lines.append(line)
        else:
            preamble.append(line)
    return SplitPolicy(preamble, sections)


def statuses_and_actions(section: Section) -> tuple[list[str], list[str]]:
    """An entity section cut where its actions start: (intro and status table, the actions)."""
    for i, line in enumerate(section.lines):
        if line.startswith(_ACTIONS) or line.startswith("You cannot change"):
            return section.lines[:i], section.lines[i:]
    return section.lines, []


def rule_reasons(policy: str, texts: Sequence[str]) -> dict[str, str]:
    """Each rule text's reason as the policy gives it under the tool's line ("so that ...")."""
    reasons: dict[str, str] = {}
    for line in policy.splitlines():
        if not line.startswith("  - "):
            continue
        content = line[4:].strip()
        for text in texts:
            head = text[:1].upper() + text[1:] + ", "
            if content.startswith(head) and text not in reasons:
                reasons[text] = content[len(head) :].rstrip(".")
    return reasons


def is_reason_line(line: str, text: str) -> bool:
    """Whether ``line`` is the line under a tool that gives ``text`` again with its reason."""
    return line.startswith("  - ") and line[4:].lower().startswith(text.lower() + ",")
