"""What a report asks of Ray for each experiment, on a stand-in for Ray that records the task options: one CPU, and
one GPU exactly when the experiment computes on the report's device and that device is CUDA."""

from __future__ import annotations

from types import SimpleNamespace

from posenc.report.executors import RayExperiments, experiment_task
from posenc.report.experiments.base import Context


class _RecordingRay:
    """Ray's ``remote(**options)(fn).remote(*args)``, keeping what each task was asked with."""

    def __init__(self):
        self.tasks: list[tuple[dict, object, tuple]] = []

    def remote(self, **options):
        def wrap(fn):
            def start(*args):
                self.tasks.append((options, fn, args))
                return len(self.tasks)  # the task's reference

            return SimpleNamespace(remote=start)

        return wrap


def test_one_gpu_per_task_only_for_a_device_experiment_on_cuda(tmp_path):
    ray = _RecordingRay()
    cluster = object.__new__(RayExperiments)  # no connection: the stand-in takes the tasks
    cluster.ray, cluster.started, cluster.refs = ray, False, {}
    store = tmp_path / "s.sqlite"
    cases = [("lab_alibi_shape", "cuda", 1), ("lab_alibi_shape", "cuda:1", 1), ("lab_alibi_shape", "cpu", 0),
             ("word_order", "cuda", 0)]  # word_order always computes on the CPU
    for name, device, _ in cases:
        cluster.submit(name, Context(quick=True, store_path=store, device=device))
    assert [options for options, _, _ in ray.tasks] == [{"num_cpus": 1, "num_gpus": g} for _, _, g in cases]
    assert all(fn is experiment_task for _, fn, _ in ray.tasks)
    # each task gets its experiment's name and a context that keeps no files and shows no progress bar
    for (name, device, _), (_, _, (task_name, ctx)) in zip(cases, ray.tasks, strict=True):
        assert task_name == name and ctx.device == device
        assert ctx.store_path is None and ctx.work_dir is None and ctx.progress is False
    assert list(cluster.refs.values()) == [name for name, _, _ in cases]
