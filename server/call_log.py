"""Writing the call log: buffered trajectory rows, durable write rows, and bad rows kept apart.

Calls that change nothing (reads and failed calls) are buffered and written in batches; a write's
row is written, with everything buffered before it, before its result is returned. Rows are made
storable before they are queued: arguments no tool accepts (a lone surrogate, nesting deeper than
any schema allows) are logged as a note of what was wrong, results as JSON the store can hold
(escaped where not valid Unicode, cut to a note beyond ``MAX_LOGGED_RESULT`` characters).

A row the store still refuses must not poison the log: a batch it breaks is written again row by
row, and the refused row is stored as an error record in its place (or, if even that fails,
dropped and counted), so every other tenant's rows, and the writes behind them, go through. Only an
unreachable store keeps rows queued for the next attempt.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from envs.schemas.arguments import MAX_STRING_CHARS_CAP, structure_problem

from .metrics import Metrics
from .outcomes import result_text
from .store import STORE_UNREACHABLE, CallRow, Store, arguments_text

log = logging.getLogger("envfarm.server")
FLUSH_BATCH = 512
MAX_LOGGED_RESULT = 1_000_000  # characters of one result kept in the log
MAX_LOGGED_FAILED_ARGUMENTS = 65_536  # characters of a failed call's arguments (as JSON) kept in the log


def loggable_arguments(arguments: Any, max_string: int = MAX_STRING_CHARS_CAP) -> dict[str, Any]:
    """A failed call's arguments as logged: as given, or a note of why they could not be (never
    replayed: such a call changed nothing). Text longer than ``max_string`` characters is such a
    reason, and so are arguments of more than ``MAX_LOGGED_FAILED_ARGUMENTS`` characters in all (a
    thousand short strings under a name no tool takes): a refused megabyte must not cost the store
    a megabyte."""
    if not isinstance(arguments, dict):
        return {"_invalid": f"not a JSON object: {type(arguments).__name__}"}
    problem = structure_problem(arguments, max_string)
    if problem is not None:
        return {"_invalid": f"{problem[0]}: {problem[1]}"}
    size = len(arguments_text(arguments))
    if size > MAX_LOGGED_FAILED_ARGUMENTS:
        return {
            "_invalid": f"arguments of {size:,} characters of JSON; a failed call's are logged up to "
            f"{MAX_LOGGED_FAILED_ARGUMENTS:,}"
        }
    return arguments


def loggable_result(text: str) -> str:
    """A result's JSON text as logged: cut to a note when it is too long to keep."""
    if len(text) <= MAX_LOGGED_RESULT:
        return text
    return result_text({"_truncated": f"a result of {len(text):,} characters is not kept in the log"})


class RowRefused(Exception):
    """The store refused a durable row, and an error record in its place."""


class _Unwritten(Exception):
    """The store became unreachable part-way through a batch: these rows were not written."""

    def __init__(self, rows: list[tuple[str, CallRow]], cause: Exception) -> None:
        super().__init__(str(cause))
        self.rows = rows
        self.cause = cause


class CallLog:
    """The server's writer of call rows (on the event loop; see ``episodes``)."""

    def __init__(self, store: Store, metrics: Metrics) -> None:
        self.store = store
        self.metrics = metrics
        self._pending: list[tuple[str, CallRow]] = []

    def has_pending(self, episode_id: str) -> bool:
        return any(item[0] == episode_id for item in self._pending)

    def buffer(self, episode_id: str, row: CallRow) -> None:
        """Queue a trajectory row; written with the next batch."""
        self._pending.append((episode_id, row))
        if len(self._pending) >= FLUSH_BATCH:
            self.flush()

    def write_now(self, episode_id: str, row: CallRow) -> None:
        """Write a durable row, after everything buffered before it. Raises if it is not written;
        the other episodes' rows that were not written either stay queued."""
        batch, self._pending = [*self._pending, (episode_id, row)], []
        try:
            if any(dropped is row for dropped in self._write(batch)):
                raise RowRefused(f"the store refused call {row.seq} of episode '{episode_id}'")
        except _Unwritten as exc:
            self._pending = [item for item in exc.rows[:-1] if item[0] != episode_id] + self._pending
            if exc.rows[-1][1] is row:
                raise exc.cause from exc
        except Exception:
            self._pending = [item for item in batch[:-1] if item[0] != episode_id] + self._pending
            raise

    def flush(self) -> None:
        """Write buffered rows. Raises only when the store is unreachable (the rows stay queued)."""
        if not self._pending:
            return
        batch, self._pending = self._pending, []
        try:
            self._write(batch)
        except _Unwritten as exc:
            self._pending = exc.rows + self._pending
            raise exc.cause from exc

    def _write(self, batch: list[tuple[str, CallRow]]) -> list[CallRow]:
        """Write the batch; the rows that were dropped (neither they nor an error record stored)."""
        try:
            self.store.append_calls(batch)
            return []
        except STORE_UNREACHABLE as exc:
            raise _Unwritten(batch, exc) from exc
        except Exception as exc:
            log.warning("the store refused a batch of %d call rows; writing them one by one", len(batch), exc_info=exc)
        dropped = []
        for i, (episode_id, row) in enumerate(batch):
            try:
                if not self._write_isolated(episode_id, row):
                    dropped.append(row)
            except STORE_UNREACHABLE as exc:
                raise _Unwritten(batch[i:], exc) from exc
        return dropped

    def _write_isolated(self, episode_id: str, row: CallRow) -> bool:
        """One row; if the store refuses it, an error record in its place (same sequence number, so
        the log keeps its order), and if that is refused too, nothing (False; counted, logged)."""
        try:
            self.store.append_calls([(episode_id, row)])
            return True
        except STORE_UNREACHABLE:
            raise
        except Exception as exc:
            reason = f"{type(exc).__name__}: {str(exc)[:200]}"
        self.metrics.unstorable_rows.inc()
        log.error("a call row could not be stored", extra={"episode_id": episode_id, "seq": row.seq, "why": reason})
        replaced = CallRow(
            seq=row.seq,
            tool=row.tool[:128],
            arguments=loggable_arguments(row.arguments) if row.kind != "write" or row.is_error else row.arguments,
            kind=row.kind,
            is_error=row.is_error,
            result=None,
            error_type=(row.error_type or "")[:64] or None,
            started_at=row.started_at,
            duration_ms=row.duration_ms,
            transport=row.transport,
            result_json=json.dumps({"_unstorable": reason}),
        )
        try:
            self.store.append_calls([(episode_id, replaced)])
            return True
        except STORE_UNREACHABLE:
            raise
        except Exception:
            log.exception("a call row was dropped", extra={"episode_id": episode_id, "seq": row.seq})
            return False
