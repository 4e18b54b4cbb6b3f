"""The cache of the training tutorial's lab runs (``tutorial_training.lab_runs``, kept per process): each argument
that changes the runs changes what it returns, so no call is served another call's runs, and the one that does not
(the worker count) gives the same runs."""

from posenc.lab.traced import train_traced
from posenc.report.experiments.tutorial_training import lab_runs

ONE = (("copy", "learned"),)


def test_each_field_that_changes_the_runs_is_in_the_key():
    lab_runs.cache_clear()
    short = lab_runs(1, 1, ONE, 2)
    assert set(short) == {("copy", "learned", 0)}
    assert short[("copy", "learned", 0)]["steps"] == 2
    longer = lab_runs(1, 1, ONE, 3)  # the cap
    assert longer[("copy", "learned", 0)]["steps"] == 3
    assert set(lab_runs(2, 1, ONE, 2)) == {("copy", "learned", 0), ("copy", "learned", 1)}  # the seeds
    other = lab_runs(1, 1, (("copy", "nope"),), 2)  # the runs
    assert set(other) == {("copy", "nope", 0)}
    assert lab_runs(1, 1, ONE, 2) is short  # the same arguments: the cached runs


def test_the_cached_runs_are_the_runs_trained_alone():
    lab_runs.cache_clear()
    cached = lab_runs(1, 1, ONE, 2)[("copy", "learned", 0)]
    alone = train_traced("copy", "learned", 0, 2)
    assert cached["curve"] == alone["curve"] and cached["steps"] == alone["steps"]
