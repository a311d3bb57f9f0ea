"""What every knowledge-base task must hold, checked when the variant is built:

(a) each rule deciding the task is stated, with its value, in exactly one article, and that article is
    among the task's ``required_documents``;
(b) the rule has a distractor (another segment's or an archived edition's article) whose terms let
    through what the rule refuses (a refusal) or refuse what it allows (a gold write), and acting on
    them fails the task: with the writes they refuse left out of the gold calls, the refused calls
    made and the reference answer given, the task scores below 1.0 on the real engine.

A write task the articles decide as a choice (:mod:`.choices`, tagged ``document-choice``) holds (b)
in its own form: the write made on each record its patch adds (those the rule refuses and another
segment's terms allow) after the gold calls fails it. A plain write kept in the variant (no
``required_documents``) is not checked.

A task that breaks either stops the build with :class:`KnowledgeBuildError`, naming the environment
and the task.
"""

from __future__ import annotations

from envs.engine import Environment, Episode
from envs.errors import EnvFarmError, ToolError
from envs.formats.task import Task, ToolCall
from envs.grading.decidable import stated_now
from envs.grading.scoring import score_episode

from .choices import patched_records
from .variant import CHOICE, TABLE, KbVariant


class KnowledgeBuildError(EnvFarmError):
    """A knowledge-base task is not decided by exactly one article, or no distractor would flip it."""

    def __init__(self, env_id: str, task_id: str, message: str) -> None:
        super().__init__(f"{env_id}: task {task_id}: {message}")
        self.env_id, self.task_id = env_id, task_id


def stating(rows: list[dict[str, str]], text: str) -> list[str]:
    """The ids of the articles whose title or body states ``text`` (any case)."""
    low = text.lower()
    return [r["article_id"] for r in rows if low in f"{r['title']}\n{r['body']}".lower()]


def verify_variant(variant: KbVariant) -> None:
    """Check (a) and (b) for every task of ``variant``.

    Raises:
        KnowledgeBuildError: the first task that breaks one, and why.
    """
    spec = variant.spec
    rows = spec.seed.get(TABLE, [])
    now = stated_now(spec.policy)
    env = Environment(spec)
    plans = {p.text: p for p in variant.plans}
    for task in variant.tasks:
        if not task.required_documents:  # a plain write kept in the variant: no article decides it
            continue
        writes = []
        for text, value, index in variant.deciding.get(task.id, []):
            found = stating(rows, text)
            if len(found) != 1 or found[0] not in task.required_documents:
                said = ", ".join(found) or "no article"
                raise KnowledgeBuildError(
                    spec.id, task.id, f"the rule '{text}' is stated in {said}, not in exactly one required document"
                )
            plan = plans[text]
            flipped = (
                index is None
            )  # a refusal is flipped by terms that allow its value, a write by terms that refuse it
            flips = [a for a, t in plan.distractors.items() if now is not None and t.allows(now, value) is flipped]
            if CHOICE in task.tags and index is not None:  # the refused copies decide it (_writing_copies_fails)
                _writing_copies_fails(env, task, spec.id, index)
                writes += [index] if flips else []  # an archived edition that refuses it is checked too
                continue
            if not flips:
                what = f"lets {value} through" if flipped else f"refuses {value}"
                raise KnowledgeBuildError(spec.id, task.id, f"no distractor of '{text}' {what}")
            if index is not None:
                writes.append(index)
        if writes or CHOICE not in task.tags:
            _acting_fails(env, task, spec.id, skip=writes)


def _writing_copies_fails(env: Environment, task: Task, env_id: str, index: int) -> None:
    """A choice task (:mod:`.choices`): the write made on each record its patch gives the customer
    (those the rule refuses, listed first and last) beside the gold calls must fail it."""
    write = task.gold_actions[index]
    first = next(i for i, c in enumerate(task.gold_actions) if c.tool == write.tool)
    patched = patched_records(env.spec, task)
    if not patched:
        raise KnowledgeBuildError(env_id, task.id, "a choice task with no refused records patched in")
    for table, record in patched:
        key = env.spec.table(table).primary_key[0]
        if any(c.tool == write.tool and c.arguments.get(key) == record for c in task.gold_actions):
            raise KnowledgeBuildError(env_id, task.id, f"the gold writes {record}, which the rule refuses")
        episode = env.episode(task)
        try:  # the copy written where the gold makes its first write, as an agent that acts on it would
            episode.replay(task.gold_actions[:first])
            try:
                episode.call_tool(write.tool, {**write.arguments, key: record})
            except ToolError:
                raise KnowledgeBuildError(env_id, task.id, f"the tool refuses the write on {record}") from None
            _calls_allowed(episode, task.gold_actions[first:])
            reward = score_episode(env, task, episode, answer=task.answer or "").reward
        finally:
            episode.close()
        if reward >= 1.0:
            raise KnowledgeBuildError(env_id, task.id, f"writing {record}, which the rule refuses, still scores 1.0")


def _calls_allowed(episode: Episode, calls: list[ToolCall]) -> None:
    """Make each of ``calls`` the tools allow, as an agent acting on them would; a refused one changes
    nothing and the next is made."""
    for call in calls:
        try:
            episode.call_tool(call.tool, call.arguments, actor=call.actor)
        except ToolError:
            continue


def _acting_fails(env: Environment, task: Task, env_id: str, skip: list[int]) -> None:
    """Acting on the distractors' terms must fail the task: the gold calls with each write they would
    refuse left out (and what fails without it), each refused call made, then the reference answer."""
    episode = env.episode(task)
    try:
        _calls_allowed(episode, [c for i, c in enumerate(task.gold_actions) if i not in skip])
        _calls_allowed(episode, [r.call for r in task.refusals if r.call is not None])
        reward = score_episode(env, task, episode, answer=task.answer or "").reward
    finally:
        episode.close()
    if reward >= 1.0:
        raise KnowledgeBuildError(env_id, task.id, "acting on a distractor's terms still scores 1.0")
