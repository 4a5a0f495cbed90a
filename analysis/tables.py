"""The report's tables as a paper needs them: one time unit for the whole report, tables split to
fit a page, and each table also as a LaTeX file (booktabs; written here, no template engine).

summary.csv keeps seconds at full precision; everything a reader sees (summary.md, index.html,
tables/*.tex, and the plots) shows times in the report's one unit.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import metrics as metric_table
from .summary import TableSection

# The report's unit: the one of metrics.time_scale for the typical time-valued mean.
_UNIT_WORDS = {"s": "seconds", "min": "minutes", "h": "hours", "days": "days"}

# Columns of summarize()'s table that carry the metric's unit (ratios, speedups and p do not).
_SCALED_COLUMNS = ["mean", "sd", "ci_low", "ci_high", "diff", "diff_ci_low", "diff_ci_high"]

# A table wider than this many characters (cells plus separators) is split by columns: about what
# a paper's text width holds in \small (6.5 in at ~4.5 pt a character), and what the HTML page
# (at most 1400 px, 0.85 em) shows without scrolling.
LATEX_CHARACTERS = 100
HTML_CHARACTERS = 170


@dataclass(frozen=True)
class TimeUnit:
    name: str  # "s", "min", "h", "days"
    divisor: float  # seconds per unit

    @property
    def words(self) -> str:
        return _UNIT_WORDS.get(self.name, self.name)


def time_metrics(metrics: list[str]) -> list[str]:
    return [m for m in metrics if metric_table.info(m).unit == "s"]


def choose_time_unit(table: pd.DataFrame, metrics: list[str]) -> TimeUnit:
    """The report's one time unit: readable for its mean JCT (the headline time), else for the
    typical mean of its time-valued metrics."""
    timed = time_metrics(metrics)
    lead = [m for m in ("jct_mean", "query_latency_mean") if m in timed] or timed
    values = table.loc[table["metric"].isin(lead), "mean"].to_numpy(float) if lead else np.zeros(0)
    name, divisor = metric_table.time_scale(values)
    return TimeUnit(name, divisor)


def in_unit(table: pd.DataFrame, metrics: list[str], unit: TimeUnit) -> pd.DataFrame:
    """A copy of summarize()'s table with the time-valued metrics' values in `unit`."""
    if unit.divisor == 1.0:
        return table
    scaled = table.copy()
    rows = scaled["metric"].isin(time_metrics(metrics)).to_numpy()
    for column in _SCALED_COLUMNS:
        if column in scaled.columns:
            scaled.loc[rows, column] = scaled.loc[rows, column].to_numpy(float) / unit.divisor
    return scaled


def relabel(section: TableSection, metrics: list[str], unit: TimeUnit) -> TableSection:
    """The section's headings saying `unit` where summary.py's say seconds."""
    if unit.divisor == 1.0:
        return section
    header = list(section.header)
    timed = set(time_metrics(metrics))
    for i, cell in enumerate(header):
        if cell.endswith(" (s)") and cell[:-4] in timed:
            header[i] = f"{cell[:-4]} ({unit.name})"
    title = section.title
    name = title.split(":", 1)[0]
    if name in timed and title.endswith("(seconds)"):
        title = title[: -len("(seconds)")] + f"({unit.words})"
    return TableSection(section.level, title, header, section.rows)


# ---------------------------------------------------------------------------------------------
# Fitting the page


def _width(cells: list[str]) -> int:
    return max((len(c) for c in cells), default=0)


def fixed_axes(section: TableSection, axis_columns: int) -> list[tuple[str, str]]:
    """The leading axis columns that hold one value in every row: (axis, value)."""
    out = []
    for i in range(min(axis_columns, len(section.header))):
        values = {row[i] for row in section.rows}
        if len(values) == 1 and len(section.rows) > 1:
            out.append((section.header[i], next(iter(values))))
    return out


def fit(section: TableSection, axis_columns: int, page: int) -> list[TableSection]:
    """The section as one or more tables no wider than `page` characters: axis columns that hold
    one value in every row are moved into the title, and the other columns are split over
    several tables, each repeating the axis columns (the rows' keys). A table that fits is
    returned as it is."""
    columns = list(zip(*([section.header] + section.rows))) if section.rows else [(h,) for h in section.header]
    widths = [_width(list(c)) + 3 for c in columns]  # "| " and " " around each cell
    if sum(widths) <= page:
        return [section]
    fixed = {name for name, _ in fixed_axes(section, axis_columns)}
    keys = [i for i in range(min(axis_columns, len(section.header))) if section.header[i] not in fixed]
    rest = list(range(min(axis_columns, len(section.header)), len(section.header)))
    title = section.title
    if fixed:  # said once, in the title, instead of in every row of every part
        title += " [" + ", ".join(f"{n}={v}" for n, v in fixed_axes(section, axis_columns)) + "]"
    key_width = sum(widths[i] for i in keys)
    groups: list[list[int]] = []
    for i in rest:
        if groups and key_width + sum(widths[j] for j in groups[-1]) + widths[i] <= page:
            groups[-1].append(i)
        else:
            groups.append([i])
    if not groups:
        groups = [[]]
    out = []
    for number, group in enumerate(groups, 1):
        chosen = keys + group
        part = f" (part {number} of {len(groups)})" if len(groups) > 1 else ""
        out.append(TableSection(section.level, title + part, [section.header[i] for i in chosen],
                                [[row[i] for i in chosen] for row in section.rows]))
    return out


def key_columns(section: TableSection, axes: list[str]) -> int:
    """How many leading columns of a fitted section are axes."""
    count = 0
    for cell in section.header:
        if cell not in axes:
            break
        count += 1
    return count


# ---------------------------------------------------------------------------------------------
# LaTeX

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
    "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
    "|": r"\textbar{}",
}
# Characters the report writes that plain LaTeX (no inputenc magic) sets wrongly or not at all.
_LATEX_SYMBOLS = {"±": r"$\pm$", "∞": r"$\infty$", "≤": r"$\leq$", "≥": r"$\geq$", "×": r"$\times$",
                  "–": "--", "—": "---", "·": r"$\cdot$", "≈": r"$\approx$"}


def latex_escape(text: str) -> str:
    """`text` as LaTeX that prints it literally (special characters escaped, the few symbols the
    report uses in math mode; other non-ASCII characters are left to the document's encoding)."""
    out = []
    for char in str(text):
        out.append(_LATEX_SPECIAL.get(char) or _LATEX_SYMBOLS.get(char) or char)
    return "".join(out)


_LABEL_UNSAFE = re.compile(r"[^A-Za-z0-9:.-]+")


def to_latex(section: TableSection, axes: list[str], label: str) -> str:
    """One table as a LaTeX `table` float (needs \\usepackage{booktabs}), the section's title as its
    caption: split into stacked tabulars that each fit the text width (LATEX_CHARACTERS), axis
    columns left-aligned, values right-aligned."""
    parts = fit(section, key_columns(section, axes), LATEX_CHARACTERS)
    # The parts' common title: the section's, with the axes fixed in every row said once.
    caption = re.sub(r" \(part 1 of \d+\)$", "", parts[0].title)
    lines = [
        "% Written by clustersim-analyze. Needs \\usepackage{booktabs}.",
        "\\begin{table}[htbp]",
        "\\centering",
        "\\small",
        f"\\caption{{{latex_escape(caption)}}}",
        f"\\label{{tab:{_LABEL_UNSAFE.sub('-', label)}}}",
    ]
    for number, part in enumerate(parts):
        keys = key_columns(part, axes)
        if number:
            lines.append("\\par\\medskip")
        lines += [
            f"\\begin{{tabular}}{{{'l' * keys + 'r' * (len(part.header) - keys)}}}",
            "\\toprule",
            " & ".join(latex_escape(h) for h in part.header) + " \\\\",
            "\\midrule",
        ]
        lines += [" & ".join(latex_escape(c) for c in row) + " \\\\" for row in part.rows]
        lines += ["\\bottomrule", "\\end{tabular}"]
    lines += ["\\end{table}", ""]
    return "\n".join(lines)


def file_stem(title: str) -> str:
    """A file name for a table from its title's leading words."""
    head = re.split(r"[:(\[]", title, 1)[0].strip().lower()
    return re.sub(r"[^a-z0-9]+", "_", head).strip("_")[:60] or "table"
