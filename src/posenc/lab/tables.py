"""Tables of a sweep's results: metric against length per encoding, mean and standard deviation over seeds.

:func:`summarize` reads the store and returns a plain dict (JSON-able), which :func:`to_markdown` prints and
:func:`posenc.plots.lab.metric_vs_length` draws. What a task's runs measure and how its tables are laid out is the
task's to say (:class:`posenc.lab.lab_task.LabTask`: ``metrics``, ``series``, ``rows_are_lengths``, ``heading``).
:func:`alibi_table` lays the char-LM out like Table 1 of Press et
al. 2022: one row per evaluation length, one column per encoding.

The summary dict::

    {"sweep": "nope-tasks", "metric": "exact_match", "metrics": {"copy": "exact_match", ...},
     "series": {"copy": {"rope": {"20": {"mean": 0.98, "std": 0.01, "n": 3, "cannot_run": 0}, ...}, ...},
                "charlm/nonoverlap": {...}},
     "lengths": {"copy": [5, 10, ...]}, "train_len": {"copy": 20}, "length_axis": {"copy": "task size n"},
     "missing": 0}

``std`` is the sample standard deviation (``ddof=1``; 0 for one seed). A length at which some seed cannot run (a
learned table past its rows) counts in ``cannot_run``; ``mean`` then covers the seeds that ran (``None`` if none).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from posenc.errors import PosencError
from posenc.lab.charlm import LM_METRICS
from posenc.lab.evaluate import CANNOT_RUN
from posenc.lab.lab_task import lab_task, task_of_series
from posenc.lab.sweep import Sweep, resolve_sweep
from posenc.lab.synthetic import TASK_METRICS
from posenc.lab.train import CODE_VERSION, KIND
from posenc.names import Registry
from posenc.store import ResultStore

__all__ = ["summarize", "summarize_records", "alibi_table", "to_markdown", "default_metric", "check_metric",
           "TASK_METRICS", "LM_METRICS"]


def check_metric(metric: str | None, tasks: set[str] | list[str]) -> None:
    """Refuse a metric that some of the runs of ``tasks`` do not have (``None``, each task's default, always
    works)."""
    names = sorted(set(tasks))
    if metric is None or not names:
        return
    have = {name: lab_task(name).metrics for name in names}
    valid = [m for m in next(iter(have.values())) if all(m in metrics for metrics in have.values())]
    if metric in valid:
        return
    if not valid:
        listed = "; ".join(f"{name}: {', '.join(metrics)}" for name, metrics in have.items())
        raise PosencError(f"--metric {metric!r}: no metric applies to every task of this sweep ({listed}); leave "
                          f"--metric out to use each one's default")
    shared: Registry[str] = Registry("metric")  # the metrics every task has, in the first task's order
    for name in valid:
        shared.register(name, name)
    raise shared.unknown(metric, where=f" for the task(s) {', '.join(names)}")


def default_metric(task: str) -> str:
    """The task's first metric: ``ppl`` for the char-LM, ``exact_match`` for the synthetic tasks."""
    return lab_task(task).metrics[0]


def _mean_std(values: list[float]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    mean = sum(values) / len(values)
    if len(values) == 1:
        return mean, 0.0
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


def summarize_records(records: list[tuple[dict[str, Any], int, dict[str, Any]]], metric: str | None = None,
                      name: str = "") -> dict[str, Any]:
    """Summary of ``(config, seed, metrics)`` triples (see the module docstring)."""
    check_metric(metric, {config["task"] for config, _, _ in records})
    cells: dict[str, dict[str, dict[str, list]]] = {}
    lengths: dict[str, set[int]] = {}
    train_len: dict[str, int] = {}
    axis: dict[str, str] = {}
    for config, _seed, metrics in records:
        task = lab_task(config["task"])
        for key, values in task.series(metrics.get("by_length", {})).items():
            train_len[key] = config["train_len"]
            axis[key] = task.length_axis
            for length, value in values.items():
                lengths.setdefault(key, set()).add(int(length))
                cell = cells.setdefault(key, {}).setdefault(config["label"], {}).setdefault(length, [])
                cell.append(value)
    chosen = metric
    series: dict[str, Any] = {}
    per_key: dict[str, str] = {}
    for key, by_label in cells.items():
        m = per_key[key] = metric or default_metric(key.split("/")[0])
        chosen = chosen or m
        series[key] = {}
        for label, by_length in by_label.items():
            row = {}
            for length in sorted(by_length, key=int):
                values = by_length[length]
                ran = [v[m] for v in values if v != CANNOT_RUN]
                mean, std = _mean_std(ran)
                row[length] = {"mean": mean, "std": std, "n": len(ran), "cannot_run": len(values) - len(ran)}
            series[key][label] = row
    return {"sweep": name, "metric": chosen, "metrics": per_key, "series": series,
            "lengths": {k: sorted(v) for k, v in lengths.items()}, "train_len": train_len, "length_axis": axis}


def summarize(store_path: str | Path, preset: str | Path | dict | Sweep | None = None,
              metric: str | None = None) -> dict[str, Any]:
    """Summarise the finished lab runs in ``store_path`` (only those of the sweep ``preset`` when given).

    Args:
        store_path: the results store.
        preset: a preset name, sweep file, dict or :class:`Sweep`; ``None`` takes every finished lab run.
        metric: ``exact_match`` / ``token_accuracy`` (tasks) or ``ppl`` / ``bpc`` / ``nll`` (char-LM); default
            ``exact_match`` for tasks and ``ppl`` for the char-LM.

    Returns:
        the summary dict of the module docstring, with ``missing``: runs of the sweep not (yet) in the store.
    """
    store_path = Path(store_path)
    if not store_path.exists():
        raise PosencError(f"no results store at {store_path}; run a sweep first (posenc sweep --store {store_path})")
    store = ResultStore(store_path)
    if preset is None:
        records = [(r.config, r.seed, r.metrics) for r in store.runs(KIND) if r.is_finished(CODE_VERSION)]
        summary = summarize_records(records, metric, name="all")
        summary["missing"] = 0
        return summary
    sweep = resolve_sweep(preset)
    records, missing = [], 0
    for config, seed in sweep.runs():
        record = store.finished(KIND, config.as_dict(), seed, code=CODE_VERSION, earlier=config.earlier_keys())
        if record is None:
            missing += 1
            continue
        records.append((config.as_dict(), seed, record.metrics))
    summary = summarize_records(records, metric, name=sweep.name)
    summary["missing"] = missing
    return summary


def alibi_table(summary: dict[str, Any]) -> dict[str, Any]:
    """The series of a summary whose task lays them out one length per row (the char-LM) as ``{part:
    {"columns": [labels], "rows": [[L_valid, cell, ...]]}}`` (``part``: the key after its task, the char-LM's
    protocol), where a cell is ``{"mean", "std", "n", "cannot_run"}`` (the layout of Press et al. 2022, Table 1)."""
    out = {}
    for key, by_label in summary["series"].items():
        if not task_of_series(key).rows_are_lengths:
            continue
        labels = list(by_label)
        rows = [[length] + [by_label[label].get(str(length)) for label in labels]
                for length in summary["lengths"][key]]
        out[key.split("/", 1)[1]] = {"columns": labels, "rows": rows}
    return out


def _cell(cell: dict[str, Any] | None, digits: int) -> str:
    if cell is None:
        return "—"
    if cell["mean"] is None:
        return CANNOT_RUN
    text = f"{cell['mean']:.{digits}f}"
    if cell["n"] > 1:
        text += f" ± {cell['std']:.{digits}f}"
    if cell["cannot_run"]:
        text += f" ({cell['cannot_run']} cannot run)"
    return text


def to_markdown(summary: dict[str, Any]) -> str:
    """Markdown tables: one per task (rows: encodings, columns: lengths); for the char-LM, the ALiBi-style layout."""
    seeds = max((c["n"] + c["cannot_run"] for by_label in summary["series"].values() for row in by_label.values()
                 for c in row.values()), default=0)
    spread = "one seed" if seeds <= 1 else f"mean ± std over {seeds} seeds"
    parts = [f"## {summary['sweep']}: metric by length ({spread})"]
    if summary.get("missing"):
        parts.append(f"_{summary['missing']} run(s) of this sweep are not in the store yet._")
    tables = alibi_table(summary)
    by_lengths = [key for key in summary["series"] if task_of_series(key).rows_are_lengths]
    for key in by_lengths:
        table = tables[key.split("/", 1)[1]]
        heading = task_of_series(key).heading(key, summary["metrics"][key], summary["train_len"][key])
        parts.append(f"\n### {heading}\n")
        parts.append("| L_valid | " + " | ".join(table["columns"]) + " |")
        parts.append("|---" * (len(table["columns"]) + 1) + "|")
        for length, *cells in table["rows"]:
            parts.append(f"| {length} | " + " | ".join(_cell(c, 2) for c in cells) + " |")
    for key, by_label in summary["series"].items():
        if key in by_lengths:
            continue
        lengths = summary["lengths"][key]
        heading = task_of_series(key).heading(key, summary["metrics"][key], summary["train_len"][key])
        parts.append(f"\n### {heading}\n")
        parts.append("| encoding | " + " | ".join(str(n) for n in lengths) + " |")
        parts.append("|---" * (len(lengths) + 1) + "|")
        for label, row in by_label.items():
            parts.append(f"| {label} | " + " | ".join(_cell(row.get(str(n)), 2) for n in lengths) + " |")
    return "\n".join(parts) + "\n"
