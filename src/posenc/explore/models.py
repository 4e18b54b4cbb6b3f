"""The explorer's real models: each preset (and each ``--config`` file) read by posenc as ``posenc inspect`` reads it.

For every model the page gets the per-layer schedule (one cell per layer: its encoding and span, as
:meth:`posenc.encodings.schedule.Layer.describe` writes it), ``posenc inspect``'s findings, and for each distinct
rotary layer its rotary width, base, scaling and posenc's frequencies (``RoPE.frequencies()``), so the page's own
formula can be checked against them.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from posenc.encodings.rope import RoPE
from posenc.errors import PosencError
from posenc.explore.findings import chinese
from posenc.explore.presets import PRESETS, Preset
from posenc.inspection import Inspection, inspect_model

__all__ = ["model_entries", "model_entry", "read_user_config"]


def _native_length(raw: dict[str, Any], scaling: dict[str, Any]) -> int | None:
    """The training length the frequencies are drawn against: the scaling's original length, else the config's."""
    if scaling.get("original_max_len"):
        return int(scaling["original_max_len"])
    value = raw.get("max_position_embeddings") or (raw.get("text_config") or {}).get("max_position_embeddings")
    return int(value) if value else None


def _rope_of(encoding: RoPE, raw: dict[str, Any]) -> dict[str, Any]:
    inv_freq, factor = encoding.frequencies()
    params = dict(encoding.scaling.params)
    return {"dim": encoding.rotary_dim, "head_dim": encoding.head_dim, "base": encoding.base,
            "type": encoding.scaling.type, "params": params, "native": _native_length(raw, params),
            "inv_freq": inv_freq.tolist(), "attention_factor": float(factor)}


def model_entry(name: str, source: str, inspection: Inspection, raw: dict[str, Any],
                source_zh: str | None = None) -> dict[str, Any]:
    """The page's record of one model: ``name``, ``source`` (and ``source_zh``), ``layers`` (one group index per layer), ``groups``
    (``text`` and ``rope`` or ``None`` per distinct layer) and ``findings`` (code, message, and the message in
    Chinese: :func:`posenc.explore.findings.chinese`, ``None`` where no template matches)."""
    groups: list[dict[str, Any]] = []
    texts: dict[str, int] = {}
    layers: list[int] = []
    for layer in inspection.schedule.layers if inspection.schedule is not None else ():
        text = layer.describe()
        if text not in texts:
            texts[text] = len(groups)
            rope = _rope_of(layer.encoding, raw) if isinstance(layer.encoding, RoPE) else None
            groups.append({"text": text, "rope": rope, "window": layer.window})
        layers.append(texts[text])
    return {"name": name, "source": source, "source_zh": source_zh or source, "model_type": inspection.model_type, "layers": layers, "groups": groups,
            "findings": [{"code": f.code, "message": f.message, "message_zh": chinese(f.code, f.message)}
                         for f in inspection.findings]}


def _preset_entry(preset: Preset, folder: Path) -> dict[str, Any]:
    path = folder / f"{len(list(folder.iterdir()))}.json"
    path.write_text(json.dumps(preset.config))
    return model_entry(preset.name, preset.source, inspect_model(path), preset.config, preset.source_zh)


def read_user_config(path: Path) -> dict[str, Any]:
    """A user's ``config.json`` as a model record; a file that is missing or not a Hugging Face config is a
    :class:`~posenc.errors.PosencError` naming it."""
    path = Path(path).expanduser()
    if path.is_dir():
        path = path / "config.json"
    if not path.is_file():
        raise PosencError(f"config file {path} does not exist; pass a model's config.json (or its folder), "
                          f"e.g. --config ~/models/llama/config.json")
    inspection = inspect_model(path)  # refuses a file that is not JSON or has no model_type, naming it
    raw = json.loads(path.read_text())
    return model_entry(str(raw.get("_name_or_path") or path.parent.name or path.name), str(path), inspection, raw)


def model_entries(configs: Sequence[Path] = ()) -> list[dict[str, Any]]:
    """The shipped presets, then each user config (read first, so a bad one fails before any work)."""
    users = [read_user_config(Path(p)) for p in configs]
    with tempfile.TemporaryDirectory(prefix="posenc-explore-") as tmp:
        entries = [_preset_entry(preset, Path(tmp)) for preset in PRESETS]
    return entries + users
