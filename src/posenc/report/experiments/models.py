"""Experiments on posenc's own small Transformer (random weights, no training): word order without positions
(tutorial 000 intro), the position-blind FFN (tutorial 001 §5.1), a learned table's hard end (seeds 002, 003) and adding vs
concatenating (tutorial 003 §14.3). Their pages: :mod:`posenc.report.present.models`.

Shapes: ids ``[B, T]``, hidden states ``[B, T, D]``.
"""

from __future__ import annotations

import torch

import posenc
from posenc.report.experiments.base import Context, Measured, Mode, exacts, experiment

# tutorial 000's two sentences: the same words (the same multiset of tokens), opposite meanings
_SENTENCES = ("I do not like the story of the movie , but I do like the cast .",
              "I do like the story of the movie , but I do not like the cast .")


#: word_order's random models: their seeds in each mode
WORD_ORDER_SEEDS = Mode(quick=[0, 1, 2], full=list(range(10)))
#: add_vs_concat's widths in each mode
READOUT_WIDTHS = Mode(quick=[8, 32, 128], full=[8, 16, 32, 64, 128, 256])


def _ids(sentence: str, vocab: dict[str, int]) -> torch.Tensor:
    return torch.tensor([[vocab.setdefault(w, len(vocab)) for w in sentence.split()]])  # [1, T]


def _model(encoding: str, causal: bool, vocab_size: int, seed: int) -> posenc.model.Transformer:
    from posenc.model import Transformer, TransformerConfig

    torch.manual_seed(seed)
    config = TransformerConfig(vocab_size=vocab_size, d_model=32, n_layers=2, n_heads=4, causal=causal,
                               encoding=encoding, max_len=64)
    return Transformer(config).eval()


@experiment("word_order")
def word_order(ctx: Context) -> Measured:
    """Tutorial 000 intro: without positions, self-attention sees "I love you" and "you love I" as the same bag.

    For each model we feed a sentence and its permutation and measure
    ``equivariance = max |h(perm x) - perm h(x)| / mean |h|`` (0: the model only reorders its outputs, it cannot tell
    the orders apart) and the relative difference of the mean-pooled sentence vectors.
    """
    import posenc.model  # noqa: F401

    seeds = WORD_ORDER_SEEDS.of(ctx)
    vocab: dict[str, int] = {}
    a, b = _ids("I love you", vocab), _ids("you love I", vocab)
    perm = torch.tensor([2, 1, 0])  # "you love I" = "I love you" read backwards
    s1, s2 = _ids(_SENTENCES[0], vocab), _ids(_SENTENCES[1], vocab)
    cases = {"nope_encoder": ("nope", False), "sinusoidal_encoder": ("sinusoidal", False),
             "rope_encoder": ("rope", False), "nope_decoder": ("nope", True)}
    results: dict[str, dict[str, float]] = {}
    with torch.no_grad():
        for key, (encoding, causal) in cases.items():
            eq, pooled = [], []
            for seed in seeds:
                model = _model(encoding, causal, 64, seed)
                ha, hb = model(a, return_hidden=True), model(b, return_hidden=True)  # [1, 3, D]
                scale = ha.abs().mean()
                eq.append(float((hb - ha[:, perm]).abs().max() / scale))
                h1, h2 = model(s1, return_hidden=True), model(s2, return_hidden=True)  # [1, T, D]
                v1, v2 = h1.mean(dim=1), h2.mean(dim=1)  # [1, D] sentence vectors
                pooled.append(float((v1 - v2).norm() / v1.norm()))
            results[key] = {"equivariance_min": min(eq), "equivariance_max": max(eq),
                            "pooled_difference_min": min(pooled), "pooled_difference_max": max(pooled)}
    numbers = {"cases": results, "seeds": len(seeds)}
    numbers["positions_see_order"] = min(results["sinusoidal_encoder"]["equivariance_min"],
                                         results["rope_encoder"]["equivariance_min"])
    numbers["blind_encoder_difference"] = results["nope_encoder"]["equivariance_max"]
    numbers["causal_no_positions_difference"] = results["nope_decoder"]["equivariance_min"]
    return Measured(numbers, exacts(numbers, "blind_encoder_difference", "positions_see_order",
                                    "causal_no_positions_difference"))


@experiment("ffn_position_blind")
def ffn_position_blind(ctx: Context) -> Measured:
    """Tutorial 001 §5.1: the position-wise FFN applies the same function at every position.

    ``max |FFN(x[perm]) - FFN(x)[perm]|`` for a random permutation (0: blind to position), and the same vector at
    positions 0 and T-1 giving the same output. Baseline that can fail: a whole block with RoPE attention.
    """
    from posenc.model import Block

    torch.manual_seed(0)
    width, length = 64, 32
    block = Block(width, n_heads=4, n_kv_heads=4, d_ff=256, dropout=0.0).eval()
    x = torch.randn(2, length, width)  # [B, T, D]
    perm = torch.randperm(length)
    rope = posenc.build_for_model("rope", d_model=width, n_heads=4, head_dim=width // 4)
    positions = torch.arange(length)
    with torch.no_grad():
        y = block.mlp(x)
        ffn_err = float((block.mlp(x[:, perm]) - y[:, perm]).abs().max())
        same = x.clone()
        same[:, -1] = same[:, 0]
        out = block.mlp(same)
        same_err = float((out[:, -1] - out[:, 0]).abs().max())
        z = block(x, positions, rope, None, False)
        block_err = float((block(x[:, perm], positions, rope, None, False) - z[:, perm]).abs().max())
        scale = float(y.abs().mean())
    numbers = {"ffn_permutation_error": ffn_err, "ffn_same_vector_error": same_err,
               "rope_block_permutation_error": block_err, "output_scale": scale, "length": length, "width": width}
    numbers["ffn_relative_error"] = max(ffn_err, same_err) / max(scale, 1.0)
    return Measured(numbers, exacts(numbers, "ffn_relative_error", "rope_block_permutation_error"))


@experiment("learned_max_len")
def learned_max_len(ctx: Context) -> Measured:
    """Seeds 002 and 003: a learned table of ``max_len`` rows cannot run a longer sequence.

    posenc's learned table and a Transformer built on it at ``max_len`` and ``max_len + 1`` tokens, and the real
    all-MiniLM-L6-v2 (512 learned positions) at 512 and 1024 tokens.
    """
    from posenc.encodings.learned import PositionOutOfRange
    from posenc.model import Transformer, TransformerConfig

    max_len = 512
    table = posenc.build("learned", dim=32, max_len=max_len)
    outcomes: dict[str, str] = {}

    def attempt(key: str, fn) -> None:
        try:
            fn()
            outcomes[key] = "ran"
        except PositionOutOfRange:
            outcomes[key] = "PositionOutOfRange"
        except (IndexError, RuntimeError, ValueError) as exc:
            outcomes[key] = type(exc).__name__

    attempt("table_at_max_len", lambda: table.table(max_len))
    attempt("table_past_max_len", lambda: table.table(max_len + 1))
    attempt("table_at_double", lambda: table.table(2 * max_len))
    model = Transformer(TransformerConfig(vocab_size=16, d_model=32, n_heads=4, encoding="learned", max_len=64))
    with torch.no_grad():
        attempt("model_at_max_len", lambda: model(torch.zeros(1, 64, dtype=torch.long)))
        attempt("model_past_max_len", lambda: model(torch.zeros(1, 65, dtype=torch.long)))
        sinusoid = Transformer(TransformerConfig(vocab_size=16, d_model=32, n_heads=4, encoding="sinusoidal",
                                                 max_len=64))
        attempt("sinusoid_model_past_max_len", lambda: sinusoid(torch.zeros(1, 2 * 64, dtype=torch.long)))
    from posenc.report.experiments.pretrained import minilm

    loaded = minilm()
    minilm_positions = int(loaded.model.embeddings.position_embeddings.weight.shape[0])
    with torch.no_grad():
        attempt("minilm_at_max_len", lambda: loaded.model(input_ids=torch.full((1, minilm_positions), 1000)))
        attempt("minilm_at_double", lambda: loaded.model(input_ids=torch.full((1, 2 * minilm_positions), 1000)))
    numbers = {"outcomes": outcomes, "max_len": max_len, "minilm_positions": minilm_positions,
               "ran_at_max_len": all(outcomes[k] == "ran" for k in ("table_at_max_len", "model_at_max_len",
                                                                    "minilm_at_max_len")),
               "failed_past_max_len": [k for k in ("table_past_max_len", "table_at_double", "model_past_max_len",
                                                   "minilm_at_double") if outcomes[k] != "ran"],
               "ran_past_max_len": [k for k in ("table_past_max_len", "table_at_double", "model_past_max_len",
                                                "minilm_at_double") if outcomes[k] == "ran"]}
    numbers["models_running_at_max_len"] = float(numbers["ran_at_max_len"])
    numbers["models_running_past_max_len"] = len(numbers["ran_past_max_len"])
    return Measured(numbers, exacts(numbers, "models_running_at_max_len", "models_running_past_max_len"))


@experiment("add_vs_concat")
def add_vs_concat(ctx: Context) -> Measured:
    """Tutorial 003 §14.3: adding keeps d_model; concatenating widens every later layer. And does adding lose
    information? A linear read-out (what the next layer can do: :func:`~posenc.probe.separation.linear_readout_accuracy`)
    recovers the token and the position from ``E[w] + PE[p]`` and from ``[E[w]; PE[p]]``, for every (token, position)
    pair, at several widths."""
    from posenc.model import Transformer, TransformerConfig, TransformerInput
    from posenc.probe.separation import linear_readout_accuracy

    vocab, length = 64, 64
    widths = READOUT_WIDTHS.of(ctx)
    d_model = 64
    add_in = TransformerInput(vocab, d_model, posenc.build("sinusoidal", dim=d_model))
    cat_in = TransformerInput(vocab, d_model, posenc.build("sinusoidal", dim=d_model, combine="concat"))
    cfg = {"vocab_size": vocab, "d_model": d_model, "n_layers": 2, "n_heads": 4}
    add_params = sum(p.numel() for p in Transformer(TransformerConfig(encoding="sinusoidal", **cfg)).parameters())
    cat_params = sum(p.numel() for p in Transformer(TransformerConfig(
        encoding="sinusoidal", encoding_options={"dim": d_model, "combine": "concat"}, **cfg)).parameters())
    tokens = torch.arange(vocab).repeat_interleave(length)  # [V * T]: every (token, position) pair
    positions = torch.arange(length).repeat(vocab)  # [V * T]
    readout: dict[str, dict[str, float]] = {}
    gen = torch.Generator().manual_seed(0)
    for d in widths:
        embedding = torch.randn(vocab, d, generator=gen, dtype=torch.float64)  # nn.Embedding's init N(0, 1)
        pe = posenc.build("sinusoidal", dim=d).table(length, d).double()  # [T, d]
        added = embedding[tokens] + pe[positions]  # [N, d]
        concat = torch.cat([embedding[tokens], pe[positions]], dim=1)  # [N, 2d]
        readout[str(d)] = {"add_token": linear_readout_accuracy(added, tokens, vocab),
                           "add_position": linear_readout_accuracy(added, positions, length),
                           "concat_token": linear_readout_accuracy(concat, tokens, vocab),
                           "concat_position": linear_readout_accuracy(concat, positions, length)}
    numbers = {"add_width": add_in.output_dim, "concat_width": cat_in.output_dim, "d_model": d_model,
               "add_parameters": add_params, "concat_parameters": cat_params, "readout": readout,
               "widths": widths, "vocab": vocab, "length": length}
    gaps = {d: max(r["concat_token"] - r["add_token"], r["concat_position"] - r["add_position"])
            for d, r in readout.items()}
    numbers["width_change_by_adding"] = add_in.output_dim - d_model
    numbers["loss_at_widest"] = gaps[str(max(widths))]
    numbers["loss_at_narrowest"] = gaps[str(min(widths))]
    return Measured(numbers, exacts(numbers, "width_change_by_adding", "loss_at_widest", "loss_at_narrowest"))
