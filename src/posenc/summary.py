"""``posenc show``: a short summary of one encoding and a heatmap PNG."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from posenc.checks import whole_number
from posenc.errors import PosencError
from posenc.registry import build_for_model, get_class

__all__ = ["summarize"]


def summarize(name: str, d_model: int = 64, length: int = 128, n_heads: int = 8,
              options: dict[str, Any] | None = None, out: Path | None = None) -> dict[str, Any]:
    """Build ``name`` for a model of width ``d_model`` and describe it; write a heatmap to ``out`` if given."""
    if not whole_number(length) or not whole_number(d_model):
        raise PosencError(f"length and d_model must be positive integers, got length={length!r}, d_model={d_model!r}")
    cls = get_class(name)
    encoding = build_for_model(name, d_model=d_model, n_heads=n_heads, head_dim=d_model, max_len=max(length, 1),
                               **dict(options or {}))
    from posenc.plots.heatmap import encoding_matrix, heatmap

    matrix, title, _, _ = encoding_matrix(encoding, length, d_model)
    summary: dict[str, Any] = {
        "name": name,
        "family": cls.info.family,
        "hooks": ", ".join(encoding.info.hooks) or "(none)",
        "paper": cls.info.paper,
        "module": repr(encoding).replace("\n", " "),
        "trainable parameters": sum(p.numel() for p in encoding.parameters() if p.requires_grad),
        "drawn": f"{title} over {length} positions, shape {list(matrix.shape)}",
        "value range": f"[{float(matrix.detach().min()):.4g}, {float(matrix.detach().max()):.4g}]",
    }
    if out is not None:
        out = Path(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        heatmap(encoding, length, d_model).savefig(out, dpi=120)
        summary["heatmap"] = str(out)
    return summary
