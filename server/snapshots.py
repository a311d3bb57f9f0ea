"""An episode's state saved after a costly write, so a rebuild never runs that write again.

An episode not in memory (after a restart, an eviction, or on another replica) is rebuilt by replaying
its logged writes. Most cost a millisecond; a write that ran for seconds would cost as much again at
every rebuild, and four of them made the first call after a restart take 35 s. So once a write's SQL
ran for ``ENVFARM_SNAPSHOT_AFTER_SECONDS`` (0.25 s) or more, the episode's database image is stored with the sequence
number it holds (one per episode, replaced by the next), and a rebuild starts from it and replays only
the writes after it. A reset drops it, and so does the episode's end or expiry (an ended episode is
not rebuilt for calls), so a tenant holds at most one per open episode; deleting the episode deletes
it with the log (``ON DELETE CASCADE``).
"""

from __future__ import annotations

import sqlalchemy as sa

from .store import RESET_KIND, Store, calls, episodes

_metadata = sa.MetaData()
snapshots = sa.Table(
    "snapshots",
    _metadata,
    sa.Column("episode_id", sa.String(64), sa.ForeignKey(episodes.c.id, ondelete="CASCADE"), primary_key=True),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("image", sa.LargeBinary, nullable=False),
)


class Snapshots:
    """The store's table of saved episode states."""

    def __init__(self, store: Store) -> None:
        self.engine = store.engine
        _metadata.create_all(self.engine)

    def save(self, episode_id: str, seq: int, image: bytes) -> None:
        """The state after call ``seq`` (replacing an earlier one)."""
        with self.engine.begin() as c:
            c.execute(sa.delete(snapshots).where(snapshots.c.episode_id == episode_id))
            c.execute(sa.insert(snapshots).values(episode_id=episode_id, seq=seq, image=image))

    def drop(self, *episode_ids: str) -> None:
        """Forget the saved states of these episodes (reset, ended or expired)."""
        for start in range(0, len(episode_ids), 500):  # a reap may expire thousands: bounded statements
            chunk = episode_ids[start : start + 500]
            with self.engine.begin() as c:
                c.execute(sa.delete(snapshots).where(snapshots.c.episode_id.in_(chunk)))

    def latest(self, episode_id: str, upto: int) -> tuple[int, bytes] | None:
        """The saved state a rebuild up to call ``upto`` may start from: taken at or before it, and
        after the episode's last reset up to it (else None)."""
        last_reset = (
            sa.select(sa.func.coalesce(sa.func.max(calls.c.seq), 0))
            .where(calls.c.episode_id == episode_id, calls.c.kind == RESET_KIND, calls.c.seq <= upto)
            .scalar_subquery()
        )
        q = sa.select(snapshots.c.seq, snapshots.c.image).where(
            snapshots.c.episode_id == episode_id, snapshots.c.seq <= upto, snapshots.c.seq > last_reset
        )
        with self.engine.connect() as c:
            row = c.execute(q).first()
        return None if row is None else (int(row.seq), bytes(row.image))
