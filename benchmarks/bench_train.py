"""Training speed: posenc's Transformer against the same model written plainly with ``nn.MultiheadAttention``.

Both models have the same sizes and parameters (pre-norm blocks, bias-free attention projections, GELU MLP, a final
LayerNorm and an untied head), the same sinusoidal positions added to the embeddings, the same causal mask and the
same optimizer. Steps of the two are interleaved in one process, so machine load hits both alike; the score is the
median tokens per second (forward, backward and AdamW step) over ``--repeats`` rounds.

    python benchmarks/bench_train.py                      # lab sizes and quick-preset sizes
    python benchmarks/bench_train.py --threads 2 --repeats 7
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import torch
import torch.nn.functional as F
from torch import nn

from posenc.model import Transformer, TransformerConfig


class PlainBlock(nn.Module):
    def __init__(self, d: int, heads: int, d_ff: int):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, bias=False, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(d, d_ff), nn.GELU(), nn.Linear(d_ff, d))

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, is_causal=True, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class PlainTransformer(nn.Module):
    """Token embedding + sinusoidal table (Vaswani et al. 2017) + pre-norm ``nn.MultiheadAttention`` blocks."""

    def __init__(self, vocab: int, d: int, layers: int, heads: int, max_len: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        p = torch.arange(max_len, dtype=torch.float64)[:, None]
        inv = torch.exp(-math.log(10000.0) * torch.arange(0, d, 2, dtype=torch.float64) / d)
        pe = torch.zeros(max_len, d, dtype=torch.float64)
        pe[:, 0::2], pe[:, 1::2] = torch.sin(p * inv), torch.cos(p * inv)
        self.register_buffer("pe", pe.float(), persistent=False)  # [max_len, d]
        self.blocks = nn.ModuleList(PlainBlock(d, heads, 4 * d) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        T = ids.shape[1]
        x = self.embed(ids) + self.pe[:T]  # [B, T, d]
        mask = torch.ones(T, T, dtype=torch.bool, device=ids.device).triu(1)  # True = masked
        for block in self.blocks:
            x = block(x, mask)
        return self.head(self.ln_f(x))  # [B, T, vocab]


def _step(model, optimizer, ids):
    loss = F.cross_entropy(model(ids[:, :-1]).flatten(0, 1), ids[:, 1:].flatten())
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()


def bench(d: int, layers: int, heads: int, batch: int, T: int, steps: int, repeats: int, encoding: str) -> dict:
    vocab = 84
    torch.manual_seed(0)
    posenc_model = Transformer(TransformerConfig(vocab_size=vocab, d_model=d, n_layers=layers, n_heads=heads,
                                                 encoding=encoding, max_len=T))
    plain = PlainTransformer(vocab, d, layers, heads, T)
    n_posenc = sum(p.numel() for p in posenc_model.parameters())
    n_plain = sum(p.numel() for p in plain.parameters())
    models = {"posenc": posenc_model, "plain": plain}
    optimizers = {k: torch.optim.AdamW(m.parameters(), lr=1e-3) for k, m in models.items()}
    ids = torch.randint(0, vocab, (batch, T + 1))
    for k in models:  # warm-up
        for _ in range(3):
            _step(models[k], optimizers[k], ids)
    rates = {k: [] for k in models}
    for _ in range(repeats):
        for k in models:
            start = time.perf_counter()
            for _ in range(steps):
                _step(models[k], optimizers[k], ids)
            rates[k].append(steps * batch * T / (time.perf_counter() - start))
    out = {k: statistics.median(v) for k, v in rates.items()}
    out.update(params_posenc=n_posenc, params_plain=n_plain)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--steps", type=int, default=10)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    configs = [("alibi-table size", 128, 4, 8, 32, 64, "sinusoidal"),
               ("nope-tasks size", 64, 4, 4, 32, 40, "sinusoidal"),
               ("quick size", 32, 2, 2, 32, 16, "sinusoidal")]
    print(f"torch {torch.__version__}, {args.threads} thread(s); median of {args.repeats} rounds of {args.steps} "
          f"training steps, interleaved")
    print(f"{'model':28s} {'posenc tok/s':>13s} {'plain MHA tok/s':>16s} {'ratio':>7s}  params posenc/plain")
    for name, d, layers, heads, batch, T, encoding in configs:
        r = bench(d, layers, heads, batch, T, args.steps, args.repeats, encoding)
        print(f"{name:28s} {r['posenc']:13.0f} {r['plain']:16.0f} {r['posenc'] / r['plain']:7.2f}  "
              f"{r['params_posenc']}/{r['params_plain']}")


if __name__ == "__main__":
    main()
