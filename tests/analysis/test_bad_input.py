"""Bad input: a one-line error, a non-zero exit, and nothing written (no report folder, no
temporary folder beside it)."""
import os
import shutil

import h5py
import pytest

from conftest import run


def assert_refused(command, folder, fragment):
    before = sorted(os.listdir(folder))
    status, stdout, stderr = run(command)
    assert status == 2, (status, stdout, stderr)
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("clustersim-analyze: error: ") and fragment in lines[0], lines[0]
    assert stdout == ""
    assert sorted(os.listdir(folder)) == before  # nothing half-written


@pytest.fixture
def folder(tmp_path):
    return tmp_path


def test_files_that_are_not_results(analyze, folder):
    text = folder / "notes.h5"
    text.write_text("not HDF5\n")
    assert_refused([analyze, str(text), "--out", str(folder / "r")], folder, "notes.h5: not an HDF5 file")
    other = folder / "other.h5"
    with h5py.File(other, "w") as f:
        f["x"] = [1, 2, 3]
    assert_refused([analyze, str(other), "--out", str(folder / "r")], folder, "not a clustersim sweep result")
    assert_refused([analyze, str(folder / "missing.h5")], folder, "missing.h5: no such file")
    assert_refused([analyze, "compare", str(text), str(other)], folder, "not an HDF5 file")


def test_newer_schema(analyze, sweep_file, folder):
    newer = folder / "newer.h5"
    shutil.copy(sweep_file, newer)
    with h5py.File(newer, "a") as f:
        f.attrs["schema_version"] = 99
    assert_refused([analyze, str(newer), "--out", str(folder / "r")], folder, "schema version 99 is newer")


def test_schema_version_that_is_not_an_integer(analyze, sweep_file, folder):
    """A hand-edited or foreign file: one line naming the attribute, not an internal error."""
    for value, shown in [("1", "'1'"), ("one", "'one'"), (1.5, "1.5 (float)")]:
        odd = folder / "odd.h5"
        shutil.copy(sweep_file, odd)
        with h5py.File(odd, "a") as f:
            f.attrs["schema_version"] = value
        assert_refused([analyze, str(odd), "--out", str(folder / "r")], folder,
                       f"odd.h5: damaged result file: the schema_version attribute is {shown}, not an integer")
        assert_refused([analyze, "compare", str(odd), sweep_file], folder, "not an integer")
        odd.unlink()


def test_unknown_names(analyze, sweep_file, folder):
    out = str(folder / "r")
    assert_refused([analyze, sweep_file, "--out", out, "--x", "workload.lod"], folder,
                   "--x 'workload.lod': no such axis")
    assert_refused([analyze, sweep_file, "--out", out, "--y", "nope"], folder, "no such axis")
    assert_refused([analyze, sweep_file, "--out", out, "--series", "nope"], folder, "no such axis")
    assert_refused([analyze, sweep_file, "--out", out, "--metric", "jct_avg"], folder,
                   "--metric 'jct_avg': no such metric")
    assert_refused([analyze, sweep_file, "--out", out, "--baseline", "fcfs"], folder,
                   "axis scheduler.policy has no value 'fcfs'")
    assert_refused([analyze, sweep_file, "--out", out, "--baseline", "nope=1"], folder, "no such axis")
    assert_refused([analyze, sweep_file, "--out", out, "--x", "workload.load", "--y", "workload.load"], folder,
                   "two different axes")


def test_existing_output(analyze, sweep_file, report, folder):
    mine = folder / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("precious")
    assert_refused([analyze, sweep_file, "--out", str(mine)], folder, "already exists: pass --overwrite")
    assert_refused([analyze, sweep_file, "--out", str(mine), "--overwrite"], folder, "did not write")
    assert (mine / "thesis.tex").read_text() == "precious"
    # A report is replaced whole with --overwrite (a copy of the session's report of this file:
    # one full analysis fewer; its default heatmap is jct_mean's).
    existing, _ = report
    report = str(folder / "report")
    shutil.copytree(existing, report)
    assert os.path.exists(os.path.join(report, "plots", "heatmap_jct_mean_workload.load_scheduler.policy.png"))
    assert_refused([analyze, sweep_file, "--out", report], folder, "already exists")
    status, stdout, stderr = run([analyze, sweep_file, "--out", report, "--overwrite", "--figure-formats", "none",
                                  "--x", "scheduler.policy",
                                  "--y", "workload.load", "--metric", "queue_mean"])
    assert status == 0, stderr
    assert os.path.exists(os.path.join(report, "plots", "heatmap_queue_mean_scheduler.policy_workload.load.png"))
    assert not os.path.exists(os.path.join(report, "plots", "heatmap_jct_mean_workload.load_scheduler.policy.png"))
    assert not any(name.endswith(".pdf") for name in os.listdir(os.path.join(report, "plots")))  # none asked now
    assert sorted(os.listdir(folder)) == ["mine", "report"]
