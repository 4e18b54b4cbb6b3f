"""The fused C++ kernel against the float64 reference on random problems (hypothesis)."""

import pytest
import torch
from hypothesis import given, settings
from kernel_cases import assert_matches, cases, make_problem, reference64

from posenc.kernels import apply_rope, rope_apply_reference
from posenc.kernels import cpu as cpu_kernel
from tolerance import bound

pytestmark = pytest.mark.usefixtures("cpp_kernel")


@settings(max_examples=120, deadline=None)
@given(case=cases())
def test_out_of_place_matches_float64_reference(case):
    q, k, qc, qs, kc, ks = make_problem(case)
    q0, k0 = q.clone(), k.clone()
    qo, ko = apply_rope(q, k, qc, qs, kc, ks, pairing=case.pairing, provider="cpp")
    assert_matches(qo, reference64(q0, qc, qs, case.pairing), case.dtype)
    assert_matches(ko, reference64(k0, kc, ks, case.pairing), case.dtype)
    assert qo.dtype == q.dtype and ko.dtype == k.dtype
    assert torch.equal(q, q0) and torch.equal(k, k0)  # inputs untouched


@settings(max_examples=120, deadline=None)
@given(case=cases())
def test_in_place_matches_float64_reference(case):
    q, k, qc, qs, kc, ks = make_problem(case)
    q0, k0 = q.clone(), k.clone()
    qo, ko = apply_rope(q, k, qc, qs, kc, ks, pairing=case.pairing, inplace=True, provider="cpp")
    assert qo is q and ko is k
    assert_matches(q, reference64(q0, qc, qs, case.pairing), case.dtype)
    assert_matches(k, reference64(k0, kc, ks, case.pairing), case.dtype)


@settings(max_examples=40, deadline=None)
@given(case=cases(dtypes=(torch.float32,)))
def test_gradients_match_reference_autograd(case):
    q, k, qc, qs, kc, ks = make_problem(case)
    gq, gk = torch.randn(q.shape), torch.randn(k.shape)
    grads = []
    for provider in ("cpp", "reference"):
        for inplace in (False, True):
            ql, kl = q.detach().double().requires_grad_(True), k.detach().double().requires_grad_(True)
            # float32 copies that are not leaves, so the in-place variant is allowed too
            qf, kf = ql.float() * 1.0, kl.float() * 1.0
            qo, ko = apply_rope(qf, kf, qc, qs, kc, ks, pairing=case.pairing, inplace=inplace, provider=provider)
            grads.append(torch.autograd.grad((qo * gq).sum() + (ko * gk).sum(), (ql, kl)))
    for got in grads:  # cpp out-of-place, cpp in place, reference in place vs reference out-of-place
        for g, ref in zip(got, grads[2], strict=True):
            torch.testing.assert_close(g, ref, rtol=1e-5, atol=1e-5)


def test_backward_is_rotation_by_minus_theta():
    q = torch.randn(2, 4, 9, 16, requires_grad=True)
    k = torch.randn(2, 2, 9, 16, requires_grad=True)
    theta = torch.rand(9, 8, dtype=torch.float64) * 50
    c, s = theta.cos().float(), theta.sin().float()
    qo, ko = apply_rope(q, k, c, s, c, s, provider="cpp")
    gq, gk = torch.randn_like(qo), torch.randn_like(ko)
    dq, dk = torch.autograd.grad((qo, ko), (q, k), (gq, gk))
    # two float32 rotations, each 3 steps (two products, a sum) on terms adding up to at most 2 max |g|
    for got, g in ((dq, gq), (dk, gk)):
        atol = bound(torch.float32, 2 * 3, scale=2 * float(g.abs().max()))
        torch.testing.assert_close(got, rope_apply_reference(g, c, -s), rtol=0, atol=atol)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_thread_count_does_not_change_the_result(dtype):
    q = torch.randn(1, 8, 257, 64).to(dtype)
    theta = torch.rand(257, 32, dtype=torch.float64) * 300
    c, s = theta.cos().float(), theta.sin().float()
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = apply_rope(q, q[:, :2], c, s, c, s, provider="cpp")[0]
        torch.set_num_threads(2)
        two = apply_rope(q, q[:, :2], c, s, c, s, provider="cpp")[0]
    finally:
        torch.set_num_threads(threads)
    assert torch.equal(one, two)


def test_bfloat16_nan_stays_nan_and_rounding_is_to_nearest_even():
    # theta = 0 scaled by c = 1 + 2^-8 (cos c, sin 0) multiplies each value by c in float32, then rounds to bfloat16
    # (8 significant bits: spacing 2^-7 in [1, 2), 2^-6 in [2, 4)):
    #   1 * c = 1 + 2^-8, halfway between 1 and 1 + 2^-7 -> the even neighbour, 1
    #   2 * c = 2 + 2^-7, halfway between 2 and 2 + 2^-6 -> the even neighbour, 2
    #   3 * c = 3 + 3 * 2^-8, above the midpoint 3 + 2^-7 -> 3 + 2^-6
    # and the pair (NaN, 0) stays NaN (NaN * 0 is NaN).
    x = torch.tensor([1.0, 2.0, 3.0, 0.0, float("nan"), 0.0], dtype=torch.bfloat16).view(1, 1, 1, 6)
    out = torch.empty_like(x)
    cpu_kernel.rope_cpu(x, torch.full((1, 3), 1 + 2**-8), torch.zeros(1, 3), interleaved=True, inverse=False,
                        out=out)
    values = out.float().flatten().tolist()
    assert values[:4] == [1.0, 2.0, 3.0 + 2**-6, 0.0]
    assert values[4] != values[4] and values[5] != values[5]


@pytest.mark.parametrize("hugepages", ["1", "0"])
def test_large_outputs_are_plain_contiguous_tensors(hugepages, monkeypatch):
    monkeypatch.setenv("POSENC_HUGEPAGES", hugepages)
    out = cpu_kernel.empty_output((2, 3, 1024, 512), torch.bfloat16)  # 6 MiB: above the 4 MiB threshold
    assert out.shape == (2, 3, 1024, 512) and out.dtype == torch.bfloat16 and out.is_contiguous()
    q = torch.randn(1, 16, 1024, 128)  # 8 MiB output through the autograd path
    theta = torch.rand(1024, 64, dtype=torch.float64) * 100
    c, s = theta.cos().float(), theta.sin().float()
    qo = apply_rope(q, q[:, :4], c, s, c, s, provider="cpp")[0]
    torch.testing.assert_close(qo, rope_apply_reference(q, c, s), rtol=1e-5, atol=1e-5)


def _scale_by(values: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """Kernel output for pairs (v, 0) with cos = scale, sin = 0: slot 2i holds fl16(v * scale) (v * scale - 0 * 0)."""
    x = torch.stack([values, torch.zeros_like(values)], dim=-1).reshape(1, 1, 1, -1)  # interleaved pairs
    out = torch.empty_like(x)
    cpu_kernel.rope_cpu(x, scale.reshape(1, -1), torch.zeros(1, values.numel()), interleaved=True, inverse=False,
                        out=out)
    return out.flatten()[0::2]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_every_16_bit_pattern_survives_load_and_store(dtype):
    # scale 1 leaves each value unchanged in float32, so load then store must return the same bits (NaN stays NaN)
    values = torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16).view(dtype)
    got = _scale_by(values, torch.ones(values.numel()))
    nan = torch.isnan(values)
    assert torch.equal(got[~nan].view(torch.int16), values[~nan].view(torch.int16))
    assert bool(torch.isnan(got[nan]).all())


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_rounding_matches_torch_including_subnormals_and_overflow(dtype):
    # the product v * scale is one float32 rounding (no other term), then stored with round-to-nearest-even:
    # torch's own float32 -> 16-bit conversion of the same product must give the same bits; scales 2^-30..2^20
    # push float16 results into its subnormals and past 65504 (overflow to Inf)
    gen = torch.Generator().manual_seed(1)
    values = torch.randn(100_000, generator=gen).to(dtype)
    scale = (torch.rand(100_000, generator=gen) + 0.5) * 2.0 ** torch.randint(-30, 20, (100_000,), generator=gen)
    expected = (values.float() * scale).to(dtype)
    got = _scale_by(values, scale)
    assert torch.equal(got.view(torch.int16), expected.view(torch.int16))


@pytest.mark.parametrize("heads", range(1, 10))
@pytest.mark.parametrize("pairing", ["half", "interleaved"])
def test_every_head_group_remainder(heads, pairing):
    # heads are rotated four at a time, then a pair, then a single one: every count 1..9 hits each remainder
    q = torch.randn(2, 7, heads, 20).transpose(1, 2)  # [2, heads, 7, 20], R = 16 of 20: a pass-through tail
    theta = torch.rand(2, 7, 8, dtype=torch.float64) * 60
    c, s = theta.cos().float(), theta.sin().float()
    expected = reference64(q, c, s, pairing)
    out = apply_rope(q, q[:, :1], c, s, c, s, pairing=pairing, provider="cpp")[0]
    assert_matches(out, expected, torch.float32)
    q_in = q.clone()
    apply_rope(q_in, q[:, :1].clone(), c, s, c, s, pairing=pairing, inplace=True, provider="cpp")
    assert_matches(q_in, expected, torch.float32)


def test_a_library_loaded_afresh_rotates_like_the_reference(monkeypatch):
    # a new process loads the built library from the cache and declares its C signature: sizes, strides and data
    # pointers are 64-bit, which ctypes would otherwise pass (or refuse) as 32-bit ints
    monkeypatch.setattr(cpu_kernel, "_state", {})
    assert cpu_kernel.load_library() is not None, cpu_kernel.build_error()
    x = torch.randn(2, 3, 7, 8)
    theta = torch.rand(7, 4, dtype=torch.float64) * 50
    c, s = theta.cos().float(), theta.sin().float()
    out = cpu_kernel.rope_cpu(x, c, s, interleaved=False, inverse=False, out=torch.empty_like(x))
    assert_matches(out, reference64(x, c, s, "half"), torch.float32)


def test_cache_dir_is_the_variable_or_in_posencs_cache_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("POSENC_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("POSENC_CACHE_DIR", str(tmp_path / "mine"))
    assert cpu_kernel.cache_dir() == tmp_path / "mine"  # the kernels' own folder wins
    monkeypatch.delenv("POSENC_CACHE_DIR")
    assert cpu_kernel.cache_dir() == tmp_path / "cache" / "extensions"  # else beside the rest of posenc's cache
    monkeypatch.delenv("POSENC_CACHE")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cpu_kernel.cache_dir() == tmp_path / ".cache" / "posenc" / "extensions"


FAILING_COMPILER = """#!/bin/sh
for arg in "$@"; do case "$arg" in *.cpp) cp "$arg" "$(dirname "$0")/seen.cpp";; esac; done
echo "fake-c++: error: no such luck" >&2
exit 1
"""


def test_a_failed_build_reports_the_compiler_error_and_leaves_nothing(tmp_path, monkeypatch):
    # a compiler that keeps the file it was given and fails: the build hands it the very source text, raises with
    # the compiler's message, and removes its copy of the source and the temporary output
    compiler = tmp_path / "fake-c++"
    compiler.write_text(FAILING_COMPILER)
    compiler.chmod(0o755)
    monkeypatch.delenv("POSENC_DISABLE_CPP", raising=False)
    monkeypatch.setenv("CXX", str(compiler))
    monkeypatch.setenv("POSENC_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(RuntimeError, match=r"fake-c\+\+ failed: fake-c\+\+: error: no such luck$"):
        cpu_kernel._build()
    assert (tmp_path / "seen.cpp").read_text(encoding="utf-8") == cpu_kernel.source()
    assert [p.suffix for p in (tmp_path / "cache").rglob("*") if p.is_file()] == []


COPYING_COMPILER = """#!/bin/sh
echo "$@" >> "$(dirname "$0")/calls.txt"
while [ $# -gt 0 ]; do
  if [ "$1" = "-o" ]; then cp "{prebuilt}" "$2"; exit 0; fi
  shift
done
echo "fake-c++: no output named" >&2
exit 1
"""


def test_a_successful_build_names_the_output_and_installs_it_under_the_hashed_name(tmp_path, monkeypatch, cpp_kernel):
    # a compiler that writes the already built library to the path after -o: the build passes that temporary
    # path, renames it to <cache>/<name>/<name>.so (the name hashing the flags and the source), loads it, keeps
    # nothing else, and a second build finds the library and calls no compiler
    compiler = tmp_path / "fake-c++"
    compiler.write_text(COPYING_COMPILER.format(prebuilt=cpp_kernel._name))
    compiler.chmod(0o755)
    monkeypatch.delenv("POSENC_DISABLE_CPP", raising=False)
    monkeypatch.setenv("CXX", str(compiler))
    monkeypatch.setenv("POSENC_CACHE_DIR", str(tmp_path / "cache"))
    isa, flags = cpu_kernel.isa_flags()
    name = cpu_kernel.library_name(isa, ["-O3", "-fopenmp", "-fno-math-errno", *flags], cpu_kernel.source())
    library = tmp_path / "cache" / name / f"{name}.so"
    lib = cpu_kernel._build()
    assert lib._name == str(library)
    assert lib.posenc_rope_has_f16() in (0, 1)
    assert [p for p in (tmp_path / "cache").rglob("*") if p.is_file()] == [library]
    calls = (tmp_path / "calls.txt").read_text().splitlines()
    assert len(calls) == 1 and " -shared -fPIC " in calls[0] and " -o " in calls[0]
    cpu_kernel._build()
    assert len((tmp_path / "calls.txt").read_text().splitlines()) == 1
