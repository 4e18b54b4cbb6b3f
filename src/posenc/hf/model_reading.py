"""How a Hugging Face model handles positions, read off the model itself rather than its config's fields.

:func:`posenc.from_hf_config` reads what a config's fields say; :func:`read_encoding` builds the model those fields
describe (one layer, its parameters on the meta device: nothing downloaded, no weights loaded or allocated) and looks
at what it holds: a trainable table with one row per position (a learned encoding), or a rotary module or an
``inv_freq`` buffer (RoPE). An independent reading to set beside posenc's.
"""

from __future__ import annotations

import torch

__all__ = ["read_encoding"]


def read_encoding(config) -> dict[str, object]:
    """How the model a Hugging Face config describes handles positions, read from the model itself: built from the
    config (one layer, its parameters on the meta device: nothing downloaded or allocated), then inspected.

    Returns ``{"kind": "learned" | "rope" | "unclear", "table": [rows, width] or None, "rotary": [module names]}``:
    ``learned`` when a trainable parameter has one row per position (the config's ``n_positions`` /
    ``max_position_embeddings``) and nothing rotates; ``rope`` when a rotary module or an ``inv_freq`` buffer exists
    and no such table does.
    """
    from transformers import AutoModel

    positions = getattr(config, "n_positions", None) or getattr(config, "max_position_embeddings", None)
    layers = {k: 1 for k in ("num_hidden_layers", "n_layer") if getattr(config, k, None) is not None}
    small = type(config)(**{**config.to_dict(), **layers})
    try:  # parameters on the meta device, buffers (inv_freq) computed; cheaper than a meta device context
        from accelerate import init_empty_weights

        empty = init_empty_weights()
    except ImportError:
        empty = torch.device("meta")
    with empty:
        model = AutoModel.from_config(small)
    tables = [list(p.shape) for p in model.parameters() if p.dim() == 2 and p.requires_grad and positions
              and p.shape[0] == positions]
    rotary = sorted({type(m).__name__ for m in model.modules() if "rotary" in type(m).__name__.lower()}
                    | {name for name, _ in model.named_buffers() if name.endswith("inv_freq")})
    kind = "learned" if tables and not rotary else "rope" if rotary and not tables else "unclear"
    return {"kind": kind, "table": tables[0] if tables else None, "rotary": rotary}
