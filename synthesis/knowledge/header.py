"""The prompt of a knowledge-base variant: the original policy's header, and where the rules are.

What stays: the title and description, the current time ("The current time is …": time rules are
decided against it, ``envs.grading.decidable``), who to serve (``## Identity``) and how to behave
(``## Conduct``). Every rule moves to the help center; a paragraph says so, how to search and read
it, and that articles for another plan or segment and archived editions do not apply.
"""

from __future__ import annotations

from .policy_split import HEADER_SECTIONS, SplitPolicy

_RULES = "The rules for each request (what can be done, who is eligible, limits, time windows and fees) are "
_OTHER_SEGMENTS = [
    "",
    "Some articles are written for another plan or customer segment (their title and first line say "
    "which: Business accounts, Premier members, Partner locations, Corporate clients, the Plus plan), "
    "and some are archived editions. Those do not apply to the customers you serve: follow the "
    "standard, current article.",
]
#: Where the articles are in each knowledge mode but searching (``envs.formats.knowledge_modes``);
#: ``{{documents}}`` is where the mode puts them.
_GIVEN = {
    "full": (
        "in the help center, whose articles all follow below (there are no tools to search it in this "
        "session). Before you act on a request or turn it down, find the article on that action among "
        "them and follow its terms for the customer's record."
    ),
    "required": (
        "in the help center; the articles that apply to this conversation follow below (there are no tools "
        "to search it in this session). Before you act on a request or turn it down, find the article on "
        "that action among them and follow its terms for the customer's record."
    ),
    "none": (
        "in the help center, which you cannot consult in this session. Act only on what the tools and this "
        "policy allow, and tell the customer when you cannot tell whether a rule allows their request."
    ),
}


def help_center_paragraph(search: str, read: str, grep: str, mode: str = "search") -> list[str]:
    """The section that says where the rules are: searched with the tools, given below, or out of reach."""
    if mode == "search":
        how = (
            "in the help center, not here. Before you act on a request or turn it down, find the article on "
            f"that action: search the help center with `{search}`, read an article whole with `{read}`, and "
            f"find an exact phrase with `{grep}`. Follow the article's terms for the customer's record."
        )
    else:
        how = _GIVEN[mode]
    lines = ["", "## Where the rules are", _RULES + how, *_OTHER_SEGMENTS]
    if mode in ("full", "required"):
        lines += ["", "<help_center>", "{{documents}}", "</help_center>"]
    return lines


def header_policy(split: SplitPolicy, name: str, search: str, read: str, grep: str, mode: str = "search") -> str:
    """The variant's policy in ``mode``: the preamble (retitled), identity and conduct, and the section
    that says where the rules are."""
    preamble = list(split.preamble)
    if preamble and preamble[0].startswith("# "):
        preamble[0] = f"# {name}: agent policy"
    lines = [*preamble]
    for heading in HEADER_SECTIONS:
        section = split.section(heading)
        if section is None:
            continue
        body = [
            line.replace(
                'listed under "What only our staff can do" below',
                "that the help center lists as only our staff's to handle",
            ).replace("check that this policy allows it", "check that the help center's rules allow it")
            for line in section.lines
        ]
        lines += [f"## {heading}", *body]
    lines += help_center_paragraph(search, read, grep, mode)
    text = "\n".join(lines)
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.strip() + "\n"
