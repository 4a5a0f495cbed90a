"""Every number the READMEs (README.md, sweep/README.md, slurm/README.md) and the example grids'
comments state about a grid's points, and every run time the READMEs state for a grid, checked
against the grid itself: points counted by its dry run exactly; times against the dry run's own
estimate (`clustersim sweep GRID --dry-run --json`: time.cpu_seconds over the cores the text
names) within the spread the estimate states for itself (time.wall_seconds_high /
time.wall_seconds, sweep/README.md "Sizing"). Nothing is run or timed here: a stale number (a
grid grown from 36 to 150 points, "3 minutes" for a 35 s run) fails, a slow machine does not."""
import glob
import json
import os
import re

import pytest

from conftest import ROOT, run

READMES = ["README.md", "sweep/README.md", "slurm/README.md"]
GRID_PATH = re.compile(r"((?:sweep/examples|tests/\w+/data)/[\w/]+\.toml)")
POINTS = re.compile(r"\b(\d[\d,]*) (?:points|serving points)\b")

# Statements whose grid is not on their own line: (file, a regex matching exactly one line, the
# grid). Group "points" is the points; group "time" (optional) a run time, "cores" the cores.
CLAIMS = [
    ("README.md", r"(?P<points>\d+) points in (?P<time>[^,]+?) on (?P<cores>\d+) cores", "sweep/examples/synergy/grid.toml"),
    ("README.md", r"hetero/grid.toml .*# (?P<points>\d+) points, (?P<time>~[\d.]+ min) on (?P<cores>one) core", "sweep/examples/hetero/grid.toml"),
    ("README.md", r"compass/grid.toml .*# (?P<points>\d+) points, (?P<time>~[\d.]+ s) on (?P<cores>\d+) cores", "sweep/examples/compass/grid.toml"),
    ("sweep/README.md", r"seeds = (?P<points>\d+) points, (?P<time>about [\d.]+ s) on (?P<cores>\d+) cores", "sweep/examples/default/grid.toml"),
    ("sweep/README.md", r"^wrote default.h5 \((?P<points>\d+) of \d+ points\)", "sweep/examples/default/grid.toml"),
    ("slurm/README.md", r"tests/slurm/data/grid.toml` \((?P<points>\d+) points\)", "tests/slurm/data/grid.toml"),
    ("slurm/README.md", r"preemption_costs/grid.toml: (?P<points>\d+) points", "sweep/examples/preemption_costs/grid.toml"),
]
# The time estimate does not model these grids' costs (sweep/README.md, "Sizing": Gavel's LP
# policies in rounds run far slower per cost unit); their points are still checked.
TIME_NOT_MODELLED = {"sweep/examples/hetero/grid.toml": "Gavel's LP policies"}

_PLANS: dict[str, dict] = {}


def _plan(clustersim, grid: str) -> dict:
    """The dry run's JSON for `grid` on one rank x one thread (its CPU-seconds)."""
    if grid not in _PLANS:
        path = os.path.join(ROOT, grid)
        text = open(path, encoding="utf-8").read()
        if re.search(r'^\w+\s*=\s*".*shared/', text, re.MULTILINE) and not os.path.isdir(os.path.join(ROOT, "..", "shared")):
            pytest.skip(f"{grid} replays files of ../shared, which is absent")
        status, out, stderr = run([clustersim, "sweep", path, "--dry-run", "--json", "--ranks", "1", "--threads", "1"], cwd=ROOT)
        assert status == 0, f"{grid}: {stderr}"
        _PLANS[grid] = json.loads(out)
    return _PLANS[grid]


def seconds_of(text: str) -> float:
    """'~20 s', 'about a second', '3 minutes', '~12 min', 'about a minute' -> seconds."""
    match = re.search(r"(\d+(?:\.\d+)?|an?|one)\s*(s|sec|seconds?|min|minutes?|h|hours?)\b", text)
    assert match, f"no time in '{text}'"
    number = 1.0 if match.group(1) in ("a", "an", "one") else float(match.group(1))
    unit = match.group(2)
    return number * (3600 if unit.startswith("h") else 60 if unit.startswith("min") else 1)


def test_seconds_of():
    assert seconds_of("~20 s") == 20 and seconds_of("about a second") == 1
    assert seconds_of("3 minutes") == 180 and seconds_of("~12 min") == 720 and seconds_of("about a minute") == 60


def _lines_with_grid_and_points():
    """(where, grid, points) for each README line naming a grid and a count of points, and each
    example grid comment line counting points (the grid is the file itself)."""
    out = []
    for readme in READMES:
        for number, line in enumerate(open(os.path.join(ROOT, readme), encoding="utf-8"), 1):
            grids, counts = GRID_PATH.findall(line), POINTS.findall(line)
            if len(grids) == 1 and len(counts) == 1:
                out.append((f"{readme}:{number}", grids[0], int(counts[0].replace(",", ""))))
    for grid in sorted(glob.glob(os.path.join(ROOT, "sweep", "examples", "*", "*.toml"))):
        relative = os.path.relpath(grid, ROOT)
        if "[sweep]" not in open(grid, encoding="utf-8").read():
            continue  # a run config, not a grid
        for number, line in enumerate(open(grid, encoding="utf-8"), 1):
            if line.startswith("#") and "= " in line and POINTS.search(line):
                count = POINTS.findall(line)[-1]  # "... x 2 seeds = 120 points"
                out.append((f"{relative}:{number}", relative, int(count.replace(",", ""))))
    return out


LINES = _lines_with_grid_and_points()


def test_the_docs_count_points():
    assert len(LINES) >= 8, LINES


@pytest.mark.parametrize("where,grid,points", LINES, ids=[w for w, _, _ in LINES])
def test_points_on_a_line(clustersim, where, grid, points):
    assert _plan(clustersim, grid)["points"] == points, f"{where}: {grid} has {_plan(clustersim, grid)['points']} points"


def _claim_match(readme: str, pattern: str):
    lines = open(os.path.join(ROOT, readme), encoding="utf-8").read().splitlines()
    found = [(n, re.search(pattern, line)) for n, line in enumerate(lines, 1) if re.search(pattern, line)]
    assert len(found) == 1, f"{readme}: '{pattern}' matches {len(found)} lines (the text changed: update CLAIMS)"
    return found[0]


@pytest.mark.parametrize("readme,pattern,grid", CLAIMS, ids=[f"{r}:{g}" for r, _, g in CLAIMS])
def test_claim(clustersim, readme, pattern, grid):
    number, match = _claim_match(readme, pattern)
    plan = _plan(clustersim, grid)
    assert int(match.group("points")) == plan["points"], f"{readme}:{number}: {grid} has {plan['points']} points"
    if "time" not in match.groupdict() or match.group("time") is None:
        return
    if grid in TIME_NOT_MODELLED:
        pytest.skip(f"{readme}:{number}: the time estimate does not model {TIME_NOT_MODELLED[grid]}")
    cores = 1 if match.group("cores") == "one" else int(match.group("cores"))
    stated = seconds_of(match.group("time"))
    estimate = plan["time"]["cpu_seconds"] / cores
    spread = plan["time"]["wall_seconds_high"] / plan["time"]["wall_seconds"]
    assert estimate / spread <= stated <= estimate * spread, (
        f"{readme}:{number}: '{match.group('time')}' on {cores} cores, but the dry run estimates "
        f"{estimate:.1f} s (within {spread:g}x)")
