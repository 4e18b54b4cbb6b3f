"""Summaries (mean ± std over seeds, "cannot run" counted), the ALiBi-style table, and the plot."""

import pytest
from matplotlib.figure import Figure

from posenc.lab.evaluate import CANNOT_RUN
from posenc.lab.tables import alibi_table, summarize_records, to_markdown
from posenc.plots.lab import metric_vs_length


def _task(label, seed, em):
    return ({"task": "copy", "label": label, "train_len": 4}, seed,
            {"by_length": {n: (v if v == CANNOT_RUN else {"exact_match": v, "token_accuracy": 1.0})
                           for n, v in em.items()}})


def _lm(label, seed, ppl):
    cells = {n: (v if v == CANNOT_RUN else {"ppl": v, "bpc": 1.0, "nll": 0.1}) for n, v in ppl.items()}
    return ({"task": "charlm", "label": label, "train_len": 64}, seed,
            {"by_length": {"nonoverlap": cells, "sliding": cells}})


def test_mean_and_sample_std_over_seeds():
    # seeds give 0.2, 0.4, 0.9 at size 4: mean 0.5, sample std sqrt(((-.3)^2 + (-.1)^2 + .4^2) / 2) = sqrt(0.13)
    records = [_task("rope", 0, {"4": 0.2, "8": 0.0}), _task("rope", 1, {"4": 0.4, "8": 0.0}),
               _task("rope", 2, {"4": 0.9, "8": 0.3})]
    cell = summarize_records(records)["series"]["copy"]["rope"]["4"]
    assert cell["mean"] == pytest.approx(0.5) and cell["std"] == pytest.approx(0.13 ** 0.5) and cell["n"] == 3
    one = summarize_records(records[:1])["series"]["copy"]["rope"]["4"]
    assert one["std"] == 0.0 and one["n"] == 1


def test_cannot_run_is_counted_not_averaged():
    records = [_task("learned", 0, {"4": 1.0, "8": CANNOT_RUN}), _task("learned", 1, {"4": 0.5, "8": CANNOT_RUN})]
    summary = summarize_records(records, name="t")
    assert summary["series"]["copy"]["learned"]["8"] == {"mean": None, "std": None, "n": 0, "cannot_run": 2}
    assert "cannot run" in to_markdown(summary)


def test_alibi_table_layout():
    records = [_lm("alibi", 0, {"64": 10.0, "128": 9.0}), _lm("learned", 0, {"64": 11.0, "128": CANNOT_RUN})]
    summary = summarize_records(records, name="alibi-table")
    assert summary["metric"] == "ppl"
    table = alibi_table(summary)
    assert set(table) == {"nonoverlap", "sliding"}
    assert table["sliding"]["columns"] == ["alibi", "learned"]
    rows = table["sliding"]["rows"]
    assert [r[0] for r in rows] == [64, 128]
    assert rows[1][1]["mean"] == 9.0 and rows[1][2]["cannot_run"] == 1
    text = to_markdown(summary)
    assert "| L_valid | alibi | learned |" in text and "| 128 | 9.00 | cannot run |" in text


def test_plot_has_one_panel_per_series():
    records = [_task("rope", 0, {"4": 0.2, "8": 0.0}), _lm("alibi", 0, {"64": 10.0, "128": 9.0}),
               _lm("learned", 0, {"64": 11.0, "128": CANNOT_RUN})]
    summary = summarize_records(records)
    assert summary["length_axis"] == {"copy": "task size n", "charlm/nonoverlap": "L_valid (characters)",
                                      "charlm/sliding": "L_valid (characters)"}
    fig = metric_vs_length(summary)
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 3  # copy, charlm/nonoverlap, charlm/sliding
    by_title = {ax.get_title(): ax for ax in fig.axes}
    assert by_title["copy"].get_xlabel() == "evaluation length: task size n"
    assert by_title["copy"].get_yscale() == "linear"  # exact match: a share, drawn linearly
    assert by_title["charlm/sliding"].get_xlabel() == "evaluation length: L_valid (characters)"
    assert by_title["charlm/sliding"].get_yscale() == "log"  # perplexity grows by factors
    assert isinstance(metric_vs_length({"sweep": "x", "metric": "ppl", "series": {}, "train_len": {}}), Figure)


def test_every_table_of_the_markdown_has_its_task_heading():
    records = [_task("rope", 0, {"4": 0.5}), _lm("alibi", 0, {"64": 10.0, "128": 9.0})]
    text = to_markdown(summarize_records(records, name="mixed"))
    headings = [line for line in text.splitlines() if line.startswith("### ")]
    # the char-LM's two protocols (rows are lengths), then the task's (rows are encodings), each titled by its task
    assert headings == ["### char-LM ppl, nonoverlap (trained at L = 64)", "### char-LM ppl, sliding (trained at L = 64)",
                        "### copy: exact_match (trained on sizes up to 4)"]


def test_every_table_of_the_markdown_is_well_formed():
    # each table: a header, a separator with one |---| per column, rows of as many cells; both layouts (rows are
    # lengths for the char-LM, encodings for a task)
    records = [_task("rope", 0, {"4": 0.5, "8": 0.25}), _task("alibi", 0, {"4": 1.0, "8": CANNOT_RUN}),
               _lm("alibi", 0, {"64": 10.0, "128": 9.0}), _lm("rope", 0, {"64": 11.0, "128": 30.0})]
    lines = to_markdown(summarize_records(records, name="mixed")).splitlines()
    tables, current = [], []
    for line in [*lines, ""]:
        if line.startswith("|"):
            current.append(line)
        elif current:
            tables.append(current)
            current = []
    assert len(tables) == 3
    for header, separator, *rows in tables:
        columns = header.count("|") - 1
        assert separator == "|---" * columns + "|", (header, separator)
        assert rows and all(row.count("|") - 1 == columns for row in rows), rows


def test_a_summary_of_the_whole_store_misses_no_run(tmp_path):
    from posenc.lab import KIND, summarize
    from posenc.lab.train import CODE_VERSION
    from posenc.store import ResultStore

    store = ResultStore(tmp_path / "runs.sqlite")
    config, seed, metrics = _task("rope", 0, {"4": 0.5})
    store.put(KIND, config, seed, metrics, 1.0, code=CODE_VERSION)
    summary = summarize(tmp_path / "runs.sqlite")  # no sweep named: every finished run, so none can be missing
    assert summary["missing"] == 0
    assert summary["series"]["copy"]["rope"]["4"]["mean"] == 0.5


def test_an_unknown_metric_lists_the_shared_ones_and_suggests_the_closest():
    from posenc.lab.tables import check_metric
    from posenc.names import UnknownName

    with pytest.raises(UnknownName, match=r"unknown metric 'exact_mach' for the task\(s\) copy; valid metrics are: "
                                          r"exact_match, token_accuracy\. Did you mean 'exact_match'\?"):
        check_metric("exact_mach", ["copy"])
