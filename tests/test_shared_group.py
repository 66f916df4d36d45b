"""Without `../shared` the suite still runs: the `shared` group is left out with one summary line,
and only where the folder must be there (CI) is its absence an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import shared

pytest_plugins = ["pytester"]

GROUP = """
import pytest

@pytest.mark.shared
def test_reads_a_recording():
    pass

@pytest.mark.shared
@pytest.mark.parametrize("n", [1, 2, 3])
def test_reads_the_spec(n):
    pass

@pytest.mark.parametrize("n", [1, pytest.param(2, marks=pytest.mark.shared)])
def test_mixed(n):
    pass

def test_stands_alone():
    pass
"""


def run_group(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, folder: Path
) -> pytest.RunResult:
    """Run GROUP under this suite's conftest hooks, with `folder` as `../shared`."""
    monkeypatch.setattr(shared, "SHARED", folder)
    pytester.makeini("[pytest]\naddopts = -ra --strict-markers\nmarkers =\n    shared: ../shared\n")
    pytester.makeconftest(
        "from tests.conftest import pytest_collection_modifyitems, pytest_terminal_summary\n"
    )
    pytester.makepyfile(GROUP)
    return pytester.runpytest_inprocess("-p", "no:cacheprovider")


def test_without_the_folder_the_group_is_left_out_with_one_line(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(shared.NEED_SHARED, raising=False)
    result = run_group(pytester, monkeypatch, tmp_path / "shared")
    result.assert_outcomes(passed=2, deselected=5)
    lines = [line for line in result.outlines if line.startswith("shared:")]
    assert lines == [
        f"shared: 5 tests deselected: {tmp_path / 'shared'} is absent "
        "(third-party recordings and the spec; CI has it and runs them)"
    ]
    assert not [line for line in result.outlines if line.startswith("SKIPPED")]


@pytest.mark.parametrize("inside", ["real-world", "spec"])
def test_with_the_folder_the_group_runs(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, inside: str
) -> None:
    (tmp_path / "shared" / inside).mkdir(parents=True)
    monkeypatch.setenv(shared.NEED_SHARED, "1")
    result = run_group(pytester, monkeypatch, tmp_path / "shared")
    result.assert_outcomes(passed=7)
    assert not [line for line in result.outlines if line.startswith("shared:")]


def test_a_folder_named_shared_without_recordings_or_spec_counts_as_absent(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "shared" / "something-else").mkdir(parents=True)
    monkeypatch.delenv(shared.NEED_SHARED, raising=False)
    result = run_group(pytester, monkeypatch, tmp_path / "shared")
    result.assert_outcomes(passed=2, deselected=5)


def test_where_the_folder_is_needed_its_absence_is_an_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(shared.NEED_SHARED, "1")
    result = run_group(pytester, monkeypatch, tmp_path / "shared")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"{tmp_path / 'shared'} is absent, but {shared.NEED_SHARED}" in result.errlines[0]


def test_a_suite_without_the_group_is_untouched(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(shared.NEED_SHARED, "1")
    monkeypatch.setattr(shared, "SHARED", tmp_path / "shared")
    pytester.makeconftest(
        "from tests.conftest import pytest_collection_modifyitems, pytest_terminal_summary\n"
    )
    pytester.makepyfile("def test_alone():\n    pass\n")
    pytester.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
