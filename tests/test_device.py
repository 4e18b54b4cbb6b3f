"""posenc.device: the one place that turns --device and --dtype into torch's, with clear errors for what this machine
cannot do. GPUs and MPS are faked with monkeypatch, so these run (and mean the same) on any machine."""

from __future__ import annotations

import contextlib

import pytest
import torch

from posenc.device import (
    DTYPES,
    autocast,
    device_label,
    dtype_name,
    parse_device,
    resolve_device,
    resolve_dtype,
    setup,
)
from posenc.errors import PosencError


@pytest.fixture
def cpu_only(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)


@pytest.fixture
def two_gpus(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)


def test_auto_is_the_cpu_without_gpu_or_mps(cpu_only):
    assert resolve_device("auto") == torch.device("cpu")
    assert resolve_device() == torch.device("cpu")
    assert resolve_device(" CPU ") == torch.device("cpu")
    assert resolve_device(torch.device("cpu")) == torch.device("cpu")


def test_auto_is_cpu_on_this_machine_when_it_has_no_accelerator():
    if torch.cuda.is_available() or torch.backends.mps.is_available():
        pytest.skip("this machine has an accelerator")
    assert resolve_device("auto").type == "cpu"


def test_auto_prefers_cuda_then_mps(monkeypatch, two_gpus):
    assert resolve_device("auto") == torch.device("cuda")
    assert resolve_device("cuda:1") == torch.device("cuda", 1)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert resolve_device("auto") == torch.device("mps")
    assert resolve_device("mps") == torch.device("mps")
    assert resolve_device("auto", accept=("cpu", "cuda")) == torch.device("cpu")  # bench: no MPS timing


def test_cuda_without_cuda_says_why_and_what_to_use(cpu_only, monkeypatch):
    monkeypatch.setattr(torch.version, "cuda", None)
    with pytest.raises(PosencError, match=r"^device 'cuda': CUDA is not available here \(torch .*, built without "
                                          r"CUDA\); use --device cpu or auto$"):
        resolve_device("cuda")
    monkeypatch.setattr(torch.version, "cuda", "12.4")
    with pytest.raises(PosencError, match=r"^device 'cuda:0': CUDA is not available here \(torch .* built with CUDA "
                                          r"12.4, no GPU visible\); use --device cpu or auto$"):
        resolve_device("cuda:0")


def test_cuda_index_past_the_last_gpu(two_gpus):
    assert resolve_device("cuda:1") == torch.device("cuda:1")  # the last GPU of two
    with pytest.raises(PosencError, match=r"^device 'cuda:2': this machine has 2 CUDA device\(s\), cuda:0..cuda:1; "
                                          r"use one of them, cuda, cpu or auto$"):
        resolve_device("cuda:2")


def test_mps_where_there_is_none(cpu_only):
    with pytest.raises(PosencError, match=r"^device 'mps': MPS is not available here .*; use --device cpu or auto$"):
        resolve_device("mps")


@pytest.mark.parametrize("spec", ["gpu", "cuda:x", "cuda:", "mps:0", "cpu:0", "", "tpu", 3, None])
def test_unknown_devices_name_what_was_given_and_the_accepted_forms(cpu_only, spec):
    with pytest.raises(PosencError, match=r"use one of: auto, cpu, cuda, cuda:N \(N a GPU index\) or mps$") as info:
        resolve_device(spec)
    assert repr(spec) in str(info.value)


def test_parse_checks_the_form_only():
    assert parse_device("CUDA:01") == "cuda:1"  # no GPU needed: Ray workers resolve it themselves
    assert parse_device("auto") == "auto"
    with pytest.raises(PosencError, match=r"device 'mps' is not supported by this command; use one of: auto, cpu, "
                                          r"cuda or cuda:N \(N a GPU index\)$"):
        parse_device("mps", accept=("cpu", "cuda"))


def test_dtypes(cpu_only):
    cpu = torch.device("cpu")
    assert resolve_dtype("float32", cpu) is torch.float32
    assert resolve_dtype("bfloat16", cpu, training=True) is torch.bfloat16  # the CPU's low precision trains
    assert resolve_dtype("float16", cpu) is torch.float16  # float16 inference runs on the CPU
    assert resolve_dtype(torch.bfloat16) is torch.bfloat16 and resolve_dtype("bf16") is torch.bfloat16
    assert resolve_dtype("float16", "cuda", training=True) is torch.float16
    assert dtype_name(torch.float16) == "float16" and set(DTYPES) == {"float32", "bfloat16", "float16"}


def test_float16_training_on_the_cpu_is_refused_with_the_way_out():
    with pytest.raises(PosencError, match=r"^dtype 'float16' cannot train on the CPU: .*use --dtype bfloat16 .* or "
                                          r"float32, or train on a GPU \(--device cuda\)$"):
        resolve_dtype("float16", "cpu", training=True)


@pytest.mark.parametrize("spec", ["float64", "int8", "", None, torch.float64])
def test_unknown_dtypes_list_the_valid_ones(spec):
    with pytest.raises(PosencError, match=r"^unknown dtype .*; use one of: float32, bfloat16, float16$"):
        resolve_dtype(spec)


def test_setup_and_labels(two_gpus, monkeypatch):
    assert setup("cpu", "float32") == {"device": "cpu", "dtype": "float32"}
    assert setup(torch.device("cpu"), torch.bfloat16) == {"device": "cpu", "dtype": "bfloat16"}
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 1)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: "Fake GPU")
    assert device_label("cuda") == "cuda:1"
    assert setup("cuda", "float16") == {"device": "cuda:1", "dtype": "float16", "gpu": "Fake GPU"}


def test_autocast_changes_nothing_in_float32_and_casts_in_bfloat16():
    assert isinstance(autocast("cpu", "float32"), contextlib.nullcontext)
    layer = torch.nn.Linear(4, 4)
    with autocast("cpu", "bfloat16"):
        assert layer(torch.randn(2, 4)).dtype == torch.bfloat16
    assert layer.weight.dtype == torch.float32  # weights stay float32


def test_a_placement_resolves_once_and_runs_in_its_precision():
    from posenc.device import Placement

    placement = Placement.resolve("CPU", "bf16", training=True)
    assert placement == Placement(torch.device("cpu"), torch.bfloat16)
    assert placement.setup() == {"device": "cpu", "dtype": "bfloat16"}
    with placement.autocast():
        assert (torch.ones(2, 2) @ torch.ones(2, 2)).dtype == torch.bfloat16
    with Placement.resolve("cpu").autocast():
        assert (torch.ones(2, 2) @ torch.ones(2, 2)).dtype == torch.float32
    with pytest.raises(PosencError, match="'float16' cannot train on the CPU"):
        Placement.resolve("cpu", "float16", training=True)


@pytest.mark.parametrize("dtype, name", [
    (torch.float32, "float32"), (torch.bfloat16, "bfloat16"), (torch.float16, "float16"),  # posenc's own
    ("bf16", "bfloat16"), ("half", "float16"),  # aliases come back as the canonical name
    # another torch dtype (a model's float64 weights, integer ids) is named as torch names it, without "torch."
    (torch.float64, "float64"), (torch.int64, "int64"), (torch.complex64, "complex64"),
])
def test_dtype_name_names_the_given_dtype(dtype, name):
    assert dtype_name(dtype) == name
