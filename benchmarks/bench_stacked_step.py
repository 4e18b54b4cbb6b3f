"""Several lab models trained as one computation, against one after another: is it faster on this machine?

The lab trains the seeds of a configuration as separate small models. This benchmark takes ``E`` models of one
configuration of the report's task sweep (:func:`posenc.report.experiments.training.task_sweep`, full mode: copy,
2 layers, d_model 64, 4 heads, batches of 32 strings of sizes 1..8), built as the lab builds them (seeds
``0..E-1``), and times two ways of taking one AdamW step of all ``E``:

- ``alone``: the lab's step, model after model (forward, cross-entropy, backward, gradient clipping, AdamW);
- ``stacked``: the dense weights of the ``E`` models stacked along a first dimension (``[E, out, in]``), the ``E``
  batches as one ``[E, B, T]`` tensor (each model's own batch from its own generator, padded at the end to the
  longest: in a causal decoder a token never sees the padding after it, and the padded targets are ignored), every
  linear layer one batched product (``bmm``/``baddbmm``), the attention of all models one SDPA call over ``E * B``
  sequences, one AdamW step over the stacked tensors, and the clipping norm computed per model.

Before timing it checks that the stacked forward gives each model's logits (at the unpadded positions) and that one
stacked step leaves each model's weights where its own step leaves them. Encodings whose attention hooks have no
weights of their own (``rope``, ``alibi``, ``nope``; ``sinusoidal`` and ``learned`` act in each model's own input
layer) are supported; T5, FIRE, KERPLE or CoPE would need their weights stacked too.

    python benchmarks/bench_stacked_step.py --encoding rope --models 3 6 18 --rounds 7
    python benchmarks/bench_stacked_step.py --same-size --models 3 18     # no padding: the best case

It prints the median time of ``--steps`` steps per round for each way and their ratio (alone / stacked: above 1,
stacked is faster).
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
import torch.nn.functional as F

from posenc.encodings.base import default_positions
from posenc.lab.string_tasks import IGNORE
from posenc.lab.train import RunConfig, build_model
from posenc.model.transformer import attend, attention_mask
from posenc.report.experiments.training import task_sweep

SUPPORTED = ("rope", "alibi", "nope", "sinusoidal", "learned")
BLOCK_WEIGHTS = ("ln1.weight", "ln1.bias", "ln2.weight", "ln2.bias", "attn.q_proj.weight", "attn.kv_proj.weight",
                 "attn.out_proj.weight", "mlp.0.weight", "mlp.0.bias", "mlp.2.weight", "mlp.2.bias")


def task_config(encoding: str, task: str, same_size: bool = False) -> RunConfig:
    """The report's full-mode task configuration for ``task`` and ``encoding`` (trained for all its steps); with
    ``same_size`` every batch at the largest size (no padding: the most stacking could give, not the lab's runs)."""
    base = dict(task_sweep(False, 1)["base"])
    base.update(task=task, encoding=encoding, val_every=0)
    if same_size:
        base["min_train_len"] = base["train_len"]
    return RunConfig.from_dict(base)


class Stacked:
    """The dense weights of ``models`` stacked; each model keeps its own input layer (token embedding and encoding)."""

    def __init__(self, models: list[torch.nn.Module]) -> None:
        self.models = models
        first = models[0]
        self.E, self.layers, self.width = len(models), len(first.blocks), first.width
        self.heads = first.config.n_heads

        def stack(name: str) -> torch.nn.Parameter:
            return torch.nn.Parameter(torch.stack([m.get_parameter(name).detach().clone() for m in models]))

        self.weights = {f"blocks.{n}.{w}": stack(f"blocks.{n}.{w}") for n in range(self.layers) for w in BLOCK_WEIGHTS}
        self.weights.update({name: stack(name) for name in ("ln_f.weight", "ln_f.bias", "head.weight")})
        self.own = [list(m.input.parameters()) for m in models]

    def parameters(self) -> list[torch.nn.Parameter]:
        return list(self.weights.values()) + [p for own in self.own for p in own]

    def _norm(self, x: torch.Tensor, prefix: str) -> torch.Tensor:
        weight, bias = self.weights[prefix + ".weight"], self.weights[prefix + ".bias"]
        return torch.addcmul(bias[:, None], F.layer_norm(x, (self.width,)), weight[:, None])

    def _linear(self, x: torch.Tensor, name: str, bias: bool = False) -> torch.Tensor:
        weight = self.weights[name + ".weight"].transpose(1, 2)
        return torch.baddbmm(self.weights[name + ".bias"][:, None], x, weight) if bias else torch.bmm(x, weight)

    def __call__(self, ids: torch.Tensor) -> torch.Tensor:
        """``ids [E, B, T]`` -> logits ``[E, B, T, V]``."""
        E, B, T = ids.shape
        H, W = self.heads, self.width
        positions = default_positions(T, ids.device)
        encoding = self.models[0].encoding
        x = torch.stack([m.input(ids[e], positions) for e, m in enumerate(self.models)]).view(E, B * T, W)
        mask = attention_mask(encoding, positions, True, None, x.dtype, x.device)
        for n in range(self.layers):
            block = f"blocks.{n}."
            h = self._norm(x, block + "ln1")
            q = self._linear(h, block + "attn.q_proj").view(E * B, T, H, W // H).transpose(1, 2)
            k, v = self._linear(h, block + "attn.kv_proj").view(E * B, T, 2, H, W // H).permute(2, 0, 3, 1, 4)
            y = attend(q, k, v, encoding, positions, positions, mask, True)
            x = x + self._linear(y.transpose(1, 2).reshape(E, B * T, W), block + "attn.out_proj")
            h = F.gelu(self._linear(self._norm(x, block + "ln2"), block + "mlp.0", bias=True))
            x = x + self._linear(h, block + "mlp.2", bias=True)
        return self._linear(self._norm(x, "ln_f"), "head").view(E, B, T, -1)

    def clip(self, limit: float) -> None:
        """Each model's gradients scaled as ``clip_grad_norm_`` scales them, from that model's own norm."""
        squares = sum(w.grad.pow(2).flatten(1).sum(1) for w in self.weights.values())
        squares = squares + torch.stack([sum(p.grad.pow(2).sum() for p in own) for own in self.own])
        factor = (limit / (squares.sqrt() + 1e-6)).clamp(max=1.0)
        for w in self.weights.values():
            w.grad.mul_(factor.view(-1, *[1] * (w.dim() - 1)))
        for e, own in enumerate(self.own):
            for p in own:
                p.grad.mul_(factor[e])


def padded(batches: list[tuple[torch.Tensor, torch.Tensor]]) -> tuple[torch.Tensor, torch.Tensor]:
    """The ``E`` batches as ``[E, B, T]`` ids and targets, each padded at the end to the longest."""
    T = max(ids.shape[1] for ids, _ in batches)
    ids = torch.stack([F.pad(i, (0, T - i.shape[1]), value=0) for i, _ in batches])
    targets = torch.stack([F.pad(t, (0, T - t.shape[1]), value=IGNORE) for _, t in batches])
    return ids, targets


def measure(config: RunConfig, count: int, steps: int, rounds: int) -> dict[str, float]:
    lr, clip = config.lr, config.grad_clip
    alone = [build_model(config, seed) for seed in range(count)]
    stacked = Stacked([build_model(config, seed) for seed in range(count)])
    alone_opt = [torch.optim.AdamW(m.parameters(), lr=lr, foreach=True) for m in alone]
    stacked_opt = torch.optim.AdamW(stacked.parameters(), lr=lr, foreach=True)
    draw = config.lab_task.sampler(config)
    generators = [torch.Generator().manual_seed(seed) for seed in range(count)]

    def alone_step(batches):
        for model, opt, (ids, targets) in zip(alone, alone_opt, batches, strict=True):
            loss = F.cross_entropy(model(ids).flatten(0, 1), targets.flatten(), ignore_index=IGNORE)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            opt.step()

    def stacked_step(batches):
        ids, targets = padded(batches)
        logits = stacked(ids)
        loss = sum(F.cross_entropy(logits[e].flatten(0, 1), targets[e].flatten(), ignore_index=IGNORE)
                   for e in range(count))
        stacked_opt.zero_grad(set_to_none=True)
        loss.backward()
        stacked.clip(clip)
        stacked_opt.step()

    batches = [draw(g) for g in generators]
    with torch.no_grad():  # the same logits at every unpadded position
        logits = stacked(padded(batches)[0])
        forward = max((logits[e, :, :ids.shape[1]] - m(ids)).abs().max().item()
                      for e, (m, (ids, _)) in enumerate(zip(alone, batches, strict=True)))
    alone_step(batches)
    stacked_step(batches)
    after = max((stacked.weights["head.weight"][e] - m.head.weight).abs().max().item() for e, m in enumerate(alone))
    times = {"alone": [], "stacked": []}
    for _ in range(rounds):
        rows = [[draw(g) for g in generators] for _ in range(steps)]
        for name, step in (("alone", alone_step), ("stacked", stacked_step)):
            started = time.perf_counter()
            for batches in rows:
                step(batches)
            times[name].append((time.perf_counter() - started) / steps)
    a, s = statistics.median(times["alone"]), statistics.median(times["stacked"])
    return {"forward_diff": forward, "step_diff": after, "alone_ms": 1e3 * a, "stacked_ms": 1e3 * s, "ratio": a / s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encoding", choices=SUPPORTED, default="rope")
    parser.add_argument("--task", default="copy")
    parser.add_argument("--models", type=int, nargs="+", default=[3, 6])
    parser.add_argument("--steps", type=int, default=10, help="steps per round")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--same-size", action="store_true",
                        help="every batch at the largest size, so nothing is padded (not how the lab trains)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    config = task_config(args.encoding, args.task, args.same_size)
    print(f"{args.task}/{args.encoding}, d_model {config.d_model}, {config.n_layers} layers, batch "
          f"{config.batch_size}, sizes {config.min_train_len}..{config.train_len}, {args.threads} thread(s), torch "
          f"{torch.__version__}; medians of {args.rounds} rounds of {args.steps} steps")
    for count in args.models:
        r = measure(config, count, args.steps, args.rounds)
        print(f"E={count:2d}: alone {r['alone_ms']:7.2f} ms, stacked {r['stacked_ms']:7.2f} ms per step of all "
              f"{count}; alone / stacked {r['ratio']:.2f} (largest difference: logits {r['forward_diff']:.1e}, "
              f"weights after one step {r['step_diff']:.1e})")


if __name__ == "__main__":
    main()
