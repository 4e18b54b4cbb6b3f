"""``posenc report --executor ray`` on a real Ray cluster: a head and a worker node started on this machine
(tests/ray_cluster.py). Its verdicts and numbers equal a local run's (tests/report/agreement.py), every result lands
in the driver's one store as it arrives, and a broken experiment fails only its claim."""

from __future__ import annotations

import dataclasses
import json

import pytest
from agreement import assert_reports_agree

from posenc.errors import PosencError
from posenc.lab.train import KIND as LAB_KIND
from posenc.report.ledger import get_claim
from posenc.report.run import run_report, store_config
from posenc.stats import MIN_UNITS
from posenc.store import ResultStore
from ray_cluster import free_port, ray_cluster

pytest.importorskip("ray")

#: one Ray cluster at a time on this machine: two starting at once share /tmp/ray and find each other's nodes
pytestmark = [pytest.mark.xdist_group("ray"), pytest.mark.ray]
#: the tests on the cluster: two Ray nodes and two reports, about 80 s
ON_CLUSTER = pytest.mark.slow

#: two experiments that run as Ray tasks, and one whose lab sweep (3 encodings x 3 seeds) sends each run to the cluster
CLAIMS = ["sin-bounded", "word-order", "alibi-table"]


@pytest.fixture(scope="session")
def cluster():
    with ray_cluster(workers=1) as address:  # two nodes, one CPU each
        yield address


@pytest.fixture(scope="session")  # once per test process, whatever order the tests run in
def runs(cluster, tmp_path_factory):
    base = tmp_path_factory.mktemp("ray-report")
    local = run_report(base / "local", quick=True, progress=False, claims=CLAIMS)
    on_ray = run_report(base / "ray", quick=True, progress=False, claims=CLAIMS, executor="ray", address=cluster)
    return local, on_ray


def _claims(result) -> list[dict]:
    return json.loads(result.report_json.read_text())["claims"]


@ON_CLUSTER
def test_ray_gives_the_local_verdicts_and_numbers(runs):
    local, on_ray = runs
    assert on_ray.computed == CLAIMS
    assert_reports_agree(_claims(local), _claims(on_ray))


@ON_CLUSTER
def test_every_result_is_stored_by_the_driver(runs, cluster):
    _, on_ray = runs
    store = ResultStore(on_ray.store_path)
    for claim_id in CLAIMS:
        record = store.get(f"report:{claim_id}", store_config(get_claim(claim_id), quick=True))
        assert record is not None and record.status == "done", claim_id
    # an experiment that ran as a task records where the worker computed; the lab claim says its runs went to Ray
    assert store.get("report:sin-bounded", store_config(get_claim("sin-bounded"), quick=True)).setup == {
        "device": "cpu", "dtype": "float32"}
    alibi = store.get("report:alibi-table", store_config(get_claim("alibi-table"), quick=True))
    assert alibi.setup["executor"] == "ray"
    lab_rows = list(store.runs(LAB_KIND))
    # the sweep's 3 encodings x the seeds an interval rests on (quick mode's default), as in the local run
    assert len(lab_rows) == 3 * MIN_UNITS == len(list(ResultStore(runs[0].store_path).runs(LAB_KIND)))
    assert all(r.status == "done" and r.setup["device"] == "cpu" for r in lab_rows)
    page = on_ray.index_html.read_text(encoding="utf-8")
    assert f"Ray cluster at {cluster}" in page
    data = json.loads(on_ray.report_json.read_text())
    assert data["setup"]["executor"] == "ray" and data["setup"]["address"] == cluster
    again = run_report(on_ray.out_dir, quick=True, progress=False, claims=CLAIMS, executor="ray", address=cluster)
    assert again.computed == []  # everything from the store


@ON_CLUSTER
def test_a_broken_experiment_fails_only_its_claim(cluster, tmp_path):
    ghost = dataclasses.replace(get_claim("sin-bounded"), id="ghost", experiment="no_such_experiment")
    result = run_report(tmp_path, quick=True, progress=False, claims=[ghost, "sin-bounded"], executor="ray",
                        address=cluster)
    statuses = {r.claim.id: r.verdict.status for r in result.results}
    assert statuses == {"ghost": "failed", "sin-bounded": "supported"}
    assert "unknown experiment 'no_such_experiment'" in result.results[0].error
    assert result.index_html.exists()


def test_bad_executor_or_address_fails_before_any_work(tmp_path):
    with pytest.raises(PosencError, match="unknown executor 'slurm'; valid executors are: local, ray"):
        run_report(tmp_path / "a", claims=["sin-bounded"], executor="slurm")
    with pytest.raises(PosencError, match="not HOST:PORT"):
        run_report(tmp_path / "b", claims=["sin-bounded"], executor="ray", address="nowhere")
    port = free_port()  # nothing listens here
    with pytest.raises(PosencError, match=f"cannot reach a Ray head at 127.0.0.1:{port}"):
        run_report(tmp_path / "c", claims=["sin-bounded"], executor="ray", address=f"127.0.0.1:{port}")
    for name in "abc":
        assert not (tmp_path / name / "results.sqlite").exists()
