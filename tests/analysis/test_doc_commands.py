"""The commands the README and the example grids' comments show, checked as written: each
`clustersim sweep GRID.toml` grid is read and planned (--dry-run: every key, path and point
resolved) and its cheapest point runs (`clustersim run GRID --point N`); each
`clustersim-analyze` command's options are accepted (run on a missing file: the error must be
about the file, not a usage error), and each one that reads the file of a README sweep command
runs, as written, on a real file of that sweep: the command's first shard of about 12 points
(`--shard 0/N`, the points balanced by cost), so every axis, policy and baseline it names is
there. The whole grids are not run here: together they take hours."""
import glob
import json
import math
import os
import re
import shlex
import tomllib

import pytest

from conftest import ROOT, run, run_sweep

_SOURCES = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "sweep", "examples", "*", "*.toml")))


def _commands(program: str) -> list[tuple[str, list[str]]]:
    """(where, argv after `build/bin/<program>`) for each concrete command (no placeholders)."""
    out = []
    for source in _SOURCES:
        lines = open(source, encoding="utf-8").read().splitlines()
        for number, line in enumerate(lines, 1):
            text = line.lstrip("#").strip()
            while text.endswith("\\") and number < len(lines):  # a continued command
                text = text[:-1] + " " + lines[number].lstrip("#").strip()
                number += 1
            match = re.search(rf"build/bin/{re.escape(program)} (.*)", text)
            if not match or "`" in text or "[" in match.group(1) or "GRID" in text or "RESULTS" in text:
                continue
            words = shlex.split(match.group(1).split("#")[0])
            out.append((f"{os.path.relpath(source, ROOT)}:{number}", words))
    return out


SWEEPS = [c for c in _commands("clustersim") if c[1] and c[1][0] == "sweep"]
# `clustersim run CONFIG ...` as shown (a comment's closing parenthesis is not part of it)
RUNS = sorted({(w, tuple(x.rstrip(")") for x in c)) for w, c in _commands("clustersim") if c and c[0] == "run"})
ANALYSES = _commands("clustersim-analyze")
SHARD_POINTS = 12  # about this many points of a grid run for an analysis command


def _out_of(words: list[str]) -> str | None:
    return words[words.index("--out") + 1] if "--out" in words else None


def _analysis_shape(words: list[str], writer: list[str]) -> tuple:
    """What an analysis run exercises: its options (file and folder names aside), the axes and
    values of the grid it reads ([sweep]) and what that sweep saves. Two pipelines of one shape
    (the calibrated study is the Synergy study's grid on measured profiles, analysed alike) run
    the same analysis code on files of the same columns: one of them is run."""
    options = tuple("FILE" if w.endswith(".h5") else "FOLDER" if i > 0 and words[i - 1] in ("--out", "-o") else w
                    for i, w in enumerate(words))
    with open(os.path.join(ROOT, writer[1]), "rb") as grid:
        axes = json.dumps(tomllib.load(grid).get("sweep", {}), sort_keys=True)
    saves = tuple(w for w in writer if w.startswith("--save") or w == "--whole-run")
    return options, axes, saves


def _pipelines() -> list[tuple[str, list[str], list[str]]]:
    """(where, analysis argv, argv of the sweep command writing the file it reads), each distinct
    analysis once (the grids' comments repeat the README's commands; _analysis_shape)."""
    out, seen = [], set()
    for where, words in ANALYSES:
        writers = [w for _, w in SWEEPS if _out_of(w) and _out_of(w) in words]
        if writers and _analysis_shape(words, writers[0]) not in seen:
            seen.add(_analysis_shape(words, writers[0]))
            out.append((where, words, writers[0]))
    return out


PIPELINES = _pipelines()
_SHARD_FILES: dict[tuple[str, ...], tuple[str, int]] = {}  # one sweep (file, shards) per grid


def _skip_without_shared(grid: str) -> None:
    """Skips a grid that replays files of ../shared when it is absent (a fresh clone)."""
    grid_text = open(os.path.join(ROOT, grid), encoding="utf-8").read()
    reads_shared = re.search(r'^\w+\s*=\s*".*shared/', grid_text, re.MULTILINE)
    if reads_shared and not os.path.isdir(os.path.join(ROOT, "..", "shared")):
        pytest.skip(f"{grid} replays files of ../shared, which is absent")


def test_the_docs_show_commands():
    assert len(SWEEPS) >= 6 and len(ANALYSES) >= 4


@pytest.mark.parametrize("where,words", SWEEPS, ids=[w for w, _ in SWEEPS])
def test_sweep_command_plans(clustersim, tmp_path, where, words):
    assert words[1].endswith(".toml"), where
    _skip_without_shared(words[1])
    command = [clustersim, "sweep", os.path.join(ROOT, words[1]), "--out", str(tmp_path / "out.h5"), "--dry-run"]
    status, _, stderr = run(command, cwd=ROOT)
    assert status == 0, f"{where}: {stderr}"


@pytest.mark.parametrize("where,words", SWEEPS, ids=[w for w, _ in SWEEPS])
def test_sweep_command_runs_a_point(clustersim, where, words):
    """The command's grid really runs: its cheapest point (by the sweep's own cost estimate),
    simulated as the sweep simulates it (`clustersim run GRID --point N`), gives a result."""
    grid = os.path.join(ROOT, words[1])
    _skip_without_shared(words[1])
    status, listing, stderr = run([clustersim, "sweep", grid, "--dry-run"], cwd=ROOT)
    assert status == 0, f"{where}: {stderr}"
    rows = [line.split() for line in listing.splitlines() if line and not line.startswith("#")]
    point = min(rows, key=lambda row: float(row[-1]))[0]
    status, out, stderr = run([clustersim, "run", grid, "--point", point, "--json"], cwd=ROOT)
    assert status == 0, f"{where}: point {point}: {stderr}"
    assert json.loads(out)["jobs"] > 0, f"{where}: point {point} measured no job"


@pytest.mark.parametrize("where,words", ANALYSES, ids=[w for w, _ in ANALYSES])
def test_analyze_command_parses(analyze, tmp_path, where, words):
    words = [str(tmp_path / "missing.h5") if w.endswith(".h5") else w for w in words]
    words = [str(tmp_path / w) if i > 0 and words[i - 1] in ("--out", "-o") else w for i, w in enumerate(words)]
    status, _, stderr = run([analyze] + words)
    assert status != 0 and "missing.h5" in stderr, f"{where}: {stderr}"
    assert "usage:" not in stderr and "unrecognized arguments" not in stderr, f"{where}: {stderr}"


def test_the_docs_show_analyses_of_their_sweeps():
    assert len(PIPELINES) >= 3, [where for where, _, _ in PIPELINES]


@pytest.mark.parametrize("where,words,sweep_words", PIPELINES, ids=[w for w, _, _ in PIPELINES])
def test_analyze_command_runs_on_its_sweep(clustersim, analyze, tmp_path, where, words, sweep_words):
    grid = sweep_words[1]
    _skip_without_shared(grid)
    result, shards = _SHARD_FILES.get(tuple(sweep_words), (None, 0))
    if result is None:
        status, listing, stderr = run([clustersim, "sweep", os.path.join(ROOT, grid), "--dry-run"], cwd=ROOT)
        assert status == 0, f"{where}: {stderr}"
        points = sum(1 for line in listing.splitlines() if line and not line.startswith("#"))
        shards = max(1, math.ceil(points / SHARD_POINTS))
        result = str(tmp_path / _out_of(sweep_words))
        # The row tables the command saves (the report's CDFs and time series read them).
        saves = [w for w in sweep_words if w in ("--save-jobs", "--save-timeseries", "--whole-run")]
        run_sweep(clustersim, os.path.join(ROOT, grid), result, "--shard", f"0/{shards}", "--threads", "1", *saves)
        _SHARD_FILES[tuple(sweep_words)] = (result, shards)
    # The analysis as written, its file the sweep's and its output folder under tmp_path.
    argv = [result if w == _out_of(sweep_words) else w for w in words]
    argv = [str(tmp_path / w) if i > 0 and argv[i - 1] in ("--out", "-o") else w for i, w in enumerate(argv)]
    # A report's figures as PNG only, unless the command names its formats: PDF and SVG redraw
    # every figure twice more (two thirds of a report's time); test_paper_output checks them.
    if "--out" in argv and "--figure-formats" not in argv:
        argv += ["--figure-formats", "none"]
    status, out, stderr = run([analyze] + argv, cwd=tmp_path)
    assert status == 0, f"{where}: {stderr}"
    assert "Traceback" not in stderr, f"{where}: {stderr}"
    if shards > 1:  # a shard is said to be one, not "not finished"
        assert f"hard 0/{shards} of the grid" in out and "not finished" not in out, f"{where}: {out}"
    if "--out" in argv:
        report = argv[argv.index("--out") + 1]
        assert os.path.isfile(os.path.join(report, "index.html")), f"{where}: no report in {report}"
        if "--save-jobs" in sweep_words:
            assert os.path.isfile(os.path.join(report, "plots", "jct_cdf.png")), f"{where}: no JCT CDF"
    else:
        assert out.strip(), f"{where}: printed nothing"


@pytest.mark.parametrize("where,words", RUNS, ids=[w for w, _ in RUNS])
def test_run_command_runs(clustersim, where, words):
    """Each `clustersim run CONFIG ...` the docs show runs as written and gives its result."""
    _skip_without_shared(words[1])
    status, out, stderr = run([clustersim, *words], cwd=ROOT)
    assert status == 0, f"{where}: {stderr}"
    if "--json" in words:
        assert json.loads(out)["jobs"] > 0, f"{where}: no job"
