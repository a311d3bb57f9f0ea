"""The last score each episode was given, kept in the episode store beside its log.

``POST /episodes/{id}/score`` computes a score on demand and records it here, so whoever looks at the
episode later (the console's episode page) sees the reward, the checklist and the diff a trainer or
an evaluator got, without scoring again. One row per episode, replaced by each new score; it goes when
the episode's record goes (``ON DELETE CASCADE``: retention deletes it with the log).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import sqlalchemy as sa

from envs import Score

from .store import Store, metadata

scores = sa.Table(
    "scores",
    metadata,
    sa.Column("episode_id", sa.String(64), sa.ForeignKey("episodes.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("scored_at", sa.Float, nullable=False),
    sa.Column("answer", sa.Text, nullable=False),
    sa.Column("score", sa.Text, nullable=False),  # the Score as JSON
)


@dataclass(frozen=True)
class RecordedScore:
    """A score as recorded: when, for which final answer, and the score itself."""

    scored_at: float
    answer: str
    score: Score


class ScoreBook:
    """Records and reads each episode's last score in ``store``'s database."""

    def __init__(self, store: Store) -> None:
        self.engine = store.engine
        scores.create(self.engine, checkfirst=True)  # a store made before scores were kept lacks the table

    def record(self, episode_id: str, score: Score, answer: str, *, at: float | None = None) -> None:
        """Keep ``score`` as the episode's last, replacing any before it."""
        row = {
            "episode_id": episode_id,
            "scored_at": time.time() if at is None else at,
            "answer": answer,
            "score": score.model_dump_json(),
        }
        with self.engine.begin() as c:
            c.execute(scores.delete().where(scores.c.episode_id == episode_id))
            c.execute(scores.insert().values(**row))

    def last(self, episode_id: str) -> RecordedScore | None:
        """The episode's last recorded score, or None if it was never scored."""
        with self.engine.connect() as c:
            r = c.execute(sa.select(scores).where(scores.c.episode_id == episode_id)).mappings().first()
        if r is None:
            return None
        return RecordedScore(r["scored_at"], r["answer"], Score.model_validate_json(r["score"]))
