"""The one driver for many files: how many processes, order, failures, and `spawn` safety."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from acptrace.model.errors import UnreadableInput
from acptrace.model.options import Execution, Options
from acptrace.pipeline import pool
from acptrace.pipeline.mainguard import StartedInWorker, called_from_unguarded_main
from acptrace.pipeline.pool import (
    USEFUL_PROCESSES,
    Plan,
    WorkersFailed,
    analyze_many,
    each_file,
    plan,
)
from acptrace.render.json_report import dumps
from tests.transcript import Transcript

ROOT = Path(__file__).resolve().parent.parent


def transcript(resume_id: int) -> bytes:
    t = Transcript()
    t.open()
    t.initialize()
    t.resume(id=resume_id)
    t.history()
    t.marker()
    t.result(resume_id)
    t.close()
    return t.text()


@pytest.fixture
def files(tmp_path: Path) -> list[str]:
    paths = []
    for n in range(6):
        path = tmp_path / f"{n}.jsonl"
        path.write_bytes(transcript(n + 1))
        paths.append(str(path))
    return paths


# -- work functions the workers import by name ------------------------------------------------


def pid_of(path: str, options: Options, *, execution: Execution) -> tuple[str, int]:
    time.sleep(0.1)  # (long enough that a worker starts before this process is through)
    return path, os.getpid()


def fails_on_bad(path: str, options: Options, *, execution: Execution) -> str:
    if "bad" in path:
        raise ValueError(path)
    return path


def dies_in_a_worker(path: str, options: Options, *, execution: Execution) -> str:
    if multiprocessing.parent_process() is not None:
        os._exit(3)
    time.sleep(0.25)
    return path


# -- the plan ---------------------------------------------------------------------------------


def test_one_file_gets_the_processes_to_split_it(
    files: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pool, "available_cores", lambda: USEFUL_PROCESSES + 1)
    assert plan(files[:1]) == Plan(processes=1, split=USEFUL_PROCESSES)
    assert plan(files[:1], 3) == Plan(processes=1, split=3)
    assert plan(["-"], 0) == Plan(processes=1, split=USEFUL_PROCESSES)
    monkeypatch.setattr(pool, "available_cores", lambda: 1)
    assert plan(files[:1]) == Plan(processes=1, split=1)


def test_small_inputs_stay_in_one_process_unless_jobs_says(files: list[str]) -> None:
    assert plan(files) == Plan(processes=1, split=1)
    assert plan(files, 0) == Plan(processes=1, split=1)
    assert plan(files, 1) == Plan(processes=1, split=1)
    assert plan(files, 4) == Plan(processes=4, split=1)
    assert plan(files[:2], 4) == Plan(processes=2, split=1)  # never more than files
    assert plan([files[0], "-"], 4) == Plan(processes=1, split=1)  # stdin is read here


def test_large_inputs_get_every_core(files: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pool, "PARALLEL_MIN_BYTES", sum(os.path.getsize(f) for f in files))
    monkeypatch.setattr(pool, "available_cores", lambda: 3)
    assert plan(files) == Plan(processes=3, split=1)
    assert plan(files[1:]) == Plan(processes=1, split=1)  # one byte short
    assert plan([*files, str(Path(files[0]).with_name("missing"))]) == Plan(3, 1)
    monkeypatch.setattr(pool, "available_cores", lambda: 1)
    assert plan(files) == Plan(processes=1, split=1)


def test_the_default_does_not_read_the_load_average(
    files: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A run of acptrace raises the load average for a minute: the next run must not take
    # fewer processes for it (issue #22).
    monkeypatch.setattr(pool, "available_cores", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (9.0, 9.0, 9.0))
    assert plan(files[:1]) == Plan(processes=1, split=2)


def test_available_cores_are_the_ones_this_process_may_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delattr(os, "process_cpu_count", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 3, 5}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert pool.available_cores() == 3
    monkeypatch.setattr(os, "process_cpu_count", lambda: 5, raising=False)
    assert pool.available_cores() == 5


# -- running ----------------------------------------------------------------------------------


def test_workers_and_this_process_share_the_files_in_order(files: list[str]) -> None:
    many = files * 6
    results = list(each_file(pid_of, many, Options(), jobs=2))
    assert [path for path, _ in results] == many
    assert {pid for _, pid in results} - {os.getpid()}, "no worker analysed anything"


def test_a_worker_held_back_gets_files_again(
    files: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pool, "AHEAD_FILES", 1)  # (read by this process, which hands out)
    many = files * 6
    results = list(each_file(pid_of, many, Options(), jobs=2))
    assert [path for path, _ in results] == many
    by_worker = [pid for _, pid in results if pid != os.getpid()]
    assert len(by_worker) >= 3, "the worker was not handed files after it was held back"


def test_analyses_in_processes_equal_those_in_one(files: list[str], tmp_path: Path) -> None:
    paths = [*files[:3], str(tmp_path / "missing.jsonl"), *files[3:]]
    one = list(analyze_many(paths, Options(), jobs=1))
    two = list(analyze_many(paths, Options(), jobs=2))
    assert isinstance(two[3], UnreadableInput)
    assert str(two[3]) == str(one[3])
    one_analysed = [a for each in one if isinstance(each, list) for a in each]
    two_analysed = [a for each in two if isinstance(each, list) for a in each]
    assert len(two_analysed) == len(files)
    assert dumps(two_analysed) == dumps(one_analysed)


def test_an_error_is_raised_when_its_file_is_due(files: list[str], tmp_path: Path) -> None:
    bad = str(tmp_path / "bad.jsonl")
    paths = [*files[:3], bad, *files[3:]]
    results = each_file(fails_on_bad, paths, Options(), jobs=2)
    seen = [next(results) for _ in range(3)]
    assert seen == files[:3]
    with pytest.raises(ValueError, match=r"bad\.jsonl"):
        next(results)


def test_a_dead_worker_is_said_per_file_or_raised(files: list[str]) -> None:
    paths = files * 3
    results = list(
        each_file(dies_in_a_worker, paths, Options(), jobs=2, crashed=lambda p, why: f"!{why}")
    )
    assert len(results) == len(paths)
    assert "!the worker process analysing it died" in results
    for path, result in zip(paths, results, strict=True):
        assert result in (path, "!the worker process analysing it died")
    with pytest.raises(WorkersFailed, match="jsonl: the worker process analysing it died"):
        list(each_file(dies_in_a_worker, paths, Options(), jobs=2))


def test_a_call_while_a_worker_imports_main_raises(
    files: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(multiprocessing.current_process(), "_inheriting", True, raising=False)
    with pytest.raises(StartedInWorker, match='if __name__ == "__main__"'):
        each_file(pid_of, files, Options(), jobs=2)


def test_a_call_from_a_test_is_not_from_the_main_script() -> None:
    assert not called_from_unguarded_main()


# -- scripts under spawn ------------------------------------------------------------------------


def run_script(tmp_path: Path, body: str, files: list[str]) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(body).replace("FILES", repr(files)))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )


def test_a_script_without_the_guard_runs_in_one_process(files: list[str], tmp_path: Path) -> None:
    result = run_script(
        tmp_path,
        """
        import multiprocessing
        multiprocessing.set_start_method("spawn")
        from acptrace.model.options import Options
        from acptrace.pipeline.pool import analyze_many
        from acptrace.report import build_report
        print("started")
        analyses = list(analyze_many(FILES, Options(), jobs=2))
        print("analysed", len(analyses), sorted({type(a).__name__ for a in analyses}))  # (lists of
        # the analyses of each file's connections)
        report = build_report(FILES, jobs=2)
        print("reported", report.files, len(report.errors))
        """,
        files,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["started", "analysed 6 ['list']", "reported 6 0"]


def test_a_script_with_the_guard_runs_in_processes(files: list[str], tmp_path: Path) -> None:
    result = run_script(
        tmp_path,
        """
        import os
        from acptrace.model.options import Options
        from acptrace.pipeline.pool import each_file
        from tests.test_pool import pid_of

        if __name__ == "__main__":
            pids = {pid for _, pid in each_file(pid_of, FILES * 6, Options(), jobs=2)}
            print("workers", len(pids - {os.getpid()}))
        """,
        files,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["workers 1"]


def test_workers_that_cannot_start_leave_the_work_here_and_say_why(
    files: list[str], tmp_path: Path
) -> None:
    result = run_script(
        tmp_path,
        """
        __name__ = "__main__"  # a worker re-imports this as __mp_main__: now it runs the call
        if __name__ == "__main__":
            from acptrace.export.exporter import ExportFormat, export_tables
            export_tables(FILES, "out", ExportFormat.CSV, jobs=2)
        """,
        files,
    )
    assert result.returncode == 0, result.stderr
    assert "RuntimeWarning: acptrace: the worker processes could not start" in result.stderr
    assert "StartedInWorker" in result.stderr  # what the worker said
    assert 'put the call under `if __name__ == "__main__":`' in result.stderr
    assert (tmp_path / "out" / "messages.csv").read_text().count("\n") > len(files)
