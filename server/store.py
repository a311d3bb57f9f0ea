"""The durable episode store: episodes and the ordered log of their calls (SQLAlchemy Core).

The log is the truth: an episode's live state is rebuilt by replaying its committed write calls
(``write_log``). Every call — read or write, success or error — is logged with its timing, so the
full trajectory can be exported. A call's row is committed before its response is sent, so a
crashed server loses no call a client saw succeed. SQLite (WAL) by default; any SQLAlchemy URL
(PostgreSQL for replicas sharing work) works with the same code. Replicas sharing the store log
each call with ``commit_call``, which refuses a sequence number another replica took first.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.sql.compiler import SQLCompiler

from .errors import StoreUnavailable
from .outcomes import result_text

metadata = sa.MetaData()

episodes = sa.Table(
    "episodes",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("tenant", sa.String(128), nullable=False, index=True),
    sa.Column("env_id", sa.String(64), nullable=False),
    sa.Column("task_id", sa.String(128), nullable=True),
    sa.Column("status", sa.String(16), nullable=False),  # open | closed | expired
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("last_active_at", sa.Float, nullable=False),
    sa.Column("calls", sa.Integer, nullable=False, default=0),
    # Bytes of its call log (arguments and results as stored), kept with each append: the tenant's
    # store use is a sum over its episodes, not over every logged call.
    sa.Column("log_bytes", sa.BigInteger, nullable=False, default=0, server_default="0"),
    # Where the agent finds the environment's documents (envs.formats.knowledge_modes).
    sa.Column("knowledge", sa.String(16), nullable=False, default="search", server_default="search"),
)

calls = sa.Table(
    "calls",
    metadata,
    sa.Column("episode_id", sa.String(64), sa.ForeignKey("episodes.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("tool", sa.String(128), nullable=False),
    sa.Column("arguments", sa.Text, nullable=False),
    sa.Column("kind", sa.String(8), nullable=False),  # read | write | unknown | reset
    sa.Column("is_error", sa.Boolean, nullable=False),
    sa.Column("result", sa.Text, nullable=True),
    sa.Column("error_type", sa.String(64), nullable=True),
    sa.Column("started_at", sa.Float, nullable=False),
    sa.Column("duration_ms", sa.Float, nullable=False),
    sa.Column("transport", sa.String(8), nullable=False),  # mcp | rest
    # Who called: the agent, or in a dual-control environment the user (their own tools, their side).
    sa.Column("actor", sa.String(8), nullable=False, default="agent", server_default="agent"),
)


@dataclass(frozen=True)
class EpisodeRow:
    """One episode's record."""

    id: str
    tenant: str
    env_id: str
    task_id: str | None
    status: str
    created_at: float
    last_active_at: float
    calls: int
    log_bytes: int = 0
    knowledge: str = "search"  # where the agent finds the documents (envs.formats.knowledge_modes)


@dataclass(frozen=True)
class CallRow:
    """One logged call."""

    seq: int
    tool: str
    arguments: dict[str, Any]
    kind: str
    is_error: bool
    result: Any
    error_type: str | None
    started_at: float
    duration_ms: float
    transport: str
    result_json: str | None = None  # ``result`` already serialized, when the caller has it (never read back)
    arguments_json: str | None = None  # ``arguments`` already serialized, likewise
    actor: str = "agent"  # or "user": the user's own tools in a dual-control environment


@dataclass(frozen=True)
class StoredCall:
    """One logged call as the store holds it: arguments and result as their JSON text, which a log
    page sends as it is (parsing and serializing a megabyte again cost several times its size)."""

    seq: int
    tool: str
    arguments_json: str
    kind: str
    is_error: bool
    result_json: str | None
    error_type: str | None
    started_at: float
    duration_ms: float
    transport: str
    actor: str = "agent"

    @property
    def size(self) -> int:
        """Bytes of its arguments and result as UTF-8 (what the log quotas count)."""
        return _utf8_bytes(self.arguments_json) + _utf8_bytes(self.result_json)


#: What the database driver raises when the store cannot be reached (down, dropped, out of connections),
#: as opposed to a mistake in a statement: the API answers these with 503, not 500.
STORE_UNREACHABLE: tuple[type[Exception], ...] = (sa.exc.OperationalError, sa.exc.InterfaceError)

#: The ``kind`` of a logged reset: the episode went back to its initial state, so a rebuild replays
#: only the writes after it.
RESET_KIND = "reset"

#: What ``Store.commit_call`` found: the call is logged; another replica logged this sequence
#: number first (the caller's state is stale); or the episode is no longer open.
CommitResult = Literal["committed", "stale", "ended"]

_ADVANCE = (
    episodes.update()
    .where(
        episodes.c.id == sa.bindparam("eid"),
        episodes.c.status == sa.literal_column("'open'"),  # not a parameter: callers bind only the five below
        episodes.c.calls == sa.bindparam("prev_calls"),
    )
    .values(
        calls=sa.bindparam("new_calls"),
        last_active_at=sa.bindparam("at"),
        log_bytes=episodes.c.log_bytes + sa.bindparam("added", type_=sa.BigInteger),
    )
)

_TOUCH = (
    episodes.update()
    .where(episodes.c.id == sa.bindparam("eid"))
    .values(
        calls=sa.bindparam("new_calls"),
        last_active_at=sa.bindparam("at"),
        log_bytes=episodes.c.log_bytes + sa.bindparam("added", type_=sa.BigInteger),
    )
)


class _DriverStatement:
    """A statement compiled once for the store's dialect, run as plain DBAPI ``executemany`` (or
    ``execute`` for a single row, whose rowcount the caller may need).

    Logging calls is the store's hot path (a row per tool call); SQLAlchemy's per-row parameter
    processing cost more than SQLite's insert itself. Rows come as tuples in ``keys`` order and
    hold plain str, int, float and bool values, which every DBAPI driver takes as they are.
    """

    def __init__(self, statement: sa.sql.ClauseElement, dialect: sa.Dialect, keys: tuple[str, ...]) -> None:
        compiled = statement.compile(dialect=dialect)
        assert isinstance(compiled, SQLCompiler)
        self.sql = str(compiled)
        self.keys = keys
        position = tuple(compiled.positiontup or ()) if compiled.positional else None
        if position is not None and sorted(position) != sorted(keys):
            raise ValueError(f"statement binds {position}, expected {keys}")
        self._pass_through = position == keys
        self._position = position

    def run(self, conn: Connection, rows: list[tuple[Any, ...]]) -> int:
        """Execute for every row; returns the rows affected (as the driver counts them)."""
        params: Any
        if self._pass_through:
            params = rows
        elif self._position is None:  # named paramstyle (e.g. psycopg)
            params = [dict(zip(self.keys, r, strict=True)) for r in rows]
        else:
            index = [self.keys.index(k) for k in self._position]
            params = [tuple(r[i] for i in index) for r in rows]
        if len(params) == 1:  # one row: execute, not executemany, so the driver reports its rowcount
            params = params[0]
        return int(conn.exec_driver_sql(self.sql, params).rowcount)


_CALL_KEYS = tuple(c.name for c in calls.columns)
_LOG_ROWS_BUFFERED = 4  # rows of a log page fetched from the database at a time (a row may be megabytes)
_DELETE_BATCH = 500  # episodes deleted per transaction (SQLite caps a statement's parameters)
_TOUCH_KEYS = ("eid", "new_calls", "at", "added")
_ADVANCE_KEYS = ("eid", "prev_calls", "new_calls", "at", "added")


def _advance_and_insert() -> sa.sql.ClauseElement:
    """``_ADVANCE`` and the call's insert as one statement (a data-modifying CTE, PostgreSQL only):
    one round trip in autocommit instead of four (BEGIN, UPDATE, INSERT, COMMIT)."""
    advanced = _ADVANCE.returning(episodes.c.id).cte("advanced")
    values = sa.select(*(sa.bindparam(c.name, type_=c.type) for c in calls.columns)).select_from(advanced)
    return calls.insert().from_select(list(_CALL_KEYS), values)


_ARGUMENTS_JSON = json.JSONEncoder(sort_keys=True, default=str)
arguments_text = _ARGUMENTS_JSON.encode


def _utf8_bytes(text: str | None) -> int:
    if text is None:
        return 0
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def values_bytes(values: tuple[Any, ...]) -> int:
    """Bytes a ``calls`` row (``_call_values``) stores: its arguments and result as UTF-8 JSON text."""
    return _utf8_bytes(values[3]) + _utf8_bytes(values[6])


def call_bytes(call: CallRow) -> int:
    """Bytes ``call``'s row stores in the log (what the log quotas count)."""
    return values_bytes(_call_values("", call))


def _call_values(episode_id: str, call: CallRow) -> tuple[Any, ...]:
    """One ``calls`` row, in ``_CALL_KEYS`` (column) order."""
    result = call.result_json if call.result_json is not None else result_text(call.result)
    return (
        episode_id,
        call.seq,
        call.tool,
        call.arguments_json if call.arguments_json is not None else _ARGUMENTS_JSON.encode(call.arguments),
        call.kind,
        call.is_error,
        result,
        call.error_type,
        call.started_at,
        call.duration_ms,
        call.transport,
        call.actor,
    )


def _sqlite_pragmas(fsync: bool) -> Any:
    def on_connect(dbapi_conn: Any, _record: Any) -> None:
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        # WAL + NORMAL survives a killed process (the WAL is in the OS cache); FULL also survives power loss.
        cur.execute(f"PRAGMA synchronous={'FULL' if fsync else 'NORMAL'}")
        cur.execute("PRAGMA busy_timeout=10000")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    return on_connect


def safe_url(url: str) -> str:
    """``url`` with its password hidden, for messages and logs."""
    try:
        return sa.engine.make_url(url).render_as_string(hide_password=True)
    except sa.exc.ArgumentError:
        return repr(url)


class Store:
    """Episode records and call logs in one SQL database."""

    def __init__(self, url: str, *, fsync: bool = False) -> None:
        """Open (and create, if new) the store at SQLAlchemy ``url``.

        Raises:
            StoreUnavailable: the URL is malformed, its driver is not installed, or the database
                cannot be reached; the message shows the URL without its password.
        """
        if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
            Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        try:
            self.engine: Engine = sa.create_engine(url, future=True)
            if self.engine.dialect.name == "sqlite":
                sa.event.listen(self.engine, "connect", _sqlite_pragmas(fsync))
            metadata.create_all(self.engine)
            self._add_log_bytes_column()
            self._add_knowledge_column()
            self._add_actor_column()
        except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError, ImportError) as exc:
            hint = ""
            if url.split(":", 1)[0] in ("postgres", "postgresql", "postgresql+psycopg2"):
                hint = " (for PostgreSQL use postgresql+psycopg://USER:PASSWORD@HOST:PORT/DATABASE)"
            raise StoreUnavailable(
                f"Cannot use database URL {safe_url(url)}: {exc}{hint}", field="database_url"
            ) from None
        except UnicodeError:  # the host is not a host name at all, e.g. a placeholder such as '...'
            raise StoreUnavailable(
                f"Cannot use database URL {safe_url(url)}: its host is not a valid host name", field="database_url"
            ) from None
        except sa.exc.OperationalError as exc:
            reason = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
            raise StoreUnavailable(
                f"Cannot reach the episode store {safe_url(url)}: {reason}", field="database_url"
            ) from None
        self._insert_call = _DriverStatement(calls.insert(), self.engine.dialect, _CALL_KEYS)
        self._touch = _DriverStatement(_TOUCH, self.engine.dialect, _TOUCH_KEYS)
        self._commit_one: _DriverStatement | None = None
        if self.engine.dialect.name == "postgresql":
            self._commit_one = _DriverStatement(_advance_and_insert(), self.engine.dialect, _ADVANCE_KEYS + _CALL_KEYS)
            # A pool of its own, always in autocommit: switching a pooled connection's isolation level on
            # every checkout and back on return costs round trips of its own.
            self._autocommit = sa.create_engine(url, isolation_level="AUTOCOMMIT")

    def _add_log_bytes_column(self) -> None:
        """Give a store made before episodes counted their log bytes that column, filled in from the
        calls it holds (``create_all`` makes missing tables, never missing columns). Characters are
        counted there, not UTF-8 bytes: close enough for quotas, and the same SQL on every database."""
        if "log_bytes" in {c["name"] for c in sa.inspect(self.engine).get_columns("episodes")}:
            return
        stored = sa.func.length(calls.c.arguments) + sa.func.coalesce(sa.func.length(calls.c.result), 0)
        per_episode = (
            sa.select(sa.func.coalesce(sa.func.sum(stored), 0))
            .where(calls.c.episode_id == episodes.c.id)
            .scalar_subquery()
        )
        with self.engine.begin() as c:
            c.exec_driver_sql("ALTER TABLE episodes ADD COLUMN log_bytes BIGINT NOT NULL DEFAULT 0")
            c.execute(episodes.update().values(log_bytes=per_episode))

    def _add_actor_column(self) -> None:
        """Give a store made before users had tools of their own (dual control) the ``actor`` column:
        every call it holds was the agent's."""
        if "actor" in {c["name"] for c in sa.inspect(self.engine).get_columns("calls")}:
            return
        with self.engine.begin() as c:
            c.exec_driver_sql("ALTER TABLE calls ADD COLUMN actor VARCHAR(8) NOT NULL DEFAULT 'agent'")

    def _add_knowledge_column(self) -> None:
        """Give a store made before episodes could take their documents in the prompt the
        ``knowledge`` column: every episode it holds searched them with tools."""
        if "knowledge" in {c["name"] for c in sa.inspect(self.engine).get_columns("episodes")}:
            return
        with self.engine.begin() as c:
            c.exec_driver_sql("ALTER TABLE episodes ADD COLUMN knowledge VARCHAR(16) NOT NULL DEFAULT 'search'")

    def close(self) -> None:
        self.engine.dispose()
        if self._commit_one is not None:
            self._autocommit.dispose()

    def reachable(self) -> bool:
        """Whether the database answers a trivial query right now."""
        try:
            with self.engine.connect() as c:
                c.exec_driver_sql("SELECT 1")
        except sa.exc.SQLAlchemyError:
            return False
        return True

    @contextmanager
    def _tx(self) -> Iterator[Connection]:
        with self.engine.begin() as conn:
            yield conn

    def create_episode(self, row: EpisodeRow, log: list[CallRow] | None = None) -> None:
        """Record a new episode, with the calls it starts from (a fork's copy of its source's), in one
        transaction."""
        values = [_call_values(row.id, call) for call in log or []]
        with self._tx() as c:
            c.execute(episodes.insert().values(**{**row.__dict__, "log_bytes": sum(map(values_bytes, values))}))
            if values:
                self._insert_call.run(c, values)

    def get_episode(self, episode_id: str) -> EpisodeRow | None:
        with self.engine.connect() as c:
            r = c.execute(sa.select(episodes).where(episodes.c.id == episode_id)).mappings().first()
        return EpisodeRow(**r) if r else None

    def append_calls(self, rows: list[tuple[str, CallRow]]) -> None:
        """Log calls (episode id, call) in order and touch their episodes, in one transaction."""
        if not rows:
            return
        latest: dict[str, tuple[int, float, int]] = {}
        values = [_call_values(episode_id, call) for episode_id, call in rows]
        for (episode_id, call), row_values in zip(rows, values, strict=True):
            added = latest[episode_id][2] if episode_id in latest else 0
            latest[episode_id] = (call.seq, call.started_at, added + values_bytes(row_values))
        with self._tx() as c:
            self._insert_call.run(c, values)
            self._touch.run(c, [(e, seq, at, added) for e, (seq, at, added) in latest.items()])

    def commit_call(self, episode_id: str, call: CallRow) -> CommitResult:
        """Log one call as the episode's next, if no other replica logged that sequence number first.

        The episode's row is advanced from ``call.seq - 1`` to ``call.seq`` and the call inserted in
        one transaction. Replicas racing for the same number serialize on the episode row (the
        database's row lock); the loser sees the counter moved and gets "stale".
        """
        values = _call_values(episode_id, call)
        advance = (episode_id, call.seq - 1, call.seq, call.started_at, values_bytes(values))
        if self._commit_one is not None:
            with self._autocommit.connect() as c:
                if self._commit_one.run(c, [advance + values]) == 1:
                    return "committed"
        else:
            with self._tx() as c:
                if c.execute(_ADVANCE, dict(zip(_ADVANCE_KEYS, advance, strict=True))).rowcount == 1:
                    self._insert_call.run(c, [values])
                    return "committed"
        with self.engine.connect() as c:
            status = c.execute(sa.select(episodes.c.status).where(episodes.c.id == episode_id)).scalar()
        return "stale" if status == "open" else "ended"

    def touch(self, episode_id: str, at: float) -> None:
        """Record activity at ``at``; never moves the time back (another replica may know of later calls)."""
        with self._tx() as c:
            c.execute(
                episodes.update()
                .where(episodes.c.id == episode_id, episodes.c.last_active_at < at)
                .values(last_active_at=at)
            )

    def calls(self, episode_id: str, *, replay_log: bool = False, upto: int | None = None) -> list[CallRow]:
        """The episode's calls in order. ``replay_log``: only what rebuilds its state, the successful
        writes since its last reset; ``upto``: only sequence numbers up to that one."""
        q = sa.select(calls).where(calls.c.episode_id == episode_id)
        if upto is not None:
            q = q.where(calls.c.seq <= upto)
        if replay_log:
            last_reset = sa.select(sa.func.coalesce(sa.func.max(calls.c.seq), 0)).where(
                calls.c.episode_id == episode_id, calls.c.kind == RESET_KIND
            )
            if upto is not None:
                last_reset = last_reset.where(calls.c.seq <= upto)
            q = q.where(
                calls.c.kind == "write", calls.c.is_error.is_(False), calls.c.seq > last_reset.scalar_subquery()
            )
        with self.engine.connect() as c:
            rows = c.execute(q.order_by(calls.c.seq)).mappings().all()
        return [
            CallRow(
                seq=r["seq"],
                tool=r["tool"],
                arguments=json.loads(r["arguments"]),
                kind=r["kind"],
                is_error=r["is_error"],
                result=json.loads(r["result"]) if r["result"] is not None else None,
                error_type=r["error_type"],
                started_at=r["started_at"],
                duration_ms=r["duration_ms"],
                transport=r["transport"],
                actor=r["actor"],
            )
            for r in rows
        ]

    def log_page(
        self, episode_id: str, *, after: int, limit: int, max_bytes: int
    ) -> tuple[int, list[StoredCall], bool]:
        """(calls in the log, up to ``limit`` calls with ``seq`` above ``after`` in order, whether more
        follow). The page ends once it holds ``max_bytes`` bytes of arguments and results (one
        call at least): rows are read a few at a time, so however large the log, a page is about
        that size in memory."""
        where = (calls.c.episode_id == episode_id, calls.c.seq > after)
        page: list[StoredCall] = []
        size = 0
        with self.engine.connect() as c:
            total = int(c.execute(sa.select(sa.func.count()).where(calls.c.episode_id == episode_id)).scalar_one())
            q = sa.select(calls).where(*where).order_by(calls.c.seq).limit(limit)
            result = c.execution_options(yield_per=_LOG_ROWS_BUFFERED).execute(q)
            try:
                for r in result.mappings():
                    call = StoredCall(
                        seq=r["seq"],
                        tool=r["tool"],
                        arguments_json=r["arguments"],
                        kind=r["kind"],
                        is_error=r["is_error"],
                        result_json=r["result"],
                        error_type=r["error_type"],
                        started_at=r["started_at"],
                        duration_ms=r["duration_ms"],
                        transport=r["transport"],
                        actor=r["actor"],
                    )
                    page.append(call)
                    size += call.size
                    if size >= max_bytes:
                        break
            finally:
                result.close()
            more = False
            if page and (size >= max_bytes or len(page) == limit):
                beyond = sa.select(calls.c.seq).where(calls.c.episode_id == episode_id, calls.c.seq > page[-1].seq)
                more = c.execute(beyond.limit(1)).first() is not None
        return total, page, more

    def set_status(self, episode_id: str, status: str) -> None:
        with self._tx() as c:
            c.execute(episodes.update().where(episodes.c.id == episode_id).values(status=status))

    def list_episodes(
        self, tenant: str, *, status: str | None = None, limit: int = 50, offset: int = 0
    ) -> tuple[int, list[EpisodeRow]]:
        """A tenant's episodes, newest first, optionally of one status: (how many in all, this page)."""
        where = [episodes.c.tenant == tenant, *([episodes.c.status == status] if status else [])]
        with self.engine.connect() as c:
            total = int(c.execute(sa.select(sa.func.count()).where(*where)).scalar_one())
            q = sa.select(episodes).where(*where).order_by(episodes.c.created_at.desc(), episodes.c.id)
            rows = c.execute(q.limit(limit).offset(offset)).mappings().all()
        return total, [EpisodeRow(**r) for r in rows]

    def tenant_log_bytes(self, tenant: str) -> int:
        """Bytes of every call log the tenant has in the store, open episodes and ended ones."""
        with self.engine.connect() as c:
            q = sa.select(sa.func.coalesce(sa.func.sum(episodes.c.log_bytes), 0)).where(episodes.c.tenant == tenant)
            return int(c.execute(q).scalar_one())

    def count_open(self, tenant: str) -> int:
        with self.engine.connect() as c:
            q = sa.select(sa.func.count()).where(episodes.c.tenant == tenant, episodes.c.status == "open")
            return int(c.execute(q).scalar_one())

    def expire_idle(self, idle_before: float) -> list[str]:
        """Mark open episodes idle since ``idle_before`` as expired; return their ids."""
        with self._tx() as c:
            ids = list(
                c.execute(
                    sa.select(episodes.c.id).where(episodes.c.status == "open", episodes.c.last_active_at < idle_before)
                ).scalars()
            )
            if ids:
                c.execute(episodes.update().where(episodes.c.id.in_(ids)).values(status="expired"))
        return ids

    def purge(self, inactive_before: float) -> int:
        """Delete ended episodes (and their logs) inactive since ``inactive_before``."""
        with self._tx() as c:
            ended = sa.select(episodes.c.id).where(
                episodes.c.status != "open", episodes.c.last_active_at < inactive_before
            )
            c.execute(calls.delete().where(calls.c.episode_id.in_(ended)))
            return int(c.execute(episodes.delete().where(episodes.c.id.in_(ended.scalar_subquery()))).rowcount)

    def prune_ended(self, *, keep_episodes: int, keep_bytes: int) -> int:
        """Delete each tenant's oldest ended episodes (and their logs) beyond its newest
        ``keep_episodes``, or beyond ``keep_bytes`` of logs counted from its newest; the number deleted.
        One tenant's logs never push out another's."""
        ended = episodes.c.status != "open"
        # Only tenants over a limit are ranked: counting and summing needs no sort, ranking does.
        over = (
            sa.select(episodes.c.tenant)
            .where(ended)
            .group_by(episodes.c.tenant)
            .having(sa.or_(sa.func.count() > keep_episodes, sa.func.sum(episodes.c.log_bytes) > keep_bytes))
        )
        newest_first = (episodes.c.last_active_at.desc(), episodes.c.id)
        ranked = (
            sa.select(
                episodes.c.id,
                sa.func.row_number().over(partition_by=episodes.c.tenant, order_by=newest_first).label("n"),
                sa.func.sum(episodes.c.log_bytes)
                .over(partition_by=episodes.c.tenant, order_by=newest_first, rows=(None, 0))
                .label("kept_bytes"),
            )
            .where(ended, episodes.c.tenant.in_(over))
            .subquery()
        )
        beyond = sa.select(ranked.c.id).where(sa.or_(ranked.c.n > keep_episodes, ranked.c.kept_bytes > keep_bytes))
        with self.engine.connect() as c:
            ids = list(c.execute(beyond).scalars())
        for start in range(0, len(ids), _DELETE_BATCH):
            batch = ids[start : start + _DELETE_BATCH]
            with self._tx() as c:  # an ended episode takes no calls: nothing can be added to it meanwhile
                c.execute(calls.delete().where(calls.c.episode_id.in_(batch)))
                c.execute(episodes.delete().where(episodes.c.id.in_(batch), episodes.c.status != "open"))
        return len(ids)
