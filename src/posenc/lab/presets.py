"""Named sweeps: ``posenc sweep --preset NAME``.

The sizes are tiny on purpose (CPU, a laptop): they test the *shape* of published results, not their numbers. No
setting here was chosen by looking at which encoding wins; they are the smallest sizes at which the models learn
the training lengths at all.

``alibi-table``
    Press et al. 2022 (ALiBi), Table/Figure of perplexity against evaluation length, at tiny scale: a character-level
    model of the Shakespeare plays trained at context ``L = 64``, evaluated at ``64, 128, 256, 512`` (1x, 2x, 4x, 8x)
    with non-overlapping chunks and with a sliding window (stride ``L_valid / 8``), 16384 scored characters per
    length. Encodings sinusoidal, learned, rope, alibi, t5, nope; seeds 0, 1, 2 (18 runs). Model: 4 layers,
    d_model 64, 4 heads of width 16 (ALiBi slopes 1/4 .. 1/256), 2000 steps of 32 windows (4.1M characters), AdamW
    lr 1e-3. The width was set from the compute budget alone, before either size had run.
    ``--set d_model=128 --set n_heads=8`` runs the wider model.
``nope-tasks``
    Kazemnejad et al. 2023 (NoPE) at tiny scale: copy and reverse, decoder-only, trained on sizes 1..20, tested at
    5..80 (to 4L). Encodings nope, t5, alibi, rope, sinusoidal, learned; seeds 0, 1, 2 (36 runs). Model: 4 layers,
    d_model 64, 4 heads, 3000 steps of 32 strings, AdamW lr 1e-3.
``quick``
    Every registry encoding on copy and reverse, one seed, with ``concat`` variants of sinusoidal and learned (seed
    003 §14.3); integer and normalized run concatenated only, since added to the embedding they are NoPE in this
    pre-norm model (:func:`posenc.lab.train.refuse_constant_encoding`). Trained on sizes 1..8, tested at 4, 8, 12,
    16, 32. Model: 2 layers, d_model 32, 2 heads (concat adds a 16-wide position part), 1500 steps of 32 strings,
    lr 3e-3, 128 test strings per size. 2 n + 4 runs for the registry's n encodings (twice each encoding, plus the
    four concatenated variants, less integer and normalized added), so a new encoding joins without a count to edit.

How long each preset takes, and what it showed, is in docs/lab.md (Presets).
"""

from __future__ import annotations

from collections.abc import Callable

from posenc.lab.grid import Sweep
from posenc.lab.train import CONSTANT_ACROSS_CHANNELS
from posenc.names import Registry
from posenc.registry import available

__all__ = ["PRESETS", "get_preset", "ALIBI_TABLE_ENCODINGS", "NOPE_TASKS_ENCODINGS"]

#: every named sweep, each registered at its function, in the order ``posenc sweep --help`` lists them
PRESETS: Registry[Callable[[], Sweep]] = Registry("preset or sweep file", plural="presets")

ALIBI_TABLE_ENCODINGS = ("sinusoidal", "learned", "rope", "alibi", "t5", "nope")
NOPE_TASKS_ENCODINGS = ("nope", "t5", "alibi", "rope", "sinusoidal", "learned")


@PRESETS.register("alibi-table")
def _alibi_table() -> Sweep:
    return Sweep(
        name="alibi-table",
        base={"task": "charlm", "train_len": 64, "eval_lengths": [64, 128, 256, 512],
              "protocols": ["nonoverlap", "sliding"], "d_model": 64, "n_layers": 4, "n_heads": 4,
              "steps": 2000, "batch_size": 32, "lr": 1e-3, "warmup": 100, "eval_tokens": 16384},
        grid={"encoding": list(ALIBI_TABLE_ENCODINGS)}, seeds=[0, 1, 2],
        description="char-LM on Shakespeare trained at L=64, perplexity at 1x/2x/4x/8x L (Press et al. 2022)")


@PRESETS.register("nope-tasks")
def _nope_tasks() -> Sweep:
    return Sweep(
        name="nope-tasks",
        base={"train_len": 20, "min_train_len": 1, "eval_lengths": [5, 10, 15, 20, 25, 30, 40, 60, 80],
              "d_model": 64, "n_layers": 4, "n_heads": 4, "steps": 3000, "batch_size": 32, "lr": 1e-3,
              "warmup": 100, "eval_samples": 256},
        grid={"task": ["copy", "reverse"], "encoding": list(NOPE_TASKS_ENCODINGS)}, seeds=[0, 1, 2],
        description="copy and reverse trained to size 20, tested to 80 (Kazemnejad et al. 2023)")


@PRESETS.register("quick")
def _quick() -> Sweep:
    # integer and normalized added to the embedding are NoPE in a pre-norm model (refuse_constant_encoding): they
    # run concatenated, where their value survives the LayerNorm
    variants = [{"encoding": name} for name in available() if name not in CONSTANT_ACROSS_CHANNELS]
    variants += [{"encoding": name, "encoding_options": {"combine": "concat", "dim": 16}}
                 for name in ("sinusoidal", "learned", *CONSTANT_ACROSS_CHANNELS)]
    return Sweep(
        name="quick",
        base={"train_len": 8, "eval_lengths": [4, 8, 12, 16, 32], "d_model": 32, "n_layers": 2, "n_heads": 2,
              "steps": 1500, "batch_size": 32, "lr": 3e-3, "warmup": 100, "eval_samples": 128},
        grid={"task": ["copy", "reverse"], "variant": variants}, seeds=[0],
        description="every encoding (add and concat), copy and reverse, one seed, tiny model (minutes on 2 cores)")


def get_preset(name: str) -> Sweep:
    """The preset sweep ``name``; an unknown name lists the valid ones."""
    if name not in PRESETS:
        raise PRESETS.unknown(name, also=" (or pass a JSON sweep file)")
    return PRESETS.get(name)()
