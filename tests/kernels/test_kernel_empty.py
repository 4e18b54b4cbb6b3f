"""Empty inputs on every RoPE path: a zero batch or a sequence of no tokens gives empty outputs of the right shapes.

``T = 0`` used to reach the C++ kernel's work split (``begin % T``) and kill the process with SIGFPE; a zero head count
divided by zero one line earlier. Shapes are ``q [B, H, Tq, Dh]``, ``k [B, Hk, Tk, Dh]`` with ``Dh = 10`` and a
rotary width of 6 (4 pass-through channels), H = 4 query heads over Hk = 2 key heads.
"""

import subprocess
import sys
import textwrap

import pytest
import torch
from kernel_cases import reference64

from posenc.cli import main
from posenc.errors import PosencError
from posenc.kernels import apply_rope, apply_rope_packed, rope_apply_reference
from posenc.kernels.autograd import RopeFunction
from posenc.kernels.bench import BenchConfig
from posenc.kernels.cpu import rope_cpu, rope_cpu_pair
from posenc.kernels.triton_rope import rope_triton, triton_available

DH, R2 = 10, 3

#: (B, Tq, Tk): no tokens, an empty batch, both, and one side empty (a query with no new tokens, a key cache of none)
EMPTY = [(1, 0, 0), (3, 0, 0), (0, 5, 5), (0, 0, 0), (2, 0, 4), (2, 4, 0)]


def _problem(B: int, Tq: int, Tk: int, dtype=torch.float32, table_batch: bool = False):
    gen = torch.Generator().manual_seed(B * 100 + Tq * 10 + Tk)
    q = torch.randn(B, 4, Tq, DH, generator=gen).to(dtype)
    k = torch.randn(B, 2, Tk, DH, generator=gen).to(dtype)

    def tables(T):
        theta = torch.rand((B, T, R2) if table_batch else (T, R2), generator=gen, dtype=torch.float64) * 50
        return theta.cos().float(), theta.sin().float()

    return (q, k, *tables(Tq), *tables(Tk))


def _providers():
    out = ["reference"]
    from posenc.kernels.cpu import supports

    if supports(torch.float32):
        out.insert(0, "cpp")
    if triton_available():
        out.append("triton")
    return out


@pytest.fixture
def provider(request, monkeypatch):
    if request.param == "triton":  # Triton's interpreter on CPU tensors, as in test_kernel_triton.py
        monkeypatch.setenv("TRITON_INTERPRET", "1")
    return request.param


def test_cpp_kernel_on_empty_tensors_does_not_kill_the_process(cpp_kernel):
    # the C++ function itself, past every Python guard, in a child process: a SIGFPE there fails this test with its
    # signal instead of killing the test run
    code = textwrap.dedent("""
        import torch
        from posenc.kernels.cpu import CPU_DTYPES, load_library
        lib = load_library()
        for dtype, code in CPU_DTYPES.items():
            for B, H, T in ((1, 4, 0), (0, 4, 7), (0, 0, 0), (2, 0, 5), (3, 1, 0)):
                for R2, D in ((3, 10), (64, 128), (32, 64), (16, 32)):  # generic and the three unrolled widths
                    x = torch.randn(B, H, T, D).to(dtype)
                    out = torch.empty_like(x)
                    c = torch.ones(T, R2)
                    for interleaved in (0, 1):
                        rc = lib.posenc_rope_apply(code, x.data_ptr(), out.data_ptr(), c.data_ptr(), c.data_ptr(),
                                                   B, H, T, D, R2, *x.stride()[:3], *out.stride()[:3], 0, R2,
                                                   interleaved, 0, 1, 2)
                        assert rc == 0, rc
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"exit status {done.returncode} (negative: killed by that signal): {done.stderr}"
    assert done.stdout.strip() == "ok"


@pytest.mark.parametrize("B,H,T", [(1, 4, 0), (0, 4, 7), (2, 0, 5)])
def test_cpp_wrapper_on_empty_tensors(cpp_kernel, B, H, T):
    # an empty expanded tensor (stride 0, as autograd passes the gradient of a sum) and an empty output share the
    # null data pointer: the wrapper must not take them for one tensor rotated in place
    x = torch.zeros(()).expand(B, H, T, 10)
    out = torch.empty(B, H, T, 10)
    assert rope_cpu(x, torch.ones(T, 3), torch.zeros(T, 3), interleaved=False, inverse=True, out=out) is out
    assert out.shape == (B, H, T, 10)


@pytest.mark.parametrize("pairing", ["half", "interleaved"])
@pytest.mark.parametrize("B,Tq,Tk", EMPTY)
def test_cpp_kernel_rotates_the_non_empty_side_and_leaves_the_empty_one(cpp_kernel, B, Tq, Tk, pairing):
    q, k, qc, qs, kc, ks = _problem(B, Tq, Tk)
    q_out, k_out = torch.full_like(q, 7.0), torch.full_like(k, 7.0)
    rope_cpu_pair(q, k, qc, qs, kc, ks, interleaved=pairing == "interleaved", inverse=False, q_out=q_out,
                  k_out=k_out)
    assert q_out.shape == q.shape and k_out.shape == k.shape
    torch.testing.assert_close(q_out, reference64(q, qc, qs, pairing).float(), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(k_out, reference64(k, kc, ks, pairing).float(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("provider", _providers(), indirect=True)
@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("pairing", ["half", "interleaved"])
@pytest.mark.parametrize("B,Tq,Tk", EMPTY)
def test_apply_rope_forward_and_backward_on_empty_inputs(provider, B, Tq, Tk, pairing, inplace):
    q0, k0, qc, qs, kc, ks = _problem(B, Tq, Tk, table_batch=B > 0)
    # non-leaf inputs, so in-place rotation is allowed under autograd
    q_leaf, k_leaf = q0.clone().requires_grad_(True), k0.clone().requires_grad_(True)
    q, k = q_leaf * 1.0, k_leaf * 1.0
    qo, ko = apply_rope(q, k, qc, qs, kc, ks, pairing=pairing, inplace=inplace, provider=provider)
    assert qo.shape == (B, 4, Tq, DH) and ko.shape == (B, 2, Tk, DH)
    if inplace:
        assert qo is q and ko is k
    # the side that has tokens is rotated exactly as usual
    torch.testing.assert_close(qo.detach(), reference64(q0, qc, qs, pairing).float(), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(ko.detach(), reference64(k0, kc, ks, pairing).float(), rtol=1e-5, atol=1e-5)
    gq_out, gk_out = torch.randn_like(qo), torch.randn_like(ko)
    dq, dk = torch.autograd.grad((qo, ko), (q_leaf, k_leaf), (gq_out, gk_out), allow_unused=True)
    for grad, x, g, c, s in ((dq, q0, gq_out, qc, qs), (dk, k0, gk_out, kc, ks)):
        grad = torch.zeros_like(x) if grad is None else grad  # torch may skip an empty branch of the graph
        assert grad.shape == x.shape
        # the gradient is the incoming one rotated by -theta
        torch.testing.assert_close(grad, reference64(g, c, -s, pairing).float(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("provider", _providers(), indirect=True)
def test_apply_rope_on_empty_inputs_in_every_dtype(provider, dtype):
    for B, Tq, Tk in EMPTY:
        q, k, qc, qs, kc, ks = _problem(B, Tq, Tk, dtype=dtype)
        qo, ko = apply_rope(q, k, qc, qs, kc, ks, provider=provider)
        assert (qo.shape, ko.shape, qo.dtype, ko.dtype) == (q.shape, k.shape, dtype, dtype)


@pytest.mark.parametrize("provider", _providers(), indirect=True)
@pytest.mark.parametrize("B,Tq,Tk", EMPTY)
def test_backward_of_a_sum(provider, B, Tq, Tk):
    # loss.backward() hands the kernel expanded (stride-0) gradients; empty ones have no memory at all
    q0, k0, qc, qs, kc, ks = _problem(B, Tq, Tk)
    q, k = q0.clone().requires_grad_(True), k0.clone().requires_grad_(True)
    qo, ko = apply_rope(q, k, qc, qs, kc, ks, provider=provider)
    (qo.sum() + ko.sum()).backward()
    for x, c, s in ((q, qc, qs), (k, kc, ks)):
        assert x.grad.shape == x.shape
        torch.testing.assert_close(x.grad, reference64(torch.ones_like(x), c, -s, "half").float(), rtol=1e-5,
                                   atol=1e-5)


def _kernels():
    out = []
    from posenc.kernels.cpu import supports

    if supports(torch.float32):
        out.append(pytest.param(rope_cpu_pair, id="cpp"))
    if triton_available():
        out.append(pytest.param(rope_triton, id="triton"))
    return out


@pytest.mark.parametrize("kernel", _kernels())
@pytest.mark.parametrize("B,Tq,Tk", [(1, 0, 0), (0, 3, 3), (0, 0, 0)])
def test_autograd_function_on_fully_empty_inputs(kernel, B, Tq, Tk, monkeypatch):
    # the dispatcher sends a fully empty problem to torch; the autograd operation must still take one directly
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    q, k, qc, qs, kc, ks = _problem(B, Tq, Tk)
    for inplace in (False, True):
        q_leaf, k_leaf = q.clone().requires_grad_(True), k.clone().requires_grad_(True)
        qi, ki = q_leaf * 1.0, k_leaf * 1.0
        qo, ko = RopeFunction.apply(qi, ki, qc, qs, kc, ks, True, inplace, kernel)
        assert qo.shape == q.shape and ko.shape == k.shape
        dq, dk = torch.autograd.grad((qo, ko), (q_leaf, k_leaf), (torch.ones_like(qo), torch.ones_like(ko)))
        assert dq.shape == q.shape and dk.shape == k.shape


@pytest.mark.parametrize("provider", _providers(), indirect=True)
@pytest.mark.parametrize("cu_seqlens", [[0, 0], [0, 0, 0], [0, 3, 3, 5], [0, 0, 4]])
def test_packed_with_empty_sequences(provider, cu_seqlens):
    N = cu_seqlens[-1]
    gen = torch.Generator().manual_seed(N)
    q = torch.randn(1, 4, N, DH, generator=gen, requires_grad=True)
    k = torch.randn(1, 2, N, DH, generator=gen, requires_grad=True)
    theta = torch.arange(8, dtype=torch.float64)[:, None] * torch.tensor([1.0, 0.1, 0.01], dtype=torch.float64)
    cos, sin = theta.cos().float(), theta.sin().float()  # [L = 8, R/2]
    qo, ko = apply_rope_packed(q, k, cos, sin, cu_seqlens, provider=provider)
    assert qo.shape == q.shape and ko.shape == k.shape
    # each sequence restarts at position 0: an empty one takes no token, so the others see the same positions
    positions = torch.cat([torch.arange(b - a) for a, b in zip(cu_seqlens[:-1], cu_seqlens[1:], strict=True)])
    torch.testing.assert_close(qo.detach(), rope_apply_reference(q.detach(), cos[positions], sin[positions]))
    dq, dk = torch.autograd.grad((qo, ko), (q, k), (torch.ones_like(qo), torch.ones_like(ko)))
    assert dq.shape == q.shape and dk.shape == k.shape


@pytest.mark.parametrize("field", ["seq_len", "batch", "q_heads", "kv_heads", "head_dim"])
def test_bench_refuses_an_empty_problem(field):
    # rotating an empty tensor is fine (above), but there is nothing to time: a clear error, not a crash
    with pytest.raises(PosencError, match=rf"{field} must be a positive integer, got 0: .*nothing to time"):
        BenchConfig(**{field: 0})
    with pytest.raises(PosencError, match=f"{field} must be a positive integer, got -3"):
        BenchConfig(**{field: -3})


def test_bench_cli_with_seq_len_0_is_a_clear_error(capsys):
    assert main(["bench", "--seq-len", "0"]) == 2
    assert "seq_len must be a positive integer, got 0" in capsys.readouterr().err
