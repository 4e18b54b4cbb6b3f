"""The dispatcher: provider choice, clear errors before any kernel runs, the RoPE encoding and Hugging Face."""

import os
import subprocess
import sys
import textwrap

import pytest
import torch

import posenc
from posenc.errors import PosencError
from posenc.kernels import apply_rope, available_providers, dispatch, rope_apply_reference, select_provider


def _tables(T, R2, batch=None):
    theta = torch.rand(*(() if batch is None else (batch,)), T, R2, dtype=torch.float64) * 100
    return theta.cos().float(), theta.sin().float()


def test_cpu_picks_the_cpp_kernel_and_float64_falls_back(cpp_kernel):
    assert available_providers()[0] == "cpp" and available_providers()[-1] == "reference"
    assert select_provider("cpu", torch.float32) == "cpp"
    assert select_provider("cpu", torch.bfloat16) == "cpp"
    assert select_provider("cpu", torch.float64) == "reference"
    q, k = torch.randn(1, 2, 5, 8, dtype=torch.float64), torch.randn(1, 1, 5, 8, dtype=torch.float64)
    c, s = _tables(5, 4)
    qo, _ = apply_rope(q, k, c, s, c, s)
    torch.testing.assert_close(qo, rope_apply_reference(q, c, s))


def test_explicit_provider_is_checked():
    with pytest.raises(PosencError, match="unknown RoPE provider"):
        select_provider("cpu", torch.float32, "cuda-magic")
    # the providers are a Registry: the valid names, then the closest
    with pytest.raises(PosencError, match=r"valid RoPE providers are: cpp, triton, reference \(or None: the fastest "
                                          r"that applies\)\. Did you mean 'triton'\?"):
        select_provider("cpu", torch.float32, "trition")
    if os.environ.get("TRITON_INTERPRET") != "1":
        with pytest.raises(PosencError, match="triton"):
            select_provider("cpu", torch.float32, "triton")
    with pytest.raises(PosencError, match="cpp"):
        select_provider("cpu", torch.float64, "cpp")


@pytest.fixture
def no_kernel_runs(monkeypatch):
    """Fail the test if any RoPE path starts computing."""
    calls = []

    def spy(*args, **kwargs):
        calls.append(args)
        raise AssertionError("a kernel ran before the input was rejected")

    monkeypatch.setattr(dispatch.cpu, "rope_cpu_pair", spy)
    monkeypatch.setattr(dispatch.triton_rope, "rope_triton", spy)
    monkeypatch.setattr(dispatch, "rope_apply_reference", spy)
    return calls


def _good():
    q, k = torch.randn(2, 4, 6, 8), torch.randn(2, 2, 6, 8)
    c, s = _tables(6, 4)
    return q, k, c, s


BAD = {
    "q rank": (lambda q, k, c, s: (q[0], k, c, s, c, s), "batch, heads, seq, head_dim"),
    "head_dim differs": (lambda q, k, c, s: (q, k[..., :6], c, s, c, s), "same head_dim"),
    "gqa groups": (lambda q, k, c, s: (q[:, :3], k, c, s, c, s), "multiple of k heads"),
    "positions length": (lambda q, k, c, s: (q, k, c[:5], s[:5], c, s), "6 positions but its angle table has 5"),
    "cos vs sin": (lambda q, k, c, s: (q, k, c, s[:, :3], c, s), "differ in shape"),
    "table batch": (lambda q, k, c, s: (q, k, c.expand(3, 6, 4), s.expand(3, 6, 4), c, s), "batch 3"),
    "table rank": (lambda q, k, c, s: (q, k, c[None, None], s[None, None], c, s), r"\[T, R/2\]"),
    "rotary too wide": (lambda q, k, c, s: (q, k, c.repeat(1, 2), s.repeat(1, 2), c, s), "rotary width 16"),
    "integer q": (lambda q, k, c, s: (q.long(), k, c, s, c, s), "floating-point"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input_is_rejected_before_any_kernel(name, no_kernel_runs):
    build, match = BAD[name]
    with pytest.raises(PosencError, match=match):
        apply_rope(*build(*_good()))
    assert no_kernel_runs == []


def test_bad_pairing_and_in_place_leaf(no_kernel_runs):
    q, k, c, s = _good()
    with pytest.raises(PosencError, match="pairing"):
        apply_rope(q, k, c, s, c, s, pairing="rotate_half")
    q.requires_grad_(True)
    before = q.detach().clone()
    with pytest.raises(PosencError, match="leaf tensor that requires grad"):
        apply_rope(q, k, c, s, c, s, inplace=True)
    assert torch.equal(q.detach(), before) and no_kernel_runs == []
    with pytest.raises(PosencError, match="broadcast"):
        apply_rope(q.detach()[:, :1].expand(2, 4, 6, 8), k, c, s, c, s, inplace=True)
    assert no_kernel_runs == []


@pytest.mark.parametrize("pairing", ["half", "interleaved"])
@pytest.mark.parametrize("rotary_dim", [16, 8])
def test_rope_encoding_rotates_through_the_fast_path(pairing, rotary_dim):
    rope = posenc.build("rope", head_dim=16, pairing=pairing, rotary_dim=rotary_dim)
    q, k = torch.randn(2, 4, 7, 16), torch.randn(2, 2, 7, 16)
    qp = torch.tensor([[3, 4, 5, 6, 7, 8, 9], [0, 1, 2, 3, 4, 5, 6]])  # per-row positions with an offset
    kp = torch.arange(7)
    qo, ko = rope.rotate(q, k, qp, kp)
    qc, qs = rope.tables(qp)
    kc, ks = rope.tables(kp)
    torch.testing.assert_close(qo, rope_apply_reference(q, qc, qs, pairing), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(ko, rope_apply_reference(k, kc, ks, pairing), rtol=1e-5, atol=1e-5)
    q2, k2 = q.clone(), k.clone()
    rope.rotate(q2, k2, qp, kp, inplace=True)
    torch.testing.assert_close(q2, qo, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_matches_hugging_face_llama(dtype):
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

    q, k = torch.randn(2, 8, 33, 64).to(dtype), torch.randn(2, 2, 33, 64).to(dtype)
    c, s = _tables(33, 32)
    hq, hk = apply_rotary_pos_emb(q.float(), k.float(), torch.cat([c, c], -1)[None], torch.cat([s, s], -1)[None])
    qo, ko = apply_rope(q, k, c, s, c, s)
    rtol = 1e-5 if dtype == torch.float32 else 1e-2
    torch.testing.assert_close(qo.float(), hq, rtol=rtol, atol=1e-5)
    torch.testing.assert_close(ko.float(), hk, rtol=rtol, atol=1e-5)


def test_no_compiler_falls_back_to_torch_and_warns_once(tmp_path):
    script = textwrap.dedent("""
        import warnings, torch
        from posenc.kernels import apply_rope, available_providers, rope_apply_reference
        q, k = torch.randn(1, 2, 5, 8), torch.randn(1, 1, 5, 8)
        c, s = torch.rand(5, 4), torch.rand(5, 4)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            first = apply_rope(q, k, c, s, c, s)[0]
            apply_rope(q, k, c, s, c, s)
            print(available_providers())
        torch.testing.assert_close(first, rope_apply_reference(q, c, s))
        messages = [str(w.message) for w in caught if "C++ RoPE kernel" in str(w.message)]
        print(len(messages), messages[0])
    """)
    env = {**os.environ, "CXX": str(tmp_path / "no-such-compiler"), "POSENC_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    providers, warning = done.stdout.strip().splitlines()
    assert "cpp" not in providers and "reference" in providers
    assert warning.startswith("1 ") and "no C++ compiler" in warning and "torch path" in warning
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*.so"))


@pytest.mark.slow  # builds the C++ kernel from nothing (about 25 s)
def test_a_fresh_cache_builds_once_despite_leftovers_of_a_killed_build(tmp_path):
    # a build killed part-way leaves a temporary file (and other tools leave lock files): neither may block or be loaded
    script = textwrap.dedent("""
        import torch
        from posenc.kernels import apply_rope, available_providers, rope_apply_reference
        from posenc.kernels.cpu import cache_dir, isa_flags
        q, c, s = torch.randn(1, 4, 9, 16), torch.rand(9, 8), torch.rand(9, 8)
        out = apply_rope(q, q[:, :2], c, s, c, s, provider="cpp")[0]
        torch.testing.assert_close(out, rope_apply_reference(q, c, s))
        print(available_providers())
    """)
    env = {**os.environ, "POSENC_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "cpp" in done.stdout
    built = list(tmp_path.rglob("*.so"))
    assert len(built) == 1
    # simulate leftovers next to a missing library: the next process rebuilds without waiting on them
    folder = built[0].parent
    built[0].unlink()
    (folder / "lock").write_text("")
    (folder / (built[0].stem + ".tmp999.so")).write_bytes(b"half-written")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "cpp" in done.stdout and built[0].exists()


def test_docstring_example_runs():
    import doctest

    result = doctest.testmod(dispatch, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


# -- q and k of different dtypes ----------------------------------------------------------------------------------
# The C++ kernel takes float32, bfloat16 and float16 (each of q and k its own); float64 only the reference path. A
# pair where one side needs the reference must go there whole, and every side keeps its own dtype.
MIXED = [(torch.float32, torch.float64), (torch.float64, torch.float32), (torch.bfloat16, torch.float64),
         (torch.float64, torch.float16), (torch.float32, torch.bfloat16), (torch.float16, torch.float32),
         (torch.bfloat16, torch.float16)]
TOL64 = {torch.float64: (1e-6, 1e-6), torch.float32: (1e-5, 1e-5), torch.bfloat16: (1e-5, 1e-2),
         torch.float16: (1e-5, 1e-2)}  # atol, rtol against the float64 rotation; float64 inputs are rotated in
# float32 arithmetic by the reference path (its math_dtype), so they get float32's tolerance


def _close64(got, x, c, s, pairing):
    expected = rope_apply_reference(x.detach().double(), c.double(), s.double(), pairing, math_dtype=torch.float64)
    atol, rtol = TOL64[x.dtype]
    assert got.dtype == x.dtype
    torch.testing.assert_close(got.detach().double(), expected, atol=atol, rtol=rtol)


def _path_spy(monkeypatch):
    """Which path ran: the C++ kernel is wrapped to record its calls (it still computes)."""
    ran = []
    real = dispatch.cpu.rope_cpu_pair

    def spy(*args, **kwargs):
        ran.append("cpp")
        return real(*args, **kwargs)

    monkeypatch.setattr(dispatch.cpu, "rope_cpu_pair", spy)
    return ran


@pytest.mark.parametrize(("q_dtype", "k_dtype"), MIXED, ids=lambda d: str(d).removeprefix("torch."))
@pytest.mark.parametrize("pairing", ["half", "interleaved"])
@pytest.mark.parametrize("mode", ["plain", "grad", "inplace"])
def test_q_and_k_of_different_dtypes_equal_the_reference(cpp_kernel, monkeypatch, q_dtype, k_dtype, pairing, mode):
    ran = _path_spy(monkeypatch)
    g = torch.Generator().manual_seed(3)
    q = torch.randn(2, 4, 7, 8, generator=g).to(q_dtype)
    k = torch.randn(2, 2, 7, 8, generator=g).to(k_dtype)
    c, s = _tables(7, 3)  # R = 6 of 8: two channels pass through
    q0, k0 = q.clone(), k.clone()
    if mode == "grad":
        q.requires_grad_(True), k.requires_grad_(True)
    qo, ko = apply_rope(q, k, c, s, c, s, pairing=pairing, inplace=mode == "inplace")
    _close64(qo, q0, c, s, pairing)
    _close64(ko, k0, c, s, pairing)
    if mode == "inplace":
        assert qo is q and ko is k
    if mode == "grad":  # the gradient is the rotation by -theta of the upstream gradient (ones here)
        (qo.float().sum() + ko.float().sum()).backward()
        _close64(q.grad, torch.ones_like(q0), c, -s, pairing)
        _close64(k.grad, torch.ones_like(k0), c, -s, pairing)
    fused = torch.float64 not in (q_dtype, k_dtype)
    # float64 on either side: the reference for both; else the kernel, forward (and backward: the inverse rotation)
    assert ran == (["cpp"] * (2 if mode == "grad" else 1) if fused else [])


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize(("q_dtype", "k_dtype"), [(torch.float32, torch.float64), (torch.float64, torch.bfloat16),
                                                  (torch.float16, torch.float32)])
def test_q_and_k_of_different_dtypes_on_cuda_equal_the_reference(q_dtype, k_dtype):
    q = torch.randn(1, 4, 9, 16, device="cuda").to(q_dtype)
    k = torch.randn(1, 2, 9, 16, device="cuda").to(k_dtype)
    c, s = (t.cuda() for t in _tables(9, 8))
    qo, ko = apply_rope(q, k, c, s, c, s)
    _close64(qo.cpu(), q.cpu(), c.cpu(), s.cpu(), "half")
    _close64(ko.cpu(), k.cpu(), c.cpu(), s.cpu(), "half")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_q_and_k_on_different_devices_are_refused_by_name(no_kernel_runs):
    c, s = _tables(5, 4)
    with pytest.raises(PosencError, match="k is on cpu but q is on cuda"):
        apply_rope(torch.randn(1, 2, 5, 8, device="cuda"), torch.randn(1, 1, 5, 8), c.cuda(), s.cuda(), c, s)
    # the other way round: q on the CPU (the C++ kernel's side), k on CUDA (Triton's)
    with pytest.raises(PosencError, match="k is on cuda:0 but q is on cpu"):
        apply_rope(torch.randn(1, 2, 5, 8), torch.randn(1, 1, 5, 8, device="cuda"), c, s, c.cuda(), s.cuda())
    # tables on another device than their tensor
    with pytest.raises(PosencError, match="is on cpu but q is on cuda"):
        apply_rope(torch.randn(1, 2, 5, 8, device="cuda"), torch.randn(1, 1, 5, 8, device="cuda"), c, s, c, s)
    assert no_kernel_runs == []


@pytest.mark.parametrize(("q_dtype", "k_dtype"), [(torch.float32, torch.float64), (torch.float64, torch.float32)])
def test_an_explicit_fast_provider_refuses_a_pair_it_can_rotate_only_half_of(cpp_kernel, no_kernel_runs, q_dtype,
                                                                             k_dtype):
    # provider="cpp" was asked for: a float64 side cannot take it, so it says so instead of falling back in silence
    q, k = torch.randn(1, 2, 5, 8).to(q_dtype), torch.randn(1, 1, 5, 8).to(k_dtype)
    c, s = _tables(5, 4)
    with pytest.raises(PosencError, match=r"provider 'cpp' cannot rotate torch.float64 tensors on cpu"):
        apply_rope(q, k, c, s, c, s, provider="cpp")
    assert no_kernel_runs == []


@pytest.mark.parametrize(("q_dtype", "k_dtype"), [(torch.float32, torch.float64), (torch.bfloat16, torch.float32)])
def test_the_reference_provider_takes_any_pair(q_dtype, k_dtype):
    g = torch.Generator().manual_seed(5)
    q, k = torch.randn(1, 2, 5, 8, generator=g).to(q_dtype), torch.randn(1, 1, 5, 8, generator=g).to(k_dtype)
    c, s = _tables(5, 3)
    qo, ko = apply_rope(q, k, c, s, c, s, provider="reference")
    _close64(qo, q, c, s, "half")
    _close64(ko, k, c, s, "half")
