"""The contract every positional encoding follows: one module, six hooks, each with a default that changes nothing.

Shape vocabulary used throughout posenc:

    B  batch            T  sequence length (Tq for queries, Tk for keys)
    H  query heads      Hk key/value heads (GQA: H is a multiple of Hk)
    D  model width      Dh head width (head_dim)

An encoding acts at one or more of these places in a Transformer; each hook exists because a family of encodings
acts there and nowhere else:

``embed(x, positions)``
    On the token embeddings ``x [B, T, D]``; returns ``[B, T, D]`` (add) or ``[B, T, D + Dp]`` (concat). Absolute
    encodings: a vector per position, once, before the first layer.
``rotate(q, k, q_positions, k_positions, inplace=False)``
    On queries ``q [B, H, Tq, Dh]`` and keys ``k [B, Hk, Tk, Dh]`` before the logits; returns ``(q, k)``. Rotary
    encodings: the logit of a pair then depends on the offset of its positions.
``bias(q_positions, k_positions)``
    Added to the attention logits; returns ``[H, Tq, Tk]`` or ``[B, H, Tq, Tk]``, or ``None``. Bias encodings: a
    function of positions alone, so a model builds it once per forward and every layer shares it.
``score_mod(q_positions, k_positions)``
    The same bias as ``bias``, as a function of one (query, key) pair instead of a tensor: FlexAttention's
    ``score_mod(score, b, h, q_idx, kv_idx) -> score + bias``, so attention never holds ``[H, Tq, Tk]``; ``None``
    (the default) where the encoding has no such form (see :mod:`posenc.model.flex`).
``contextual_bias(q, k, q_positions, k_positions, x=None)``
    Added to the attention logits of each layer, from what that layer computes: its queries and keys (after
    ``rotate``; CoPE, DAPE) and its input ``x [B, Tk, D]`` (one row per key, the queries being the last ``Tq``;
    FoX's forget gate), which a caller passes when it has it. Returns ``[B, H, Tq, Tk]`` or ``None`` (the default).
    It exists beside ``bias`` because it cannot be built once per forward: it changes with every layer's content.
``query_scale(q_positions)``
    A factor on each query's logits: one number for every query, or a tensor ``[Tq]`` or ``[B, Tq]``, one per query.
    The default is the number :attr:`PositionalEncoding.logit_factor` (1; RoPE built with ``scale_logits=True`` sets
    DeepSeek-V2/V3's YaRN ``mscale^2``, a factor on the softmax scale ``1/sqrt(Dh)``); an encoding that overrides it
    gives a factor that depends on the query's position (Llama 4's attention temperature on its NoPE layers).

``positions`` are integer tensors of shape ``[T]`` (shared by the batch) or ``[B, T]`` (one row per sequence: KV-cache
offsets, left padding, packed sequences, randomized positions all go through this one path).

Every hook defaults to identity / ``None`` / 1, so attention code calls all of them and never branches on the encoding.
``rotate`` may change the width of queries and keys (PoPE doubles it); :meth:`PositionalEncoding.rotated_dim` says to
what, as :meth:`PositionalEncoding.output_dim` does for ``embed``.

Guards at the edges: a hook called directly checks its arguments (a clear :class:`~posenc.errors.PosencError` for
bad positions, a refusal of a bias that would not fit in memory). Called by a model inside :func:`checked_entry`, it
trusts the model's forward, which checked the positions and the memory once: nothing is read back from the device
per layer (tests/model/test_host_reads.py).

Capabilities: each encoding declares what it does in its ``info`` (:class:`EncodingInfo`), and code that depends on
it asks there, never compares names. The hooks it overrides give ``rotates_qk``, ``acts_on_input``,
``biases_logits``, ``biases_from_content`` and ``scales_queries``; four flags say the rest:
``length_limited`` (positions at or past its ``max_len`` are refused), ``randomized`` (positions drawn at random per
sequence), ``constant_across_channels`` (``embed`` adds one value to every channel of a token) and ``per_layer`` (a
model gives every layer a module of its own, as its parameters belong to that layer). A wrapper (``family="wrapper"``) names the encoding it wraps
through :meth:`PositionalEncoding.wrapped`, read from its options before anything is built.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from posenc.checks import whole_number
from posenc.errors import PosencError
from posenc.resources import check_memory, format_bytes

__all__ = ["PositionalEncoding", "AbsoluteEncoding", "EncodingInfo", "check_positions", "check_head_layout",
           "math_dtype", "default_positions", "future_mask", "bias_positions", "pair_positions", "check_allocation",
           "BIAS_BYTES_PER_PAIR", "BIAS_BYTES_PER_ENTRY", "TABLE_BYTES_PER_CELL", "ScoreMod", "checked_entry",
           "inside_checked_entry", "position_bounds", "entry_memo"]

#: FlexAttention's ``score_mod``: ``(score, b, h, q_idx, kv_idx) -> score``, every argument a tensor
ScoreMod = Callable[[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]

#: bytes a bias hook holds per (query, key) pair (int64 offsets and their copies) and per (head, query, key) entry
#: (the float32 bias and one temporary of it): what :func:`bias_positions` checks against the memory available
BIAS_BYTES_PER_PAIR = 32
BIAS_BYTES_PER_ENTRY = 8
#: bytes per (position, channel) of a formula table: float64 angles, sin and cos, their stack, and the output
TABLE_BYTES_PER_CELL = 40


#: allocations below this many bytes are not checked: the hooks run every forward pass, and reading the memory
#: available costs a system call
SMALL_ALLOCATION = 1 << 28


#: inside :func:`checked_entry`: what the hooks of this call have read back from the device, by key
_ENTRY: ContextVar[dict[Any, Any] | None] = ContextVar("posenc_checked_entry", default=None)


@contextmanager
def checked_entry() -> Iterator[None]:
    """Run hooks as the callees of an entry point that has checked their arguments once (the model's forward).

    The entry point has checked the positions (:func:`check_positions`, their values read once) and the memory of
    the whole call; inside, the hooks trust it: :func:`check_positions` checks types and shapes only (nothing read
    from the device), :func:`check_allocation` nothing, and what a hook must read back from the positions (their
    range: :func:`position_bounds`) or derive from them alone (:func:`entry_memo`) is read once per tensor for the
    whole call, not once per layer. A hook called directly, outside any entry, checks everything itself."""
    token = _ENTRY.set({})
    try:
        yield
    finally:
        _ENTRY.reset(token)


def inside_checked_entry() -> bool:
    """Whether hooks run inside :func:`checked_entry` (their caller has checked their arguments)."""
    return _ENTRY.get() is not None


def entry_memo(key: tuple[Any, ...], keep: tuple[Any, ...], compute: Callable[[], Any]) -> Any:
    """``compute()`` once per :func:`checked_entry` for ``key`` (ids of the objects it depends on, which ``keep``
    holds alive meanwhile so that their ids stay theirs); outside an entry, ``compute()`` every call."""
    memo = _ENTRY.get()
    if memo is None:
        return compute()
    hit = memo.get(key)
    if hit is None or any(a is not b for a, b in zip(hit[0], keep, strict=True)):
        hit = memo[key] = (keep, compute())
    return hit[1]


def position_bounds(positions: torch.Tensor) -> tuple[int, int]:
    """``(smallest, largest)`` of an integer positions tensor, ``(0, -1)`` when it is empty: one read from the
    device, and inside :func:`checked_entry` one per tensor for the whole call."""
    if not positions.numel():
        return 0, -1
    low, high = entry_memo(("bounds", id(positions)), (positions,),
                           lambda: torch.stack([positions.min(), positions.max()]).tolist())
    return int(low), int(high)


def check_allocation(nbytes: int, what: str, fix: str, detail: str = "") -> None:
    """Refuse, before anything is allocated, ``nbytes`` that do not fit in the memory available now
    (:func:`posenc.resources.check_memory`): the message names ``what``, the estimate and ``fix``. Below
    :data:`SMALL_ALLOCATION` nothing is checked, nor inside :func:`checked_entry` (the entry point has estimated the
    whole call's memory once)."""
    if nbytes >= SMALL_ALLOCATION and not inside_checked_entry():
        check_memory(int(nbytes), what, fix, detail=detail)


def _overrides(hook: str, doc: str) -> property:
    """A flag of :class:`EncodingInfo` read from its hooks: whether the encoding overrides ``hook``."""
    return property(lambda info: hook in info.hooks, doc=doc)


@dataclass(frozen=True)
class EncodingInfo:
    """What an encoding is and what it does: what ``posenc list`` shows, and the capabilities code asks instead of
    comparing names.

    ``hooks`` lists the hooks the encoding overrides; the properties read from it say where it acts. The flags say
    what the hooks cannot: each defaults to ``False`` and an encoding sets the ones that hold for it.

    Attributes:
        family: ``"absolute"``, ``"rotary"``, ``"bias"``, ``"contextual"``, ``"none"`` or ``"wrapper"``.
        paper: short citation.
        hooks: the hooks this encoding overrides (``"embed"``, ``"rotate"``, ``"bias"``, ``"contextual_bias"``,
            ``"query_scale"``).
        length_limited: positions at or past the encoding's ``max_len`` are refused with a
            :class:`~posenc.errors.PosencError` (a learned table has no row for them); ``False``: any position runs.
        randomized: positions are drawn at random per sequence (a new draw per call), not used as given.
        constant_across_channels: ``embed`` adds the same value to every channel of a token (with ``combine="add"``).
        per_layer: a model builds one module per layer (FoX's forget gate belongs to its layer); ``False``: layers
            with the same encoding and options share one module.
    """

    family: str
    paper: str
    hooks: tuple[str, ...]
    length_limited: bool = False
    randomized: bool = False
    constant_across_channels: bool = False
    per_layer: bool = False

    rotates_qk = _overrides("rotate", "``rotate`` turns queries and keys; the input and the logits' bias are left alone.")
    acts_on_input = _overrides("embed", "``embed`` adds (or concatenates) a position vector to the token embeddings.")
    biases_logits = _overrides("bias", "``bias`` returns a bias ``[H, Tq, Tk]`` (or ``[B, H, Tq, Tk]``) from positions "
                               "alone.")
    biases_from_content = _overrides("contextual_bias", "``contextual_bias`` returns a bias ``[B, H, Tq, Tk]`` from "
                                     "each layer's queries and keys or its input.")
    scales_queries = _overrides("query_scale", "``query_scale`` returns a factor per query on its logits that depends "
                                "on its position (a temperature).")


def default_positions(length: int, device: torch.device | None = None, offset: int = 0) -> torch.Tensor:
    """Positions ``offset, ..., offset + length - 1`` as an int64 tensor ``[T]``."""
    return torch.arange(offset, offset + length, device=device, dtype=torch.long)


def future_mask(t_q: int, t_k: int, device: torch.device | None = None) -> torch.Tensor:
    """bool ``[Tq, Tk]``: True where key ``j`` comes after query ``i``, the queries being the last ``Tq`` of the ``Tk``
    tokens (what a causal mask hides)."""
    return torch.ones(t_q, t_k, dtype=torch.bool, device=device).triu(t_k - t_q + 1)


def check_positions(positions: torch.Tensor, length: int | None = None, name: str = "positions",
                    batch: int | None = None) -> torch.Tensor:
    """Validate an integer positions tensor ``[T]`` or ``[B, T]`` and return it as int64.

    Raises ``PosencError`` (a ``ValueError``) for float or negative positions, wrong rank, a length that does not
    match the sequence, or a batch that does not match. Inside :func:`checked_entry` the values are not read (the
    entry point has checked them): types and shapes only, no wait for the device.
    """
    if not isinstance(positions, torch.Tensor):
        raise PosencError(f"{name} must be an integer torch.Tensor of shape [T] or [B, T], got "
                          f"{type(positions).__name__}; build one with torch.arange(T)")
    if positions.is_meta:
        raise PosencError(f"{name} is on the meta device, which holds shapes but no values; posenc reads the "
                          f"positions (their range, their sign), so pass a tensor on the CPU or a GPU")
    if positions.is_floating_point() or positions.is_complex() or positions.dtype == torch.bool:
        raise PosencError(f"{name} must hold integers, got dtype {positions.dtype}; positions index tokens, "
                          f"so pass e.g. torch.arange(T) or round and cast with .long()")
    if positions.dim() not in (1, 2):
        raise PosencError(f"{name} must have shape [T] or [B, T], got shape {list(positions.shape)}")
    if length is not None and positions.shape[-1] != length:
        raise PosencError(f"{name} has {positions.shape[-1]} entries but the sequence has {length} tokens; "
                          f"pass one position per token")
    if batch is not None and positions.dim() == 2 and positions.shape[0] not in (1, batch):
        raise PosencError(f"{name} has batch {positions.shape[0]} but the input has batch {batch}; "
                          f"pass [T] positions shared by the batch or one row per sequence")
    if not inside_checked_entry() and position_bounds(positions)[0] < 0:
        raise PosencError(f"{name} must be >= 0, got minimum {position_bounds(positions)[0]}; "
                          f"shift them so the first token is at position 0 or later")
    return positions.long()


def math_dtype(*tensors: torch.Tensor) -> torch.dtype:
    """The dtype a hook computes in for these inputs and parameters: float64 when any of them is float64, else
    float32 (half-precision inputs are computed in float32 and returned in their own dtype). A hook follows the
    precision it is given: float64 in, float64 math."""
    return torch.float64 if any(t.dtype == torch.float64 for t in tensors) else torch.float32


def check_head_layout(x: torch.Tensor, positions: torch.Tensor, name: str = "q",
                      positions_name: str = "q_positions") -> None:
    """Refuse queries or keys laid out ``[B, T, H, Dh]`` where hooks take ``[B, H, T, Dh]``.

    The sign: ``x``'s dim 1 has as many entries as the positions and its dim 2 does not. Then the positions are
    right and the tensor is transposed; saying so beats blaming the positions' length or the head count. (With as
    many heads as tokens, or a single position, the two layouts cannot be told apart, and nothing is said.)
    """
    if not isinstance(x, torch.Tensor) or not isinstance(positions, torch.Tensor) or x.dim() != 4:
        return
    if positions.dim() not in (1, 2, 3):  # [T], [B, T], or M-RoPE's [A, B, T]
        return
    tokens = positions.shape[-1]
    if tokens > 1 and x.shape[1] == tokens and x.shape[2] != tokens:
        raise PosencError(f"{name} has shape {list(x.shape)}, which reads as [B, T, H, Dh]: its dim 1 holds the "
                          f"{tokens} tokens of {positions_name}; {name} must be [B, H, T, Dh] (batch, heads, tokens, "
                          f"head_dim): pass {name}.transpose(1, 2)")


def pair_positions(q_positions: torch.Tensor, k_positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Check the positions of queries and keys (:func:`check_positions`; per-row positions ``[B, T]`` of both must
    share their batch, or one of them be 1) and return them int64; nothing is allocated per pair (a ``score_mod``)."""
    q_positions = check_positions(q_positions, name="q_positions")
    k_positions = check_positions(k_positions, name="k_positions")
    rows_q = q_positions.shape[0] if q_positions.dim() == 2 else 1
    rows_k = k_positions.shape[0] if k_positions.dim() == 2 else 1
    if rows_q != rows_k and 1 not in (rows_q, rows_k):
        raise PosencError(f"q_positions has batch {rows_q} but k_positions has batch {rows_k}; pass [T] positions "
                          f"shared by the batch, or one row per sequence in both")
    return q_positions, k_positions


def bias_positions(q_positions: torch.Tensor, k_positions: torch.Tensor, heads: int, name: str = "bias",
                   per_pair: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Check the positions of a ``bias`` hook and the memory of its ``[(B,) H, Tq, Tk]`` result; return them int64.

    Both are checked by :func:`pair_positions`; the bias's estimated memory (:data:`BIAS_BYTES_PER_PAIR` per
    query-key pair and :data:`BIAS_BYTES_PER_ENTRY` per head and pair, plus ``per_pair`` bytes of the encoding's own)
    must fit in what is available, else the error names the sizes, the estimate and the fix, before anything is
    allocated.
    """
    q_positions, k_positions = pair_positions(q_positions, k_positions)
    rows = max(q_positions.shape[0] if q_positions.dim() == 2 else 1, k_positions.shape[0] if k_positions.dim() == 2
               else 1)
    pairs = rows * q_positions.shape[-1] * k_positions.shape[-1]
    check_allocation(pairs * (BIAS_BYTES_PER_PAIR + BIAS_BYTES_PER_ENTRY * heads + per_pair),
                     f"{name} bias of {heads} head(s) over {q_positions.shape[-1]} query x {k_positions.shape[-1]} key "
                     f"positions" + (f" in {rows} rows" if rows > 1 else ""),
                     "use fewer positions (the bias grows with their square) or fewer heads",
                     detail=f"{format_bytes(BIAS_BYTES_PER_ENTRY * heads * pairs)} of float32 bias and a "
                            f"temporary, {format_bytes((BIAS_BYTES_PER_PAIR + per_pair) * pairs)} of offsets and "
                            f"what the encoding computes per pair")
    return q_positions, k_positions


class PositionalEncoding(nn.Module):
    """Base class: every hook is the identity (or ``None``) until a subclass overrides it.

    Subclasses set ``info`` (family, paper, the hooks they override and their capabilities, see
    :class:`EncodingInfo`) and override the hooks they use. The model sizes a builder may pass (``d_model``,
    ``n_heads``, ``head_dim``, ``max_len``) are those ``__init__`` names; :func:`posenc.build_for_model` passes only
    those.
    """

    info: EncodingInfo = EncodingInfo(family="none", paper="", hooks=())
    name: str = "base"
    #: bumped when what the encoding computes changes, so that stored runs of it (the lab's) are recomputed
    revision: int = 1

    @classmethod
    def wrapped(cls, options: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
        """The encoding this one wraps, as ``(name, options)`` read from this encoding's ``options``; ``None`` for an
        encoding that wraps none (the default). Lets code ask what a wrapper will build without building it."""
        return None

    def embed(self, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        """Token embeddings ``x [B, T, D]`` -> ``[B, T, D']``. Identity by default."""
        return x

    def rotate(self, q: torch.Tensor, k: torch.Tensor, q_positions: torch.Tensor, k_positions: torch.Tensor,
               inplace: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        """Queries ``[B, H, Tq, Dh]`` and keys ``[B, Hk, Tk, Dh]`` -> rotated ``(q, k)``. Identity by default."""
        return q, k

    def bias(self, q_positions: torch.Tensor, k_positions: torch.Tensor) -> torch.Tensor | None:
        """Additive logit bias ``[H, Tq, Tk]`` or ``[B, H, Tq, Tk]``; ``None`` when the encoding adds none."""
        return None

    def score_mod(self, q_positions: torch.Tensor, k_positions: torch.Tensor) -> ScoreMod | None:
        """``bias`` as a function of one pair: ``f(score, b, h, q_idx, kv_idx) = score + bias[(b,) h, q_idx, kv_idx]``
        at these positions (FlexAttention's ``score_mod``: the indices are tensors, the learned parameters flow into
        it), built without the ``[H, Tq, Tk]`` tensor; ``None`` (the default) where there is none, and attention then
        adds the materialised ``bias``. An encoding that overrides it also declares ``"bias"`` and returns the same
        values (tests/encodings/test_score_mod.py)."""
        return None

    def contextual_bias(self, q: torch.Tensor | None, k: torch.Tensor | None, q_positions: torch.Tensor,
                        k_positions: torch.Tensor, x: torch.Tensor | None = None) -> torch.Tensor | None:
        """Per-layer logit bias from that layer's queries ``[B, H, Tq, Dh]`` and keys ``[B, Hk, Tk, Dh]`` (after
        ``rotate``) and, where the caller has it, its input ``x [B, Tk, D]`` (one row per key; the queries are the
        last ``Tq``): ``[B, H, Tq, Tk]``, or ``None`` when the encoding adds none (the default). Attention adds it to
        the logits, with the causal and padding masks, in every layer. An encoding reads what it needs (FoX only
        ``x``, CoPE and DAPE only ``q`` and ``k``) and names what is missing."""
        return None

    #: the factor on the softmax scale ``1/sqrt(Dh)`` that :meth:`query_scale` gives every query by default
    logit_factor: float = 1.0

    def query_scale(self, q_positions: torch.Tensor) -> float | torch.Tensor:
        """A factor on each query's logits: the number :attr:`logit_factor` for every query (the default; 1 unless
        the encoding was built to scale the softmax), or, where an encoding overrides it, a float tensor ``[Tq]`` or
        ``[B, Tq]`` like the positions (a temperature by position). Attention multiplies each query's logits by it."""
        return self.logit_factor

    def rotated_dim(self, head_dim: int) -> int:
        """Width of queries and keys after ``rotate`` for heads of ``head_dim`` channels (the same by default)."""
        return head_dim

    def output_dim(self, d_model: int) -> int:
        """Width of ``embed``'s output for an input of width ``d_model``."""
        return d_model

    def forward(self, x: torch.Tensor, positions: torch.Tensor | None = None) -> torch.Tensor:
        """``embed`` with positions ``0..T-1`` when none are given (so an encoding can sit in an ``nn.Sequential``)."""
        if positions is None:
            positions = default_positions(x.shape[-2], x.device)
        return self.embed(x, positions)

    def extra_repr(self) -> str:
        return f"name={self.name!r}"


class AbsoluteEncoding(PositionalEncoding):
    """An encoding given by a table ``PE[p]`` of vectors, combined with the token embedding.

    Subclasses implement :meth:`encode` (positions ``[..., T]`` -> vectors ``[..., T, dim]``). ``combine="add"``
    gives ``x + PE[p]`` (the vectors must have x's width); ``combine="concat"`` gives ``[x ; PE[p]]``
    (tutorial 003 §14.3). ``dim=None`` means "the width of x" and is only valid for fixed (formula) encodings.
    """

    def __init__(self, dim: int | None = None, combine: str = "add"):
        super().__init__()
        if combine not in ("add", "concat"):
            raise PosencError(f"combine must be 'add' or 'concat', got {combine!r}")
        if dim is not None and not whole_number(dim):
            raise PosencError(f"dim must be a positive integer or None, got {dim!r}")
        if combine == "concat" and dim is None:
            raise PosencError("combine='concat' needs an explicit dim (the width of the position part); "
                              "pass dim=..., e.g. dim=64")
        self.dim = dim
        self.combine = combine

    def encode(self, positions: torch.Tensor, dim: int | None = None,
               dtype: torch.dtype = torch.float32) -> torch.Tensor:
        """Position vectors ``[..., T] -> [..., T, dim]`` in ``dtype`` (formulas are evaluated in float64)."""
        raise NotImplementedError

    def table(self, length: int, dim: int | None = None, dtype: torch.dtype = torch.float32) -> torch.Tensor:
        """The matrix ``PE[0..length-1]`` as ``[length, dim]`` (what the tutorials draw as a heatmap).

        ``length`` is a whole number >= 0; a table that would not fit in memory is refused before anything is
        allocated (:data:`TABLE_BYTES_PER_CELL` per cell)."""
        if not whole_number(length, 0):
            raise PosencError(f"{self.name}: table length must be an integer >= 0 (the number of positions), got "
                              f"{length!r}; e.g. .table(128)")
        width = dim if dim is not None else self.dim
        if width is None:
            raise PosencError(f"{self.name}: the encoding width is unknown; pass dim=... (e.g. .table({length}, "
                              f"dim=64)) or build the encoding with dim=...")
        if not whole_number(width):
            raise PosencError(f"{self.name}: table width must be a positive integer, got {width!r}")
        check_allocation(8 * length + TABLE_BYTES_PER_CELL * length * int(width),
                         f"{self.name} table of {length} positions x {width} channels", "ask for fewer positions "
                         "or channels", detail=f"{TABLE_BYTES_PER_CELL} bytes per cell while it is computed")
        return self.encode(default_positions(length), dim, dtype)

    def output_dim(self, d_model: int) -> int:
        if self.combine == "concat":
            return d_model + self.dim
        return d_model

    def embed(self, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        if not isinstance(x, torch.Tensor) or not x.is_floating_point() or x.dim() not in (2, 3):
            got = f"dtype {x.dtype}, shape {list(x.shape)}" if isinstance(x, torch.Tensor) else type(x).__name__
            raise PosencError(f"{self.name}.embed takes floating-point token embeddings [B, T, D] or [T, D], got "
                              f"{got}; the table is real-valued and would be truncated in an integer tensor, so "
                              f"embed token ids first (nn.Embedding) or cast with x.float()")
        positions = check_positions(positions, length=x.shape[-2], batch=x.shape[0] if x.dim() == 3 else None)
        width = x.shape[-1] if self.combine == "add" else self.dim
        if self.combine == "add" and self.dim is not None and self.dim != x.shape[-1]:
            raise PosencError(f"{self.name}: combine='add' needs the input width to equal the encoding's dim, "
                              f"but x has width {x.shape[-1]} and dim={self.dim}; build it with dim={x.shape[-1]} "
                              f"or use combine='concat'")
        pe = self.encode(positions.to(x.device), width).to(x.dtype)  # [T, dim] or [B, T, dim]
        if self.combine == "add":
            return x + pe
        pe = pe.expand(*x.shape[:-1], pe.shape[-1]) if pe.dim() < x.dim() else pe
        return torch.cat([x, pe], dim=-1)  # [B, T, D + dim]

    def extra_repr(self) -> str:
        return f"name={self.name!r}, dim={self.dim}, combine={self.combine!r}"
