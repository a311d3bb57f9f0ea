"""Progress a person can follow with or without a terminal.

On a terminal, rich draws a live bar (or a spinner for work in steps). Where rich draws nothing (output
to a file or a pipe: a CI log, ``nohup``, ``| tee``), a plain line goes to stderr when the work starts,
every few seconds while it runs, and when it ends::

    eval 0/3748 trials
    eval 120/3748 trials, 14.2/s, eta 4m15s
    eval 3748/3748 trials in 4m24s, 14.2/s

The interval is ``ENVFARM_PROGRESS_INTERVAL`` seconds (default 5). Lines come from a background thread,
so they keep coming while nothing finishes (a slow first trial, a long benchmark step).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol, TextIO, TypeVar

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.status import Status

INTERVAL_ENV = "ENVFARM_PROGRESS_INTERVAL"
DEFAULT_INTERVAL = 5.0


def progress_interval() -> float:
    """Seconds between two progress lines: ``ENVFARM_PROGRESS_INTERVAL`` if it is a positive number, else 5."""
    try:
        value = float(os.environ.get(INTERVAL_ENV, ""))
    except ValueError:
        return DEFAULT_INTERVAL
    return value if 0 < value < float("inf") else DEFAULT_INTERVAL


def duration(seconds: float) -> str:
    """A short duration for a person.

    >>> duration(7.4), duration(255), duration(3725)
    ('7s', '4m15s', '1h02m')
    """
    s = max(0, round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def rate(done: int, seconds: float) -> str:
    """Items per second, or per minute when fewer than one every ten seconds.

    >>> rate(142, 10), rate(3, 60)
    ('14.2/s', '3.0/min')
    """
    per_s = done / seconds if seconds > 0 else 0.0
    return f"{per_s:.1f}/s" if per_s >= 0.1 else f"{per_s * 60:.1f}/min"


class Counter(Protocol):
    """What counted work reports: ``advance`` once per finished item, with an optional note."""

    def advance(self, n: int = 1, note: str | None = None) -> None: ...


class Steps(Protocol):
    """What work in named steps reports: ``step`` when a new step starts."""

    def step(self, text: str) -> None: ...


class _Ticker:
    """A background thread that writes ``self.line()`` every ``interval`` seconds until stopped."""

    def __init__(self, interval: float, stream: TextIO | None, clock: Callable[[], float]) -> None:
        self.interval = interval
        self.stream = stream
        self.clock = clock
        self.started = clock()
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="envfarm-progress", daemon=True)

    def write(self, line: str) -> None:
        stream = self.stream or sys.stderr
        stream.write(line + "\n")
        stream.flush()

    def line(self) -> str:
        raise NotImplementedError

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            with self.lock:
                self.write(self.line())

    def start(self) -> None:
        self.started = self.clock()
        with self.lock:
            self.write(self.line())
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()


class LineCounter(_Ticker):
    """``label done/total unit, rate, eta`` lines (see the module docstring)."""

    def __init__(
        self,
        label: str,
        total: int,
        unit: str,
        *,
        interval: float,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(interval, stream, clock)
        self.label, self.total, self.unit = label, total, unit
        self.done = 0
        self.note: str | None = None

    def advance(self, n: int = 1, note: str | None = None) -> None:
        with self.lock:
            self.done += n
            if note is not None:
                self.note = note

    def line(self) -> str:
        elapsed = self.clock() - self.started
        head = f"{self.label} {self.done}/{self.total} {self.unit}"
        if self.done == 0:
            text = head + (f", {duration(elapsed)}" if elapsed >= 1 else "")
        else:
            left = max(0, self.total - self.done) * elapsed / self.done
            text = f"{head}, {rate(self.done, elapsed)}, eta {duration(left)}"
        return text + (f" (last: {self.note})" if self.note else "")

    def final(self) -> str:
        elapsed = self.clock() - self.started
        return f"{self.label} {self.done}/{self.total} {self.unit} in {duration(elapsed)}, {rate(self.done, elapsed)}"


class LineSteps(_Ticker):
    """``label [2/5] step, 35s in this step, 1m02s in all`` lines: one when a step starts, then every
    interval; ``steps`` is how many steps are expected (None: unknown)."""

    def __init__(
        self,
        label: str,
        steps: int | None = None,
        *,
        interval: float,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(interval, stream, clock)
        self.label, self.steps = label, steps
        self.current: str | None = None
        self.number = 0
        self.step_started = self.started

    def step(self, text: str) -> None:
        with self.lock:
            self.current, self.number, self.step_started = text, self.number + 1, self.clock()
            self.write(f"{self.label}{self._position()} {text}")

    def _position(self) -> str:
        if self.steps is not None and self.number <= self.steps:
            return f" [{self.number}/{self.steps}]"
        return f" [step {self.number}]"

    def line(self) -> str:
        now = self.clock()
        if self.current is None:
            elapsed = now - self.started
            return f"{self.label}: running, {duration(elapsed)}" if elapsed >= 1 else f"{self.label}: started"
        in_step, in_all = duration(now - self.step_started), duration(now - self.started)
        return f"{self.label}{self._position()} {self.current}, {in_step} in this step, {in_all} in all"

    def final(self) -> str:
        return f"{self.label}: done in {duration(self.clock() - self.started)}"


class _Quiet:
    def advance(self, n: int = 1, note: str | None = None) -> None:
        pass

    def step(self, text: str) -> None:
        pass


class _RichSteps:
    def __init__(self, status: Status, label: str) -> None:
        self.status, self.label = status, label

    def step(self, text: str) -> None:
        self.status.update(f"{self.label}: {text}")


class _RichCounter:
    def __init__(self, progress: Progress, job: object, label: str) -> None:
        self.progress, self.job, self.label = progress, job, label

    def advance(self, n: int = 1, note: str | None = None) -> None:
        description = self.label + (f" {note}" if note else "")
        self.progress.update(self.job, advance=n, description=description)  # type: ignore[arg-type]


_T = TypeVar("_T", LineCounter, LineSteps)


@contextmanager
def _lines(ticker: _T) -> Iterator[_T]:
    """Run the ticker for the block; its last line only when the work ended well (an error speaks for itself)."""
    ticker.start()
    try:
        yield ticker
    finally:
        ticker.stop()
    ticker.write(ticker.final())


def is_terminal() -> bool:
    """Whether rich draws live progress on stderr here (a terminal), so no lines are needed."""
    return Console(stderr=True).is_terminal


@contextmanager
def counting(label: str, total: int, unit: str, *, enabled: bool = True) -> Iterator[Counter]:
    """Report ``total`` items of work: a rich bar on a terminal, lines otherwise, nothing if not ``enabled``.

    >>> with counting("eval", 3, "trials") as progress:  # doctest: +SKIP
    ...     progress.advance()
    """
    if not enabled:
        yield _Quiet()
        return
    if is_terminal():
        bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
        )
        with bar:
            yield _RichCounter(bar, bar.add_task(label, total=total), label)
        return
    with _lines(LineCounter(label, total, unit, interval=progress_interval())) as lines:
        yield lines


@contextmanager
def stepping(label: str, steps: int | None = None) -> Iterator[Steps]:
    """Report work in named steps: a rich spinner on a terminal, lines otherwise."""
    if is_terminal():
        with Console(stderr=True).status(label) as status:
            yield _RichSteps(status, label)
        return
    with _lines(LineSteps(label, steps, interval=progress_interval())) as lines:
        yield lines
