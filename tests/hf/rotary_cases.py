"""Capture a tiny Hugging Face model's own rotary application of q and k, and compare posenc's with it.

For one model type: the default config of the installed ``transformers``, shrunk to a few small layers (no download,
no ``trust_remote_code``); the model built from it with random weights; one forward pass on ``T`` token ids with every
module-level ``apply*rot*`` / ``apply*rope*`` function of the model's modeling files replaced by a recorder. The
recorder keeps each call's input tensors, the rotated tensors it returns, and the ``layer_idx`` of the attention
module that called it; each returned tensor is matched to the first input of its shape (q and k come before cos and
sin in every signature). So for each rotated tensor ``x`` (q or k, ``[B, H, T, W]`` or ``[B, T, H, W]``)

    model:  x_in -> x_out        posenc:  from_hf_config(config, layer_type).rotate(x_in, ...) at positions 0..T-1

must agree. ``W`` may be the rotary width only (models that slice before rotating): posenc then rotates ``x_in``
padded to its head width and the slice is compared.

:func:`check` returns an :class:`Outcome` whose ``status`` is ``"match"`` (``detail``: the pairing, and the layout
when the model writes interleaved pairs back as halves), ``"refused"`` (posenc raised a PosencError: ``detail`` is
its message), ``"unbuildable"`` or ``"no-capture"`` (the walk could not run the model or saw no rotation), or
``"mismatch"``.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import logging
import re
import sys
import warnings
from dataclasses import dataclass

import torch

import posenc
from posenc.encodings.rope import pairing_permutation
from posenc.errors import PosencError, PosencWarning

T = 11  # tokens: prime and unlike every head count and width below, so the token axis is found by its size
ATOL = 1e-5  # relative to the largest |x_out| (at least 1)
ROTARY_KEYS = ("rope_parameters", "rope_scaling", "rope_theta", "rotary_emb_base", "rotary_pct", "rotary_dim",
               "partial_rotary_factor")

#: sizes for a tiny model, applied where the default config has the field
SMALL = {
    "hidden_size": 64, "n_embd": 64, "d_model": 64,
    "num_attention_heads": 4, "n_head": 4, "num_heads": 4, "n_heads": 4, "encoder_num_attention_heads": 4,
    "decoder_num_attention_heads": 4, "encoder_num_key_value_heads": 2, "decoder_num_key_value_heads": 2,
    "num_key_value_heads": 2, "n_kv_heads": 2, "num_kv_heads": 2, "multi_query_group_num": 2,
    "head_dim": 16,
    "intermediate_size": 96, "n_inner": 96, "ffn_hidden_size": 96, "ffn_dim": 96,
    "moe_intermediate_size": 32, "shared_expert_intermediate_size": 32, "expert_intermediate_size": 32,
    "vocab_size": 97,
    "num_experts": 4, "num_local_experts": 4, "n_routed_experts": 4, "moe_num_experts": 4, "num_experts_per_tok": 2,
    "moe_k": 2, "n_group": 1, "topk_group": 1, "n_shared_experts": 1, "first_k_dense_replace": 0,
    "kv_lora_rank": 16, "q_lora_rank": 24, "qk_rope_head_dim": 8, "qk_nope_head_dim": 8, "v_head_dim": 16,
    "linear_num_key_heads": 2, "linear_num_value_heads": 4, "linear_key_head_dim": 16, "linear_value_head_dim": 16,
    "sliding_window": 64,
    "index_num_heads": 2,  # Kolibri 1.1's indexer: at most the query heads per key head (4 / 2)
}
LAYER_COUNTS = ("num_hidden_layers", "n_layer", "num_layers", "n_layers")


@dataclass
class Outcome:
    status: str
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.status}: {self.detail}" if self.detail else self.status


def default_config(model_type: str):
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return CONFIG_MAPPING[model_type]()


def has_rotary_parameters(config) -> bool:
    """The config itself (not a sub-config) carries rotary parameters."""
    values = config.to_dict()
    return any(values.get(key) is not None for key in ROTARY_KEYS)


def _partial_factors(values: dict) -> list[float]:
    params = values.get("rope_parameters") or {}
    entries = list(params.values()) if params and all(isinstance(v, dict) for v in params.values()) else [params]
    factors = [e.get("partial_rotary_factor") for e in entries] + [values.get("partial_rotary_factor")]
    return [f for f in factors if f]


def _overrides(model_type: str, layers: int | None, keep_head: bool = False, fields: dict | None = None) -> dict:
    """Constructor arguments shrinking the default config; ``layers=None`` keeps its layer count and types;
    ``keep_head`` keeps its head width (two heads of it) for models whose code fixes sections of the head;
    ``fields`` are set as given (e.g. ``{"rope_interleave": False}``)."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    cls = CONFIG_MAPPING[model_type]
    values = default_config(model_type).to_dict()
    params = inspect.signature(cls.__init__).parameters
    takes_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
    accepts = lambda key: key in values and (key in params or takes_any)  # noqa: E731
    out = {key: value for key, value in SMALL.items() if accepts(key)}
    heads = values.get("num_attention_heads") or values.get("n_head")
    old_head = values.get("head_dim") or (values.get("hidden_size") or values.get("n_embd") or 0) // (heads or 1)
    if values.get("q_lora_rank") is None:
        out.pop("q_lora_rank", None)
    if "qk_rope_head_dim" in out:  # multi-head latent attention: head_dim is the rope part, one k head per q head
        out.pop("head_dim", None)
        if "num_key_value_heads" in out:
            out["num_key_value_heads"] = out.get("num_attention_heads", 4)
    elif "head_dim" in out or keep_head:
        # a width whose partial rotary part int(head_dim * factor) is even, as Hugging Face's code assumes
        factors = _partial_factors(values)
        widths = [old_head] if keep_head else [16, 24, 32, 40, 48, 64]
        head = next((h for h in widths if all(int(h * f) % 2 == 0 and int(h * f) >= 2 for f in factors)), widths[0])
        sizes = {"head_dim": head, "hidden_size": 2 * head if keep_head else 64,
                 "num_attention_heads": 2 if keep_head else 4, "num_key_value_heads": 1 if keep_head else 2}
        for key, value in sizes.items():
            if accepts(key):
                out[key] = value
    if values.get("rotary_dim"):  # an absolute rotary width (GPT-J): keep its fraction of the new head width
        new_head = out.get("head_dim") or (out.get("hidden_size") or out.get("n_embd")) // (
            out.get("num_attention_heads") or out.get("n_head"))
        out["rotary_dim"] = max(2, new_head * values["rotary_dim"] // old_head // 2 * 2)
    from posenc.hf.config import M_ROPE_LAYOUTS

    if model_type in M_ROPE_LAYOUTS and isinstance(values.get("rope_parameters"), dict):
        # M-RoPE sections must sum to the new head's pairs: a third each, the remainder on the temporal axis
        new_head = out.get("head_dim") or (out.get("hidden_size") or values["hidden_size"]) // (
            out.get("num_attention_heads") or values["num_attention_heads"])
        pairs = new_head // 2
        section = [pairs - 2 * (pairs // 3), pairs // 3, pairs // 3]
        out["rope_parameters"] = {**values["rope_parameters"], "mrope_section": section}
    for key, value in values.items():  # special token ids must fit the small vocabulary
        if key.endswith("_token_id") and isinstance(value, int) and value >= 97 and accepts(key):
            out[key] = 1
    if layers is not None:
        out.update({key: layers for key in LAYER_COUNTS if accepts(key)})
        if isinstance(values.get("layer_types"), list) and accepts("layer_types"):
            out["layer_types"] = values["layer_types"][:layers]
    return {**out, **(fields or {})}


def small_configs(model_type: str, fields: dict | None = None):
    """Candidate tiny configs, most shrunk first: 1 layer; enough layers to meet every layer type; default layers;
    1 layer of two heads of the default head width."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    values = default_config(model_type).to_dict()
    types = values.get("layer_types") if isinstance(values.get("layer_types"), list) else []
    reach = max((types.index(t) for t in set(types)), default=0) + 1
    for layers, keep_head in dict.fromkeys(((1, False), (max(reach, 4), False), (None, False), (1, True))):
        try:
            config = CONFIG_MAPPING[model_type](**_overrides(model_type, layers, keep_head, fields))
        except Exception as exc:
            yield exc
            continue
        config._attn_implementation = "eager"
        yield config


def _modules_of(model) -> list:
    names = {type(m).__module__ for m in model.modules()}
    return [sys.modules[n] for n in sorted(names) if n.startswith("transformers.models.")]


_APPLY = re.compile(r"^apply\w*(rot|rope)", re.IGNORECASE)


def rotary_functions(module) -> list[tuple[str, object]]:
    """The ``apply*rot*`` / ``apply*rope*`` functions of a modeling module, or (transformers 5.25 with the kernels
    package) the callable objects a hub-kernel decorator made of them; not a class of such a name."""
    return [(name, fn) for name, fn in list(vars(module).items())
            if _APPLY.match(name) and callable(fn) and not inspect.isclass(fn)]


class MRope(Exception):
    """The model's rotary embedding is multimodal M-RoPE."""


@dataclass
class Rotated:
    function: str
    layer_idx: int | None
    x_in: torch.Tensor
    x_out: torch.Tensor


@contextlib.contextmanager
def recording(modules):
    """Replace every ``apply*rot*`` / ``apply*rope*`` function (or callable object) of ``modules`` by a recorder of its
    calls."""
    calls: list[tuple[str, int | None, list, object]] = []
    depth = [0]
    patched = []

    def wrap(name, fn):
        def recorder(*args, **kwargs):
            caller = inspect.currentframe().f_back.f_locals.get("self")
            depth[0] += 1
            try:
                out = fn(*args, **kwargs)
            finally:
                depth[0] -= 1
            if depth[0] == 0:
                tensors = [a.detach().clone() for a in (*args, *kwargs.values()) if isinstance(a, torch.Tensor)]
                calls.append((name, getattr(caller, "layer_idx", None), tensors, _detach(out)))
            return out

        return recorder

    for module in modules:
        for name, fn in rotary_functions(module):
            patched.append((module, name, fn))
            setattr(module, name, wrap(name, fn))
    try:
        yield calls
    finally:
        for module, name, fn in patched:
            setattr(module, name, fn)


def _detach(out):
    if isinstance(out, torch.Tensor):
        return out.detach().clone()
    if isinstance(out, (tuple, list)):
        return type(out)(_detach(o) for o in out)
    return out


def _rotated(calls) -> list[Rotated]:
    """Each rotated tensor with its input, in call order."""
    found = []
    for name, layer_idx, inputs, out in calls:
        outputs = [out] if isinstance(out, torch.Tensor) else [o for o in (out or ()) if isinstance(o, torch.Tensor)]
        used = set()
        for o in outputs:
            for i, x in enumerate(inputs):
                if i not in used and x.shape == o.shape and x.dtype == o.dtype:
                    used.add(i)
                    found.append(Rotated(name, layer_idx, x, o))
                    break
    return found


def model_class(config):
    """The base model class for a config: the auto mapping, else the package's model whose config_class it is."""
    from transformers import PreTrainedModel
    from transformers.models.auto.modeling_auto import MODEL_MAPPING

    try:
        cls = MODEL_MAPPING[type(config)]
        return cls[0] if isinstance(cls, (tuple, list)) else cls
    except KeyError:
        pass
    package = type(config).__module__.rsplit(".", 1)[0]  # transformers.models.<name>
    modeling = importlib.import_module(f"{package}.modeling_{package.rsplit('.', 1)[1]}")
    candidates = [obj for obj in vars(modeling).values()
                  if inspect.isclass(obj) and issubclass(obj, PreTrainedModel) and obj.config_class is type(config)]
    bases = [c for c in candidates if c.__name__.endswith("Model")] or candidates
    if not bases:
        raise LookupError(f"no model class takes {type(config).__name__}")
    return min(bases, key=lambda c: len(c.__name__))


MAX_PARAMETERS = 20_000_000


def build(config, seed: int = 0):
    """The tiny model of ``config`` with random weights (refused above :data:`MAX_PARAMETERS`, counted on meta)."""
    cls = model_class(config)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.device("meta"):
            size = sum(p.numel() for p in cls(config).parameters())
        if size > MAX_PARAMETERS:
            raise MemoryError(f"{size / 1e6:.0f}M parameters after shrinking the config")
        torch.manual_seed(seed)
        return cls(config).eval()


def uses_m_rope(model) -> bool:
    """A module of the model splits its rotary angles by an ``mrope_section`` (multimodal M-RoPE; HunYuan-VL keeps
    ``None`` there until a config names the sections)."""
    return any(hasattr(m, "mrope_section") for m in model.modules())


def run(config, seed: int = 0, m_rope_ok: bool = False) -> list[Rotated]:
    """Build the model of ``config`` and record its rotations of a forward pass on ``T`` token ids (text positions:
    an M-RoPE model, accepted with ``m_rope_ok``, turns every section by the same position)."""
    model = build(config, seed)
    cls = type(model)
    if uses_m_rope(model) and not m_rope_ok:
        raise MRope(f"{cls.__name__} has an M-RoPE rotary embedding (mrope_section)")
    ids = torch.randint(0, getattr(config, "vocab_size", None) or 97, (1, T))
    with recording([importlib.import_module(cls.__module__), *_modules_of(model)]) as calls, torch.no_grad():
        try:
            model(input_ids=ids)
        except Exception as first:
            try:
                model(input_ids=ids, decoder_input_ids=ids)
            except Exception:
                raise first from None
    return _rotated(calls)


def _bhtd(x: torch.Tensor) -> torch.Tensor | None:
    """The tensor as ``[B, H, T, W]``, or ``None`` when it has no token axis of size ``T`` (e.g. compressed keys)."""
    if x.dim() == 4 and x.shape[2] == T:
        return x
    if x.dim() == 4 and x.shape[1] == T:
        return x.transpose(1, 2)
    if x.dim() == 3 and x.shape[1] == T:
        return x[:, None]
    return None


def posenc_rotation(encoding, x: torch.Tensor) -> torch.Tensor:
    """posenc's rotation of ``x [B, H, T, W]`` at positions ``0..T-1``; a rotary slice is padded to head_dim."""
    positions = torch.arange(T)
    width = x.shape[-1]
    if width == encoding.head_dim:
        return encoding.rotate(x, x, positions, positions)[0]
    if width == encoding.rotary_dim:
        padded = torch.nn.functional.pad(x, (0, encoding.head_dim - width))
        return encoding.rotate(padded, padded, positions, positions)[0][..., :width]
    raise ValueError(f"the model rotates tensors of width {width}, but posenc's encoding has head_dim "
                     f"{encoding.head_dim} and rotary_dim {encoding.rotary_dim}")


def layouts(encoding, width: int) -> dict[str, torch.Tensor]:
    """Channel orders in which a model may write posenc's rotation: as is, or (interleaved pairing) in DeepSeek's
    halves."""
    out = {"identity": torch.arange(width)}
    if encoding.pairing == "interleaved":
        out["halves"] = pairing_permutation(min(encoding.rotary_dim, width), width, "interleaved", "half")
    return out


def relative_error(encoding, r: Rotated, layout: str) -> float:
    x, want = _bhtd(r.x_in.float()), _bhtd(r.x_out.float())
    got = posenc_rotation(encoding, x)[..., layouts(encoding, x.shape[-1])[layout]]
    return float((got - want).abs().max()) / max(1.0, float(want.abs().max()))


def _layer_type(config, layer_idx: int | None) -> str | None:
    params = getattr(config, "rope_parameters", None)
    per_type = isinstance(params, dict) and params and all(isinstance(v, dict) for v in params.values())
    types = getattr(config, "layer_types", None)
    if not per_type or not types or layer_idx is None or types[layer_idx] not in params:
        return None
    return types[layer_idx]


def compare(config, rotated: list[Rotated], ignore: tuple[str, ...] = ()) -> Outcome:
    """Every rotated tensor with a token axis (bar those of functions in ``ignore``) against posenc."""
    checked, labels = 0, set()
    for r in rotated:
        if r.function in ignore or _bhtd(r.x_in) is None:
            continue
        try:
            encoding = posenc.from_hf_config(config, layer_type=_layer_type(config, r.layer_idx))
        except PosencError as exc:
            return Outcome("refused", str(exc))
        try:
            errors = {label: relative_error(encoding, r, label) for label in layouts(encoding, r.x_in.shape[-1])}
        except ValueError as exc:
            return Outcome("mismatch", f"{r.function} (layer {r.layer_idx}): {exc}")
        label = min(errors, key=errors.get)
        if errors[label] > ATOL:
            return Outcome("mismatch", f"{r.function} (layer {r.layer_idx}, {list(r.x_in.shape)}): posenc "
                                       f"({encoding.extra_repr()}) is off by {errors[label]:.3g} relative")
        if min(encoding.rotary_dim, r.x_in.shape[-1]) >= 4:  # with one pair both pairings are the same rotation
            other = posenc.build("rope", head_dim=encoding.head_dim, base=encoding.base, rotary_dim=encoding.rotary_dim,
                                 scaling=encoding.scaling, pairing="half" if encoding.pairing == "interleaved"
                                 else "interleaved")
            wrong = min(relative_error(other, r, lab) for lab in layouts(other, r.x_in.shape[-1]))
            if wrong <= 100 * ATOL:
                return Outcome("mismatch", f"{r.function}: the other pairing agrees too ({wrong:.3g}); this check "
                                           f"cannot tell pairings apart")
        checked += 1
        labels.add(f"{encoding.pairing}" + ("" if label == "identity" else f", {label}"))
    if checked < 2:
        return Outcome("no-capture", f"{len(rotated)} rotated tensor(s), {checked} at token positions")
    return Outcome("match", " / ".join(sorted(labels)))


def check(model_type: str, ignore: tuple[str, ...] = (), fields: dict | None = None) -> Outcome:
    """One model type end to end (the module docstring): rotations by functions in ``ignore`` are not compared;
    ``fields`` override config fields."""
    logging.getLogger("transformers").setLevel(logging.ERROR)
    errors = []
    for config in small_configs(model_type, fields):
        if isinstance(config, Exception):
            errors.append(f"config: {type(config).__name__}: {_line(config)}")
            continue
        try:
            with warnings.catch_warnings():  # which encoding it is; each layer type is compared with its own below
                warnings.simplefilter("ignore", PosencWarning)
                encoding = posenc.from_hf_config(config)
        except PosencError as exc:
            return Outcome("refused", str(exc))
        if encoding.name not in ("rope", "mrope"):
            return Outcome("refused", f"from_hf_config built {encoding.name!r}, not rope")
        try:
            rotated = run(config, m_rope_ok=encoding.name == "mrope")
        except MRope as exc:
            return Outcome("mismatch", f"{exc}, but from_hf_config mapped it to {encoding.extra_repr()}")
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {_line(exc)}")
            continue
        outcome = compare(config, rotated, ignore)
        if outcome.status != "no-capture":
            return outcome
        errors.append(outcome.detail)
    status = "no-capture" if errors and "rotated tensor" in errors[-1] else "unbuildable"
    return Outcome(status, errors[-1] if errors else "no config")


def _line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else ""
