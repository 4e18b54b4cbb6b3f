"""A tiny Hugging Face model's own forward against the same model whose positional work is all posenc's schedule.

For one model type (sizes shrunk by :func:`rotary_cases._overrides`, no download): the model built with random
weights and eager attention is the reference. The same model is then run with

- every module-level ``apply*rot*`` / ``apply*rope*`` function of its modeling file replaced by the identity on q
  and k (the model no longer rotates), and the model's own attention temperature and q/k L2 norm switched off
  (Llama 4);
- its attention function replaced (transformers' ``AttentionInterface``) by one that takes each layer's layer index,
  asks :func:`posenc.schedule_from_hf_config`'s schedule for that layer's encoding and span, and computes attention
  with posenc's own :func:`posenc.model.transformer.attend` and :func:`~posenc.model.transformer.attention_mask`
  (rotation, temperature, bias, causal mask, window, chunk): the model's mask is not used.

So every position-dependent step of attention is posenc's, and the model's outputs (logits, or the last hidden states
of a model without a head) must equal the reference's: for a full pass, and for cached decoding (a prefill, then one
token at a time through the model's own KV cache, which keeps unrotated keys in the patched run; a sliding or
chunked layer's cache keeps only its last keys, whose positions the harness knows since it feeds the tokens).
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch
from rotary_cases import _overrides, rotary_functions

from posenc.encodings.schedule import LayerSchedule
from posenc.hf.schedule import schedule_from_hf_config
from posenc.model.transformer import attend, attention_mask

T = 11  #: tokens per sequence
DECODE = 4  #: of them fed one at a time after a prefill of ``T - DECODE``
ATOL = 1e-5  #: on outputs, relative to the largest |output| (at least 1)
NAME = "posenc_schedule_test"  #: the attention implementation registered with transformers


def tiny_config(model_type: str, layers: int, fields: dict | None = None):
    """The default config of ``model_type`` shrunk to ``layers`` layers (every head 16 wide), with ``fields``."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    logging.getLogger("transformers").setLevel(logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = CONFIG_MAPPING[model_type](**_overrides(model_type, layers, fields=fields))
    config._attn_implementation = "eager"
    return config


def model_for(config, seed: int = 0):
    """The model with a head when transformers maps one (causal LM, else masked LM), else the base model."""
    from transformers.models.auto import modeling_auto as auto

    for mapping in (auto.MODEL_FOR_CAUSAL_LM_MAPPING, auto.MODEL_FOR_MASKED_LM_MAPPING, auto.MODEL_MAPPING):
        try:
            cls = mapping[type(config)]
            break
        except KeyError:
            continue
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.manual_seed(seed)
        return cls(config).eval()


def output(result) -> torch.Tensor:
    return result.logits if getattr(result, "logits", None) is not None else result.last_hidden_state


@dataclass
class Fed:
    """The positions of the tokens fed so far: ``index [N]`` (what masks read) and ``rotary`` (``[N]``, or
    ``[A, 1, N]`` for M-RoPE: what the encoding turns by)."""

    index: torch.Tensor
    rotary: torch.Tensor


def run(model, ids: torch.Tensor, rotary: torch.Tensor | None = None, cached: bool = False,
        fed: Fed | None = None) -> torch.Tensor:
    """The model's outputs ``[1, T, ...]`` on ``ids [1, T]``: one pass, or (``cached``) a prefill of ``T - DECODE``
    tokens then one token at a time through the KV cache. ``rotary``: M-RoPE positions ``[3, 1, T]`` (passed to the
    model as ``[4, 1, T]`` with the text positions first). ``fed`` is kept up to date for a patched model."""
    n = ids.shape[1]
    index = torch.arange(n)
    cuts = [0, n - DECODE, *range(n - DECODE + 1, n + 1)] if cached else [0, n]
    outs, cache = [], None
    with torch.no_grad():
        for start, stop in zip(cuts[:-1], cuts[1:], strict=True):
            kwargs = {}
            if rotary is not None:
                kwargs["position_ids"] = torch.cat([index[None, None, start:stop], rotary[..., start:stop]])
            if fed is not None:
                fed.index = index[:stop]
                fed.rotary = index[:stop] if rotary is None else rotary[..., :stop]
            if cached:
                result = model(input_ids=ids[:, start:stop], cache=cache, use_cache=True, **kwargs)
                cache = result.past_key_values
            else:
                result = model(input_ids=ids[:, start:stop], **kwargs)
            outs.append(output(result))
    return torch.cat(outs, dim=1)


def _identity(q, k, *args, **kwargs):
    return q, k


@contextlib.contextmanager
def posenc_positions(model, schedule: LayerSchedule, fed: Fed) -> Iterator[None]:
    """Within the block, ``model`` does no positional work of its own: posenc's ``schedule`` does all of it."""
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, eager_mask

    encodings = schedule.build()
    modules = {importlib.import_module(type(m).__module__) for m in model.modules()
               if type(m).__module__.startswith("transformers.models.")}
    patched = []
    for module in modules:
        for name, fn in rotary_functions(module):
            patched.append((module, name, fn))
            setattr(module, name, _identity)
    tuned = [m for m in model.modules() if getattr(m, "attn_temperature_tuning", False)]
    for m in tuned:
        m.attn_temperature_tuning = False
    normed = [(m, m.qk_norm) for m in model.modules() if "qk_norm" in m._modules]  # Llama 4's, after rotating
    for m, _ in normed:
        del m.qk_norm

    def attention(module, query, key, value, attention_mask_, scaling=None, dropout=0.0, **kwargs):
        i = module.layer_idx
        encoding, layer, causal = encodings[i], schedule[i], getattr(module, "is_causal", True)
        t_q, t_k = query.shape[2], key.shape[2]
        q_index, k_index = fed.index[-t_q:], fed.index[-t_k:]
        q_rot, k_rot = fed.rotary[..., -t_q:], fed.rotary[..., -t_k:]
        mask = attention_mask(encoding, q_index, causal, None, query.dtype, query.device, layer, k_positions=k_index)
        out = attend(query, key, value, encoding, q_rot, k_rot, mask, causal, scale=scaling, qk_norm=layer.qk_norm)
        return out.transpose(1, 2).contiguous(), None

    AttentionInterface.register(NAME, attention)
    AttentionMaskInterface.register(NAME, eager_mask)
    before = model.config._attn_implementation
    model.set_attn_implementation(NAME)
    try:
        yield
    finally:
        model.set_attn_implementation(before)
        for module, name, fn in patched:
            setattr(module, name, fn)
        for m in tuned:
            m.attn_temperature_tuning = True
        for m, norm in normed:
            m.qk_norm = norm


def relative_error(got: torch.Tensor, want: torch.Tensor) -> float:
    return float((got - want).abs().max()) / max(1.0, float(want.abs().max()))


@dataclass
class Comparison:
    full: float  #: relative error of one pass
    cached: float | None  #: of cached decoding (None for an encoder)
    cache_vs_full: float | None  #: the reference's own cached decoding against its full pass


def compare(config, rotary: torch.Tensor | None = None, schedule: LayerSchedule | None = None,
            decoder: bool = True, seed: int = 0,
            edit: Callable[[LayerSchedule], LayerSchedule] | None = None) -> Comparison:
    """The model of ``config`` against itself with posenc's schedule (``schedule``, default the config's own;
    ``edit`` changes it first, to show a wrong schedule is caught)."""
    model = model_for(config, seed)
    vocab = getattr(config, "vocab_size", 97)
    ids = torch.randint(0, vocab, (1, T), generator=torch.Generator().manual_seed(seed + 1))
    schedule = schedule or schedule_from_hf_config(config)
    if edit is not None:
        schedule = edit(schedule)
    want = run(model, ids, rotary)
    fed = Fed(torch.arange(0), torch.arange(0))
    with posenc_positions(model, schedule, fed):
        got = run(model, ids, rotary, fed=fed)
        got_cached = run(model, ids, rotary, cached=True, fed=fed) if decoder else None
    want_cached = run(model, ids, rotary, cached=True) if decoder else None
    return Comparison(relative_error(got, want),
                      None if got_cached is None else relative_error(got_cached, want_cached),
                      None if want_cached is None else relative_error(want_cached, want))
