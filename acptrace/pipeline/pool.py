"""Many transcripts, one driver: the processes `analyze`, `export` and `report` run them in.

`jobs` means the same for every command: the processes to use, this one included (None or 0:
chosen from the input's size and the cores this process may use, see `plan`; 1: this process
only). One file alone gets them instead: a big one is split across them
(`acptrace.pipeline.pieces`). With several files, this process works too: it takes the next
file itself while it waits for the one due next, and the workers (`jobs - 1`, started with
`spawn`: safe beside threads, the same on every system) get a few files at a time. Results come
back in the order of the paths, as they are due, never all held at once.

A script that calls this from top-level code not under `if __name__ == "__main__":` would
have each spawned worker run the call again: such a call runs in this process alone
(`acptrace.pipeline.mainguard`). Workers that cannot start leave the files to this process,
with a `RuntimeWarning`; a worker that dies on a file gives the files the pool had the
`crashed` result that says so, or raises `WorkersFailed`.
"""

from __future__ import annotations

import importlib
import os
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING, Generic, TypeVar

import msgspec

from acptrace.model.domain import Analysis
from acptrace.model.errors import AcptraceError, UnreadableInput
from acptrace.model.options import Execution, Options
from acptrace.pipeline.mainguard import called_from_unguarded_main, check_not_importing_main
from acptrace.pipeline.transcripts import analyze_file

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

T = TypeVar("T")

USEFUL_PROCESSES = 4
"""The default cap on processes for one file (`acptrace.pipeline.pieces`). The main process
correlates everything in order (for an analysis, runs of updates come as one record each, a
small share of the work) and joins the pieces; more than this was never measured (the machines
here have two cores)."""
PARALLEL_MIN_BYTES = 1024 * 1024 * 1024
"""Below this much input in all (and no `jobs` given) the files are analysed in this process.
Measured with `benchmarks/jobs.py` on two busy cores, `--jobs 2` against `--jobs 1` (wall):
4 files of 1 MB 1.85x, 100 of 1 MB 0.96-1.12x, 40 of 5 MB 0.85-1.56x, 8 of 100 MB 0.96-1.07x:
a file is analysed at ~160 MB/s, and a spawned worker takes about a second to start there."""
IN_FLIGHT_PER_WORKER = 2
"""Files handed to each worker ahead of time: enough that none waits, few enough that the
results held until they are due stay few."""
AHEAD_FILES = 16
"""Files this process may have done ahead of the one due (waiting on a worker), at most."""

Work = Callable[..., T]
"""What is done to each file, `work(path, options, execution=...)`: a module-level function
(the workers import it by name), or a partial of one."""
Crashed = Callable[[str, str], T]
"""The result for a file whose worker died: from its path and what happened."""


class WorkersFailed(AcptraceError, RuntimeError):
    """The worker processes died, and the caller has no result that says so per file."""


class Plan(msgspec.Struct, frozen=True):
    """How many processes a run uses."""

    processes: int
    """Processes analysing files at once, this one included."""
    split: int
    """`Execution.split` for each file: the processes one lone file is decoded by."""


def available_cores() -> int:
    """The cores this process may use (its CPU affinity where the system has one). Not the
    load average: a run of acptrace raises it for a minute after, and a second run that read
    it would take one process where the first took two."""
    process_cpu_count = getattr(os, "process_cpu_count", None)  # Python 3.13+
    if process_cpu_count is not None:
        return int(process_cpu_count() or 1)
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def plan(paths: Sequence[str], jobs: int | None = None) -> Plan:
    """The processes for these paths: `jobs` when given; when not (or 0), one process per
    core this process may use for `PARALLEL_MIN_BYTES` of input or more, else one (workers
    made every smaller run measured slower than one process: `benchmarks/jobs.py`). One file is
    split across them (up to `USEFUL_PROCESSES`, from `Execution.split_min_bytes`)."""
    if len(paths) == 1:
        return Plan(processes=1, split=jobs or min(available_cores(), USEFUL_PROCESSES))
    pooled = sum(1 for path in paths if path != "-")
    if not jobs:
        jobs = available_cores() if _total_bytes(paths) >= PARALLEL_MIN_BYTES else 1
    return Plan(processes=max(1, min(jobs, pooled)), split=1)


def each_file(
    work: Work[T],
    paths: Sequence[str],
    options: Options,
    jobs: int | None = None,
    *,
    execution: Execution | None = None,
    crashed: Crashed[T] | None = None,
) -> Iterator[T]:
    """`work(path, options, execution=...)` for each path, in the order of the paths, in the
    processes of `plan` (`-`, stdin, always in this one), the execution's `split` set by the
    plan. An exception `work` raises for a file is raised here when that file is due (and the
    files after it are not started).

    Raises `StartedInWorker` when called while a spawned worker imports the main script.
    """
    check_not_importing_main()
    chosen = plan(paths, jobs)
    bound = partial(
        work, execution=msgspec.structs.replace(execution or Execution(), split=chosen.split)
    )
    if chosen.processes <= 1 or called_from_unguarded_main():
        return (bound(path, options) for path in paths)
    return _pooled(bound, paths, options, chosen.processes - 1, crashed)


def analyze_many(
    paths: Sequence[str],
    options: Options,
    jobs: int | None = None,
    *,
    execution: Execution | None = None,
) -> Iterator[list[Analysis] | UnreadableInput]:
    """Analyse each path, in order (`each_file`): the analyses of its connections (one, but
    for a file that holds several). A file that cannot be read yields its `UnreadableInput`
    instead of stopping the others."""
    return each_file(_analyze_one, paths, options, jobs, execution=execution, crashed=_unanalysed)


def _analyze_one(
    path: str, options: Options, *, execution: Execution
) -> list[Analysis] | UnreadableInput:
    try:
        return analyze_file(path, options, execution=execution)
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


class _Done(msgspec.Struct, Generic[T]):
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
    import multiprocessing  # (here, as below: a run in one process never needs them)
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_end_with, initargs=(os.getpid(),)
    ) as pool:
        run = _Run(work, paths, options, pool, workers, crashed)
        try:
            for index in range(len(paths)):
                yield run.result(index)
        finally:
            run.close()
            pool.shutdown(wait=True, cancel_futures=True)
        run.warn_unstarted()  # (a worker may fail to start after this process was through)


PARENT_WATCH_S = 0.2
"""How often a worker looks whether this process is still there."""


def _end_with(parent: int) -> None:
    """Run in each worker as it starts: end it when this process is gone. Killed (SIGTERM's
    default action, SIGKILL), this process cannot shut the pool down, and a worker would wait
    for files for ever, and the resource tracker, which ends when the last of them has, with
    it. A thread sees the worker handed to another parent (`init`) and ends the worker."""
    watch = threading.Thread(target=_watch, args=(parent,), name="acptrace-parent", daemon=True)
    watch.start()


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_WATCH_S)
    os._exit(EXIT_PARENT_GONE)


EXIT_PARENT_GONE = 143
"""A worker's exit status when this process has gone: as if SIGTERM had ended it."""


def _warm_up(module: str) -> None:
    """Import the module of the work in a worker (and so say that it has started)."""
    importlib.import_module(module)


class _Run(Generic[T]):
    """The files of one pooled run: who has which, and what came back.

    Files are taken in path order: by this process whenever the one due next is nobody's yet,
    and by each worker as soon as it has started and as soon as it is done with one (a
    callback in the pool's thread hands it the next, so a worker never waits for this process
    to finish a file of its own). A worker takes a second or more to start on a busy machine:
    meanwhile this process works through the files alone.
    """

    def __init__(
        self,
        work: Work[T],
        paths: Sequence[str],
        options: Options,
        pool: ProcessPoolExecutor,
        workers: int,
        crashed: Crashed[T] | None,
    ) -> None:
        self.work, self.paths, self.options = work, paths, options
        self.pool, self.crashed = pool, crashed
        self.lock = threading.Lock()
        self.held: dict[int, Future[T] | _Done[T]] = {}
        self.claimed = 0
        """Files handed out so far (to the pool or to this process), in path order."""
        self.broken = False
        """No more files for the pool: it broke, could not start, or the run is over."""
        self.unstarted = False
        """A worker could not start (said once, by a warning)."""
        self.started = 0
        """Workers that have started."""
        module = getattr(work, "func", work).__module__  # (a partial's function)
        for _ in range(workers):
            pool.submit(_warm_up, module).add_done_callback(self._started)

    def close(self) -> None:
        """Hand the pool nothing more."""
        with self.lock:
            self.broken = True

    def result(self, index: int) -> T:
        """The result of file `index`, working on later files meanwhile."""
        while True:
            self.warn_unstarted()
            self._top_up()
            with self.lock:
                held = self.held.get(index)
                ready = isinstance(held, _Done) or (held is not None and held.done())
                if ready:
                    del self.held[index]
                elif held is None or self._may_run_ahead():
                    held = None
                    mine = self._claim()  # (`index` itself when it is nobody's)
            if isinstance(held, _Done):
                return held.get()
            if held is None:
                self._run_here(mine)
            elif ready:
                return self._outcome(index, held)
            else:
                from concurrent.futures import FIRST_COMPLETED, wait

                wait([held], return_when=FIRST_COMPLETED)

    def _started(self, warm_up: Future[None]) -> None:
        """A worker has started (or could not): give it a file."""
        if warm_up.cancelled() or warm_up.exception() is not None:
            with self.lock:
                self.broken = self.unstarted = True
            return
        with self.lock:
            self.started += 1
        self._give_pool()

    def _top_up(self) -> None:
        """Hand a file to each started worker that has none (it was held back, by a file for
        this process or by `AHEAD_FILES`, when it finished its last)."""
        with self.lock:
            busy = sum(1 for held in self.held.values() if not isinstance(held, _Done))
            idle = self.started - busy
        for _ in range(idle):
            self._give_pool()

    def _give_pool(self, done: Future[T] | None = None) -> None:  # noqa: ARG002 (a done-callback)
        """Hand the pool the next file, if it is one for the pool (not stdin, not too far
        ahead of the one due)."""
        with self.lock:
            if self.broken or self.claimed >= len(self.paths) or self.paths[self.claimed] == "-":
                return
            if len(self.held) >= AHEAD_FILES:
                return
            index = self._claim()
            from concurrent.futures.process import BrokenProcessPool

            try:
                future = self.pool.submit(self.work, self.paths[index], self.options)
            except (BrokenProcessPool, RuntimeError):  # (broken, or shut down meanwhile)
                self.broken = True
                self.claimed = index  # (still nobody's: this process takes it)
                return
            self.held[index] = future
        future.add_done_callback(self._give_pool)

    def _claim(self) -> int:
        """The next file (the lock held)."""
        index = self.claimed
        self.claimed += 1
        return index

    def _may_run_ahead(self) -> bool:
        return self.claimed < len(self.paths) and len(self.held) < AHEAD_FILES

    def _run_here(self, index: int) -> None:
        try:
            done = _Done(self.work(self.paths[index], self.options))
        except Exception as error:  # raised when the file is due, as a worker's would be
            done = _Done(None, error)
        with self.lock:
            self.held[index] = done

    def warn_unstarted(self) -> None:
        """Say once that a worker could not start."""
        if self.unstarted:
            self.unstarted = False
            warnings.warn(
                "acptrace: the worker processes could not start; the files are analysed in "
                "this process (a script that calls acptrace needs "
                '`if __name__ == "__main__":` under the spawn start method)',
                RuntimeWarning,
                stacklevel=3,
            )

    def _outcome(self, index: int, future: Future[T]) -> T:
        from concurrent.futures.process import BrokenProcessPool

        try:
            return future.result()
        except BrokenProcessPool as error:
            self.close()
            reason = "the worker process analysing it died"
            if self.crashed is None:
                raise WorkersFailed(f"{self.paths[index]}: {reason}") from error
            return self.crashed(self.paths[index], reason)
