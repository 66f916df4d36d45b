"""Many transcripts, one driver: the processes `analyze`, `export` and `report` run them in.

`jobs` means the same for every command: the processes to use, this one included (None or 0:
chosen from the input's size and the idle cores, see `plan`; 1: this process only). One file
alone gets them instead: a big one is split across them (`acptrace.pipeline.pieces`). With
several files, this process works too: it takes the next file itself while it waits for the
one due next, and the workers (`jobs - 1`, started with `spawn`: safe beside threads, the same
on every system) get a few files at a time. Results come back in the order of the paths, as
they are due, never all held at once.

A script that calls this from top-level code not under `if __name__ == "__main__":` would
have each spawned worker run the call again: such a call runs in this process alone
(`acptrace.pipeline.mainguard`); if workers die before any file is done, the files they had
get the `crashed` result that says so, or `WorkersFailed` is raised.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from acptrace.model.domain import Analysis
from acptrace.model.errors import AcptraceError, UnreadableInput
from acptrace.model.options import Options
from acptrace.pipeline.analysis import analyze
from acptrace.pipeline.mainguard import called_from_unguarded_main, check_not_importing_main
from acptrace.pipeline.pieces import USEFUL_PROCESSES

T = TypeVar("T")

PARALLEL_MIN_BYTES = 256 * 1024 * 1024
"""Below this much input in all (and no `jobs` given) the files are analysed in this process:
starting a worker and sending results back cost more than a second core saves
(`benchmarks/jobs.py`)."""
IN_FLIGHT_PER_WORKER = 2
"""Files handed to each worker ahead of time: enough that none waits, few enough that the
results held until they are due stay few."""

Work = Callable[[str, Options], T]
"""What is done to each file: a module-level function (the workers import it by name)."""
Crashed = Callable[[str, str], T]
"""The result for a file whose worker died: from its path and what happened."""


class WorkersFailed(AcptraceError, RuntimeError):
    """The worker processes died, and the caller has no result that says so per file."""


@dataclass(frozen=True, slots=True)
class Plan:
    """How many processes a run uses."""

    processes: int
    """Processes analysing files at once, this one included."""
    split: int
    """`Options.split` for each file: the processes one lone file is decoded by."""


def available_cores() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def idle_cores() -> int:
    """The cores this process may use less those other work keeps busy (the load average of
    the last minute), at least one."""
    cores = available_cores()
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # not on this system
        return cores
    return max(1, min(cores, int(cores - load + 0.5)))


def plan(paths: Sequence[str], jobs: int | None = None) -> Plan:
    """The processes for these paths: `jobs` when given; when not (or 0), one process per
    idle core for `PARALLEL_MIN_BYTES` of input or more, else one (workers on busy cores
    made every run measured slower than one process: `benchmarks/jobs.py`). One file is
    split across them (up to `USEFUL_PROCESSES`, from `Options.split_min_bytes`)."""
    if len(paths) == 1:
        return Plan(processes=1, split=jobs or min(idle_cores(), USEFUL_PROCESSES))
    pooled = sum(1 for path in paths if path != "-")
    if not jobs:
        jobs = idle_cores() if _total_bytes(paths) >= PARALLEL_MIN_BYTES else 1
    return Plan(processes=max(1, min(jobs, pooled)), split=1)


def each_file(
    work: Work[T],
    paths: Sequence[str],
    options: Options,
    jobs: int | None = None,
    *,
    crashed: Crashed[T] | None = None,
) -> Iterator[T]:
    """`work(path, options)` for each path, in the order of the paths, in the processes of
    `plan` (`-`, stdin, always in this one). An exception `work` raises for a file is raised
    here when that file is due (and the files after it are not started).

    Raises `StartedInWorker` when called while a spawned worker imports the main script.
    """
    check_not_importing_main()
    chosen = plan(paths, jobs)
    options = replace(options, split=chosen.split)
    if chosen.processes <= 1 or called_from_unguarded_main():
        return (work(path, options) for path in paths)
    return _pooled(work, paths, options, chosen.processes - 1, crashed)


def analyze_many(
    paths: Sequence[str], options: Options, jobs: int | None = None
) -> Iterator[Analysis | UnreadableInput]:
    """Analyse each path, in order (`each_file`). A file that cannot be read yields its
    `UnreadableInput` instead of stopping the others."""
    return each_file(_analyze_one, paths, options, jobs, crashed=_unanalysed)


def _analyze_one(path: str, options: Options) -> Analysis | UnreadableInput:
    try:
        return analyze(path, options)
    except UnreadableInput as error:
        return error


def _unanalysed(path: str, reason: str) -> UnreadableInput:
    return UnreadableInput(f"{path}: {reason}")


def _total_bytes(paths: Sequence[str]) -> int:
    total = 0
    for path in paths:
        if path == "-":
            continue
        try:
            total += os.stat(path).st_size
        except OSError:
            continue  # (its own result says why)
    return total


@dataclass(slots=True)
class _Done(Generic[T]):
    """A file this process worked on ahead of its turn: its result, or what `work` raised."""

    value: T | None
    error: Exception | None = None

    def get(self) -> T:
        if self.error is not None:
            raise self.error
        return self.value  # type: ignore[return-value]  # (set when there is no error)


def _pooled(
    work: Work[T],
    paths: Sequence[str],
    options: Options,
    workers: int,
    crashed: Crashed[T] | None,
) -> Iterator[T]:
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        run = _Run(work, paths, options, pool, workers * IN_FLIGHT_PER_WORKER, crashed)
        try:
            for index in range(len(paths)):
                yield run.result(index)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


class _Run(Generic[T]):
    """The files of one pooled run: who has which, and what came back."""

    def __init__(
        self,
        work: Work[T],
        paths: Sequence[str],
        options: Options,
        pool: ProcessPoolExecutor,
        window: int,
        crashed: Crashed[T] | None,
    ) -> None:
        self.work, self.paths, self.options = work, paths, options
        self.pool, self.window, self.crashed = pool, window, crashed
        self.held: dict[int, Future[T] | _Done[T]] = {}
        self.claimed = 0
        """Files handed out so far (to the pool or to this process), in path order."""
        self.broken = False
        self.returned = False
        """Whether any worker has returned a result yet."""

    def result(self, index: int) -> T:
        """The result of file `index`, working on later files meanwhile."""
        while True:
            self._hand_out()
            held = self.held.get(index)
            if isinstance(held, _Done):
                del self.held[index]
                return held.get()
            if held is None:  # its turn in this process (stdin, or the pool is gone)
                self._run_here()
            elif held.done():
                del self.held[index]
                return self._outcome(index, held)
            elif self._may_run_ahead():
                self._run_here()
            else:
                wait([held], return_when=FIRST_COMPLETED)

    def _hand_out(self) -> None:
        """Give the pool the next files until it has `window` of them."""
        while (
            not self.broken
            and self.claimed < len(self.paths)
            and self.paths[self.claimed] != "-"
            and self._in_pool() < self.window
        ):
            index = self.claimed
            try:
                self.held[index] = self.pool.submit(self.work, self.paths[index], self.options)
            except BrokenProcessPool:
                self.broken = True
                return
            self.claimed += 1

    def _in_pool(self) -> int:
        return sum(1 for held in self.held.values() if isinstance(held, Future))

    def _may_run_ahead(self) -> bool:
        ahead = len(self.held) - self._in_pool()
        return self.claimed < len(self.paths) and ahead < self.window

    def _run_here(self) -> None:
        index = self.claimed
        self.claimed += 1
        try:
            self.held[index] = _Done(self.work(self.paths[index], self.options))
        except Exception as error:  # raised when the file is due, as a worker's would be
            self.held[index] = _Done(None, error)

    def _outcome(self, index: int, future: Future[T]) -> T:
        try:
            value = future.result()
        except BrokenProcessPool as error:
            self.broken = True
            reason = (
                "the worker process analysing it died"
                if self.returned
                else "the worker processes stopped before any file was done (killed, or a "
                'script calling acptrace without `if __name__ == "__main__":`)'
            )
            if self.crashed is None:
                raise WorkersFailed(f"{self.paths[index]}: {reason}") from error
            return self.crashed(self.paths[index], reason)
        self.returned = True
        return value
