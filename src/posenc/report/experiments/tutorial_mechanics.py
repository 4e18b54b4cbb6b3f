"""The documents' remaining claims about mechanisms, checked exactly or on small real models (no pretrained model,
no training; every number is computed, so every estimate is exact unless it is a timing):

- tutorial 000 intro: a recurrent network carries word order by construction (random-weight RNN, GRU and LSTM against a
  position-free self-attention);
- tutorial 000 §2.3: a binary code of d_model = 512 bits can mark every position;
- tutorial 001 §3.2: the binary code's bits alternate every 1, 2, 4 numbers, and the sinusoid lowers its frequency
  along the encoding dimension the same way;
- tutorial 002: the sinusoid's compute and memory grow with the dimension and affect the model's efficiency (timed);
- tutorial 003 §14.4: the worked update 0.9 - 0.1 x (-0.4) = 0.94 as one real SGD step, the fixed encoding taking no
  gradient; §14.6.3: RoPE makes relative position explicit (the score depends on the offset only); §14.7.2: the
  input layer's shapes;
- claims that cannot be tested as written (tutorial 001 §5.1, §5.2; tutorial 002), registered with the reason.

Their pages: :mod:`posenc.report.present.tutorial_mechanics`.

Shapes: ids ``[B, T]``, hidden states ``[B, T, D]``, a table ``[T, d]``.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

import posenc
from posenc.report.experiments.base import Context, Measured, Mode, exacts, experiment, one_thread
from posenc.stats import bootstrap

# ---------------------------------------------------------------------------------------------------------------
# tutorial 000 intro: recurrent networks and word order
# ---------------------------------------------------------------------------------------------------------------
#: tutorial 000's sentences: the "not" pair (same words, "not" moved) and "I love you" / "you love I"
NOT_SENTENCES = ("I do not like the story of the movie , but I do like the cast .",
                 "I do like the story of the movie , but I do not like the cast .")
RNN_KINDS = {"Elman RNN (tanh)": nn.RNN, "GRU": nn.GRU, "LSTM": nn.LSTM}
RNN_WIDTH, RNN_SEEDS, RANDOM_PERMUTATIONS, RUN_LENGTH = 32, 5, 3, 16


def _order_inputs() -> tuple[dict[str, int], list[tuple[str, torch.Tensor, torch.Tensor]]]:
    """The vocabulary of the sentences and ``(name, ids [T], perm [T])`` with ``ids[perm]`` the reordered input."""
    vocab: dict[str, int] = {}

    def ids(sentence: str) -> torch.Tensor:
        return torch.tensor([vocab.setdefault(w, len(vocab)) for w in sentence.split()])

    love = ids("I love you")
    first, second = ids(NOT_SENTENCES[0]), ids(NOT_SENTENCES[1])
    # the permutation that turns the first 'not' sentence into the second: each position takes the first unused
    # position of the first sentence holding the same word
    used: set[int] = set()
    not_perm = []
    for word in second.tolist():
        j = next(i for i, w in enumerate(first.tolist()) if w == word and i not in used)
        used.add(j)
        not_perm.append(j)
    inputs = [("'I love you' -> 'you love I'", love, torch.tensor([2, 1, 0])),
              ("the 'not' sentences", first, torch.tensor(not_perm))]
    gen = torch.Generator().manual_seed(0)
    for i in range(RANDOM_PERMUTATIONS):
        inputs.append((f"random permutation {i + 1} of the first 'not' sentence", first,
                       torch.randperm(len(first), generator=gen)))
    return vocab, inputs


@experiment("rnn_order")
@one_thread
def rnn_order(ctx: Context) -> Measured:
    """Tutorial 000 intro: a recurrent network is a sequential structure and carries word order by construction.

    Random-weight Elman RNN, GRU and LSTM (``torch.nn``, width 32, an N(0, 1) embedding), 5 seeds each: their
    outputs for a sentence and for a reordering (:func:`~posenc.probe.order.order_effect`), and along a run of one
    repeated token (:func:`~posenc.probe.order.position_gap`: the state tells positions apart with nothing else
    differing). The same for posenc's
    Transformer without positions (bidirectional), which must show no effect: the measure can fail.
    """
    from posenc.model import Transformer, TransformerConfig
    from posenc.probe.order import order_effect, position_gap

    vocab, inputs = _order_inputs()
    results: dict[str, dict[str, float]] = {}
    with torch.no_grad():
        for kind, cls in RNN_KINDS.items():
            effects, gaps = [], []
            for seed in range(RNN_SEEDS):
                torch.manual_seed(seed)
                embed, rnn = nn.Embedding(len(vocab), RNN_WIDTH), cls(RNN_WIDTH, RNN_WIDTH, batch_first=True)

                def run(ids: torch.Tensor, embed=embed, rnn=rnn) -> torch.Tensor:
                    return rnn(embed(ids)[None])[0][0]  # [T, D]

                effects += [order_effect(run(ids), run(ids[perm]), perm) for _, ids, perm in inputs]
                gaps.append(position_gap(run(torch.zeros(RUN_LENGTH, dtype=torch.long))))
            results[kind] = {"min_order_effect": min(effects), "min_position_gap": min(gaps)}
        attention_effects, attention_gaps = [], []
        for seed in range(RNN_SEEDS):
            torch.manual_seed(seed)
            model = Transformer(TransformerConfig(vocab_size=len(vocab), d_model=RNN_WIDTH, n_layers=2, n_heads=4,
                                                  encoding="nope", causal=False, max_len=64)).eval()

            def attend(ids: torch.Tensor, model=model) -> torch.Tensor:
                return model(ids[None], return_hidden=True)[0]  # [T, D]

            attention_effects += [order_effect(attend(ids), attend(ids[perm]), perm) for _, ids, perm in inputs]
            attention_gaps.append(position_gap(attend(torch.zeros(RUN_LENGTH, dtype=torch.long))))
    numbers = {"by_kind": results, "rnn_min_order_effect": min(r["min_order_effect"] for r in results.values()),
               "rnn_min_position_gap": min(r["min_position_gap"] for r in results.values()),
               "attention_max_order_effect": max(attention_effects),
               "attention_max_position_gap": max(attention_gaps), "inputs": [name for name, _, _ in inputs]}
    return Measured(numbers, exacts(numbers, "rnn_min_order_effect", "rnn_min_position_gap",
                                    "attention_max_order_effect"))


# ---------------------------------------------------------------------------------------------------------------
# tutorial 000 §2.3: a 512-bit binary code
# ---------------------------------------------------------------------------------------------------------------
BINARY_WIDTH = 512  #: tutorial 000 §2.3: "d_model一般比较大(512, 1024…)"
CONSECUTIVE = 8192  #: positions 0..8191 checked one by one (longer than any context the documents mention)


def _binary_positions() -> torch.Tensor:
    """0..8191, and every 2^k - 1, 2^k, 2^k + 1 up to the largest int64 position 2^63 - 1 (where carries and new
    bits start)."""
    edges = {2 ** k + o for k in range(63) for o in (-1, 0, 1)} | {2 ** 63 - 1}
    return torch.tensor(sorted(set(range(CONSECUTIVE)) | {e for e in edges if 0 <= e < 2 ** 63}), dtype=torch.long)


@experiment("binary_capacity")
@one_thread
def binary_capacity(ctx: Context) -> Measured:
    """Tutorial 000 §2.3: with d_model = 512 bits the binary code "can basically encode every token's position".

    Exact: 512 bits give 2^512 codes. posenc's binary table at d = 512 for positions 0..8191 and around every
    power of two up to 2^63 - 1 (the largest int64 position): every code read back as an integer
    (:func:`~posenc.properties.distinctness.decode_binary`) must give its position, so no two positions share a
    code. Baseline that can fail: the
    document's own d_model = 3, whose 8 codes repeat from position 8 on.
    """
    from posenc.properties.distinctness import decode_binary

    positions = _binary_positions()
    codes = posenc.build("binary", dim=BINARY_WIDTH).encode(positions, BINARY_WIDTH, dtype=torch.float64)  # [N, d]
    decoded = decode_binary(codes)
    block = codes[:CONSECUTIVE]
    small = posenc.build("binary", dim=3).table(16, 3, dtype=torch.float64)  # positions 0..15 at d_model = 3
    numbers = {"positions_checked": len(positions), "largest_position": int(positions.max()),
               "decode_errors": int((decoded != positions).sum()) + CONSECUTIVE - len(torch.unique(block, dim=0)),
               "values_outside_0_1": int(((codes != 0) & (codes != 1)).sum()),
               "code_bits": BINARY_WIDTH, "codes_available_log2": float(BINARY_WIDTH),
               "channels_in_use": int((codes != 0).any(dim=0).sum()),
               "small_code_duplicates": 16 - len(torch.unique(small, dim=0))}
    return Measured(numbers, exacts(numbers, "decode_errors", "small_code_duplicates"))


# ---------------------------------------------------------------------------------------------------------------
# tutorial 001 §3.2: bits alternate every 1, 2, 4 numbers; the sinusoid lowers its frequency the same way
# ---------------------------------------------------------------------------------------------------------------
@experiment("frequency_order")
@one_thread
def frequency_order(ctx: Context) -> Measured:
    """Tutorial 001 §3.2: in binary, bit 0 alternates with every number, bit 1 every two, bit 2 every four (higher bits
    alternate less often); the sinusoid lowers its frequency along the encoding dimension in the same way.

    posenc's binary table (positions 0..255, 8 bits): every flip where it must be
    (:func:`~posenc.properties.wavelength.bit_flip_violations`). posenc's sinusoid (d = 512, positions 0..64): each
    pair's frequency read off the table (:func:`~posenc.properties.wavelength.pair_frequencies`), which must fall
    strictly along the dimension (:func:`~posenc.properties.wavelength.order_violations`). Baseline that can fail: the
    same table with its pairs in a random order.
    """
    from posenc.properties.wavelength import bit_flip_violations, order_violations, pair_frequencies

    binary = posenc.build("binary", dim=8).table(256, 8, dtype=torch.float64)  # [256, 8]
    sin = posenc.build("sinusoidal", dim=512).table(65, 512)  # float32 [65, 512]
    w = pair_frequencies(sin)  # [256]
    gen = torch.Generator().manual_seed(0)
    shuffled = sin.reshape(65, -1, 2)[:, torch.randperm(256, generator=gen)].reshape(65, 512)
    formula = 10000.0 ** (-torch.arange(0, 512, 2, dtype=torch.float64) / 512)
    flips = (binary[1:] != binary[:-1]).sum(dim=0)  # [8]
    numbers = {"binary_violations": bit_flip_violations(binary), "binary_flips_per_bit": flips.tolist(),
               "sinusoid_order_violations": order_violations(w),
               "shuffled_order_violations": order_violations(pair_frequencies(shuffled)),
               "frequency_vs_formula": float(((w - formula).abs() / formula).max()),
               "first_frequencies": w[:3].tolist(), "last_frequency": float(w[-1])}
    return Measured(numbers, exacts(numbers, "binary_violations", "sinusoid_order_violations",
                                    "shuffled_order_violations"),
                    shown={"binary": binary.numpy(), "frequencies": w.numpy()})


# ---------------------------------------------------------------------------------------------------------------
# tutorial 002: the sinusoid's cost against the dimension and against a model step
# ---------------------------------------------------------------------------------------------------------------
COST_WIDTHS = (64, 128, 256, 512, 1024, 2048)
COST_LENGTH = 512  #: tutorial 002 names max_len = 512; the original Transformer's d_model is 512 too
COST_LAYERS, COST_HEADS = 6, 8  #: the original Transformer's base model (Vaswani et al. 2017, Table 3)
#: the low quantile of repeated timings that the cost statistics read: the timings are this thread's CPU time (a busy
#: machine's other processes are not counted), and what load still adds (caches evicted, memory contended) it adds
#: to some repeats and takes from none, so the fastest tenth of the repeats measures the work and not the load (the
#: median of wall times moved with it: two quick runs of 2026-11-28 gave step shares 0.00384 [0.00302, 0.00509] and
#: 0.00344 [0.00299, 0.0254])
COST_QUANTILE = 0.1
#: sinusoid_cost's interleaved repeats in each mode
COST_REPEATS = Mode(quick=21, full=61)


def _nothing() -> None:
    """The empty call the timing null times in the table's place: what the timer itself reads."""


def low_quantile(times: np.ndarray) -> float:
    """The :data:`COST_QUANTILE` quantile of repeated timings (the 'lower' order statistic, a time actually
    measured): the statistic that load cannot raise much, since at least a tenth of the repeats ran undisturbed."""
    return float(np.quantile(np.asarray(times, dtype=np.float64), COST_QUANTILE, method="lower"))


def cost_ratio(rounds: np.ndarray) -> float:
    """``rounds [repeats, 2]`` of two timings taken side by side (column 0, column 1): the ratio of their low
    quantiles, column 1 over column 0."""
    return low_quantile(rounds[:, 1]) / low_quantile(rounds[:, 0])


def step_share(rounds: np.ndarray) -> float:
    """``rounds [repeats, 2]``: (table, one block) timed side by side: the table's share of the table plus
    :data:`COST_LAYERS` blocks, from the low quantiles."""
    table, block = low_quantile(rounds[:, 0]), low_quantile(rounds[:, 1])
    return table / (table + COST_LAYERS * block)


@experiment("sinusoid_cost")
@one_thread
def sinusoid_cost(ctx: Context) -> Measured:
    """Tutorial 002: the sinusoid's compute and memory grow with the dimension and affect the model's running efficiency.

    Memory: the table of ``T = 512`` positions holds ``T x d`` float32 numbers (exact). Time: posenc builds the
    table for ``d = 64 .. 2048``, timed in the same process, interleaved, repeated (21 quick, 61 full); each
    statistic is a ratio of the low quantiles (:data:`COST_QUANTILE`) of two timings taken side by side in every
    repeat, which load does not move, with a bootstrap over the repeats. "Affects efficiency": at d_model = 512 the
    table against one forward pass of the original's six blocks (posenc blocks, 8 heads, d_ff 2048, batch 1, 512
    tokens; one block timed, times six: the blocks are identical), and its bytes against the six blocks' weights.

    The nulls, timed in the same repeats and read by the same functions: the d = 64 table timed a second time in
    place of d = 2048 (a growth where nothing grows: about 1) and an empty call in place of the table (the share
    the timer alone gives).
    """
    from posenc.model import Block
    from posenc.resources import thread_seconds

    repeats = COST_REPEATS.of(ctx)
    encoders = {d: posenc.build("sinusoidal", dim=d) for d in COST_WIDTHS}
    torch.manual_seed(0)
    block = Block(512, n_heads=COST_HEADS, n_kv_heads=COST_HEADS, d_ff=4 * 512, dropout=0.0).eval()
    x, positions, nope = torch.randn(1, COST_LENGTH, 512), torch.arange(COST_LENGTH), posenc.build("nope")
    table_times: dict[int, list[float]] = {d: [] for d in COST_WIDTHS}
    again_times: list[float] = []  # the d = 64 table once more: the growth's null
    nothing_times: list[float] = []  # an empty call: the share's null
    block_times: list[float] = []
    lo, hi = COST_WIDTHS[0], COST_WIDTHS[-1]
    with torch.no_grad():
        for d in COST_WIDTHS:  # warm-up: first calls allocate
            encoders[d].table(COST_LENGTH, d)
        block(x, positions, nope, None, False)
        for _ in range(repeats):
            for d in COST_WIDTHS:
                table_times[d].append(thread_seconds(lambda d=d: encoders[d].table(COST_LENGTH, d)))
                if d == lo:  # side by side with the table it is the null of
                    again_times.append(thread_seconds(lambda: encoders[lo].table(COST_LENGTH, lo)))
            nothing_times.append(thread_seconds(_nothing))
            block_times.append(thread_seconds(lambda: block(x, positions, nope, None, False)))
    growth = bootstrap(np.column_stack([table_times[lo], table_times[hi]]), cost_ratio)
    growth_null = bootstrap(np.column_stack([table_times[lo], again_times]), cost_ratio)
    share = bootstrap(np.column_stack([table_times[512], block_times]), step_share, bounds=(0.0, 1.0))
    share_null = bootstrap(np.column_stack([nothing_times, block_times]), step_share, bounds=(0.0, 1.0))
    table_bytes = {d: COST_LENGTH * d * 4 for d in COST_WIDTHS}
    block_bytes = COST_LAYERS * sum(p.numel() for p in block.parameters()) * 4
    numbers = {"widths": list(COST_WIDTHS), "length": COST_LENGTH, "repeats": repeats, "quantile": COST_QUANTILE,
               "table_ms": {str(d): 1e3 * low_quantile(t) for d, t in table_times.items()},
               "table_median_ms": {str(d): 1e3 * float(np.median(t)) for d, t in table_times.items()},
               "block_ms": 1e3 * low_quantile(block_times), "block_median_ms": 1e3 * float(np.median(block_times)),
               "nothing_ms": 1e3 * low_quantile(nothing_times), "table_bytes": table_bytes,
               "blocks_bytes": block_bytes, "memory_growth": table_bytes[hi] / table_bytes[lo],
               "time_growth": growth.value, "time_growth_null": growth_null.value, "step_share": share.value,
               "step_share_null": share_null.value, "memory_share": table_bytes[512] / block_bytes,
               "memory_share_by_length": {str(n): n * 512 * 4 / block_bytes for n in (512, 2048, 8192, 32768)}}
    estimates = exacts(numbers, "memory_growth", "memory_share")
    estimates.update({"time_growth": growth, "time_growth_null": growth_null, "step_share": share,
                      "step_share_null": share_null})
    # the threads the timings ran on (one_thread's one: the page, which reads it, runs after they are restored)
    return Measured(numbers, estimates, shown={"threads": torch.get_num_threads()})


# ---------------------------------------------------------------------------------------------------------------
# tutorial 003 §14.4: the worked update, and the fixed encoding takes no gradient
# ---------------------------------------------------------------------------------------------------------------
LR, GRADIENT, OLD_VALUE, DOCUMENT_PE = 0.1, -0.4, 0.9, 0.1  #: tutorial 003 §14.4.1's numbers


def _one_step(encoding: torch.nn.Module, token: int, position: int, channel: int) -> dict[str, float]:
    """One SGD step (lr 0.1) on a posenc input layer whose embedding entry is 0.9, with a loss whose gradient with
    respect to the combined value is -0.4 (``loss = -0.4 x combined``)."""
    from posenc.model import TransformerInput

    torch.manual_seed(0)
    layer = TransformerInput(8, 4, encoding)
    with torch.no_grad():
        layer.token_embedding.weight[token, channel] = OLD_VALUE
    ids = torch.tensor([[0] * position + [token]])  # [1, position + 1]: the token at ``position``
    pe_before = encoding.encode(torch.arange(position + 1), 4).detach().clone()  # [T, 4]
    trainable = sum(p.numel() for p in encoding.parameters() if p.requires_grad)
    optimiser = torch.optim.SGD(layer.parameters(), lr=LR)
    combined = layer(ids)[0, position, channel]
    (GRADIENT * combined).backward()
    grad = float(layer.token_embedding.weight.grad[token, channel])
    optimiser.step()
    with torch.no_grad():
        after = float(layer.token_embedding.weight[token, channel])
        pe_after = encoding.encode(torch.arange(position + 1), 4)
        combined_after = float(layer(ids)[0, position, channel])
    return {"combined_before": float(combined.detach()), "gradient": grad, "embedding_after": after,
            "pe_value": float(pe_before[position, channel]), "pe_value_after": float(pe_after[position, channel]),
            "pe_change": float((pe_after - pe_before).abs().max()), "combined_after": combined_after,
            "trainable_parameters": trainable}


@experiment("worked_update")
@one_thread
def worked_update(ctx: Context) -> Measured:
    """Tutorial 003 §14.4: embedding 0.9, learning rate 0.1, gradient -0.4: ``0.9 - 0.1 x (-0.4) = 0.94``, and the next
    forward pass adds the same, untouched position value (the sinusoid is fixed, it takes no gradient).

    One real SGD step on posenc's input layer (d_model 4, token 3 at position 2, channel 0) with the sinusoid; the
    same with a learned table whose entry is the document's 0.1, whose row does move (by lr x gradient): the check
    can fail.
    """
    token, position, channel = 3, 2, 0
    fixed = _one_step(posenc.build("sinusoidal", dim=4), token, position, channel)
    learned_pe = posenc.build("learned", dim=4, max_len=position + 1)
    with torch.no_grad():
        learned_pe.weight[position, channel] = DOCUMENT_PE
    learned = _one_step(learned_pe, token, position, channel)
    expected = OLD_VALUE - LR * GRADIENT  # float64: the document's arithmetic
    numbers = {"sinusoid": fixed, "learned": learned, "document_new_value": expected,
               "document_new_combined": expected + DOCUMENT_PE,
               "embedding_error": abs(fixed["embedding_after"] - 0.94),
               "combined_error": abs(fixed["combined_after"] - (0.94 + fixed["pe_value"])),
               "gradient_error": abs(fixed["gradient"] - GRADIENT),
               "sinusoid_trainable_parameters": fixed["trainable_parameters"],
               "sinusoid_change": fixed["pe_change"],
               "learned_change": learned["pe_change"],
               "learned_step_error": abs(learned["pe_change"] - LR * abs(GRADIENT))}
    return Measured(numbers, exacts(numbers, "embedding_error", "combined_error", "sinusoid_trainable_parameters",
                                    "sinusoid_change", "learned_change"))


# ---------------------------------------------------------------------------------------------------------------
# tutorial 003 §14.6.3: RoPE's score depends on the offset only
# ---------------------------------------------------------------------------------------------------------------
ROPE_HEAD_DIM, ROPE_VECTORS = 64, 16
ROPE_OFFSETS = (0, 1, 5, 64, 1000)
ROPE_STARTS = torch.arange(64) * 61  #: 64 key positions from 0 to 3843


@experiment("rope_offset_only")
@one_thread
def rope_offset_only(ctx: Context) -> Measured:
    """Tutorial 003 §14.6.3: RoPE makes relative position explicit: the score of a query at ``p + r`` and a key at ``p``
    is the same for every ``p``. posenc's RoPE (head 64, base 10000) through its ``rotate`` hook, 16 random q/k
    pairs, offsets 0, 1, 5, 64, 1000, 64 key positions up to 3843 (:func:`~posenc.properties.translation.offset_spread`).
    The contrast the section draws: the sinusoid added to q and k (§14.6.1), whose score depends on where the pair
    sits too."""
    from posenc.properties.translation import offset_spread

    rope = posenc.build("rope", head_dim=ROPE_HEAD_DIM)
    pe = posenc.build("sinusoidal", dim=ROPE_HEAD_DIM)
    gen = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, ROPE_VECTORS, ROPE_HEAD_DIM, generator=gen)
    rope_spreads, added_spreads = [], []
    for v in range(ROPE_VECTORS):
        qv, kv = q[v], k[v]

        def rope_score(qp: torch.Tensor, kp: torch.Tensor, qv=qv, kv=kv) -> torch.Tensor:
            n = len(qp)
            qr, kr = rope.rotate(qv.expand(1, 1, n, -1).contiguous(), kv.expand(1, 1, n, -1).contiguous(), qp, kp)
            return (qr[0, 0] * kr[0, 0]).sum(-1)  # [S]: each query with the key at the same index

        def added_score(qp: torch.Tensor, kp: torch.Tensor, qv=qv, kv=kv) -> torch.Tensor:
            return ((qv + pe.encode(qp, ROPE_HEAD_DIM)) * (kv + pe.encode(kp, ROPE_HEAD_DIM))).sum(-1)

        scale_rope = float(qv.norm() * kv.norm())
        scale_added = float((qv.norm() ** 2 + ROPE_HEAD_DIM / 2) ** 0.5 * (kv.norm() ** 2 + ROPE_HEAD_DIM / 2) ** 0.5)
        for r in ROPE_OFFSETS:
            rope_spreads.append(offset_spread(rope_score, ROPE_STARTS, r, scale_rope))
            added_spreads.append(offset_spread(added_score, ROPE_STARTS, r, scale_added))
    numbers = {"rope_max_spread": max(rope_spreads), "added_min_spread": min(added_spreads),
               "added_max_spread": max(added_spreads), "offsets": list(ROPE_OFFSETS),
               "key_positions": [int(ROPE_STARTS[0]), int(ROPE_STARTS[-1])], "vectors": ROPE_VECTORS}
    return Measured(numbers, exacts(numbers, "rope_max_spread", "added_min_spread"))


# ---------------------------------------------------------------------------------------------------------------
# tutorial 003 §14.7.2: the input layer's shapes
# ---------------------------------------------------------------------------------------------------------------
PRINTED_SHAPES = {"token embedding": (4, 16, 512), "position embedding": (16, 512), "combined": (4, 16, 512)}


def _input_shapes(combine: str) -> dict[str, tuple[int, ...]]:
    from posenc.model import TransformerInput

    torch.manual_seed(0)
    encoding = posenc.build("learned", dim=512, max_len=16, combine=combine)
    layer = TransformerInput(1000, 512, encoding, scale=True).eval()
    ids = torch.randint(0, 1000, (4, 16))  # 4 sentences of 16 tokens
    with torch.no_grad():
        return {"token embedding": tuple(layer.token_embedding(ids).shape),
                "position embedding": tuple(encoding.encode(torch.arange(16)).shape),
                "combined": tuple(layer(ids).shape)}


@experiment("input_shapes")
@one_thread
def input_shapes(ctx: Context) -> Measured:
    """Tutorial 003 §14.7.2's dimension tracking: ids ``[4, 16]`` -> token embedding ``[4, 16, 512]``, position
    embedding ``[16, 512]`` broadcast over the batch, sum ``[4, 16, 512]``. posenc's input layer with a learned
    table (the section's code), against the printed shapes; concatenating instead must give another shape."""
    added, concatenated = _input_shapes("add"), _input_shapes("concat")
    numbers = {"added": {k: list(v) for k, v in added.items()},
               "concatenated": {k: list(v) for k, v in concatenated.items()},
               "shape_mismatches": sum(added[k] != v for k, v in PRINTED_SHAPES.items()),
               "concat_mismatches": sum(concatenated[k] != v for k, v in PRINTED_SHAPES.items())}
    return Measured(numbers, exacts(numbers, "shape_mismatches", "concat_mismatches"))


# ---------------------------------------------------------------------------------------------------------------
# claims that cannot be tested as written
# ---------------------------------------------------------------------------------------------------------------
@experiment("nothing_measured")
def nothing_measured(ctx: Context) -> Measured:
    """For claims that cannot be tested as written and have nothing nearby to measure: no numbers, the reason is the
    verdict."""
    return Measured({})
