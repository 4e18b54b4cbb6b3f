"""Put posenc's RoPE frequencies into a Hugging Face Llama-family model through transformers' public RoPE hook.

transformers documents one extension point for new RoPE variants: the registry ``ROPE_INIT_FUNCTIONS`` in
``transformers.modeling_rope_utils`` maps a ``rope_type`` of the config's ``rope_parameters`` to a function
``fn(config, device=None, seq_len=None, ...) -> (inv_freq, attention_factor)``, and the model's rotary module builds
its cos/sin tables from what that function returns (cos and sin multiplied by ``attention_factor``). That pair is
exactly what :meth:`posenc.encodings.rope.RoPE.frequencies` gives, so posenc registers one such function under the
type ``"posenc"`` (:data:`ROPE_TYPE`) and :func:`patch_model`:

1. writes the encoding's options into ``config.rope_parameters`` (``rope_type = "posenc"`` and ``"posenc": {head_dim,
   base, pairing, rotary_dim, scaling, seq_len}``; the config's other RoPE keys stay, so its native length still
   reads), after checking that the model rotates what the encoding describes (its head width, its pairing);
2. builds the model's rotary module anew from that config with the module's own constructor.

The layers, the KV cache and the masks stay the model library's own: no module of a layer is replaced. The attention
function is by default posenc's :func:`~posenc.extend.attention.causal_attention`, registered through the library's
``AttentionInterface`` (the same softmax attention, computed over the causal triangle of a long prompt after a
cache; see that module for why), or the model's own with ``attention=None``. The frequencies are computed in float64 by posenc and
applied by the library in its own precision, as for its built-in scalings (which the tests compare against).

A length-dependent scaling (dynamic NTK) changes every layer's hidden states when the length grows, so no KV cache can
reproduce a full pass under it (transformers #25306 is the key-side symptom). The registered type never contains
``"dynamic"``, so the library does not recompute the frequencies while it runs: :class:`FixedLengthRope` (or
``seq_len=``) evaluates such a scaling at one length (a window's length, a passkey prompt's target length), and
prefill and decoding then use the same frequencies.

Supported: decoder-only models whose attention has the Llama layout (``llama``, ``mistral`` without a sliding window,
``qwen2``, ``qwen3``). Other models raise a :class:`~posenc.errors.PosencError` naming what was found.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from posenc.checks import whole_number
from posenc.encodings.base import EncodingInfo, PositionalEncoding
from posenc.encodings.rope import RoPE
from posenc.errors import PosencError
from posenc.extend.attention import ATTENTION, register_attention
from posenc.extend.factors import scaling_spec
from posenc.hf.config import POSENC_ROPE_TYPE, from_hf_config, rope_options_from_hf_config
from posenc.registry import build

__all__ = ["FixedLengthRope", "patch_model", "set_encoding", "scaled_rope", "native_length", "check_rope_model",
           "patched_encoding", "rope_init", "ROPE_TYPE", "SUPPORTED_MODEL_TYPES"]

SUPPORTED_MODEL_TYPES = ("llama", "mistral", "qwen2", "qwen3")
#: the ``rope_type`` posenc registers in transformers' ``ROPE_INIT_FUNCTIONS`` (never containing "dynamic", which
#: would make the library recompute frequencies by length)
ROPE_TYPE = POSENC_ROPE_TYPE
#: the key of ``rope_parameters`` that holds the encoding's options (read back by :func:`posenc.from_hf_config`)
_SPEC_KEY = POSENC_ROPE_TYPE
#: the pairing of rotated channels in the supported models' rotary code (``rotate_half``)
_MODEL_PAIRING = "half"


def check_rope_model(config: Any) -> None:
    """Raise a clear error unless ``config`` describes a RoPE decoder posenc can patch."""
    model_type = getattr(config, "model_type", None) or (config.get("model_type") if isinstance(config, dict) else "")
    try:
        encoding = from_hf_config(config)
    except PosencError as exc:
        raise PosencError(f"model type {model_type!r} has no rotary position embedding posenc can read ({exc}); "
                          f"context extension by RoPE scaling needs a RoPE model such as smollm2") from exc
    if not encoding.info.rotates_qk:
        raise PosencError(f"model type {model_type!r} uses {encoding.name!r} positions "
                          f"({type(encoding).info.family} encoding), not RoPE; RoPE scaling does not apply to it. "
                          f"Use a RoPE decoder such as smollm2 (or any {', '.join(SUPPORTED_MODEL_TYPES)} model)")
    if model_type not in SUPPORTED_MODEL_TYPES:
        raise PosencError(f"model type {model_type!r} uses RoPE but its attention layout is not one posenc patches; "
                          f"supported model types are: {', '.join(SUPPORTED_MODEL_TYPES)}")
    if _slides(config, model_type):
        raise PosencError(f"this {model_type} model uses sliding-window attention; posenc's patched attention is full "
                          f"causal attention, so results would not be this model's. Use a model without a sliding "
                          f"window (set sliding_window=None only if the checkpoint was trained that way)")


def _field(config: Any, name: str) -> Any:
    return config.get(name) if isinstance(config, dict) else getattr(config, name, None)


def _slides(config: Any, model_type: str) -> bool:
    """Whether any layer of a supported model attends within a sliding window, however its config says so (a config
    object or its ``config.json`` dict): ``layer_types`` with ``"sliding_attention"``; without layer types,
    Mistral's ``sliding_window``, or Qwen2's / Qwen3's ``use_sliding_window`` with ``sliding_window`` on the layers
    at or past ``max_window_layers`` (default 28, as their config classes fill it in)."""
    layer_types = _field(config, "layer_types")
    if layer_types:
        return "sliding_attention" in layer_types
    window = _field(config, "sliding_window")
    if model_type == "mistral":
        return window is not None
    if model_type in ("qwen2", "qwen3") and window is not None and _field(config, "use_sliding_window"):
        layers, first = _field(config, "num_hidden_layers"), _field(config, "max_window_layers")
        return layers is None or int(layers) > (28 if first is None else int(first))
    return False


def native_length(config: Any) -> int:
    """The context the model was trained for: ``original_max_position_embeddings`` if the config scales its RoPE
    already, else ``max_position_embeddings``."""
    params = _field(config, "rope_parameters") or _field(config, "rope_scaling") or {}  # a config or its JSON dict
    original = params.get("original_max_position_embeddings") if isinstance(params, dict) else None
    value = original or _field(config, "original_max_position_embeddings") or _field(config, "max_position_embeddings")
    if not value:
        raise PosencError("the model config has no max_position_embeddings; pass the native length explicitly")
    return int(value)


def scaled_rope(config: Any, scaling: str, factor: float, native_len: int | None = None) -> PositionalEncoding:
    """posenc's RoPE for a Hugging Face config with the named scaling (see :mod:`posenc.extend.factors`).

    Head width, base, pairing and rotary width come from :func:`posenc.hf.config.rope_options_from_hf_config`; the scaling
    the config may already carry is replaced by ``scaling`` at ``factor`` relative to ``native_len``.
    """
    check_rope_model(config)
    options = rope_options_from_hf_config(config)
    native = native_len or native_length(config)
    options["scaling"] = scaling_spec(scaling, factor, native)
    return build("rope", **options)


class FixedLengthRope(PositionalEncoding):
    """A RoPE whose length-dependent scaling is evaluated at one fixed length ``seq_len`` for every call.

    ``rotate`` is ``inner.rotate(..., seq_len=seq_len)`` and ``frequencies()`` those at ``seq_len``, so a
    dynamic-NTK model decodes with the frequencies of its target length throughout (see the module docstring).
    """

    info = EncodingInfo(family="rotary", paper="Su et al. 2021, RoFormer (arXiv:2104.09864)", hooks=("rotate",))

    def __init__(self, inner: PositionalEncoding, seq_len: int):
        super().__init__()
        if not isinstance(inner, RoPE):
            raise PosencError(f"FixedLengthRope wraps a RoPE encoding, got {type(inner).__name__}; build one with "
                              f"posenc.build('rope', ...) or scaled_rope(config, scaling, factor)")
        if not whole_number(seq_len):
            raise PosencError(f"seq_len must be a positive integer, got {seq_len!r}")
        self.inner, self.seq_len = inner, int(seq_len)
        self.name = f"{inner.name}@{seq_len}"

    def frequencies(self, seq_len: int | None = None) -> tuple[torch.Tensor, float]:
        return self.inner.frequencies(self.seq_len)

    def rotate(self, q: torch.Tensor, k: torch.Tensor, q_positions: torch.Tensor, k_positions: torch.Tensor,
               inplace: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        """Rotate ``q [B, H, Tq, Dh]`` and ``k [B, Hk, Tk, Dh]`` with the frequencies at ``seq_len``: the inner
        RoPE's own ``rotate`` (its checks, tables and the one rotation), evaluated at that length."""
        return self.inner.rotate(q, k, q_positions, k_positions, inplace=inplace, seq_len=self.seq_len)


# -- the registered RoPE type ------------------------------------------------------------------------------------
def _spec(encoding: RoPE, seq_len: int | None) -> dict[str, Any]:
    """The JSON-able options that rebuild ``encoding`` (and the length a length-dependent scaling is taken at)."""
    scaling = encoding.scaling.as_dict() if encoding.scaling.type != "default" else None
    return {"head_dim": encoding.head_dim, "base": encoding.base, "pairing": encoding.pairing,
            "rotary_dim": encoding.rotary_dim, "scaling": scaling, "seq_len": seq_len}


def _rope_parameters(config: Any, layer_type: str | None) -> dict[str, Any]:
    params = getattr(config, "rope_parameters", None) or {}
    if layer_type is not None and isinstance(params.get(layer_type), dict):
        params = params[layer_type]
    return params


def patched_encoding(config: Any, layer_type: str | None = None) -> tuple[RoPE, int | None] | None:
    """The encoding (and fixed length) a patched config carries, or ``None`` for a config posenc did not patch."""
    params = _rope_parameters(config, layer_type)
    if params.get("rope_type") != ROPE_TYPE:
        return None
    options = rope_options_from_hf_config(config, layer_type)  # checks the entry is whole
    return RoPE(**options), params[_SPEC_KEY].get("seq_len")


def rope_init(config: Any, device: Any = None, seq_len: int | None = None, layer_type: str | None = None,
              **unknown: Any) -> tuple[torch.Tensor, float]:
    """transformers' RoPE init function for ``rope_type = "posenc"``: ``(inv_freq [R/2] float32, attention_factor)``.

    The frequencies are those of the encoding the config carries, at its fixed length when it has one (``seq_len``
    is the length transformers asks for; posenc's type is never recomputed by length, so it is only a fallback).
    """
    if unknown:
        raise PosencError(f"posenc's RoPE init function got arguments it does not know: {sorted(unknown)}; this "
                          f"transformers version ({_transformers_version()}) calls RoPE init functions differently "
                          f"from the versions posenc was tested with (see constraints.txt)")
    found = patched_encoding(config, layer_type)
    if found is None:
        raise PosencError(f"rope_init was called for a config whose rope_type is not {ROPE_TYPE!r}")
    encoding, fixed = found
    inv_freq, factor = encoding.frequencies(fixed if fixed is not None else seq_len)
    return inv_freq.to(device=device, dtype=torch.float32), float(factor)


def _transformers_version() -> str:
    import transformers

    return transformers.__version__


def _register() -> None:
    """Add posenc's type to transformers' registry (its documented extension point); idempotent."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    ROPE_INIT_FUNCTIONS[ROPE_TYPE] = rope_init


# -- patching ----------------------------------------------------------------------------------------------------
def _unwrap(encoding: PositionalEncoding) -> tuple[RoPE, int | None]:
    if isinstance(encoding, FixedLengthRope):
        return encoding.inner, encoding.seq_len
    if isinstance(encoding, RoPE) and type(encoding).scales is RoPE.scales:
        return encoding, None
    raise PosencError(f"patch_model puts RoPE frequencies into the model's own rotary code, so it takes a plain "
                      f"RoPE (posenc.build('rope', ...) or scaled_rope(config, scaling, factor)), got "
                      f"{type(encoding).__name__} {getattr(encoding, 'name', '')!r}")


def _check_matches(model: nn.Module, rope: RoPE) -> None:
    """The model rotates all of each head with half pairing; the encoding must describe that."""
    config = model.config
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    if rope.head_dim != head_dim or rope.rotary_dim != head_dim:
        raise PosencError(f"the encoding rotates {rope.rotary_dim} of {rope.head_dim} channels per head but this "
                          f"model's heads have {head_dim} channels, all rotated; build it from the model's config "
                          f"(scaled_rope(model.config, scaling, factor))")
    if rope.pairing != _MODEL_PAIRING:
        raise PosencError(f"the encoding pairs channels {rope.pairing!r} but {config.model_type} models rotate "
                          f"with {_MODEL_PAIRING!r} pairing; build it from the model's config "
                          f"(scaled_rope(model.config, scaling, factor))")
    if rope.scale_logits:
        raise PosencError("an encoding with scale_logits=True changes the softmax scale, which the model's rotary "
                          "code cannot carry; build it with scale_logits=False")


def _rotary_module(model: nn.Module) -> tuple[nn.Module, nn.Module]:
    base = getattr(model, "model", model)
    rotary = getattr(base, "rotary_emb", None)
    if rotary is None or not hasattr(rotary, "inv_freq"):
        raise PosencError(f"{type(model).__name__} has no rotary module at .model.rotary_emb in transformers "
                          f"{_transformers_version()}; posenc patches Llama-family models "
                          f"({', '.join(SUPPORTED_MODEL_TYPES)}) through their rotary module")
    return base, rotary


def patch_model(model: nn.Module, encoding: PositionalEncoding, seq_len: int | None = None,
                attention: str | None = ATTENTION) -> nn.Module:
    """Make ``model`` rotate with ``encoding``'s frequencies (in place; returns the model).

    ``encoding``: a plain RoPE with any scaling (:func:`scaled_rope`), or a :class:`FixedLengthRope`; ``seq_len``
    fixes the length a length-dependent scaling is evaluated at (as :class:`FixedLengthRope` does). ``attention``:
    the attention implementation to run (:data:`posenc.extend.attention.ATTENTION`, registered with transformers'
    ``AttentionInterface``, by default; ``None`` keeps the model's own). Patching a patched model swaps the encoding
    (no reload: the weights stay where they are).

    Example::

        >>> from transformers import LlamaConfig, LlamaForCausalLM
        >>> model = LlamaForCausalLM(LlamaConfig(hidden_size=64, num_attention_heads=4, num_hidden_layers=1,
        ...                                       intermediate_size=64, vocab_size=100))
        >>> rope = scaled_rope(model.config, "yarn", factor=2.0)
        >>> _ = patch_model(model, rope)
        >>> model.config.rope_parameters["rope_type"]
        'posenc'
    """
    check_rope_model(model.config)
    rope, fixed = _unwrap(encoding)
    if seq_len is not None:
        if not whole_number(seq_len):
            raise PosencError(f"seq_len must be a positive integer (the length a length-dependent scaling is "
                              f"evaluated at), got {seq_len!r}")
        fixed = int(seq_len)
    if rope.scaling.length_dependent and fixed is None:
        raise PosencError(f"the {rope.scaling.type!r} scaling changes with the length, and a model's KV cache cannot "
                          f"follow that; fix the length it is evaluated at: patch_model(model, encoding, "
                          f"seq_len=LENGTH) or FixedLengthRope(encoding, LENGTH)")
    _check_matches(model, rope)
    base, rotary = _rotary_module(model)
    _register()
    params = dict(_rope_parameters(model.config, None))
    params.update({"rope_type": ROPE_TYPE, _SPEC_KEY: _spec(rope, fixed)})
    model.config.rope_parameters = params
    device = rotary.inv_freq.device
    try:
        new = type(rotary)(config=model.config)
    except TypeError as exc:
        raise PosencError(f"the rotary module {type(rotary).__name__} of transformers {_transformers_version()} "
                          f"cannot be built from its config ({exc}); posenc was tested with the versions in "
                          f"constraints.txt") from exc
    base.rotary_emb = new.to(device)
    if attention == ATTENTION:
        model.set_attn_implementation(register_attention())
    elif attention is not None:
        model.set_attn_implementation(attention)
    return model


def set_encoding(model: nn.Module, encoding: PositionalEncoding, seq_len: int | None = None) -> nn.Module:
    """Swap the encoding of an already patched model (no reload: weights stay where they are; the attention
    implementation stays as it is)."""
    if patched_encoding(model.config) is None:
        raise PosencError("the model is not patched yet; call patch_model(model, encoding) first")
    return patch_model(model, encoding, seq_len, attention=None)
