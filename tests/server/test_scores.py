"""Each episode's last score, kept in the store: recorded, replaced by the next, gone with the episode."""

from __future__ import annotations

from pathlib import Path

from envs import Score
from server.scores import ScoreBook
from server.store import EpisodeRow, Store


def _score(reward: float) -> Score:
    return Score(
        task_id="clinic-001",
        reward=reward,
        partial_credit=reward,
        components={"state": reward},
        checklist=[],
        expected_changes=1,
        achieved_changes=int(reward),
        unexpected_changes=0,
        diff=[],
    )


def test_the_last_score_is_kept_until_the_episode_is_deleted(tmp_path: Path):
    store = Store(f"sqlite:///{tmp_path / 'farm.db'}")
    book = ScoreBook(store)
    store.create_episode(EpisodeRow("ep_1", "t", "clinic", "clinic-001", "open", 1.0, 1.0, 0))
    assert book.last("ep_1") is None
    book.record("ep_1", _score(0.0), "first", at=2.0)
    book.record("ep_1", _score(1.0), "<b>second</b>", at=3.0)
    last = book.last("ep_1")
    assert last is not None and (last.scored_at, last.answer, last.score) == (3.0, "<b>second</b>", _score(1.0))

    reopened = ScoreBook(Store(f"sqlite:///{tmp_path / 'farm.db'}"))  # durable, and the table is made once
    assert reopened.last("ep_1") == last

    store.set_status("ep_1", "closed")
    assert store.purge(inactive_before=10.0) == 1  # retention deletes the episode, and its score with it
    assert book.last("ep_1") is None
    store.close()
